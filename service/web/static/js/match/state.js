// Where the match stands, in words: status, ply, whose turn, the players, the outcome, what happened.

import { matchEventText } from "../clockwords.js";
import { el as h } from "../ui.js";
import { byId } from "./dom.js";

const STATUS_WORDS = {
  waiting: "waiting for players",
  active: "being played",
  finished: "finished",
  aborted: "aborted",
};

/** A seat's name for people: the player's name, or "seat N" while nobody holds it. Seats are
 * counted from 0 as the server counts them, so the page agrees with the picture and the server's
 * own sentences ("seat 1 need not act now"). */
export function seatName(view, seat) {
  const info = (view.seats || []).find((s) => s.seat === seat);
  const name = info && info.name ? info.name : "";
  return name ? `${name} (seat ${seat})` : `seat ${seat}`;
}

/** Join names as words: "A", "A and B", "A, B and C". */
function words(names) {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/** Status, ply and whose turn; ``mine`` are the seats this browser's key holds. */
export function showStanding(view, mine) {
  const status = byId("match-status");
  status.dataset.status = view.status;
  status.textContent = `This match is ${STATUS_WORDS[view.status] || view.status}`;
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
    text = `Waiting for ${open.length} more player${open.length === 1 ? "" : "s"} to take a seat.`;
  } else if (view.status !== "active") {
    text = view.status === "finished" ? "The game is over." : "The match was aborted.";
  } else if (myTurn) {
    const others = active.filter((s) => !mine.includes(s));
    const me = active.filter((s) => mine.includes(s)).map((s) => seatName(view, s));
    text = `Your turn, ${words(me)}.` + (others.length ? ` Also to act: ${words(others.map((s) => seatName(view, s)))}.` : "");
  } else {
    text = `Waiting for ${words(active.map((s) => seatName(view, s)))} to move.`;
  }
  if (turn.textContent !== text) turn.textContent = text; // an unchanged text is not re-announced
  return myTurn;
}

/** The seats: names, bot or person, claimed or open, and which are this browser's. */
export function showSeats(view, mine) {
  const list = byId("seat-list");
  list.replaceChildren(...(view.seats || []).map((s) => {
    const who = s.kind === "bot" ? `${s.name || "bot"} (a bot)` : (s.claimed ? s.name || "a player" : "open: nobody has taken it yet");
    const tags = [];
    if (mine.includes(s.seat)) tags.push("you");
    if ((view.active_seats || []).includes(s.seat) && view.status === "active") tags.push("to act");
    const controller = view.standing && (view.standing.controllers || [])[s.seat];
    if (controller === "forfeited") tags.push("left the match");
    else if (controller === "stand-in") tags.push("a stand-in plays");
    return h("li", { class: mine.includes(s.seat) ? "seat me" : "seat", "data-seat": s.seat, "data-claimed": String(s.claimed) },
      `Seat ${s.seat}: ${who}`, tags.length ? ` — ${tags.join(", ")}` : "");
  }));
}

/** The creator's invitation links ([{seat, url}], kept by the create page) while seats are open. */
export function showInvites(view, invites) {
  const box = byId("invites");
  const open = view.status === "waiting" ? (view.open_seats || []) : [];
  const rows = invites.filter((i) => open.includes(i.seat)).map((i) =>
    h("li", {}, `Seat ${i.seat}: `, h("a", { class: "invite-link", "data-seat": i.seat, href: i.url }, i.url)));
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
    h("h2", {}, "Result"),
    h("p", {}, winners.length ? `${words(winners)} ${winners.length > 1 ? "share the win" : "wins"}.` : "The game is over."),
    h("ol", {}, seats.map((s) => h("li", { "data-seat": s.seat, "data-rank": s.rank },
      `${seatName(view, s.seat)}: rank ${s.rank}, ${s.score} point${s.score === 1 ? "" : "s"}`))),
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
  if (!items.length) items.push({ key: `${ply}.0`, text: `${seatName(view, seat)} moved.` });
  return items;
}
