"""The one floor every use case stands on: a match's store, the clock, the server's keys and the
lookups of a match (meta, game, rules state, secret), with the per-process caches that make them
cheap (docs/architecture.md, "Use cases").

A use case is a function that takes a :class:`MatchContext` first (``ctx``) and calls its public
methods; use cases call each other as functions of their modules, never through a hub. Nothing
here decides anything about a match: it only finds what is stored and derives the server's keys,
so every module of service.play may import it and it imports none of them above the floor.

Why a mutable dataclass and not a frozen one: the front (:class:`service.play.matches.Matches`)
is a context, and the operator tools and the tests set its clock (``now``), its store or its
invitation quotas in place; the caches (``states``) change with every move anyway.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from service import bots, games
from service.clock import parse_iso
from service.games.base import Game
from service.games.editions import Edition
from service.i18n import phrase
from service.play import editions, records
from service.play.errors import Conflict, NotFound
from service.play.ports import Pauses
from service.play.state_cache import MISSING, StateCache
from service.play.throttle import BotLimits, InviteLimits
from service.proof import delegation, fairness, signing
from service.proof.match_record import MatchMeta

if TYPE_CHECKING:  # the store is injected; importing it here would drag Redis into the verifier
    from service.storage.store import Store


def utcnow() -> str:
    """The time now as the service writes it (ISO 8601, UTC, milliseconds, ``Z``)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Moved(Conflict):
    """The stored state is past the ply of the meta a request read: the request is stale."""

    def __init__(self, match_id: str, ply: int, current: int) -> None:
        super().__init__("stale-ply", f"the match {match_id} moved on from ply {ply} to ply {current} while this "
                                      "request was read; base the move on the current ply", current_ply=current)


def _readable(match_id: Any) -> bool:
    """Can ``match_id`` name a stored match at all? (A non-ASCII id cannot be a Redis key we made.)"""
    return isinstance(match_id, str) and match_id.isascii()


@dataclass
class MatchContext:
    """What the use cases share: the store, the clock, the server's keys, the settings they read,
    and the lookups of one match. ``server_key`` signs receipts and derives every server-held key."""

    store: Store
    server_key: str
    now: Callable[[], str] = utcnow
    public_url: str = "http://127.0.0.1:8000"
    invite_limits: InviteLimits = field(default_factory=InviteLimits)
    bot_limits: BotLimits = field(default_factory=BotLimits)
    """What matches of bots only may cost: running ones per client address, search per match."""
    pauses: Pauses | None = None
    """Where players' vacations come from (None: nobody ever takes one)."""
    stand_in: str = ""
    """The bot kind that plays for late and departed players ("": the strongest the game has)."""
    states: StateCache = field(default_factory=StateCache)
    """The rules state of each match at the ply this process last saw (see service.play.state_cache)."""
    _secrets: dict[str, bytes] = field(default_factory=dict)

    # -- the clock and the settings ---------------------------------------------------------------

    def moment(self) -> datetime:
        """The time now by the service's clock (:attr:`now`, which PORTOLAN_CLOCK sets)."""
        return parse_iso(self.now())

    def stand_in_of(self, game_id: str) -> str:
        """The bot kind that stands in for a late or departed player of a ``game_id`` match."""
        return self.stand_in if self.stand_in in bots.kinds(game_id) else bots.strongest(game_id)

    # -- the server's keys (derived from server_key, never stored) --------------------------------

    @property
    def server_public_key(self) -> str:
        """The public half of the server key: what receipts and record headers verify under."""
        return signing.public_key_of(self.server_key)

    def clock_private_key(self, match_id: str) -> str:
        """The server-held key the match clock signs timeouts and stand-in moves with (derived,
        never stored; its public half is in the record header as ``clock_key``)."""
        return signing.private_key_from_seed(signing.b64d(self.server_key) + f"clock:{match_id}".encode())

    def bot_private_key(self, match_id: str, seat: int) -> str:
        """The server-held key a bot seat signs with (derived, never stored)."""
        return signing.private_key_from_seed(signing.b64d(self.server_key) + f"bot:{match_id}:{seat}".encode())

    def bot_rng_key(self, match_id: str) -> bytes:
        """The key of the random streams the match's bots choose with (reproducible by the server only)."""
        return hashlib.sha256(signing.b64d(self.server_key) + f"bot-choices:{match_id}".encode()).digest()

    def mail_private_key(self, match_id: str, seat: int, generation: int) -> str:
        """The server-held key that signs a delegated seat's mail moves (derived, never stored)."""
        return delegation.mail_private_key(self.server_key, match_id, seat, generation)

    def mail_public_key(self, match_id: str, seat: int, generation: int) -> str:
        """The public half of :meth:`mail_private_key`: what a seat's key delegates to."""
        return signing.public_key_of(self.mail_private_key(match_id, seat, generation))

    def custodial_private_key(self, match_id: str, seat: int) -> str:
        """The server-held key of a custodial seat (a player who joined by mail with no key)."""
        return delegation.custodial_private_key(self.server_key, match_id, seat)

    # -- the lookups of a match -------------------------------------------------------------------

    def game_of(self, meta: MatchMeta) -> Game[Any]:
        """The game of a match, playing with the numbers of the edition the match pinned."""
        game = games.get(meta.game)
        if game is None:  # a match of a game this build no longer has
            raise NotFound("unknown-game", phrase("this server does not host the game {game!r}", game=meta.game))
        return editions.installed().game(game, meta.edition)

    def edition_of(self, meta: MatchMeta) -> Edition:
        """The edition a match pinned (:func:`service.play.editions.Shelf.pinned`)."""
        game = games.get(meta.game)
        if game is None:
            raise NotFound("unknown-game", phrase("this server does not host the game {game!r}", game=meta.game))
        return editions.installed().pinned(game, meta.edition)

    def meta(self, match_id: str) -> MatchMeta:
        """The match's stored meta (its record's header and state of play); 404 ``unknown-match``."""
        meta = self.store.meta(match_id) if _readable(match_id) else None
        if meta is None:
            raise NotFound("unknown-match", phrase("there is no match {match_id!r}", match_id=match_id))
        return meta

    def meta_for_move(self, match_id: str) -> MatchMeta:
        """:meth:`meta`, with the state at its ply read in the same round trip and kept in the
        state cache: a move that reaches a process which did not make the match's last ply
        (another API process did) needs both, and read one after the other they cost a round
        trip more. The state is parsed only when the cache lacks that ply."""
        if not _readable(match_id):
            return self.meta(match_id)
        meta, blob = self.store.meta_and_state(match_id)
        if meta is None:
            raise NotFound("unknown-match", phrase("there is no match {match_id!r}", match_id=match_id))
        ply = meta.ply
        if blob is not None and blob["ply"] == ply and self.states.state_at(match_id, ply) is MISSING:
            self.states.remember(match_id, ply, self.game_of(meta).load(blob["state"]))
        return meta

    def state(self, match_id: str, meta: MatchMeta) -> Any:
        """The rules state at exactly ``meta``'s ply, parsed once per process and ply.

        A move may land between a request's read of the meta and its read of the state, so the
        stored state can be newer than the meta. Judging the request against that newer state
        would answer a stale move with the rules' 400/422 instead of 409, so a mismatch raises
        409 ``stale-ply`` (:class:`Moved`, with the stored ply); readers that only want the
        latest view catch it and read the meta again (:meth:`fresh`)."""
        ply = meta.ply
        cached = self.states.state_at(match_id, ply)
        if cached is not MISSING:
            return cached
        blob = self.store.state(match_id)
        if blob is None:
            raise Conflict("match-not-started", phrase("match {match_id} has not started: seats are still open", match_id=match_id))
        state = self.game_of(meta).load(blob["state"])
        # keep the meta only when both describe the same ply
        self.states.remember(match_id, blob["ply"], state, meta if blob["ply"] == ply else None)
        if blob["ply"] != ply:
            raise Moved(match_id, ply, blob["ply"])
        return state

    def fresh(self, match_id: str, meta: MatchMeta) -> tuple[MatchMeta, Any]:
        """A meta and the state at its ply, reading the meta again while moves land in between."""
        for _ in range(5):
            try:
                return meta, self.state(match_id, meta)
            except Moved:
                meta = self.meta(match_id)
        return meta, self.state(match_id, meta)  # five moves in a row overtook us: let it surface

    def secret(self, match_id: str, meta: MatchMeta) -> bytes:
        """The match secret (docs/record-format.md): the seed bound to the match and its seats,
        which keys every random draw and hidden salt; computed once per process and match."""
        secret = self._secrets.get(match_id)
        if secret is None:
            secret = fairness.match_secret(self.store.seed(match_id), match_id, records.genesis_seats(meta.seats))
            if len(self._secrets) >= 4096:  # a bound, not an LRU: recomputing costs one GET
                self._secrets.clear()
            self._secrets[match_id] = secret
        return secret
