"""Undo within a turn: the ``{"type": "undo"}`` action every game offers through :class:`TurnUndo`.

A seat may take back its own steps of the current turn, one per ``undo``, back to the turn's
start at most, and never past a step that drew on chance (a die, a shuffle), revealed something
hidden, or ended the turn (after which another seat acts and reacts). An undo is an ordinary
action: it is signed, logged and replayed like any other, so the log stays append-only and
``portolan verify`` checks it (18xx.games keeps its undo the same way).

How it is kept, compactly: while undo is possible the state carries an :class:`UndoTrail`, the
state just before the seat's first revocable step (``start``) and the actions taken since
(``steps``). Undo replays ``start`` with one step fewer. That needs no randomness, because a step
that draws ends the trail, and it gives back exactly the earlier state (the replayed steps rebuild
the same trail). A trail holds one earlier state, not one per step, so a state grows by at most
one copy of itself plus a few actions. When a step ends undo but the seat still acts (a die was
rolled mid-turn), the state keeps a :class:`UndoBlocked` with the reason, so that a refused undo
can say why. Views never show either: each game's ``view`` builds its JSON field by field, and
the trail's ``start`` may hold hidden information (a deck order) that a seat must not see.

Each game keeps its own rules functions and says, through the hooks below, how to store the trail
in its state and which steps are irrevocable besides those that draw.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from service.i18n import Phrase, phrase

from .base import Action, Applied, Event, Game, IllegalAction, InvalidAction, Rng

__all__ = [
    "UNDO",
    "TurnUndo",
    "Undo",
    "UndoBlocked",
    "UndoTrail",
    "fold_undone",
    "is_undo",
    "trail_from_json",
    "trail_to_json",
    "without_undo",
]

S = TypeVar("S")
E = TypeVar("E", bound=Mapping[str, Any])

UNDO = "undo"
"""The action type of an undo: ``{"type": "undo"}``, no other field."""

UNDO_DESCRIPTION = phrase("take back your own last step of this turn; repeat to go further back, to the turn's "
                          "start at most, never past a die roll, a revealed card or the end of your turn")
UNDO_LABEL = phrase("undo your last step")
UNDO_SCHEMA: dict[str, Any] = {"type": "object", "properties": {"type": {"const": UNDO}}, "required": ["type"],
                               "additionalProperties": False}

_NO_RANDOMNESS = bytes(32)
"""The key of the stream an undo replays with: revocable steps never draw, so it is never read."""


@dataclass(frozen=True, slots=True)
class UndoTrail:
    """What lets ``seat`` take back its revocable steps of this turn.

    ``start`` is the game state just before the first of them (its own ``undo`` is ``None`` or
    an :class:`UndoBlocked`, never a trail); ``steps`` are the actions taken since, in order."""

    seat: int
    start: Any
    steps: tuple[dict[str, Any], ...]


@dataclass(frozen=True, slots=True)
class UndoBlocked:
    """``seat`` still acts, but its last step cannot be taken back: ``why`` says so in words
    ("the die was rolled")."""

    seat: int
    why: str


Undo = UndoTrail | UndoBlocked | None


def is_undo(action: Mapping[str, Any]) -> bool:
    """Whether an action is the undo action."""
    return isinstance(action, Mapping) and action.get("type") == UNDO


def without_undo(actions: Sequence[Action]) -> list[Action]:
    """The legal actions a bot or a random playout may choose from: all but undo (a player that
    undoes at random could go back and forth for ever)."""
    return [a for a in actions if a.get("type") != UNDO]


def trail_to_json(undo: Undo, dump: Callable[[Any], dict[str, Any]]) -> dict[str, Any] | None:
    """The canonical JSON of a state's undo field (``dump`` dumps the trail's start state)."""
    if undo is None:
        return None
    if isinstance(undo, UndoBlocked):
        return {"seat": undo.seat, "why": undo.why}
    return {"seat": undo.seat, "start": dump(undo.start), "steps": [dict(a) for a in undo.steps]}


def trail_from_json(data: Mapping[str, Any] | None, load: Callable[[Mapping[str, Any]], Any]) -> Undo:
    """Inverse of :func:`trail_to_json`."""
    if data is None:
        return None
    if "why" in data:
        return UndoBlocked(int(data["seat"]), str(data["why"]))
    return UndoTrail(int(data["seat"]), load(data["start"]), tuple(dict(a) for a in data["steps"]))


class TurnUndo(Game[S]):
    """A game whose ``apply`` and ``legal_actions`` add undo within a turn to its own rules.

    A subclass implements :meth:`step` and :meth:`step_actions` (its rules, unaware of undo),
    stores the trail with :meth:`undo_of` / :meth:`with_undo`, and names its irrevocable steps in
    :meth:`commits`. Every step that draws on the Rng is irrevocable whatever the game says, and
    so is every step after which another seat acts."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Add undo to the subclass's action vocabulary, schemas and words (the catalog, the
        OpenAPI document and the menus read them there)."""
        super().__init_subclass__(**kwargs)
        cls.actions = {**cls.actions, UNDO: UNDO_DESCRIPTION}
        cls.action_schemas = {**cls.action_schemas, UNDO: UNDO_SCHEMA}
        own = cls.describe_action

        def describe_action(self: Game[Any], action: Mapping[str, Any]) -> str:
            return UNDO_LABEL if is_undo(action) else own(self, action)

        describe_action.__doc__ = own.__doc__
        cls.describe_action = describe_action  # type: ignore[method-assign]
        own_event = cls.describe_event

        def describe_event(self: Game[Any], event: Mapping[str, Any]) -> str:
            said = own_event(self, event)
            # a game that words its own undo events (its colours, in the reader's language) is
            # heard first; one whose words are only the stored English text gets undo's own
            if event.get("type") == "undone" and isinstance(self, TurnUndo) and not isinstance(said, Phrase):
                return self.describe_undone(event)
            return said

        describe_event.__doc__ = own_event.__doc__
        cls.describe_event = describe_event  # type: ignore[method-assign]

    # -- hooks -----------------------------------------------------------------------------

    @abstractmethod
    def step(self, state: S, seat: int, action: Mapping[str, Any], rng: Rng) -> Applied[S]:
        """The game's own ``apply`` for every action but undo (``state`` carries no undo data)."""

    @abstractmethod
    def step_actions(self, state: S, seat: int) -> list[Action]:
        """The game's own legal actions, undo left out."""

    @abstractmethod
    def undo_of(self, state: S) -> Undo:
        """The undo field of a state."""

    @abstractmethod
    def with_undo(self, state: S, undo: Undo) -> S:
        """A copy of ``state`` with its undo field set."""

    def commits(self, before: S, after: S, seat: int, action: Mapping[str, Any]) -> str | None:
        """Why the step ``before`` -> ``after`` cannot be taken back (it revealed something hidden,
        or ended the seat's turn although the seat acts again), as words that complete "nothing to
        undo: ..." ("a market card was revealed"); ``None`` when it can. Steps that draw on the Rng
        and steps after which another seat acts are already irrevocable; a game adds its own here."""
        return None

    def drew_why(self, action: Mapping[str, Any]) -> str:
        """The words for a step that drew on the Rng, completing "nothing to undo: ..."."""
        return phrase("your last step drew on chance (a die roll or a shuffle)")

    def seat_label(self, state: S, seat: int) -> str:
        """How the undo event names a seat."""
        return phrase("Seat {seat}", seat=seat)

    def event_seat_label(self, event: Mapping[str, Any]) -> str:
        """How :meth:`describe_undone` names the seat of an ``undone`` event, from the event alone:
        by default the name its stored English ``text`` gave (what :meth:`seat_label` said then), or
        "Seat n". A game whose seat names are words (colours) overrides this to say them in the
        reader's language (a :class:`service.i18n.Phrase`)."""
        text = str(event.get("text") or "")
        if " took back: " in text:
            return text.split(" took back: ", 1)[0]
        return phrase("Seat {seat}", seat=event.get("seat"))

    def describe_undone(self, event: Mapping[str, Any]) -> str:
        """An ``undone`` event in words for its reader ("Red took back: build a warehouse in Napoli.")."""
        action = event.get("action")
        what = self.describe_action(action) if isinstance(action, Mapping) else ""
        return phrase("{who} took back: {action}.", who=self.event_seat_label(event), action=what)

    # -- the contract ------------------------------------------------------------------------

    def legal_actions(self, state: S, seat: int) -> list[Action]:
        """The game's legal actions, plus ``{"type": "undo"}`` last when the seat may undo."""
        actions = self.step_actions(state, seat)
        undo = self.undo_of(state)
        if actions and isinstance(undo, UndoTrail) and undo.seat == seat:
            return [*actions, {"type": UNDO}]  # a new list: a game may hand out a list it keeps
        return actions

    def apply(self, state: S, seat: int, action: Mapping[str, Any], rng: Rng) -> Applied[S]:
        """Undo, or the game's step with the undo trail kept up to date."""
        if is_undo(action):
            return self._undo(state, seat, action)
        undo = self.undo_of(state)
        bare = self.with_undo(state, None) if undo is not None else state
        draws = rng.draws
        new, events = self.step(bare, seat, action, rng)
        for e in events:
            if e.get("takes_back") == "trail":  # the game rewound the whole turn: count what it took back
                e["takes_back"] = self.trail_events(state, seat)
        return Applied(self._after(state, bare, new, seat, action, rng.draws != draws), events)

    def _after(self, state: S, bare: S, new: S, seat: int, action: Mapping[str, Any], drew: bool) -> S:
        """``new`` with its undo field: the trail grown by ``action``, a reason it ended, or nothing."""
        if self.active_seats(new) != [seat]:
            return new  # another seat acts (or nobody): the turn is over, nothing is undone past it
        why = self.drew_why(action) if drew else self.commits(bare, new, seat, action)
        if why is not None:
            return self.with_undo(new, UndoBlocked(seat, why))
        undo = self.undo_of(state)
        if isinstance(undo, UndoTrail) and undo.seat == seat:
            trail = UndoTrail(seat, undo.start, (*undo.steps, dict(action)))
        else:  # a trail of another seat cannot outlive its turn; strip it all the same
            trail = UndoTrail(seat, bare if isinstance(undo, UndoTrail) else state, (dict(action),))
        return self.with_undo(new, trail)

    def _undo(self, state: S, seat: int, action: Mapping[str, Any]) -> Applied[S]:
        extra = sorted(set(action) - {"type"})
        if extra:
            raise InvalidAction("bad-action", phrase("undo takes no fields, not {extra}", extra=', '.join(extra)))
        if seat not in self.active_seats(state):
            raise IllegalAction("nothing-to-undo", phrase("nothing to undo: it is not your turn"))
        undo = self.undo_of(state)
        if isinstance(undo, UndoBlocked) and undo.seat == seat:
            raise IllegalAction("nothing-to-undo", phrase("nothing to undo: {why}", why=undo.why))
        if not isinstance(undo, UndoTrail) or undo.seat != seat:
            raise IllegalAction("nothing-to-undo", phrase("nothing to undo: you have taken no step this turn that can be taken back"))
        rng = Rng(_NO_RANDOMNESS)
        before = undo.start
        for step in undo.steps[:-1]:
            before = self.apply(before, seat, step, rng).state
        last = undo.steps[-1]
        # the undone step again, only to count its events: a reader of the log drops that many
        taken_back = self.step(self.with_undo(before, None), seat, last, rng).events
        if rng.draws:
            raise AssertionError("an undo replayed a step that draws on chance")
        event: Event = {"type": "undone", "seat": seat, "action": dict(last), "takes_back": len(taken_back),
                        "text": f"{self.seat_label(state, seat)} took back: {self.describe_action(last)}."}
        return Applied(before, [event])

    def trail_events(self, state: S, seat: int) -> int:
        """How many events the steps in ``state``'s trail caused (0 without a trail of ``seat``):
        what a game's own rewind of the whole turn (El Capitán's dead end) takes back."""
        undo = self.undo_of(state)
        if not isinstance(undo, UndoTrail) or undo.seat != seat:
            return 0
        rng = Rng(_NO_RANDOMNESS)
        count = 0
        current = undo.start
        for step in undo.steps:
            current, events = self.step(self.with_undo(current, None), seat, step, rng)
            count += len(events)
        return count


def fold_undone(events: Sequence[E]) -> list[E]:
    """Events as if undone steps never happened: an event with ``takes_back: k`` removes the ``k``
    events before it; an ``undone`` event is dropped itself too (a step taken back is no news).

    For lists that tell people what happened ("since your last move"): the log itself keeps
    everything."""
    out: list[E] = []
    for e in events:
        k = e.get("takes_back")
        if isinstance(k, int) and not isinstance(k, bool) and k > 0:
            del out[max(0, len(out) - k):]
        if e.get("type") != "undone":
            out.append(e)
    return out
