"""Checking an incoming action: its JSON shape (InvalidAction) and, when the rules refuse it, a
sentence naming the rule (IllegalAction)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.games.base import IllegalAction, InvalidAction
from service.i18n import phrase, phrase_n

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
from .state import FREE, OVER, SETTLE, TURN, State, city_data, seat_colours
from .track import next_sites
from .words import colour, player

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
        raise InvalidAction("not-an-object", phrase("an action is a JSON object with a 'type'"))
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in FIELDS:
        raise InvalidAction("unknown-action", phrase("unknown action type {kind}; expected one of {kinds}",
                                                     kind=repr(kind),
                                                     kinds=", ".join(sorted(FIELDS))))
    spec = FIELDS[kind]
    out: dict[str, Any] = {"type": kind}
    for key, value in action.items():
        if key == "type":
            continue
        if key not in spec:
            raise InvalidAction("unknown-field", phrase("{kind}: unexpected field {field}", kind=kind, field=repr(key)))
        typ, _req = spec[key]
        if not isinstance(value, typ) or isinstance(value, bool):
            raise InvalidAction("bad-field", phrase("{kind}: field {field} must be a {type}",
                                                    kind=kind, field=repr(key),
                                                    type=typ.__name__))
        out[key] = value
    for key, (_typ, req) in spec.items():
        if req and key not in out:
            raise InvalidAction("missing-field", phrase("{kind}: missing field {field}", kind=kind, field=repr(key)))
    if "card" in out and out["card"] not in CARDS:
        raise InvalidAction("unknown-card", phrase("there is no sailing card {card}", card=repr(out["card"])))
    for key in ("to",):
        if key in out and out[key] not in ALL_CITIES:
            raise InvalidAction("unknown-city", phrase("there is no city {city}", city=repr(out[key])))
    if "colour" in out and out["colour"] not in COLOURS:
        raise InvalidAction("unknown-colour", phrase("there is no colour {colour}", colour=repr(out["colour"])))
    if kind == "take-loan" and out["amount"] not in LOAN_AMOUNTS:
        raise InvalidAction("bad-loan", phrase("a loan is of {amounts} Florin", amounts=_either(LOAN_AMOUNTS)))
    if kind == "move-pirate" and out["means"] not in ("free", "money", "card"):
        raise InvalidAction("bad-field", phrase("move-pirate: means is 'free', 'money' or 'card'"))
    if kind == "move-pirate" and (out["means"] == "card") != ("card" in out):
        raise InvalidAction("bad-field", phrase("move-pirate: a 'card' is given exactly when means is 'card'"))
    if kind == "move-pirate" and out["means"] != "card" and "harbour" not in out:
        raise InvalidAction("missing-field", phrase("move-pirate: 'harbour' is required unless means is 'card' "
                                                    "(a card leg without it is a stop on the pirate's voyage)"))
    if kind == "settle-loan" and out["choice"] not in ("repay", "extend"):
        raise InvalidAction("bad-field", phrase("settle-loan: choice is 'repay' or 'extend'"))
    return out


def check(state: State, seat: int, a: dict[str, Any]) -> None:
    """Raise IllegalAction unless ``a`` is one of the seat's legal actions of its type."""
    if state.stage == OVER:
        raise IllegalAction("game-over", phrase("the game is over"))
    if seat != state.seat:
        raise IllegalAction("not-your-turn", phrase("it is {player}'s move, not {you}'s",
                                                    player=_colour(state, state.seat),
                                                      you=_colour(state, seat)))
    if state.stage == TURN and state.turn.pirate_transit >= 0 and a["type"] != "move-pirate":
        raise IllegalAction("pirate-in-transit", phrase("the pirate ship is under way: play its next card or end its "
                                                        "voyage on a harbour space first (rule §8.4)"))
    if a in GENERATORS[a["type"]](state, seat):
        return
    code, msg = explain(state, seat, a)
    raise IllegalAction(code, msg)


def _colour(state: State, seat: int) -> str:
    """A seat as players call it: its (main) colour ("Red")."""
    return player(state.n, seat)


def _either(amounts: tuple[int, ...]) -> str:
    """"10 or 16": the loan amounts as the refusal lists them (numbers only: no word to translate)."""
    if len(amounts) == 2:
        return phrase("{a} or {b}", a=amounts[0], b=amounts[1])
    return " or ".join(map(str, amounts))


def _settle_text(state: State, seat: int) -> str:
    """Why a settlement step other than the offered one is refused, naming the loan being settled."""
    loans = state.players[seat].loans
    if state.settle_loan >= len(loans):
        return phrase("settle your loan now: repay it if you can afford it, or extend it (rule §6.4)")
    amount, extended = loans[state.settle_loan]
    if extended:
        return phrase("settle your extended {amount}-Florin loan now: repay it if you can afford it, or extend it "
                      "(rule §6.4)", amount=amount)
    return phrase("settle your {amount}-Florin loan now: repay it if you can afford it, or extend it (rule §6.4)",
                  amount=amount)


def explain(state: State, seat: int, a: dict[str, Any]) -> tuple[str, str]:
    """Why a well-formed action is refused, citing the rule."""
    kind = a["type"]
    p = state.players[seat]
    t = state.turn
    if kind in ("settle-loan",) and state.stage != SETTLE:
        return "not-settling", phrase("loans are repaid or extended only after a payday (rule §6.4, R-27)")
    if kind == "choose-start-player":
        return "not-choosing", phrase("the poorest player chooses the next start player only after the money check "
                                      "(rule §6.4)")
    if kind == "settle-loan":
        return "bad-settlement", _settle_text(state, seat)
    if state.stage != TURN:
        return "not-now", phrase("only the after-payday steps can be taken now (rule §6.4)")
    if kind == "buy-card":
        if a["card"] not in (*state.dest_display, *state.conn_display):
            return "card-not-displayed", phrase("card {card} is not on display (rule §5.3)", card=a["card"])
        return "cannot-afford", phrase("you cannot afford card {card} (rule §5.3)", card=a["card"])
    if kind == "sail":
        if t.acted:
            return "sail-after-action", phrase("you may sail only before the turn's action (rule §5.1)")
        if t.free_pirate:
            return "sail-after-pirate", phrase("after the free pirate move the ship stays in Islas Canarias "
                                               "(rule §8.4)")
        if a["card"] not in p.hand:
            return "card-not-in-hand", phrase("you do not hold card {card} (rule §5.2)", card=a["card"])
        to = city_index(state, a["to"])
        if to < 0:
            return "city-not-in-play", phrase("{city} is not in play", city=ALL_CITIES[a["to"]].name)
        card = CARDS[a["card"]]
        if card.kind == "connection":
            return "bad-connection", phrase("a connection card takes the ship from one of its two cities to the "
                                            "other (rule §5.2)")
        if p.ship < 0:
            return "bad-voyage", phrase("from the bank or off the board only a destination card used as a "
                                        "destination sails (rule §5.2, §8.1)")
        return "out-of-reach", phrase("{city} is not within {steps} and is not the card's destination (rule §5.2, "
                                      "R-10)", city=ALL_CITIES[a["to"]].name,
                                      steps=phrase_n("{n} seal step", "{n} seal steps", card.seals))
    if kind in ("build-warehouse", "reopen", "build-fortress"):
        if t.acted:
            return "already-acted", phrase("a turn has exactly one action (rule §5.1)")
        if p.ship < 0 or p.berth < 0:
            return "not-anchored", phrase("your ship must lie on a harbour space of the city (rule §5.4)")
        if not at_building_city(state, seat):
            return "back-to-origin", phrase("a voyage may not end in the city where it began (R-7)")
        cd = city_data(state, p.ship)
        city = state.cities[p.ship]
        if kind == "build-fortress":
            if p.fortresses <= 0:
                return "no-fortress", phrase("you have no fortress in your supply (rule §5.8)")
            sp = a["space"]
            if not 1 <= sp <= len(city.forts) or city.forts[sp - 1] >= 0:
                return "space-taken", phrase("fortress space {space} is not free in {city} (rule §5.8)",
                                             space=sp, city=cd.name)
            if cd.fortresses[sp - 1] > p.money:
                return "cannot-afford", phrase("the fortress costs {cost} (rule §5.8)", cost=cd.fortresses[sp - 1])
            return "one-fortress-per-city", phrase("you already have a fortress in {city} (rule §5.8)", city=cd.name)
        if not next_sites(city):
            return "city-full", phrase("all building sites of {city} are occupied (rule §5.4)", city=cd.name)
        if kind == "build-warehouse":
            if cd.harbours[p.berth] > p.money:
                return "cannot-afford", phrase("a warehouse costs {cost} from your harbour space (rule §5.4)",
                                               cost=cd.harbours[p.berth])
            if p.warehouses + p.neutral <= 0:
                return "no-warehouse", phrase("you have no warehouse in your supply (rule §5.4)")
        elif not any(city.closed[c] for c in seat_colours(state.n, seat)):
            return "nothing-closed", phrase("you have no shut-down warehouse in {city} (rule §5.7)", city=cd.name)
        nxt = next_sites(city)
        if "site" in a and a["site"] not in nxt:
            return "wrong-site", phrase("the next warehouse in {city} goes on site {site} (rule §5.4)",
                                        city=cd.name, site=nxt[0])
        if "site" in a and len(nxt) == 1:
            return "no-site-choice", phrase("only the first warehouse of a city chooses its site; this one goes on "
                                            "site {site} (rule §5.4): omit 'site'", site=nxt[0])
        if "site" not in a and len(nxt) > 1:
            return "site-required", phrase("the first warehouse in {city} goes on site 1 or 2: give 'site' (rule "
                                           "§5.4)", city=cd.name)
        if state.n == 2 and "colour" not in a:
            return "colour-required", phrase("with 2 players, say which colour you place: 'colour' (rule §7)")
        if state.n > 2 and "colour" in a:
            return "no-colour-choice", phrase("only the 2-player game chooses a colour (rule §7): omit 'colour'")
        if "colour" in a and a["colour"] not in (COLOURS[c] for c in seat_colours(state.n, seat)):
            return "not-your-colour", phrase("{colour} is not one of your colours (rule §7, R-18)",
                                             colour=colour(a["colour"]))
        if kind == "reopen":
            col = COLOURS.index(a["colour"]) if "colour" in a else seat
            if city.closed[col] <= 0:
                return "nothing-closed", phrase("you have no shut-down {colour} warehouse in {city} (rule §5.7)",
                                                colour=colour(COLOURS[col]), city=cd.name)
        if state.n == 2:
            return "limit", phrase("{city}: that colour breaks the supply ratio or the run limits (rule §7: more "
                                   "main than neutral warehouses in supply; at most 3 main / 4 own in a row)",
                                   city=cd.name)
        return "run-limit", phrase("{city}: you would have more than three warehouses in a row (rule §5.5: no more "
                                   "than three in a row)", city=cd.name)
    if kind == "take-loan":
        if first_round(state):
            return "no-loan-first-round", phrase("no loans in the first round of the game (rule §5.9)")
        if not t.acted and a.get("amount") in LOAN_COPIES and loan_cards_left(state, a["amount"]) <= 0:
            return "no-loan-cards", phrase("all {copies} {amount}-Florin loan cards are taken and you can still "
                                           "build, so there is no loan turn of that amount (rule §5.9, R-17: only "
                                           "a forced bank trip takes a loan beyond the printed cards)",
                                           copies=LOAN_COPIES[a["amount"]], amount=a["amount"])
        return "already-acted", phrase("a loan is the turn's action; you have already acted (rule §5.9)")
    if kind == "pass":
        return "cannot-pass", phrase("there is no pass: build, re-open, build a fortress or take a loan (rule "
                                     "§5.9, R-4)")
    if kind == "end-turn":
        if not t.acted:
            return "no-action-yet", phrase("a turn needs its action first: build, re-open, fortress or loan (rule "
                                           "§5.1, §5.9)")
        return "pirate-due", phrase("after anchoring in Islas Canarias you must move the pirate ship (rule §8.4)")
    if kind == "move-pirate":
        return _explain_pirate(state, seat, a)
    if kind == "settle-loan":
        amt = p.loans[state.settle_loan][0] if state.settle_loan < len(p.loans) else 0
        return "cannot-repay", phrase("repaying costs {cost} (rule §6.4)", cost=LOANS.get(amt, (0, 0))[0])
    return "illegal", phrase("{kind} is not allowed now", kind=kind)


def _explain_pirate(state: State, seat: int, a: dict[str, Any]) -> tuple[str, str]:
    """Why a pirate move is refused (§8.4, R-21, R-36)."""
    t = state.turn
    transit = t.pirate_transit
    if state.pirate < 0:
        return "no-pirate", phrase("the pirate ship is used only with Islas Canarias (rule §8.4)")
    if transit < 0 and t.pirate_moved:
        return "pirate-moved", phrase("the pirate moves at most once per turn (R-21)")
    means = a["means"]
    if transit >= 0 and means != "card":
        return "pirate-in-transit", phrase("the pirate ship is under way by cards: play its next card (rule §8.4: "
                                           "by cards or by money, not both)")
    if means == "free" and not free_pirate_due(state, seat):
        return "no-free-move", phrase("the free pirate move follows your anchoring in Islas Canarias (rule §8.4)")
    if means != "free" and free_pirate_due(state, seat):
        return "free-move-due", phrase("you arrived in Islas Canarias: make the free pirate move (rule §8.4, R-21)")
    to = city_index(state, a["to"])
    if to < 0:
        return "city-not-in-play", phrase("{city} is not in play", city=ALL_CITIES[a["to"]].name)
    cname = city_data(state, to).name
    if means == "card":
        cid = a["card"]
        if cid not in state.players[seat].hand:
            return "card-not-in-hand", phrase("you do not hold card {card} (rule §8.4: the pirate sails with your "
                                              "sailing cards)", card=cid)
        at = transit if transit >= 0 else state.pirate
        if to not in card_targets(state, cid, at):
            return "bad-pirate-move", phrase("card {card} cannot take the pirate from {start} to {city} (rule §8.4 "
                                             "with §5.2: destination, sea route or a connection card naming its "
                                             "city)", card=cid, start=city_data(state, at).name, city=cname)
        if "harbour" not in a:
            return "voyage-cannot-end", phrase("from {city} the cards left in your hand cannot bring the pirate to "
                                               "a city with a free harbour space, where its voyage must end (rule "
                                               "§8.4)", city=cname)
    if to == state.pirate:
        if transit >= 0:
            return "pirate-origin", phrase("the pirate's voyage must end in another city than the one it set off "
                                           "from (rule §8.4, R-36)")
        return "same-city", phrase("the pirate never changes space within a city (rule §8.4)")
    if means == "free" and to == canarias_index(state):
        return "bad-pirate-move", phrase("the free pirate move goes to another city than Islas Canarias (rule "
                                         "§8.4, R-36)")
    if FREE not in state.cities[to].harbours:
        return "no-free-harbour", phrase("{city} has no free harbour space: the pirate may end its move only where "
                                         "one is free (rule §8.4)", city=cname)
    if not 1 <= a["harbour"] <= len(state.cities[to].harbours):
        return "bad-harbour", phrase("{city} has harbour spaces 1 to {last} (rule §8.4)",
                                     city=cname, last=len(state.cities[to].harbours))
    if means == "money":
        cost = PIRATE_STEP_COST * distance(city_data(state, state.pirate), city_data(state, to))
        if cost > state.players[seat].money:
            return "cannot-afford", phrase("moving the pirate there costs {cost} (rule §8.4)", cost=cost)
    return "bad-pirate-move", phrase("the pirate needs a target city with a free harbour space, reachable by the "
                                     "means given (rule §8.4, R-36)")
