"""Prepared positions for the browser tests: a match advanced through the API to where the
browser part begins, so that a test clicks only what it is about (the spots, the buttons, the
queue sent as one move, the end screen) instead of a whole match of 900 to 1,450 plies.

The test holds every seat's key itself: it creates a match of three invited seats, claims them
with keys it made, and plays signed moves over HTTP (``service.tools.client.Client``, as the CLI
does; one request a ply while a seat takes several steps, 15 to 50 ms a ply on 2 busy cores, so a
near-end position, some 550 plies of El Capitán or 1,000 to 2,800 of Ophir, takes 10 to 40 s
instead of the 7 to 10 minutes of clicking a whole match). Then the browser players import the keys of seats 0 and 1 from
key backups (docs/web-client.md's format, as the key page writes them) and take over; seat 2
stays with the test, which moves for it from Python.

Chance stays the server's (each match has its own secret seed), so a position is not the same
twice: what is prepared is a kind of position ("phase 3 is ending", "the temple lacks one metal"),
not a fixed one, and the steps are chosen by a seeded stream among what the server offers.
"""

from __future__ import annotations

import base64
import json
import os
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC

from service.proof import signing
from service.tools.client import Client

PASSPHRASE = "harbour lights at dusk"
BROWSER_SEATS = (0, 1)
"""The seats the browser players take over; every other seat stays with the test."""
NAMES = ("Ana Lima", "Zoë Brontë", "Cid")
MAX_PLIES = 6000
"""A bound on the plies of a preparation, far above any game's length."""


def b64e(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def backup_of(private_key: str, path: Path, passphrase: str = PASSPHRASE) -> Path:
    """A ``portolan-key-backup/1`` file of a CLI private key, as the key page writes them."""
    seed = signing.b64d(private_key)
    pkcs8 = Ed25519PrivateKey.from_private_bytes(seed).private_bytes(
        serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    salt, iv = os.urandom(16), os.urandom(12)
    key = PBKDF2HMAC(hashes.SHA256(), 32, salt, 600_000).derive(passphrase.encode())
    path.write_text(json.dumps({
        "format": "portolan-key-backup/1", "public_key": signing.public_key_of(private_key),
        "kdf": {"name": "PBKDF2", "hash": "SHA-256", "iterations": 600_000, "salt": b64e(salt)},
        "cipher": {"name": "AES-GCM", "iv": b64e(iv)},
        "wrapped": b64e(AESGCM(key).encrypt(iv, pkcs8, None)), "created": "2026-01-01T00:00:00Z"}))
    return path


def import_key(page: Any, backup: Path, passphrase: str = PASSPHRASE) -> None:
    """Make the key in ``backup`` the browser's key on /keys, as a player does."""
    page.goto("/keys")
    page.wait_for_selector("body[data-ready=true]", state="attached")
    page.set_input_files("input#import-file", str(backup))
    page.fill("input#import-passphrase", passphrase)
    page.click("button#import")
    public = json.loads(backup.read_text())["public_key"]
    page.wait_for_function("(key) => document.querySelector('#public-key').dataset.publicKey === key", arg=public)


@dataclass(frozen=True)
class Plan:
    """How a game is steered toward its end: the action types that bring the end nearer, tried first
    ``share`` of the time (by the test's moves and by the finishing clicker), and what a position
    near the end looks like on the public board."""

    prefer: tuple[str, ...]
    share: float
    near_end: Callable[[Mapping[str, Any]], bool]
    hand_over: Callable[[Mapping[str, Any], int, set[str]], bool] = lambda board, seat, offered: True
    """Near the end, whether to hand the position to the browser seat ``seat`` to move, given the
    action types it is offered: when it may make the step that ends the game (or starts its last
    round), so that the end is a click or a few away. Until then the test moves for it too."""


def _ophir_near_end(board: Mapping[str, Any]) -> bool:
    # the game ends when the temple is complete (rule §8 A) or the market finds no card (rule §8 B)
    return bool(board["temple"]["metals_to_finish"] <= 1
                or (board["phase"] == "play" and board["market"]["face_down"] == 0))


def _el_capitan_supply(board: Mapping[str, Any], seat: int) -> int:
    """The pieces a seat has still to place (rule §6.1: the phase ends with the round in which a
    player placed the last)."""
    return int(sum(board["players"][seat]["supply"].values()))


def _el_capitan_near_end(board: Mapping[str, Any]) -> bool:
    return board["phase"] == 3 and (bool(board["phase_ending"]) or
                                    min(_el_capitan_supply(board, s) for s in range(len(board["players"]))) <= 1)


def _el_capitan_hand_over(board: Mapping[str, Any], seat: int, offered: set[str]) -> bool:
    # the last round is on, or this seat may place its last piece and so start it
    return bool(board["phase_ending"]) or (_el_capitan_supply(board, seat) == 1
                                           and bool(offered & {"build-warehouse", "build-fortress"}))


PLANS: dict[str, Plan] = {
    # El Capitán ends with the third phase (rule §4), which ends with the round in which a player
    # placed every piece (rule §6.1): building brings it nearer
    "el-capitan": Plan(("build-warehouse", "build-fortress", "sail", "buy-card", "end-turn"), 0.5,
                       _el_capitan_near_end, _el_capitan_hand_over),
    # donations fill the temple (a donation of its last metal ends the game); trades shift the
    # market toward its end; both need goods and metal
    "ophir": Plan(("donate-metal", "buy-metal", "trade", "donate-goods", "gather", "anchor", "move"), 0.9,
                  _ophir_near_end, lambda board, seat, offered: "donate-metal" in offered),
}
NO_PLAN = Plan((), 0.0, lambda board: False)
"""A game with no plan: uniformly random steps."""


@dataclass
class Prepared:
    """A match the test advanced: the API, its id, every seat's key and the stream its choices come from."""

    api: Client
    match_id: str
    game: str
    keys: dict[int, str]
    rng: random.Random
    plies_by_python: int = 0
    names: tuple[str, ...] = field(default=NAMES)

    def public(self) -> dict[str, Any]:
        return self.api.show(self.match_id)

    def step(self, seat: int, view: Mapping[str, Any], prefer: bool = True) -> dict[str, Any]:
        """One step for ``seat`` at the view's ply, chosen among the legal actions the server offers
        it (undo never: going back is no way forward); answers the mover's view after the step.

        ``view`` is the public view, or the seat view a move answered with: when that is this
        seat's, its legal actions are used as they are (one request a ply instead of three while a
        seat takes several steps)."""
        offered = view["legal_actions"] if view.get("seat") == seat and "legal_actions" in view else \
            self.api.view(self.match_id, seat, self.keys[seat])["legal_actions"]
        legal = [a["action"] for a in offered if a["action"]["type"] != "undo"]
        public = view
        assert legal, f"seat {seat} must act at ply {public['ply']} and has no legal action"
        plan = PLANS.get(self.game, NO_PLAN)
        action = None
        if prefer and self.rng.random() < plan.share:
            action = next((self.rng.choice(of) for kind in plan.prefer
                           if (of := [a for a in legal if a["type"] == kind])), None)
        answer = self.api.move(self.match_id, seat, self.keys[seat], [action or self.rng.choice(legal)],
                               ply=int(public["ply"]))
        self.plies_by_python += 1
        return dict(answer["view"])


def new_match(base_url: str, game: str, seed: int) -> Prepared:
    """A started match of three invited seats, each claimed with a key the test made."""
    api = Client(base_url)
    creator = signing.generate_private_key()
    seats = [{"invite": f"seat{s}@example.org"} for s in range(len(NAMES))]
    made = api.create(game, seats, private_key=creator, creator_name=NAMES[0])
    keys = {s: signing.generate_private_key() for s in range(len(NAMES))}
    for s, key in keys.items():
        api.claim(made["id"], s, made["invites"][str(s)], key, NAMES[s])
    return Prepared(api, made["id"], game, keys, random.Random(seed))


def prepare(base_url: str, game: str, seed: int, ready: Callable[[Mapping[str, Any]], bool],
            hand_over: Callable[[Mapping[str, Any], int, set[str]], bool] | None = None,
            attempts: int = 6) -> tuple[Prepared, dict[str, Any]]:
    """A match advanced by the test until ``ready(public view)`` holds with a browser seat to move
    (and, given ``hand_over``, it says yes for that seat); answers it and that view. Steps
    toward the end are preferred (:data:`PLANS`); once ``ready`` holds, the seats the browser does
    not take play without that preference, so that they do not end the match before the browser
    gets it. Should the match end all the same (chance is the server's), a new one is prepared, up
    to ``attempts`` times (six: CI once saw Ophir's market run out before a browser seat could
    donate, three times in a row; an attempt that ends costs a few seconds of API calls)."""
    for attempt in range(attempts):
        prepared = new_match(base_url, game, seed * 100 + attempt)
        public = prepared.public()
        for _ in range(MAX_PLIES):
            if public["status"] != "active":
                break
            seat = int(public["active_seats"][0])
            close = ready(public)
            if close and seat in BROWSER_SEATS:
                if hand_over is None:
                    return prepared, public
                seat_view = prepared.api.view(prepared.match_id, seat, prepared.keys[seat])
                if hand_over(seat_view["board"], seat, {a["action"]["type"] for a in seat_view["legal_actions"]}):
                    return prepared, public
                public = prepared.step(seat, seat_view, prefer=True)  # a browser seat heads for the end
                continue
            public = prepared.step(seat, public, prefer=not close)
        else:
            raise AssertionError(f"{game}: no position ready within {MAX_PLIES} plies")
    raise AssertionError(f"{game}: the match ended before a position was ready, {attempts} times")


def take_over(prepared: Prepared, new_player: Callable[[], Any], folder: Path) -> dict[int, Any]:
    """A browser player for each of :data:`BROWSER_SEATS`: a fresh context that imports the seat's key
    from a backup file and opens the match page; answers the pages by seat."""
    pages: dict[int, Any] = {}
    for seat in BROWSER_SEATS:
        page = new_player()
        import_key(page, backup_of(prepared.keys[seat], folder / f"seat{seat}.json"))
        page.goto(f"/match/{prepared.match_id}")
        page.wait_for_selector("#match-status[data-status=active]")
        pages[seat] = page
    return pages
