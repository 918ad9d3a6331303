"""Who plays each seat and how a match ends outside its rules (service/proof/standing.py):
timeout policies and their refusals, ``judge`` through every controller (timeouts under each
policy, stand-ins and hand-back, skips, resignations, abort votes), and the final ranks."""

from __future__ import annotations

from typing import Any

import pytest

from service.games.base import Action, GameError, Rng
from service.proof.standing import (
    DEFAULT_POLICY,
    Standing,
    StandingError,
    check_timeout_policy,
    final_outcome,
    is_match_action,
    judge,
    pass_action,
    server_signed,
)
from service.proof.time_control import TimeControlError
from tests.helpers.fixture_game import GAME, RaceState

RESIGN: Action = {"type": "match:resign"}
ABORT: Action = {"type": "match:abort"}
RETURN: Action = {"type": "match:return"}
FORFEIT: Action = {"type": "match:forfeit"}
CANCEL: Action = {"type": "match:cancel"}
BANK: Action = {"type": "bank"}


def policy(name: str = "stand-in", after: str = "bot") -> dict[str, Any]:
    return check_timeout_policy({"policy": name, "after_forfeit": after})


def race(turn: int = 0, haul: int = 3, players: int = 3) -> RaceState:
    """A harbour race where ``turn`` must act with a haul to bank (banking passes the turn)."""
    return RaceState(target=50, banks=(0,) * players, haul=haul, turn=turn, over=False)


def run(state: Any, standing: Standing, pol: dict[str, Any], seat: int, by: str,
        actions: list[Action]) -> tuple[Any, Standing, list[dict[str, Any]]]:
    """judge, with every event's plain sentence checked and left out (the tests compare the rest)."""
    state, standing, events = judge(GAME, state, standing, pol, seat, by, actions, Rng.from_seed("standing"))
    assert all(isinstance(e.get("text"), str) and e["text"] for e in events), events
    return state, standing, [{k: v for k, v in e.items() if k != "text"} for e in events]


def refused(code: str, state: Any, standing: Standing, pol: dict[str, Any], seat: int, by: str,
            actions: list[Action]) -> StandingError:
    with pytest.raises(StandingError) as err:
        run(state, standing, pol, seat, by, actions)
    assert err.value.code == code, err.value.message
    assert err.value.status in (400, 403, 409) and err.value.message
    return err.value


HUMANS = Standing.start(["human", "human", "human"])


# -- timeout policies ----------------------------------------------------------------------------

def test_timeout_policy_normal_forms() -> None:
    assert check_timeout_policy(None) == DEFAULT_POLICY == {"policy": "stand-in", "after_forfeit": "bot",
                                                            "grace_hours": 24}
    assert check_timeout_policy("skip") == {"policy": "skip", "after_forfeit": "bot", "grace_hours": 24}
    assert check_timeout_policy({"policy": "forfeit", "after_forfeit": "end", "grace_hours": 0}) == {
        "policy": "forfeit", "after_forfeit": "end", "grace_hours": 0}
    assert check_timeout_policy({"grace_hours": 336})["policy"] == "stand-in"
    assert check_timeout_policy(check_timeout_policy("abort")) == check_timeout_policy("abort")


@pytest.mark.parametrize(("value", "field"), [
    (3, "policy"), (["skip"], "policy"), ("resign", "policy"), ({"policy": "wait"}, "policy"),
    ({"policy": "forfeit", "after_forfeit": "bots"}, "after_forfeit"),
    ({"grace_hours": -1}, "grace_hours"), ({"grace_hours": 337}, "grace_hours"),
    ({"grace_hours": 1.5}, "grace_hours"), ({"grace_hours": True}, "grace_hours"),
    ({"grace_hours": "24"}, "grace_hours"), ({"policy": "skip", "days": 3}, "days"),
])
def test_timeout_policy_out_of_range_names_the_field(value: Any, field: str) -> None:
    with pytest.raises(TimeControlError) as err:
        check_timeout_policy(value)
    assert err.value.field == field and err.value.message


# -- the small helpers ---------------------------------------------------------------------------

def test_standing_start_json_and_questions() -> None:
    s = Standing.start(["human", "bot", "human"])
    assert s == Standing(("player", "bot", "player"))
    assert Standing.from_json(s.to_json()) == s
    odd = Standing(("forfeited", "stand-in", "skip", "bot"), (0,), (1,), None)
    assert Standing.from_json(odd.to_json()) == odd
    assert Standing.from_json({"controllers": ["player"]}) == Standing(("player",))
    assert odd.humans_left() == [1, 2]
    assert [odd.server_plays(i) for i in range(4)] == [True, True, True, False]


def test_match_actions_and_server_signed_bys() -> None:
    assert is_match_action(RESIGN) and is_match_action({"type": "match:anything"})
    assert not is_match_action(BANK) and not is_match_action({})
    assert all(server_signed(b) for b in ("clock", "skip", "stand-in:random", "stand-in:search"))
    assert not any(server_signed(b) for b in ("human", "email", "bot:random", "stand-in", "clocks"))


def test_pass_action_prefers_pass_then_end_turn_then_done() -> None:
    assert pass_action([{"type": "roll"}, {"type": "done"}, {"type": "end-turn"}]) == {"type": "end-turn"}
    assert pass_action([{"type": "done"}, {"type": "pass", "x": 1}]) == {"type": "pass", "x": 1}
    assert pass_action([{"type": "roll"}, {"type": "bank"}]) is None and pass_action([]) is None


# -- judge: ordinary moves -----------------------------------------------------------------------

def test_an_ordinary_move_applies_and_checks_the_turn() -> None:
    state, s, events = run(race(), HUMANS, policy(), 0, "human", [BANK])
    assert state.turn == 1 and s == HUMANS and events[0]["type"] == "banked"
    refused("not-your-turn", race(), HUMANS, policy(), 1, "human", [BANK])
    refused("empty-move", race(), HUMANS, policy(), 0, "human", [])
    # the turn passes after the first action: the second is not seat 0's to make
    refused("not-your-turn", race(), HUMANS, policy(), 0, "human", [BANK, BANK])


def test_a_game_error_says_which_action() -> None:
    with pytest.raises(GameError) as err:
        run(race(haul=0), HUMANS, policy(), 0, "human", [BANK])  # nothing to bank yet
    assert getattr(err.value, "index", None) == 0
    for n in range(20):  # a seed whose roll is not a 1 (the turn stays), without guessing the rng's order
        try:
            judge(GAME, race(haul=0), HUMANS, policy(), 0, "human", [{"type": "roll"}, {"type": "fly"}],
                  Rng.from_seed(str(n)))
        except GameError as exc:
            assert getattr(exc, "index", None) == 1
            break
        except StandingError:
            continue
    else:
        raise AssertionError("every roll was a 1")


def test_match_actions_stand_alone_and_nothing_goes_after_the_end() -> None:
    refused("match-action-alone", race(), HUMANS, policy(), 0, "human", [RESIGN, BANK])
    refused("match-action-alone", race(), HUMANS, policy(), 0, "human", [BANK, RESIGN])
    over = Standing(HUMANS.controllers, ended="aborted")
    refused("match-over", race(), over, policy(), 0, "human", [BANK])
    refused("match-over", race(), over, policy(), 1, "human", [RESIGN])


def test_match_action_refusals() -> None:
    refused("bad-match-action", race(), HUMANS, policy(), 0, "human", [{"type": "match:resign", "seat": 2}])
    refused("unknown-match-action", race(), HUMANS, policy(), 0, "human", [{"type": "match:draw"}])
    refused("clock-only", race(), HUMANS, policy("forfeit"), 0, "human", [FORFEIT])
    refused("clock-only", race(), HUMANS, policy("abort"), 0, "stand-in:random", [CANCEL])
    refused("seat-only", race(), HUMANS, policy(), 0, "clock", [RESIGN])
    refused("seat-only", race(), HUMANS, policy(), 0, "stand-in:random", [ABORT])
    with_bot = Standing.start(["human", "bot", "human"])
    refused("bot-seat", race(), with_bot, policy(), 1, "bot:random", [RESIGN])
    refused("bot-seat", race(), with_bot, policy(), 1, "bot:random", [ABORT])
    refused("no-stand-in", race(), HUMANS, policy(), 0, "human", [RETURN])


# -- judge: timeouts under each policy -------------------------------------------------------

def test_stand_in_timeout_then_the_stand_in_plays_until_the_player_moves() -> None:
    pol = policy("stand-in")
    _, s, events = run(race(0), HUMANS, pol, 0, "clock", [BANK])
    assert s.controllers == ("stand-in", "player", "player")
    assert events[0] == {"type": "timed-out", "seat": 0, "policy": "stand-in"} and events[1]["type"] == "banked"
    # a second timeout of the same seat: it is not its player's to time out now
    refused("not-late", race(0), s, pol, 0, "clock", [BANK])
    # the stand-in moves for it; nobody else may
    _, s2, _ = run(race(0), s, pol, 0, "stand-in:random", [BANK])
    assert s2 == s
    refused("no-stand-in", race(1), s, pol, 1, "stand-in:random", [BANK])
    refused("not-skipping", race(0), s, pol, 0, "skip", [BANK])
    # the player's own signed move takes the seat back
    _, back, events = run(race(0), s, pol, 0, "human", [BANK])
    assert back == HUMANS and events[0] == {"type": "returned", "seat": 0}
    # so does match:return, even when it is not the seat's turn; not twice
    _, back, events = run(race(1), s, pol, 0, "email", [RETURN])
    assert back == HUMANS and events == [{"type": "returned", "seat": 0}]
    refused("no-stand-in", race(1), back, pol, 0, "human", [RETURN])


def test_a_timeout_must_be_the_late_seats_turn() -> None:
    refused("not-your-turn", race(1), HUMANS, policy(), 0, "clock", [BANK])
    refused("not-late", race(1), Standing.start(["human", "bot", "human"]), policy(), 1, "clock", [BANK])


def test_skip_timeout_lasts_until_the_turn_is_over() -> None:
    pol = policy("skip")
    # the pass ends the turn at once: the next turn is the player's
    state, s, events = run(race(0), HUMANS, pol, 0, "clock", [BANK])
    assert s == HUMANS and events[0] == {"type": "timed-out", "seat": 0, "policy": "skip"}
    # a move that keeps the turn (a roll of more than 1): the server passes on for the seat
    rolls = race(0, haul=0)
    for n in range(20):  # find a seed whose roll is not a 1, without guessing the rng's order
        state, s, events = judge(GAME, rolls, HUMANS, pol, 0, "clock", [{"type": "roll"}], Rng.from_seed(str(n)))
        if state.turn == 0:
            break
    assert state.turn == 0 and s.controllers[0] == "skip"
    refused("no-stand-in", state, s, pol, 0, "stand-in:random", [BANK])
    state, s, _ = run(state, s, pol, 0, "skip", [BANK])
    assert s == HUMANS and state.turn == 1
    refused("not-skipping", race(0), HUMANS, pol, 0, "skip", [BANK])


@pytest.mark.parametrize("name", ["forfeit", "abort"])
def test_under_forfeit_and_abort_a_timeout_is_a_match_action(name: str) -> None:
    refused("clock-action", race(0), HUMANS, policy(name), 0, "clock", [BANK])


def test_forfeit_timeout_ranks_the_seat_last_and_a_bot_plays_on() -> None:
    pol = policy("forfeit")
    state, s, events = run(race(0), HUMANS, pol, 0, "clock", [FORFEIT])
    assert state == race(0)  # a match action changes no game state
    assert s.controllers[0] == "forfeited" and s.forfeited == (0,) and s.ended is None
    assert events == [{"type": "timed-out", "seat": 0, "policy": "forfeit"}, {"type": "forfeited", "seat": 0}]
    _, s2, _ = run(race(0), s, pol, 0, "stand-in:random", [BANK])
    assert s2 == s
    refused("seat-left", race(0), s, pol, 0, "human", [BANK])
    refused("seat-left", race(0), s, pol, 0, "human", [RESIGN])
    refused("not-late", race(0), s, pol, 0, "clock", [FORFEIT])


def test_forfeit_timeout_ends_the_match_when_fewer_than_two_humans_remain() -> None:
    pol = policy("forfeit", "end")
    _, s, events = run(race(0), HUMANS, pol, 0, "clock", [FORFEIT])
    assert s.ended is None and len(events) == 2
    _, s, events = run(race(1), s, pol, 1, "clock", [FORFEIT])
    assert s.ended == "forfeits" and s.forfeited == (0, 1)
    assert events == [{"type": "timed-out", "seat": 1, "policy": "forfeit"}, {"type": "forfeited", "seat": 1},
                      {"type": "match-ended", "reason": "fewer than 2 players remain"}]


def test_abort_timeout_cancels_the_match() -> None:
    _, s, events = run(race(0), HUMANS, policy("abort"), 0, "clock", [CANCEL])
    assert s.ended == "aborted" and [e["type"] for e in events] == ["timed-out", "match-aborted"]


@pytest.mark.parametrize(("name", "action"), [("stand-in", FORFEIT), ("skip", CANCEL), ("abort", FORFEIT),
                                              ("forfeit", CANCEL)])
def test_the_clock_acts_only_as_the_policy_says(name: str, action: Action) -> None:
    refused("wrong-policy", race(0), HUMANS, policy(name), 0, "clock", [action])


def test_a_clock_action_needs_a_seat_its_player_plays() -> None:
    with_bot = Standing.start(["human", "bot", "human"])
    refused("not-late", race(1), with_bot, policy("abort"), 1, "clock", [CANCEL])
    stood_in = HUMANS._with(0, "stand-in")
    refused("not-late", race(0), stood_in, policy("forfeit"), 0, "clock", [FORFEIT])


# -- resign --------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["stand-in", "skip", "forfeit"])
def test_resign_leaves_the_seat_to_a_bot(name: str) -> None:
    pol = policy(name)
    _, s, events = run(race(0), HUMANS, pol, 2, "human", [RESIGN])  # not its turn: a resignation may come any time
    assert s.controllers == ("player", "player", "forfeited") and s.forfeited == (2,) and s.ended is None
    assert events == [{"type": "resigned", "seat": 2}]
    assert s.server_plays(2) and s.humans_left() == [0, 1]


def test_resign_under_abort_aborts() -> None:
    _, s, events = run(race(0), HUMANS, policy("abort"), 1, "human", [RESIGN])
    assert s.ended == "aborted" and [e["type"] for e in events] == ["resigned", "match-aborted"]


@pytest.mark.parametrize("name", ["stand-in", "skip", "forfeit"])
def test_resign_ends_the_match_when_after_forfeit_says_end(name: str) -> None:
    pol = policy(name, "end")
    two = Standing.start(["human", "human", "bot"])
    _, s, events = run(race(0), two, pol, 0, "human", [RESIGN])
    assert s.ended == "forfeits" and events[-1]["type"] == "match-ended"


def test_a_stand_in_seat_can_resign() -> None:
    s = HUMANS._with(1, "stand-in")
    _, s, _ = run(race(0), s, policy(), 1, "human", [RESIGN])
    assert s.controllers[1] == "forfeited"


# -- abort votes ---------------------------------------------------------------------------------

def test_abort_needs_every_remaining_human() -> None:
    pol = policy()
    s = Standing.start(["human", "bot", "human", "human"])
    _, s, events = run(race(0, players=4), s, pol, 2, "human", [ABORT])
    assert events == [{"type": "abort-voted", "seat": 2, "waiting_for": [0, 3]}] and s.ended is None
    refused("already-voted", race(0, players=4), s, pol, 2, "human", [ABORT])
    _, s, events = run(race(0, players=4), s, pol, 0, "human", [ABORT])
    assert events[0]["waiting_for"] == [3]
    _, s, events = run(race(0, players=4), s, pol, 3, "human", [ABORT])
    assert s.ended == "aborted" and s.abort_votes == (2, 0, 3)
    assert [e["type"] for e in events] == ["abort-voted", "match-aborted"]


def test_a_leaver_takes_back_its_vote_and_can_complete_the_abort() -> None:
    pol = policy()
    _, s, _ = run(race(0), HUMANS, pol, 0, "human", [ABORT])
    _, s, _ = run(race(0), s, pol, 0, "human", [RESIGN])
    assert s.abort_votes == () and s.ended is None
    _, s, _ = run(race(0), s, pol, 1, "human", [ABORT])
    _, s, events = run(race(0), s, pol, 2, "human", [RESIGN])  # the last one not to vote leaves
    assert s.ended == "aborted" and events[-1] == {"type": "match-aborted",
                                                   "reason": "every remaining player voted to abort"}


def test_a_stand_in_seats_player_may_vote() -> None:
    _, s, _ = run(race(0), HUMANS._with(0, "stand-in"), policy(), 0, "human", [ABORT])
    assert s.abort_votes == (0,) and s.controllers[0] == "stand-in"


# -- final outcome -------------------------------------------------------------------------------

OUTCOME = {"scores": [10, 30, 20, 30], "ranks": [4, 1, 3, 1], "detail": {"winner_bank": 30}}


def test_final_outcome_is_the_rules_result_when_nobody_left() -> None:
    s = Standing.start(["human"] * 4)
    assert final_outcome(OUTCOME, s, 4) == OUTCOME
    assert final_outcome(None, s, 4) is None


def test_final_outcome_ranks_the_departed_last_first_to_leave_lowest() -> None:
    s = Standing(("player", "forfeited", "player", "forfeited"), forfeited=(3, 1))
    out = final_outcome(OUTCOME, s, 4)
    assert out == {"scores": [10, 30, 20, 30], "ranks": [2, 3, 1, 4],
                   "detail": {"winner_bank": 30, "forfeited": [3, 1]}}
    assert OUTCOME["detail"] == {"winner_bank": 30}  # not changed in place


def test_final_outcome_keeps_ties_among_those_who_stayed() -> None:
    s = Standing(("forfeited", "player", "player", "player"), forfeited=(0,))
    out = final_outcome({"scores": [9, 5, 5, 1], "ranks": [1, 2, 2, 4], "detail": {}}, s, 4)
    assert out is not None and out["ranks"] == [4, 1, 1, 3]


def test_final_outcome_of_an_aborted_or_forfeits_ended_match() -> None:
    aborted = Standing(("forfeited", "player"), forfeited=(0,), ended="aborted")
    assert final_outcome(None, aborted, 2) is None and final_outcome(OUTCOME, aborted, 4) is None
    ended = Standing(("forfeited", "player", "forfeited", "bot"), forfeited=(2, 0), ended="forfeits")
    assert final_outcome(None, ended, 4) == {"scores": [0, 0, 0, 0], "ranks": [3, 1, 4, 1],
                                             "detail": {"ended": "too few players remain", "forfeited": [2, 0]}}
    running = Standing(("forfeited", "player"), forfeited=(0,))
    assert final_outcome(None, running, 2) is None
