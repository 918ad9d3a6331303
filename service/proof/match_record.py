"""The match record (``meta``): what the server keeps of one match besides its log, as a typed,
immutable value.

A :class:`MatchMeta` is parsed once, where the store reads a match (its Redis hash, an archive
document's meta, a tombstone over it), and rendered back with :meth:`MatchMeta.to_dict` exactly
where a plain dict is needed: the hash the store writes, an API answer, an outbox entry. The
stored form never changes because of this module: ``MatchMeta.from_dict(d).to_dict() == d`` for
every meta the service writes (tests/storage/test_match_record.py builds one of every kind through
the service and checks it).

>>> meta = MatchMeta.from_dict({"id": "abc", "game": "ophir", "players": 2, "status": "waiting", "ply": 0,
...                              "seats": [{"seat": 0, "kind": "bot", "public_key": "K", "claimed": True}]})
>>> meta.seats[0].public_key, meta.seats[0].is_bot
('K', True)
>>> dataclasses.replace(meta, status="aborted").to_dict()["status"]
'aborted'

Why here, in :mod:`service.proof`: the store parses the record (service.storage) and the use cases
read it (service.play), and the use cases may not import the store. The proof kernel is the lowest
layer both may import, and the record's header (what the verifier reads) is derived from this
value, so it belongs beside it. It does no I/O, as the proof kernel's contract requires.

Why absence is kept: a match made by an older build lacks fields a new one writes (no edition pin,
no clock key, no time control...). Text and seat-row fields are never stored as null, so ``None``
means "not stored" for them. The JSON fields that *are* stored as null (``outcome``,
``time_control``, ``timeout_policy``, ``edition``, ``standing``, ``clocks``) keep in
:attr:`MatchMeta.absent` which of them the stored meta lacked, so a round trip adds no key.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

JSONObject = dict[str, Any]
"""A JSON object whose shape another module owns (a game's options, an outcome, a time control,
a standing, an edition pin): carried here as stored, typed where it is read."""

_SEAT_TEXT: Final = ("name", "public_key", "nonce", "email")
_SEAT_OPTIONAL: Final = ("bot", "invite_hash", "mail_key", "mail_generation", "mail_delegation", "custody",
                         "genesis_key", "key_attached", "attach_hash", "attach_expires")


@dataclass(frozen=True)
class SeatRow:
    """One seat of a match, as its meta keeps it.

    ``kind`` is ``"human"`` or ``"bot"``. A human seat is open until ``claimed``; its claim sets
    ``public_key``, ``name`` and ``nonce`` (and ``email`` when the invitation had none). The
    optional fields are ``None`` when the row does not store them:

    * ``bot``: the bot kind of a bot seat;
    * ``invite_hash``: the SHA-256 of the seat's invite token (the token goes only to the invitee);
    * ``mail_key``, ``mail_delegation``, ``mail_generation``: the server-held key a seat delegated
      its mail moves to, the seat key's signature of that delegation, and how many times the mail
      key was revoked (each revocation derives a new one);
    * ``custody``: ``"server"`` for a player who joined by mail with no key (the server holds a
      custodial key), ``"player"`` once they attached a key of their own;
    * ``genesis_key``: the key the seat had at the start, kept when a key was attached later
      (the record's genesis names it; ``key_changes`` say from which ply the new key signs);
    * ``key_attached``, ``attach_hash``, ``attach_expires``: a key attached to a custodial seat,
      and the pending attach token's hash and expiry.

    ``unknown`` keeps fields this build does not know (written by a newer one), so that
    rendering the row back loses nothing.
    """

    seat: int
    kind: str
    name: str | None = None
    public_key: str | None = None
    nonce: str | None = None
    claimed: bool | None = None
    email: str | None = None
    bot: str | None = None
    invite_hash: str | None = None
    mail_key: str | None = None
    mail_generation: int | None = None
    mail_delegation: str | None = None
    custody: str | None = None
    genesis_key: str | None = None
    key_attached: bool | None = None
    attach_hash: str | None = None
    attach_expires: str | None = None
    unknown: Mapping[str, Any] = field(default_factory=dict)

    @property
    def is_bot(self) -> bool:
        """Is the seat played by one of the server's bots?"""
        return self.kind == "bot"

    @property
    def is_custodial(self) -> bool:
        """Does the server hold this seat's key (a player who joined by mail with no key)?"""
        return self.custody == "server"

    @property
    def key(self) -> str:
        """The seat's public key ("" while the seat is open)."""
        return self.public_key or ""

    @property
    def taken(self) -> bool:
        """Has the seat a player (or a bot)?"""
        return bool(self.claimed)

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> SeatRow:
        """A seat row as stored (a JSON object of the meta's ``seats``)."""
        known = {"seat", "kind", "claimed", *_SEAT_TEXT, *_SEAT_OPTIONAL}
        return cls(
            seat=int(row["seat"]), kind=str(row.get("kind", "human")),
            claimed=None if "claimed" not in row else bool(row["claimed"]),
            **{k: row[k] for k in (*_SEAT_TEXT, *_SEAT_OPTIONAL) if k in row},
            unknown={k: v for k, v in row.items() if k not in known},
        )

    def to_dict(self) -> JSONObject:
        """The row as stored: the fields it has, in the order the service writes them."""
        out: JSONObject = {"seat": self.seat, "kind": self.kind}
        for name in ("claimed", *_SEAT_TEXT, *_SEAT_OPTIONAL):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        out.update(self.unknown)
        return out

    def but(self, **changes: Any) -> SeatRow:
        """This row with some fields changed (:func:`dataclasses.replace`)."""
        return dataclasses.replace(self, **changes)


_NULLABLE: Final = ("outcome", "time_control", "timeout_policy", "edition", "standing", "clocks")
_TEXT: Final = ("created_at", "updated_at", "started_at", "head", "commitment", "creator_key", "creator_name",
                "format", "clock_key", "archived", "archived_digest")


@dataclass(frozen=True)
class MatchMeta:
    """The record of one match (its Redis hash ``m:{b}:<id>:meta``, decoded).

    Always present: ``id``, ``game``, ``players`` (how many seats), ``status`` (``waiting``,
    ``active``, ``finished``, ``aborted``), ``ply`` (moves accepted) and the ``seats``.

    The state of play: ``active`` (the seats to move), ``active_since`` (seat -> the ply from
    which it has been to move), ``head`` (the hash chain's head), ``outcome`` (the result once
    finished), ``setup_events`` (what setup revealed), ``started_at`` and ``updated_at``.

    Fixed at creation: ``options`` (the game's), ``created_at``, ``commitment`` (the seed's),
    ``creator_key`` and ``creator_name``, ``format`` (of the record), ``clock_key`` (the public
    key the match clock signs with), ``time_control`` and ``timeout_policy`` (docs/clock.md),
    ``edition`` (the pinned edition, docs/editions.md).

    The match clock (docs/clock.md): ``standing`` (who forfeited, who stands in) and ``clocks``
    (each seat's time), written with each move once the match has a clock.

    An archived match (:mod:`service.storage.archived`): ``archived`` (where its document is) and
    ``archived_digest`` (the document's SHA-256).

    Optional fields are ``None`` when not stored; :attr:`absent` names the nullable JSON fields
    (``outcome``, ``time_control``...) the stored meta lacks, and :attr:`unknown` keeps fields
    of a newer build, so :meth:`to_dict` renders exactly what was read.
    """

    id: str
    game: str
    players: int
    status: str
    ply: int
    seats: tuple[SeatRow, ...]
    options: JSONObject | None = None
    active: tuple[int, ...] | None = None
    active_since: Mapping[str, int] | None = None
    setup_events: tuple[JSONObject, ...] | None = None
    outcome: JSONObject | None = None
    time_control: JSONObject | None = None
    timeout_policy: JSONObject | None = None
    edition: JSONObject | None = None
    standing: JSONObject | None = None
    clocks: tuple[JSONObject, ...] | None = None
    created_at: str | None = None
    updated_at: str | None = None
    started_at: str | None = None
    head: str | None = None
    commitment: str | None = None
    creator_key: str | None = None
    creator_name: str | None = None
    format: str | None = None
    clock_key: str | None = None
    archived: str | None = None
    archived_digest: str | None = None
    absent: frozenset[str] = frozenset()
    unknown: Mapping[str, Any] = field(default_factory=dict)

    # -- reading -------------------------------------------------------------------------------

    @property
    def ended(self) -> bool:
        """Is the match over (finished or aborted)?"""
        return self.status in ("finished", "aborted")

    @property
    def to_move(self) -> tuple[int, ...]:
        """The seats to move (none before the start and after the end)."""
        return self.active or ()

    def seat(self, seat: int) -> SeatRow:
        """The row of seat ``seat`` (seats are numbered from 0, in order)."""
        return self.seats[seat]

    # -- the stored form -------------------------------------------------------------------------

    @classmethod
    def from_dict(cls, meta: Mapping[str, Any]) -> MatchMeta:
        """A meta as decoded from the store (:func:`service.storage.keys.decode_meta`) or as an
        archive document keeps it."""
        known = {"id", "game", "players", "status", "ply", "seats", "options", "active", "active_since",
                 "setup_events", "clocks", *_NULLABLE, *_TEXT}
        seats = meta.get("seats")
        active, events, clocks = meta.get("active"), meta.get("setup_events"), meta.get("clocks")
        return cls(
            id=str(meta["id"]), game=str(meta.get("game", "")), players=int(meta.get("players", len(seats or ()))),
            status=str(meta.get("status", "")), ply=int(meta.get("ply", 0)),
            seats=tuple(SeatRow.from_dict(r) for r in seats or ()),
            options=meta.get("options"),
            active=None if active is None else tuple(int(s) for s in active),
            active_since=meta.get("active_since"),
            setup_events=None if events is None else tuple(events),
            outcome=meta.get("outcome"), time_control=meta.get("time_control"),
            timeout_policy=meta.get("timeout_policy"), edition=meta.get("edition"), standing=meta.get("standing"),
            clocks=None if clocks is None else tuple(clocks),
            **{k: str(meta[k]) for k in _TEXT if k in meta},
            absent=frozenset(k for k in (*_NULLABLE, "game", "players", "status", "ply", "seats", "options",
                                         "active", "active_since", "setup_events") if k not in meta),
            unknown={k: v for k, v in meta.items() if k not in known},
        )

    def to_dict(self) -> JSONObject:
        """The meta as stored (what :func:`service.storage.keys.encode_meta` writes and the API
        answers): the fields it has, and nothing it lacked when read."""
        out: JSONObject = {"id": self.id, "game": self.game, "players": self.players, "status": self.status,
                           "ply": self.ply, "seats": [r.to_dict() for r in self.seats],
                           "options": self.options, "active": None if self.active is None else list(self.active),
                           "active_since": self.active_since,
                           "setup_events": None if self.setup_events is None else list(self.setup_events),
                           "outcome": self.outcome, "time_control": self.time_control,
                           "timeout_policy": self.timeout_policy, "edition": self.edition,
                           "standing": self.standing, "clocks": None if self.clocks is None else list(self.clocks)}
        for k in self.absent:
            out.pop(k, None)
        for k in _TEXT:
            value = getattr(self, k)
            if value is not None:
                out[k] = value
        out.update(self.unknown)
        return out

    def but(self, **changes: Any) -> MatchMeta:
        """This meta with some fields changed (:func:`dataclasses.replace`); a field set here
        is no longer absent."""
        return dataclasses.replace(self, **changes, absent=self.absent - changes.keys())

    def with_seat(self, row: SeatRow) -> MatchMeta:
        """This meta with seat ``row.seat`` replaced by ``row``."""
        return self.but(seats=tuple(row if r.seat == row.seat else r for r in self.seats))

    def merged(self, fields: Mapping[str, Any]) -> MatchMeta:
        """This meta under some stored fields (a change's fields, a tombstone over its document)."""
        return MatchMeta.from_dict({**self.to_dict(), **fields})
