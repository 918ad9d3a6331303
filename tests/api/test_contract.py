"""The public contract: ``openapi.yaml`` is valid, names exactly the app's routes, and the app
answers as it says (openapi-core over a full flow; the schemathesis fuzz is in test_fuzz.py).

Flask adds HEAD and OPTIONS to every route by itself; the contract documents the methods the
blueprints declare, so those two are left out of the route comparison.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from openapi_core import OpenAPI

from service.api import spec as game_spec
from service.proof import signing
from tests.conftest import CREATOR, Player, create_match, signed_headers
from tests.helpers.contract import Api, signed

SPEC_PATH = Path(__file__).resolve().parents[2] / "openapi.yaml"
HTTP_METHODS = {"get", "put", "post", "delete", "patch"}
AUTOMATIC = {"HEAD", "OPTIONS"}


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))
    return loaded


# --------------------------------------------------------------------------------------------
# The document itself


def test_spec_validates(spec: dict[str, Any]) -> None:
    from openapi_spec_validator import validate

    validate(spec)
    assert spec["openapi"] == "3.1.0"
    schemas = spec["components"]["schemas"]
    # actions and create bodies are typed per hosted game, not bare objects
    assert schemas["Action"]["anyOf"] == [{"$ref": f"#/components/schemas/{g}Action"} for g in
                                          ("ElCapitan", "Nauticus", "Ophir")]
    assert schemas["Envelope"]["properties"]["actions"]["items"] == {"anyOf": [
        {"$ref": "#/components/schemas/Action"}, {"$ref": "#/components/schemas/MatchAction"}]}
    assert schemas["LegalAction"]["properties"]["action"] == {"$ref": "#/components/schemas/Action"}
    assert set(schemas["CreateMatch"]["discriminator"]["mapping"]) == {"el-capitan", "nauticus", "ophir"}
    assert schemas["ElCapitanAction"]["discriminator"]["propertyName"] == "type"
    assert schemas["CreateElCapitanMatch"]["properties"]["options"] == {"$ref": "#/components/schemas/ElCapitanOptions"}
    # errors: a list of {field, message}, a shape every generator can type
    assert schemas["Problem"]["properties"]["errors"] == {
        "type": "array", "description": "On `malformed-request`, one entry per problem with the body.",
        "items": {"$ref": "#/components/schemas/FieldError"}}


SIGNED = {("/v1/matches/{match_id}/seats/{seat}/view", "get"), ("/v1/me/turns", "get"), ("/v1/matches", "post"),
          ("/v1/matches/{match_id}/abort", "post"), ("/v1/me/notices", "get"), ("/v1/me/notices", "put"),
          ("/v1/matches/{match_id}/seats/{seat}/preview", "post")}


def test_security_is_declared_for_every_operation(spec: dict[str, Any]) -> None:
    """Public by default (root ``security: []``); the signed routes name the signed-request scheme,
    an apiKey in the Authorization header, whose 401 codes are documented."""
    assert spec["security"] == []
    schemes = spec["components"]["securitySchemes"]
    assert schemes["signedRequest"] | {"description": ""} == {"type": "apiKey", "in": "header", "name": "Authorization",
                                                             "description": ""}
    refused = spec["components"]["responses"]["SignatureRefused"]["description"]
    for code in ("missing-signature", "bad-authorization", "stale-signature", "bad-signature", "replayed-request"):
        assert f"`{code}`" in refused and f"`{code}`" in schemes["signedRequest"]["description"], code
    for path, item in spec["paths"].items():
        for method, op in item.items():
            if method not in HTTP_METHODS:
                continue
            for requirement in op.get("security", []):
                assert set(requirement) <= set(schemes), (path, method)
            if (path, method) in SIGNED:
                assert op["security"] == [{"signedRequest": []}], (path, method)
                assert op["responses"]["401"] == {"$ref": "#/components/responses/SignatureRefused"}


def _examples(node: Any, where: str = "") -> Any:
    """Every (location, schema, example) in the document: ``example`` beside a ``schema`` (media
    types, parameters), ``example`` inside a schema, and each of ``examples``."""
    if isinstance(node, dict):
        if "schema" in node and isinstance(node["schema"], dict):
            if "example" in node:
                yield where, node["schema"], node["example"]
            for name, ex in (node.get("examples") or {}).items():
                if isinstance(ex, dict) and "value" in ex:
                    yield f"{where}/examples/{name}", node["schema"], ex["value"]
        if ("type" in node or "properties" in node or "$ref" in node) and "example" in node and "schema" not in node:
            yield where, node, node["example"]
        for key, value in node.items():
            yield from _examples(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _examples(value, f"{where}/{i}")


def test_every_example_is_valid_against_its_schema(spec: dict[str, Any]) -> None:
    from jsonschema.exceptions import ValidationError
    from openapi_schema_validator import OAS31Validator
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    registry: Registry[Any] = Registry().with_resource("urn:spec", Resource.from_contents(spec, DRAFT202012))
    found = list(_examples(spec))
    assert len(found) >= 5
    for where, schema, example in found:
        schema = json.loads(json.dumps(schema).replace('"#/components/', '"urn:spec#/components/'))
        try:
            OAS31Validator(schema, registry=registry).validate(example)
        except ValidationError as exc:
            raise AssertionError(f"{where}: the example does not match its schema: {exc.message}") from exc
    moves = spec["paths"]["/v1/matches/{match_id}/moves"]["post"]["requestBody"]["content"]["application/json"]
    hosted = {kind for game in game_spec.hosted_games() for kind in game.actions}
    assert {a["type"] for a in moves["example"]["envelope"]["actions"]} <= hosted


def flask_routes(app: Any) -> set[tuple[str, str]]:
    out = set()
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static" or rule.endpoint.startswith("web."):
            continue  # the web client's pages and files are not API operations (docs/web-client.md)
        path = re.sub(r"<(?:[a-z]+:)?(\w+)>", r"{\1}", rule.rule)
        for method in set(rule.methods or ()) - AUTOMATIC:
            out.add((path, method.lower()))
    return out


def spec_operations(spec: dict[str, Any]) -> set[tuple[str, str]]:
    return {(path, method) for path, item in spec["paths"].items() for method in item if method in HTTP_METHODS}


def test_every_route_is_documented_and_every_operation_exists(app: Any, spec: dict[str, Any]) -> None:
    routes, documented = flask_routes(app), spec_operations(spec)
    assert routes - documented == set(), "routes missing from openapi.yaml"
    assert documented - routes == set(), "operations in openapi.yaml the app does not serve"


def test_every_problem_response_uses_the_problem_schema(spec: dict[str, Any]) -> None:
    responses = spec["components"]["responses"]
    for path, item in spec["paths"].items():
        for method, op in item.items():
            if method not in HTTP_METHODS:
                continue
            for status, resp in op["responses"].items():
                resp = responses[resp["$ref"].rsplit("/", 1)[1]] if "$ref" in resp else resp
                if int(status) >= 400:
                    assert list(resp["content"]) == ["application/problem+json"], (path, method, status)
                    assert resp["content"]["application/problem+json"]["schema"] == {
                        "$ref": "#/components/schemas/Problem"}


# --------------------------------------------------------------------------------------------
# Responses of a full flow, validated by openapi-core


def envelope(player: Player, match: str, seat: int, ply: int, actions: list[dict[str, Any]], nonce: str) -> dict[str, Any]:
    return player.envelope(match, seat, ply, actions, nonce=nonce)


def test_a_full_flow_answers_as_documented(client: Any, openapi: OpenAPI, players: list[Player]) -> None:
    api = Api(client, openapi)

    # server and catalog
    api("GET", "/healthz", 200)
    assert api("GET", "/v1/server-key", 200).get_json()["algorithm"] == "Ed25519"
    catalog = api("GET", "/v1/games", 200).get_json()
    assert "harbour-race" in {g["id"] for g in catalog["games"]}
    assert {a["type"] for a in api("GET", "/v1/games/harbour-race", 200).get_json()["actions"]} == {"roll", "bank"}
    api("GET", "/v1/games/no-such-game", 404, code="unknown-game")

    # create: 201 with Location; 400 in its varieties; 404 for an unknown game
    r = api("POST", "/v1/matches", 201, **signed({"game": "harbour-race", "options": {"target": 5},
                                                 "seats": [{"invite": "ana@example.org"}, {"invite": "bea@example.org"}]}))
    made = r.get_json()
    mid = made["id"]
    assert r.headers["Location"] == f"/v1/matches/{mid}"
    assert made["creator_key"] == signing.public_key_of(CREATOR)
    api("POST", "/v1/matches", 401, valid_request=False, code="missing-signature",
        json={"game": "harbour-race", "seats": [{"bot": "random"}] * 2})
    api("POST", "/v1/matches", 401, code="bad-signature", **dict(signed({"game": "harbour-race", "seats": [
        {"bot": "random"}] * 2}), headers=signed_headers(CREATOR, "POST", "/v1/other")))
    api("POST", "/v1/matches", 400, valid_request=False, code="malformed-json", **signed(b"{not json"))
    body = api("POST", "/v1/matches", 400, valid_request=False, code="malformed-request",
               **signed({"game": "harbour-race", "seats": [{"invite": "not-an-email"},
                                                           {"bot": "random", "invite": "a@b.org"}]})).get_json()
    assert body["errors"] == [{"field": "seats.0.invite", "message": "email 'not-an-email' is not an email address: An email address must have an @-sign."},
                              {"field": "seats.1", "message": 'a seat is either {"invite": email} or {"bot": kind}'}]
    assert body["detail"] == ("the request body is not valid: seats.0.invite: email 'not-an-email' is not an email address: An email address must have an @-sign.; "
                              'seats.1: a seat is either {"invite": email} or {"bot": kind}')
    api("POST", "/v1/matches", 400, valid_request=False, code="bad-player-count",
        **signed({"game": "harbour-race", "seats": [{"bot": "random"}]}))
    body = api("POST", "/v1/matches", 400, valid_request=False, code="bad-options",
               **signed({"game": "harbour-race", "seats": [{"bot": "random"}] * 2, "options": {"target": 1}})).get_json()
    assert "{" not in body["detail"] and body["detail"].startswith("invalid options: target: "), body["detail"]
    api("POST", "/v1/matches", 404, valid_request=False, code="unknown-game",
        **signed({"game": "chess", "seats": [{"bot": "random"}] * 2}))
    api("POST", "/v1/matches", 413, valid_request=False, code="body-too-large", **signed(b"x" * (300 * 1024)))
    bots = api("POST", "/v1/matches", 201, **signed({"game": "harbour-race", "seats": [{"bot": "random"}] * 2})).get_json()
    assert bots["status"] == "active" and bots["invites"] == {}

    # waiting: spectator view without a board, no record yet
    waiting = api("GET", f"/v1/matches/{mid}", 200)
    assert waiting.headers["ETag"] == '"0-waiting"' and waiting.get_json()["board"] is None
    api("GET", f"/v1/matches/{mid}/record", 409, code="match-not-started")

    # claim both seats
    claim = {"token": made["invites"]["0"], "public_key": players[0].public_key, "name": "Ana", "nonce": "a1"}
    api("POST", f"/v1/matches/{mid}/seats/0/claim", 401, code="bad-invite-token", json=dict(claim, token="wrong"))
    api("POST", f"/v1/matches/{mid}/seats/0/claim", 400, code="bad-public-key", json=dict(claim, public_key="A" * 44))
    api("POST", f"/v1/matches/{mid}/seats/7/claim", 404, code="unknown-seat", json=claim)
    assert api("POST", f"/v1/matches/{mid}/seats/0/claim", 200, json=claim).get_json()["status"] == "waiting"
    api("POST", f"/v1/matches/{mid}/seats/0/claim", 200, json=claim)  # the same claim again: idempotent
    api("POST", f"/v1/matches/{mid}/seats/0/claim", 409, code="seat-taken", json=dict(claim, public_key=players[1].public_key))
    started = api("POST", f"/v1/matches/{mid}/seats/1/claim", 200, json={
        "token": made["invites"]["1"], "public_key": players[1].public_key, "name": "Bea",
        "email": "bea@elsewhere.example.org"}).get_json()
    assert started["status"] == "active" and started["ply"] == 0

    # spectator view, ETag, 304, long poll that times out into a 304, bad query
    r = api("GET", f"/v1/matches/{mid}", 200)
    etag, view = r.headers["ETag"], r.get_json()
    assert etag == '"0-active"' and view["board"] is not None
    assert api("GET", f"/v1/matches/{mid}", 304, headers={"If-None-Match": etag}).headers["ETag"] == etag
    t0 = time.monotonic()
    api("GET", f"/v1/matches/{mid}?wait=1", 304, headers={"If-None-Match": etag})
    assert time.monotonic() - t0 >= 0.9
    api("GET", f"/v1/matches/{mid}?wait=99", 400, valid_request=False, code="bad-query")
    api("GET", "/v1/matches/no-such-match", 404, code="unknown-match")

    seat = view["active_seats"][0]
    other = 1 - seat
    me, them = players[seat], players[other]

    # the seat's private view: signed; unsigned 401, another key 403
    vpath = f"/v1/matches/{mid}/seats/{seat}/view"
    seen = api("GET", vpath, 200, headers=me.auth("GET", vpath))
    mine = seen.get_json()
    assert mine["seat"] == seat and mine["legal_actions"] == [{"action": {"type": "roll"}, "text": "roll the die"}]
    # polling the seat view: 304 while nothing changed, also after a long poll; a 304 only
    # after the signature proved the seat (an unsigned poll is still a 401)
    assert seen.headers["ETag"] == etag
    not_modified = api("GET", vpath, 304, headers={**me.auth("GET", vpath), "If-None-Match": etag})
    assert not_modified.headers["ETag"] == etag and not_modified.get_data() == b""
    api("GET", f"{vpath}?wait=1", 304, headers={**me.auth("GET", vpath, query="wait=1"), "If-None-Match": etag})
    api("GET", vpath, 200, headers={**me.auth("GET", vpath), "If-None-Match": '"7-active"'})
    api("GET", vpath, 401, valid_request=False, code="missing-signature", headers={"If-None-Match": etag})
    api("GET", vpath, 403, code="not-your-seat", headers={**them.auth("GET", vpath), "If-None-Match": etag})
    api("GET", f"{vpath}?wait=31", 400, valid_request=False, code="bad-query", headers=me.auth("GET", vpath, query="wait=31"))
    api("GET", vpath, 401, valid_request=False, code="missing-signature")
    stale = {"Authorization": signing.authorization(me.private_key, "GET", vpath, ts=int(time.time()) - 3600)}
    api("GET", vpath, 401, code="stale-signature", headers=stale)
    api("GET", vpath, 403, code="not-your-seat", headers=them.auth("GET", vpath))
    api("GET", f"/v1/matches/{mid}/seats/5/view", 404, code="unknown-seat",
        headers=me.auth("GET", f"/v1/matches/{mid}/seats/5/view"))

    # my turns
    turns = api("GET", "/v1/me/turns", 200, headers=me.auth("GET", "/v1/me/turns")).get_json()
    assert turns["turns"] == [{"match": mid, "seat": seat, "game": "harbour-race", "ply": 0, "since": view["updated_at"]}]
    api("GET", "/v1/me/turns", 401, valid_request=False, code="missing-signature")

    # moves: refusals first (nothing changes), then 201 and the idempotent 200
    moves = f"/v1/matches/{mid}/moves"
    api("POST", moves, 400, valid_request=False, code="malformed-json", data=b'{"envelope": ',
        content_type="application/json")
    api("POST", moves, 400, valid_request=False, code="bad-envelope",
        json={"envelope": {"match": mid}, "signature": "x"})
    forged = envelope(me, mid, seat, 0, [{"type": "roll"}], "f")
    forged["signature"] = signing.sign(signing.generate_private_key(), forged["envelope"])
    api("POST", moves, 401, code="bad-signature", json=forged)
    api("POST", moves, 403, code="not-your-seat", json={
        "envelope": forged["envelope"], "signature": signing.sign(them.private_key, forged["envelope"])})
    api("POST", "/v1/matches/no-such-match/moves", 404, code="unknown-match",
        json=envelope(me, "no-such-match", seat, 0, [{"type": "roll"}], "x"))
    body = api("POST", moves, 409, code="stale-ply", json=envelope(me, mid, seat, 3, [{"type": "roll"}], "s")).get_json()
    assert body["current_ply"] == 0
    assert api("POST", moves, 409, code="not-your-turn",
               json=envelope(them, mid, other, 0, [{"type": "roll"}], "t")).get_json()["current_ply"] == 0
    body = api("POST", moves, 422, code="illegal-action", json=envelope(me, mid, seat, 0, [{"type": "bank"}], "b")).get_json()
    assert body["rule_code"] == "empty-haul" and body["action_index"] == 0
    body = api("POST", moves, 400, valid_request=False, code="invalid-action",
               json=envelope(me, mid, seat, 0, [{"type": "fly"}], "i")).get_json()
    assert body["rule_code"] == "unknown-action" and body["action_index"] == 0

    first = envelope(me, mid, seat, 0, [{"type": "roll"}], "m0")
    accepted = api("POST", moves, 201, json=first).get_json()
    assert accepted["replayed"] is False and accepted["accepted_ply"] == 0 and accepted["ply"] == 1
    again = api("POST", moves, 200, json=first).get_json()
    assert again["replayed"] is True and again["receipt"] == accepted["receipt"]

    # log: hash chain and receipts as documented
    log = api("GET", f"/v1/matches/{mid}/log?from=0", 200).get_json()
    entry = log["entries"][0]
    assert log["head"] == entry["hash"] == accepted["head"] and entry["envelope"] == first["envelope"]
    server_key = client.get("/v1/server-key").get_json()["public_key"]
    assert signing.verify(server_key, {"match": mid, "ply": 0, "hash": entry["hash"]}, entry["receipt"])
    assert signing.verify(me.public_key, entry["envelope"], entry["signature"])
    api("GET", f"/v1/matches/{mid}/log?from=1", 200)
    api("GET", f"/v1/matches/{mid}/log?from=-1", 400, valid_request=False, code="bad-query")
    api("GET", "/v1/matches/no-such-match/log", 404, code="unknown-match")

    # the record of a running match: no seed yet
    record = api("GET", f"/v1/matches/{mid}/record", 200).get_json()
    assert record["seed"] is None and record["status"] == "active" and record["entries"][0]["prev"] == signing.digest(
        record["header"])
    assert len(record["withheld"]["entries"]) == len(record["entries"])  # format 2: checkable while running

    # play to the end (roll until there is a haul, then bank), then the record reveals the seed
    for _ in range(500):
        cur = client.get(f"/v1/matches/{mid}").get_json()
        if cur["status"] == "finished":
            break
        s = cur["active_seats"][0]
        action = "bank" if cur["board"]["haul"] else "roll"
        api("POST", moves, 201, json=envelope(players[s], mid, s, cur["ply"], [{"type": action}], f"p{cur['ply']}"))
    finished = api("GET", f"/v1/matches/{mid}", 200).get_json()
    assert finished["status"] == "finished" and finished["outcome"]["ranks"]
    api("POST", moves, 409, code="match-not-active",
        json=envelope(me, mid, seat, finished["ply"], [{"type": "roll"}], "late"))
    record = api("GET", f"/v1/matches/{mid}/record", 200).get_json()
    assert record["seed"] is not None and record["outcome"] == finished["outcome"]
    vpath_done = f"/v1/matches/{mid}/seats/{seat}/view"
    assert api("GET", vpath_done, 200, headers=me.auth("GET", vpath_done)).get_json()["legal_actions"] == []

    # abort: a request signed by the creator's key
    spare = api("POST", "/v1/matches", 201, **signed({"game": "harbour-race", "seats": [{"invite": "x@example.org"}] * 2}))
    spare_id = spare.get_json()["id"]
    apath = f"/v1/matches/{spare_id}/abort"
    api("POST", apath, 401, valid_request=False, code="missing-signature")
    api("POST", apath, 401, code="bad-signature", headers=signed_headers(CREATOR, "POST", "/v1/matches"))
    api("POST", apath, 403, code="not-the-creator", headers=me.auth("POST", apath))
    assert api("POST", apath, 200, headers=signed_headers(CREATOR, "POST", apath)).get_json()["status"] == "aborted"
    api("POST", apath, 409, code="match-not-waiting", headers=signed_headers(CREATOR, "POST", apath))
    api("POST", "/v1/matches/no-such-match/abort", 404, code="unknown-match",
        headers=signed_headers(CREATOR, "POST", "/v1/matches/no-such-match/abort"))
    api("POST", f"/v1/matches/{spare_id}/seats/0/claim", 409, code="match-not-waiting", json={
        "token": spare.get_json()["invites"]["0"], "public_key": players[2].public_key, "name": "Cid"})
    assert api("GET", f"/v1/matches/{spare_id}", 200).headers["ETag"] == '"0-aborted"'

    # every documented status of every operation was exercised, except the ones a healthy
    # server cannot be made to give here
    exercised = {(m, status) for m, _, status in api.seen}
    assert {("get", 304), ("post", 201), ("post", 200), ("post", 401), ("post", 403), ("post", 409), ("post", 404),
            ("post", 422), ("get", 401), ("get", 403), ("get", 404), ("get", 409)} <= exercised


# Fuzzing (schemathesis, stateless and stateful, signed and unsigned): tests/api/test_fuzz.py


# --------------------------------------------------------------------------------------------
# Inputs the fuzzer's generators rarely produce, found while writing the contract (each was a 500)


def test_an_envelope_without_canonical_json_is_400_not_500(client: Any, openapi: OpenAPI, players: list[Player]) -> None:
    api = Api(client, openapi)
    made = create_match(client, {"game": "harbour-race", "seats": [{"invite": "a@example.org"},
                                                                  {"invite": "b@example.org"}]}).get_json()
    mid = made["id"]
    for i in range(2):
        client.post(f"/v1/matches/{mid}/seats/{i}/claim", json={
            "token": made["invites"][str(i)], "public_key": players[i].public_key, "name": players[i].name})
    before = client.get(f"/v1/matches/{mid}/log").get_json()
    moves = f"/v1/matches/{mid}/moves"
    big = {"match": mid, "seat": 0, "ply": 2**60, "actions": [{"type": "roll"}], "nonce": ""}
    api("POST", moves, 400, valid_request=False, code="bad-envelope", json={"envelope": big, "signature": "A" * 86})
    deep = {"match": mid, "seat": 0, "ply": 0, "actions": [{"type": "roll", "n": -(2**70)}], "nonce": ""}
    api("POST", moves, 400, valid_request=False, code="bad-envelope", json={"envelope": deep, "signature": "A" * 86})
    nan = json.dumps({"envelope": dict(deep, actions=[{"type": "roll", "x": "NAN"}]), "signature": "AA"}).replace(
        '"NAN"', "NaN")  # Python's JSON parser (and so Flask's) accepts NaN
    api("POST", moves, 400, valid_request=False, code="bad-envelope", data=nan, content_type="application/json")
    assert client.get(f"/v1/matches/{mid}/log").get_json() == before


@pytest.mark.parametrize(("ts", "code"), [("1" + "0" * 400, "stale-signature"), ("-" + "9" * 400, "bad-authorization")])
def test_a_huge_signed_read_timestamp_is_401_not_500(client: Any, openapi: OpenAPI, players: list[Player], ts: str,
                                                     code: str) -> None:
    header = f'Portolan key="{players[0].public_key}", ts="{ts}", nonce="{"n" * 16}", sig="{"A" * 86}"'
    Api(client, openapi)("GET", "/v1/me/turns", 401, code=code, headers={"Authorization": header})


def test_the_per_game_schemas_in_openapi_yaml_match_the_games() -> None:
    """openapi.yaml's generated block equals what the registered games publish."""
    from service.api import spec

    assert spec.current(spec.SPEC.read_text()) == spec.block(), "run: python -m service.api.spec --write"


def test_limits_answer_429_as_documented(settings: Any, service: Any, openapi: OpenAPI) -> None:
    """The 429s, the rate limit, the invitation quota and the bot match cap, with their Retry-After, as the
    spec says."""
    import dataclasses

    from service.api import create_app
    from service.play.throttle import BotLimits, InviteLimits

    service.invite_limits = InviteLimits(per_creator_hour=2, per_recipient_day=10)
    app = create_app(dataclasses.replace(settings, rate_read="1/minute"), service, TESTING=True)
    api = Api(app.test_client(), openapi)
    api("GET", "/v1/games", 200)
    assert int(api("GET", "/v1/games", 429, code="rate-limited").headers["Retry-After"]) >= 1
    seats = {"game": "harbour-race", "seats": [{"invite": "a@example.org"}, {"invite": "b@example.org"}]}
    api("POST", "/v1/matches", 201, **signed(seats))
    assert int(api("POST", "/v1/matches", 429, code="invite-throttled", **signed(seats)).headers["Retry-After"]) > 1
    service.bot_limits = BotLimits(matches_per_address=1)  # issue 28: matches of bots only per client address
    bots_only = {"game": "harbour-race", "seats": [{"bot": "random"}, {"bot": "random"}]}
    api("POST", "/v1/matches", 201, **signed(bots_only))
    assert int(api("POST", "/v1/matches", 429, code="bot-matches-throttled",
                   **signed(bots_only)).headers["Retry-After"]) >= 1


def test_the_documented_bot_kinds_are_the_servers(spec: dict[str, Any]) -> None:
    """The seat schema names exactly the bot kinds the server seats, so a generated client (and
    the fuzzer) can only offer kinds that exist."""
    from service.bots import ALL_KINDS

    bot = spec["components"]["schemas"]["SeatSpec"]["oneOf"][1]["properties"]["bot"]
    assert bot["enum"] == list(ALL_KINDS)
