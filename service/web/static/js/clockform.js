// The new match page's clock part: the time control (none / days per move / a time bank, and
// whether weekends count) and the timeout policy, each choice with a line saying what it does;
// read as the `time_control` and `timeout_policy` of POST /v1/matches. The server checks the
// numbers (400 bad-time-control / bad-timeout-policy naming the `field`); showRefusal puts its
// words next to that field.

import { POLICIES, TIME_CONTROLS } from "./clockwords.js";
import { el, replaceChildren } from "./ui.js";
import { t } from "./words.js";

const $ = (id) => document.getElementById(id);

// A number field of the time control: [id, the body's field, label, default, min, max, step].
const NUMBERS = {
  "per-move": [["tc-days", "days", t("Days per move"), 3, 1, 14, 1]],
  bank: [
    ["tc-initial-days", "initial_days", t("Days in the bank at the start"), 7, 1, 60, "any"],
    ["tc-increment-days", "increment_days", t("Days added after each move"), 1, 0, 14, "any"],
    ["tc-cap-days", "cap_days", t("At most this many days in the bank"), 14, 1, 90, "any"],
  ],
};
const GRACE_DEFAULT = 24;

// Which element a refused `field` is shown next to, per problem code.
const FIELD_BOX = {
  "bad-time-control": { kind: "tc-kind", days: "tc-days", initial_days: "tc-initial-days",
    increment_days: "tc-increment-days", cap_days: "tc-cap-days", weekends: "tc-weekends", reminders: "tc-kind" },
  "bad-timeout-policy": { policy: "policy", after_forfeit: "policy", grace_hours: "grace-hours" },
};

function errorSlot(id) {
  return el("p", { class: "field-error", id: `${id}-error`, role: "alert", hidden: true });
}

function numberField([id, , label, value, min, max, step]) {
  const input = el("input", { type: "number", id, name: id, min, max, step, inputmode: "decimal",
    "aria-describedby": `${id}-error` });
  input.value = String(value);
  return el("div", { class: "field" }, el("label", { for: id }, label), input, errorSlot(id));
}

function radio(name, id, value, label, about, checked) {
  const aboutId = `${id}-about`;
  const input = el("input", { type: "radio", name, id, value, "aria-describedby": aboutId });
  input.checked = checked;
  return el("div", { class: "choice-line" }, input, el("label", { for: id }, label),
    el("p", { class: "hint", id: aboutId }, about));
}

/** Draw the two fieldsets (#time-control and #timeout-policy) with their defaults. */
export function showClockForm() {
  const kinds = TIME_CONTROLS.map((tc) => radio("tc-kind", `tc-${tc.kind}`, tc.kind, tc.label, tc.about, tc.kind === "none"));
  const weekends = el("input", { type: "checkbox", id: "tc-weekends", name: "tc-weekends", "aria-describedby": "tc-weekends-about" });
  weekends.checked = true;
  replaceChildren($("time-control"),
    el("legend", {}, t("Time limit")),
    el("div", { role: "radiogroup", "aria-label": t("Time limit"), id: "tc-kind" }, kinds),
    errorSlot("tc-kind"),
    el("div", { id: "tc-per-move-fields", class: "tc-fields" }, NUMBERS["per-move"].map(numberField)),
    el("div", { id: "tc-bank-fields", class: "tc-fields" }, NUMBERS.bank.map(numberField)),
    el("div", { id: "tc-weekends-field", class: "field check" }, weekends, el("label", { for: "tc-weekends" }, t("Weekends count")),
      el("p", { class: "hint", id: "tc-weekends-about" }, t("Unticked, Saturdays and Sundays (UTC) stop every clock.")),
      errorSlot("tc-weekends")));
  const grace = el("input", { type: "number", id: "grace-hours", name: "grace-hours", min: 0, max: 336, step: 1,
    inputmode: "numeric", "aria-describedby": "grace-hours-about grace-hours-error" });
  grace.value = String(GRACE_DEFAULT);
  replaceChildren($("timeout-policy"),
    el("legend", {}, t("When a player is late")),
    el("p", { class: "hint" }, t("A player past their deadline is late; everyone is told each day. After the grace period this happens:")),
    el("div", { role: "radiogroup", "aria-label": t("When a player is late"), id: "policy" },
      POLICIES.map((p, i) => radio("timeout-policy", `policy-${p.id}`, p.id, p.label, p.about, i === 0))),
    errorSlot("policy"),
    el("div", { class: "field" }, el("label", { for: "grace-hours" }, t("Grace period after the deadline (hours)")), grace,
      el("p", { class: "hint", id: "grace-hours-about" }, t("From 0 to 336 (two weeks).")), errorSlot("grace-hours")));
  for (const input of $("time-control").querySelectorAll("input[name=tc-kind]")) input.addEventListener("change", syncKind);
  syncKind();
}

function chosenKind() {
  const checked = $("time-control").querySelector("input[name=tc-kind]:checked");
  return checked ? checked.value : "none";
}

/** Show only the numbers of the chosen kind of time control. */
function syncKind() {
  const kind = chosenKind();
  $("tc-per-move-fields").hidden = kind !== "per-move";
  $("tc-bank-fields").hidden = kind !== "bank";
  $("tc-weekends-field").hidden = kind === "none";
  $("time-control").dataset.kind = kind;
}

function readNumber(id) {
  const text = $(id).value.trim();
  // The server says what range a field has; an empty or unreadable field is sent as it is
  // (a string) so that its refusal names the field like any other.
  if (text === "") return text;
  const value = Number(text);
  return Number.isFinite(value) ? value : text;
}

/** The time control of the form, or null for none (then the body leaves it out). */
export function readTimeControl() {
  const kind = chosenKind();
  if (kind === "none") return null;
  const tc = { kind, weekends: $("tc-weekends").checked };
  for (const [id, field] of NUMBERS[kind]) tc[field] = readNumber(id);
  return tc;
}

/** The timeout policy of the form, or null when it is the server's default (stand-in, 24 h). */
export function readTimeoutPolicy() {
  const checked = $("timeout-policy").querySelector("input[name=timeout-policy]:checked");
  const chosen = POLICIES.find((p) => checked && p.id === checked.value) || POLICIES[0];
  const policy = typeof chosen.value === "string" ? { policy: chosen.value } : { ...chosen.value };
  const grace = readNumber("grace-hours");
  if (policy.policy === "stand-in" && grace === GRACE_DEFAULT) return null;
  policy.grace_hours = grace;
  return policy;
}

/** Hide every refusal shown next to a clock field. */
export function clearRefusals() {
  for (const box of document.querySelectorAll(".field-error")) {
    box.textContent = "";
    box.hidden = true;
  }
  for (const input of document.querySelectorAll("[aria-invalid=true]")) input.removeAttribute("aria-invalid");
}

/**
 * Show a clock refusal (an ApiError with code bad-time-control or bad-timeout-policy) next to its
 * field and focus that field; answers false for any other error (the page shows it as usual).
 */
export function showRefusal(err) {
  const fields = err && FIELD_BOX[err.code];
  if (!fields) return false;
  const field = (err.problem && err.problem.field) || "";
  const id = fields[field] || (err.code === "bad-time-control" ? "tc-kind" : "policy");
  const box = $(`${id}-error`);
  if (!box) return false;
  box.textContent = err.detail || err.message;
  box.hidden = false;
  const target = $(id);
  if (target) {
    target.setAttribute("aria-invalid", "true");
    const focusable = target.matches("input") ? target : target.querySelector("input:checked, input");
    if (focusable) focusable.focus();
  }
  return true;
}
