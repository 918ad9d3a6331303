"""Setting up a match of Ophir (spec §2): the server-side shuffles, the barriers, the draft.

Every random result (start player, map tokens, market decks, removed A cards, modifiers and
temple merchant, dealt specialists) comes from the ``rng`` and is recorded in an event; the
ones that are secret carry ``visible_to`` (an empty list: no seat sees them during play).
"""

from __future__ import annotations

from service.games.base import Event, IllegalAction, Rng
from service.i18n import phrase

from .data import (
    BARRIER_COUNT,
    BASE_HOLDS,
    CUBES,
    DECK_A,
    DECK_B,
    DEMAND_STANDS,
    DRAFT_EXTRA,
    EDGES,
    HEXES,
    HOLDS_AFTER_UPGRADE,
    LEGAL_BARRIER_PAIRS,
    MAP_TOKENS,
    MAX_UPGRADES,
    PLAYER_DIE_START,
    PRICE_MODIFIERS,
    REMOVE_FROM_A,
    RIVAL_DIE_START,
    SPECIALIST_BY_ID,
    SPECIALISTS,
    START_COINS,
    SUPPLY_PER_TYPE,
    barriers_compatible,
    tiers_for,
)
from .events import said
from .state import BARRIERS, DRAFT, PLAY, Options, Player, Rival, State, Turn, replace, with_seat
from .words import specialist_name


def new_match(players: int, options: Options, rng: Rng) -> tuple[State, list[Event]]:
    """Setup steps 1-9 (spec §2.1), then the barrier phase (or a random legal placement)."""
    events: list[Event] = []
    start = rng.randbelow(players)
    events.append(said({"type": "start-player", "seat": start}))
    tokens = tuple(rng.shuffled(MAP_TOKENS))
    events.append(said({"type": "map-tokens-shuffled", "tokens": dict(zip(HEXES, tokens, strict=True)),
                        "visible_to": []}))
    deck_a = [c.id for c in rng.shuffled(DECK_A)]
    deck_b = [c.id for c in rng.shuffled(DECK_B)]
    removed = tuple(deck_a[:REMOVE_FROM_A])
    full = deck_a[REMOVE_FROM_A:] + deck_b
    events.append(said({"type": "market-shuffled", "removed": list(removed), "deck": list(full), "visible_to": []}))
    demand = tuple(full[:DEMAND_STANDS])
    deck = tuple(full[DEMAND_STANDS:])
    merchant = rng.randbelow(DEMAND_STANDS)
    modifiers = tuple(rng.shuffled(PRICE_MODIFIERS))
    events.append(said({"type": "modifiers-placed", "merchant": merchant, "modifiers": list(modifiers)}))
    dealt = tuple(s.id for s in rng.shuffled(SPECIALISTS)[: players + DRAFT_EXTRA])
    order = tuple((start - 1 - k) % players for k in range(players))
    events.append(said({"type": "specialists-dealt", "specialists": list(dealt), "visible_to": [order[0]]}))
    seat = Player(None, 0, START_COINS, 0, PLAYER_DIE_START, None, (0,) * len(CUBES), BASE_HOLDS, 0)
    state = State(
        options=options, phase=BARRIERS, start_player=start, active=start, tokens=tokens, revealed=False,
        barriers=(), draft_pool=dealt, draft_order=order, returned_specialist=None, deck=deck, removed=removed,
        demand=demand, discard=(), modifiers=modifiers, merchant=merchant, market_revealed=False,
        tiers=tiers_for(players), tier=0, temple=(), supply=(SUPPLY_PER_TYPE,) * len(CUBES),
        seats=(seat,) * players, rival=Rival(None, RIVAL_DIE_START) if players == 2 else None, turn=None,
        tiles=players, turns_played=0, end_reason=None,
    )
    if options.barriers == "random":
        pair = LEGAL_BARRIER_PAIRS[rng.randbelow(len(LEGAL_BARRIER_PAIRS))]
        events.append(said({"type": "barriers-drawn", "edges": list(pair)}))
        state = replace(state, barriers=pair)
        state = _reveal_map(state, events)
    return state, events


def barrier_actions(state: State) -> list[dict[str, object]]:
    """Edges the starting player may put the next barrier on (rule §2.3)."""
    return [{"type": "place-barrier", "edge": e} for e in EDGES
            if all(barriers_compatible(e, b) for b in state.barriers)]


def place_barrier(state: State, seat: int, edge: int, events: list[Event]) -> State:
    """Put one barrier down; after the second, reveal the map and open the draft."""
    if edge in state.barriers:
        raise IllegalAction("barrier-taken", phrase("edge {edge} already has a barrier (rule §2.3).", edge=edge), "§2.3")
    if not all(barriers_compatible(edge, b) for b in state.barriers):
        raise IllegalAction("barrier-closes-hex", phrase(
            "a barrier on edge {edge} would leave a hex open to fewer than two others (rule §2.3: every hex stays "
            "open to at least two hexes).", edge=edge), "§2.3")
    events.append(said({"type": "barrier-placed", "seat": seat, "edge": edge}))
    state = replace(state, barriers=tuple(sorted((*state.barriers, edge))))
    if len(state.barriers) == BARRIER_COUNT:
        state = _reveal_map(state, events)
    return state


def _reveal_map(state: State, events: list[Event]) -> State:
    """Setup steps 6-7: turn the tokens face up and put the ships on their hexes."""
    state = replace(state, revealed=True)
    temple = state.hex_of("temple")
    events.append(said({"type": "map-revealed", "tokens": dict(zip(HEXES, state.tokens, strict=True))}))
    seats = tuple(replace(p, hex=temple) for p in state.seats)
    rival = state.rival
    if rival is not None:
        rival = replace(rival, hex=state.hex_of("market"))
        events.append(said({"type": "rival-placed", "hex": rival.hex}))
    return replace(state, seats=seats, rival=rival, phase=DRAFT, active=state.draft_order[0])


def draft_actions(state: State) -> list[dict[str, object]]:
    return [{"type": "draft-specialist", "specialist": s} for s in state.draft_pool]


def draft(state: State, seat: int, specialist: str, events: list[Event]) -> State:
    """Pick one specialist and pass the rest to the right (setup step 10, R-26); the starting
    player picks last from two cards and the last card goes back to the box."""
    if specialist not in state.draft_pool:
        name = specialist_name(specialist) if specialist in SPECIALIST_BY_ID else repr(specialist)
        raise IllegalAction("specialist-not-offered", phrase(
            "the {name} is not among the cards passed to you (rule §2.1: pick from the specialists you were handed).",
            name=name), "§2.1")
    spec = SPECIALIST_BY_ID[specialist]
    player = replace(state.seats[seat], specialist=specialist, favor=spec.starting_favor)
    tiles = state.tiles
    events.append(said({"type": "specialist-drafted", "seat": seat, "specialist": specialist}))
    if specialist == "ambassador":
        # Setup step 12: the Ambassador takes a cargo tile double side up, both upgrades used.
        player = replace(player, capacity=HOLDS_AFTER_UPGRADE[-1], upgrades=MAX_UPGRADES)
        tiles -= 1
        events.append(said({"type": "ambassador-cargo", "seat": seat}))
    pool = tuple(s for s in state.draft_pool if s != specialist)
    order = state.draft_order[1:]
    state = replace(state, seats=with_seat(state.seats, seat, player), draft_pool=pool, draft_order=order, tiles=tiles)
    if order:
        events.append(said({"type": "specialists-passed", "seat": order[0], "specialists": list(pool),
                            "visible_to": sorted({order[0], *(i for i, p in enumerate(state.seats) if p.specialist)})}))
        return replace(state, active=order[0])
    events.append(said({"type": "specialist-returned", "specialist": pool[0], "visible_to": list(range(state.n))}))
    events.append(said({"type": "market-revealed", "demand": list(state.demand), "future": state.deck[0]}))
    events.append(said({"type": "turn-started", "seat": state.start_player, "first": True}))
    start_hex = state.seats[state.start_player].hex
    assert start_hex is not None
    return replace(state, draft_pool=(), returned_specialist=pool[0], market_revealed=True, phase=PLAY,
                   active=state.start_player, turn=Turn(start_hex))
