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
no clock key, no time control...). A field that is only ever stored with a value (``started_at``,
``standing``, a seat's ``custody``...) is ``None`` when not stored; every other field reads as its
default ("", 0, (), False or None) when not stored, and :attr:`MatchMeta.absent` /
:attr:`SeatRow.absent` name the fields the stored form lacked, so a round trip adds no key.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

JSONObject = dict[str, Any]
"""A JSON object whose shape another module owns (a game's options, an outcome, a time control,
a standing, an edition pin): carried here as stored, typed where it is read."""

ENDED: Final = ("finished", "aborted")
"""The statuses of a match that is over."""

_SEAT_ONLY_WITH_A_VALUE: Final = frozenset({"bot", "invite_hash", "mail_key", "mail_generation", "mail_delegation",
                                            "custody", "genesis_key", "key_attached", "attach_hash",
                                            "attach_expires", "key_changes", "mail_withdrawals"})


@dataclass(frozen=True)
class SeatRow:
    """One seat of a match, as its meta keeps it.

    ``kind`` is ``"human"`` or ``"bot"``. A human seat is open until ``claimed``; its claim sets
    ``public_key``, ``name`` and ``nonce`` (and ``email`` when the invitation had none). These
    fields are ``None`` when the row does not store them:

    * ``bot``: the bot kind of a bot seat;
    * ``invite_hash``: the SHA-256 of the seat's invite token (the token goes only to the invitee);
    * ``mail_key``, ``mail_generation``, ``mail_delegation``: the server-held key a seat delegated
      its mail moves to, how many times the seat's mail key was revoked (each revocation derives a
      new one), and the seat key's signature of the delegation;
    * ``custody``: ``"server"`` for a player who joined by mail with no key (the server holds a
      custodial key), ``"player"`` once they attached a key of their own;
    * ``genesis_key``: the key the seat had at the start, kept when a key was attached later
      (the record's genesis names it; ``key_changes`` say from which ply the new key signs);
    * ``key_attached``, ``attach_hash``, ``attach_expires``: a key attached to a custodial seat,
      and the pending attach token's hash and expiry;
    * ``key_changes``: each such attach (``seat``, ``from_ply``, the keys), for the record;
    * ``mail_withdrawals``: each withdrawn mail delegation (``seat``, ``ply``, ``mail_key``,
      ``signature``), for the record.

    ``absent`` names the always-typed fields the stored row lacked; ``unknown`` keeps fields this
    build does not know (written by a newer one): rendering the row back loses and adds nothing.
    """

    seat: int
    kind: str = "human"
    bot: str | None = None
    name: str = ""
    public_key: str = ""
    nonce: str = ""
    claimed: bool = False
    email: str = ""
    invite_hash: str | None = None
    mail_key: str | None = None
    mail_generation: int | None = None
    mail_delegation: str | None = None
    custody: str | None = None
    genesis_key: str | None = None
    key_attached: bool | None = None
    attach_hash: str | None = None
    attach_expires: str | None = None
    key_changes: tuple[JSONObject, ...] | None = None
    mail_withdrawals: tuple[JSONObject, ...] | None = None
    absent: frozenset[str] = frozenset()
    unknown: Mapping[str, Any] = field(default_factory=dict)

    @property
    def is_bot(self) -> bool:
        """Is the seat played by one of the server's bots?"""
        return self.kind == "bot"

    @property
    def is_human(self) -> bool:
        """Is the seat a player's (claimed or not)?"""
        return self.kind == "human"

    @property
    def is_custodial(self) -> bool:
        """Does the server hold this seat's key (a player who joined by mail with no key)?"""
        return self.custody == "server"

    @property
    def generation(self) -> int:
        """How many times the seat's mail key was revoked (0 when never)."""
        return self.mail_generation or 0

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> SeatRow:
        """A seat row as stored (a JSON object of the meta's ``seats``)."""
        values: dict[str, Any] = {k: row[k] for k in _SEAT_FIELDS if k in row}
        for name in ("key_changes", "mail_withdrawals"):
            if values.get(name) is not None:
                values[name] = tuple(values[name])
        return cls(**values,
                   absent=frozenset(k for k in _SEAT_FIELDS if k not in row and k not in _SEAT_ONLY_WITH_A_VALUE),
                   unknown={k: v for k, v in row.items() if k not in _SEAT_FIELDS})

    def to_dict(self) -> JSONObject:
        """The row as stored: the fields it has, in the order the service writes them."""
        out = _rendered(self, _SEAT_FIELDS, _SEAT_ONLY_WITH_A_VALUE)
        for name in ("key_changes", "mail_withdrawals"):
            if out.get(name) is not None:
                out[name] = list(out[name])
        return out

    def but(self, **changes: Any) -> SeatRow:
        """This row with some fields changed (:func:`dataclasses.replace`); a field set here is
        no longer absent."""
        return dataclasses.replace(self, **changes, absent=self.absent - changes.keys())


_META_ONLY_WITH_A_VALUE: Final = frozenset({"started_at", "standing", "clocks", "archived", "archived_digest"})


@dataclass(frozen=True)
class MatchMeta:
    """The record of one match (its Redis hash ``m:{b}:<id>:meta``, decoded).

    Always there: ``id``, ``game``, ``players`` (how many seats), ``status`` (``waiting``,
    ``active``, ``finished``, ``aborted``), ``ply`` (moves accepted) and the ``seats``.

    Fixed at creation: ``options`` (the game's), ``created_at``, ``commitment`` (the seed's),
    ``creator_key`` and ``creator_name``, ``format`` (of the record), ``time_control`` and
    ``timeout_policy`` (docs/clock.md; None: no clock, the default policy), ``clock_key`` (the
    public key the match clock signs with), ``edition`` (the pinned edition, docs/editions.md).

    The state of play: ``active`` (the seats to move), ``active_since`` (seat -> the ply from
    which it has been to move), ``head`` (the hash chain's head, "" before the start),
    ``outcome`` (None until the match ends), ``setup_events`` (what setup revealed),
    ``started_at`` and ``updated_at``; the match clock's ``standing`` (who forfeited, who stands
    in) and ``clocks`` (each seat's time), written from the start on.

    An archived match (:mod:`service.storage.archived`): ``archived`` (where its document is) and
    ``archived_digest`` (the document's SHA-256).

    ``absent`` names the fields the stored meta lacked (older matches); ``unknown`` keeps fields
    of a newer build: :meth:`to_dict` renders exactly what :meth:`from_dict` read.
    """

    id: str
    game: str = ""
    options: JSONObject = field(default_factory=dict)
    players: int = 0
    status: str = ""
    ply: int = 0
    created_at: str = ""
    updated_at: str = ""
    commitment: str = ""
    creator_key: str = ""
    creator_name: str = ""
    seats: tuple[SeatRow, ...] = ()
    active: tuple[int, ...] = ()
    head: str = ""
    outcome: JSONObject | None = None
    setup_events: tuple[JSONObject, ...] = ()
    format: str = ""
    time_control: JSONObject | None = None
    timeout_policy: JSONObject | None = None
    clock_key: str = ""
    edition: JSONObject | None = None
    active_since: Mapping[str, int] = field(default_factory=dict)
    started_at: str | None = None
    standing: JSONObject | None = None
    clocks: tuple[JSONObject, ...] | None = None
    archived: str | None = None
    archived_digest: str | None = None
    absent: frozenset[str] = frozenset()
    unknown: Mapping[str, Any] = field(default_factory=dict)

    # -- reading -------------------------------------------------------------------------------

    @property
    def ended(self) -> bool:
        """Is the match over (finished or aborted)?"""
        return self.status in ENDED

    @property
    def is_archived(self) -> bool:
        """Is the match's whole record in the archive (Redis keeps a tombstone)?"""
        return self.archived is not None

    def seat(self, seat: int) -> SeatRow:
        """The row of seat ``seat`` (seats are numbered from 0, in order)."""
        return self.seats[seat]

    # -- the stored form -------------------------------------------------------------------------

    @classmethod
    def from_dict(cls, meta: Mapping[str, Any]) -> MatchMeta:
        """A meta as decoded from the store (:func:`service.storage.keys.decode_meta`) or as an
        archive document keeps it."""
        values: dict[str, Any] = {k: meta[k] for k in _META_FIELDS if k in meta}
        if "seats" in values:
            values["seats"] = tuple(SeatRow.from_dict(r) for r in values["seats"])
        for name in ("active", "setup_events", "clocks"):
            if values.get(name) is not None:
                values[name] = tuple(values[name])
        for name in ("players", "ply"):
            if name in values:
                values[name] = int(values[name])
        return cls(**values,
                   absent=frozenset(k for k in _META_FIELDS if k not in meta and k not in _META_ONLY_WITH_A_VALUE),
                   unknown={k: v for k, v in meta.items() if k not in _META_FIELDS})

    def to_dict(self) -> JSONObject:
        """The meta as stored (what :func:`service.storage.keys.encode_meta` writes and the API
        answers): the fields it has, and nothing it lacked when read."""
        out = _rendered(self, _META_FIELDS, _META_ONLY_WITH_A_VALUE)
        if "seats" in out:
            out["seats"] = [r.to_dict() for r in self.seats]
        for name in ("active", "setup_events", "clocks"):
            if out.get(name) is not None:
                out[name] = list(out[name])
        return out

    def but(self, **changes: Any) -> MatchMeta:
        """This meta with some fields changed (:func:`dataclasses.replace`); a field set here is
        no longer absent."""
        return dataclasses.replace(self, **changes, absent=self.absent - changes.keys())

    def with_seat(self, row: SeatRow) -> MatchMeta:
        """This meta with seat ``row.seat`` replaced by ``row``."""
        return self.but(seats=tuple(row if r.seat == row.seat else r for r in self.seats))

    def merged(self, fields: Mapping[str, Any]) -> MatchMeta:
        """This meta under some fields in their stored form (a change's fields; a tombstone over
        its archived meta)."""
        return MatchMeta.from_dict({**self.to_dict(), **fields})


def _names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls) if f.name not in ("absent", "unknown"))


_SEAT_FIELDS: Final = _names(SeatRow)
_META_FIELDS: Final = _names(MatchMeta)


def _rendered(value: SeatRow | MatchMeta, names: tuple[str, ...], only_with_a_value: frozenset[str]) -> JSONObject:
    """The stored form of a row or a meta: its fields in order, less the absent ones and the
    ones that are only stored with a value and have none, then the unknown ones."""
    out: JSONObject = {}
    for name in names:
        item = getattr(value, name)
        if name not in value.absent and not (item is None and name in only_with_a_value):
            out[name] = item
    out.update(value.unknown)
    return out
