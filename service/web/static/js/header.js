// Imported by every page: shows this browser's key (short form) in the header as #key-id once a
// key exists, and keeps it current when a page makes or imports one; and keeps the language
// switch's links pointing at this very page, #fragment included.

import { currentKey, shortKey } from "./keys.js";
import { el } from "./ui.js";
import { t } from "./words.js";

/**
 * The language switch's links as this page's URL with ?lang= set: the server writes the path and
 * query, but never sees the #fragment (the claim page's invite token lives there), so without
 * this a switch on the claim page would lose the token. Kept current when the fragment changes.
 */
export function keepSwitchOnThisPage() {
  for (const link of document.querySelectorAll("nav.languages a[hreflang]")) {
    const url = new URL(location.href);
    url.searchParams.set("lang", link.getAttribute("hreflang"));
    link.href = url.pathname + url.search + url.hash;
  }
}

keepSwitchOnThisPage();
window.addEventListener("hashchange", keepSwitchOnThisPage);

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
  badge.textContent = t("Key {key}", { key: shortKey(publicKey) });
  badge.title = t("This browser's public key: {key}", { key: publicKey });
  badge.dataset.publicKey = publicKey;
}

document.addEventListener("portolan:key", (event) => show(event.detail && event.detail.publicKey));

/** Show the key badge now; resolves to {publicKey} or null. Pages may await it. */
export const keyShown = currentKey().then((key) => {
  show(key && key.publicKey);
  return key;
}).catch(() => null);
