// Take an invited seat (/claim/<match>/<seat>#token=...). The token lives in the URL's fragment,
// which browsers never send to a server (nor in Referer): only this script reads it, and sends it
// once, in the claim's body.

import { api, mySeats, newNonce, profile, rememberMatch, saveProfile } from "../api.js";
import { currentKey, ensureKey } from "../keys.js";
import { busy, el, replaceChildren, showError, showStatus } from "../ui.js";
import { t } from "../words.js";

const STATUS_WORDS = { waiting: t("waiting for players"), active: t("being played"), finished: t("finished"), aborted: t("aborted") };

const $ = (id) => document.getElementById(id);
const matchId = document.body.dataset.match;
const seat = Number(document.body.dataset.seat);
const matchPath = `/v1/matches/${encodeURIComponent(matchId)}`;

function token() {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ""));
  return fragment.get("token") || "";
}

function showMatch(meta, title) {
  const info = $("match-info");
  replaceChildren(info,
    el("dt", {}, t("Game")), el("dd", {}, title || meta.game),
    el("dt", {}, t("Match")), el("dd", {}, meta.id),
    el("dt", {}, t("Status")), el("dd", { dataset: { status: meta.status } }, STATUS_WORDS[meta.status] || meta.status),
    el("dt", {}, t("Your seat")), el("dd", {}, String(seat)));
  replaceChildren($("match-players"), meta.seats.map((s) => el("li", { dataset: { seat: String(s.seat) } },
    t("Seat {seat}: ", { seat: s.seat }),
    s.kind === "bot" ? s.name || t("bot") : s.claimed ? s.name : s.seat === seat ? t("you (not taken yet)") : t("waiting for its player"))));
}

async function claim() {
  const name = $("name").value.trim();
  const email = $("email").value.trim();
  const secret = token();
  if (!secret) throw new Error(t("This link has no invite token (the part after #token=). Use the whole link from the invitation."));
  if (!name) throw new Error(t("Give your name: other players see it."));
  const key = await ensureKey();
  const body = { token: secret, public_key: key.publicKey, name, nonce: newNonce() };
  if (email) body.email = email;
  showStatus(t("Taking the seat…"));
  const result = await api("POST", `${matchPath}/seats/${seat}/claim`, { body });
  saveProfile(name, email || profile().email);
  rememberMatch(matchId, seat, { game: document.body.dataset.game || "", publicKey: key.publicKey });
  showStatus(result.status === "active" ? t("Seat taken; the match has started.") : t("Seat taken."));
  location.assign(`/match/${encodeURIComponent(matchId)}`);
}

async function main() {
  const saved = profile();
  $("name").value = saved.name;
  $("email").value = saved.email;
  $("claim-form").addEventListener("submit", busy($("claim"), claim));
  if (!token()) showError(t("This link has no invite token (the part after #token=). Use the whole link from the invitation."));
  try {
    const meta = await api("GET", matchPath);
    document.body.dataset.game = meta.game;
    // the game's title is nicer than its id; without it the id will do
    const game = await api("GET", `/v1/games/${encodeURIComponent(meta.game)}`).catch(() => null);
    showMatch(meta, game && game.title);
    const key = await currentKey();
    if (key && mySeats(meta, key.publicKey).includes(seat)) {
      showStatus(t("This browser's key already holds this seat."));
      $("match-players").after(el("p", {}, el("a", { href: `/match/${encodeURIComponent(matchId)}`, id: "go-match" }, t("Go to the match"))));
    }
  } catch (err) {
    showError(err);
  }
  document.body.dataset.ready = "true";
}

main();
