// The match clock in words: time controls, timeout policies, durations, local times and the
// match-level events (timed-out, resigned, ...) as sentences. Pure functions, no DOM: the new
// match page, the match page and the log page all say these things the same way.

/** The timeout policies offered at creation: the body's value, a label, and what it does. */
export const POLICIES = [
  { id: "stand-in", value: "stand-in", label: "A stand-in plays (the default)",
    about: "A bot plays the late player's turns until they come back; they can take their seat back at any time." },
  { id: "skip", value: "skip", label: "Skip the turn",
    about: "The late player's turn is passed (a bot moves when passing is not allowed); their next turn is theirs again." },
  { id: "forfeit-bot", value: { policy: "forfeit", after_forfeit: "bot" }, label: "Forfeit, then a bot plays on",
    about: "The late player loses (ranked last) and a bot plays their seat to the end." },
  { id: "forfeit-end", value: { policy: "forfeit", after_forfeit: "end" }, label: "Forfeit, then the match may end",
    about: "The late player loses (ranked last); the match ends when fewer than 2 players remain." },
  { id: "abort", value: "abort", label: "Abort the match",
    about: "The match is called off, with no result for anyone (a resignation calls it off too)." },
];

/** The time controls offered at creation, with what each means. */
export const TIME_CONTROLS = [
  { kind: "none", label: "No time limit", about: "The match waits for each move as long as it takes." },
  { kind: "per-move", label: "Days per move", about: "Every move has the same number of days." },
  { kind: "bank", label: "A time bank",
    about: "Each player has a bank of days for all their moves; some days are added after each move, up to a cap." },
];

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** "3 days", "1.5 days": a number of days in words. */
export function days(n) {
  return plural(Number(n), "day");
}

/** A number of seconds in words, the two largest units: "2 days 5 hours", "3 minutes 4 seconds". */
export function duration(seconds) {
  let s = Math.max(0, Math.floor(Number(seconds) || 0));
  const units = [[86400, "day"], [3600, "hour"], [60, "minute"], [1, "second"]];
  const amounts = units.map(([size, word]) => {
    const n = Math.floor(s / size);
    s -= n * size;
    return [n, word];
  });
  const first = amounts.findIndex(([n]) => n > 0);
  if (first < 0) return "0 seconds";
  return amounts.slice(first, first + 2).filter(([n]) => n > 0).map(([n, word]) => plural(n, word)).join(" ");
}

/** A moment (ISO 8601) in the viewer's own time zone, e.g. "Fri, 4 Dec 2026, 22:50". */
export function localTime(iso) {
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return String(iso || "");
  return when.toLocaleString(undefined, {
    weekday: "short", day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit",
  });
}

/** A time control (the server's normal form) in one sentence. */
export function timeControlText(tc) {
  if (!tc || tc.kind === "none") return "No time limit.";
  const weekends = tc.weekends === false ? " Saturdays and Sundays (UTC) do not count." : "";
  if (tc.kind === "per-move") return `${days(tc.days)} per move.${weekends}`;
  if (tc.kind === "bank") {
    return `A bank of ${days(tc.initial_days)}, ${days(tc.increment_days)} added after each move, ` +
      `at most ${days(tc.cap_days)}.${weekends}`;
  }
  return `Time control: ${tc.kind}.`;
}

/** A timeout policy (normal form, or the bare policy name) in one sentence. */
export function policyText(policy) {
  const p = typeof policy === "string" ? { policy } : (policy || { policy: "stand-in" });
  const grace = p.grace_hours === undefined ? "" : p.grace_hours === 0 ? "At the deadline, "
    : `${plural(p.grace_hours, "hour")} after the deadline, `;
  const what = {
    "stand-in": "a stand-in bot plays a late player's turns until they are back.",
    skip: "a late player's turn is skipped.",
    forfeit: p.after_forfeit === "end" ? "a late player forfeits; the match ends when fewer than 2 players remain."
      : "a late player forfeits and a bot plays their seat on.",
    abort: "the match is aborted if a player is late.",
  }[p.policy] || `the policy "${p.policy}" acts.`;
  const sentence = grace ? grace + what : what.charAt(0).toUpperCase() + what.slice(1);
  return sentence;
}

/** Join names as words: "A", "A and B", "A, B and C". */
export function listWords(names) {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

function reasonText(reason) {
  const r = String(reason || "").trim();
  return r ? `: ${r}` : "";
}

/**
 * A match-level event as a sentence with the players' names (its own `text` says "Seat 1"), or ""
 * for any other event.
 * `nameOf(seat)` gives a seat's name for people ("Ana (seat 0)").
 */
export function matchEventText(event, nameOf) {
  const who = () => nameOf(event.seat);
  switch (event && event.type) {
    case "timed-out":
      return event.policy === "skip" ? `${who()} ran out of time: the server passed for them this turn.`
        : `${who()} ran out of time: a stand-in bot plays for them until they are back.`;
    case "forfeited":
      return `${who()} ran out of time and forfeits (ranked last).`;
    case "returned":
      return `${who()} is back and plays their own seat again.`;
    case "resigned":
      return `${who()} resigned (ranked last).`;
    case "abort-voted": {
      const waiting = (event.waiting_for || []).map(nameOf);
      return `${who()} voted to abort the match.` + (waiting.length ? ` Still to vote: ${listWords(waiting)}.` : "");
    }
    case "match-aborted":
      return `The match was aborted${reasonText(event.reason)}.`;
    case "match-ended":
      return `The match ended${reasonText(event.reason)}.`;
    default:
      return "";
  }
}

/** Who made a log entry, for its `by`: "" for the player, else e.g. "by the match clock". */
export function byWords(by) {
  if (!by || by === "human") return "";
  if (by === "email") return "by mail";
  if (by === "clock") return "by the match clock";
  if (by === "skip") return "passed by the server";
  if (by.startsWith("stand-in:")) return `by a stand-in bot (${by.slice("stand-in:".length)})`;
  return by;
}
