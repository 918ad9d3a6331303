"""Use cases: create a match, claim a seat, submit a move, read views and the log.

No Flask here: the API and the workers both call these functions. Every refusal raises a
:class:`service.play.errors.ServiceError` before anything is written, so a refused request never
changes stored state. Every change others must hear of (a creation with its invitations, a start,
a move, an abort) is committed by one atomic store call together with its outbox entry; nothing
is sent from here: the dispatcher (service.delivery.outbox) reads the outbox and fans out.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from service import bots, games
from service.clock import parse_iso
from service.games.base import Game, GameError
from service.games.editions import SHIPPED, Edition
from service.play import claims, clocks, editions, key_attach, moves, records, seat_keys, timeouts
from service.play.envelopes import check_envelope
from service.play.errors import BadRequest, Conflict, Forbidden, NotFound, ServiceError
from service.play.people import check_name, normal_email
from service.play.setup_check import checked_options
from service.play.state_cache import MISSING, StateCache
from service.play.throttle import InviteLimits
from service.proof import delegation, fairness, signing
from service.proof import standing as standings
from service.proof import time_control as tcs
from service.proof.chain import (
    RECORD_FORMAT,
    chain_genesis,
    visible_events,
)

if TYPE_CHECKING:  # the store is injected; importing it here would drag Redis into the verifier
    from service.storage.store import Announcement, Store



class _Moved(Conflict):
    """The stored state is past the ply of the meta a request read: the request is stale."""

    def __init__(self, match_id: str, ply: int, current: int) -> None:
        super().__init__("stale-ply", f"the match {match_id} moved on from ply {ply} to ply {current} while this "
                                      "request was read; base the move on the current ply", current_ply=current)


def utcnow() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


log = logging.getLogger("portolan.matches")
ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"  # no 0/o, 1/l: ids get read aloud and typed


def new_match_id() -> str:
    """12 characters, about 60 bits: safe in URLs and on a command line (never starts with a
    dash, which a CLI would take for an option)."""
    return "".join(secrets.choice(ID_ALPHABET) for _ in range(12))


def _token_hash(token: str) -> str:
    return claims.token_hash(token)


@dataclass
class Matches:
    """The use cases over one store. ``server_key`` signs receipts and derives bot keys."""

    store: Store
    server_key: str
    now: Callable[[], str] = utcnow
    public_url: str = "http://127.0.0.1:8000"
    invite_limits: InviteLimits = field(default_factory=InviteLimits)
    pauses: clocks.Pauses | None = None
    """Where players' vacations come from (None: nobody ever takes one)."""
    stand_in: str = ""
    """The bot kind that plays for late and departed players ("": the strongest the game has)."""
    _states: StateCache = field(default_factory=StateCache)
    _secrets: dict[str, bytes] = field(default_factory=dict)

    # -- identities ------------------------------------------------------------------------

    def moment(self) -> datetime:
        """The time now by the service's clock (:attr:`now`, which PORTOLAN_CLOCK sets)."""
        return parse_iso(self.now())

    def stand_in_of(self, game_id: str) -> str:
        """The bot kind that stands in for a late or departed player of a ``game_id`` match."""
        return self.stand_in if self.stand_in in bots.kinds(game_id) else bots.strongest(game_id)

    def clock_private_key(self, match_id: str) -> str:
        """The server-held key the match clock signs timeouts and stand-in moves with (derived,
        never stored; its public half is in the record header as ``clock_key``)."""
        return signing.private_key_from_seed(signing.b64d(self.server_key) + f"clock:{match_id}".encode())

    @property
    def server_public_key(self) -> str:
        return signing.public_key_of(self.server_key)

    def bot_private_key(self, match_id: str, seat: int) -> str:
        """The server-held key a bot seat signs with (derived, never stored)."""
        return signing.private_key_from_seed(signing.b64d(self.server_key) + f"bot:{match_id}:{seat}".encode())

    def bot_rng_key(self, match_id: str) -> bytes:
        return hashlib.sha256(signing.b64d(self.server_key) + f"bot-choices:{match_id}".encode()).digest()

    def mail_private_key(self, match_id: str, seat: int, generation: int) -> str:
        """The server-held key that signs a delegated seat's mail moves (derived, never stored)."""
        return delegation.mail_private_key(self.server_key, match_id, seat, generation)

    def mail_public_key(self, match_id: str, seat: int, generation: int) -> str:
        """The public half of :meth:`mail_private_key`: what a seat's key delegates to."""
        return seat_keys.mail_key_of(self, match_id, seat, generation)

    def delegation_body(self, match_id: str, seat: int, mail_key: str) -> dict[str, Any]:
        """What the seat's key signs to let replies by mail move for it with ``mail_key``."""
        return delegation.delegation_body(match_id, seat, mail_key)

    def mail_ready(self, meta: Mapping[str, Any], seat: int) -> str | None:
        """None when the seat may move by mail now, else the sentence saying why not."""
        return seat_keys.mail_ready(meta, seat)

    def submit_by_mail(self, match_id: str, seat: int, ply: int, actions: list[dict[str, Any]], *,
                       message_digest: str) -> dict[str, Any]:
        """A move from an authenticated reply, signed with the seat's mail (or custodial) key
        and logged ``by: "email"`` (see :func:`service.play.seat_keys.submit_by_mail`)."""
        return seat_keys.submit_by_mail(self, match_id, seat, ply, actions, message_digest=message_digest)

    def join_by_mail(self, match_id: str, seat: int, name: str, email: str) -> dict[str, Any]:
        """Claim an invited seat for a keyless player who replied ``join`` (custodial seat)."""
        return seat_keys.join_by_mail(self, match_id, seat, name, email)

    def attach_token(self, match_id: str, seat: int) -> str:
        """A one-time token (a day) to attach a key to a custodial seat (mailed on ``key``)."""
        return key_attach.attach_token(self, match_id, seat)

    # -- lookup ------------------------------------------------------------------------------

    def game_of(self, meta: Mapping[str, Any]) -> Game[Any]:
        """The game of a match, playing with the numbers of the edition the match pinned."""
        game = games.get(meta["game"])
        if game is None:  # a match of a game this build no longer has
            raise NotFound("unknown-game", f"this server does not host the game {meta['game']!r}")
        return editions.installed().game(game, meta.get("edition"))

    def edition_of(self, meta: Mapping[str, Any]) -> Edition:
        """The edition a match pinned (:func:`service.play.editions.Shelf.pinned`)."""
        game = games.get(meta["game"])
        if game is None:
            raise NotFound("unknown-game", f"this server does not host the game {meta['game']!r}")
        return editions.installed().pinned(game, meta.get("edition"))

    def meta(self, match_id: str) -> dict[str, Any]:
        meta = self.store.meta(match_id) if isinstance(match_id, str) and match_id.isascii() else None
        if meta is None:
            raise NotFound("unknown-match", f"there is no match {match_id!r}")
        return meta

    def _meta_for_move(self, match_id: str) -> dict[str, Any]:
        """:meth:`meta`, with the state at its ply read in the same round trip and kept in the
        state cache: a move that reaches a process which did not make the match's last ply
        (another API process did) needs both, and read one after the other they cost a round
        trip more. The state is parsed only when the cache lacks that ply."""
        if not (isinstance(match_id, str) and match_id.isascii()):
            return self.meta(match_id)
        meta, blob = self.store.meta_and_state(match_id)
        if meta is None:
            raise NotFound("unknown-match", f"there is no match {match_id!r}")
        ply = meta["ply"]
        if blob is not None and blob["ply"] == ply and self._states.state_at(match_id, ply) is MISSING:
            self._states.remember(match_id, ply, self.game_of(meta).load(blob["state"]))
        return meta

    # -- create, claim, abort -----------------------------------------------------------------

    def create(self, game_id: str, options: Mapping[str, Any] | None, seats: list[dict[str, Any]], *,
               creator_key: str, creator_name: str = "", time_control: Any = None,
               timeout_policy: Any = None, edition: str | None = None) -> dict[str, Any]:
        """Create a match for the creator whose (verified) public key is ``creator_key``: that
        key alone may abort it, and the invitation quotas are counted against it. ``seats`` lists
        each seat as ``{"invite": email}`` or ``{"bot": "random"}``. Returns the id, the invite
        tokens and the seed commitment. Starts the match at once when every seat is a bot.
        ``creator_name`` (optional, checked like a player's name) is who the mails say invited.
        ``time_control`` and ``timeout_policy`` (docs/clock.md) default to no clock and the stand-in.
        ``edition`` (docs/editions.md) chooses the game's data; the match pins it for good."""
        if not signing.valid_public_key(creator_key):
            raise BadRequest("bad-public-key", "the creator key must be a base64url Ed25519 public key (32 bytes)")
        game = games.get(game_id)
        if game is None:
            raise NotFound("unknown-game", f"there is no game {game_id!r}; see GET /v1/games")
        if len(seats) not in game.players:
            raise BadRequest(
                "bad-player-count",
                f"{game.title} is for {game.players.start} to {game.players.stop - 1} players, not {len(seats)}",
            )
        pinned = editions.installed().choose(game, edition)
        opts = checked_options(game, options, len(seats))
        try:
            control = tcs.check_time_control(time_control)
        except tcs.TimeControlError as exc:
            raise BadRequest("bad-time-control", f"time_control: {exc.message}", field=exc.field) from exc
        try:
            policy = standings.check_timeout_policy(timeout_policy)
        except tcs.TimeControlError as exc:
            raise BadRequest("bad-timeout-policy", f"timeout_policy: {exc.message}", field=exc.field) from exc
        creator_name = check_name(creator_name) if creator_name else ""
        seats = [{"invite": normal_email(s["invite"], f"seat {i}: invite")} if "invite" in s else s
                 for i, s in enumerate(seats)]
        match_id = new_match_id()
        seed = fairness.new_seed()
        invites: dict[str, str] = {}
        seat_rows: list[dict[str, Any]] = []
        for i, spec in enumerate(seats):
            if "bot" in spec:
                if spec["bot"] not in bots.kinds(game.id):
                    raise BadRequest("unknown-bot", f"seat {i}: {game.title} has no bot called {spec['bot']!r} "
                                     f"(its bots: {', '.join(bots.kinds(game.id))}; see GET /v1/games/{game.id})")
                pub = signing.public_key_of(self.bot_private_key(match_id, i))
                seat_rows.append({"seat": i, "kind": "bot", "bot": spec["bot"], "name": f"{spec['bot']} bot",
                                  "public_key": pub, "nonce": "", "claimed": True, "email": ""})
            else:
                token = secrets.token_hex(16)
                invites[str(i)] = token
                seat_rows.append({"seat": i, "kind": "human", "name": "", "public_key": "", "nonce": "",
                                  "claimed": False, "email": spec.get("invite", ""), "invite_hash": _token_hash(token),
                                  "mail_key": "", "mail_generation": 0, "mail_delegation": ""})
        # the last refusal, after every other check: a refused creation stores nothing and sends nothing
        self.invite_limits.take(self.store, creator_key, (r["email"] for r in seat_rows if r["kind"] == "human"))
        created = self.now()
        meta = {
            "id": match_id, "game": game.id, "options": opts, "players": len(seats), "status": "waiting",
            "ply": 0, "created_at": created, "updated_at": created, "commitment": fairness.commitment(seed),
            "creator_key": creator_key, "creator_name": creator_name, "seats": seat_rows, "active": [], "head": "",
            "outcome": None, "setup_events": [], "format": RECORD_FORMAT,
            "time_control": control, "timeout_policy": policy,
            "clock_key": signing.public_key_of(self.clock_private_key(match_id)),
            "edition": pinned.pin(),
        }
        # the invitations go out from the outbox entry written with the match: both or neither
        invited = {k: {"email": seat_rows[int(k)]["email"], "token": t} for k, t in invites.items()
                   if seat_rows[int(k)]["email"]}
        self.store.create(meta, seed, datetime.now(UTC).timestamp(), moves.announcement("created", {"invites": invited}))
        if not invites:
            self._start(match_id)
        return {"id": match_id, "game": game.id, "invites": invites, "creator_key": creator_key,
                "commitment": meta["commitment"], "status": self.meta(match_id)["status"]}

    def claim(self, match_id: str, seat: int, token: str, public_key: str, name: str, email: str,
              nonce: str = "", mail_delegation: str = "") -> dict[str, Any]:
        """Claim an invited seat with its invite token (see :func:`service.play.claims.claim`)."""
        return claims.claim(self, match_id, seat, token, public_key, name, email, nonce, mail_delegation)

    def claim_seat(self, match_id: str, seat: int, public_key: str, name: str, email: str, *, token: str | None,
                   nonce: str = "", custody: str = "player", mail: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The claim itself (see :func:`service.play.claims.claim_seat`)."""
        return claims.claim_seat(self, match_id, seat, public_key, name, email, token=token, nonce=nonce,
                                 custody=custody, mail=mail)

    def finish_start(self, match_id: str) -> bool:
        """Start a waiting match whose seats are all claimed (the worker's sweep, after a start
        that failed halfway); False when it is not such a match, or something else started or
        aborted it first."""
        meta = self.meta(match_id)
        if meta["status"] != "waiting" or not all(r["claimed"] for r in meta["seats"]):
            return False
        try:
            return bool(self._start(match_id)["status"] == "active")
        except Conflict:  # started or aborted meanwhile
            return False

    def _start(self, match_id: str) -> dict[str, Any]:
        """Run setup with the match's Rng once every seat is claimed. Claimed seats never
        change again, so the secret computed here is the one the transaction commits to.

        The start is one MULTI (status, active seats, chain head and the state together), so a
        failure anywhere leaves the match waiting with every seat claimed, never half-started;
        a retry of the last claim (same token and key, see :meth:`claim`) runs the start again."""
        meta = self.meta(match_id)
        game = self.game_of(meta)
        secret = fairness.match_secret(self.store.seed(match_id), match_id, records.genesis_seats(meta["seats"]))
        try:
            state, events = game.setup(meta["players"], meta["options"], fairness.setup_rng(secret))
        except (GameError, ValueError) as exc:
            # Only a match stored before its options were checked at creation can get here
            # (setup_check.checked_options refuses such options now). It can never start, so it
            # is aborted for everyone to see rather than left waiting with no open seat.
            log.error("match %s cannot be set up with its stored options %r: %s", match_id, meta["options"], exc)
            return self.store.update_meta(match_id, self._abort_unstartable, announce=_announce_abort)
        active = game.active_seats(state)
        started = self.now()
        control = clocks.time_control_of(meta)
        fields = {"status": "active", "active": active, "active_since": {str(s): 0 for s in active},
                  "setup_events": events, "started_at": started, "updated_at": started,
                  "standing": standings.Standing.start([r["kind"] for r in meta["seats"]]).to_json(),
                  "clocks": [c.to_json() for c in tcs.start_clocks(control, meta["players"], parse_iso(started), active)]}
        fields["head"] = chain_genesis(self.header({**meta, **fields}, events))

        def change(current: dict[str, Any]) -> dict[str, Any]:
            if current["status"] != "waiting":
                raise Conflict("match-not-waiting", f"match {match_id} is {current['status']}")
            return fields

        meta = self.store.update_meta(match_id, change, state={"ply": 0, "state": game.dump(state)},
                                      announce=lambda _b, a: moves.announcement("started", {"after": a["active"]}))
        self._states.remember(match_id, 0, state, meta)
        return meta

    def _abort_unstartable(self, current: dict[str, Any]) -> dict[str, Any]:
        """The meta change that aborts a waiting match which can never be set up."""
        if current["status"] != "waiting":  # started or aborted meanwhile: leave it be
            return {"updated_at": current["updated_at"]}
        return {"status": "aborted", "updated_at": self.now()}

    def abort(self, match_id: str, signer_key: str) -> dict[str, Any]:
        """The creator cancels a match that has not started; ``signer_key`` is the verified key
        that signed the request."""

        def change(meta: dict[str, Any]) -> dict[str, Any]:
            # matches made before creation was signed have no creator key: nobody can abort those
            if not meta.get("creator_key") or meta["creator_key"] != signer_key:
                raise Forbidden("not-the-creator", "only the match's creator may abort it: sign the request with "
                                "the key that created the match")
            if meta["status"] != "waiting":
                raise Conflict("match-not-waiting", f"only a waiting match can be aborted; this one is {meta['status']}")
            return {"status": "aborted", "updated_at": self.now()}

        self.meta(match_id)
        meta = self.store.update_meta(match_id, change, announce=_announce_abort)
        return {"id": match_id, "status": meta["status"]}

    # -- reading -----------------------------------------------------------------------------

    def header(self, meta: Mapping[str, Any], setup_events: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """The public header of the record; its digest starts the hash chain."""
        return records.header(meta, self.server_public_key, self._secret(meta["id"], meta), setup_events)

    def _state(self, match_id: str, meta: Mapping[str, Any]) -> Any:
        """The rules state at exactly ``meta``'s ply, parsed once per process and ply.

        A move may land between a request's read of the meta and its read of the state, so the
        stored state can be newer than the meta. Judging the request against that newer state
        would answer a stale move with the rules' 400/422 instead of 409, so a mismatch raises
        409 ``stale-ply`` (:class:`_Moved`, with the stored ply); readers that only want the
        latest view catch it and read the meta again (:meth:`_fresh`)."""
        ply = meta["ply"]
        cached = self._states.state_at(match_id, ply)
        if cached is not MISSING:
            return cached
        blob = self.store.state(match_id)
        if blob is None:
            raise Conflict("match-not-started", f"match {match_id} has not started: seats are still open")
        state = self.game_of(meta).load(blob["state"])
        # keep the meta only when both describe the same ply
        self._states.remember(match_id, blob["ply"], state, meta if blob["ply"] == ply else None)
        if blob["ply"] != ply:
            raise _Moved(match_id, ply, blob["ply"])
        return state

    def _fresh(self, match_id: str, meta: Mapping[str, Any]) -> tuple[Mapping[str, Any], Any]:
        """A meta and the state at its ply, reading the meta again while moves land in between."""
        for _ in range(5):
            try:
                return meta, self._state(match_id, meta)
            except _Moved:
                meta = self.meta(match_id)
        return meta, self._state(match_id, meta)  # five moves in a row overtook us: let it surface

    def _secret(self, match_id: str, meta: Mapping[str, Any]) -> bytes:
        secret = self._secrets.get(match_id)
        if secret is None:
            secret = fairness.match_secret(self.store.seed(match_id), match_id, records.genesis_seats(meta["seats"]))
            if len(self._secrets) >= 4096:  # a bound, not an LRU: recomputing costs one GET
                self._secrets.clear()
            self._secrets[match_id] = secret
        return secret

    def public_meta(self, meta: Mapping[str, Any]) -> dict[str, Any]:
        """What anyone may know about a match (no emails, no token hashes)."""
        return {
            "id": meta["id"],
            "game": meta["game"],
            "options": meta["options"],
            "status": meta["status"],
            "ply": meta["ply"],
            "players": meta["players"],
            "created_at": meta["created_at"],
            "updated_at": meta["updated_at"],
            "commitment": meta["commitment"],
            "creator_key": meta.get("creator_key") or None,
            "head": meta["head"] or None,
            "active_seats": meta["active"],
            "open_seats": [s["seat"] for s in meta["seats"] if not s["claimed"]],
            "seats": [{"seat": s["seat"], "kind": s["kind"], "name": s["name"], "claimed": s["claimed"],
                       "public_key": s["public_key"] or None} for s in meta["seats"]],
            "outcome": meta.get("outcome"),
            "clock": clocks.clock_view(meta, self.moment(), self.pauses_of(meta)),
            "standing": clocks.standing_of(meta).to_json(),
            "edition": dict(meta.get("edition") or {"id": SHIPPED, "title": "shipped data"}),
        }

    def pauses_of(self, meta: Mapping[str, Any]) -> clocks.PausesOf:
        """Each seat's pauses: its player's vacations (read only for a timed match's human seats)."""
        port = self.pauses
        rows = meta["seats"]

        def of(seat: int) -> list[tcs.Pause]:
            key = rows[seat]["public_key"] if seat < len(rows) and rows[seat]["kind"] == "human" else ""
            return port.pauses(key) if port is not None and key else []

        return of

    def clock_status(self, meta: Mapping[str, Any], now: datetime | None = None) -> list[clocks.SeatClockStatus]:
        """Every seat's clock (deadline, late, reminders) at ``now`` (default: the clock now)."""
        return clocks.clock_status(meta, self.moment() if now is None else now, self.pauses_of(meta))

    def clock_view(self, meta: Mapping[str, Any], now: datetime | None = None) -> dict[str, Any]:
        """The ``clock`` block of the match views at ``now`` (default: the clock now)."""
        return clocks.clock_view(meta, self.moment() if now is None else now, self.pauses_of(meta))

    def timeout(self, match_id: str, seat: int) -> dict[str, Any] | None:
        """Commit the seat's timeout if its policy is due (see :func:`service.play.timeouts.timeout`)."""
        return timeouts.timeout(self, match_id, seat)

    def server_move(self, match_id: str, seat: int, ply: int) -> dict[str, Any] | None:
        """The server's move for a seat it plays (see :func:`service.play.timeouts.server_move`)."""
        return timeouts.server_move(self, match_id, seat, ply)

    def view(self, match_id: str, seat: int | None = None, meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The spectator view (``seat=None``) or a seat's private view with its legal actions.
        Seat views must be authenticated by the caller (see :meth:`authenticate`). A caller that
        has just read the match's meta passes it, which saves reading it again (and keeps the
        view and, say, an ETag taken from that meta at the same ply)."""
        return self._view_of(self.meta(match_id) if meta is None else meta, seat)

    def _view_of(self, meta: Mapping[str, Any], seat: int | None, state: Any = None) -> dict[str, Any]:
        """:meth:`view` over a meta the caller already holds (and the state at its ply, if known)."""
        out = self.public_meta(meta)
        if meta["status"] == "waiting" or not meta.get("head"):  # no board before the start
            out["board"] = None
            return out
        game = self.game_of(meta)
        if state is None:
            fresh, state = self._fresh(meta["id"], meta)
            if fresh is not meta:  # a move landed since the caller read the meta: show that ply whole
                meta, out = fresh, self.public_meta(fresh)
        out["board"] = game.view(state, seat)
        # the count only: the paths are the catalog's (GET /v1/games/{game}), not every view's bytes
        out["edition"]["provisional_values"] = len(game.provisional())
        note = editions.footnote(out["edition"], game)
        out["text"] = game.render(out["board"]) + ("\n\n" + "\n".join(note) if note else "")
        if seat is not None:
            out["seat"] = seat
            legal = game.legal_actions(state, seat) if seat in meta["active"] else []
            out["legal_actions"] = [{"action": a, "text": game.label_action(state, seat, a)} for a in legal]
            out["match_actions"] = timeouts.match_actions(meta, seat)
        return out

    def spend_request_nonce(self, public_key: str, nonce: str, ttl: int) -> bool:
        """Use up a signed request's nonce: True the first time within ``ttl`` seconds, False
        for a replay (the port the API's signature check reaches the store through)."""
        return self.store.spend_request_nonce(public_key, nonce, ttl)

    def spend_request_nonce_reading_meta(self, public_key: str, nonce: str, ttl: int,
                                         match_id: str) -> tuple[bool, dict[str, Any] | None]:
        """:meth:`spend_request_nonce`, and the match's meta (None when there is no such match)
        read in the same round trip: a signed read of a match needs both (a seat's view)."""
        if not (isinstance(match_id, str) and match_id.isascii()):
            return self.spend_request_nonce(public_key, nonce, ttl), None
        return self.store.spend_request_nonce_reading_meta(public_key, nonce, ttl, match_id)

    def release_request_nonce(self, public_key: str, nonce: str) -> None:
        """Give a spent nonce back: the request that spent it was not served (storage failed)."""
        self.store.release_request_nonce(public_key, nonce)

    def authenticate(self, match_id: str, seat: int, public_key: str,
                     meta: dict[str, Any] | None = None) -> dict[str, Any]:
        """Check that ``public_key`` holds ``seat`` of the match (signature already verified);
        returns the meta, read here unless the caller read it (``meta``)."""
        if meta is None:
            meta = self.meta(match_id)
        if not 0 <= seat < meta["players"]:
            raise NotFound("unknown-seat", f"match {match_id} has no seat {seat}")
        if meta["seats"][seat]["public_key"] != public_key:
            raise Forbidden("not-your-seat", f"that key does not hold seat {seat} of match {match_id}")
        return meta

    def log(self, match_id: str, start: int = 0, viewer: int | None = None) -> list[dict[str, Any]]:
        """Accepted moves from ply ``start`` on, with signatures, receipts and visible events."""
        self.meta(match_id)
        entries = self.store.log(match_id, max(start, 0), -1)
        for e in entries:
            e["events"] = visible_events(e["events"], viewer)
        return entries

    # -- moves -------------------------------------------------------------------------------

    def submit(self, match_id: str, envelope: Mapping[str, Any], signature: str, by: str = "human",
               caller_key: str | None = None, with_view: bool = True) -> dict[str, Any]:
        """Verify, apply and commit one signed move (DESIGN §4). Idempotent for an envelope
        already accepted: the original result comes back with ``replayed: true``.

        Who sees what: a fresh, accepted move answers with the seat's private view, legal
        actions and hidden events, because only the holder of the seat's key can have made a
        new envelope at the current ply. A resubmission proves nothing (every accepted envelope
        and its signature are public in the log), so it answers with the public view and the
        public events only, unless ``caller_key`` (the key that signed the *request*, verified
        by the caller, e.g. the API's Authorization check) is the seat's own key."""
        env, raw = check_envelope(envelope)
        if env["match"] != match_id:
            raise BadRequest("match-mismatch", f"the envelope is for match {env['match']!r}, not {match_id!r}")
        if by == "email":
            raise BadRequest("bad-origin", 'moves by mail come in through submit_by_mail, which signs them with the '
                             'seat\'s mail key; submit takes envelopes signed by the seat\'s own key')
        if standings.server_signed(by):
            raise BadRequest("bad-origin", f"moves by {by!r} are the match clock's own (timeouts, stand-ins, passes); "
                             "submit takes envelopes signed by a seat's key")
        return self.submit_checked(match_id, env, raw, signature, by, None, caller_key, with_view)

    def submit_checked(self, match_id: str, env: dict[str, Any], raw: bytes, signature: str, by: str,
                       mail: seat_keys.MailProof | None, caller_key: str | None = None,
                       with_view: bool = True) -> dict[str, Any]:
        """:meth:`submit` of an envelope already checked (``raw`` is its canonical JSON). With
        ``mail`` (a move by mail) the signature must verify under the seat's mail key, or its
        custodial key, and the entry records the message digest and the delegation."""
        # A mail move is judged against a fresh meta, never the one this process left at its last
        # move: a grant, withdrawal or key change since (from any process) is in the meta only.
        held = None if mail is not None else self._states.held_meta(match_id, env["ply"])
        if held is None:
            return self._submit(match_id, env, raw, signature, by, self._meta_for_move(match_id), caller_key, mail,
                                with_view=with_view)
        try:
            # Fast path: this process made the match's current ply itself, so it skips reading
            # the meta. If another process has moved on since, the apply script's ply check
            # refuses the commit; any refusal is then decided again against a fresh read.
            return self._submit(match_id, env, raw, signature, by, held, caller_key, mail, with_view=with_view)
        except ServiceError:
            return self._submit(match_id, env, raw, signature, by, self._meta_for_move(match_id), caller_key, mail,
                                with_view=with_view)

    def _submit(self, match_id: str, env: dict[str, Any], raw: bytes, signature: str, by: str,
                meta: Mapping[str, Any], caller_key: str | None = None,
                mail: seat_keys.MailProof | None = None, clock: dict[str, Any] | None = None,
                with_view: bool = True) -> dict[str, Any]:
        """Judge and commit one checked envelope (see :func:`service.play.moves.commit`)."""
        return moves.commit(self, match_id, env, raw, signature, by, meta, caller_key, mail, clock, with_view)

    def replayed(self, match_id: str, ply: int, seat: int, proven: bool, with_view: bool = True) -> dict[str, Any]:
        """The original result of an envelope accepted at ``ply``: private to ``seat`` only when
        the caller has ``proven`` it holds the seat's key, else what anyone may see."""
        entry = self.store.log(match_id, ply, ply)[0]
        meta = self.meta(match_id)
        viewer = seat if proven else None
        answer = {"match": match_id, "seat": seat, "ply": ply + 1, "accepted_ply": ply, "replayed": True,
                  "head": entry["hash"], "receipt": entry["receipt"], "status": meta["status"],
                  "events": visible_events(entry["events"], viewer)}
        if with_view:
            answer["view"] = self._view_of(meta, viewer)
        return answer

    def sign_as_bot(self, match_id: str, seat: int, ply: int, actions: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
        """An envelope for a bot seat, signed with its server-held key."""
        env = {"match": match_id, "seat": seat, "ply": ply, "actions": actions, "nonce": f"bot-{ply}"}
        return env, signing.sign(self.bot_private_key(match_id, seat), env)

    # -- the record ----------------------------------------------------------------------------

    def record(self, match_id: str) -> dict[str, Any]:
        """The verifiable record (docs/record-format.md): header, every entry, the outcome and,
        once the match is over, the revealed seed. Hidden events are withheld until then."""
        meta = self.meta(match_id)
        if meta["status"] == "waiting" or not meta.get("head"):  # waiting, or aborted before its start
            raise Conflict("match-not-started", f"match {match_id} is {meta['status']}: there is no record yet")
        over = meta["status"] in ("finished", "aborted")  # an abort after the start reveals the seed too
        return records.record(meta, self.store.log(match_id), self.server_public_key, self._secret(match_id, meta),
                              self.store.seed(match_id) if over else None, self.edition_of(meta))


def _announce_abort(before: dict[str, Any], after: dict[str, Any]) -> Announcement | None:
    """The outbox entry of a change that may abort a waiting match (None when it did not)."""
    if before["status"] != "aborted" and after["status"] == "aborted":
        return moves.announcement("aborted", {})
    return None
