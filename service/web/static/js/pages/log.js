// The log page: every accepted move with its hash chain, and "verify this record" in the browser
// (js/verify.js). The table is drawn from the record itself (GET /v1/matches/{id}/record), the
// very object the verifier checks, so what you see is what was verified.

import { api } from "../api.js";
import "../header.js";
import { clearError, el, showError, showStatus } from "../ui.js";
import { verifyRecord } from "../verify.js";
import { byWords, localTime, matchEventText } from "../clockwords.js";

const matchId = document.body.dataset.match;
const short = (hash) => (hash ? hash.slice(0, 10) : "");

function hashCell(hash, label) {
  return el("td", { class: "hash" }, el("code", { title: hash, "data-hash": hash, "aria-label": `${label} ${hash}` }, short(hash)));
}

// A seat for people: "Ana (seat 0)", seats counted from 0 as everywhere.
function seatWords(names, seat) {
  const name = names.get(seat);
  return name ? `${name} (seat ${seat})` : `seat ${seat}`;
}

// What a move did, in the rules' own words (its public events), the match's own events (resigned,
// timed out, abort votes) as sentences; the raw actions otherwise. A timeout says when it was due.
function what(entry, names) {
  const texts = (entry.events || []).map((e) => matchEventText(e, (s) => seatWords(names, s)) || e.text).filter(Boolean);
  if (entry.clock && entry.clock.deadline) {
    texts.push(`(The deadline was ${localTime(entry.clock.deadline)}; the timeout rule acted at ${localTime(entry.clock.acts_at)}.)`);
  }
  return texts.length ? texts.join(" ") : JSON.stringify(entry.envelope.actions);
}

// Seats counted from 0, as everywhere: the server's sentences, the pictures, the CLI and the record.
function who(entry, names) {
  const name = names.get(entry.seat);
  const by = byWords(entry.by);
  return `${name ? `${name} ` : ""}(seat ${entry.seat}${by ? `, ${by}` : ""})`;
}

function drawLog(record, names) {
  const body = document.querySelector("#log tbody");
  body.replaceChildren(...record.entries.map((entry, i) => el("tr", { class: "entry", "data-ply": String(entry.ply) },
    el("td", {}, String(entry.ply)),
    el("td", {}, who(entry, names)),
    el("td", { class: "what", title: JSON.stringify(entry.envelope.actions) }, what(entry, names)),
    el("td", {}, el("time", { datetime: entry.accepted_at }, entry.accepted_at.replace("T", " ").replace(/\.\d+/, ""))),
    hashCell(entry.hash, "hash"),
    i === 0 ? el("td", { class: "hash genesis", title: entry.prev }, "genesis") : hashCell(entry.prev, "prev"))));
  if (!record.entries.length) body.replaceChildren(el("tr", {}, el("td", { colspan: "6" }, "No moves yet.")));
}

function drawResult(result) {
  const box = document.getElementById("verify-result");
  const mark = (ok) => (ok === true ? "✓" : ok === false ? "✗" : "–");
  const word = (ok) => (ok === true ? "passed" : ok === false ? "FAILED" : "not checked here");
  const line = (c) => (c.ok === null ? c.detail : `${word(c.ok)}: ${c.detail}`);  // a null's detail says why
  const later = result.checks.some((c) => c.ok === null && c.name !== "rules replay");  // a running match
  const verdict = !result.ok ? `The record does NOT verify: ${result.failure}`
    : later ? "The record checks out so far: everything a running match shows holds; the rest once it is over."
      : "The record checks out: everything the browser can check holds.";
  box.replaceChildren(
    el("p", { class: "verdict" }, verdict),
    el("ul", {}, ...result.checks.map((c) => el("li", { class: `check ${word(c.ok).replace(/ /g, "-").toLowerCase()}`, "data-check": c.name },
      el("span", { "aria-hidden": "true" }, `${mark(c.ok)} `),
      el("strong", {}, `${c.name}: `), line(c)))),
    ...(result.command ? [el("p", {}, "The rules replay, on your own machine (with the portolan command installed):"),
      el("pre", {}, el("code", { id: "verify-command" }, result.command))] : []));
  box.dataset.ok = String(result.ok);
  box.hidden = false;
}

async function load() {
  const [record, meta] = await Promise.all([api("GET", `/v1/matches/${matchId}/record`), api("GET", `/v1/matches/${matchId}`)]);
  const names = new Map((meta.seats || []).map((s) => [s.seat, s.name || (s.kind === "bot" ? "bot" : "")]));
  drawLog(record, names);
  return record;
}

async function main() {
  let record = null;
  try {
    record = await load();
    showStatus(`${record.entries.length} moves, status ${record.status}.`);
  } catch (err) {
    showError(err);
  }
  document.getElementById("verify").addEventListener("click", async () => {
    const button = document.getElementById("verify");
    button.disabled = true;
    clearError();
    try {
      // the record as it is now (the match may have moved on), and the key this server signs with
      record = await load();
      const { public_key: serverKey } = await api("GET", "/v1/server-key");
      showStatus("Verifying…");
      const result = await verifyRecord(record, serverKey);
      drawResult(result);
      showStatus(result.ok ? "The record verifies." : "The record does not verify.");
    } catch (err) {
      showError(err);
    } finally {
      button.disabled = false;
    }
  });
}

main();
