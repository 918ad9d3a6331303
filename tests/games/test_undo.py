"""Undo within a turn (issue 16 item 3), for every game: random playthroughs that interleave undo
with play (tests/helpers/playthrough.py plays them once; the conformance and player-words checks
walk the same ones).

The check keeps its own account of what undo may take back, independently of the games' trail:
the digests of the states before each step the acting seat made since its turn began, cleared at a
step that drew on the Rng or changed hidden information, or when another seat acts. Then

* whenever undo is offered, that account is not empty, and undo gives back exactly the state before
  the last of those steps (canonical dump), however many undos follow one another;
* undo is never offered past a step that drew or revealed (the account would be empty);
* a refused undo changes nothing and says "nothing to undo";
* the undo data never shows in a view;
* a playthrough with undos still ends.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from service.games import registry
from service.games.base import Game, IllegalAction, InvalidAction, Rng
from service.games.undo import UNDO, TurnUndo, fold_undone, without_undo
from tests.helpers.playthrough import SLOW_SEEDS, Playthrough, default_seeds, digest, playthrough

GAMES: list[TurnUndo[Any]] = [g for g in registry().values() if isinstance(g, TurnUndo)]
CASES = [(g, n) for g in GAMES for n in g.players]
IDS = [f"{g.id}-{n}p" for g, n in CASES]


def _canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


# What each game hides from some seat: a step that changes it reveals something (the test's own
# list, from the rules specs, not the games' ``commits``).
HIDDEN: dict[str, Callable[[Any], Any]] = {
    "el-capitan": lambda s: (s.dest_deck, s.conn_deck),
    "nauticus": lambda s: (),  # spec §10.1: no hidden information
    "ophir": lambda s: (s.deck, s.removed, s.demand, s.market_revealed, s.revealed, s.tokens),
}


def offered(game: Game[Any], state: Any, seat: int) -> bool:
    return any(a["type"] == UNDO for a in game.legal_actions(state, seat))


def check_undo(p: Playthrough) -> int:
    """Walk one recorded playthrough with the account above; answers the undos it made."""
    game = p.game
    assert isinstance(game, TurnUndo)
    assert p.failure is None, f"{p.name}: {p.failure}"
    hidden = HIDDEN[game.id]
    account: list[str] = []  # digests of the states before the acting seat's revocable steps of this turn
    account_seat = -1
    for step in p.steps:
        state, seat, legal = step.before, step.seat, step.legal
        if seat != account_seat:
            account, account_seat = [], seat
        can_undo = step.undo_offered
        assert legal[-1:] == [{"type": UNDO}] or not can_undo, "undo is listed last"
        if can_undo:
            assert account, f"{p.name}: undo offered with nothing revocable behind it (step {step.index})"
            bare = game.with_undo(state, None)
            for viewer in [None, *range(p.players)]:
                assert game.view(state, viewer) == game.view(bare, viewer), "the undo data shows in a view"
        else:
            with pytest.raises(IllegalAction, match="nothing to undo"):
                game.apply(state, seat, {"type": UNDO}, Rng.from_seed(0))
            assert digest(game, state) == step.before_digest, "a refused undo changed the state"
        if step.is_undo:
            assert step.draws == 0, "an undo drew on chance"
            assert digest(game, step.after) == account.pop(), f"{p.name}: undo did not restore the state (step {step.index})"
            assert [e["type"] for e in step.events] == ["undone"] and step.events[0]["takes_back"] >= 1
        elif step.draws or hidden(step.after) != hidden(state):
            account = []  # chance or a reveal: nothing before it may be taken back
        else:
            account.append(step.before_digest)
    assert game.outcome(p.final) is not None
    return p.undos


@pytest.mark.parametrize(("game", "players"), CASES, ids=IDS)
def test_undo_restores_the_state_and_never_passes_chance_or_a_reveal(game: TurnUndo[Any], players: int) -> None:
    undos = sum(check_undo(playthrough(game.id, players, seed)) for seed in default_seeds(players))
    assert undos > 10, "the playthroughs hardly exercised undo"


@pytest.mark.slow
@pytest.mark.parametrize(("game", "players"), CASES, ids=IDS)
def test_undo_in_many_playthroughs(game: TurnUndo[Any], players: int) -> None:
    undos = sum(check_undo(playthrough(game.id, players, seed)) for seed in SLOW_SEEDS)
    assert undos > 10 * len(SLOW_SEEDS), "the playthroughs hardly exercised undo"


def test_every_game_offers_undo() -> None:
    assert {g.id for g in GAMES} == {"el-capitan", "nauticus", "ophir"}
    for game in GAMES:
        assert UNDO in [a["type"] for a in game.describe()["actions"]]


@pytest.mark.parametrize("game", GAMES, ids=[g.id for g in GAMES])
def test_undo_with_fields_is_not_an_action(game: TurnUndo[Any]) -> None:
    state, _ = game.setup(game.players.start, game.validate_options({}), Rng.from_seed(3))
    seat = game.active_seats(state)[0]
    with pytest.raises(InvalidAction, match="undo takes no fields"):
        game.apply(state, seat, {"type": UNDO, "steps": 2}, Rng.from_seed(0))


@pytest.mark.parametrize("game", GAMES, ids=[g.id for g in GAMES])
def test_undo_out_of_turn_is_refused(game: TurnUndo[Any]) -> None:
    state, _ = game.setup(game.players.start, game.validate_options({}), Rng.from_seed(3))
    other = next(s for s in range(game.players.start) if s not in game.active_seats(state))
    with pytest.raises(IllegalAction, match="not your turn"):
        game.apply(state, other, {"type": UNDO}, Rng.from_seed(0))


def test_el_capitan_undo_after_a_purchase_and_a_voyage() -> None:
    """R-1: buy, sail, then take both back one by one; the display is the turn start's again."""
    game = registry()["el-capitan"]
    assert isinstance(game, TurnUndo)
    state, _ = game.setup(3, game.validate_options({"start_player": 0}), Rng.from_seed(5))
    start = _canon(game.dump(state))
    buy = next(a for a in game.legal_actions(state, 0) if a["type"] == "buy-card")
    bought = game.apply(state, 0, buy, Rng.from_seed(1)).state
    assert buy["card"] not in bought.dest_display + bought.conn_display
    sail = next(a for a in game.legal_actions(bought, 0) if a["type"] == "sail")
    sailed = game.apply(bought, 0, sail, Rng.from_seed(2)).state
    back, events = game.apply(sailed, 0, {"type": UNDO}, Rng.from_seed(3))
    assert _canon(game.dump(back)) == _canon(game.dump(bought))
    assert events[0]["text"].startswith("Red took back: sail to ")
    back, _ = game.apply(back, 0, {"type": UNDO}, Rng.from_seed(4))
    assert _canon(game.dump(back)) == start
    assert not offered(game, back, 0)
    with pytest.raises(IllegalAction, match="nothing to undo: you have taken no step"):
        game.apply(back, 0, {"type": UNDO}, Rng.from_seed(5))


def test_a_die_roll_ends_undo_in_ophir() -> None:
    """Spec §10 item 27: no undo once a die was rolled; the refusal says so."""
    game = registry()["ophir"]
    assert isinstance(game, TurnUndo)
    for seed in range(40):
        rng = Rng.from_seed(f"ophir-die/{seed}")
        state, _ = game.setup(2, game.validate_options({"barriers": "random"}), Rng.from_seed(seed))
        for step in range(400):
            if not game.active_seats(state):
                break
            seat = game.active_seats(state)[0]
            legal = without_undo(game.legal_actions(state, seat))
            step_rng = Rng.from_seed(f"{seed}/{step}")
            new = game.apply(state, seat, legal[rng.randbelow(len(legal))], step_rng).state
            if step_rng.draws and game.active_seats(new) == [seat]:
                assert not offered(game, new, seat)
                with pytest.raises(IllegalAction, match="nothing to undo: the influence die was rolled"):
                    game.apply(new, seat, {"type": UNDO}, Rng.from_seed(0))
                return
            state = new
    pytest.fail("no influence test in 40 playouts")


def test_fold_undone_drops_the_steps_taken_back() -> None:
    events = [{"type": "a", "text": "A"}, {"type": "b", "text": "B"}, {"type": "c", "text": "C"},
              {"type": "undone", "takes_back": 1, "text": "X took back C"},
              {"type": "turn-undone", "takes_back": 1, "text": "X is stuck"}, {"type": "d", "text": "D"}]
    assert [e["text"] for e in fold_undone(events)] == ["A", "X is stuck", "D"]
    assert fold_undone([{"type": "undone", "takes_back": 5}]) == []


def test_el_capitan_dead_end_and_loan_turn_take_back_the_turns_events() -> None:
    """A dead-end pass and a loan turn rewind the turn's purchases and voyage (R-1, R-2): their
    event says how many events of the turn it takes back, so that the news leaves them out."""
    game = registry()["el-capitan"]
    rewinds = 0
    for seed in range(6):
        rng = Rng.from_seed(f"rewind/{seed}")
        state, _ = game.setup(3, game.validate_options({}), Rng.from_seed(seed))
        turn_events: list[dict[str, Any]] = []
        step = 0
        while game.active_seats(state) and rewinds < 12:
            seat = game.active_seats(state)[0]
            legal = without_undo(game.legal_actions(state, seat))
            action = legal[rng.randbelow(len(legal))]
            new, events = game.apply(state, seat, action, Rng.from_seed(f"{seed}/{step}"))
            marked = [e for e in events if "takes_back" in e]
            if marked:
                assert marked[0]["takes_back"] == len(turn_events) > 0
                assert fold_undone([*turn_events, *events]) == [e for e in events if e is not marked[0] or
                                                                  e["type"] != "undone"]
                rewinds += 1
            if game.active_seats(new) != [seat] or marked:
                turn_events = []  # a new turn, or the turn back at its start
            elif new.stage == "turn":
                turn_events += events
            state = new
            step += 1
    assert rewinds >= 12


@pytest.mark.parametrize("game", GAMES, ids=[g.id for g in GAMES])
def test_bots_never_undo(game: TurnUndo[Any]) -> None:
    """Where undo is offered, the random and the heuristic bot still choose a step of the game (a
    bot that undoes could go back and forth for ever)."""
    from service import bots

    rng = Rng.from_seed(f"bots/{game.id}")
    state, _ = game.setup(3, game.validate_options({}), Rng.from_seed(11))
    asked = 0
    for step in range(3000):
        if not game.active_seats(state) or asked >= 40:
            break
        seat = game.active_seats(state)[0]
        legal = game.legal_actions(state, seat)
        if legal[-1]["type"] == UNDO:
            for kind in ("random", "heuristic"):
                choice = bots.choose(game, kind, state, seat, Rng.from_seed(f"{step}/{kind}"))
                assert choice["type"] != UNDO and choice in legal
            asked += 1
        action = without_undo(legal)[rng.randbelow(len(legal) - (legal[-1]["type"] == UNDO))]
        state = game.apply(state, seat, action, Rng.from_seed(f"play/{step}")).state
    assert asked >= 40
