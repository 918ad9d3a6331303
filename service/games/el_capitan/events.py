"""El Capitán's events in words: each event's sentence rebuilt from its fields (issue 29; docs/i18n.md).

The moves write an event's stored English ``"text"`` with :func:`told`, and
:meth:`.game.ElCapitan.describe_event` reads :func:`sentence` for the reader's language, so the
stored English and the described words never drift apart. An event that lacks a field a sentence
needs (a record written before the field was added) has no sentence here: its stored text says it.
Seats are named by colour, which needs the table's size: events that name a seat carry ``players``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.i18n import Phrase, phrase, phrase_in, phrase_n

from .data import ALL_CITIES, BONUS_CITIES, COLOURS, LOANS
from .words import card, colour, describe_action, player, seat_name

__all__ = ["sentence", "told"]


def _city(city_id: Any) -> str:
    return ALL_CITIES[city_id].name if city_id in ALL_CITIES else str(city_id)


def told(event: dict[str, Any]) -> dict[str, Any]:
    """``event`` with its English ``"text"`` written from its fields (:func:`sentence`)."""
    said = sentence(event)
    if said is None:
        raise AssertionError(f"no sentence for the event {event.get('type')!r}")
    event["text"] = str.__str__(said)  # stored as plain text: records hold JSON strings
    return event


def sentence(e: Mapping[str, Any]) -> Phrase | None:
    """An event's words from its fields, ``None`` when the event lacks a field they need (an older
    record: its stored ``"text"`` says it then)."""
    try:
        return _sentence(e)
    except (KeyError, TypeError, ValueError, IndexError):
        return None


def _who(e: Mapping[str, Any], key: str = "seat") -> str:
    return player(int(e["players"]), int(e[key]))


def _sentence(e: Mapping[str, Any]) -> Phrase | None:
    kind = e.get("type")
    if kind == "decks-shuffled":
        return phrase("The destination and connection decks were shuffled.")
    if kind == "deck-shuffled":
        if e["deck"] == "destination":
            return phrase("The destination discard pile was shuffled into a new deck.")
        return phrase("The connection discard pile was shuffled into a new deck.")
    if kind == "start-player":
        if "by" in e:
            return phrase("{by} makes {player} start player of phase {phase}; new supplies are handed out.",
                          by=_who(e, "by"), player=_who(e), phase=e["phase"])
        return phrase("{player} is the start player of phase 1.", player=_who(e))
    if kind == "card-bought":
        return phrase("{player} bought {card} for {cost}.", player=_who(e), card=card(e["card"]), cost=e["cost"])
    if kind == "sailed":
        if e["harbour"]:
            return phrase("{player} sailed to {city} with {card} and anchored on harbour space {harbour}.",
                          player=_who(e), city=_city(e["to"]), card=card(e["card"]), harbour=e["harbour"])
        return phrase("{player} sailed to {city} with {card} and found no free harbour space and must sail on.",
                      player=_who(e), city=_city(e["to"]), card=card(e["card"]))
    if kind == "warehouse-shut":
        if "shutdown_removes_from_game" in ALL_CITIES[e["city"]].special:
            return phrase("The {colour} warehouse on site {site} in {city} was removed from the game (Porto).",
                          colour=colour(e["colour"]), site=e["site"], city=_city(e["city"]))
        return phrase("The {colour} warehouse on site {site} in {city} was shut down.",
                      colour=colour(e["colour"]), site=e["site"], city=_city(e["city"]))
    if kind == "bonus-card":
        return phrase_n("{player} has warehouses in {n} city and takes the {value}-Florin bonus card.",
                        "{player} has warehouses in {n} cities and takes the {value}-Florin bonus card.",
                        BONUS_CITIES, player=_who(e), value=e["value"])
    if kind == "warehouse-built":
        return phrase("{player} built a {colour} warehouse in {city} on site {site} for {cost}.", player=_who(e),
                      colour=colour(e["colour"]), city=_city(e["city"]), site=e["site"], cost=e["cost"])
    if kind == "immediate-payment":
        if e["first"]:
            return phrase("{player} receives {amount} at once in {city} (first, value {value}).",
                          player=_who(e), amount=e["amount"], city=_city(e["city"]), value=e["value"])
        return phrase("{player} receives {amount} at once in {city} (not first, value {value}).",
                      player=_who(e), amount=e["amount"], city=_city(e["city"]), value=e["value"])
    if kind == "warehouse-reopened":
        return phrase("{player} re-opened a {colour} warehouse in {city} on site {site}.", player=_who(e),
                      colour=colour(e["colour"]), city=_city(e["city"]), site=e["site"])
    if kind == "fortress-built":
        return phrase("{player} built a fortress in {city} on space {space} for {cost}.", player=_who(e),
                      city=_city(e["city"]), space=e["space"], cost=e["cost"])
    if kind == "pirate-stopover":
        return phrase("{player} sailed the pirate ship on to {city} with {card}, a stop on its voyage.",
                      player=_who(e), city=_city(e["to"]), card=card(e["card"]))
    if kind == "ship-bumped":
        return phrase("{player}'s ship moves to harbour space {harbour} in {city}.", player=_who(e),
                      harbour=e["harbour"], city=_city(e["city"]))
    if kind == "pirate-moved":
        means = e["means"]
        if means == "money":
            return phrase("{player} moved the pirate ship to {city} for {cost} Florin.", player=_who(e),
                          city=_city(e["to"]), cost=e["cost"])
        if means == "card":
            return phrase("{player} moved the pirate ship to {city} with {card}.", player=_who(e),
                          city=_city(e["to"]), card=card(e["card"]))
        return phrase("{player} moved the pirate ship to {city} free of charge.", player=_who(e), city=_city(e["to"]))
    if kind == "protection-paid":
        return phrase("{player} pays {amount} protection money to {other}.", player=_who(e), amount=e["amount"],
                      other=_who(e, "to"))
    if kind == "loan-taken":
        if e.get("forced"):
            return phrase("{player} must take a {amount}-Florin loan to repay an extended loan (R-15).",
                          player=_who(e), amount=e["amount"])
        return phrase("{player} sailed to the bank and took a {amount}-Florin loan.", player=_who(e),
                      amount=e["amount"])
    if kind == "turn-undone":
        if e["passes"]:
            return phrase("{player} is stuck again: this turn's purchases and voyage are undone (R-1) and, as the "
                          "turn was already undone once, the player passes (R-4).", player=_who(e))
        return phrase("{player} is stuck: this turn's purchases and voyage are undone (R-1); a turn is still "
                      "possible, so there is no pass (rule §5.9, R-4). A turn is undone only once: another dead "
                      "end this turn is a pass.", player=_who(e))
    if kind == "passed":
        return phrase("{player} cannot act in the first round and passes (R-4).", player=_who(e))
    if kind == "phase-ending":
        return phrase("{player} has placed every piece of their supply: phase {phase} ends with this round.",
                      player=_who(e), phase=e["phase"])
    if kind == "payday-income":
        d = e["detail"]
        return phrase("Payday {phase}: {player} receives {amount} (proliferation {proliferation} for {cities}, "
                      "majorities {majorities}, fortresses {fortresses}).", phase=e["phase"], player=_who(e),
                      amount=e["amount"], proliferation=d["proliferation"],
                      cities=phrase_n("{n} city", "{n} cities", d["cities"]),
                      majorities=sum(d["majority"].values()), fortresses=sum(d["fortresses"].values()))
    if kind == "bonus-paid":
        return phrase("{player} cashes the {amount}-Florin bonus card.", player=_who(e), amount=e["amount"])
    if kind == "loans-repaid":
        return phrase("{player} repays {loans}: {amount}.", player=_who(e), amount=e["amount"],
                      loans=phrase_n("{n} loan", "{n} loans", e["loans"]))
    if kind == "loan-repaid":
        if e["extended"]:
            return phrase("{player} repays an extended {amount}-Florin loan: {paid}.", player=_who(e),
                          amount=e["amount"], paid=e["paid"])
        return phrase("{player} repays a {amount}-Florin loan: {paid}.", player=_who(e), amount=e["amount"],
                      paid=e["paid"])
    if kind == "loan-extended":
        return phrase("{player} extends a {amount}-Florin loan; {due} is due after the next payday.",
                      player=_who(e), amount=e["amount"], due=LOANS[e["amount"]][1])
    if kind == "money-check":
        return phrase("{player} is worth {worth}.", player=_who(e), worth=e["net_worth"])
    if kind == "start-choice":
        return phrase("{player} is the poorest and chooses the start player of phase {phase}.", player=_who(e),
                      phase=e["phase"])
    if kind == "game-over":
        return phrase("The game is over. Final money: {ranking}.", ranking=_ranking(int(e["players"]), e["money"]))
    if kind == "undone":
        return _undone(e)
    return None


def _ranking(players: int, money: list[int]) -> Phrase:
    """"Red 80, Blue 72, ...": the seats by final money, richest first (seat order on a tie)."""
    order = sorted(range(len(money)), key=lambda s: -money[s])
    parts = [phrase("{player} {money}", player=player(players, s), money=money[s]) for s in order]
    out = parts[-1]
    for part in reversed(parts[:-1]):
        out = phrase_in("list", "{first}, {rest}", first=part, rest=out)
    return out


def _undone(e: Mapping[str, Any]) -> Phrase | None:
    """The undo's event (``service.games.undo``): its seat is named by the colour its stored text starts
    with (the event holds no player count), its step is described anew."""
    text = str(e.get("text", ""))
    head, sep, _rest = text.partition(" took back: ")
    names = {str(seat_name(c)): c for c in COLOURS}
    if not sep or head not in names or not isinstance(e.get("action"), Mapping):
        return None
    return phrase("{player} took back: {action}.", player=seat_name(names[head]), action=describe_action(e["action"]))
