// Small DOM helpers shared by every page. Text from the server (names, details, action texts) is
// only ever put in the page with textContent / attributes via el(): never innerHTML, so a player
// called "<img onerror=...>" stays a string. The one exception is the board SVG our own server
// draws (see setTrustedSvg), and the CSP forbids inline script even there.

import { t } from "./words.js";

/** Build an element: el("a", {href: "/x", class: "match-link", dataset: {match: id}}, "text", child). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "dataset") Object.assign(node.dataset, value);
    else if (name === "text") node.textContent = value;
    else if (name.startsWith("on") && typeof value === "function") node.addEventListener(name.slice(2), value);
    else if (value === true) node.setAttribute(name, "");
    else node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** The words for an error: the server's detail for an ApiError, else the error's message. */
export function errorText(err) {
  if (err === undefined || err === null) return t("Something went wrong.");
  if (typeof err === "string") return err;
  return err.detail || err.message || String(err);
}

/** Show an error in #error (role=alert) in words; also logged to the console for developers. */
export function showError(err) {
  const box = document.getElementById("error");
  if (err && typeof err === "object") console.error(err);
  if (!box) return;
  box.textContent = errorText(err);
  box.hidden = false;
}

/** Hide and empty #error. */
export function clearError() {
  const box = document.getElementById("error");
  if (!box) return;
  box.textContent = "";
  box.hidden = true;
}

/** Say what is happening in #status (aria-live=polite); "" clears it. */
export function showStatus(text) {
  const box = document.getElementById("status");
  if (box) box.textContent = text || "";
}

/** Replace a container's children with the given nodes. */
export function replaceChildren(container, ...nodes) {
  container.replaceChildren(...nodes.flat().filter((n) => n !== null && n !== undefined));
}

/**
 * Put SVG text drawn by OUR server (board.svg, preview's svg) into a container. This is the one
 * place markup from the network is parsed: it comes from this origin's own renderer, which
 * escapes every name it draws (ElementTree), it is parsed as image/svg+xml (not HTML), any
 * <script> or on* attribute is dropped anyway, and the CSP blocks inline script regardless.
 */
export function setTrustedSvg(container, svgText) {
  const doc = new DOMParser().parseFromString(svgText, "image/svg+xml");
  const root = doc.documentElement;
  if (!root || root.nodeName !== "svg" || doc.getElementsByTagName("parsererror").length) {
    throw new Error(t("The server sent a picture that could not be read."));
  }
  for (const bad of Array.from(root.querySelectorAll("script, foreignObject"))) bad.remove();
  for (const node of [root, ...root.querySelectorAll("*")]) {
    for (const attr of Array.from(node.attributes)) {
      if (/^on/i.test(attr.name) || /^\s*javascript:/i.test(attr.value)) node.removeAttribute(attr.name);
    }
  }
  container.replaceChildren(document.importNode(root, true));
  return container.firstElementChild;
}

/** Run an async click handler with the button disabled meanwhile, errors shown in #error. */
export function busy(button, handler) {
  return async (event) => {
    if (event) event.preventDefault();
    clearError();
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    try {
      await handler(event);
    } catch (err) {
      showError(err);
    } finally {
      button.disabled = false;
      button.removeAttribute("aria-busy");
      // disabling the focused button drops focus to <body>; give it back so a keyboard user
      // stays where they were
      if (document.activeElement === document.body || document.activeElement === null) button.focus();
    }
  };
}
