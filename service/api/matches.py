"""Matches: create, read, claim a seat, move, log, record."""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
import time
from typing import Any

from flask import Blueprint, Response, current_app, request

from service import i18n
from service.api import schemas
from service.api.auth import signed_key, signed_key_reading_meta
from service.api.languages import language
from service.api.words import event_words, said, speaking
from service.i18n import phrase
from service.observe import logs
from service.play import listings
from service.play.errors import BadRequest, Unauthorized
from service.play.matches import Matches
from service.play.throttle import client_network
from service.play.views.match import board_text
from service.proof.match_record import MatchMeta
from service.storage.streams import Wakeups

moves_log = logging.getLogger("portolan.moves")

bp = Blueprint("matches", __name__, url_prefix="/v1/matches")
MAX_WAIT_S = 30
RECHECK_S = 5.0  # a long-poll re-reads this often even without a wake-up


def service() -> Matches:
    m: Matches = current_app.extensions["portolan"]
    return m


def _etag(meta: MatchMeta) -> str:
    """The view's version: its ply and status, and for a match on a clock the digest of its clock
    block too (a player's vacation moves a deadline without a move)."""
    tag = f'{meta.ply}-{meta.status}'
    if (meta.time_control or {}).get("kind", "none") != "none" and meta.status == "active":
        clock = json.dumps(service().clock_view(meta)["seats"], sort_keys=True)
        tag += "-" + hashlib.sha256(clock.encode()).hexdigest()[:8]
    words = speaking()
    if words != i18n.DEFAULT:  # the same ply in another language is another representation (RFC 9110 §8.8.3)
        tag += f"-{words}"
    return f'"{tag}"'


# A query integer is ASCII digits with an optional minus, as the contract's `type: integer` means.
# int() alone is far more lenient: it takes "1_0", " 7 ", "+5" and digits of any script ("３"),
# which a cache, a proxy or a generated client would read differently from this server.
_QUERY_INT = re.compile(r"-?[0-9]{1,12}")


def _arg(name: str) -> str | None:
    """The query parameter ``name``, or None; given more than once, 400: which one counts is a
    guess between this server and anything in front of it, so neither is taken."""
    values = request.args.getlist(name)
    if len(values) > 1:
        raise BadRequest("bad-query", phrase("{name} is given {n} times; give each query parameter at most once", name=name, n=len(values)))
    return values[0] if values else None


def _int_arg(name: str, default: int, low: int, high: int) -> int:
    raw = _arg(name)
    if raw is None:
        return default
    if not _QUERY_INT.fullmatch(raw):
        raise BadRequest("bad-query", phrase("{name} must be an integer written in ASCII digits (no sign other than '-', no spaces, underscores or exponent), between {low} and {high}", name=name, low=low, high=high))
    value = int(raw)
    if not low <= value <= high:
        raise BadRequest("bad-query", phrase("{name} must be between {low} and {high}", name=name, low=low, high=high))
    return value


@bp.get("")
def lobby() -> Any:
    """Recent matches, newest first; filter by ``status`` and ``game``."""
    status = _arg("status")
    if status is not None and status not in ("waiting", "active", "finished", "aborted"):
        raise BadRequest("bad-query", phrase("status is one of waiting, active, finished, aborted"))
    game = _arg("game")
    if game is not None and len(game) > 40:
        raise BadRequest("bad-query", phrase("game is at most 40 characters"))
    return said({"matches": listings.lobby(service(), status, game, _int_arg("limit", 50, 1, 200))})


def _signer(what: str) -> str:
    """The verified key that signed this request; 401 says that ``what`` needs a signature."""
    try:
        return signed_key()
    except Unauthorized as exc:
        if exc.code == "missing-signature":
            raise Unauthorized("missing-signature", phrase('{what} needs a signed request: an Authorization: Portolan key="...", ts="...", sig="..." header signed with your key', what=what)) from exc
        raise


@bp.post("")
def create() -> Any:
    """Create a match; seats are invitations or bots, with an optional ``time_control`` and
    ``timeout_policy`` (docs/clock.md). The request is signed: its key is the creator's
    identity (the only key that may abort the match while it waits, and the one the invitation
    quotas count against)."""
    key = _signer(phrase("creating a match"))
    data = schemas.body(schemas.CreateMatch)
    result = service().create(data["game"], data["options"], data["seats"], creator_key=key,
                              creator_name=data["creator_name"], time_control=data["time_control"],
                              timeout_policy=data["timeout_policy"], edition=data["edition"],
                              client=client_network(request.remote_addr), language=language())
    return result, 201, {"Location": f"/v1/matches/{result['id']}"}


def _wait_arg() -> int:
    return _int_arg("wait", 0, 0, MAX_WAIT_S)


def _poll(match_id: str, meta: MatchMeta, wait: int) -> tuple[MatchMeta, Response | None]:
    """Honour ``If-None-Match`` and ``?wait=N``: the newest meta, and a 304 to answer with while
    the match still carries the ETag the client holds (after up to ``wait`` seconds).

    Waiting takes one of the process's long-poll slots (``PORTOLAN_LONG_POLLS``); when none is
    free the request is answered at once, as with ``wait=0``. Why: a waiting request holds a
    request thread, and anyone may long-poll any match, so a few dozen ``?wait=30`` requests
    (well inside any rate limit) held every thread and the API stopped answering everyone
    (found by the second outside test of issue 9). A client that gets its 304 early just polls
    again; its answer is the same one it would have had after waiting without a change."""
    if not request.if_none_match.contains(_etag(meta).strip('"')):
        return meta, None
    slots: threading.BoundedSemaphore | None = current_app.extensions["portolan.long_polls"]
    if wait <= 0 or slots is None or not slots.acquire(blocking=False):
        return meta, Response(status=304, headers={"ETag": _etag(meta)})
    try:
        m = service()
        wakeups: Wakeups = current_app.extensions["portolan.wakeups"]
        deadline = time.monotonic() + wait
        # Register for the match's wake-ups first, then re-read: a commit between the read and
        # the wait still wakes us. The timeout re-read covers a wake-up lost with the listener's
        # connection (the log is the truth, the wake-up only a hint).
        with wakeups.watch(f"m:{match_id}") as waiter:
            meta = m.meta(match_id)
            while request.if_none_match.contains(_etag(meta).strip('"')):
                left = deadline - time.monotonic()
                if left <= 0:
                    return meta, Response(status=304, headers={"ETag": _etag(meta)})
                waiter.wait(min(left, RECHECK_S))
                meta = m.meta(match_id)
        return meta, None
    finally:
        slots.release()


@bp.get("/<match_id>")
def show(match_id: str) -> Any:
    """The spectator view. ETag is the ply; ``?wait=N`` long-polls up to N s for a change."""
    m = service()
    wait = _wait_arg()  # a bad query is refused before the match is looked up
    meta, not_modified = _poll(match_id, m.meta(match_id), wait)
    if not_modified is not None:
        return not_modified
    language = speaking()
    view = said(m.view(match_id, meta=meta, language=language))
    return view, 200, {"ETag": _etag(meta)}


@bp.post("/<match_id>/seats/<int:seat>/claim")
def claim(match_id: str, seat: int) -> Any:
    """Take an invited seat with its token and register the player's public key (and, with
    ``mail_delegation``, let replies by mail move for it)."""
    data = schemas.body(schemas.Claim)
    return service().claim(match_id, seat, data["token"], data["public_key"], data["name"], data["email"],
                           data["nonce"], data["mail_delegation"])


@bp.post("/<match_id>/abort")
def abort(match_id: str) -> Any:
    """The creator cancels a match that is still waiting for players (a request signed with
    the key that created it)."""
    return service().abort(match_id, _signer(phrase("aborting a match")))


@bp.get("/<match_id>/seats/<int:seat>/view")
def seat_view(match_id: str, seat: int) -> Any:
    """A seat's private view with its legal actions; the request is signed with the seat's key.

    Polls like the spectator view (``If-None-Match``, ``?wait=N``), but only once the signature
    proved the key holds the seat: a 304 must not answer for a seat to anyone else. The request's
    nonce is spent and the match read in one round trip."""
    m = service()
    key, meta = signed_key_reading_meta(match_id)
    wait = _wait_arg()
    meta, not_modified = _poll(match_id, m.authenticate(match_id, seat, key, meta), wait)
    if not_modified is not None:
        return not_modified
    language = speaking()
    return said(m.view(match_id, seat, meta, language=language)), 200, {"ETag": _etag(meta)}


@bp.post("/<match_id>/moves")
def move(match_id: str) -> Any:
    """Submit a signed move envelope (docs/architecture.md, "The three trips of a move"). A resubmitted envelope answers privately
    only to a request signed (Authorization, covering this body) with the seat's own key; a
    present Authorization header must verify, whoever's key it names."""
    data = schemas.body(schemas.Move)
    env = data["envelope"]
    logs.bind(match=match_id, seat=env.get("seat"), ply=env.get("ply"))
    caller = signed_key() if request.headers.get("Authorization") else None
    with_view = _wants_view()
    result = service().submit(match_id, env, data["signature"], caller_key=caller, with_view=with_view)
    # DEBUG: a line per move costs a sixth of the move's CPU (structlog's JSON through logging);
    # PORTOLAN_LOG_LEVEL=DEBUG shows them, and any warning logged while a move is handled carries
    # its match, seat and ply (bound above) at every level
    moves_log.debug("move %s", "replayed" if result["replayed"] else "accepted", extra={"new_ply": result["ply"]})
    minimal = not with_view and request.args.get("view") is None  # it was the Prefer header
    result = _in_language(match_id, result)
    return result, (200 if result["replayed"] else 201), ({"Preference-Applied": "return=minimal"} if minimal else {})


def _wants_view() -> bool:
    """Does the client want the view in a move's answer? Not with ``?view=none`` or ``Prefer:
    return=minimal`` (RFC 7240): a client that renders from its own event stream saves the
    server computing it (and the bytes). Anything else for ``view`` is a 400."""
    chosen = request.args.get("view")
    if chosen is not None and chosen not in ("none", "full"):
        raise BadRequest("bad-query", phrase("view must be 'none' or 'full', not {chosen!r}", chosen=chosen[:40]))
    if chosen is not None:
        return chosen == "full"
    prefer = [p.strip().lower() for p in request.headers.get("Prefer", "").replace(";", ",").split(",")]
    return "return=minimal" not in prefer


@bp.get("/<match_id>/log")
def log(match_id: str) -> Any:
    """Accepted moves from ply ``from`` on, with signatures and receipts."""
    start = _int_arg("from", 0, 0, 10**9)
    m = service()
    meta = m.meta(match_id)
    return {"match": match_id, "from": start, "ply": meta.ply, "head": meta.head or None,
            "entries": _entries_words(meta, m.log(match_id, start))}


@bp.get("/<match_id>/record")
def record(match_id: str) -> Any:
    """The verifiable record; the seed is revealed once the match is over. Each entry's ``words``
    (and ``setup_words``) say its events in the request's language, outside everything the chain and
    the digests cover."""
    m = service()
    found = m.record(match_id)
    game = m.game_of(m.meta(match_id))
    language = speaking()
    found["setup_words"] = event_words(game, found.get("setup_events") or [], language)
    found["entries"] = _entries_words(None, found["entries"], game)
    return found


def _entries_words(meta: MatchMeta | None, entries: list[dict[str, Any]], game: Any = None) -> list[dict[str, Any]]:
    """Log entries with ``words``: their events described in the request's language (the events
    themselves, which the digests cover, stay exactly as logged)."""
    if game is None:
        assert meta is not None
        game = service().game_of(meta)
    language = speaking()
    return [{**e, "words": event_words(game, e.get("events") or [], language)} for e in entries]


def _in_language(match_id: str, result: dict[str, Any]) -> dict[str, Any]:
    """A move's answer in the request's language: its view's words, and its board text made again
    in that language (the use case made it in English; only then is the match read once more, so
    an English answer costs nothing extra). Its events' words are in the log and the streams."""
    language = speaking()
    view = result.get("view")
    if language != i18n.DEFAULT and view and view.get("board") is not None:
        game = service().game_of(service().meta(match_id))
        result = {**result, "view": {**view, "text": board_text(game, view["edition"], view["board"], language)}}
    localised: dict[str, Any] = said(result)
    return localised
