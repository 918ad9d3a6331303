"""Hostile and sloppy request bodies: each gets a clear 400/413 problem, never a 500, and nothing
is stored (issue 9, finding 4: nesting, sizes, NUL and lone surrogates, lenient option values)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from service.play.limits import MAX_JSON_DEPTH
from tests.conftest import Player, create_match, signed_post
from tests.helpers.matches import assert_problem, create, snapshot, started

BOTS2 = [{"bot": "random"}, {"bot": "random"}]


def nested(depth: int) -> Any:
    """``depth`` levels of arrays and objects, alternating (the outermost counts as 1)."""
    value: Any = 1
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


def stored(service: Any) -> int:
    return len(service.store.match_ids())


@pytest.mark.parametrize("route", ["/v1/matches", "/v1/matches/{mid}/seats/0/claim", "/v1/matches/{mid}/moves"])
def test_a_thousand_levels_of_nesting_is_400_too_deep_on_every_json_route(client: Any, service: Any, route: str) -> None:
    mid = create(client, [{"invite": "a@example.org"}, {"invite": "b@example.org"}])["id"]
    for body in ("[" * 1000 + "]" * 1000, '{"a":' * 1000 + "1" + "}" * 1000, "[" * 100_000):
        # creating a match is a signed request (the signature is checked first, over these bytes)
        r = signed_post(client, route.format(mid=mid), data=body)
        assert_problem(r, 400, "too-deep")
    assert stored(service) == 1


def test_the_depth_bound_is_exact(client: Any, service: Any) -> None:
    base = {"game": "harbour-race", "seats": BOTS2}
    # the body itself is level 1 and "options" level 2: a value at the bound is judged by the game ...
    ok = {**base, "options": {"target": nested(MAX_JSON_DEPTH - 2)}}
    assert_problem(create_match(client, ok), 400, "bad-options")
    # ... one level more is refused before anything reads it
    body = assert_problem(create_match(client, {**base, "options": {"target": nested(MAX_JSON_DEPTH - 1)}}),
                          400, "too-deep")
    assert str(MAX_JSON_DEPTH) in body["detail"]
    assert stored(service) == 0


def test_deep_actions_in_a_move_envelope_never_reach_the_rules(client: Any, players: list[Player]) -> None:
    mid, view = started(client, players)
    seat = view["active_seats"][0]
    before = snapshot(client, mid)
    action = {"type": "roll", "extra": nested(MAX_JSON_DEPTH)}
    r = client.post(f"/v1/matches/{mid}/moves", json=players[seat].envelope(mid, seat, 0, [action]))
    assert_problem(r, 400, "too-deep")
    assert snapshot(client, mid) == before


def test_a_deep_envelope_from_a_direct_caller_is_refused_too(service: Any, client: Any, players: list[Player]) -> None:
    """Workers call the use cases without the API's body parser: the envelope check bounds it."""
    from service.play.errors import BadRequest

    mid, view = started(client, players)
    seat = view["active_seats"][0]
    signed = players[seat].envelope(mid, seat, 0, [{"type": "roll", "x": nested(MAX_JSON_DEPTH)}])
    with pytest.raises(BadRequest) as caught:
        service.submit(mid, signed["envelope"], signed["signature"])
    assert caught.value.code == "too-deep"
    assert service.meta(mid).ply == 0


@pytest.mark.parametrize("text", ["\\u0000", "a\\u0000b", "\\ud800", "x\\udfff", "\\udc00\\ud800"])
def test_nul_and_lone_surrogates_are_400_bad_string(client: Any, service: Any, text: str) -> None:
    for body in (f'{{"game": "harbour-race{text}", "seats": [{{"bot": "random"}}, {{"bot": "random"}}]}}',
                 f'{{"game": "harbour-race", "seats": [{{"bot": "random"}}, {{"bot": "random"}}], "options": {{"{text}": 1}}}}'):
        assert_problem(signed_post(client, "/v1/matches", data=body), 400, "bad-string")
    assert stored(service) == 0


def test_a_valid_surrogate_pair_is_text_not_a_lone_surrogate(client: Any) -> None:
    r = signed_post(client, "/v1/matches", data='{"game": "\\ud83d\\ude80", "seats": [{"bot": "random"}, {"bot": "random"}]}')
    assert_problem(r, 404, "unknown-game")


def test_a_body_over_the_limit_is_413_with_the_limit(client: Any, app: Any, service: Any) -> None:
    limit = app.config["MAX_CONTENT_LENGTH"]
    body = json.dumps({"game": "harbour-race", "seats": BOTS2, "pad": "x" * limit})
    r = assert_problem(signed_post(client, "/v1/matches", data=body), 413, "body-too-large")
    assert str(limit) in r["detail"]
    assert stored(service) == 0


def test_a_405_keeps_its_allow_header(client: Any) -> None:
    r = client.delete("/v1/matches")
    assert_problem(r, 405, "method-not-allowed")
    assert {"GET", "POST"} <= {m.strip() for m in r.headers["Allow"].split(",")}


# -- options the schema used to admit and setup refused, or stored loosely ---------------------


@pytest.mark.parametrize("start", [2, 3, 4, "3", "1", 4.0, 1.0, 1.5, True, False, -1, [1], {"seat": 1}])
@pytest.mark.parametrize("seats", [BOTS2, [{"invite": "a@example.org"}, {"invite": "b@example.org"}]])
def test_el_capitan_start_player_must_be_a_seat_given_as_an_integer(client: Any, service: Any, start: Any,
                                                                    seats: list[dict[str, str]]) -> None:
    r = create_match(client, {"game": "el-capitan", "seats": seats, "options": {"start_player": start}})
    body = assert_problem(r, 400, "bad-options")
    assert "start_player" in body["detail"]
    assert stored(service) == 0


def test_a_start_player_of_this_table_is_taken_and_the_match_starts(client: Any, players: list[Player]) -> None:
    made = create(client, [{"invite": "a@example.org"}, {"invite": "b@example.org"}, {"invite": "c@example.org"}],
                  game="el-capitan", start_player=2)
    mid = made["id"]
    for i in range(3):
        r = client.post(f"/v1/matches/{mid}/seats/{i}/claim", json={
            "token": made["invites"][str(i)], "public_key": players[i].public_key, "name": players[i].name})
        assert r.status_code == 200, r.get_json()
    view = client.get(f"/v1/matches/{mid}").get_json()
    assert view["status"] == "active" and view["options"]["start_player"] == 2 and view["active_seats"] == [2]


@pytest.mark.parametrize("options", [
    {"expansions": ["porto", "porto"]},
    {"expansions": "porto"},
    {"expansions": ["porto", 1]},
    {"unknown": 1},
])
def test_el_capitan_expansions_are_a_list_without_duplicates(client: Any, service: Any, options: dict[str, Any]) -> None:
    assert_problem(create_match(client, {"game": "el-capitan", "seats": BOTS2, "options": options}),
                   400, "bad-options")
    assert stored(service) == 0


@pytest.mark.parametrize("value", ["yes", "true", 1, 0, None, "false"])
def test_ophir_flags_are_json_booleans(client: Any, service: Any, value: Any) -> None:
    r = create_match(client, {"game": "ophir", "seats": BOTS2, "options": {"priest_voluntary_only": value}})
    assert_problem(r, 400, "bad-options")
    r = create_match(client, {"game": "ophir", "seats": BOTS2, "options": {"barriers": value}})
    assert_problem(r, 400, "bad-options")
    assert stored(service) == 0


def test_ophir_and_nauticus_take_exact_options(client: Any) -> None:
    r = create_match(client, {"game": "ophir", "seats": BOTS2,
                                          "options": {"priest_voluntary_only": True, "barriers": "random"}})
    assert r.status_code == 201, r.get_json()
    assert client.get(f"/v1/matches/{r.get_json()['id']}").get_json()["options"]["priest_voluntary_only"] is True
    assert_problem(create_match(client, {"game": "nauticus", "seats": BOTS2, "options": {"x": 1}}),
                   400, "bad-options")


# -- addresses --------------------------------------------------------------------------------


@pytest.mark.parametrize("address", ["a" * 5000 + "@example.org", "x@" + "d" * 300 + ".org", "nope", "a b@example.org",
                                     "a$(id)@example.org", "a;rm -rf ~@example.org", "@example.org", "a@"])
def test_invite_addresses_are_checked_by_email_validator(client: Any, service: Any, address: str) -> None:
    assert_problem(create_match(client, {"game": "harbour-race",
                                                     "seats": [{"invite": address}, {"bot": "random"}]}),
                   400, "malformed-request")
    assert stored(service) == 0


def test_a_claim_email_is_checked_and_the_seat_stays_open(client: Any, players: list[Player]) -> None:
    made = create(client, [{"invite": "a@example.org"}, {"invite": "b@example.org"}])
    url = f"/v1/matches/{made['id']}/seats/0/claim"
    claim = {"token": made["invites"]["0"], "public_key": players[0].public_key, "name": "Ana"}
    assert_problem(client.post(url, json={**claim, "email": "e" * 5000 + "@example.org"}), 400, "malformed-request")
    assert client.get(f"/v1/matches/{made['id']}").get_json()["open_seats"] == [0, 1]
    assert client.post(url, json={**claim, "email": "Ana@Example.ORG"}).status_code == 200


# -- names ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["\x1b]0;pwned\x07Ana", "Ana\x1b[2J", "\u202eanA", "A\u2066na", "Ana\r\nBcc: x",
                                  "Ana\x7f", "\u200bAna", "   "])
def test_names_with_control_or_format_characters_are_400(client: Any, players: list[Player], name: str) -> None:
    made = create(client, [{"invite": "a@example.org"}, {"invite": "b@example.org"}])
    url = f"/v1/matches/{made['id']}/seats/0/claim"
    r = client.post(url, json={"token": made["invites"]["0"], "public_key": players[0].public_key, "name": name})
    assert_problem(r, 400, "bad-name")
    view = client.get(f"/v1/matches/{made['id']}").get_json()
    assert view["open_seats"] == [0, 1] and view["seats"][0]["name"] == ""


def test_plain_names_in_any_script_are_fine(client: Any, players: list[Player]) -> None:
    made = create(client, [{"invite": "a@example.org"}, {"invite": "b@example.org"}])
    for seat, name in ((0, "  Zoë Ñúñez-O'Brien  "), (1, "北条 早雲 🚀")):
        r = client.post(f"/v1/matches/{made['id']}/seats/{seat}/claim", json={
            "token": made["invites"][str(seat)], "public_key": players[seat].public_key, "name": name})
        assert r.status_code == 200, r.get_json()
    names = [s["name"] for s in client.get(f"/v1/matches/{made['id']}").get_json()["seats"]]
    assert names == ["Zoë Ñúñez-O'Brien", "北条 早雲 🚀"]
