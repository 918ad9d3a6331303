"""What a seat sees (everything but the order of the two draw decks, R-25) and its text rendering in the
reader's language."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.i18n import render as render_text
from service.i18n import tr

from .data import CARDS, COLOURS, GRID_ROWS, LOANS
from .payday import net_worth
from .rules import free_pirate_due
from .state import BANK, FREE, OFF, PIRATE, State, city_data, main_colour, neutral_colour
from .track import next_sites, operating, payout_value
from .words import colour


def _where(state: State, ship: int) -> str:
    if ship == BANK:
        return "bank"
    if ship == OFF:
        return "off-board"
    return state.city_ids[ship]


def view(state: State, seat: int | None) -> dict[str, Any]:
    """The public state. Hands, loans, money and supplies are public (R-25); the decks show only their size."""
    n = state.n
    players = []
    for s, p in enumerate(state.players):
        entry: dict[str, Any] = {
            "seat": s,
            "colour": COLOURS[main_colour(n, s)],
            "money": p.money,
            "net_worth": net_worth(p),
            "ship": _where(state, p.ship),
            "harbour": p.berth + 1 if p.berth >= 0 else None,
            "hand": list(p.hand),
            "loans": [{"amount": a, "extended": e, "due": LOANS[a][1 if e else 0]} for a, e in p.loans],
            "supply": {"warehouses": p.warehouses, "fortresses": p.fortresses},
            "bonus_card": p.bonus or None,
        }
        if n == 2:
            entry["neutral_colour"] = COLOURS[neutral_colour(s)]
            entry["supply"]["neutral_warehouses"] = p.neutral
        players.append(entry)
    cities = []
    for i, c in enumerate(state.cities):
        cd = city_data(state, i)
        cities.append({
            "id": cd.id,
            "name": cd.name,
            "pos": [cd.row, cd.col],
            "off_board": cd.off_board,
            "sites": [COLOURS[x] if x != FREE else None for x in c.sites],
            "track": list(cd.track),
            "hatched": cd.hatched,
            "shutdown_sites": sorted(cd.shutdown_sites(n)),
            "value": payout_value(cd, c.sites),
            "next_sites": list(next_sites(c)),
            "closed": {COLOURS[k]: v for k, v in enumerate(c.closed) if v},
            "harbours": [
                {"price": cd.harbours[h], "ship": None if x == FREE else ("pirate" if x == PIRATE else x)}
                for h, x in enumerate(c.harbours)
            ],
            "fortresses": [
                {"price": cd.fortresses[k], "colour": None if x == FREE else COLOURS[x]} for k, x in enumerate(c.forts)
            ],
            "operating": operating(c.sites),
        })
    t = state.turn
    return {
        "seat": seat,
        "stage": state.stage,
        "phase": state.phase,
        "round": state.round,
        "active_seat": state.seat if state.stage != "over" else None,
        "start_player": state.start,
        "phase_ending": state.ending,
        "players": players,
        "cities": cities,
        "pirate": state.city_ids[state.pirate] if state.pirate >= 0 else None,
        "displays": {"destination": list(state.dest_display), "connection": list(state.conn_display)},
        "decks": {"destination": len(state.dest_deck), "connection": len(state.conn_deck)},
        "discards": {"destination": list(state.dest_discard), "connection": list(state.conn_discard)},
        "bonus_cards_left": list(state.bonus_left),
        "pool": {
            "warehouses": {COLOURS[k]: v for k, v in enumerate(state.pool_warehouses)},
            "fortresses": {COLOURS[k]: v for k, v in enumerate(state.pool_fortresses)},
        },
        "removed_in_porto": {COLOURS[k]: v for k, v in enumerate(state.removed) if v},
        "turn": {
            "origin": _where(state, t.origin),
            "sailed": t.sailed,
            "action_done": t.acted,
            "pirate_moved": t.pirate_moved,
            "pirate_in_transit": state.city_ids[t.pirate_transit] if t.pirate_transit >= 0 else None,
            "free_pirate_move_due": state.stage == "turn" and free_pirate_due(state, state.seat),
        },
        "cards": {cid: _card_json(cid) for cid in sorted({*state.dest_display, *state.conn_display,
                                                           *(c for p in state.players for c in p.hand)})},
    }


def _card_json(cid: str) -> dict[str, Any]:
    c = CARDS[cid]
    if c.kind == "destination":
        return {"kind": c.kind, "city": c.city, "seals": c.seals, "cost": c.cost}
    return {"kind": c.kind, "a": c.a, "b": c.b, "cost": c.cost}


def _card_text(cards: Mapping[str, Any], cid: str, names: Mapping[str, str]) -> str:
    c = cards.get(cid, {})
    if c.get("kind") == "destination":
        return f"{cid} {_name(names, c['city'])} {'*' * c['seals']} ({c['cost']})"
    if c:
        return f"{cid} {_name(names, c['a'])}-{_name(names, c['b'])} ({c['cost']})"
    return cid


def _name(names: Mapping[str, str], city: str | None) -> str:
    """A city's printed name (the view's ids are lower case: "napoli" is Napoli)."""
    return names.get(city, city.capitalize()) if city else ""


def _stage(stage: str, language: str) -> str:
    """The view's stage in words, for the heading of the rendering."""
    if stage == "turn":
        return tr(language, "turns")
    if stage == "settle":
        return tr(language, "loans are settled after the payday")
    if stage == "choose-start":
        return tr(language, "the poorest player chooses the next start player")
    if stage == "over":
        return tr(language, "game over")
    return stage


def render(v: Mapping[str, Any], language: str = "en") -> str:
    """A plain-text board for the CLI and mail in ``language``: a 3-row grid of city blocks, then players and
    displays. City names and card ids are names and stay; every word comes from the catalog (issue 29)."""
    initials = {col: col[0].upper() for col in COLOURS}
    names = {c["id"]: c["name"] for c in v["cities"]}
    lang = language
    lines = [tr(lang, "El Capitán - phase {phase}, round {round} - {stage}", phase=v["phase"], round=v["round"],
                stage=_stage(v["stage"], lang))
             + (" " + tr(lang, "(phase ends with this round)") if v.get("phase_ending") else "")]
    by_pos = {tuple(c["pos"]): c for c in v["cities"]}
    cols = sorted({c["pos"][1] for c in v["cities"]})
    for row in range(GRID_ROWS):
        blocks = [_city_block(by_pos[(row, col)], v, initials, lang) if (row, col) in by_pos else [] for col in cols]
        height = max((len(b) for b in blocks), default=0)
        for k in range(height):
            lines.append("  ".join((b[k] if k < len(b) else "").ljust(34) for b in blocks).rstrip())
        lines.append("")
    lines.append(tr(lang, "Players:"))
    for p in v["players"]:
        lines.extend(_player_lines(p, v, names, lang))
    none = tr(lang, "none")
    lines.append(tr(lang, "Destination display: {cards}   (deck {deck})",
                    cards=", ".join(_card_text(v["cards"], c, names) for c in v["displays"]["destination"]) or "-",
                    deck=v["decks"]["destination"]))
    lines.append(tr(lang, "Connection display:  {cards}   (deck {deck})",
                    cards=", ".join(_card_text(v["cards"], c, names) for c in v["displays"]["connection"]) or "-",
                    deck=v["decks"]["connection"]))
    pirate = ""
    if v.get("pirate"):
        transit = v.get("turn", {}).get("pirate_in_transit")
        pirate = "   " + tr(lang, "Pirate: {city}", city=_name(names, v["pirate"])) + (
            " " + tr(lang, "(under way by cards, now stopping at {city})", city=_name(names, transit)) if transit else "")
    bonus = ", ".join(tr(lang, "{amount} Florin", amount=b) for b in v["bonus_cards_left"]) or none
    lines.append(tr(lang, "Bonus cards left: {bonus}", bonus=bonus) + pirate)
    lines.append(tr(lang, "Legend: track sites R/Y/G/B/W = warehouse colour, . empty, # empty shut-down space; "
                          "value = current payout."))
    return "\n".join(lines)


def _player_lines(p: Mapping[str, Any], v: Mapping[str, Any], names: Mapping[str, str], lang: str) -> list[str]:
    """A player's two lines of the board: money, ship, supply, loans and bonus card, then the hand."""
    mark = ">" if p["seat"] == v.get("active_seat") else " "
    cap = " [El Capitan]" if p["seat"] == v["start_player"] else ""
    sup = p["supply"]
    sup_txt = tr(lang, "{warehouses}W {fortresses}F", warehouses=sup["warehouses"], fortresses=sup["fortresses"])
    if "neutral_warehouses" in sup:
        sup_txt += " " + tr(lang, "+{n} {colour}", n=sup["neutral_warehouses"], colour=colour(p["neutral_colour"]))
    loans = ", ".join(f"{ln['amount']}{'x' if ln['extended'] else ''}" for ln in p["loans"]) or tr(lang, "none")
    hand = ", ".join(_card_text(v["cards"], c, names) for c in p["hand"]) or "-"
    harbour = f" #{p['harbour']}" if p["harbour"] else ""
    bonus = "; " + tr(lang, "bonus {amount}", amount=p["bonus_card"]) if p["bonus_card"] else ""
    ship = _ship_text(p["ship"], names, lang)
    line = tr(lang, "money {money} (net {net}), ship: {ship}; supply {supply}; loans {loans}", money=p["money"],
              net=p["net_worth"], ship=ship + harbour, supply=sup_txt, loans=loans)
    return [f"{mark} {p['seat']} {render_text(colour(p['colour']), lang):<7}{cap} {line}{bonus}",
            "      " + tr(lang, "hand: {cards}", cards=hand)]


def _ship_text(ship: str | None, names: Mapping[str, str], lang: str) -> str:
    """Where a ship lies in words: a city's name, or "bank" / "off the board" as the view says."""
    if ship is not None and ship in names:
        return names[ship]
    if ship == "bank":
        return tr(lang, "bank")
    if ship == "off-board":
        return tr(lang, "off the board")
    return str(ship)


def _city_block(c: Mapping[str, Any], v: Mapping[str, Any], initials: Mapping[str, str], lang: str) -> list[str]:
    def ship(h: Mapping[str, Any]) -> str:
        s = h["ship"]
        if s is None:
            return f"-({h['price']})"
        if s == "pirate":
            return f"P({h['price']})"
        return f"{initials[v['players'][s]['colour']]}({h['price']})"

    track = "".join(initials[x] if x else ("#" if i + 1 in c["shutdown_sites"] else ".") for i, x in enumerate(c["sites"]))
    forts = " ".join(f"{initials[f['colour']] if f['colour'] else '-'}({f['price']})" for f in c["fortresses"])
    closed = " ".join(f"{initials[k]}{n}" for k, n in c["closed"].items())
    return [
        c["name"] + (" " + tr(lang, "(off-board)") if c["off_board"] else ""),
        " " + tr(lang, "[{track}] value {value}", track=track, value=c["value"]),
        " " + tr(lang, "harbour {spaces}", spaces=" ".join(ship(h) for h in c["harbours"])),
        " " + tr(lang, "forts {forts}", forts=forts) + ("  " + tr(lang, "closed {closed}", closed=closed) if closed else ""),
    ]
