"""Checking an incoming action: its JSON shape (InvalidAction) and, when the rules refuse it, a
sentence naming the rule (IllegalAction)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.games.base import IllegalAction, InvalidAction
from service.games.words import count

from .data import ALL_CITIES, CARDS, COLOURS, LOAN_AMOUNTS, LOAN_COPIES, LOANS, PIRATE_STEP_COST
from .legal import GENERATORS
from .progress import loan_cards_left
from .rules import (
    at_building_city,
    canarias_index,
    card_targets,
    city_index,
    distance,
    first_round,
    free_pirate_due,
)
from .state import FREE, OVER, SETTLE, TURN, State, city_data, main_colour, seat_colours
from .track import next_sites

# field name -> (python type, required)
FIELDS: dict[str, dict[str, tuple[type, bool]]] = {
    "buy-card": {"card": (str, True)},
    "sail": {"card": (str, True), "to": (str, True)},
    "build-warehouse": {"site": (int, False), "colour": (str, False)},
    "reopen": {"site": (int, False), "colour": (str, False)},
    "build-fortress": {"space": (int, True)},
    "move-pirate": {"to": (str, True), "harbour": (int, False), "means": (str, True), "card": (str, False)},
    "take-loan": {"amount": (int, True)},
    "pass": {},
    "end-turn": {},
    "settle-loan": {"loan": (int, True), "choice": (str, True)},
    "choose-start-player": {"seat": (int, True)},
}


def normalise(action: Mapping[str, Any]) -> dict[str, Any]:
    """The action as a plain dict, or InvalidAction if it is not an El Capitán action at all."""
    if not isinstance(action, Mapping):
        raise InvalidAction("not-an-object", "an action is a JSON object with a 'type'")
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in FIELDS:
        raise InvalidAction("unknown-action", f"unknown action type {kind!r}; expected one of {', '.join(sorted(FIELDS))}")
    spec = FIELDS[kind]
    out: dict[str, Any] = {"type": kind}
    for key, value in action.items():
        if key == "type":
            continue
        if key not in spec:
            raise InvalidAction("unknown-field", f"{kind}: unexpected field {key!r}")
        typ, _req = spec[key]
        if not isinstance(value, typ) or isinstance(value, bool):
            raise InvalidAction("bad-field", f"{kind}: field {key!r} must be a {typ.__name__}")
        out[key] = value
    for key, (_typ, req) in spec.items():
        if req and key not in out:
            raise InvalidAction("missing-field", f"{kind}: missing field {key!r}")
    if "card" in out and out["card"] not in CARDS:
        raise InvalidAction("unknown-card", f"there is no sailing card {out['card']!r}")
    for key in ("to",):
        if key in out and out[key] not in ALL_CITIES:
            raise InvalidAction("unknown-city", f"there is no city {out[key]!r}")
    if "colour" in out and out["colour"] not in COLOURS:
        raise InvalidAction("unknown-colour", f"there is no colour {out['colour']!r}")
    if kind == "take-loan" and out["amount"] not in LOAN_AMOUNTS:
        raise InvalidAction("bad-loan", f"a loan is of {' or '.join(map(str, LOAN_AMOUNTS))} Florin")
    if kind == "move-pirate" and out["means"] not in ("free", "money", "card"):
        raise InvalidAction("bad-field", "move-pirate: means is 'free', 'money' or 'card'")
    if kind == "move-pirate" and (out["means"] == "card") != ("card" in out):
        raise InvalidAction("bad-field", "move-pirate: a 'card' is given exactly when means is 'card'")
    if kind == "move-pirate" and out["means"] != "card" and "harbour" not in out:
        raise InvalidAction("missing-field", "move-pirate: 'harbour' is required unless means is 'card' "
                                             "(a card leg without it is a stop on the pirate's voyage)")
    if kind == "settle-loan" and out["choice"] not in ("repay", "extend"):
        raise InvalidAction("bad-field", "settle-loan: choice is 'repay' or 'extend'")
    return out


def check(state: State, seat: int, a: dict[str, Any]) -> None:
    """Raise IllegalAction unless ``a`` is one of the seat's legal actions of its type."""
    if state.stage == OVER:
        raise IllegalAction("game-over", "the game is over")
    if seat != state.seat:
        raise IllegalAction("not-your-turn", f"it is {_colour(state, state.seat)}'s move, not {_colour(state, seat)}'s")
    if state.stage == TURN and state.turn.pirate_transit >= 0 and a["type"] != "move-pirate":
        raise IllegalAction("pirate-in-transit", "the pirate ship is under way: play its next card or end its voyage "
                                                 "on a harbour space first (rule §8.4)")
    if a in GENERATORS[a["type"]](state, seat):
        return
    code, msg = explain(state, seat, a)
    raise IllegalAction(code, msg)


def _colour(state: State, seat: int) -> str:
    """A seat as players call it: its (main) colour."""
    return COLOURS[main_colour(state.n, seat)].capitalize()


def _loan_text(state: State, seat: int) -> str:
    """The loan being settled in words ("10-Florin loan", "extended 16-Florin loan")."""
    loans = state.players[seat].loans
    if state.settle_loan >= len(loans):
        return "loan"
    amount, extended = loans[state.settle_loan]
    return f"{'extended ' if extended else ''}{amount}-Florin loan"


def explain(state: State, seat: int, a: dict[str, Any]) -> tuple[str, str]:
    """Why a well-formed action is refused, citing the rule."""
    kind = a["type"]
    p = state.players[seat]
    t = state.turn
    if kind in ("settle-loan",) and state.stage != SETTLE:
        return "not-settling", "loans are repaid or extended only after a payday (rule §6.4, R-27)"
    if kind == "choose-start-player":
        return "not-choosing", "the poorest player chooses the next start player only after the money check (rule §6.4)"
    if kind == "settle-loan":
        return "bad-settlement", (f"settle your {_loan_text(state, seat)} now: repay it if you can afford it, or extend it "
                                  "(rule §6.4)")
    if state.stage != TURN:
        return "not-now", "only the after-payday steps can be taken now (rule §6.4)"
    if kind == "buy-card":
        if a["card"] not in (*state.dest_display, *state.conn_display):
            return "card-not-displayed", f"card {a['card']} is not on display (rule §5.3)"
        return "cannot-afford", f"you cannot afford card {a['card']} (rule §5.3)"
    if kind == "sail":
        if t.acted:
            return "sail-after-action", "you may sail only before the turn's action (rule §5.1)"
        if t.free_pirate:
            return "sail-after-pirate", "after the free pirate move the ship stays in Islas Canarias (rule §8.4)"
        if a["card"] not in p.hand:
            return "card-not-in-hand", f"you do not hold card {a['card']} (rule §5.2)"
        to = city_index(state, a["to"])
        if to < 0:
            return "city-not-in-play", f"{ALL_CITIES[a['to']].name} is not in play"
        card = CARDS[a["card"]]
        if card.kind == "connection":
            return "bad-connection", "a connection card takes the ship from one of its two cities to the other (rule §5.2)"
        if p.ship < 0:
            return "bad-voyage", "from the bank or off the board only a destination card used as a destination sails (rule §5.2, §8.1)"
        return "out-of-reach", (f"{ALL_CITIES[a['to']].name} is not within {count(card.seals, 'seal step')} and is not "
                                   "the card's destination (rule §5.2, R-10)")
    if kind in ("build-warehouse", "reopen", "build-fortress"):
        if t.acted:
            return "already-acted", "a turn has exactly one action (rule §5.1)"
        if p.ship < 0 or p.berth < 0:
            return "not-anchored", "your ship must lie on a harbour space of the city (rule §5.4)"
        if not at_building_city(state, seat):
            return "back-to-origin", "a voyage may not end in the city where it began (R-7)"
        cd = city_data(state, p.ship)
        city = state.cities[p.ship]
        if kind == "build-fortress":
            if p.fortresses <= 0:
                return "no-fortress", "you have no fortress in your supply (rule §5.8)"
            sp = a["space"]
            if not 1 <= sp <= len(city.forts) or city.forts[sp - 1] >= 0:
                return "space-taken", f"fortress space {sp} is not free in {cd.name} (rule §5.8)"
            if cd.fortresses[sp - 1] > p.money:
                return "cannot-afford", f"the fortress costs {cd.fortresses[sp - 1]} (rule §5.8)"
            return "one-fortress-per-city", f"you already have a fortress in {cd.name} (rule §5.8)"
        if not next_sites(city):
            return "city-full", f"all building sites of {cd.name} are occupied (rule §5.4)"
        if kind == "build-warehouse":
            if cd.harbours[p.berth] > p.money:
                return "cannot-afford", f"a warehouse costs {cd.harbours[p.berth]} from your harbour space (rule §5.4)"
            if p.warehouses + p.neutral <= 0:
                return "no-warehouse", "you have no warehouse in your supply (rule §5.4)"
        elif not any(city.closed[c] for c in seat_colours(state.n, seat)):
            return "nothing-closed", f"you have no shut-down warehouse in {cd.name} (rule §5.7)"
        nxt = next_sites(city)
        if "site" in a and a["site"] not in nxt:
            return "wrong-site", f"the next warehouse in {cd.name} goes on site {nxt[0]} (rule §5.4)"
        if "site" in a and len(nxt) == 1:
            return "no-site-choice", f"only the first warehouse of a city chooses its site; this one goes on site {nxt[0]} (rule §5.4): omit 'site'"
        if "site" not in a and len(nxt) > 1:
            return "site-required", f"the first warehouse in {cd.name} goes on site 1 or 2: give 'site' (rule §5.4)"
        if state.n == 2 and "colour" not in a:
            return "colour-required", "with 2 players, say which colour you place: 'colour' (rule §7)"
        if state.n > 2 and "colour" in a:
            return "no-colour-choice", "only the 2-player game chooses a colour (rule §7): omit 'colour'"
        if "colour" in a and a["colour"] not in (COLOURS[c] for c in seat_colours(state.n, seat)):
            return "not-your-colour", f"{a['colour']} is not one of your colours (rule §7, R-18)"
        if kind == "reopen":
            col = COLOURS.index(a["colour"]) if "colour" in a else seat
            if city.closed[col] <= 0:
                return "nothing-closed", f"you have no shut-down {COLOURS[col]} warehouse in {cd.name} (rule §5.7)"
        if state.n == 2:
            return "limit", (f"{cd.name}: that colour breaks the supply ratio or the run limits "
                             "(rule §7: more main than neutral warehouses in supply; at most 3 main / 4 own in a row)")
        return "run-limit", f"{cd.name}: you would have more than three warehouses in a row (rule §5.5: no more than three in a row)"
    if kind == "take-loan":
        if first_round(state):
            return "no-loan-first-round", "no loans in the first round of the game (rule §5.9)"
        if not t.acted and a.get("amount") in LOAN_COPIES and loan_cards_left(state, a["amount"]) <= 0:
            return "no-loan-cards", (f"all {LOAN_COPIES[a['amount']]} {a['amount']}-Florin loan cards are taken and you can "
                                     "still build, so there is no loan turn of that amount (rule §5.9, R-17: only a forced "
                                     "bank trip takes a loan beyond the printed cards)")
        return "already-acted", "a loan is the turn's action; you have already acted (rule §5.9)"
    if kind == "pass":
        return "cannot-pass", "there is no pass: build, re-open, build a fortress or take a loan (rule §5.9, R-4)"
    if kind == "end-turn":
        if not t.acted:
            return "no-action-yet", "a turn needs its action first: build, re-open, fortress or loan (rule §5.1, §5.9)"
        return "pirate-due", "after anchoring in Islas Canarias you must move the pirate ship (rule §8.4)"
    if kind == "move-pirate":
        return _explain_pirate(state, seat, a)
    if kind == "settle-loan":
        amt = p.loans[state.settle_loan][0] if state.settle_loan < len(p.loans) else 0
        return "cannot-repay", f"repaying costs {LOANS.get(amt, (0, 0))[0]} (rule §6.4)"
    return "illegal", f"{kind} is not allowed now"


def _explain_pirate(state: State, seat: int, a: dict[str, Any]) -> tuple[str, str]:
    """Why a pirate move is refused (§8.4, R-21, R-36)."""
    t = state.turn
    transit = t.pirate_transit
    if state.pirate < 0:
        return "no-pirate", "the pirate ship is used only with Islas Canarias (rule §8.4)"
    if transit < 0 and t.pirate_moved:
        return "pirate-moved", "the pirate moves at most once per turn (R-21)"
    means = a["means"]
    if transit >= 0 and means != "card":
        return "pirate-in-transit", ("the pirate ship is under way by cards: play its next card "
                                     "(rule §8.4: by cards or by money, not both)")
    if means == "free" and not free_pirate_due(state, seat):
        return "no-free-move", "the free pirate move follows your anchoring in Islas Canarias (rule §8.4)"
    if means != "free" and free_pirate_due(state, seat):
        return "free-move-due", "you arrived in Islas Canarias: make the free pirate move (rule §8.4, R-21)"
    to = city_index(state, a["to"])
    if to < 0:
        return "city-not-in-play", f"{ALL_CITIES[a['to']].name} is not in play"
    cname = city_data(state, to).name
    if means == "card":
        cid = a["card"]
        if cid not in state.players[seat].hand:
            return "card-not-in-hand", f"you do not hold card {cid} (rule §8.4: the pirate sails with your sailing cards)"
        at = transit if transit >= 0 else state.pirate
        if to not in card_targets(state, cid, at):
            return "bad-pirate-move", (f"card {cid} cannot take the pirate from {city_data(state, at).name} to {cname} "
                                       "(rule §8.4 with §5.2: destination, sea route or a connection card naming its city)")
        if "harbour" not in a:
            return "voyage-cannot-end", (f"from {cname} the cards left in your hand cannot bring the pirate to a city "
                                         "with a free harbour space, where its voyage must end (rule §8.4)")
    if to == state.pirate:
        if transit >= 0:
            return "pirate-origin", "the pirate's voyage must end in another city than the one it set off from (rule §8.4, R-36)"
        return "same-city", "the pirate never changes space within a city (rule §8.4)"
    if means == "free" and to == canarias_index(state):
        return "bad-pirate-move", "the free pirate move goes to another city than Islas Canarias (rule §8.4, R-36)"
    if FREE not in state.cities[to].harbours:
        return "no-free-harbour", f"{cname} has no free harbour space: the pirate may end its move only where one is free (rule §8.4)"
    if not 1 <= a["harbour"] <= len(state.cities[to].harbours):
        return "bad-harbour", f"{cname} has harbour spaces 1 to {len(state.cities[to].harbours)} (rule §8.4)"
    if means == "money":
        cost = PIRATE_STEP_COST * distance(city_data(state, state.pirate), city_data(state, to))
        if cost > state.players[seat].money:
            return "cannot-afford", f"moving the pirate there costs {cost} (rule §8.4)"
    return "bad-pirate-move", "the pirate needs a target city with a free harbour space, reachable by the means given (rule §8.4, R-36)"
