// "Verify this record" in the browser: the checks of `portolan verify` (service/proof/verify.py,
// docs/record-format.md) that need no rules engine, done with WebCrypto on the record as the
// server serves it. Everything is recomputed here from the record alone: the chain from the
// header's digest, every entry hash, every move signature under the key the record says may sign
// it (the seat's own key, a mail key under the seat's delegation, a custodial key, a key taken
// over at a key change, the match clock's key for a timeout or a stand-in's move), every server
// receipt, the event digests, the acceptance times (never backwards; a timeout no earlier than
// the deadline its clock field names, plus the grace) and, once the match is over, the seed
// against its commitment. What it does not do is replay the rules (nor, so, walk the seat clocks
// to the deadline the record's own times imply: service/proof/clock_check.py): the result says
// so and names the `portolan verify` command that does.

import canonicalize from "../vendor/canonicalize.mjs";
import { fromB64url, hex } from "./b64.js";
import { smallOrderR, validPublicKey } from "./ed25519.js";
import { t, tn } from "./words.js";

const FORMAT_1 = "portolan-record/1";
const FORMAT_4 = "portolan-record/4";
const FORMATS = [FORMAT_1, "portolan-record/2", "portolan-record/3", FORMAT_4];
const MAIL_FIELDS = ["mail", "delegation"];
const CLOCK_FIELDS = ["clock"];
const CLOCK_FIELD = ["policy", "since", "deadline", "acts_at", "allowance_s", "grace_hours"];
const CLOCK = "clock";
// service/proof/standing.py's server_signed: the by values of entries the match clock's key signs
const serverSigned = (by) => by === CLOCK || by === "skip" || String(by).startsWith("stand-in:");
const HOUR_MS = 3600 * 1000;
const SLACK_MS = 1; // times are written to the millisecond: a computed one may lie up to 1 ms later
const DELEGATION = "portolan-mail-delegation/1";
const WITHDRAWAL = "portolan-mail-withdrawal/1";
const SEAT_KEY = "portolan-seat-key/1";

const encoder = new TextEncoder();
const jcs = (obj) => encoder.encode(canonicalize(obj));

async function sha256hex(bytes) {
  return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
}

/** Hex SHA-256 of the RFC 8785 canonical JSON: how the chain names things. */
export async function digest(obj) {
  return sha256hex(jcs(obj));
}

async function hmac(keyBytes, messageBytes) {
  const key = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, messageBytes));
}

function fromHex(text) {
  if (typeof text !== "string" || !/^([0-9a-f]{2})*$/.test(text)) throw new Error("malformed hex");
  return Uint8Array.from(text.match(/../g) || [], (b) => parseInt(b, 16));
}

const keyCache = new Map();

// Strict Ed25519 as the server verifies (service/proof/signing.py): the key must be a canonical
// point of large order and R not of small order; WebCrypto then checks the equation (and that S
// is canonical). False for anything malformed, never an exception.
async function verifySig(publicKey, obj, signature) {
  try {
    const sig = fromB64url(signature);
    if (sig.length !== 64 || smallOrderR(sig)) return false;
    let key = keyCache.get(publicKey);
    if (key === undefined) {
      const raw = fromB64url(publicKey);
      if (!validPublicKey(raw)) return false;
      key = await crypto.subtle.importKey("raw", raw, { name: "Ed25519" }, false, ["verify"]);
      keyCache.set(publicKey, key);
    }
    return await crypto.subtle.verify({ name: "Ed25519" }, key, sig, jcs(obj));
  } catch {
    return false;
  }
}

function validKey(publicKey) {
  try {
    return validPublicKey(fromB64url(publicKey));
  } catch {
    return false;
  }
}

const isHidden = (event) => Object.prototype.hasOwnProperty.call(event, "visible_to");

async function splitDigest(publicEvents, hidden) {
  return digest({ public: await digest(publicEvents), hidden });
}

// The events digest of a full event list (fairness.md's match secret gives the salt).
async function eventsDigest(fmt, events, salt) {
  if (fmt === FORMAT_1) return digest(events);
  const hidden = await digest({ salt, events: events.flatMap((e, i) => (isHidden(e) ? [[i, e]] : [])) });
  return splitDigest(events.filter((e) => !isHidden(e)), hidden);
}

async function entryHash(matchId, entry) {
  const chained = {
    match: matchId, ply: entry.ply, seat: entry.seat, by: entry.by, envelope: entry.envelope,
    signature: entry.signature, prev: entry.prev, accepted_at: entry.accepted_at, events_digest: entry.events_digest,
  };
  for (const name of [...MAIL_FIELDS, ...CLOCK_FIELDS]) {
    if (Object.prototype.hasOwnProperty.call(entry, name)) chained[name] = entry[name];
  }
  return digest(chained);
}

// A time as the record writes it (RFC 3339 with a zone), as milliseconds; null when it is not one.
function moment(text) {
  if (typeof text !== "string" || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(text)) return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
}

const iso = (ms) => new Date(ms).toISOString();
const has = (obj, name) => Object.prototype.hasOwnProperty.call(obj, name);

// The acceptance times along the chain, from the start on, never backwards; and each timeout's
// clock field in itself: service/proof/clock_check.py's Times, in the same words.
class Times {
  constructor(header) {
    this.last = moment(header.started_at);
    this.policy = header.timeout_policy;
    this.after = t("the match started");
    this.entries = 0;
  }

  check(entry) {
    const at = moment(entry.accepted_at);
    if (at === null) return t("accepted_at {value} is not a time with a zone", { value: JSON.stringify(entry.accepted_at) });
    if (at < this.last) {
      return t("the entry was accepted at {at}, before {after} ({last}): the record's times go backwards", { at: iso(at), after: this.after, last: iso(this.last) });
    }
    this.last = at;
    this.after = t("the entry before it");
    this.entries += 1;
    return entry.by === CLOCK ? clockField(this.policy, Number(entry.seat), at, entry.clock) : null;
  }
}

function clockField(policy, seat, at, field) {
  if (!field || typeof field !== "object" || Object.keys(field).sort().join(",") !== [...CLOCK_FIELD].sort().join(",")) {
    return t("the timeout's clock field must hold exactly {fields}", { fields: CLOCK_FIELD.join(", ") });
  }
  if (field.policy !== policy.policy || field.grace_hours !== policy.grace_hours) {
    return t("the timeout says policy '{policy}' with {grace} hours' grace, but the header's is '{header}' with {header_grace}",
      { policy: field.policy, grace: field.grace_hours, header: policy.policy, header_grace: policy.grace_hours });
  }
  const due = moment(field.deadline);
  const acts = moment(field.acts_at);
  if (moment(field.since) === null || due === null || acts === null) {
    return t("the timeout's since, deadline and acts_at must be times with a zone");
  }
  const grace = Number(policy.grace_hours) * HOUR_MS;
  const withGrace = policy.grace_hours ? " " + t("plus {hours} hours' grace ({until})", { hours: policy.grace_hours, until: iso(due + grace) }) : "";
  if (acts < due + grace - SLACK_MS) {
    return t("the timeout of seat {seat} says it acts at {acts}, before its deadline {deadline}", { seat, acts: field.acts_at, deadline: field.deadline }) + withGrace;
  }
  if (at < due + grace - SLACK_MS) {
    return t("the timeout of seat {seat} was taken at {at}, before its deadline {deadline}", { seat, at: iso(at), deadline: field.deadline }) + withGrace;
  }
  if (at < acts - SLACK_MS) {
    return t("the timeout of seat {seat} was taken at {at}, before the time it says it acts at ({acts})", { seat, at: iso(at), acts: field.acts_at });
  }
  return null;
}

// Who may sign each seat's moves as the walk goes ply by ply: service/proof/signers.py in JS.
class Signers {
  constructor(header, record, plies) {
    this.match = header.match;
    this.keys = new Map(header.seats.map((s) => [Number(s.seat), String(s.public_key)]));
    this.custodial = new Set(header.seats.filter((s) => s.custody === "server").map((s) => Number(s.seat)));
    this.everCustodial = new Set(this.custodial);
    this.changes = [...(record.key_changes || [])].sort((a, b) => a.from_ply - b.from_ply);
    this.withdrawals = [...(record.mail_withdrawals || [])].sort((a, b) => a.ply - b.ply);
    this.withdrawn = new Map();
    this.mailMoves = new Map();
    this.plies = plies;
    this.clockKey = header.format === FORMAT_4 ? String(header.clock_key) : null;
    this.clockMoves = 0;
  }

  load() {
    for (const c of this.changes) {
      if (!(c.from_ply >= 0 && c.from_ply <= this.plies)) {
        return t("key change of seat {seat}: from_ply {from} is outside the record (0 to {plies})", { seat: c.seat, from: c.from_ply, plies: this.plies });
      }
      if (!this.keys.has(Number(c.seat))) return t("key change names seat {seat}, which the header does not have", { seat: c.seat });
    }
    for (const w of this.withdrawals) {
      if (!(w.ply >= 0 && w.ply <= this.plies)) {
        return t("mail withdrawal of seat {seat}: ply {ply} is outside the record (0 to {plies})", { seat: w.seat, ply: w.ply, plies: this.plies });
      }
    }
    return null;
  }

  // [place, sentence] of the first key change or withdrawal at `ply` that does not hold, else null
  async advance(ply) {
    for (const c of this.changes.filter((x) => Number(x.from_ply) === ply)) {
      const seat = Number(c.seat);
      const where = t("key change of seat {seat} at ply {ply}", { seat, ply });
      if (!this.custodial.has(seat)) {
        return [where, t("seat {seat} is not custodial at ply {ply}: only a seat whose key the server holds can take a new key", { seat, ply })];
      }
      if (!validKey(c.public_key)) return [where, t("the new key is not a valid Ed25519 public key")];
      const body = { type: SEAT_KEY, match: this.match, seat, public_key: c.public_key, from_ply: ply };
      if (!(await verifySig(c.public_key, body, c.signature))) {
        return [where, t("the new key's signature (proof of possession) does not verify")];
      }
      if (!(await verifySig(this.keys.get(seat), body, c.custodial_signature))) {
        return [where, t("the countersignature does not verify under seat {seat}'s custodial key", { seat })];
      }
      this.keys.set(seat, String(c.public_key));
      this.custodial.delete(seat);
    }
    for (const w of this.withdrawals.filter((x) => Number(x.ply) === ply)) {
      const seat = Number(w.seat);
      const body = { type: WITHDRAWAL, match: this.match, seat, mail_key: String(w.mail_key) };
      if (!this.keys.has(seat) || !(await verifySig(this.keys.get(seat), body, w.signature))) {
        return [t("mail withdrawal of seat {seat} at ply {ply}", { seat, ply }), t("the withdrawal is not signed by seat {seat}'s key", { seat })];
      }
      if (!this.withdrawn.has(String(w.mail_key))) this.withdrawn.set(String(w.mail_key), ply);
    }
    return null;
  }

  async checkEntry(entry) {
    const seat = Number(entry.seat);
    const env = entry.envelope;
    if (serverSigned(entry.by)) return this.checkClock(seat, entry);
    if (has(entry, "clock")) return t("an entry by {by} carries a clock field, which only a timeout (by clock) has", { by: entry.by });
    if (entry.by !== "email") {
      if ("mail" in entry || "delegation" in entry) {
        return t("a move that did not come by mail carries a mail digest or delegation");
      }
      if (!(await verifySig(this.keys.get(seat), env, entry.signature))) {
        return t("the signature does not verify under seat {seat}'s key", { seat });
      }
      return null;
    }
    const mail = entry.mail;
    if (!mail || typeof mail.digest !== "string") return t("the move came by mail but carries no message digest");
    if (env.nonce !== "mail-" + mail.digest.slice(0, 32)) {
      return t("the mail digest is not the one the signed envelope's nonce was made from");
    }
    this.mailMoves.set(seat, (this.mailMoves.get(seat) || 0) + 1);
    if (this.custodial.has(seat)) {
      if ("delegation" in entry) {
        return t("seat {seat} is custodial: its mail moves are signed by its own key and carry no delegation", { seat });
      }
      if (!(await verifySig(this.keys.get(seat), env, entry.signature))) {
        return t("the signature does not verify under seat {seat}'s custodial key", { seat });
      }
      return null;
    }
    const delegation = entry.delegation;
    const body = delegation && delegation.body;
    if (!body || typeof body !== "object") {
      return t("the move came by mail but carries no mail delegation from seat {seat}'s key", { seat });
    }
    const fields = Object.keys(body).sort().join(",");
    if (fields !== "mail_key,match,seat,type" || body.type !== DELEGATION || body.match !== this.match || body.seat !== seat) {
      return t("the mail delegation does not name this match and seat {seat}", { seat });
    }
    if (!(await verifySig(this.keys.get(seat), body, String(delegation.signature)))) {
      return t("the mail delegation is not signed by seat {seat}'s key", { seat });
    }
    const mailKey = String(body.mail_key);
    if (this.withdrawn.has(mailKey) && entry.ply > this.withdrawn.get(mailKey)) {
      return t("seat {seat} withdrew that mail key at ply {ply}, before this move", { seat, ply: this.withdrawn.get(mailKey) });
    }
    if (!(await verifySig(mailKey, env, entry.signature))) {
      return t("the signature does not verify under seat {seat}'s mail key", { seat });
    }
    return null;
  }

  // an entry the match clock signed for the seat (a timeout, a stand-in's move, a pass)
  async checkClock(seat, entry) {
    const by = entry.by;
    if (this.clockKey === null) {
      return t("the entry says by '{by}', a move the match clock signs, but this record's format has no match clock", { by });
    }
    if (has(entry, "mail") || has(entry, "delegation")) return t("a move by {by} carries a mail digest or delegation", { by });
    if (has(entry, "clock") !== (by === CLOCK)) {
      return by === CLOCK ? t("a timeout (by clock) carries the clock field that says which deadline it acted on")
        : t("an entry by {by} carries a clock field, which only a timeout (by clock) has", { by });
    }
    if (!(await verifySig(this.clockKey, entry.envelope, entry.signature))) {
      return t("the signature of this move by {by} for seat {seat} does not verify under the match's clock key", { by, seat });
    }
    this.clockMoves += 1;
    return null;
  }

  notes() {
    const out = [];
    for (const seat of [...this.everCustodial].sort((a, b) => a - b)) {
      const change = this.changes.find((c) => Number(c.seat) === seat);
      out.push(change
        ? t("seat {seat} is custodial: its moves are signed by a key the server holds until ply {ply}, then by the player's own key, so they are only as trustworthy as the server", { seat, ply: change.from_ply })
        : t("seat {seat} is custodial: its moves are signed by a key the server holds, so they are only as trustworthy as the server", { seat }));
    }
    for (const [seat, n] of [...this.mailMoves].sort((a, b) => a[0] - b[0])) {
      if (!this.everCustodial.has(seat)) {
        out.push(t("seat {seat} moved {n} times by mail, each under a mail delegation signed by the seat's key", { seat, n }));
      }
    }
    if (this.clockMoves) {
      const n = this.clockMoves;
      out.push(tn("{n} move was made by the match clock (timeouts, stand-ins, passes), signed by the match's clock key, which the server holds",
        "{n} moves were made by the match clock (timeouts, stand-ins, passes), signed by the match's clock key, which the server holds", n));
    }
    return out;
  }
}

/** The command that checks what the browser does not (the rules replay), for this match. */
export function verifyCommand(matchId, serverKey, origin = location.origin) {
  return `PORTOLAN_URL=${origin} portolan record ${matchId} -o record.json && `
    + `portolan verify record.json --server-key ${serverKey}`;
}

/**
 * Check a record (GET /v1/matches/{id}/record) against the server key you trust
 * (GET /v1/server-key). Answers {ok, checks: [{name, ok, detail}], failure}: `ok` is false as
 * soon as one check fails (the walk stops there, like `portolan verify`, and `failure` names
 * the place, e.g. "ply 7: the signature does not verify under seat 1's key"); a check whose `ok`
 * is null could not be made here (not yet, or not in the browser) and says why. `command` is the
 * `portolan verify` line that checks the rest (seats are numbered from 0 here, as in the record).
 */
export async function verifyRecord(record, serverKey) {
  const checks = [];
  const pass = (name, detail) => checks.push({ name, ok: true, detail });
  const later = (name, detail) => checks.push({ name, ok: null, detail });
  const fail = (name, where, what) => {
    const failure = `${where}: ${what}`;
    checks.push({ name, ok: false, detail: failure });
    return { ok: false, checks, failure };
  };
  try {
    return await walk(record, serverKey, pass, later, fail, checks);
  } catch (err) {
    return fail("record", t("record"), t("malformed record: {why}", { why: err && err.message ? err.message : err }));
  }
}

async function walk(record, serverKey, pass, later, fail, checks) {
  const header = record.header;
  const fmt = header.format;
  if (!FORMATS.includes(fmt)) {
    return fail("format", t("header"), t("unknown format {format} (this verifier reads {formats})", { format: JSON.stringify(fmt), formats: FORMATS.join(", ") }));
  }
  const matchId = header.match;
  pass("format", t("match {id}: {game}, {count} seats, format {format}", { id: matchId, game: header.game, count: header.players, format: fmt }));
  if (serverKey && header.server_key !== serverKey) {
    return fail("server key", t("header"), t("the record's server key is not the one this server publishes (GET /v1/server-key)"));
  }
  pass("server key", serverKey
    ? t("the receipts are checked under the key this server publishes (GET /v1/server-key)")
    : t("no server key given: the receipts are checked under the record's own"));
  for (const row of header.seats) {
    if (!validKey(row.public_key)) {
      return fail("seat keys", t("header"), t("seat {seat}'s public key is not a valid Ed25519 key (not a canonical point, or one of small order)", { seat: row.seat }));
    }
  }
  pass("seat keys", t("all {n} seat keys are valid Ed25519 keys (canonical points of large order)", { n: header.seats.length }));
  const clocked = fmt === FORMAT_4;
  if (clocked) {
    if (!validKey(header.clock_key)) {
      return fail("clock", t("header"), t("the match's clock key is not a valid Ed25519 key (not a canonical point, or one of small order)"));
    }
    if (moment(header.started_at) === null) {
      return fail("clock", t("header"), t("started_at {value} is not a time with a zone", { value: JSON.stringify(header.started_at) }));
    }
  }

  let secret = null;
  if (record.seed !== null && record.seed !== undefined) {
    const seed = fromHex(record.seed);
    if ((await sha256hex(seed)) !== header.commitment) {
      return fail("seed", t("seed"), t("sha256(seed) is not the commitment published at creation"));
    }
    pass("seed", t("the revealed seed matches the commitment published at creation (sha256(seed))"));
    const contributions = header.seats.map((s) => ({ seat: s.seat, public_key: s.public_key, nonce: s.nonce || "" }));
    secret = await hmac(seed, jcs({ match: matchId, contributions }));
  } else {
    later("seed", t("not yet: the seed is revealed once the match is over; then the commitment is checked"));
  }
  const withheld = secret === null ? record.withheld : null;
  if (secret === null && fmt !== FORMAT_1
      && (!withheld || typeof withheld !== "object" || (withheld.entries || []).length !== record.entries.length)) {
    return fail("events", t("withheld"), t("a live record must carry the digest of the withheld part of the setup and of every entry"));
  }

  // true: the events match their digest; false: they do not; null: cannot tell yet (format 1, live)
  const eventsMatch = async (events, committed, label, hidden) => {
    if (secret !== null) {
      const salt = hex(await hmac(secret, encoder.encode(`hidden-events:${label}`)));
      return (await eventsDigest(fmt, events, salt)) === committed;
    }
    if (fmt === FORMAT_1) return (await digest(events)) === committed ? true : null;
    return (await splitDigest(events, String(hidden))) === committed;
  };
  const unchecked = [];
  const setupOk = await eventsMatch(record.setup_events, header.setup_events_digest, "setup", withheld ? withheld.setup : null);
  if (setupOk === false) return fail("events", t("setup"), t("the setup events do not match the header's digest"));
  if (setupOk === null) unchecked.push(t("setup"));

  let prev = await digest(header);
  const entries = record.entries;
  const signers = new Signers(header, record, entries.length);
  const times = clocked ? new Times(header) : null;
  const trouble = signers.load();
  if (trouble) return fail("signatures", t("key changes"), trouble);
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    const where = t("ply {ply}", { ply: i });
    const env = entry.envelope;
    if (entry.ply !== i || env.ply !== i) {
      return fail("chain", where, t("entry says ply {ply} (envelope {envelope}); entries out of order or missing", { ply: entry.ply, envelope: env.ply }));
    }
    if (env.match !== matchId || env.seat !== entry.seat) return fail("chain", where, t("the envelope names another match or seat"));
    if (entry.prev !== prev) return fail("chain", where, t("prev is not the hash of the entry before (the chain is broken)"));
    const changed = await signers.advance(i);
    if (changed) return fail("signatures", ...changed);
    const wrong = await signers.checkEntry(entry);
    if (wrong) return fail("signatures", where, wrong);
    const late = times ? times.check(entry) : null;
    if (late) return fail("clock", where, late);
    const ok = await eventsMatch(entry.events, entry.events_digest, `ply:${i}`, withheld ? withheld.entries[i] : null);
    if (ok === false) return fail("events", where, t("the events do not match their digest"));
    if (ok === null) unchecked.push(where);
    if ((await entryHash(matchId, entry)) !== entry.hash) return fail("entry hashes", where, t("the entry hash does not match its contents"));
    if (!(await verifySig(header.server_key, { match: matchId, ply: i, hash: entry.hash }, entry.receipt))) {
      return fail("receipts", where, t("the server receipt does not verify under the server key"));
    }
    prev = entry.hash;
  }
  if (entries.length && record.head !== prev) return fail("chain", t("head"), t("the record's head is not the hash of its last entry"));
  const after = await signers.advance(entries.length);
  if (after) return fail("signatures", ...after);
  const n = entries.length;
  pass("chain", tn("{n} entry: each one's prev is the hash of the entry before, from the header's digest, up to the head", "{n} entries: each one's prev is the hash of the entry before, from the header's digest, up to the head", n));
  pass("entry hashes", t("all {n} entry hashes recomputed from their contents", { n }));
  const mail = [...signers.mailMoves.values()].reduce((a, b) => a + b, 0);
  pass("signatures", t("all {n} moves signed by a key allowed to sign for their seat at their ply", { n })
    + (mail ? " " + t("({n} by mail, under the mail delegation or custodial key the record names)", { n: mail }) : ""));
  for (const line of signers.notes()) pass("signers", line);
  pass("receipts", t("all {n} server receipts verify under the server key", { n }));
  if (times) {
    const timeouts = entries.filter((e) => e.by === CLOCK).length;
    const which = timeouts === 1 ? t("the timeout was taken no earlier than the deadline its clock field names, plus the grace")
      : t("each of the {n} timeouts was taken no earlier than the deadline its clock field names, plus the grace", { n: timeouts });
    pass("clock", t("the acceptance times of all {n} entries never go backwards, from the match's start (started_at) on", { n: times.entries })
      + (timeouts ? `; ${which}` : ""));
  }
  if (secret !== null) {
    pass("events", t("every setup and move event list, hidden events included, matches its digest"));
  } else if (fmt === FORMAT_1) {
    pass("events", t("every event list that is complete matches its digest"));
    if (unchecked.length) {
      later("events", t("not yet: the events of {which} include withheld ones that this format-1 record's digests cover; checked once the match is over", { which: unchecked.join(", ") }));
    }
  } else {
    pass("events", t("the visible setup and move events match the chain"));
    later("hidden events", t("not yet: hidden events are withheld while the match runs (only their salted digests are shown)"));
  }
  const command = verifyCommand(matchId, serverKey || header.server_key);
  later("rules replay", clocked
    ? t("not checked in the browser: the dice, every event and the outcome are reproduced from the seed and the moves by the rules, and each timeout's deadline is walked from the record's own times through who had to act, which only portolan verify runs: {command}", { command })
    : t("not checked in the browser: the dice, every event and the outcome are reproduced from the seed and the moves by the rules, which only portolan verify runs: {command}", { command }));
  return { ok: !checks.some((c) => c.ok === false), checks, failure: null, command };
}
