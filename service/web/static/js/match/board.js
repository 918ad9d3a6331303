// The board picture: our own server's SVG, shown inline so its spots can be clicked.
//
// The server draws it with escaped text, so it cannot carry markup a player wrote; we still parse
// it as XML (never innerHTML) and refuse anything that could run code (belt and braces: the page's
// CSP blocks inline script anyway).

import { t } from "../words.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const FORBIDDEN = new Set(["script", "foreignobject", "iframe", "object", "embed", "handler"]);

/** Parse SVG text into a node of this document, or throw an Error saying why it was refused. */
export function importSvg(text) {
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const root = doc.documentElement;
  if (doc.getElementsByTagName("parsererror").length || root.namespaceURI !== SVG_NS || root.localName !== "svg") {
    throw new Error(t("the board picture could not be read"));
  }
  for (const node of [root, ...root.querySelectorAll("*")]) {
    if (FORBIDDEN.has(node.localName.toLowerCase())) {
      throw new Error(t("the board picture was refused: it holds a <{element}> element", { element: node.localName }));
    }
    for (const attr of node.attributes) {
      const name = attr.localName.toLowerCase();
      const value = attr.value.replace(/[\s\u0000-\u001f]/g, "").toLowerCase();
      if (name.startsWith("on") || ((name === "href" || name === "src") && /^(javascript|data):/.test(value))) {
        throw new Error(t("the board picture was refused: it holds a {attribute} attribute", { attribute: attr.name }));
      }
    }
  }
  const svg = document.importNode(root, true);
  // Why: the picture scales to the column's width (a phone's too); the viewBox keeps its shape.
  if (!svg.getAttribute("viewBox") && svg.getAttribute("width") && svg.getAttribute("height")) {
    svg.setAttribute("viewBox", `0 0 ${parseFloat(svg.getAttribute("width"))} ${parseFloat(svg.getAttribute("height"))}`);
  }
  svg.removeAttribute("width");
  svg.removeAttribute("height");
  // Two pictures on one page must not share the ids their aria-labelledby points at.
  const title = svg.querySelector("title#title");
  if (title) {
    title.id = "board-title";
    if (svg.getAttribute("aria-labelledby") === "title") svg.setAttribute("aria-labelledby", "board-title");
  }
  return svg;
}

/** The action indices a spot stands for (its ``data-actions``), in order. */
export function spotActions(spot) {
  return (spot.getAttribute("data-actions") || "").split(/\s+/).filter((s) => /^\d+$/.test(s)).map(Number);
}

/**
 * Put ``text`` into ``container`` as the board. With ``onSpot`` (called as onSpot(spot, indices)),
 * its spots are buttons (mouse, Enter, Space); without it they are plain pictures.
 */
export function showBoard(container, text, onSpot) {
  const svg = importSvg(text);
  for (const spot of svg.querySelectorAll(".spot")) {
    const indices = spotActions(spot);
    if (!onSpot || !indices.length) {
      // Nothing to do here now: not a button for the keyboard or a screen reader either.
      spot.removeAttribute("tabindex");
      spot.removeAttribute("role");
      spot.classList.remove("spot");
      continue;
    }
    spot.addEventListener("click", (ev) => { ev.preventDefault(); onSpot(spot, indices); });
    spot.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " " || ev.key === "Spacebar") {
        ev.preventDefault();
        onSpot(spot, indices);
      }
    });
  }
  container.replaceChildren(svg);
  return svg;
}
