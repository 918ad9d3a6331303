// The public API, as any third-party frontend would call it: fetch + JSON, signed requests
// (docs/signing.md) with this browser's key, RFC 9457 problems turned into ApiError with the
// server's own words. Nothing here knows about pages.

import canonicalize from "../vendor/canonicalize.mjs";
import { b64url, hex, utf8 } from "./b64.js";
import { ensureKey, sign, signWith } from "./keys.js";
import { t } from "./words.js";

/** A refusal from the server (status >= 400) or a failure to reach it (status 0). */
export class ApiError extends Error {
  constructor(message, { status = 0, code = "", detail = "", problem = null } = {}) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.detail = detail || message;
    this.problem = problem;
  }
}

/** The RFC 8785 canonical JSON bytes of a value (what every signature signs). */
export function canonicalBytes(value) {
  return utf8(canonicalize(value));
}

/** A fresh request nonce: 16 random bytes as base64url (22 chars of [A-Za-z0-9_-]). */
export function newNonce() {
  return b64url(crypto.getRandomValues(new Uint8Array(16)));
}

async function sha256Hex(bytes) {
  return hex(await crypto.subtle.digest("SHA-256", bytes));
}

/**
 * The canonical bytes a signed request signs (docs/signing.md): JCS of {method (upper-case), path,
 * query (raw, "" if none), body (hex SHA-256 of the raw body bytes), ts (int), nonce}. Exported so
 * the test vectors (docs/signing-vectors.json) can be checked in a browser.
 */
export async function signedRequestBody(method, path, query, bodyBytes, ts, nonce) {
  const body = await sha256Hex(bodyBytes || new Uint8Array(0));
  return canonicalBytes({ method: method.toUpperCase(), path, query: query || "", body, ts, nonce });
}

/**
 * The Authorization header value for a request. With `privateKey` (a CryptoKey) and `publicKey`
 * given it signs with those (vector checks); otherwise with this browser's key.
 */
export async function authorization(method, path, query, bodyBytes, { ts, nonce, privateKey, publicKey } = {}) {
  const when = ts ?? Math.floor(Date.now() / 1000) + clockOffset;
  const once = nonce ?? newNonce();
  const message = await signedRequestBody(method, path, query, bodyBytes, when, once);
  let key = publicKey;
  let sig;
  if (privateKey) {
    sig = await signWith(privateKey, message);
  } else {
    key = (await ensureKey()).publicKey;
    sig = await sign(message);
  }
  return `Portolan key="${key}", ts="${when}", nonce="${once}", sig="${sig}"`;
}

// Seconds to add to this device's clock for a signed request's ts. The server refuses a ts more
// than 300 s off its own clock; a phone with a wrong clock learns the server's from the Date
// header of that refusal and signs once more (a fresh nonce, so no replay).
let clockOffset = 0;

function learnClock(response) {
  const date = Date.parse(response.headers.get("Date") || "");
  if (Number.isNaN(date)) return false;
  clockOffset = Math.round((date - Date.now()) / 1000);
  return true;
}

function splitPath(path, query) {
  const at = path.indexOf("?");
  if (at < 0) return [path, query || ""];
  return [path.slice(0, at), query || path.slice(at + 1)];
}

async function problemOf(response) {
  const type = response.headers.get("Content-Type") || "";
  if (type.includes("json")) {
    try {
      return await response.json();
    } catch {
      return null;
    }
  }
  return null;
}

async function send(method, path, options = {}) {
  try {
    return await sendOnce(method, path, options);
  } catch (err) {
    if (options.signed && err instanceof ApiError && err.code === "stale-signature" && err.response && learnClock(err.response)) {
      return sendOnce(method, path, options);
    }
    throw err;
  }
}

async function sendOnce(method, path, { body, signed = false, query = "", headers = {}, accept = "application/json" } = {}) {
  const [pathname, rawQuery] = splitPath(path, query);
  const bodyBytes = body === undefined ? new Uint8Array(0) : utf8(typeof body === "string" ? body : JSON.stringify(body));
  const sendHeaders = { Accept: accept, ...headers };
  if (body !== undefined) sendHeaders["Content-Type"] = "application/json";
  if (signed) sendHeaders.Authorization = await authorization(method, pathname, rawQuery, bodyBytes);
  const url = pathname + (rawQuery ? "?" + rawQuery : "");
  let response;
  try {
    response = await fetch(url, {
      method: method.toUpperCase(),
      headers: sendHeaders,
      body: body === undefined ? undefined : bodyBytes,
      cache: "no-store",
    });
  } catch (err) {
    throw new ApiError(t("Could not reach the server (the network failed or the server is down). Try again."),
      { status: 0, code: "network" });
  }
  if (!response.ok && response.status !== 304) {
    const problem = await problemOf(response);
    const detail = (problem && (problem.detail || problem.title)) ||
      t("The server answered {status}.", { status: `${response.status} ${response.statusText || ""}`.trim() });
    const err = new ApiError(detail, { status: response.status, code: (problem && problem.code) || "", detail, problem });
    Object.defineProperty(err, "response", { value: response, enumerable: false });
    throw err;
  }
  return response;
}

/**
 * Call the API and return its JSON answer (null for 204/304). Options: body (an object, sent as
 * JSON), signed (sign with this browser's key), query (raw query string, without "?").
 * Throws ApiError with the server's detail on a refusal.
 */
export async function api(method, path, options = {}) {
  const response = await send(method, path, options);
  if (response.status === 204 || response.status === 304) return null;
  const text = await response.text();
  if (!text) return null;
  let answer;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new ApiError(t("The server's answer was not JSON."), { status: response.status, code: "not-json" });
  }
  // A view's clock holds no reading time (views are cached by their ETag): the server's time of
  // this answer comes in the Portolan-Now header, which the clock's countdown starts from.
  const now = response.headers.get("Portolan-Now");
  if (now && answer && typeof answer.clock === "object" && answer.clock !== null && !answer.clock.now) {
    answer.clock.now = now;
  }
  return answer;
}

/** A signed GET that returns text (e.g. a seat's board.svg). */
export async function signedText(path, query = "") {
  const response = await send("GET", path, { signed: true, query, accept: "image/svg+xml, text/plain, */*" });
  return response.text();
}

/** A public GET that returns text (e.g. the spectator board.svg). */
export async function getText(path, query = "") {
  const response = await send("GET", path, { query, accept: "image/svg+xml, text/plain, */*" });
  return response.text();
}

/** The envelope of a move and its signature (docs/signing.md: JCS of exactly these five fields). */
export async function signedEnvelope(matchId, seat, ply, actions) {
  const envelope = { match: matchId, seat, ply, actions, nonce: newNonce() };
  return { envelope, signature: await sign(canonicalBytes(envelope)) };
}

/**
 * Submit one move (the actions in order, all or nothing) for a seat held by this browser's key.
 * The POST itself is signed too, so the answer is the seat's own (with its new legal actions).
 */
export async function submitMove(matchId, seat, ply, actions) {
  const body = await signedEnvelope(matchId, seat, ply, actions);
  return api("POST", `/v1/matches/${encodeURIComponent(matchId)}/moves`, { body, signed: true });
}

/** The seats of a match (GET /v1/matches/{id} answer) whose public_key is ours. */
export function mySeats(matchMeta, publicKey) {
  if (!matchMeta || !publicKey || !Array.isArray(matchMeta.seats)) return [];
  return matchMeta.seats.filter((s) => s && s.public_key === publicKey).map((s) => s.seat);
}

// ---- what this browser remembers (localStorage / sessionStorage), shared by the pages ----

const MATCHES = "portolan.matches";   // [{match, seat, game, publicKey, at}] seats this browser took
const PROFILE = "portolan.profile";   // {name, email} last used
const INVITES = "portolan.invites.";  // + match id -> {seat: token} (sessionStorage: this tab only)

function readJson(storage, name, fallback) {
  try {
    const value = JSON.parse(storage.getItem(name) || "null");
    return value ?? fallback;
  } catch {
    return fallback;
  }
}

/** Remember that this browser's key holds `seat` of `match` (for the lobby's "my matches"). */
export function rememberMatch(match, seat, { game = "", publicKey = "" } = {}) {
  const list = readJson(localStorage, MATCHES, []).filter((m) => !(m.match === match && m.seat === seat));
  list.unshift({ match, seat, game, publicKey, at: new Date().toISOString() });
  localStorage.setItem(MATCHES, JSON.stringify(list.slice(0, 200)));
}

/** Every seat remembered by rememberMatch, newest first. */
export function rememberedMatches() {
  return readJson(localStorage, MATCHES, []);
}

/** The name/email this browser last used ({name, email}, "" when never). */
export function profile() {
  const p = readJson(localStorage, PROFILE, {});
  return { name: p.name || "", email: p.email || "" };
}

/** Remember the name/email for the next form. */
export function saveProfile(name, email) {
  localStorage.setItem(PROFILE, JSON.stringify({ name: name || "", email: email || "" }));
}

/** Keep a new match's invite tokens for this tab (the creator shares the claim links). */
export function saveInvites(match, invites) {
  sessionStorage.setItem(INVITES + match, JSON.stringify(invites || {}));
}

/**
 * The claim links of a match this tab created: [{seat, token, url}] (url absolute, with the
 * token in the fragment: /claim/<match>/<seat>#token=...). Empty when this tab did not create it.
 */
export function invitesFor(match) {
  const invites = readJson(sessionStorage, INVITES + match, {});
  return Object.entries(invites).map(([seat, token]) => ({
    seat: Number(seat),
    token,
    url: `${location.origin}/claim/${encodeURIComponent(match)}/${seat}#token=${encodeURIComponent(token)}`,
  })).sort((a, b) => a.seat - b.seat);
}
