// Create a match (/new): game, its options (a form built from the game's options JSON Schema),
// the seats (me / invitation / bot), then a signed POST /v1/matches; the "me" seats are claimed at
// once with their tokens, the other invitations are kept for this tab so the match page can show
// their claim links while the match waits. The time limit and what happens to a late player are
// the clock form's (js/clockform.js).

import { api, newNonce, profile, rememberMatch, saveInvites, saveProfile } from "../api.js";
import { clearRefusals, readTimeControl, readTimeoutPolicy, showClockForm, showRefusal } from "../clockform.js";
import { ensureKey } from "../keys.js";
import { busy, clearError, el, replaceChildren, showError, showStatus } from "../ui.js";
import { t, tn } from "../words.js";

// The bot kinds every hosted game has (GET /v1/games/{game} lists them as "bots"), strongest last.
const SEAT_KINDS = [["me", t("Me (this browser)")], ["invite", t("Invite by email")],
  ["bot:search:medium", t("Bot: looks ahead (search, medium)")], ["bot:search:hard", t("Bot: strongest (search, hard)")],
  ["bot:search:easy", t("Bot: looks a little ahead (search, easy)")], ["bot:heuristic", t("Bot: plays by feel (heuristic, instant)")],
  ["bot:random", t("Bot: random moves (for practice)")]];

let games = [];            // GET /v1/games
let current = null;        // the chosen game's summary

const $ = (id) => document.getElementById(id);

// ---- options: one input per property of the game's options schema ----

function optionField(name, schema) {
  const id = `option-${name}`;
  const hintId = `${id}-about`;
  const hint = schema.description ? el("p", { class: "hint", id: hintId }, schema.description) : null;
  const describedBy = hint ? hintId : null;
  const words = schema.title || name.replace(/_/g, " ");
  const label = words.charAt(0).toUpperCase() + words.slice(1);
  if (schema.type === "boolean") {
    const box = el("input", { type: "checkbox", id, name, "aria-describedby": describedBy });
    box.checked = schema.default === true;
    return el("div", { class: "field check" }, box, el("label", { for: id }, label), hint);
  }
  if (schema.type === "array" && schema.items && Array.isArray(schema.items.enum)) {
    const chosen = new Set(schema.default || []);
    const boxes = schema.items.enum.map((value) => {
      const boxId = `${id}-${value}`;
      const box = el("input", { type: "checkbox", id: boxId, name, value, dataset: { array: "true" } });
      box.checked = chosen.has(value);
      return el("span", { class: "check" }, box, el("label", { for: boxId }, String(value)));
    });
    return el("fieldset", { class: "field", "aria-describedby": describedBy }, el("legend", {}, label), ...boxes, hint);
  }
  if (Array.isArray(schema.enum)) {
    const select = el("select", { id, name, "aria-describedby": describedBy },
      schema.enum.map((value) => el("option", { value: String(value) }, String(value))));
    if (schema.default !== undefined) select.value = String(schema.default);
    return el("div", { class: "field" }, el("label", { for: id }, label), select, hint);
  }
  if (schema.type === "integer" && /^seat\b/i.test(schema.description || "")) {
    // an option that names a seat (e.g. who starts): a choice among the seats as people count
    // them (Seat 1 = seat 0), refreshed when seats are added or removed
    const select = el("select", { id, name, "aria-describedby": describedBy, dataset: { number: "integer", seatOption: "true" } });
    return el("div", { class: "field" }, el("label", { for: id }, label), select, hint);
  }
  if (schema.type === "integer" || schema.type === "number") {
    const input = el("input", {
      type: "number", id, name, min: schema.minimum, max: schema.maximum,
      step: schema.type === "integer" ? 1 : "any", inputmode: "numeric", "aria-describedby": describedBy,
      placeholder: schema.default === undefined ? t("(not set)") : null,
      dataset: { number: schema.type },
    });
    if (schema.default !== undefined) input.value = String(schema.default);
    return el("div", { class: "field" }, el("label", { for: id }, label), input, hint);
  }
  const input = el("input", { type: "text", id, name, maxlength: schema.maxLength, "aria-describedby": describedBy });
  if (schema.default !== undefined) input.value = String(schema.default);
  return el("div", { class: "field" }, el("label", { for: id }, label), input, hint);
}

function showOptions(schema) {
  const box = $("options");
  const props = (schema && schema.properties) || {};
  const fields = Object.entries(props).map(([name, sub]) => optionField(name, sub));
  replaceChildren(box, el("legend", {}, t("Options")), fields.length ? fields : el("p", { class: "hint" }, t("This game has no options.")));
}

/** The options object from the form: only fields with a value (the server fills in defaults). */
function readOptions() {
  const options = {};
  for (const input of $("options").querySelectorAll("input, select")) {
    const name = input.name;
    if (!name) continue;
    if (input.dataset.array) {
      options[name] = options[name] || [];
      if (input.checked) options[name].push(input.value);
    } else if (input.type === "checkbox") {
      options[name] = input.checked;
    } else if (input.dataset.number) {
      if (input.value.trim() === "") continue;
      const value = Number(input.value);
      if (!Number.isFinite(value) || (input.dataset.number === "integer" && !Number.isInteger(value))) {
        throw new Error(t("The option \"{name}\" must be a whole number.", { name }));
      }
      options[name] = value;
    } else if (input.value !== "") {
      options[name] = input.value;
    }
  }
  return options;
}

// ---- seats ----

function seatRow(index, kind) {
  const kindId = `seat-kind-${index}`;
  const emailId = `seat-email-${index}`;
  const select = el("select", { id: kindId, class: "seat-kind", name: `seat-kind-${index}` },
    SEAT_KINDS.map(([value, text]) => el("option", { value }, text)));
  select.value = kind;
  const email = el("input", { id: emailId, class: "seat-email", type: "email", name: `seat-email-${index}`,
    autocomplete: "off", maxlength: 254, placeholder: "player@example.org" });
  const emailField = el("span", { class: "seat-email-field" }, el("label", { for: emailId }, t("Their email")), email);
  const sync = () => { emailField.hidden = select.value !== "invite"; };
  select.addEventListener("change", sync);
  sync();
  return el("div", { class: "seat-row", dataset: { seat: String(index) } },
    el("label", { for: kindId, class: "seat-label" }, t("Seat {seat}", { seat: index })), select, emailField);
}

function refreshSeatOptions(count) {
  for (const select of $("options").querySelectorAll("select[data-seat-option]")) {
    const chosen = select.value;
    replaceChildren(select, el("option", { value: "" }, t("(not set: the game's default)")),
      Array.from({ length: count }, (_, i) => el("option", { value: String(i) }, t("Seat {seat}", { seat: i }))));
    select.value = Number(chosen) < count ? chosen : "";
  }
}

function seatCount() {
  return $("seats").querySelectorAll(".seat-row").length;
}

function setSeats(count) {
  const box = $("seats");
  while (seatCount() > count) box.lastElementChild.remove();
  while (seatCount() < count) box.append(seatRow(seatCount(), seatCount() === 0 ? "me" : "invite"));
  const { min, max } = current.players;
  $("add-seat").disabled = count >= max;
  $("remove-seat").disabled = count <= min;
  $("seats-about").dataset.range = `${min}-${max}`;
  refreshSeatOptions(count);
}

// ---- game choice ----

async function chooseGame(id) {
  current = games.find((g) => g.id === id);
  const { min, max } = current.players;
  $("game-about").textContent = min === max ? tn("{n} player.", "{n} players.", min) : t("{min} to {max} players.", { min, max });
  showOptions(current.options_schema);
  const count = Math.min(Math.max(seatCount() || min, min), max);
  setSeats(count);
}

// ---- create ----

async function create() {
  const name = $("my-name").value.trim();
  const email = $("my-email").value.trim();
  const rows = Array.from($("seats").querySelectorAll(".seat-row"));
  const kinds = rows.map((row) => row.querySelector(".seat-kind").value);
  if (!name) throw new Error(t("Give your name: other players see it."));
  if (kinds.includes("me") && !email) throw new Error(t("Give your email: your own seat's invitation and turn notices go there."));
  const seats = rows.map((row, i) => {
    const kind = kinds[i];
    if (kind === "me") return { invite: email, mine: true }; // taken below with its token: no invitation mail
    if (kind.startsWith("bot:")) return { bot: kind.slice(4) };
    const address = row.querySelector(".seat-email").value.trim();
    if (!address) throw new Error(t("Give an email for seat {seat}, or make it a bot.", { seat: i }));
    return { invite: address };
  });
  const body = { game: current.id, options: readOptions(), seats, creator_name: name };
  // left out when they are the defaults (no time limit; a stand-in after 24 h), as the API's
  // own defaults are exactly those
  const timeControl = readTimeControl();
  const timeoutPolicy = readTimeoutPolicy();
  if (timeControl) body.time_control = timeControl;
  if (timeoutPolicy) body.timeout_policy = timeoutPolicy;
  saveProfile(name, email);
  const key = await ensureKey();
  showStatus(t("Creating the match…"));
  clearRefusals();
  let created;
  try {
    created = await api("POST", "/v1/matches", { body, signed: true });
  } catch (err) {
    showStatus("");
    showRefusal(err); // a refused time limit or policy is also shown next to its field
    throw err;
  }
  const others = {};
  for (const [seat, token] of Object.entries(created.invites || {})) {
    if (kinds[Number(seat)] !== "me") others[seat] = token;
  }
  saveInvites(created.id, others);
  for (const [seat, token] of Object.entries(created.invites || {})) {
    if (kinds[Number(seat)] !== "me") continue;
    showStatus(t("Taking seat {seat}…", { seat: Number(seat) }));
    try {
      await api("POST", `/v1/matches/${encodeURIComponent(created.id)}/seats/${seat}/claim`,
        { body: { token, public_key: key.publicKey, name, email, nonce: newNonce() } });
    } catch (err) {
      // the match exists: give the creator the way to retry instead of losing the token
      saveInvites(created.id, { ...others, [seat]: token });
      err.detail = t("The match {id} was created, but taking seat {seat} failed: {why}", { id: created.id, seat: Number(seat), why: err.detail || err.message });
      throw err;
    }
    rememberMatch(created.id, Number(seat), { game: created.game, publicKey: key.publicKey });
  }
  showStatus(t("Match created."));
  location.assign(`/match/${encodeURIComponent(created.id)}`);
}

async function main() {
  const saved = profile();
  $("my-name").value = saved.name;
  $("my-email").value = saved.email;
  showClockForm();
  $("add-seat").addEventListener("click", () => setSeats(seatCount() + 1));
  $("remove-seat").addEventListener("click", () => setSeats(seatCount() - 1));
  $("new-form").addEventListener("submit", busy($("create"), create));
  try {
    showStatus(t("Loading the games…"));
    games = (await api("GET", "/v1/games")).games;
    replaceChildren($("game"), games.map((g) => el("option", { value: g.id }, g.title)));
    const wanted = new URLSearchParams(location.search).get("game");
    if (wanted && games.some((g) => g.id === wanted)) $("game").value = wanted;
    $("game").addEventListener("change", () => { clearError(); chooseGame($("game").value); });
    await chooseGame($("game").value);
    showStatus("");
  } catch (err) {
    showStatus("");
    showError(err);
  }
  document.body.dataset.ready = "true";
}

main();
