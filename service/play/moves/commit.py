"""Committing a move: the one path every entry of a match's log takes (docs/architecture.md, "Moves").

A person's move (by HTTP, the CLI, the browser or mail), a bot's, a stand-in's and the match
clock's timeout all come here as a checked envelope and its signature; what may sign for the seat
depends on ``by``. The rules and the seat standing are judged by the same pure function the
offline verifier replays (:func:`service.proof.standing.judge`), and the store commits the entry,
the state, the clocks, the standing and the outbox entry in one atomic step. No Flask, no Redis.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from service.clock import parse_iso
from service.games.base import IllegalAction, InvalidAction
from service.games.words import cited_rules, rules_url
from service.i18n import phrase
from service.play import records
from service.play.clock import clocks
from service.play.envelopes import check_envelope
from service.play.errors import BadRequest, Conflict, Forbidden, NotFound, ServiceError, Unauthorized, Unprocessable
from service.play.views import match as views
from service.proof import fairness, signing
from service.proof import standing as standings
from service.proof import time_control as tcs
from service.proof.chain import RECORD_FORMAT, entry_hash, events_digest, hidden_salt, receipt_body, visible_events
from service.proof.match_record import MatchMeta

if TYPE_CHECKING:  # the store is injected (through the context); importing it would drag Redis in
    from service.play.context import MatchContext
    from service.storage.store import Announcement

MATCH_EVENTS = ("timed-out", "resigned", "returned", "forfeited", "abort-voted", "match-aborted", "match-ended")
"""Events of the match itself rather than of its game (service.proof.standing), named in the outbox."""


class MailSigner(Protocol):
    """What a move by mail brings to the commit (:class:`service.play.seats.keys.MailProof`): the
    key its signature must verify under, judged against whichever meta the commit ends up with.
    A protocol here, so the commit needs nothing of the seats' keys above it."""

    def signer(self, meta: MatchMeta, seat: int) -> tuple[str, dict[str, Any]]: ...


def submit(ctx: MatchContext, match_id: str, envelope: Mapping[str, Any], signature: str, by: str = "human",
           caller_key: str | None = None, with_view: bool = True) -> dict[str, Any]:
    """Verify, apply and commit one signed move (docs/architecture.md, "Moves"). Idempotent for
    an envelope already accepted: the original result comes back with ``replayed: true``.

    Who sees what: a fresh, accepted move answers with the seat's private view, legal
    actions and hidden events, because only the holder of the seat's key can have made a
    new envelope at the current ply. A resubmission proves nothing (every accepted envelope
    and its signature are public in the log), so it answers with the public view and the
    public events only, unless ``caller_key`` (the key that signed the *request*, verified
    by the caller, e.g. the API's Authorization check) is the seat's own key."""
    env, raw = check_envelope(envelope)
    if env["match"] != match_id:
        raise BadRequest("match-mismatch", phrase("the envelope is for match {envelope_match!r}, not {match_id!r}", envelope_match=env['match'], match_id=match_id))
    if by == "email":
        raise BadRequest("bad-origin", phrase("moves by mail come in through submit_by_mail, which signs them with the seat's mail key; submit takes envelopes signed by the seat's own key"))
    if standings.server_signed(by):
        raise BadRequest("bad-origin", phrase("moves by {by!r} are the match clock's own (timeouts, stand-ins, passes); submit takes envelopes signed by a seat's key", by=by))
    return submit_checked(ctx, match_id, env, raw, signature, by, None, caller_key, with_view)


def submit_checked(ctx: MatchContext, match_id: str, env: dict[str, Any], raw: bytes, signature: str, by: str,
                   mail: MailSigner | None, caller_key: str | None = None, with_view: bool = True) -> dict[str, Any]:
    """:func:`submit` of an envelope already checked (``raw`` is its canonical JSON). With
    ``mail`` (a move by mail) the signature must verify under the seat's mail key, or its
    custodial key, and the entry records the message digest and the delegation."""
    # A mail move is judged against a fresh meta, never the one this process left at its last
    # move: a grant, withdrawal or key change since (from any process) is in the meta only.
    held = None if mail is not None else ctx.states.held_meta(match_id, env["ply"])
    if held is None:
        return commit(ctx, match_id, env, raw, signature, by, ctx.meta_for_move(match_id), caller_key, mail,
                      with_view=with_view)
    try:
        # Fast path: this process made the match's current ply itself, so it skips reading
        # the meta. If another process has moved on since, the apply script's ply check
        # refuses the commit; any refusal is then decided again against a fresh read.
        return commit(ctx, match_id, env, raw, signature, by, held, caller_key, mail, with_view=with_view)
    except ServiceError:
        return commit(ctx, match_id, env, raw, signature, by, ctx.meta_for_move(match_id), caller_key, mail,
                      with_view=with_view)


def replayed(ctx: MatchContext, match_id: str, ply: int, seat: int, proven: bool,
             with_view: bool = True) -> dict[str, Any]:
    """The original result of an envelope accepted at ``ply``: private to ``seat`` only when
    the caller has ``proven`` it holds the seat's key, else what anyone may see."""
    entry = ctx.store.log(match_id, ply, ply)[0]
    meta = ctx.meta(match_id)
    viewer = seat if proven else None
    answer = {"match": match_id, "seat": seat, "ply": ply + 1, "accepted_ply": ply, "replayed": True,
              "head": entry["hash"], "receipt": entry["receipt"], "status": meta.status,
              "events": visible_events(entry["events"], viewer)}
    if with_view:
        answer["view"] = views.view_of(ctx, meta, viewer)
    return answer


def sign_as_bot(ctx: MatchContext, match_id: str, seat: int, ply: int,
                actions: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
    """An envelope for a bot seat, signed with its server-held key."""
    env = {"match": match_id, "seat": seat, "ply": ply, "actions": actions, "nonce": f"bot-{ply}"}
    return env, signing.sign(ctx.bot_private_key(match_id, seat), env)


def _standing_problem(exc: standings.StandingError, ply: int) -> ServiceError:
    """The problem a refused match action or controller maps to (400, 403 or 409)."""
    where = {} if exc.index is None else {"action_index": exc.index}
    if exc.status == 403:
        return Forbidden(exc.code, exc.message, **where)
    if exc.status == 409:
        return Conflict(exc.code, exc.message, current_ply=ply, **where)
    return BadRequest(exc.code, exc.message, **where)


def commit(ctx: MatchContext, match_id: str, env: dict[str, Any], raw: bytes, signature: str, by: str,
           meta: MatchMeta, caller_key: str | None = None,
           mail: MailSigner | None = None, clock: dict[str, Any] | None = None,
           with_view: bool = True) -> dict[str, Any]:
    """Judge one checked envelope against ``meta`` (the match as the caller read it) and commit
    it: the signature under the key that may sign for the seat now (the seat's, its mail key, or
    the match clock's for ``by`` values the server alone uses), the match's status and ply, the
    rules and the standing (:func:`service.proof.standing.judge`), then one atomic store call
    with the entry, the state, the clocks and the outbox entry. Any refusal raises before
    anything is written; a resubmitted envelope answers its original result."""
    seat = env["seat"]
    if not 0 <= seat < meta.players:
        raise NotFound("unknown-seat", phrase("match {match_id} has no seat {seat}", match_id=match_id, seat=seat))
    row = meta.seats[seat]
    # a resubmission's original answer is private to the seat only for a caller that proved its key
    proven = mail is not None or caller_key == row.public_key
    if not row.claimed:
        raise Forbidden("seat-unclaimed", phrase("seat {seat} of match {match_id} has not been claimed", seat=seat, match_id=match_id))
    server = standings.server_signed(by)
    if server:  # a timeout, a stand-in's move or a pass: the match clock's key signs it
        signer, proof = str(meta.clock_key or ""), ({"clock": clock} if clock else {})
    else:
        signer, proof = (row.public_key, {}) if mail is None else mail.signer(meta, seat)
    if not signing.verify_bytes(signer, raw, signature):  # one verification, mail move or not
        if mail is not None:
            raise Unauthorized("bad-signature", phrase("the mail move does not verify under seat {seat}'s current mail key (the delegation changed while it was being made); reply again", seat=seat))
        holders = [s.seat for s in meta.seats if s.public_key and signing.verify_bytes(s.public_key, raw, signature)]
        if holders:
            raise Forbidden("not-your-seat", phrase("the move is signed by the key of seat {holder}, not of seat {seat}", holder=holders[0], seat=seat))
        raise Unauthorized("bad-signature", phrase("the signature does not verify under seat {seat}'s public key", seat=seat))
    env_digest = hashlib.sha256(raw).hexdigest()  # signing.digest(env), from the bytes already made
    # a match action (resign, abort vote, return) may come from a seat that need not act
    anytime = any(standings.is_match_action(a) for a in env["actions"])
    if meta.status != "active" or env["ply"] != meta.ply or (seat not in meta.active and not anytime):
        # Only a move that fails these checks can be a resubmission: accepting an envelope
        # moves the ply past the one it names. (A resubmission racing its own first
        # acceptance finds the ply taken by the apply script, and then itself in the log.)
        earlier = ctx.store.accepted_ply(match_id, env_digest, env["ply"])
        if earlier is not None:
            return replayed(ctx, match_id, earlier, seat, proven, with_view)
    if meta.status != "active":
        raise Conflict("match-not-active", phrase("match {match_id} is {status}; no moves are accepted", match_id=match_id, status=meta.status),
                       current_ply=meta.ply)
    if env["ply"] != meta.ply:
        raise Conflict("stale-ply", phrase("the move is based on ply {based_on} but the match is at ply {ply}", based_on=env['ply'], ply=meta.ply),
                       current_ply=meta.ply)
    if seat not in meta.active and not anytime:
        raise Conflict("not-your-turn", phrase("seat {seat} need not act now (waiting for seats {active})", seat=seat, active=list(meta.active)),
                       current_ply=meta.ply)
    if anytime and records.record_format(meta) != RECORD_FORMAT:
        raise Conflict("no-match-actions", phrase("match {match_id} was created before match clocks: it cannot be resigned or aborted by vote, only played to its end", match_id=match_id), current_ply=meta.ply)
    game = ctx.game_of(meta)
    state = ctx.state(match_id, meta)
    rng = fairness.ply_rng(ctx.secret(match_id, meta), meta.ply)
    before = clocks.standing_of(meta)
    try:
        state, after_standing, events = standings.judge(game, state, before, clocks.policy_of(meta), seat, by,
                                                        env["actions"], rng)
    except standings.StandingError as exc:
        raise _standing_problem(exc, meta.ply) from exc
    except InvalidAction as exc:
        i = getattr(exc, "index", 0)
        raise BadRequest("invalid-action", phrase("action {i}: {message}", i=i, message=exc.message), rule_code=exc.code, action_index=i) from exc
    except IllegalAction as exc:
        i = getattr(exc, "index", 0)
        raise Unprocessable("illegal-action", phrase("action {i}: {message}", i=i, message=exc.message), rule_code=exc.code,
                            rule=exc.rule or next(iter(cited_rules(exc.message)), None),
                            rules_page=rules_url(game.id), action_index=i) from exc
    active = [] if after_standing.ended else game.active_seats(state)
    rules_outcome = game.outcome(state)
    final = standings.final_outcome(rules_outcome.to_json() if rules_outcome else None, after_standing,
                                    meta.players)
    if after_standing.ended == "aborted":
        status = "aborted"
    else:
        status = "finished" if final is not None or rules_outcome is not None or not active else "active"
    accepted_at = ctx.now()
    entry: dict[str, Any] = {
        "ply": meta.ply, "seat": seat, "by": by, "envelope": env, "signature": signature,
        "prev": meta.head, "accepted_at": accepted_at, "events": events,
        "events_digest": events_digest(records.record_format(meta), events,
                                       hidden_salt(ctx.secret(match_id, meta), f"ply:{meta.ply}")),
        "rng_draws": rng.draws,
        # the after-state, for the event streams (not hashed: a replay derives it)
        "next": {"ply": meta.ply + 1, "status": status, "active": active},
        **proof,  # a mail move's message digest and delegation, a timeout's clock: covered by the hash
    }
    entry["hash"] = entry_hash(match_id, entry)
    entry["receipt"] = signing.sign(ctx.server_key, receipt_body(match_id, entry["ply"], entry["hash"]))
    # since which ply each active seat has had to act (the sweep finds notices that never went out)
    since = meta.active_since or {}
    active_since = {str(s): since.get(str(s), meta.ply + 1) if s in meta.active else meta.ply + 1
                    for s in active}
    control = clocks.time_control_of(meta)
    seat_clocks = tcs.step(control, clocks.clocks_of(meta), parse_iso(accepted_at), seat, meta.active, active,
                           timed_out=by == standings.CLOCK,
                           pauses={seat: clocks.pauses_of(ctx, meta)(seat)} if tcs.timed(control) else None,
                           match_action=anytime)
    extra = {"standing": after_standing.to_json(), "clocks": [c.to_json() for c in seat_clocks]}
    said = [e["type"] for e in events if e.get("type") in MATCH_EVENTS]
    result = ctx.store.apply(
        match_id, meta.ply, {"ply": meta.ply + 1, "state": game.dump(state)}, entry, env_digest,
        status, active, entry["hash"], accepted_at, final, active_since,
        announcement("moved", {"seat": seat, "before": list(meta.active), "after": active, "status": status,
                                **({"match_events": said} if said else {})}),
        extra,
    )
    if result.status == "duplicate":
        return replayed(ctx, match_id, result.ply, seat, proven, with_view)
    if result.status == "stale":  # perhaps this very envelope, sent twice at once, won the race
        earlier = ctx.store.accepted_ply(match_id, env_digest, env["ply"])
        if earlier is not None:
            return replayed(ctx, match_id, earlier, seat, proven, with_view)
    if result.status != "applied":
        raise Conflict("stale-ply", phrase("another move was accepted first; the match is now at ply {ply}", ply=result.ply),
                       current_ply=result.ply)
    new_ply = result.ply
    # the meta as the apply script left it: the response's view needs no second read
    after = meta.merged({"ply": new_ply, "active": active, "status": status, "head": entry["hash"],
                         "active_since": active_since, "updated_at": accepted_at, "outcome": final, **extra})
    ctx.states.remember(match_id, new_ply, state, after)
    viewer = None if server else seat
    answer = {"match": match_id, "seat": seat, "ply": new_ply, "accepted_ply": meta.ply, "replayed": False,
              "head": entry["hash"], "receipt": entry["receipt"], "status": status,
              "events": visible_events(events, viewer)}
    if with_view:  # a client that asked for a minimal answer reads the view when it wants it
        answer["view"] = views.view_of(ctx, after, viewer, state)
    return answer


def announcement(kind: str, data: dict[str, Any]) -> Announcement:
    """An outbox entry for the store to append with the change (see service.storage.store)."""
    return (kind, data)
