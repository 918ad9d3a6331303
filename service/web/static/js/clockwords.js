// The match clock in words: time controls, timeout policies, durations, local times and the
// match-level events (timed-out, resigned, ...) as sentences. Pure functions, no DOM: the new
// match page, the match page and the log page all say these things the same way, in the page's
// language (words.js): amounts of time through Intl's units, moments through Intl.DateTimeFormat.

import { language, t } from "./words.js";

/** The timeout policies offered at creation: the body's value, a label, and what it does. */
export const POLICIES = [
  { id: "stand-in", value: "stand-in", label: t("A stand-in plays (the default)"),
    about: t("A bot plays the late player's turns until they come back; they can take their seat back at any time.") },
  { id: "skip", value: "skip", label: t("Skip the turn"),
    about: t("The late player's turn is passed (a bot moves when passing is not allowed); their next turn is theirs again.") },
  { id: "forfeit-bot", value: { policy: "forfeit", after_forfeit: "bot" }, label: t("Forfeit, then a bot plays on"),
    about: t("The late player loses (ranked last) and a bot plays their seat to the end.") },
  { id: "forfeit-end", value: { policy: "forfeit", after_forfeit: "end" }, label: t("Forfeit, then the match may end"),
    about: t("The late player loses (ranked last); the match ends when fewer than 2 players remain.") },
  { id: "abort", value: "abort", label: t("Abort the match"),
    about: t("The match is called off, with no result for anyone (a resignation calls it off too).") },
];

/** The time controls offered at creation, with what each means. */
export const TIME_CONTROLS = [
  { kind: "none", label: t("No time limit"), about: t("The match waits for each move as long as it takes.") },
  { kind: "per-move", label: t("Days per move"), about: t("Every move has the same number of days.") },
  { kind: "bank", label: t("A time bank"),
    about: t("Each player has a bank of days for all their moves; some days are added after each move, up to a cap.") },
];

const units = new Map();

/** An amount of a unit in the page's language: amount(3, "day") is "3 days", in Hungarian "3 nap". */
function amount(n, unit) {
  if (!units.has(unit)) {
    // no grouping: "1000 days" as before, never "1,000" in one language and "1 000" in another
    units.set(unit, new Intl.NumberFormat(language, { style: "unit", unit, unitDisplay: "long", useGrouping: false }));
  }
  return units.get(unit).format(n);
}

/** "3 days", "1.5 days": a number of days in words. */
export function days(n) {
  return amount(Number(n), "day");
}

/** A number of seconds in words, the two largest units: "2 days 5 hours", "3 minutes 4 seconds". */
export function duration(seconds) {
  let s = Math.max(0, Math.floor(Number(seconds) || 0));
  const sizes = [[86400, "day"], [3600, "hour"], [60, "minute"], [1, "second"]];
  const amounts = sizes.map(([size, unit]) => {
    const n = Math.floor(s / size);
    s -= n * size;
    return [n, unit];
  });
  const first = amounts.findIndex(([n]) => n > 0);
  if (first < 0) return amount(0, "second");
  return amounts.slice(first, first + 2).filter(([n]) => n > 0).map(([n, unit]) => amount(n, unit)).join(" ");
}

// English pages keep the browser's own English (en-GB writes "4 Dec", en-US "Dec 4"); another
// language writes its own way.
const dateLocale = language === "en" && /^en\b/i.test(navigator.language || "") ? navigator.language : language;
const dates = new Intl.DateTimeFormat(dateLocale, {
  weekday: "short", day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit",
});

/** A moment (ISO 8601) in the viewer's own time zone and the page's language, e.g. "Fri, 4 Dec 2026, 22:50". */
export function localTime(iso) {
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return String(iso || "");
  return dates.format(when);
}

/** A time control (the server's normal form) in one sentence. */
export function timeControlText(tc) {
  if (!tc || tc.kind === "none") return t("No time limit.");
  const weekends = tc.weekends === false ? " " + t("Saturdays and Sundays (UTC) do not count.") : "";
  if (tc.kind === "per-move") return t("{days} per move.", { days: days(tc.days) }) + weekends;
  if (tc.kind === "bank") {
    return t("A bank of {initial}, {increment} added after each move, at most {cap}.",
      { initial: days(tc.initial_days), increment: days(tc.increment_days), cap: days(tc.cap_days) }) + weekends;
  }
  return t("Time control: {kind}.", { kind: tc.kind });
}

/** A timeout policy (normal form, or the bare policy name) in one sentence. */
export function policyText(policy) {
  const p = typeof policy === "string" ? { policy } : (policy || { policy: "stand-in" });
  const forfeitEnd = p.policy === "forfeit" && p.after_forfeit === "end";
  if (p.grace_hours === undefined) {
    if (p.policy === "stand-in") return t("A stand-in bot plays a late player's turns until they are back.");
    if (p.policy === "skip") return t("A late player's turn is skipped.");
    if (forfeitEnd) return t("A late player forfeits; the match ends when fewer than 2 players remain.");
    if (p.policy === "forfeit") return t("A late player forfeits and a bot plays their seat on.");
    if (p.policy === "abort") return t("The match is aborted if a player is late.");
    return t("The policy \"{policy}\" acts.", { policy: p.policy });
  }
  const when = p.grace_hours === 0 ? t("At the deadline")
    : t("{hours} after the deadline", { hours: amount(Number(p.grace_hours), "hour") });
  if (p.policy === "stand-in") return t("{when}, a stand-in bot plays a late player's turns until they are back.", { when });
  if (p.policy === "skip") return t("{when}, a late player's turn is skipped.", { when });
  if (forfeitEnd) return t("{when}, a late player forfeits; the match ends when fewer than 2 players remain.", { when });
  if (p.policy === "forfeit") return t("{when}, a late player forfeits and a bot plays their seat on.", { when });
  if (p.policy === "abort") return t("{when}, the match is aborted if a player is late.", { when });
  return t("{when}, the policy \"{policy}\" acts.", { when, policy: p.policy });
}

/** Join names as words: "A", "A and B", "A, B and C". */
export function listWords(names) {
  if (names.length <= 1) return names.join("");
  return t("{first} and {last}", { first: names.slice(0, -1).join(", "), last: names[names.length - 1] });
}

/**
 * A match-level event as a sentence with the players' names (its own `text` says "Seat 1"), or ""
 * for any other event.
 * `nameOf(seat)` gives a seat's name for people ("Ana (seat 0)").
 */
export function matchEventText(event, nameOf) {
  const who = () => nameOf(event.seat);
  // the reason is the server's words (a sentence of its own); the sentence around it is ours
  const reason = String((event && event.reason) || "").trim();
  switch (event && event.type) {
    case "timed-out":
      return event.policy === "skip" ? t("{who} ran out of time: the server passed for them this turn.", { who: who() })
        : t("{who} ran out of time: a stand-in bot plays for them until they are back.", { who: who() });
    case "forfeited":
      return t("{who} ran out of time and forfeits (ranked last).", { who: who() });
    case "returned":
      return t("{who} is back and plays their own seat again.", { who: who() });
    case "resigned":
      return t("{who} resigned (ranked last).", { who: who() });
    case "abort-voted": {
      const waiting = (event.waiting_for || []).map(nameOf);
      return t("{who} voted to abort the match.", { who: who() })
        + (waiting.length ? " " + t("Still to vote: {names}.", { names: listWords(waiting) }) : "");
    }
    case "match-aborted":
      return reason ? t("The match was aborted: {reason}.", { reason }) : t("The match was aborted.");
    case "match-ended":
      return reason ? t("The match ended: {reason}.", { reason }) : t("The match ended.");
    default:
      return "";
  }
}

/** Who made a log entry, for its `by`: "" for the player, else e.g. "by the match clock". */
export function byWords(by) {
  if (!by || by === "human") return "";
  if (by === "email") return t("by mail");
  if (by === "clock") return t("by the match clock");
  if (by === "skip") return t("passed by the server");
  if (by.startsWith("stand-in:")) return t("by a stand-in bot ({bot})", { bot: by.slice("stand-in:".length) });
  return by;
}
