// This browser's Ed25519 key (WebCrypto), kept in IndexedDB (db "portolan", store "keys").
//
// The private key is stored as a NON-extractable CryptoKey: page script (or anything injected into
// it) can ask it to sign, but cannot read its bytes. IndexedDB keeps CryptoKeys by structured
// clone, non-extractability included.
//
// Backups need the bytes, which a non-extractable key will never give. So at generation (and at
// import) we keep one wrapped copy: the PKCS#8 private key encrypted (AES-GCM) under a "device
// key" that is itself a non-extractable AES key in the same store. exportBackup() unwraps that copy
// into a transient extractable key only to re-encrypt it under the passphrase, and drops it. The
// limits of this (docs/web-client.md): script running in this origin could do the same unwrap, so
// the device key protects against reading the bytes off disk or from a dump of IndexedDB, not
// against script in the page; the CSP (scripts from this origin only) is what guards that.

import { b64url, fromB64url, utf8 } from "./b64.js";
import { t } from "./words.js";

const DB_NAME = "portolan";
const STORE = "keys";
const CURRENT = "current";
const BACKUP_FORMAT = "portolan-key-backup/1";
const PBKDF2_ITERATIONS = 600000;
// RFC 8410 PKCS#8 prefix of an Ed25519 private key: SEQUENCE { version 0, AlgorithmIdentifier
// { 1.3.101.112 }, OCTET STRING { OCTET STRING (32-byte seed) } }. Used to import a known seed.
const PKCS8_ED25519_PREFIX = new Uint8Array([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);

function openDb() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => {
      if (!request.result.objectStoreNames.contains(STORE)) request.result.createObjectStore(STORE);
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(new Error(t("This browser's storage (IndexedDB) cannot be opened: {why}", { why: request.error })));
    request.onblocked = () => reject(new Error(t("This browser's storage is in use by another tab; close it and try again.")));
  });
}

async function withStore(mode, work) {
  const db = await openDb();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const request = work(tx.objectStore(STORE));
      let result;
      if (request) request.onsuccess = () => { result = request.result; };
      tx.oncomplete = () => resolve(result);
      tx.onerror = () => reject(new Error(t("Could not use this browser's key storage: {why}", { why: tx.error })));
      tx.onabort = () => reject(new Error(t("Could not use this browser's key storage: {why}", { why: tx.error })));
    });
  } finally {
    db.close();
  }
}

const dbGet = (name) => withStore("readonly", (store) => store.get(name));
const dbPut = (name, value) => withStore("readwrite", (store) => store.put(value, name));

/** Store value under name only if nothing is there yet; true if stored. */
async function dbAddOnce(name, value) {
  try {
    await withStore("readwrite", (store) => store.add(value, name));
    return true;
  } catch (err) {
    if (await dbGet(name)) return false; // another tab was first (ConstraintError)
    throw err;
  }
}

function requireWebCrypto() {
  if (!globalThis.crypto || !crypto.subtle) {
    throw new Error(t("This browser has no WebCrypto (it needs a secure context: https or localhost)."));
  }
}

/** The record kept for the key: {publicKey, privateKey, deviceKey, wrapped, iv, created}. */
async function record() {
  const rec = await dbGet(CURRENT);
  return rec && rec.privateKey && rec.publicKey ? rec : null;
}

/**
 * Store an extractable private key: wrap a copy under a new device key, keep a non-extractable
 * re-import of it for signing. The extractable one is only used here and then dropped. With
 * `replace` false (a new key) it is stored only if this browser still has none, so two tabs
 * making a key at once end up with the same one; answers the record that is current.
 */
async function keep(extractablePrivate, publicKey, replace) {
  const deviceKey = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, ["wrapKey", "unwrapKey"]);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const wrapped = await crypto.subtle.wrapKey("pkcs8", extractablePrivate, deviceKey, { name: "AES-GCM", iv });
  const privateKey = await crypto.subtle.unwrapKey(
    "pkcs8", wrapped, deviceKey, { name: "AES-GCM", iv }, { name: "Ed25519" }, false, ["sign"]);
  const rec = { publicKey, privateKey, deviceKey, wrapped: new Uint8Array(wrapped), iv, created: new Date().toISOString() };
  if (!replace) {
    if (!(await dbAddOnce(CURRENT, rec))) return record();
  } else {
    const previous = await record();
    if (previous && previous.publicKey !== publicKey) {
      // Why keep the old one: its seats can only ever be moved with it; an import must not lose it.
      await dbPut("replaced:" + previous.publicKey, previous);
    }
    await dbPut(CURRENT, rec);
  }
  persist();
  return rec;
}

function persist() {
  // Ask the browser not to evict this origin's storage under pressure: the key lives there.
  // Browsers decide for themselves (Chromium grants it to sites in use); nothing depends on it.
  if (navigator.storage && navigator.storage.persist) navigator.storage.persist().catch(() => {});
}

async function publicOf(extractablePrivate) {
  // A private Ed25519 JWK carries its public half as "x" (base64url, unpadded).
  const jwk = await crypto.subtle.exportKey("jwk", extractablePrivate);
  return jwk.x;
}

/** {publicKey} of this browser's key, or null when it has none yet. */
export async function currentKey() {
  requireWebCrypto();
  const rec = await record();
  return rec ? { publicKey: rec.publicKey } : null;
}

let making = null; // one generation at a time, even if two parts of a page ask at once

/** {publicKey} of this browser's key, generated (and stored) on first use. */
export async function ensureKey() {
  const have = await currentKey();
  if (have) return have;
  if (!making) {
    making = (async () => {
      const again = await record();
      if (again) return { publicKey: again.publicKey };
      let pair;
      try {
        pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
      } catch (err) {
        throw new Error(t("This browser cannot make Ed25519 keys (WebCrypto Ed25519 is missing): {why}", { why: err.message }));
      }
      const made = b64url(await crypto.subtle.exportKey("raw", pair.publicKey));
      const { publicKey } = await keep(pair.privateKey, made, false);
      document.dispatchEvent(new CustomEvent("portolan:key", { detail: { publicKey } }));
      return { publicKey };
    })().finally(() => { making = null; });
  }
  return making;
}

/** The unpadded base64url Ed25519 signature of bytes with this browser's key. */
export async function sign(bytes) {
  const rec = await record();
  if (!rec) throw new Error(t("This browser has no key yet."));
  return b64url(await crypto.subtle.sign({ name: "Ed25519" }, rec.privateKey, bytes));
}

async function passphraseKey(passphrase, salt, usages) {
  if (typeof passphrase !== "string" || passphrase.length < 8) {
    throw new Error(t("The passphrase must have at least 8 characters."));
  }
  const base = await crypto.subtle.importKey("raw", utf8(passphrase), "PBKDF2", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "PBKDF2", hash: "SHA-256", salt, iterations: PBKDF2_ITERATIONS },
    base, { name: "AES-GCM", length: 256 }, false, usages);
}

/**
 * A backup of this browser's key as a JSON Blob (format "portolan-key-backup/1",
 * docs/web-client.md): the PKCS#8 private key encrypted with AES-256-GCM under
 * PBKDF2-SHA256(passphrase, random 16-byte salt, 600000 iterations).
 */
export async function exportBackup(passphrase) {
  const rec = await record();
  if (!rec) throw new Error(t("This browser has no key to export yet."));
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const wrapping = await passphraseKey(passphrase, salt, ["wrapKey"]);
  const transient = await crypto.subtle.unwrapKey(
    "pkcs8", rec.wrapped, rec.deviceKey, { name: "AES-GCM", iv: rec.iv }, { name: "Ed25519" }, true, ["sign"]);
  const wrapped = await crypto.subtle.wrapKey("pkcs8", transient, wrapping, { name: "AES-GCM", iv });
  const backup = {
    format: BACKUP_FORMAT,
    public_key: rec.publicKey,
    kdf: { name: "PBKDF2", hash: "SHA-256", iterations: PBKDF2_ITERATIONS, salt: b64url(salt) },
    cipher: { name: "AES-GCM", iv: b64url(iv) },
    wrapped: b64url(wrapped),
    created: new Date().toISOString(),
  };
  return new Blob([JSON.stringify(backup, null, 2) + "\n"], { type: "application/json" });
}

/**
 * Make the key in a backup (a File/Blob or its JSON text) this browser's key. The previous key,
 * if another, is kept aside in the store (never deleted). Returns {publicKey}.
 */
export async function importBackup(file, passphrase) {
  requireWebCrypto();
  const text = typeof file === "string" ? file : await file.text();
  let backup;
  try {
    backup = JSON.parse(text);
  } catch {
    throw new Error(t("That file is not a Portolan key backup (it is not JSON)."));
  }
  if (!backup || backup.format !== BACKUP_FORMAT || !backup.kdf || !backup.cipher || !backup.wrapped) {
    throw new Error(t("That file is not a Portolan key backup (format {format}).", { format: BACKUP_FORMAT }));
  }
  if (backup.kdf.name !== "PBKDF2" || backup.kdf.hash !== "SHA-256" || backup.cipher.name !== "AES-GCM") {
    throw new Error(t("That backup uses a method this page does not know."));
  }
  if (backup.kdf.iterations !== PBKDF2_ITERATIONS) {
    throw new Error(t("That backup was made with {made} iterations; this page reads {reads}.", { made: backup.kdf.iterations, reads: PBKDF2_ITERATIONS }));
  }
  const salt = fromB64url(backup.kdf.salt);
  const unwrapping = await passphraseKey(passphrase, salt, ["unwrapKey"]);
  let transient;
  try {
    transient = await crypto.subtle.unwrapKey(
      "pkcs8", fromB64url(backup.wrapped), unwrapping, { name: "AES-GCM", iv: fromB64url(backup.cipher.iv) },
      { name: "Ed25519" }, true, ["sign"]);
  } catch {
    throw new Error(t("Wrong passphrase, or the backup file is damaged."));
  }
  const publicKey = await publicOf(transient);
  if (backup.public_key && backup.public_key !== publicKey) {
    throw new Error(t("The backup's public key does not match its private key; the file was altered."));
  }
  await keep(transient, publicKey, true);
  document.dispatchEvent(new CustomEvent("portolan:key", { detail: { publicKey } }));
  return { publicKey };
}

/** The other keys this browser keeps (set aside by an import): [{publicKey, created}]. */
export async function keptKeys() {
  const names = await withStore("readonly", (store) => store.getAllKeys());
  const kept = [];
  for (const name of names || []) {
    if (typeof name !== "string" || !name.startsWith("replaced:")) continue;
    const rec = await dbGet(name);
    if (rec && rec.publicKey) kept.push({ publicKey: rec.publicKey, created: rec.created || "" });
  }
  return kept;
}

/** Make a kept key this browser's key again; the current one is kept aside in its place. */
export async function useKeptKey(publicKey) {
  const name = "replaced:" + publicKey;
  const kept = await dbGet(name);
  if (!kept) throw new Error(t("This browser keeps no such key."));
  const current = await record();
  await withStore("readwrite", (store) => {
    // one transaction: the swap happens whole or not at all
    if (current) store.put(current, "replaced:" + current.publicKey);
    store.put(kept, CURRENT);
    return store.delete(name);
  });
  document.dispatchEvent(new CustomEvent("portolan:key", { detail: { publicKey } }));
  return { publicKey };
}

/**
 * A CryptoKey for a known 32-byte Ed25519 seed. Only for checking the published test vectors
 * (docs/signing-vectors.json) in a browser: player keys are always generated by ensureKey().
 */
export async function importSeed(seed) {
  const pkcs8 = new Uint8Array(PKCS8_ED25519_PREFIX.length + seed.length);
  pkcs8.set(PKCS8_ED25519_PREFIX);
  pkcs8.set(seed, PKCS8_ED25519_PREFIX.length);
  return crypto.subtle.importKey("pkcs8", pkcs8, { name: "Ed25519" }, true, ["sign"]);
}

/** The base64url signature of bytes with a given CryptoKey (vector checks). */
export async function signWith(privateKey, bytes) {
  return b64url(await crypto.subtle.sign({ name: "Ed25519" }, privateKey, bytes));
}

/** The base64url public key of an extractable private CryptoKey (vector checks). */
export async function publicKeyOf(privateKey) {
  return publicOf(privateKey);
}

/** A short form of a public key for people: its first 8 characters. */
export function shortKey(publicKey) {
  return publicKey ? publicKey.slice(0, 8) : "";
}
