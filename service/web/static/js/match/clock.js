// The match page's clock: each seat's time (a countdown the page runs itself from the view's
// `clock.now`, so it never asks the server more often than before), its deadline in the viewer's
// own time, and whether the seat is late, played by a stand-in, on vacation or gone; plus who has
// voted to abort, and the buttons of the match's own actions (resign, vote to abort, I'm back).

import { duration, listWords, localTime, policyText, timeControlText } from "../clockwords.js";
import { el as h } from "../ui.js";
import { byId } from "./dom.js";
import { t } from "../words.js";

const TICK_MS = 1000;
const HUMAN = ["player", "stand-in", "skip"];

// How each seat that left did so ("resigned" or "forfeited"), learnt from the events the page
// has seen: the standing says only that a seat left.
const departures = new Map();

/** Note the match-level events of one entry (from the log or the stream). */
export function noteEvents(events) {
  for (const e of events || []) {
    if ((e.type === "resigned" || e.type === "forfeited") && Number.isInteger(e.seat)) departures.set(e.seat, e.type);
  }
}

/** The view's clock block normalised: {now, time_control, timeout_policy, seats: [...]}, or null. */
export function clockOf(view) {
  const c = view && view.clock;
  if (!c || typeof c !== "object") return null;
  const seats = Array.isArray(c) ? c : (c.seats || c.clocks || []);
  return { now: c.now || null, time_control: c.time_control || null, timeout_policy: c.timeout_policy || null, seats };
}

/** Who plays each seat now: the view's standing, else the clock's, else the seat kinds. */
export function controllers(view) {
  const st = view && view.standing;
  if (st && Array.isArray(st.controllers)) return st.controllers;
  const clock = clockOf(view);
  const bySeat = new Map((clock ? clock.seats : []).map((s) => [s.seat, s.controller]));
  return (view.seats || []).map((s) => bySeat.get(s.seat) || (s.kind === "bot" ? "bot" : "player"));
}

/** The human seats still in the match that have not voted to abort, and those that have. */
export function abortVotes(view) {
  const votes = (view.standing && view.standing.abort_votes) || [];
  const waiting = controllers(view).map((c, seat) => [c, seat]).filter(([c, seat]) => HUMAN.includes(c) && !votes.includes(seat))
    .map(([, seat]) => seat);
  return { votes, waiting };
}

// ---- the countdown ----

let ticking = [];  // [{node, row, remaining, from, deadline, late}] rows whose time runs
let timer = null;

function serverMs(clock, receivedAt) {
  // the server's time when the view was read, carried forward by this device's own clock; why not
  // the device's time itself: the server may run a clock of its own (a test's, a wrong device's)
  const now = clock.now ? Date.parse(clock.now) : NaN;
  return (Number.isNaN(now) ? Date.now() : now) + (Date.now() - receivedAt);
}

/** A UTC weekend day (Saturday or Sunday): a clock that does not count weekends stands still. */
function weekend(ms) {
  const day = new Date(ms).getUTCDay();
  return day === 0 || day === 6;
}

function tick() {
  for (const row of ticking) {
    const elapsed = (Date.now() - row.readAt) / 1000;
    const left = row.stillOnWeekends && weekend(row.serverAt + elapsed * 1000) ? row.remaining : row.remaining - elapsed;
    if (left > 0) {
      row.node.textContent = t("{time} left", { time: duration(left) });
      row.row.dataset.remaining = String(Math.floor(left));
    } else if (row.row.dataset.late !== "true") {
      row.row.dataset.late = "true";
      row.row.dataset.state = "late";
      row.node.textContent = t("late: the deadline has passed");
    }
  }
}

function startTicking(rows) {
  ticking = rows;
  if (rows.length && timer === null) timer = setInterval(tick, TICK_MS);
  if (!rows.length && timer !== null) {
    clearInterval(timer);
    timer = null;
  }
}

// ---- one seat's line ----

function leftWords(seat) {
  return departures.get(seat) === "forfeited" ? t("ran out of time and forfeited (ranked last)")
    : departures.get(seat) === "resigned" ? t("resigned (ranked last)") : t("has left the match (ranked last)");
}

function seatLine(clock, s, controller, nameOf, mine, serverAt, receivedAt, rows) {
  const timed = Boolean(clock && clock.time_control && clock.time_control.kind !== "none");
  const row = h("li", { class: mine.includes(s.seat) ? "seat-clock me" : "seat-clock", "data-seat": s.seat,
    "data-controller": controller, "data-late": String(Boolean(s.late)), "data-running": String(Boolean(s.running)) });
  const says = []; // what is true of the seat, each a list of nodes; joined by "; "
  let state = "waiting";
  const has = (v) => v !== null && v !== undefined;
  if (controller === "forfeited") {
    state = departures.get(s.seat) || "left";
    says.push([leftWords(s.seat)]);
  } else if (controller === "bot") {
    state = "bot";
    says.push([t("a bot")]);
  } else {
    if (controller === "stand-in") {
      state = "stand-in";
      says.push([t("stand-in playing: a bot moves for this seat until its player is back")]);
    } else if (controller === "skip") {
      state = "stand-in";
      says.push([t("late: the server passes for this seat this turn")]);
    }
    if (s.on_vacation) {
      state = "vacation";
      says.push([t("on vacation: the clock is stopped")]);
    }
    if (timed && s.running && s.late) {
      if (state === "waiting") state = "late";
      says.push([h("span", { class: "clock-left" }, t("late since {when}", { when: localTime(s.deadline) })),
        h("span", { class: "clock-when" }, s.acts_at ? " " + t("(the timeout rule acts at {when})", { when: localTime(s.acts_at) }) : "")]);
    } else if (timed && s.running && has(s.remaining_s)) {
      if (state === "waiting") state = "running";
      const left = h("span", { class: "clock-left" }, t("{time} left", { time: duration(s.remaining_s) }));
      says.push([left, h("span", { class: "clock-when" }, s.deadline ? t(", deadline {when} (your time)", { when: localTime(s.deadline) }) : "")]);
      row.dataset.remaining = String(Math.floor(s.remaining_s));
      if (!s.on_vacation) {
        rows.push({ node: left, row, remaining: Number(s.remaining_s), readAt: receivedAt, serverAt,
          stillOnWeekends: clock.time_control.weekends === false });
      }
    } else if (timed && clock.time_control.kind === "bank" && has(s.remaining_s)) {
      says.push([h("span", { class: "clock-left" }, t("{time} in the bank", { time: duration(s.remaining_s) }))]);
    } else if (timed && !says.length) {
      says.push([t("not to move now")]);
    }
  }
  row.dataset.state = state;
  row.append(`${nameOf(s.seat)}: `, ...says.flatMap((nodes, i) => (i ? ["; ", ...nodes] : nodes)));
  if (!says.length) row.append(t("playing"));
  return row;
}

const DAY_MS = 86400000;

/**
 * Milliseconds the clock runs between `from` and `to`: all of them, less UTC weekends when they do
 * not count, less the player's vacations (service/proof/time_control.py's `counted`, in short).
 */
function countedMs(from, to, weekends, vacations) {
  if (!(to > from)) return 0;
  const stops = vacations.map((v) => [Date.parse(v[0]), Date.parse(v[1])]);
  if (!weekends) {
    let day = Math.floor(from / DAY_MS) * DAY_MS;
    day -= ((new Date(day).getUTCDay() + 1) % 7) * DAY_MS; // the Saturday on or before
    for (; day < to; day += 7 * DAY_MS) stops.push([day, day + 2 * DAY_MS]);
  }
  const spans = stops.map(([a, b]) => [Math.max(a, from), Math.min(b, to)]).filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  let stopped = 0;
  let reach = from;
  for (const [a, b] of spans) {
    const start = Math.max(a, reach);
    if (b > start) stopped += b - start;
    reach = Math.max(reach, b);
  }
  return to - from - stopped;
}

/**
 * What a seat's clock says at `nowMs` (the server's time): the view's clock holds no reading time
 * (views are cached by their ETag), so the time left, lateness and vacation are worked out here
 * from the deadline, the bank and the player's declared vacations.
 */
function derive(s, nowMs, clock) {
  const at = (t) => Date.parse(t);
  const weekends = !(clock && clock.time_control && clock.time_control.weekends === false);
  if (s.late === undefined) s.late = Boolean(s.running && s.deadline && nowMs >= at(s.deadline));
  if (s.remaining_s === undefined) {
    if (s.running && s.deadline) s.remaining_s = countedMs(nowMs, at(s.deadline), weekends, s.vacations || []) / 1000;
    else if (clock && clock.time_control && clock.time_control.kind === "bank" && Number.isFinite(s.bank_s)) s.remaining_s = s.bank_s;
    else s.remaining_s = null;
  }
  if (s.on_vacation === undefined) {
    s.on_vacation = (s.vacations || []).some((v) => at(v[0]) <= nowMs && nowMs < at(v[1]));
  }
}

/**
 * Draw #clock-box and #abort-votes from the view; `receivedAt` is when it was read
 * (Date.now()), for the countdown. ``nameOf(seat)`` gives a seat's name for people.
 */
export function showClock(view, mine, nameOf, receivedAt) {
  const clock = clockOf(view);
  const ctl = controllers(view);
  const box = byId("clock-box");
  const started = view.status !== "waiting";
  const rows = [];
  const someoneLeftOrStandsIn = ctl.some((c) => c !== "player" && c !== "bot");
  const timed = Boolean(clock && clock.time_control && clock.time_control.kind !== "none");
  // an untimed match shows the box only once someone has left or a stand-in plays
  if (!started || (!timed && !someoneLeftOrStandsIn)) {
    box.hidden = true;
    startTicking([]);
  } else {
    const serverAt = clock ? serverMs(clock, receivedAt) : Date.now();
    const bySeat = new Map((clock ? clock.seats : []).map((s) => [s.seat, s]));
    const live = view.status === "active";
    byId("clock-rules").textContent = clock
      ? `${timeControlText(clock.time_control)}${clock.time_control && clock.time_control.kind !== "none" && clock.timeout_policy ? ` ${policyText(clock.timeout_policy)}` : ""}`
      : "";
    byId("clock-list").replaceChildren(...(view.seats || []).map((seat) => {
      const s = { seat: seat.seat, ...(bySeat.get(seat.seat) || {}) };
      if (!live) s.running = false;
      derive(s, serverAt, clock);
      return seatLine(clock, s, ctl[seat.seat] || "player", nameOf, mine, serverAt, receivedAt, live ? rows : []);
    }));
    box.hidden = false;
    startTicking(rows);
  }
  const votesBox = byId("abort-votes");
  const { votes, waiting } = abortVotes(view);
  if (view.status === "active" && votes.length) {
    votesBox.textContent = t("Voted to abort: {names}.", { names: listWords(votes.map(nameOf)) }) +
      (waiting.length ? " " + t("Still to vote: {names}.", { names: listWords(waiting.map(nameOf)) }) : "");
    votesBox.dataset.waiting = waiting.join(" ");
    votesBox.hidden = false;
  } else {
    votesBox.textContent = "";
    votesBox.dataset.waiting = "";
    votesBox.hidden = true;
  }
}

/**
 * The match actions a seat may take now. The server lists them in the seat's own view
 * (`match_actions`) and the page goes by that list when it has one; for another seat of ours
 * (one key holding several) it works them out from the standing the same way.
 */
function allowedActions(view, seat, seatView) {
  if (seatView && seatView.seat === seat && Array.isArray(seatView.match_actions)) {
    return new Set(seatView.match_actions.map((a) => a.action && a.action.type));
  }
  const ctl = controllers(view)[seat];
  if (view.status !== "active" || !HUMAN.includes(ctl)) return new Set();
  const out = new Set(["match:resign"]);
  if (!abortVotes(view).votes.includes(seat)) out.add("match:abort");
  if (ctl === "stand-in" || ctl === "skip") out.add("match:return");
  return out;
}

/**
 * Draw #leave-box: for each seat this key holds in a running match, Resign, Vote to abort (until
 * it has voted) and I'm back (only while a stand-in plays it). ``act(seat, type)`` sends the match
 * action; ``askResign(seat)`` opens the confirm dialog. ``seatView`` is the signed view of the
 * seat the page plays (or null).
 */
export function showLeave(view, mine, seatView, nameOf, { act, askResign }) {
  const box = byId("leave-box");
  const { votes } = abortVotes(view);
  const suffix = (seat) => (mine.length > 1 ? ` (${nameOf(seat)})` : "");
  const rows = [];
  for (const seat of view.status === "active" ? mine : []) {
    const allowed = allowedActions(view, seat, seatView);
    const buttons = [];
    if (allowed.has("match:return")) {
      buttons.push(h("button", { type: "button", class: "primary back", "data-seat": seat, onclick: () => act(seat, "match:return") },
        t("I'm back") + suffix(seat)));
    }
    if (allowed.has("match:resign")) {
      buttons.push(h("button", { type: "button", class: "resign", "data-seat": seat, onclick: () => askResign(seat) }, t("Resign") + suffix(seat)));
    }
    if (allowed.has("match:abort")) {
      buttons.push(h("button", { type: "button", class: "vote-abort", "data-seat": seat, onclick: () => act(seat, "match:abort") },
        t("Vote to abort") + suffix(seat)));
    } else if (votes.includes(seat)) {
      buttons.push(h("span", { class: "voted", "data-seat": seat },
        mine.length > 1 ? t("{name} voted to abort.", { name: nameOf(seat) }) : t("You voted to abort.")));
    }
    if (buttons.length) rows.push(h("div", { class: "row", "data-seat": seat }, buttons));
  }
  byId("leave-actions").replaceChildren(...rows);
  box.hidden = rows.length === 0;
}

/** What resigning does under this match's policy, for the confirm dialog. */
export function resignQuestion(view, seat, nameOf) {
  const clock = clockOf(view);
  const policy = (clock && clock.timeout_policy) || {};
  const after = policy.policy === "abort" ? t("Under this match's rules that aborts the match, with no result.")
    : policy.policy === "forfeit" && policy.after_forfeit === "end" ? t("If fewer than 2 players remain, the match ends.")
      : t("A bot plays the seat on to the end of the game.");
  return t("Resign {name}? You are ranked last, and cannot take the seat back.", { name: nameOf(seat) }) + " " + after;
}
