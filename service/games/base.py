"""The rules-core contract: what every game in Portolan is.

A game is one object with a handful of pure functions over a plain state, in the spirit of
OpenSpiel's ``Game``/``State`` and Rally the Troops' ``setup``/``view``/``action`` modules:

* ``setup(players, options, rng)`` builds the initial state;
* ``active_seats(state)`` says who must act now (``[]`` once the game is over);
* ``legal_actions(state, seat)`` lists every legal atomic action for that seat, as JSON objects;
* ``apply(state, seat, action, rng)`` returns the next state and the events the action caused,
  never mutating its input; it raises :class:`InvalidAction` for JSON that is not an action of
  this game and :class:`IllegalAction` for a real action the rules forbid right now;
* ``view(state, seat)`` is what one seat (or a spectator, ``seat=None``) may see;
* ``outcome(state)`` is the final result, ``None`` while the game runs;
* ``dump``/``load`` give a canonical JSON form of the state (``load(dump(s))`` equals ``s``).

Randomness is an explicit input (:class:`Rng`), derived by the service from the match seed and
the ply, so replaying the log reproduces every die and shuffle; the state never holds a seed.

Nothing in this package may import Flask, Redis, the clock or the global ``random`` module.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, NamedTuple, TypeVar

from marshmallow import Schema, ValidationError, fields, missing, validate

from service.i18n import phrase

__all__ = [
    "Action",
    "Applied",
    "Event",
    "Game",
    "GameError",
    "IllegalAction",
    "InvalidAction",
    "Outcome",
    "Provisional",
    "Rng",
    "StrictBoolean",
    "StrictInteger",
    "UniqueList",
    "describe_field_errors",
    "field_errors",
    "options_json_schema",
]

Action = dict[str, Any]
"""One atomic rules step: a JSON object ``{"type": ..., ...}`` from the game's closed vocabulary."""

Event = dict[str, Any]
"""Something an action caused, as a JSON object ``{"type": ..., "text": "...", ...}``.

``text`` is a plain-English sentence for logs, notices and frontends. An event that reveals
something only some seats may know carries ``"visible_to": [seat, ...]``; the service shows it
to those seats only (and to everyone in the record once the match is over).
"""

S = TypeVar("S")


# --------------------------------------------------------------------------------------------
# Errors


class GameError(ValueError):
    """Base of the two rules errors. ``code`` is stable and machine-readable; the message is a
    human sentence that names the rule."""

    def __init__(self, code: str, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule = rule

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


class InvalidAction(GameError):
    """The JSON is not an action of this game at all: unknown ``type``, missing or mistyped
    field, a city that does not exist. The service answers 400."""


class IllegalAction(GameError):
    """A well-formed action that the rules forbid now. The service answers 422 with the
    message, which cites the rule ("Marseille: you already own the last three warehouses in a
    row (rule: no more than three in a row)")."""


def field_errors(messages: Any, path: str = "") -> list[dict[str, str]]:
    """Marshmallow's nested error messages as a flat list of ``{"field", "message"}``.

    ``field`` is the dotted path of the offending value (``seats.0.invite``; list positions are
    numbers), ``""`` for the object itself. Marshmallow nests by field name and by list index
    and puts schema-level messages under ``_schema``; clients want one line per problem."""
    if isinstance(messages, Mapping):
        out: list[dict[str, str]] = []
        for key, value in messages.items():
            # "_schema" holds errors of the object itself, not of a field called so
            sub = path if key == "_schema" else (f"{path}.{key}" if path else str(key))
            out.extend(field_errors(value, sub))
        return out
    if isinstance(messages, list | tuple):
        return [item for value in messages for item in field_errors(value, path)]
    return [{"field": path, "message": str(messages)}]


def describe_field_errors(errors: Sequence[Mapping[str, str]]) -> str:
    """The flat errors as one clause for a ``detail`` sentence: ``seats.0.invite: Not a valid email address.``"""
    return "; ".join(f"{e['field']}: {e['message']}" if e["field"] else e["message"] for e in errors)


# --------------------------------------------------------------------------------------------
# Randomness


class Rng:
    """A deterministic random stream that anyone can re-implement from its description.

    The stream is SHA-256 in counter mode over a 32-byte key: block ``i`` is
    ``SHA-256(key || i as 8 bytes big-endian)``, read as four 64-bit big-endian words in order.
    :meth:`randbelow` draws by rejection (a word ``w`` is used when ``w < 2**64 - 2**64 % n``,
    answering ``w % n``), so every outcome is exactly equally likely. :meth:`shuffled` is
    Fisher-Yates from the last position down. ``docs/fairness.md`` specifies how the service
    derives the key of each ply from the match seed and the players' contributions.

    >>> Rng.from_seed(7).randint(1, 6) in range(1, 7)
    True
    """

    __slots__ = ("_counter", "_key", "_words", "draws")

    def __init__(self, key: bytes) -> None:
        if len(key) != 32:
            raise ValueError("an Rng key is 32 bytes")
        self._key = key
        self._counter = 0
        self._words: list[int] = []
        self.draws = 0
        """How many 64-bit words were consumed (for the record and for tests)."""

    @classmethod
    def derive(cls, secret: bytes, label: str) -> Rng:
        """The stream for ``label`` under ``secret``: key = HMAC-SHA256(secret, label)."""
        return cls(hmac.new(secret, label.encode("utf-8"), hashlib.sha256).digest())

    @classmethod
    def from_seed(cls, seed: int | str) -> Rng:
        """A stream from a small seed, for tests, benchmarks and playouts."""
        return cls(hashlib.sha256(f"portolan-test-seed:{seed}".encode()).digest())

    def _word(self) -> int:
        if not self._words:
            block = hashlib.sha256(self._key + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
            # reversed so that pop() yields the words in block order
            self._words = [int.from_bytes(block[i : i + 8], "big") for i in (24, 16, 8, 0)]
        self.draws += 1
        return self._words.pop()

    def randbelow(self, n: int) -> int:
        """A uniform integer in ``[0, n)``."""
        if n <= 0:
            raise ValueError("randbelow needs n >= 1")
        limit = (1 << 64) - (1 << 64) % n
        while True:
            w = self._word()
            if w < limit:
                return w % n

    def randint(self, low: int, high: int) -> int:
        """A uniform integer in ``[low, high]``, both ends included."""
        return low + self.randbelow(high - low + 1)

    def die(self, sides: int = 6) -> int:
        """One roll of a die numbered 1..sides."""
        return 1 + self.randbelow(sides)

    def choice(self, seq: Sequence[Any]) -> Any:
        """A uniform element of a non-empty sequence."""
        return seq[self.randbelow(len(seq))]

    def shuffled(self, seq: Sequence[Any]) -> list[Any]:
        """A new list with the elements of ``seq`` in uniformly random order (Fisher-Yates)."""
        out = list(seq)
        for i in range(len(out) - 1, 0, -1):
            j = self.randbelow(i + 1)
            out[i], out[j] = out[j], out[i]
        return out


# --------------------------------------------------------------------------------------------
# Results


class Applied(NamedTuple, Generic[S]):
    """What ``setup`` and ``apply`` return: the new state and the events it caused."""

    state: S
    events: list[Event]


@dataclass(frozen=True)
class Outcome:
    """The result of a finished game.

    ``scores[seat]`` is the seat's final score (victory points, money: whatever the game
    counts); ``ranks[seat]`` is 1 for the winner, seats still tied after every tie-break share a
    rank. ``detail`` explains the numbers (score breakdown per seat, the tie-break trail) as
    JSON, for views, notices and the record.
    """

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    detail: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "ranks": list(self.ranks), "detail": self.detail}


@dataclass(frozen=True)
class Provisional:
    """A data value the rules research could not verify (UNVERIFIED in the spec), reported by
    ``GET /v1/games/{game}`` so a frontend can show it as provisional."""

    path: str
    value: Any
    note: str

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "value": self.value, "note": self.note}


# --------------------------------------------------------------------------------------------
# Option fields that take JSON at its word
#
# marshmallow's own fields are lenient: Integer turns "3", 4.0 and 1.5 into ints (1.5 silently
# becomes 1) and True into 1, Boolean takes "yes", 1 and "on", List keeps duplicates. A stored
# option is part of the signed record, so it must be exactly what the caller meant: options
# use these fields, which refuse anything but the JSON type the catalog's schema publishes.


class StrictInteger(fields.Integer):
    """A JSON integer: no floats (not even 4.0), no numeric strings, no booleans."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(strict=True, **kwargs)

    def _validated(self, value: Any) -> int:
        if isinstance(value, bool):  # bool is an Integral to Python, not to JSON
            raise self.make_error("invalid", input=value)
        return super()._validated(value)


class StrictBoolean(fields.Boolean):
    """A JSON ``true`` or ``false``: no 0/1, no "yes"/"true" strings."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class UniqueList(fields.List):  # type: ignore[type-arg]
    """A JSON array whose items are all different (the catalog says ``uniqueItems: true``)."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> list[Any]:
        if not isinstance(value, list):  # marshmallow would also take a tuple or a set
            raise self.make_error("invalid", input=value)
        items: list[Any] = super()._deserialize(value, attr, data, **kwargs)
        seen: list[Any] = []
        for item in items:
            if item in seen:
                raise ValidationError(f"{item!r} is listed twice; each item may appear once")
            seen.append(item)
        return items


# --------------------------------------------------------------------------------------------
# The Game contract


class Game(ABC, Generic[S]):
    """One ruleset. Subclasses set the class attributes and implement the abstract methods.

    Every method is pure: no I/O, no clock, no global randomness, and no mutation of a state
    passed in. A state is whatever the game finds convenient (frozen dataclasses, tuples, or a
    dict it never mutates in place), as long as ``dump`` gives its canonical JSON form.
    """

    id: str
    """Stable identifier used in URLs: ``"el-capitan"``."""
    title: str
    players: range
    """Supported player counts, e.g. ``range(2, 6)``."""
    options_schema: type[Schema] = Schema
    """The match options (variants, expansions) as a marshmallow schema; load fills defaults."""
    actions: Mapping[str, str] = {}
    """The closed action vocabulary: ``type`` -> one-line description."""
    action_schemas: Mapping[str, dict[str, Any]] = {}
    """JSON Schema (OpenAPI 3.1 dialect) of each action ``type``'s payload, for openapi.yaml."""

    # -- setup and play ------------------------------------------------------------------

    def validate_options(self, options: Mapping[str, Any] | None, players: int | None = None) -> dict[str, Any]:
        """Load the options through the schema (defaults filled), then check them against the
        player count with :meth:`check_options`; errors raise :class:`InvalidAction` with code
        ``bad-options``. Options that pass here with a player count must never make
        :meth:`setup` fail for that count: the service stores a match only after this check, so a
        refusal later would leave a match that can never start. ``players=None`` (tools and tests
        that only want the defaults) skips the checks that need the count; the service always
        passes it."""
        if options is not None and not isinstance(options, Mapping):
            raise InvalidAction("bad-options", phrase("options must be a JSON object"))
        try:
            loaded: dict[str, Any] = self.options_schema().load(dict(options or {}))
        except ValidationError as exc:
            raise InvalidAction("bad-options", phrase("invalid options: {errors}",
                                                     errors=describe_field_errors(field_errors(exc.messages)))) from exc
        if players is not None:
            self.check_options(loaded, players)
        return loaded

    def check_options(self, options: Mapping[str, Any], players: int) -> None:
        """Checks of loaded options that depend on the player count (a start seat below it, say);
        raise :class:`InvalidAction` ``bad-options`` naming the rule. Nothing to check by default."""

    @abstractmethod
    def setup(self, players: int, options: Mapping[str, Any], rng: Rng) -> Applied[S]:
        """The initial state for ``players`` seats with validated ``options``."""

    @abstractmethod
    def active_seats(self, state: S) -> list[int]:
        """The seats that must act now, in seat order; ``[]`` exactly when the game is over."""

    @abstractmethod
    def legal_actions(self, state: S, seat: int) -> list[Action]:
        """Every legal atomic action of ``seat`` now; ``[]`` if that seat need not act. Never
        empty for an active seat."""

    @abstractmethod
    def apply(self, state: S, seat: int, action: Mapping[str, Any], rng: Rng) -> Applied[S]:
        """Apply one action of ``seat``; raises InvalidAction / IllegalAction."""

    @abstractmethod
    def view(self, state: S, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (``None``: a spectator) may see: JSON, hidden information removed."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """The final result once the game is over, else ``None``."""

    @abstractmethod
    def dump(self, state: S) -> dict[str, Any]:
        """Canonical JSON form of the whole state (hidden parts included)."""

    @abstractmethod
    def load(self, data: Mapping[str, Any]) -> S:
        """Inverse of :meth:`dump`."""

    # -- words for people -----------------------------------------------------------------

    def describe_action(self, action: Mapping[str, Any]) -> str:
        """The action in plain words, for notices and the CLI ("buy a destination card
        from the display"). Games override this; the default prints the JSON."""
        return json.dumps(dict(action), sort_keys=True)

    def label_action(self, state: S, seat: int, action: Mapping[str, Any]) -> str:
        """The label of a legal action in ``seat``'s menu now: plain words with the cost where the
        action has one ("buy card D10 (Napoli, 3 seals) for 5"), names instead of seat numbers.
        Menus, mails and the web client show this; :meth:`describe_action` is the fallback for an
        action seen without its position (a logged move). Games with costs override this."""
        return self.describe_action(action)

    def describe_event(self, event: Mapping[str, Any]) -> str:
        """An event in words for its reader, from its fields: a :class:`service.i18n.Phrase`, so the
        log page, the notices and the CLI show it in their reader's language (issue 29). Games
        override this; the default is the English sentence the event was stored with (``"text"``),
        which older records hold and which stays in new ones for readers that know no language."""
        return str(event.get("text") or event.get("type") or "")

    def render(self, view: Mapping[str, Any], language: str = "en") -> str:
        """A readable text rendering of a view (from :meth:`view`), for the CLI and mail, in
        ``language`` (a code of :mod:`service.i18n`; the words from the game's catalog)."""
        return json.dumps(dict(view), indent=2, sort_keys=True)

    def provisional(self) -> list[Provisional]:
        """The UNVERIFIED data values this game uses."""
        return []

    def seat_names(self, players: int) -> list[str]:
        """Names of the seats as the game calls them (colours)."""
        return [phrase("Seat {seat}", seat=i) for i in range(players)]

    # -- catalog ---------------------------------------------------------------------------

    def describe(self) -> dict[str, Any]:
        """The catalog entry of ``GET /v1/games/{game}``."""
        return {
            "id": self.id,
            "title": self.title,
            "players": {"min": self.players.start, "max": self.players.stop - 1},
            "options_schema": options_json_schema(self.options_schema),
            "actions": [
                {"type": t, "description": d, "schema": self.action_schemas.get(t, {})}
                for t, d in self.actions.items()
            ],
            "provisional": [p.to_json() for p in self.provisional()],
        }


def options_json_schema(schema: type[Schema]) -> dict[str, Any]:
    """A JSON Schema for a marshmallow options schema (the subset of field kinds games use)."""
    props: dict[str, Any] = {}
    for name, fld in schema().fields.items():
        props[name] = _field_json_schema(fld)
    return {"type": "object", "properties": props, "additionalProperties": False}


def _field_json_schema(fld: fields.Field[Any]) -> dict[str, Any]:
    out: dict[str, Any]
    if isinstance(fld, fields.Boolean):
        out = {"type": "boolean"}
    elif isinstance(fld, fields.Integer):
        out = {"type": "integer"}
    elif isinstance(fld, fields.Number):
        out = {"type": "number"}
    elif isinstance(fld, fields.List):
        out = {"type": "array", "items": _field_json_schema(fld.inner), "uniqueItems": True}
    else:
        out = {"type": "string"}
    for v in fld.validators:
        if isinstance(v, validate.OneOf):
            out["enum"] = list(v.choices)
        elif isinstance(v, validate.Range):
            if v.min is not None:
                out["minimum"] = v.min
            if v.max is not None:
                out["maximum"] = v.max
    default = fld.load_default
    if default is not None and default is not missing and not callable(default):
        out["default"] = default
    elif callable(default):
        out["default"] = default()
    desc = fld.metadata.get("description")
    if desc:
        out["description"] = desc
    return out
