"""The clock through the real API (docs/clock.md): time controls and timeout policies at
creation, the clock and standing in every view, and the match actions (resign, abort votes, back)
through the moves route. Every answer is validated against openapi.yaml (the contract test's
``Api``); every refusal is a problem with a stable code, and changes nothing.

The service's clock is a hand the test moves (no sleeping): the views then show the same time.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from openapi_core import OpenAPI

from service.clock import iso
from service.play.matches import Matches
from tests.conftest import Player
from tests.helpers.contract import Api, signed

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)  # a Tuesday


class Hands:
    """The service's clock, moved by the test."""

    def __init__(self) -> None:
        self.at = START

    def __call__(self) -> str:
        return iso(self.at)


@pytest.fixture
def api(client: Any, openapi: OpenAPI, service: Matches) -> Api:
    service.now = Hands()
    return Api(client, openapi)


def started(api: Api, players: list[Player], n: int = 2, **clock: Any) -> str:
    """A started match of ``n`` invited players, created with the clock fields ``clock``."""
    made = api("POST", "/v1/matches", 201, **signed({"game": "harbour-race", "seats": [
        {"invite": f"p{i}@example.org"} for i in range(n)], **clock})).get_json()
    for i in range(n):
        api("POST", f"/v1/matches/{made['id']}/seats/{i}/claim", 200, json={
            "token": made["invites"][str(i)], "public_key": players[i].public_key, "name": players[i].name})
    return str(made["id"])


def act(api: Api, p: Player, mid: str, seat: int, actions: list[dict[str, Any]], status: int = 201, *,
        code: str | None = None, valid_request: bool = True) -> dict[str, Any]:
    ply = api.client.get(f"/v1/matches/{mid}").get_json()["ply"]
    body = p.envelope(mid, seat, ply, actions, nonce=f"{seat}-{ply}-{actions[0]['type']}")
    result: dict[str, Any] = api("POST", f"/v1/matches/{mid}/moves", status, json=body, code=code,
                                 valid_request=valid_request).get_json()
    return result


def stored(service: Matches, mid: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    return service.meta(mid), service.log(mid)


def test_the_clock_is_chosen_at_creation_and_shown_in_every_view(api: Api, service: Matches,
                                                                 players: list[Player]) -> None:
    mid = started(api, players, time_control={"kind": "per-move", "days": 3, "weekends": False},
                  timeout_policy={"policy": "forfeit", "after_forfeit": "end", "grace_hours": 48})
    view = api("GET", f"/v1/matches/{mid}", 200).get_json()
    clock = view["clock"]
    assert clock["time_control"] == {"kind": "per-move", "days": 3, "weekends": False, "reminders": ["half", 24]}
    assert clock["timeout_policy"] == {"policy": "forfeit", "after_forfeit": "end", "grace_hours": 48}
    [mover] = view["active_seats"]
    seat_clock = clock["seats"][mover]
    # three working days from a Tuesday noon, weekends not counted: Friday noon
    assert seat_clock["running"] and seat_clock["deadline"] == "2026-12-04T12:00:00.000Z"
    assert seat_clock["acts_at"] == "2026-12-06T12:00:00.000Z" and seat_clock["allowance_s"] == 3 * 86400
    assert seat_clock["since"] == iso(START)
    assert not clock["seats"][1 - mover]["running"]
    assert view["standing"] == {"controllers": ["player", "player"], "forfeited": [], "abort_votes": [], "ended": None}
    # the seat's own view carries the same clock, and the match actions the seat may take
    path = f"/v1/matches/{mid}/seats/{mover}/view"
    own = api("GET", path, 200, headers=players[mover].auth("GET", path)).get_json()
    assert own["clock"] == clock
    assert [a["action"]["type"] for a in own["match_actions"]] == ["match:resign", "match:abort"]
    # past the deadline the view is the same (it does not depend on when it is read: views are
    # cached by ETag); the timeout policy has not acted before acts_at
    service.now.at = START + timedelta(days=3, hours=1)  # type: ignore[attr-defined]
    assert api("GET", f"/v1/matches/{mid}", 200).get_json()["clock"] == clock
    assert service.timeout(mid, mover) is None
    # a match made without a clock has one that never runs, and the default policy
    untimed = started(api, players)
    plain = api("GET", f"/v1/matches/{untimed}", 200).get_json()["clock"]
    assert plain["time_control"] == {"kind": "none"} and plain["timeout_policy"]["policy"] == "stand-in"
    assert not any(s["running"] or s["deadline"] for s in plain["seats"])


@pytest.mark.parametrize(("clock", "code", "field"), [
    ({"time_control": {"kind": "per-move", "days": 15}}, "bad-time-control", "days"),
    ({"time_control": {"kind": "per-move", "days": 0}}, "bad-time-control", "days"),
    ({"time_control": {"kind": "bank", "initial_days": 7, "cap_days": 3}}, "bad-time-control", "cap_days"),
    ({"time_control": {"kind": "bank", "initial_days": 61}}, "bad-time-control", "initial_days"),
    ({"time_control": {"kind": "hourly"}}, "bad-time-control", "kind"),
    ({"time_control": {"kind": "per-move", "days": 2, "reminders": ["soon"]}}, "bad-time-control", "reminders"),
    ({"time_control": "3 days"}, "bad-time-control", "kind"),
    ({"timeout_policy": "sudden-death"}, "bad-timeout-policy", "policy"),
    ({"timeout_policy": {"policy": "forfeit", "after_forfeit": "party"}}, "bad-timeout-policy", "after_forfeit"),
    ({"timeout_policy": {"policy": "skip", "grace_hours": 400}}, "bad-timeout-policy", "grace_hours"),
])
def test_a_clock_out_of_range_is_refused_and_nothing_is_stored(api: Api, service: Matches, clock: dict[str, Any],
                                                               code: str, field: str) -> None:
    before = sorted(service.store.match_ids())
    body = api("POST", "/v1/matches", 400, valid_request=False, code=code, **signed(
        {"game": "harbour-race", "seats": [{"invite": "a@example.org"}, {"bot": "random"}], **clock})).get_json()
    assert body["field"] == field, body
    assert body["detail"].startswith(("time_control: ", "timeout_policy: ")) and "{" not in body["detail"]
    assert sorted(service.store.match_ids()) == before


def test_resign_under_forfeit_then_bot_ranks_the_seat_last(api: Api, service: Matches, players: list[Player]) -> None:
    mid = started(api, players, n=3, timeout_policy="forfeit")
    view = api.client.get(f"/v1/matches/{mid}").get_json()
    idle = next(s for s in range(3) if s not in view["active_seats"])  # resigning needs no turn
    result = act(api, players[idle], mid, idle, [{"type": "match:resign"}])
    assert [e["type"] for e in result["events"]] == ["resigned"] and result["status"] == "active"
    after = api("GET", f"/v1/matches/{mid}", 200).get_json()
    assert after["standing"]["controllers"][idle] == "forfeited" and after["standing"]["forfeited"] == [idle]
    assert after["clock"]["seats"][idle]["controller"] == "forfeited"
    [entry] = api("GET", f"/v1/matches/{mid}/log?from={view['ply']}", 200).get_json()["entries"]
    assert entry["envelope"]["actions"] == [{"type": "match:resign"}] and entry["by"] == "human"
    # the seat has left: its player no longer signs anything for it
    before = stored(service, mid)
    act(api, players[idle], mid, idle, [{"type": "match:resign"}], 409, code="seat-left")
    act(api, players[idle], mid, idle, [{"type": "match:abort"}], 409, code="seat-left")
    assert stored(service, mid) == before


def test_resign_with_two_players_under_forfeit_end_finishes_the_match(api: Api, service: Matches,
                                                                      players: list[Player]) -> None:
    mid = started(api, players, timeout_policy={"policy": "forfeit", "after_forfeit": "end"})
    result = act(api, players[0], mid, 0, [{"type": "match:resign"}])
    assert [e["type"] for e in result["events"]] == ["resigned", "match-ended"]
    view = api("GET", f"/v1/matches/{mid}", 200).get_json()
    assert view["status"] == "finished" and view["outcome"]["ranks"] == [2, 1]
    assert view["standing"]["ended"] == "forfeits"
    # resigning (or voting) in a finished match: 409, nothing changes
    before = stored(service, mid)
    act(api, players[1], mid, 1, [{"type": "match:resign"}], 409, code="match-not-active")
    act(api, players[1], mid, 1, [{"type": "match:abort"}], 409, code="match-not-active")
    assert stored(service, mid) == before
    record = api("GET", f"/v1/matches/{mid}/record", 200).get_json()
    assert record["header"]["format"] == "portolan-record/4" and record["seed"]


def test_abort_needs_every_remaining_players_vote(api: Api, service: Matches, players: list[Player]) -> None:
    mid = started(api, players, n=3)
    first = act(api, players[0], mid, 0, [{"type": "match:abort"}])
    [voted] = first["events"]
    assert voted == {"type": "abort-voted", "seat": 0, "waiting_for": [1, 2],
                     "text": "Seat 0 voted to abort the match; still to vote: seats 1, 2."}
    assert first["status"] == "active"
    # a vote twice: 409, nothing changes
    before = stored(service, mid)
    act(api, players[0], mid, 0, [{"type": "match:abort"}], 409, code="already-voted")
    assert stored(service, mid) == before
    act(api, players[2], mid, 2, [{"type": "match:abort"}])
    last = act(api, players[1], mid, 1, [{"type": "match:abort"}])
    assert [e["type"] for e in last["events"]] == ["abort-voted", "match-aborted"] and last["status"] == "aborted"
    view = api("GET", f"/v1/matches/{mid}", 200).get_json()
    assert view["status"] == "aborted" and view["outcome"] is None and view["standing"]["ended"] == "aborted"
    record = api("GET", f"/v1/matches/{mid}/record", 200).get_json()
    assert record["status"] == "aborted" and record["seed"]  # an abort after the start reveals the seed
    act(api, players[1], mid, 1, [{"type": "match:resign"}], 409, code="match-not-active")


def test_bad_match_actions_are_refused_and_change_nothing(api: Api, service: Matches, players: list[Player]) -> None:
    mid = started(api, players, n=3)
    stranger = Player("Eve")
    before = stored(service, mid)
    # a resignation signed for a seat that is not yours: 403 not-your-seat
    act(api, players[0], mid, 1, [{"type": "match:resign"}], 403, code="not-your-seat")
    # an abort vote by someone who holds no seat: the envelope verifies under no seat's key
    act(api, stranger, mid, 0, [{"type": "match:abort"}], 401, code="bad-signature")
    # the match clock's own actions, sent by a player: 403 clock-only
    for kind in ("match:forfeit", "match:cancel"):
        act(api, players[0], mid, 0, [{"type": kind}], 403, code="clock-only", valid_request=False)
    # a match action with other actions in the same move: 400
    view = api.client.get(f"/v1/matches/{mid}").get_json()
    mover = view["active_seats"][0]
    act(api, players[mover], mid, mover, [{"type": "roll"}, {"type": "match:resign"}], 400, code="match-action-alone")
    act(api, players[mover], mid, mover, [{"type": "match:resign"}, {"type": "match:abort"}], 400,
        code="match-action-alone")
    # no such match action, or one with fields: 400
    act(api, players[0], mid, 0, [{"type": "match:surrender"}], 400, code="unknown-match-action", valid_request=False)
    act(api, players[0], mid, 0, [{"type": "match:resign", "why": "bored"}], 400, code="bad-match-action",
        valid_request=False)
    # back with no stand-in: 409
    act(api, players[0], mid, 0, [{"type": "match:return"}], 409, code="no-stand-in")
    assert stored(service, mid) == before
    # a player who left is no player any more: their vote is refused
    act(api, players[2], mid, 2, [{"type": "match:resign"}])
    before = stored(service, mid)
    act(api, players[2], mid, 2, [{"type": "match:abort"}], 409, code="seat-left")
    assert stored(service, mid) == before


def test_a_bot_seat_takes_no_match_actions(api: Api, service: Matches, players: list[Player]) -> None:
    made = api("POST", "/v1/matches", 201, **signed({"game": "harbour-race", "seats": [
        {"invite": "p0@example.org"}, {"bot": "random"}]})).get_json()
    mid = made["id"]
    api("POST", f"/v1/matches/{mid}/seats/0/claim", 200, json={
        "token": made["invites"]["0"], "public_key": players[0].public_key, "name": "Ana"})
    before = stored(service, mid)
    # signed by seat 0's key for the bot's seat: refused before any rule is looked at
    act(api, players[0], mid, 1, [{"type": "match:resign"}], 403, code="not-your-seat")
    assert stored(service, mid) == before
