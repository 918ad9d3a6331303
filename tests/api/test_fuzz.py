"""Schemathesis over every operation of openapi.yaml: no server error, and every answer as documented.

Every response is checked for a 5xx and against the contract: its status is one the operation
documents, its content type and headers are the documented ones and its body validates against
the documented schema. The signed routes are fuzzed four ways, through :class:`Signer`: signed
with the right key (so the code behind the signature check is reached), signed by a key that
holds nothing (the 403s), signed over another request (``bad-signature``) and unsigned (the
fuzzer's arbitrary ``Authorization`` strings: ``missing-signature``); a made-up ``Portolan ...``
header the fuzzer sends is passed on as it is.

The stateful test follows the document's ``links`` (create -> claim -> seat view -> move, ...),
so requests reach matches the fuzzer made itself, in every state.
"""

from __future__ import annotations

import contextlib
import dataclasses
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable

from service.delivery.unsubscribe import token_of
from service.play.outward.streams import Timing
from service.play.throttle import BotLimits, InviteLimits
from tests.conftest import CREATOR, Player, create_match
from tests.helpers.signing_wsgi import Signer

pytestmark = pytest.mark.contract  # schemathesis against openapi.yaml: minutes, its own .ci/run step

SPEC_PATH = Path(__file__).resolve().parents[2] / "openapi.yaml"
SIGNED_OPERATIONS = {"createMatch", "abortMatch", "getSeatView", "getMyTurns", "submitMove", "listMyWebhooks",
                     "addMyWebhook", "removeMyWebhook", "pingMyWebhook", "getMyWebhookDeliveries", "listMatchWebhooks",
                     "addMatchWebhook", "removeMatchWebhook", "pingMatchWebhook", "getMatchWebhookDeliveries",
                     "getMyNotices", "setMyNotices", "getBoardSvg", "getBoardPng", "previewMove"}


def contract_checks() -> list[Any]:
    """The checks every fuzzed response must pass: no 5xx, and the documented status, content
    type, headers and body."""
    from schemathesis.checks import not_a_server_error
    from schemathesis.specs.openapi.checks import (
        content_type_conformance,
        response_headers_conformance,
        response_schema_conformance,
        status_code_conformance,
    )

    return [not_a_server_error, status_code_conformance, content_type_conformance, response_headers_conformance,
            response_schema_conformance]


def _short_poll(case: Any) -> Any:
    """Keep generated long polls short (a "*" If-None-Match would otherwise hold 30 s)."""
    if isinstance(case.query, dict) and isinstance(case.query.get("wait"), int):
        case.query["wait"] = min(case.query["wait"], 1)
    return case


def _note(seen: set[tuple[str, int | str]], case: Any, response: Any) -> None:
    """Remember what an answer reached: its status and, for a problem, its code."""
    seen.add((case.operation.label, response.status_code))
    if (response.headers.get("content-type") or [""])[0].startswith("application/problem+json"):
        seen.add((case.operation.label, str(response.json().get("code"))))


def _fuzz(strategy: Any, examples: int, target: Any, checks: list[Any], seen: set[tuple[str, int | str]]) -> None:
    """Send ``examples`` cases drawn from ``strategy`` to the WSGI app ``target``; each answer
    must pass ``checks``. Adds (operation, status) of every answer to ``seen``, and (operation,
    code) of every problem."""

    @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(case=strategy)
    def fuzz(case: Any) -> None:
        response = case.call(app=target)
        _note(seen, case, response)
        case.validate_response(response, checks=checks)

    fuzz()


@pytest.fixture
def fuzz_app(settings: Any, service: Any) -> Any:
    """The app as the fuzzer meets it: no rate limits and no invitation quotas, which would
    otherwise turn most of a long run into (documented, but uninteresting) 429s."""
    from service.api import create_app

    service.invite_limits = InviteLimits(per_creator_hour=0, per_recipient_day=0, per_address_hour=0, install_hour=0)
    service.bot_limits = BotLimits(matches_per_address=0)  # every request comes from one test address
    # the WSGI client reads a whole body, and an event stream of a live match ends only after
    # its lifetime: keep that short here (the streams' own tests read them over real HTTP)
    timing = Timing(heartbeat_s=0.1, recheck_s=0.05, max_s=0.2)
    app = create_app(dataclasses.replace(settings, rate_limits=False), service, TESTING=True,
                     PORTOLAN_STREAM_TIMING=timing)
    # every host a generated webhook URL names is "public" here: no DNS lookups in the fuzz
    app.extensions["portolan.webhooks"].resolve = lambda host, port: ["93.184.215.14"]
    return app


def test_schemathesis_finds_no_server_errors_and_no_mismatches(fuzz_app: Any, players: list[Player]) -> None:
    import schemathesis
    from schemathesis import GenerationMode

    client = fuzz_app.test_client()
    made = create_match(client, {"game": "el-capitan", "seats": [{"invite": "a@example.org"},
                                                                {"invite": "b@example.org"}]}).get_json()
    mid = made["id"]
    for i in range(2):
        r = client.post(f"/v1/matches/{mid}/seats/{i}/claim", json={
            "token": made["invites"][str(i)], "public_key": players[i].public_key, "name": players[i].name})
        assert r.status_code == 200
    keys = [p.private_key for p in players]
    signers = {"signed": Signer(fuzz_app, CREATOR, keys), "stranger": Signer(fuzz_app, CREATOR, keys, stranger=True),
               "forged": Signer(fuzz_app, CREATOR, keys, forged=True), "unsigned": fuzz_app}
    checks = contract_checks()
    schema = schemathesis.openapi.from_path(SPEC_PATH)
    seen: set[tuple[str, int | str]] = set()
    ran = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        # random ids mostly reach the 404; a real match id reaches the code behind it, and so does
        # a real unsubscribe token (only a mail carries one)
        fixed: list[dict[str, Any]] = [{}, {"match_id": mid}] if "{match_id}" in operation.path else [{}]
        if "{token}" in operation.path:
            fixed.append({"token": token_of(fuzz_app.extensions["portolan"].server_key, "a@example.org")})
        targets = signers if operation.definition.raw.get("operationId") in SIGNED_OPERATIONS else {
            "unsigned": fuzz_app}
        for target in targets.values():
            for path_parameters in fixed:
                for mode, examples in ((GenerationMode.POSITIVE, 25), (GenerationMode.NEGATIVE, 10)):
                    strategy = operation.as_strategy(generation_mode=mode,
                                                     path_parameters=path_parameters).map(_short_poll)
                    try:
                        _fuzz(strategy, examples, target, checks, seen)
                    except Unsatisfiable:
                        # an operation without parameters or body has no invalid variant to send
                        assert mode is GenerationMode.NEGATIVE, operation.label
                    ran += 1
    assert ran >= 13
    # the fuzz reached the code behind the checks, not only the refusals in front of it
    assert {("GET /v1/matches/{match_id}/seats/{seat}/view", 200), ("GET /v1/me/turns", 200),
            ("POST /v1/matches", 201), ("GET /v1/matches/{match_id}/seats/{seat}/view", 403),
            ("POST /v1/matches/{match_id}/abort", 403), ("GET /v1/me/turns", "missing-signature"),
            ("GET /v1/me/turns", "bad-signature"), ("POST /v1/matches", "bad-signature"),
            ("POST /v1/matches/{match_id}/moves", "bad-signature"), ("GET /v1/me/webhooks", 200),
            ("POST /v1/me/webhooks", 400), ("GET /v1/matches/{match_id}/webhooks", 200),
            ("GET /v1/matches/{match_id}/webhooks", 403), ("GET /v1/unsubscribe/{token}", 200),
            ("POST /v1/unsubscribe/{token}", 200), ("POST /v1/unsubscribe/{token}", 404)} <= seen, \
        str(sorted(map(str, seen)))
    assert signers["forged"].signed > 50  # type: ignore[union-attr]
    # the signed routes were reached with real signatures
    assert signers["signed"].signed > 50 and signers["stranger"].signed > 50  # type: ignore[union-attr]


# --------------------------------------------------------------------------------------------
# Stateful: follow the links of openapi.yaml through matches the fuzzer creates itself


def _as_the_seat(case: Any, keys: list[str]) -> None:
    """Make a generated claim register a key the test holds, and sign a generated move's envelope
    with its seat's key, so that the links lead on into seat views and accepted moves (a random
    public key or signature stops a scenario at 400 or 401; the stateless fuzz covers those)."""
    from service.proof import signing

    label, body = case.operation.label, case.body
    if not isinstance(body, dict):
        return
    if label == "POST /v1/matches/{match_id}/seats/{seat}/claim":
        seat = str(case.path_parameters.get("seat"))  # a link's constant seat is the string "0"
        if not seat.isdigit() or not isinstance(body.get("public_key", ""), str):
            return
        body["public_key"] = signing.public_key_of(keys[int(seat) % len(keys)])
        name = body.get("name", "")
        if isinstance(name, str) and (not name.strip() or any(unicodedata.category(c)[0] == "C" for c in name)):
            body["name"] = f"Player {seat}"  # a printable name: the stateless fuzz covers bad-name
        body.pop("email", None)  # most generated addresses are special-use domains email-validator refuses
    elif label == "POST /v1/matches/{match_id}/moves" and isinstance(envelope := body.get("envelope"), dict):
        seat = envelope.get("seat")
        if isinstance(seat, int) and not isinstance(seat, bool) and seat >= 0:
            # an envelope that is not canonical JSON cannot be signed: the server must refuse it (400)
            with contextlib.suppress(TypeError, ValueError):
                body["signature"] = signing.sign(keys[seat % len(keys)], envelope)


def _state_machine(target: Any, keys: list[str], seen: set[tuple[str, int | str]]) -> Any:
    import schemathesis

    checks = contract_checks()
    # The webhook routes are fuzzed statelessly above (signed, every status). Here they made the
    # run flaky: their answers carry random hook ids that schemathesis feeds back into what it
    # generates, so a replayed scenario drew differently (hypothesis FlakyStrategyDefinition).
    # The lobby likewise: its answer lists every match the run has created so far, so a replayed
    # scenario that follows a link out of it meets other matches than the first time did.
    # The one-click unsubscribe URL: no answer of the API holds its token (only a mail does), so a
    # walk could only ever meet its 404, which the stateless fuzz above covers.
    schema = (schemathesis.openapi.from_path(SPEC_PATH).exclude(path_regex="/webhooks")
              .exclude(method="GET", path="/v1/matches").exclude(path_regex="^/v1/unsubscribe/"))

    class Machine(schema.as_state_machine()):  # type: ignore[misc]
        """Every step goes through the signing middleware into the Flask app."""

        def call(self, case: Any, **kwargs: Any) -> Any:
            """Send ``case`` to the app, as the seat where a seat must act."""
            _as_the_seat(_short_poll(case), keys)
            response = case.call(app=target, **kwargs)
            _note(seen, case, response)
            return response

        def validate_response(self, response: Any, case: Any, additional_checks: Any = None, **kwargs: Any) -> None:
            """The contract checks, and only those."""
            case.validate_response(response, checks=checks)

    return Machine


def _run_stateful(fuzz_app: Any, players: list[Player], examples: int, steps: int) -> set[tuple[str, int]]:
    from schemathesis.generation.stateful import run_state_machine_as_test

    seen: set[tuple[str, int | str]] = set()
    keys = [p.private_key for p in players]
    machine = _state_machine(Signer(fuzz_app, CREATOR, keys), keys, seen)
    run_state_machine_as_test(machine, settings=settings(
        max_examples=examples, stateful_step_count=steps, deadline=None, database=None, derandomize=True,
        suppress_health_check=list(HealthCheck)))
    return seen


def test_stateful_fuzz_follows_the_links_without_server_errors_or_mismatches(fuzz_app: Any,
                                                                             players: list[Player]) -> None:
    seen = _run_stateful(fuzz_app, players, examples=100, steps=10)
    # the links led from a created match into its seats (a claim needs the token the creation
    # answered) and on into what only a real match answers with a 200
    assert {("POST /v1/matches", 201), ("POST /v1/matches/{match_id}/seats/{seat}/claim", 200)} <= seen, \
        str(sorted(map(str, seen)))
    assert seen & {("GET /v1/matches/{match_id}", 200), ("GET /v1/matches/{match_id}/seats/{seat}/view", 200),
                   ("GET /v1/matches/{match_id}/log", 200)}, str(sorted(map(str, seen)))


@pytest.mark.soak  # never in CI before; on 2026-12-05 it stopped on hypothesis' FlakyStrategyDefinition (not yet looked into)
def test_stateful_fuzz_with_a_larger_budget(fuzz_app: Any, players: list[Player]) -> None:
    seen = _run_stateful(fuzz_app, players, examples=400, steps=15)
    assert {("POST /v1/matches", 201), ("POST /v1/matches/{match_id}/seats/{seat}/claim", 200),
            ("GET /v1/matches/{match_id}/seats/{seat}/view", 200), ("POST /v1/matches/{match_id}/moves", 201)} <= seen, \
        str(sorted(map(str, seen)))
