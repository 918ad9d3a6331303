"""The flow of play: setup, rounds, action phases and turns (spec §2, §4).

Functions here take a state and return the next state plus the events they cause; they never
mutate their input.
"""

from __future__ import annotations

from service.games.base import Event, Rng

from . import data, words
from .events import event
from .state import Exec, Player, State, Turn

SEAT_NAMES: tuple[str, ...] = words.SEATS
"""Seat colours (the rulebook does not name the player colours; these are the server's), as phrases."""


def blue_workers(anchor: int, space: int) -> int:
    """Blue workers the wheel shows at ``space`` when its anchor segment points at ``anchor``."""
    return data.WHEEL[(space - anchor) % data.SPACES]


def chooser_of(game_phase: int, players: int) -> int:
    """Seat that chooses the action of game phase ``game_phase`` (counted from 1 across the game).

    Spec §10.15 / §13.3.1: the start-player figure passes after every phase, the 7th included, so
    the chooser order runs on continuously: phase k is chosen by seat (k - 1) mod N (0-based seats).
    """
    if data.START_PLAYER_PASSES_AFTER_LAST_PHASE:
        return (game_phase - 1) % players
    # the rejected reading: no pass after a round's last phase
    per_round = data.PHASES_PER_ROUND
    passes = (game_phase - 1) - (game_phase - 1) // per_round
    return passes % players


def new_player(players: int, seat: int) -> Player:
    """A player's starting supplies with seat compensation (spec §2.3, §2.5)."""
    comp = data.COMPENSATION[players][seat]
    return Player(
        thaler=data.START_THALER + comp.get("thaler", 0),
        workers=data.START_WORKERS + comp.get("workers", 0),
        vp=data.VP_START,
        warehouse=(),
        ships=(),
        delivered=(0,) * len(data.GOODS),
        flipped=(False,) * len(data.PASS_TILES),
        extra=True,
    )


def lay_tiles(anchor: int, rng: Rng, round_no: int) -> tuple[tuple[str, ...], Event]:
    """Shuffle the 8 action tiles and lay them one per space from the anchor's space on (spec §4.1c)."""
    order = rng.shuffled(data.ACTIONS)
    layout = [""] * data.SPACES
    for i, action in enumerate(order):
        layout[(anchor + i) % data.SPACES] = action
    return tuple(layout), event("tiles-laid", round=round_no, anchor=anchor, layout=list(layout))


def setup(players: int, rng: Rng) -> tuple[State, list[Event]]:
    """Initial state (spec §2): supplies, seat compensation, wheel at the 3-worker space, round 1 laid."""
    anchor = data.INITIAL_ANCHOR_SPACE
    layout, laid = lay_tiles(anchor, rng, 1)
    state = State(
        players=tuple(new_player(players, s) for s in range(players)),
        supply=tuple(data.SUPPLY[s] for s in data.STACKS),
        round=1,
        phase=1,
        game_phase=1,
        anchor=anchor,
        layout=layout,
        face_down=(False,) * data.SPACES,
        anchor_tile=-1,
        step="choose",
        chooser=0,
        space=-1,
        turns_taken=0,
        bonus=None,
        turn=None,
    )
    events: list[Event] = [event("setup", players=players, rounds=data.ROUNDS[players]), laid]
    return state, events


def fresh_turn(state: State, seat: int) -> Turn:
    """A seat's turn in the current phase: the whole blue pool is theirs (spec §5.0)."""
    action = state.layout[state.space]
    return Turn(
        seat=seat,
        normal=Exec(action, state.space, blue_workers(state.anchor, state.space), 0, (), 0),
        extra=None,
        extra_used=False,
        closing=False,
        rewards=None,
        free_item=None,
    )


def end_turn(state: State, rng: Rng) -> tuple[State, list[Event]]:
    """Close the current seat's turn: next seat clockwise, or the end of the phase."""
    assert state.turn is not None
    n = len(state.players)
    taken = state.turns_taken + 1
    if taken < n:
        nxt = state._replace(turns_taken=taken, turn=None)
        return nxt._replace(turn=fresh_turn(nxt, (state.turn.seat + 1) % n)), []
    return end_phase(state, rng)


def end_phase(state: State, rng: Rng) -> tuple[State, list[Event]]:
    """Turn the tile face down, pass the start-player figure, then the next phase or round end (§4.2.4)."""
    face_down = tuple(d or i == state.space for i, d in enumerate(state.face_down))
    n = len(state.players)
    game_phase = state.game_phase + 1
    events: list[Event] = []
    nxt = state._replace(
        face_down=face_down,
        game_phase=game_phase,
        phase=state.phase + 1,
        chooser=chooser_of(game_phase, n),
        space=-1,
        turns_taken=0,
        turn=None,
        step="choose",
    )
    if nxt.phase > data.PHASES_PER_ROUND:
        return end_round(nxt, rng)
    return nxt, events


def end_round(state: State, rng: Rng) -> tuple[State, list[Event]]:
    """Pass penalties, pass tiles reset (spec §4.3), then the next round (§4.1) or the game end."""
    events: list[Event] = []
    players = []
    for seat, p in enumerate(state.players):
        penalty = sum(v for v, f in zip(data.PASS_TILES, p.flipped, strict=True) if not f)
        events.append(event("pass-penalty", seat=seat, vp=penalty))
        players.append(p._replace(vp=p.vp + penalty, flipped=(False,) * len(data.PASS_TILES)))
    state = state._replace(players=tuple(players))
    if state.round >= data.ROUNDS[len(state.players)]:
        events.append(event("game-over"))
        return state._replace(step="over"), events
    # the wheel turns to the anchor tile: last round's first action gets 0 blue workers (§4.1b)
    anchor = state.anchor_tile
    layout, laid = lay_tiles(anchor, rng, state.round + 1)
    events.append(laid)
    return (
        state._replace(
            round=state.round + 1,
            phase=1,
            anchor=anchor,
            layout=layout,
            face_down=(False,) * data.SPACES,
            anchor_tile=-1,
        ),
        events,
    )
