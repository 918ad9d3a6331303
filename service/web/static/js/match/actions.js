// The legal actions as buttons, the queued steps, and the spot chooser.

import { el as h } from "../ui.js";
import { byId } from "./dom.js";
import { language, t } from "../words.js";

// Why a threshold: a handful of buttons reads best as one list; past it, headings per action type
// ("build warehouse", "sail", ...) let a player (and a screen reader's heading list) skip around.
const GROUP_FROM = 8;

/** "build-warehouse" → "Build warehouse". */
function typeWords(type) {
  const text = String(type || "other").replace(/[-_]+/g, " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * A group's heading. The action type is a machine word in English; in another language the
 * heading is the words the group's labels (the server's, in the page's language) begin with:
 * "Hajózás ide: Nápoly", "Hajózás ide: Tunisz" → "Hajózás ide".
 */
function groupWords(type, items) {
  if (language === "en") return typeWords(type);
  const split = items.map((item) => String(item.text || "").split(/\s+/).filter(Boolean));
  const common = [];
  for (let i = 0; split.length && i < split[0].length; i++) {
    if (!split.every((words) => words[i] === split[0][i])) break;
    common.push(split[0][i]);
  }
  if (split.length > 1 && common.length === split[0].length) common.pop(); // never one whole label
  const text = (common.length ? common.join(" ") : (split[0] || [""])[0]).replace(/[:,;]+$/, "");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** One ``button.action`` per legal action, grouped by type when there are many; onPick(index). */
export function showActions(legal, onPick) {
  const box = byId("actions");
  const button = (item, index) => {
    const b = h("button", { type: "button", class: "action", "data-index": index, "data-type": item.action && item.action.type }, item.text);
    b.addEventListener("click", () => onPick(index));
    return b;
  };
  if (!legal.length) {
    box.replaceChildren();
    return;
  }
  if (legal.length < GROUP_FROM) {
    box.replaceChildren(...legal.map(button));
    return;
  }
  const groups = new Map();
  legal.forEach((item, index) => {
    const type = (item.action && item.action.type) || "other";
    if (!groups.has(type)) groups.set(type, []);
    groups.get(type).push([item, button(item, index)]);
  });
  box.replaceChildren(...[...groups].map(([type, pairs]) => {
    const heading = groupWords(type, pairs.map(([item]) => item));
    return h("div", { class: "action-group", role: "group", "aria-label": heading },
      h("h3", {}, `${heading} (${pairs.length})`), pairs.map(([, b]) => b));
  }));
}

/** The queued steps, in order, and the buttons that act on them. */
export function showQueue(queue, { canSend }) {
  byId("queue").replaceChildren(...queue.map((step, i) => h("li", { "data-index": i }, step.text)));
  byId("send").disabled = !canSend || queue.length === 0;
  byId("undo-step").disabled = queue.length === 0;
  byId("clear-queue").disabled = queue.length === 0;
}

/**
 * A spot stands for several actions: list them under the board (``button.choice[data-index]``)
 * and focus the first; Escape or Cancel closes it and gives focus back to the spot.
 */
export function openChooser(spot, indices, legal, onPick) {
  const box = byId("spot-chooser");
  const close = () => {
    box.hidden = true;
    byId("spot-choices").replaceChildren();
    if (spot.isConnected) spot.focus();
  };
  const label = spot.getAttribute("aria-label") || t("this place");
  byId("spot-chooser-heading").textContent = t("Choose for {place}", { place: label });
  byId("spot-choices").replaceChildren(...indices.filter((i) => legal[i]).map((i) => {
    const b = h("button", { type: "button", class: "choice", "data-index": i }, legal[i].text);
    b.addEventListener("click", () => { box.hidden = true; onPick(i); });
    return b;
  }));
  byId("spot-cancel").onclick = close;
  box.onkeydown = (ev) => { if (ev.key === "Escape") { ev.preventDefault(); close(); } };
  box.hidden = false;
  const first = box.querySelector("button.choice");
  if (first) first.focus();
}

/** Close the chooser (the board it belonged to is gone). */
export function closeChooser() {
  byId("spot-chooser").hidden = true;
  byId("spot-choices").replaceChildren();
}
