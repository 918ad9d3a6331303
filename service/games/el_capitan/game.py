"""The El Capitán ``Game``: setup, the contract methods and the words for people."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from marshmallow import Schema, fields, validate

from service.games.base import (
    Action,
    Applied,
    Event,
    InvalidAction,
    Outcome,
    Provisional,
    Rng,
    StrictInteger,
    UniqueList,
)
from service.games.undo import TurnUndo, Undo
from service.i18n import phrase

from . import data as D
from .events import sentence, told
from .labels import label
from .legal import legal_actions
from .moves import apply_checked
from .state import (
    FREE,
    OFF,
    OVER,
    PIRATE,
    TURN,
    City,
    Player,
    State,
    Turn,
    dump_state,
    load_state,
    main_colour,
    replace,
    seat_colours,
)
from .validate import check, normalise
from .view import render, view
from .words import colour, describe_action, player


class ElCapitanOptions(Schema):
    expansions = UniqueList(
        fields.String(validate=validate.OneOf(D.EXPANSION_IDS)),
        load_default=list,
        metadata={"description": "Expansion city tiles in play (rule §8): any subset of porto, lisboa, canarias; "
                                 "canarias brings the pirate ship."},
    )
    start_player = StrictInteger(
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=0, max=4),
        metadata={"description": "Seat of the phase-1 start player (the youngest player, §2); random if omitted."},
    )


_CARD_IDS = sorted(D.CARDS)
_CITY_IDS = [c.id for c in (*D.BASE_CITIES, *D.EXPANSION_CITIES)]
_MAX_HARBOURS = max(len(c.harbours) for c in D.ALL_CITIES.values())
_MAX_FORTS = max(len(c.fortresses) for c in D.ALL_CITIES.values())


def _schema(kind: str, props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"type": {"const": kind}, **props},
        "required": ["type", *required],
        "additionalProperties": False,
    }


ACTIONS: dict[str, str] = {
    "buy-card": "buy one displayed sailing card at its printed price (§5.3)",
    "sail": "play one sailing card from your hand for one leg of your voyage to a city (§5.2)",
    "build-warehouse": "build a warehouse in the city where your ship lies (§5.4); site only for the first warehouse of a city, colour only with 2 players",
    "reopen": "re-open one of your shut-down warehouses in the city where your ship lies, free (§5.7)",
    "build-fortress": "build a fortress on an empty fortress space of the city where your ship lies (§5.8)",
    "move-pirate": ("move the pirate ship (Islas Canarias): free after anchoring there, or paid by money or by cards (§8.4); "
                    "a card leg without 'harbour' is a stop and the voyage sails on with another card"),
    "take-loan": "take a 10- or 16-Florin loan: the whole turn at the bank (§5.9), or forced at loan settlement (R-15)",
    "pass": ("pass in the first round when nothing else is possible (R-4); from a dead end of tentative steps it "
             "first undoes them, once per turn (R-1), also later when no loan card may be taken (R-17)"),
    "end-turn": "end your turn after its action; the displays are refilled (§5.1)",
    "settle-loan": "after a payday: repay or extend your current loan card (§6.4)",
    "choose-start-player": "as the poorest player after the money check, choose the next start player (§6.4)",
}

ACTION_SCHEMAS: dict[str, dict[str, Any]] = {
    "buy-card": _schema("buy-card", {"card": {"type": "string", "enum": _CARD_IDS}}, ["card"]),
    "sail": _schema("sail", {"card": {"type": "string", "enum": _CARD_IDS}, "to": {"type": "string", "enum": _CITY_IDS}},
                    ["card", "to"]),
    "build-warehouse": _schema("build-warehouse", {"site": {"type": "integer", "enum": [1, 2]},
                                                   "colour": {"type": "string", "enum": list(D.COLOURS)}}, []),
    "reopen": _schema("reopen", {"site": {"type": "integer", "enum": [1, 2]},
                                 "colour": {"type": "string", "enum": list(D.COLOURS)}}, []),
    "build-fortress": _schema("build-fortress", {"space": {"type": "integer", "minimum": 1, "maximum": _MAX_FORTS}}, ["space"]),
    "move-pirate": {
        **_schema("move-pirate", {
            "to": {"type": "string", "enum": _CITY_IDS,
                   "description": "The city the pirate reaches with this move or leg."},
            "harbour": {"type": "integer", "minimum": 1, "maximum": _MAX_HARBOURS,
                        "description": "1-based harbour space where the pirate ends its move. Required for 'free' and "
                                       "'money'; with 'card', omit it for a stop on a voyage of several cards (§8.4)."},
            "means": {"type": "string", "enum": ["free", "money", "card"]},
            "card": {"type": "string", "enum": _CARD_IDS,
                     "description": "The sailing card played for this leg; given exactly when means is 'card'."}},
            ["to", "means"]),
        # §8.4: a card leg may stop over (no harbour); free and money moves always end on a harbour space.
        "if": {"properties": {"means": {"const": "card"}}},
        "then": {"required": ["card"]},
        "else": {"required": ["harbour"], "not": {"required": ["card"]}},
    },
    "take-loan": _schema("take-loan", {"amount": {"type": "integer", "enum": list(D.LOAN_AMOUNTS)}}, ["amount"]),
    "pass": _schema("pass", {}, []),
    "end-turn": _schema("end-turn", {}, []),
    "settle-loan": _schema("settle-loan", {"loan": {"type": "integer", "minimum": 0},
                                           "choice": {"type": "string", "enum": ["repay", "extend"]}}, ["loan", "choice"]),
    "choose-start-player": _schema("choose-start-player", {"seat": {"type": "integer", "minimum": 0, "maximum": 4}}, ["seat"]),
}


def initial_state(players: int, expansions: list[str], start: int, rng: Rng) -> Applied[State]:
    """Setup (§2): 20 Florin, 6 warehouses + 1 fortress (+2 neutral with 2 players), shuffled decks and displays."""
    events: list[Event] = []
    ids = [c.id for c in D.BASE_CITIES] + [e for e in D.EXPANSION_IDS if e in expansions]
    ncol = len(D.COLOURS)
    cities = []
    pirate = -1
    for i, cid in enumerate(ids):
        cd = D.ALL_CITIES[cid]
        harbours = [FREE] * len(cd.harbours)
        if "pirate_ship" in cd.special:
            harbours[D.PIRATE_START_HARBOUR - 1] = PIRATE
            pirate = i
        cities.append(City((FREE,) * len(cd.track), (0,) * ncol, tuple(harbours), (FREE,) * len(cd.fortresses), 0))
    pool_w = [D.WAREHOUSES_PER_COLOUR] * ncol
    pool_f = [D.FORTRESSES_PER_COLOUR] * ncol
    ps = []
    for s in range(players):
        m = main_colour(players, s)
        pool_w[m] -= D.SUPPLY_WAREHOUSES
        pool_f[m] -= D.SUPPLY_FORTRESSES
        neutral = 0
        if players == 2:
            pool_w[seat_colours(2, s)[1]] -= D.SUPPLY_NEUTRAL
            neutral = D.SUPPLY_NEUTRAL
        ps.append(Player(D.START_MONEY, OFF, -1, (), (), D.SUPPLY_WAREHOUSES, neutral, D.SUPPLY_FORTRESSES, 0))
    dest = rng.shuffled(D.DESTINATION_IDS)
    conn = rng.shuffled(D.CONNECTION_IDS)
    events.append(told({"type": "decks-shuffled", "destination": dest, "connection": conn, "visible_to": []}))
    state = State(
        players=tuple(ps), city_ids=tuple(ids), cities=tuple(cities),
        dest_deck=tuple(dest[D.DISPLAY_DESTINATION:]), dest_display=tuple(dest[: D.DISPLAY_DESTINATION]), dest_discard=(),
        conn_deck=tuple(conn[D.DISPLAY_CONNECTION:]), conn_display=tuple(conn[: D.DISPLAY_CONNECTION]), conn_discard=(),
        pool_warehouses=tuple(pool_w), pool_fortresses=tuple(pool_f), removed=(0,) * ncol,
        bonus_left=tuple(sorted(D.BONUS_CARDS, reverse=True)),
        phase=1, round=1, seat=start, start=start, ending=False, stage="turn",
        turn=Turn(OFF, False, False, False, False, None), settle_pos=0, settle_loan=0, settle_count=0, pirate=pirate,
    )
    events.append(told({"type": "start-player", "seat": start, "players": players}))
    return Applied(state, events)


class ElCapitan(TurnUndo[State]):
    """El Capitán (Kramer & Rösner, 2007) for 2-5 players, with the 2-player rules and the expansion cities."""

    id = "el-capitan"
    title = "El Capitán"
    players = range(2, 6)
    options_schema = ElCapitanOptions
    actions = ACTIONS
    action_schemas = ACTION_SCHEMAS

    def check_options(self, options: Mapping[str, Any], players: int) -> None:
        """The start player is a seat of this match (the schema's range only knows the largest
        table, five seats)."""
        start = options.get("start_player")
        if start is not None and not 0 <= start < players:
            raise InvalidAction("bad-options", phrase("start_player must be a seat of this match, 0 to {last}, not "
                                                      "{start} (rule §2: the start player is one of the players)",
                                                      last=players - 1, start=start))

    def setup(self, players: int, options: Mapping[str, Any], rng: Rng) -> Applied[State]:
        if players not in self.players:
            raise InvalidAction("bad-players", phrase("El Capitán is for 2 to 5 players, not {players}", players=players))
        start = options.get("start_player")
        if start is None:
            start = rng.randbelow(players)
        elif not 0 <= start < players:
            raise InvalidAction("bad-options", phrase("start_player must be a seat below {players}", players=players))
        return initial_state(players, list(options.get("expansions") or []), start, rng)

    def active_seats(self, state: State) -> list[int]:
        return [] if state.stage == OVER else [state.seat]

    def step_actions(self, state: State, seat: int) -> list[Action]:
        return legal_actions(state, seat)

    def step(self, state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Applied[State]:
        a = normalise(action)
        check(state, seat, a)
        new, events = apply_checked(state, seat, a, rng)
        return Applied(new, events)

    def undo_of(self, state: State) -> Undo:
        return state.undo

    def with_undo(self, state: State, undo: Undo) -> State:
        return replace(state, undo=undo)

    def commits(self, before: State, after: State, seat: int, action: Mapping[str, Any]) -> str | None:
        """R-1: a turn's steps may be taken back until it ends. A turn ends with "end-turn", a loan
        (the whole turn at the bank, R-2) or a pass (which also rewinds a dead end, R-4); loan
        settlement and the start-player choice follow a payday, whose displays were refilled."""
        if before.stage != TURN:
            return phrase("loan settlement and the choice of the start player are final")
        if action.get("type") in ("end-turn", "take-loan", "pass"):
            return phrase("your turn was ended or rewound from a dead end")
        return None

    def seat_label(self, state: State, seat: int) -> str:
        """A seat by its colour ("Red"), as a Phrase."""
        return player(state.n, seat)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return view(state, seat)

    def render(self, view: Mapping[str, Any], language: str = "en") -> str:
        """The text board of ``view`` in ``language`` (:func:`.view.render`)."""
        return render(view, language)

    def outcome(self, state: State) -> Outcome | None:
        """Most money wins; ties share the victory (R-16). ``detail`` also gives R-16's house order
        (fewer shut-down warehouses, then seat order from the phase-3 start player) for a UI that needs one winner."""
        if state.stage != OVER:
            return None
        n = state.n
        money = [p.money for p in state.players]
        ranks = tuple(1 + sum(1 for m in money if m > mine) for mine in money)
        shut = []
        for s in range(n):
            cols = seat_colours(n, s)
            shut.append(sum(c.closed[k] for c in state.cities for k in cols) + sum(state.removed[k] for k in cols))
        house = sorted(range(n), key=lambda s: (-money[s], shut[s], (s - state.start) % n))
        return Outcome(tuple(money), ranks, {
            "money": money,
            "shut_down_warehouses": shut,
            "tie_break": "shared victory on equal money (R-16)",
            "house_order": house,
            "house_tie_break": "not in the rules: fewer shut-down warehouses, then seat order from the phase-3 start player (R-16)",
        })

    def dump(self, state: State) -> dict[str, Any]:
        return dump_state(state)

    def load(self, data: Mapping[str, Any]) -> State:
        return load_state(data)

    def provisional(self) -> list[Provisional]:
        return D.provisional()

    def seat_names(self, players: int) -> list[str]:
        """The seats' colours ("red"), as Phrases."""
        return [colour(D.COLOURS[main_colour(players, s)]) for s in range(players)]

    def describe_action(self, action: Mapping[str, Any]) -> str:
        """Plain words for an action seen without its position, as a Phrase (:func:`.words.describe_action`)."""
        return describe_action(action)

    def describe_event(self, event: Mapping[str, Any]) -> str:
        """An event's words from its fields, as a Phrase (:func:`.events.sentence`); an event of an older
        record that lacks a field they need is told by its stored English ``"text"``."""
        said = sentence(event)
        return said if said is not None else super().describe_event(event)

    def label_action(self, state: State, seat: int, action: Mapping[str, Any]) -> str:
        # self.describe_action, not the module's: undo's words are added to the method (TurnUndo)
        return label(state, seat, action, self.describe_action(action))

