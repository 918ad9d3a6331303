"""A match's life before play: created with its invitations, started once every seat is claimed,
or aborted by its creator while it waits.

Every refusal raises a :class:`service.play.errors.ServiceError` before anything is written, so a
refused request never changes stored state. A creation with its invitations and a start are each
committed by one atomic store call together with their outbox entry; nothing is sent from here:
the dispatcher (service.delivery.outbox) reads the outbox and fans out.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from service import bots, games
from service.clock import parse_iso
from service.games.base import GameError
from service.i18n import phrase
from service.play import editions, records
from service.play.clock import clocks
from service.play.errors import BadRequest, Conflict, Forbidden, NotFound
from service.play.moves.commit import announcement
from service.play.seats.people import check_name, normal_email
from service.play.seats.setup_check import checked_options
from service.play.views.match import header
from service.proof import fairness, signing
from service.proof import standing as standings
from service.proof import time_control as tcs
from service.proof.chain import RECORD_FORMAT, chain_genesis
from service.proof.match_record import MatchMeta, SeatRow

if TYPE_CHECKING:
    from service.play.context import MatchContext
    from service.storage.store import Announcement

log = logging.getLogger("portolan.matches")
ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"  # no 0/o, 1/l: ids get read aloud and typed


def token_hash(token: str) -> str:
    """How an invite token is stored: its SHA-256 (the token itself goes only to the invitee)."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_match_id() -> str:
    """12 characters, about 60 bits: safe in URLs and on a command line (never starts with a
    dash, which a CLI would take for an option)."""
    return "".join(secrets.choice(ID_ALPHABET) for _ in range(12))


def create(ctx: MatchContext, game_id: str, options: Mapping[str, Any] | None, seats: list[dict[str, Any]], *,
           creator_key: str, creator_name: str = "", time_control: Any = None,
           timeout_policy: Any = None, edition: str | None = None, client: str = "",
           language: str = "en") -> dict[str, Any]:
    """Create a match for the creator whose (verified) public key is ``creator_key``: that
    key alone may abort it, and the invitation quotas are counted against it and against
    ``client``, the request's client address (service.play.throttle.client_network; "" when no
    request made it), which also holds a place for a match of bots only (``BotLimits``). ``seats`` lists
    each seat as ``{"invite": email}``, ``{"invite": email, "mine": True}`` (the creator takes
    it: its token comes back to claim it with, and no invitation is mailed) or ``{"bot": "random"}``. Returns the id, the invite
    tokens and the seed commitment. Starts the match at once when every seat is a bot.
    ``creator_name`` (optional, checked like a player's name) is who the mails say invited.
    ``time_control`` and ``timeout_policy`` (docs/clock.md) default to no clock and the stand-in.
    ``edition`` (docs/editions.md) chooses the game's data; the match pins it for good. ``language``
    (the creator's request's, a code of service.i18n) is the invitations' language: each is written in
    it unless its address chose one (issue 29)."""
    if not signing.valid_public_key(creator_key):
        raise BadRequest("bad-public-key", phrase("the creator key must be a base64url Ed25519 public key (32 bytes)"))
    game = games.get(game_id)
    if game is None:
        raise NotFound("unknown-game", phrase("there is no game {game_id!r}; see GET /v1/games", game_id=game_id))
    if len(seats) not in game.players:
        raise BadRequest(
            "bad-player-count",
            phrase("{title} is for {least} to {most} players, not {n}", title=game.title, least=game.players.start, most=game.players.stop - 1, n=len(seats)),
        )
    pinned = editions.installed().choose(game, edition)
    opts = checked_options(game, options, len(seats))
    try:
        control = tcs.check_time_control(time_control)
    except tcs.TimeControlError as exc:
        raise BadRequest("bad-time-control", phrase("time_control: {message}", message=exc.message), field=exc.field) from exc
    try:
        policy = standings.check_timeout_policy(timeout_policy)
    except tcs.TimeControlError as exc:
        raise BadRequest("bad-timeout-policy", phrase("timeout_policy: {message}", message=exc.message), field=exc.field) from exc
    creator_name = check_name(creator_name) if creator_name else ""
    seats = [{**s, "invite": normal_email(s["invite"], f"seat {i}: invite")} if "invite" in s else s
             for i, s in enumerate(seats)]
    # the creator's own seats: nobody is invited to a seat its creator takes (issue 27)
    mine = {i for i, s in enumerate(seats) if "invite" in s and s.get("mine") is True}
    match_id = new_match_id()
    seed = fairness.new_seed()
    invites: dict[str, str] = {}
    seat_rows: list[SeatRow] = []
    for i, spec in enumerate(seats):
        if "bot" in spec:
            if spec["bot"] not in bots.kinds(game.id):
                raise BadRequest("unknown-bot", phrase("seat {seat}: {title} has no bot called {spec!r} (its bots: {bots}; see GET /v1/games/{game})", seat=i, title=game.title, spec=spec['bot'], bots=', '.join(bots.kinds(game.id)), game=game.id))
            pub = signing.public_key_of(ctx.bot_private_key(match_id, i))
            seat_rows.append(SeatRow(seat=i, kind="bot", bot=spec["bot"], name=f"{spec['bot']} bot", public_key=pub,
                                     nonce="", claimed=True, email=""))
        else:
            token = secrets.token_hex(16)
            invites[str(i)] = token
            seat_rows.append(SeatRow(seat=i, kind="human", name="", public_key="", nonce="", claimed=False,
                                     email=spec.get("invite", ""), invite_hash=token_hash(token), mail_key="",
                                     mail_generation=0, mail_delegation=""))
    # the last refusal, after every other check: a refused creation stores nothing and sends nothing
    # (the quotas count invitation mails: a seat its creator takes is mailed nothing)
    # (a match of bots only sends no mail but costs CPU: its place is the last check of all, and a
    # place whose match never gets stored frees itself, service.play.throttle.BotLimits.hold)
    ctx.invite_limits.take(ctx.store, creator_key, (r.email for r in seat_rows if r.is_human and r.seat not in mine),
                           client)
    if not invites:
        ctx.bot_limits.hold(ctx.store, client, match_id, datetime.now(UTC).timestamp())
    created = ctx.now()
    meta = MatchMeta(
        id=match_id, game=game.id, options=dict(opts), players=len(seats), status="waiting", ply=0,
        created_at=created, updated_at=created, commitment=fairness.commitment(seed), creator_key=creator_key,
        creator_name=creator_name, seats=tuple(seat_rows), active=(), head="", outcome=None, setup_events=(),
        format=RECORD_FORMAT, time_control=control, timeout_policy=policy,
        clock_key=signing.public_key_of(ctx.clock_private_key(match_id)), edition=dict(pinned.pin()),
        absent=frozenset({"active_since"}),  # written at the start, not at the creation
    )
    # the invitations go out from the outbox entry written with the match: both or neither
    said_in = {"language": language} if language != "en" else {}  # an English entry reads as it always did
    invited = {k: {"email": seat_rows[int(k)].email, "token": t, **said_in} for k, t in invites.items()
               if seat_rows[int(k)].email and int(k) not in mine}
    ctx.store.create(meta, seed, datetime.now(UTC).timestamp(), announcement("created", {"invites": invited}))
    if not invites:
        start(ctx, match_id)
    return {"id": match_id, "game": game.id, "invites": invites, "creator_key": creator_key,
            "commitment": meta.commitment, "status": ctx.meta(match_id).status}


def finish_start(ctx: MatchContext, match_id: str) -> bool:
    """Start a waiting match whose seats are all claimed (the worker's sweep, after a start
    that failed halfway); False when it is not such a match, or something else started or
    aborted it first."""
    meta = ctx.meta(match_id)
    if meta.status != "waiting" or not all(r.claimed for r in meta.seats):
        return False
    try:
        return start(ctx, match_id).status == "active"
    except Conflict:  # started or aborted meanwhile
        return False


def start(ctx: MatchContext, match_id: str) -> MatchMeta:
    """Run setup with the match's Rng once every seat is claimed. Claimed seats never
    change again, so the secret computed here is the one the transaction commits to.

    The start is one MULTI (status, active seats, chain head and the state together), so a
    failure anywhere leaves the match waiting with every seat claimed, never half-started;
    a retry of the last claim (same token and key, see :func:`service.play.seats.claims.claim`) runs the start again."""
    meta = ctx.meta(match_id)
    game = ctx.game_of(meta)
    secret = fairness.match_secret(ctx.store.seed(match_id), match_id, records.genesis_seats(meta.seats))
    try:
        state, events = game.setup(meta.players, meta.options, fairness.setup_rng(secret))
    except (GameError, ValueError) as exc:
        # Only a match stored before its options were checked at creation can get here
        # (setup_check.checked_options refuses such options now). It can never start, so it
        # is aborted for everyone to see rather than left waiting with no open seat.
        log.error("match %s cannot be set up with its stored options %r: %s", match_id, meta.options, exc)
        return ctx.store.update_meta(match_id, lambda current: _abort_unstartable(ctx, current),
                                     announce=_announce_abort)
    active = game.active_seats(state)
    started = ctx.now()
    control = clocks.time_control_of(meta)
    fields: dict[str, Any] = {
        "status": "active", "active": tuple(active), "active_since": {str(s): 0 for s in active},
        "setup_events": tuple(events), "started_at": started, "updated_at": started,
        "standing": standings.Standing.start([r.kind for r in meta.seats]).to_json(),
        "clocks": tuple(c.to_json() for c in tcs.start_clocks(control, meta.players, parse_iso(started), active))}
    fields["head"] = chain_genesis(header(ctx, meta.but(**fields), events))

    def change(current: MatchMeta) -> MatchMeta:
        if current.status != "waiting":
            raise Conflict("match-not-waiting", phrase("match {match_id} is {status}", match_id=match_id, status=current.status))
        return current.but(**fields)

    meta = ctx.store.update_meta(match_id, change, state={"ply": 0, "state": game.dump(state)},
                                  announce=lambda _b, a: announcement("started", {"after": list(a.active)}))
    ctx.states.remember(match_id, 0, state, meta)
    return meta


def _abort_unstartable(ctx: MatchContext, current: MatchMeta) -> MatchMeta:
    """The meta change that aborts a waiting match which can never be set up."""
    if current.status != "waiting":  # started or aborted meanwhile: leave it be
        return current
    return current.but(status="aborted", updated_at=ctx.now())


def abort(ctx: MatchContext, match_id: str, signer_key: str) -> dict[str, Any]:
    """The creator cancels a match that has not started; ``signer_key`` is the verified key
    that signed the request."""

    def change(meta: MatchMeta) -> MatchMeta:
        # matches made before creation was signed have no creator key: nobody can abort those
        if not meta.creator_key or meta.creator_key != signer_key:
            raise Forbidden("not-the-creator", phrase("only the match's creator may abort it: sign the request with the key that created the match"))
        if meta.status != "waiting":
            raise Conflict("match-not-waiting", phrase("only a waiting match can be aborted; this one is {status}", status=meta.status))
        return meta.but(status="aborted", updated_at=ctx.now())

    ctx.meta(match_id)
    meta = ctx.store.update_meta(match_id, change, announce=_announce_abort)
    return {"id": match_id, "status": meta.status}


def _announce_abort(before: MatchMeta, after: MatchMeta) -> Announcement | None:
    """The outbox entry of a change that may abort a waiting match (None when it did not)."""
    if before.status != "aborted" and after.status == "aborted":
        return announcement("aborted", {})
    return None
