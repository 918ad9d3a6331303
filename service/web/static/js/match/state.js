// Where the match stands, in words: status, ply, whose turn, the players, the outcome, what happened.

import { listWords, matchEventText } from "../clockwords.js";
import { el as h } from "../ui.js";
import { byId } from "./dom.js";
import { t, tn } from "../words.js";

const STATUS_WORDS = {
  waiting: t("waiting for players"),
  active: t("being played"),
  finished: t("finished"),
  aborted: t("aborted"),
};

/** A seat's name for people: the player's name, or "seat N" while nobody holds it. Seats are
 * counted from 0 as the server counts them, so the page agrees with the picture and the server's
 * own sentences ("seat 1 need not act now"). */
export function seatName(view, seat) {
  const info = (view.seats || []).find((s) => s.seat === seat);
  const name = info && info.name ? info.name : "";
  return name ? t("{name} (seat {seat})", { name, seat }) : t("seat {seat}", { seat });
}

const words = listWords;

/** Status, ply and whose turn; ``mine`` are the seats this browser's key holds. */
export function showStanding(view, mine) {
  const status = byId("match-status");
  status.dataset.status = view.status;
  status.textContent = t("This match is {status}", { status: STATUS_WORDS[view.status] || view.status });
  const ply = byId("ply");
  ply.dataset.ply = String(view.ply);
  ply.textContent = String(view.ply);

  const turn = byId("turn");
  const active = view.active_seats || [];
  const myTurn = view.status === "active" && active.some((s) => mine.includes(s));
  turn.dataset.myTurn = String(myTurn);
  let text;
  if (view.status === "waiting") {
    const open = view.open_seats || [];
    text = tn("Waiting for {n} more player to take a seat.", "Waiting for {n} more players to take a seat.", open.length);
  } else if (view.status !== "active") {
    text = view.status === "finished" ? t("The game is over.") : t("The match was aborted.");
  } else if (myTurn) {
    const others = active.filter((s) => !mine.includes(s));
    const me = active.filter((s) => mine.includes(s)).map((s) => seatName(view, s));
    text = t("Your turn, {names}.", { names: words(me) })
      + (others.length ? " " + t("Also to act: {names}.", { names: words(others.map((s) => seatName(view, s))) }) : "");
  } else {
    text = t("Waiting for {names} to move.", { names: words(active.map((s) => seatName(view, s))) });
  }
  if (turn.textContent !== text) turn.textContent = text; // an unchanged text is not re-announced
  return myTurn;
}

/** The seats: names, bot or person, claimed or open, and which are this browser's. */
export function showSeats(view, mine) {
  const list = byId("seat-list");
  list.replaceChildren(...(view.seats || []).map((s) => {
    const who = s.kind === "bot" ? t("{name} (a bot)", { name: s.name || t("bot") })
      : (s.claimed ? s.name || t("a player") : t("open: nobody has taken it yet"));
    const tags = [];
    if (mine.includes(s.seat)) tags.push(t("you"));
    if ((view.active_seats || []).includes(s.seat) && view.status === "active") tags.push(t("to act"));
    const controller = view.standing && (view.standing.controllers || [])[s.seat];
    if (controller === "forfeited") tags.push(t("left the match"));
    else if (controller === "stand-in") tags.push(t("a stand-in plays"));
    return h("li", { class: mine.includes(s.seat) ? "seat me" : "seat", "data-seat": s.seat, "data-claimed": String(s.claimed) },
      t("Seat {seat}: {who}", { seat: s.seat, who }), tags.length ? ` — ${tags.join(", ")}` : "");
  }));
}

/** The creator's invitation links ([{seat, url}], kept by the create page) while seats are open. */
export function showInvites(view, invites) {
  const box = byId("invites");
  const open = view.status === "waiting" ? (view.open_seats || []) : [];
  const rows = invites.filter((i) => open.includes(i.seat)).map((i) =>
    h("li", {}, t("Seat {seat}: ", { seat: i.seat }), h("a", { class: "invite-link", "data-seat": i.seat, href: i.url }, i.url)));
  byId("invite-list").replaceChildren(...rows);
  box.hidden = rows.length === 0;
}

/** The result once the game is over: rank, name and score per seat, best first. */
export function showOutcome(view) {
  const box = byId("outcome");
  const outcome = view.outcome;
  if (view.status !== "finished" || !outcome) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  const seats = (outcome.ranks || []).map((rank, seat) => ({ rank, seat, score: (outcome.scores || [])[seat] }));
  seats.sort((a, b) => a.rank - b.rank || a.seat - b.seat);
  const winners = seats.filter((s) => s.rank === 1).map((s) => seatName(view, s.seat));
  box.replaceChildren(
    h("h2", {}, t("Result")),
    h("p", {}, winners.length > 1 ? t("{names} share the win.", { names: words(winners) })
      : winners.length ? t("{name} wins.", { name: winners[0] }) : t("The game is over.")),
    h("ol", {}, seats.map((s) => h("li", { "data-seat": s.seat, "data-rank": s.rank },
      tn("{name}: rank {rank}, {n} point", "{name}: rank {rank}, {n} points", s.score, { name: seatName(view, s.seat), rank: s.rank })))),
  );
  box.hidden = false;
}

const HAPPENED_KEEP = 20;
// keys of the items that took back earlier lines, so that the log read and the stream do not
// take them back twice
const folded = new Set();

/**
 * The recent events, newest last. ``items`` are {key, text}; a key seen before is not added
 * twice (the log read and the stream can both bring the same move).
 */
export function addHappened(items) {
  const list = byId("happened");
  const seen = new Set([...list.children].map((li) => li.dataset.key));
  for (const item of items) {
    if (seen.has(item.key) || folded.has(item.key)) continue;
    // a step taken back did not happen: its lines go, and an undo leaves no line of its own
    if (item.takesBack) {
      folded.add(item.key);
      for (let k = 0; k < item.takesBack && list.lastElementChild; k++) list.lastElementChild.remove();
    }
    if (!item.text || item.undone) continue;
    seen.add(item.key);
    list.append(h("li", { "data-key": item.key }, item.text));
  }
  while (list.children.length > HAPPENED_KEEP) list.firstElementChild.remove();
}

/** The happened-items of one move (a log entry or a stream event): its events' texts. */
export function movesHappened(view, ply, seat, events) {
  // a match's own events (resigned, timed-out, abort-voted, ...) carry no text: they are said here
  const items = (events || []).map((e, i) => ({
    key: `${ply}.${i}`, text: matchEventText(e, (s) => seatName(view, s)) || e.text,
    takesBack: Number.isInteger(e.takes_back) ? e.takes_back : 0, undone: e.type === "undone",
  })).filter((item) => item.text || item.takesBack);
  if (!items.length) items.push({ key: `${ply}.0`, text: t("{name} moved.", { name: seatName(view, seat) }) });
  return items;
}
