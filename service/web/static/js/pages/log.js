// The log page: every accepted move with its hash chain, and "verify this record" in the browser
// (js/verify.js). The table is drawn from the record itself (GET /v1/matches/{id}/record), the
// very object the verifier checks, so what you see is what was verified.

import { api } from "../api.js";
import "../header.js";
import { clearError, el, showError, showStatus } from "../ui.js";
import { verifyRecord } from "../verify.js";
import { byWords, localTime, matchEventText } from "../clockwords.js";
import { t, tn } from "../words.js";

const matchId = document.body.dataset.match;
const short = (hash) => (hash ? hash.slice(0, 10) : "");
const STATUS_WORDS = { waiting: t("waiting for players"), active: t("being played"), finished: t("finished"), aborted: t("aborted") };

function hashCell(hash, label) {
  return el("td", { class: "hash" }, el("code", { title: hash, "data-hash": hash, "aria-label": `${label} ${hash}` }, short(hash)));
}

// A seat for people: "Ana (seat 0)", seats counted from 0 as everywhere.
function seatWords(names, seat) {
  const name = names.get(seat);
  return name ? t("{name} (seat {seat})", { name, seat }) : t("seat {seat}", { seat });
}

// What a move did, in the rules' own words (its public events), the match's own events (resigned,
// timed out, abort votes) as sentences; the raw actions otherwise. A timeout says when it was due.
function what(entry, names) {
  const texts = (entry.events || []).map((e) => matchEventText(e, (s) => seatWords(names, s)) || e.text).filter(Boolean);
  if (entry.clock && entry.clock.deadline) {
    texts.push(t("(The deadline was {deadline}; the timeout rule acted at {acted}.)",
      { deadline: localTime(entry.clock.deadline), acted: localTime(entry.clock.acts_at) }));
  }
  return texts.length ? texts.join(" ") : JSON.stringify(entry.envelope.actions);
}

// Seats counted from 0, as everywhere: the server's sentences, the pictures, the CLI and the record.
function who(entry, names) {
  const name = names.get(entry.seat);
  const by = byWords(entry.by);
  const seat = by ? t("(seat {seat}, {by})", { seat: entry.seat, by }) : t("(seat {seat})", { seat: entry.seat });
  return `${name ? `${name} ` : ""}${seat}`;
}

function drawLog(record, names) {
  const body = document.querySelector("#log tbody");
  body.replaceChildren(...record.entries.map((entry, i) => el("tr", { class: "entry", "data-ply": String(entry.ply) },
    el("td", {}, String(entry.ply)),
    el("td", {}, who(entry, names)),
    el("td", { class: "what", title: JSON.stringify(entry.envelope.actions) }, what(entry, names)),
    el("td", {}, el("time", { datetime: entry.accepted_at }, entry.accepted_at.replace("T", " ").replace(/\.\d+/, ""))),
    hashCell(entry.hash, t("hash")),
    i === 0 ? el("td", { class: "hash genesis", title: entry.prev }, "genesis") : hashCell(entry.prev, t("prev")))));
  if (!record.entries.length) body.replaceChildren(el("tr", {}, el("td", { colspan: "6" }, t("No moves yet."))));
}

// the checks' names (verify.js's machine names, kept in data-check) in the page's language
const CHECK_NAMES = {
  format: t("format"), "server key": t("server key"), "seat keys": t("seat keys"), clock: t("clock"), seed: t("seed"),
  events: t("events"), "hidden events": t("hidden events"), chain: t("chain"), signatures: t("signatures"),
  signers: t("signers"), "entry hashes": t("entry hashes"), receipts: t("receipts"), "rules replay": t("rules replay"),
  record: t("record"),
};

function drawResult(result) {
  const box = document.getElementById("verify-result");
  const mark = (ok) => (ok === true ? "✓" : ok === false ? "✗" : "–");
  // the class names stay English (a stylesheet's and a test's hooks); the words follow the page
  const kind = (ok) => (ok === true ? "passed" : ok === false ? "failed" : "not-checked-here");
  const word = (ok) => (ok === true ? t("passed") : ok === false ? t("FAILED") : t("not checked here"));
  const line = (c) => (c.ok === null ? c.detail : `${word(c.ok)}: ${c.detail}`);  // a null's detail says why
  const later = result.checks.some((c) => c.ok === null && c.name !== "rules replay");  // a running match
  const verdict = !result.ok ? t("The record does NOT verify: {failure}", { failure: result.failure })
    : later ? t("The record checks out so far: everything a running match shows holds; the rest once it is over.")
      : t("The record checks out: everything the browser can check holds.");
  box.replaceChildren(
    el("p", { class: "verdict" }, verdict),
    el("ul", {}, ...result.checks.map((c) => el("li", { class: `check ${kind(c.ok)}`, "data-check": c.name },
      el("span", { "aria-hidden": "true" }, `${mark(c.ok)} `),
      el("strong", {}, `${CHECK_NAMES[c.name] || c.name}: `), line(c)))),
    ...(result.command ? [el("p", {}, t("The rules replay, on your own machine (with the portolan command installed):")),
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
    const status = STATUS_WORDS[record.status] || record.status;
    showStatus(tn("{n} move; the match is {status}.", "{n} moves; the match is {status}.", record.entries.length, { status }));
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
      showStatus(t("Verifying…"));
      const result = await verifyRecord(record, serverKey);
      drawResult(result);
      showStatus(result.ok ? t("The record verifies.") : t("The record does not verify."));
    } catch (err) {
      showError(err);
    } finally {
      button.disabled = false;
    }
  });
}

main();
