"""The event objects (service/play/outward/events.py): one shape for streams, webhooks and the me stream."""

from __future__ import annotations

from typing import Any

from service.play.outward import events
from service.proof.match_record import MatchMeta

META = MatchMeta.from_dict({
    "id": "k7x3abcdefgh", "game": "harbour-race", "ply": 2, "status": "active", "active": [0],
    "updated_at": "2026-12-01T10:00:02.000Z", "started_at": "2026-12-01T10:00:00.000Z",
    "setup_events": [{"type": "start", "seat": 1}, {"type": "dealt", "cards": [3], "visible_to": [1]}],
    "outcome": None, "head": "h2",
    "seats": [{"seat": 0, "name": "Ana"}, {"seat": 1, "name": "Bea"}],
})


def entry(ply: int, seat: int, nxt: dict[str, Any] | None) -> dict[str, Any]:
    e: dict[str, Any] = {
        "ply": ply, "seat": seat, "by": "human", "accepted_at": f"2026-12-01T10:00:0{ply + 1}.000Z",
        "envelope": {"actions": [{"type": "roll"}]}, "hash": f"h{ply + 1}",
        "events": [{"type": "rolled", "seat": seat, "die": 4}, {"type": "drew", "card": 9, "visible_to": [seat]}],
    }
    if nxt is not None:
        e["next"] = nxt
    return e


def test_a_move_event_shows_only_what_the_viewer_may_see() -> None:
    e = entry(1, 1, {"ply": 2, "status": "active", "active": [0]})
    public = events.move(META, e)
    assert public["id"] == "k7x3abcdefgh.2" and public["type"] == "move" and public["ply"] == 2
    assert public["accepted_ply"] == 1 and public["seat"] == 1 and public["active_seats"] == [0]
    assert [x["type"] for x in public["events"]] == ["rolled"]
    assert [x["type"] for x in events.move(META, e, viewer=1)["events"]] == ["rolled", "drew"]
    assert [x["type"] for x in events.move(META, e, viewer=0)["events"]] == ["rolled"]
    assert "outcome" not in public


def test_an_old_entry_without_its_after_state_takes_it_from_the_meta_only_when_newest() -> None:
    newest = events.move(META, entry(1, 1, None))
    assert newest["status"] == "active" and newest["active_seats"] == [0]
    older = events.move(META, entry(0, 0, None))
    assert older["status"] is None and older["active_seats"] is None


def test_the_last_move_carries_the_outcome_and_ids_are_stable_and_distinct() -> None:
    over = META.but(status="finished", active=(), outcome={"scores": [3, 12], "ranks": [2, 1]})
    last = events.move(over, entry(1, 1, {"ply": 2, "status": "finished", "active": []}))
    assert last["outcome"] == {"scores": [3, 12], "ranks": [2, 1]}
    done = events.finished(over)
    assert done["names"] == ["Ana", "Bea"] and done["outcome"] == last["outcome"]
    ids = [events.started(META)["id"], last["id"], done["id"], events.aborted(META)["id"], events.your_turn(META, 0)["id"]]
    assert len(set(ids)) == len(ids)
    assert events.move(over, entry(1, 1, None))["id"] == last["id"]  # the same event, the same id


def test_started_hides_secret_setup_events_and_names_first_seats_only_at_ply_0() -> None:
    at0 = META.but(ply=0)
    s = events.started(at0)
    assert s["active_seats"] == [0] and [x["type"] for x in s["events"]] == ["start"]
    assert [x["type"] for x in events.started(at0, viewer=1)["events"]] == ["start", "dealt"]
    assert events.started(META)["active_seats"] is None
    assert all(t in events.EVENT_TYPES for t in ("started", "move", "finished", "aborted", "your-turn"))
