// Imported by every page: shows this browser's key (short form) in the header as #key-id once a
// key exists, and keeps it current when a page makes or imports one.

import { currentKey, shortKey } from "./keys.js";
import { el } from "./ui.js";

function show(publicKey) {
  const nav = document.querySelector("header.site nav");
  if (!nav) return;
  let badge = document.getElementById("key-id");
  if (!publicKey) {
    if (badge) badge.remove();
    return;
  }
  if (!badge) {
    badge = el("a", { id: "key-id", href: "/keys", class: "key-id" });
    nav.append(badge);
  }
  badge.textContent = "Key " + shortKey(publicKey);
  badge.title = "This browser's public key: " + publicKey;
  badge.dataset.publicKey = publicKey;
}

document.addEventListener("portolan:key", (event) => show(event.detail && event.detail.publicKey));

/** Show the key badge now; resolves to {publicKey} or null. Pages may await it. */
export const keyShown = currentKey().then((key) => {
  show(key && key.publicKey);
  return key;
}).catch(() => null);
