"""Who may see and sign what (issue 9, findings 1-3), through the HTTP API.

1. A resubmitted (public) log entry answers with public information only, unless the request
   is signed with the seat's own key.
2. Small-order and non-canonical Ed25519 keys are refused at claim, and degenerate signatures
   verify nowhere, even against such a key that reached storage another way.
3. A signed request binds method, path, query, body, time and a one-time nonce.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from service.config import Settings
from service.play.matches import Matches
from service.proof import signing
from tests.conftest import Player, one_redis_only
from tests.helpers.keys import BAD_KEYS, DEGENERATE_SIG, IDENTITY_KEY, ZERO_KEY
from tests.helpers.matches import assert_problem, claimed, create, first_legal, started

ROOT = Path(__file__).resolve().parents[2]


# -- finding 1: a replayed log entry is public ------------------------------------------------

@pytest.fixture
def ophir_after_a_draft(client: Any, players: list[Player]) -> tuple[str, dict[str, Any], int]:
    """A two-seat Ophir match played to just after a move with a hidden event and after which
    the same seat must act again (so its answer carries legal actions and its secret VP)."""
    mid = claimed(client, players, "ophir")
    while True:
        seat, action, ply = first_legal(client, mid, players)
        r = client.post(f"/v1/matches/{mid}/moves", json=players[seat].envelope(mid, seat, ply, [action]))
        assert r.status_code == 201, r.get_json()
        fresh = r.get_json()
        hidden = [e for e in fresh["events"] if "visible_to" in e]
        if hidden and fresh["view"]["legal_actions"]:
            return mid, fresh, seat
        assert ply < 40, "no move with a hidden event and a next turn for the same seat"


def _is_public(body: dict[str, Any], seat: int) -> None:
    assert body["replayed"] is True
    assert "legal_actions" not in body["view"] and "seat" not in body["view"]
    assert body["view"]["board"]["you"] is None
    assert all("vp" not in row for row in body["view"]["board"]["players"])  # Ophir's VP are secret in play
    assert all("visible_to" not in e for e in body["events"])


def test_a_fresh_move_answers_privately(ophir_after_a_draft: tuple[str, dict[str, Any], int]) -> None:
    _mid, fresh, seat = ophir_after_a_draft
    assert fresh["replayed"] is False and fresh["view"]["legal_actions"]
    assert "vp" in fresh["view"]["board"]["players"][seat]
    assert any("visible_to" in e for e in fresh["events"])


def test_reposting_a_public_log_entry_reveals_nothing_private(
        client: Any, players: list[Player], ophir_after_a_draft: tuple[str, dict[str, Any], int]) -> None:
    mid, fresh, seat = ophir_after_a_draft
    entry = client.get(f"/v1/matches/{mid}/log").get_json()["entries"][fresh["accepted_ply"]]
    url = f"/v1/matches/{mid}/moves"
    body = json.dumps({"envelope": entry["envelope"], "signature": entry["signature"]}).encode()

    r = client.post(url, data=body, content_type="application/json")
    assert r.status_code == 200, r.get_json()
    _is_public(r.get_json(), seat)

    # another seat's valid request signature, or a stranger's: still public, and no error
    stranger = Player("Eve")
    for who in (players[1 - seat], stranger):
        r = client.post(url, data=body, content_type="application/json", headers=who.auth("POST", url, body=body))
        assert r.status_code == 200, r.get_json()
        _is_public(r.get_json(), seat)

    # the seat itself, proving it with a fresh signed request over this body: its private answer
    r = client.post(url, data=body, content_type="application/json", headers=players[seat].auth("POST", url, body=body))
    assert r.status_code == 200, r.get_json()
    mine = r.get_json()
    assert mine["replayed"] is True
    assert mine["view"]["legal_actions"] == fresh["view"]["legal_actions"]
    assert mine["view"]["board"]["players"][seat]["vp"] == fresh["view"]["board"]["players"][seat]["vp"]
    assert mine["events"] == fresh["events"]

    # the seat's signature made for another body proves nothing
    other = players[seat].auth("POST", url, body=b"{}")
    assert_problem(client.post(url, data=body, content_type="application/json", headers=other), 401, "bad-signature")


def test_replay_of_a_harbour_race_move_hides_the_legal_actions(client: Any, players: list[Player]) -> None:
    mid, view = started(client, players)
    seat = view["active_seats"][0]
    url = f"/v1/matches/{mid}/moves"
    payload = players[seat].envelope(mid, seat, 0, [{"type": "roll"}])
    assert client.post(url, json=payload).status_code == 201
    r = client.post(url, json=payload)
    assert r.status_code == 200 and "legal_actions" not in r.get_json()["view"]
    body = json.dumps(payload).encode()
    r = client.post(url, data=body, content_type="application/json", headers=players[seat].auth("POST", url, body=body))
    assert r.status_code == 200 and "legal_actions" in r.get_json()["view"]


# -- finding 2: no forgeable seats ----------------------------------------------------------------

@pytest.mark.parametrize("key", BAD_KEYS)
def test_small_order_and_non_canonical_keys_are_refused_at_claim(client: Any, key: str) -> None:
    made = create(client, [{"invite": "a@example.org"}, {"invite": "b@example.org"}])
    url = f"/v1/matches/{made['id']}/seats/0/claim"
    body = assert_problem(client.post(url, json={"token": made["invites"]["0"], "public_key": key, "name": "Mallory"}),
                          400, "bad-public-key")
    assert "small order" in body["detail"]
    assert client.get(f"/v1/matches/{made['id']}").get_json()["open_seats"] == [0, 1]


@pytest.mark.parametrize("key", [IDENTITY_KEY, ZERO_KEY])
def test_a_degenerate_signature_verifies_nowhere(client: Any, service: Matches, players: list[Player], key: str,
                                                 tmp_path: Path) -> None:
    """A small-order key that got into storage some other way (an old record) forges nothing."""
    mid = claimed(client, players)
    service.store.update_meta(mid, lambda meta: meta.with_seat(meta.seats[0].but(public_key=key)))
    service.states.clear()  # the stored meta was rewritten behind this process
    for n in range(8):
        assert not signing.verify(key, {"message": n}, DEGENERATE_SIG)

    shown = client.get(f"/v1/matches/{mid}").get_json()
    env = {"match": mid, "seat": 0, "ply": shown["ply"], "actions": [{"type": "roll"}], "nonce": "forged"}
    r = client.post(f"/v1/matches/{mid}/moves", json={"envelope": env, "signature": DEGENERATE_SIG})
    assert_problem(r, 401, "bad-signature")
    assert client.get(f"/v1/matches/{mid}").get_json()["ply"] == shown["ply"]

    path = f"/v1/matches/{mid}/seats/0/view"
    header = f'Portolan key="{key}", ts="{int(time.time())}", nonce="{"f" * 22}", sig="{DEGENERATE_SIG}"'
    assert_problem(client.get(path, headers={"Authorization": header}), 401, "bad-signature")
    assert_problem(client.get("/v1/me/turns", headers={"Authorization": header}), 401, "bad-signature")

    # the offline verifier applies the same rule to a record naming such a key
    record = client.get(f"/v1/matches/{mid}/record").get_json()
    assert record["header"]["seats"][0]["public_key"] == key
    path_ = tmp_path / "record.json"
    path_.write_text(json.dumps(record))
    run = subprocess.run([sys.executable, "-m", "service.tools.cli", "verify", str(path_)], capture_output=True, text=True,
                         env={"PORTOLAN_PLUGINS": "tests.helpers.fixture_game", "PATH": ""}, cwd=ROOT)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "FAIL header: seat 0's public key is not a valid Ed25519 key" in run.stdout


# -- finding 3: a signed request is good once, for one request ------------------------------------

def test_a_signed_read_cannot_be_replayed(client: Any, players: list[Player]) -> None:
    mid = claimed(client, players)
    path = f"/v1/matches/{mid}/seats/0/view"
    header = players[0].auth("GET", path)
    assert client.get(path, headers=header).status_code == 200
    body = assert_problem(client.get(path, headers=header), 401, "replayed-request")
    assert "fresh nonce" in body["detail"]
    assert client.get(path, headers=players[0].auth("GET", path)).status_code == 200  # a new nonce is fine
    turns = players[0].auth("GET", "/v1/me/turns")
    assert client.get("/v1/me/turns", headers=turns).status_code == 200
    assert_problem(client.get("/v1/me/turns", headers=turns), 401, "replayed-request")


@one_redis_only
def test_a_signed_view_spends_its_nonce_and_reads_the_match_in_one_round_trip(
        settings: Settings, service: Matches, players: list[Player], monkeypatch: pytest.MonkeyPatch) -> None:
    from service.api import create_app

    # without the rate limits, whose counters are a round trip of their own per request
    client = create_app(dataclasses.replace(settings, rate_limits=False), service, TESTING=True).test_client()
    mid = claimed(client, players)
    calls: list[str] = []
    real = type(service.store.r).execute_command
    pipelines = type(service.store.r.pipeline())

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(str(args[0]))
        return real(self, *args, **kwargs)

    real_pipe = pipelines.execute

    def counted_pipe(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(f"pipeline of {len(self.command_stack)}")
        return real_pipe(self, *args, **kwargs)

    client.get(f"/v1/matches/{mid}")  # the state is in this process's cache from here on
    monkeypatch.setattr(type(service.store.r), "execute_command", counted)
    monkeypatch.setattr(pipelines, "execute", counted_pipe)
    path = f"/v1/matches/{mid}/seats/0/view"
    header = players[0].auth("GET", path)
    assert client.get(path, headers=header).status_code == 200
    assert calls == ["pipeline of 2"]
    # the same answers as before: a replay is refused, an unknown match is 404 (its nonce spent too)
    assert_problem(client.get(path, headers=header), 401, "replayed-request")
    other = "/v1/matches/aaaaaaaaaaaa/seats/0/view"
    header = players[0].auth("GET", other)
    assert_problem(client.get(other, headers=header), 404, "unknown-match")
    assert_problem(client.get(other, headers=header), 401, "replayed-request")


def test_the_query_and_the_body_are_signed(client: Any, players: list[Player]) -> None:
    mid = claimed(client, players)
    path = f"/v1/matches/{mid}/seats/0/view"
    signed_for = players[0].auth("GET", path, query="a=1")
    assert_problem(client.get(f"{path}?a=2", headers=signed_for), 401, "bad-signature")
    assert client.get(f"{path}?a=1", headers=players[0].auth("GET", path, query="a=1")).status_code == 200
    assert_problem(client.get(path, headers=players[0].auth("GET", path, query="a=1")), 401, "bad-signature")

    url = f"/v1/matches/{mid}/moves"
    seat, action, ply = first_legal(client, mid, players)
    body = json.dumps(players[seat].envelope(mid, seat, ply, [action])).encode()
    header = players[seat].auth("POST", url, body=body + b" ")
    assert_problem(client.post(url, data=body, content_type="application/json", headers=header), 401, "bad-signature")
    assert client.get(f"/v1/matches/{mid}").get_json()["ply"] == ply  # refused: nothing applied
    r = client.post(url, data=body, content_type="application/json", headers=players[seat].auth("POST", url, body=body))
    assert r.status_code == 201 and r.get_json()["view"]["legal_actions"] is not None


@pytest.mark.parametrize(("ts", "nonce", "says"), [
    ("1.5", "n" * 16, "whole unix seconds"),
    ("", "n" * 16, "whole unix seconds"),
    ("1e9", "n" * 16, "whole unix seconds"),
    (None, "short", "nonce must be 16 to 64"),
    (None, "n" * 65, "nonce must be 16 to 64"),
    (None, "has space here!!", "nonce must be 16 to 64"),
])
def test_a_malformed_authorization_is_a_clear_401(client: Any, players: list[Player], ts: str | None, nonce: str,
                                                  says: str) -> None:
    ts = str(int(time.time())) if ts is None else ts
    header = f'Portolan key="{players[0].public_key}", ts="{ts}", nonce="{nonce}", sig="{"A" * 86}"'
    body = assert_problem(client.get("/v1/me/turns", headers={"Authorization": header}), 401, "bad-authorization")
    assert says in body["detail"]


@pytest.mark.parametrize("header", [
    'Portolan key="k", ts="1", sig="s"',  # the old form, without a nonce
    'Portolan key="k", ts="1", ts="2", nonce="nnnnnnnnnnnnnnnn", sig="s"',
    'Portolan key="k", ts="1", nonce="nnnnnnnnnnnnnnnn", sig="s", extra="x"',
])
def test_an_incomplete_or_ambiguous_authorization_is_refused(client: Any, header: str) -> None:
    assert_problem(client.get("/v1/me/turns", headers={"Authorization": header}), 401, "bad-authorization")


def test_a_stale_signed_request_is_refused(client: Any, players: list[Player]) -> None:
    old = {"Authorization": signing.authorization(players[0].private_key, "GET", "/v1/me/turns", ts=int(time.time()) - 301)}
    assert_problem(client.get("/v1/me/turns", headers=old), 401, "stale-signature")


def test_the_verifier_refuses_a_malleated_signature(service: Matches) -> None:
    """Same signature rules offline: S + L (non-canonical S) of a real signature is refused."""
    from service.proof.verify import verify_record
    from tests.helpers.verify import play_to_end

    record = service.record(play_to_end(service, "harbour-race", 2))
    assert verify_record(record).ok
    raw = signing.b64d(record["entries"][0]["signature"])
    order = 2**252 + 27742317777372353535851937790883648493
    s_plus_l = (int.from_bytes(raw[32:], "little") + order).to_bytes(32, "little")
    record["entries"][0]["signature"] = signing.b64e(raw[:32] + s_plus_l)
    report = verify_record(record)
    seat = record["entries"][0]["seat"]
    assert report.failure == f"ply 0: the signature does not verify under seat {seat}'s key", report.text()
