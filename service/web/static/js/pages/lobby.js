// The lobby (/): matches this browser's key plays in (remembered here, plus GET /v1/me/turns
// signed, which knows where it must move), and the server's waiting and active matches.

import { api, rememberedMatches } from "../api.js";
import { keyShown } from "../header.js";
import { el, replaceChildren, showError, showStatus } from "../ui.js";
import { t, tn } from "../words.js";

let titles = {}; // game id -> title, from GET /v1/games

const STATUS_WORDS = { waiting: t("waiting for players"), active: t("being played"), finished: t("finished"), aborted: t("aborted") };

function matchLink(id, text) {
  return el("a", { href: `/match/${encodeURIComponent(id)}`, class: "match-link", dataset: { match: id } }, text);
}

function describe(summary) {
  const parts = [titles[summary.game] || summary.game, STATUS_WORDS[summary.status] || summary.status,
    tn("{n} player", "{n} players", summary.players)];
  if (summary.status === "waiting" && summary.open_seats) parts.push(tn("{n} seat open", "{n} seats open", summary.open_seats.length));
  if (summary.status !== "waiting") parts.push(t("ply {ply}", { ply: summary.ply }));
  return parts.join(" · ");
}

async function openMatches() {
  const [waiting, active] = await Promise.all([
    api("GET", "/v1/matches", { query: "status=waiting&limit=50" }),
    api("GET", "/v1/matches", { query: "status=active&limit=50" }),
  ]);
  const all = [...waiting.matches, ...active.matches];
  const list = document.getElementById("open-matches");
  replaceChildren(list, all.map((m) => el("li", { dataset: { status: m.status } }, matchLink(m.id, m.id), " ", el("span", { class: "meta" }, describe(m)))));
  document.getElementById("open-empty").hidden = all.length > 0;
}

async function myMatches() {
  const key = await keyShown;
  const remembered = rememberedMatches().filter((m) => !key || !m.publicKey || m.publicKey === key.publicKey);
  let turns = [];
  if (key) {
    try {
      turns = (await api("GET", "/v1/me/turns", { signed: true })).turns;
    } catch (err) {
      showError(err);
    }
  }
  // one line per match: remembered seats first (newest first), then turns the server knows of
  const byMatch = new Map();
  for (const m of remembered) {
    if (!byMatch.has(m.match)) byMatch.set(m.match, { match: m.match, game: m.game, seats: new Set(), toMove: new Set() });
    byMatch.get(m.match).seats.add(m.seat);
  }
  for (const turn of turns) {
    if (!byMatch.has(turn.match)) byMatch.set(turn.match, { match: turn.match, game: turn.game, seats: new Set(), toMove: new Set() });
    const line = byMatch.get(turn.match);
    line.seats.add(turn.seat);
    line.toMove.add(turn.seat);
    line.game = line.game || turn.game;
  }
  const lines = Array.from(byMatch.values()).slice(0, 30);
  // the current status of each (public facts); a match that is gone just shows without it
  const metas = await Promise.all(lines.map((l) => api("GET", `/v1/matches/${encodeURIComponent(l.match)}`).catch(() => null)));
  const list = document.getElementById("my-matches");
  replaceChildren(list, lines.map((line, i) => {
    const meta = metas[i];
    const seats = Array.from(line.seats).sort((a, b) => a - b);
    const game = line.game || (meta && meta.game) || "";
    const words = [titles[game] || game, tn("seat {seats}", "seats {seats}", seats.length, { seats: seats.join(", ") })];
    if (meta) words.push(STATUS_WORDS[meta.status] || meta.status);
    const mine = line.toMove.size > 0;
    return el("li", { class: mine ? "my-turn" : "", dataset: { status: meta ? meta.status : "" } },
      matchLink(line.match, line.match), " ",
      el("span", { class: "meta" }, words.filter(Boolean).join(" · ")),
      mine ? el("strong", { class: "badge" }, " " + t("your turn")) : null);
  }));
  document.getElementById("my-empty").hidden = lines.length > 0;
}

async function main() {
  showStatus(t("Loading matches…"));
  try {
    titles = Object.fromEntries((await api("GET", "/v1/games")).games.map((g) => [g.id, g.title]));
  } catch {
    titles = {}; // the ids are shown instead; the lists below report any real trouble
  }
  const results = await Promise.allSettled([myMatches(), openMatches()]);
  const failed = results.find((r) => r.status === "rejected");
  if (failed) showError(failed.reason);
  showStatus("");
  document.body.dataset.ready = "true";
}

main();
