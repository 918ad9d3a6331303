// Bytes <-> text as the API writes them: unpadded base64url (RFC 4648 §5) for keys and
// signatures, lower-case hex for digests. Plain functions, no dependencies.

/** Unpadded base64url of a Uint8Array (or ArrayBuffer). */
export function b64url(bytes) {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let binary = "";
  for (const byte of view) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The bytes of unpadded (or padded) base64url text; throws Error on anything else. */
export function fromB64url(text) {
  if (typeof text !== "string" || !/^[A-Za-z0-9_-]*={0,2}$/.test(text)) {
    throw new Error("not base64url text");
  }
  const plain = text.replace(/=+$/, "").replace(/-/g, "+").replace(/_/g, "/");
  const padded = plain + "=".repeat((4 - (plain.length % 4)) % 4);
  const binary = atob(padded);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** Lower-case hex of a Uint8Array (or ArrayBuffer). */
export function hex(bytes) {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  return Array.from(view, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The bytes of hex text (for test vectors). */
export function fromHex(text) {
  if (!/^([0-9a-fA-F]{2})*$/.test(text)) throw new Error("not hex text");
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** UTF-8 bytes of a string. */
export function utf8(text) {
  return new TextEncoder().encode(text);
}
