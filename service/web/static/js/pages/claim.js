// Take an invited seat (/claim/<match>/<seat>#token=...). The token lives in the URL's fragment,
// which browsers never send to a server (nor in Referer): only this script reads it, and sends it
// once, in the claim's body.

import { api, mySeats, newNonce, profile, rememberMatch, saveProfile } from "../api.js";
import { currentKey, ensureKey } from "../keys.js";
import { busy, el, replaceChildren, showError, showStatus } from "../ui.js";

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
    el("dt", {}, "Game"), el("dd", {}, title || meta.game),
    el("dt", {}, "Match"), el("dd", {}, meta.id),
    el("dt", {}, "Status"), el("dd", {}, meta.status),
    el("dt", {}, "Your seat"), el("dd", {}, String(seat)));
  replaceChildren($("match-players"), meta.seats.map((s) => el("li", { dataset: { seat: String(s.seat) } },
    `Seat ${s.seat}: `,
    s.kind === "bot" ? s.name || "bot" : s.claimed ? s.name : s.seat === seat ? "you (not taken yet)" : "waiting for its player")));
}

async function claim() {
  const name = $("name").value.trim();
  const email = $("email").value.trim();
  const secret = token();
  if (!secret) throw new Error("This link has no invite token (the part after #token=). Use the whole link from the invitation.");
  if (!name) throw new Error("Give your name: other players see it.");
  const key = await ensureKey();
  const body = { token: secret, public_key: key.publicKey, name, nonce: newNonce() };
  if (email) body.email = email;
  showStatus("Taking the seat…");
  const result = await api("POST", `${matchPath}/seats/${seat}/claim`, { body });
  saveProfile(name, email || profile().email);
  rememberMatch(matchId, seat, { game: document.body.dataset.game || "", publicKey: key.publicKey });
  showStatus(result.status === "active" ? "Seat taken; the match has started." : "Seat taken.");
  location.assign(`/match/${encodeURIComponent(matchId)}`);
}

async function main() {
  const saved = profile();
  $("name").value = saved.name;
  $("email").value = saved.email;
  $("claim-form").addEventListener("submit", busy($("claim"), claim));
  if (!token()) showError("This link has no invite token (the part after #token=). Use the whole link from the invitation.");
  try {
    const meta = await api("GET", matchPath);
    document.body.dataset.game = meta.game;
    // the game's title is nicer than its id; without it the id will do
    const game = await api("GET", `/v1/games/${encodeURIComponent(meta.game)}`).catch(() => null);
    showMatch(meta, game && game.title);
    const key = await currentKey();
    if (key && mySeats(meta, key.publicKey).includes(seat)) {
      showStatus("This browser's key already holds this seat.");
      $("match-players").after(el("p", {}, el("a", { href: `/match/${encodeURIComponent(matchId)}`, id: "go-match" }, "Go to the match")));
    }
  } catch (err) {
    showError(err);
  }
  document.body.dataset.ready = "true";
}

main();
