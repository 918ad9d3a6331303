"""The routes and fields of moves by mail answer as openapi.yaml says (openapi-core validates
every request and response, unknown fields forbidden): mail key, delegation at claim, grant,
withdraw, key attach, and a log and record carrying mail moves, a withdrawal and a key change."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from openapi_core import OpenAPI

from service.play.matches import Matches
from service.proof import signing
from service.proof.delegation import seat_key_body, withdrawal_body
from tests.conftest import CREATOR_KEY, Player, signed_headers
from tests.helpers.contract import Api


def signed(method: str, path: str, body: Any, private_key: str) -> dict[str, Any]:
    data = json.dumps(body).encode()
    return {"data": data, "content_type": "application/json", "headers": signed_headers(private_key, method, path, data)}


def test_moves_by_mail_answer_as_documented(client: Any, openapi: OpenAPI, service: Matches,
                                            players: list[Player]) -> None:
    api = Api(client, openapi)
    ana, bea = players[0], players[1]
    made = service.create("harbour-race", {"target": 100},
                          [{"invite": "ana@example.org"}, {"invite": "cid@example.org"}, {"bot": "random"}],
                          creator_key=CREATOR_KEY)
    mid = made["id"]
    seats = f"/v1/matches/{mid}/seats"
    info = api("GET", f"{seats}/0/mail-key", 200).get_json()
    api("GET", f"{seats}/9/mail-key", 404, code="unknown-seat")
    api("GET", f"{seats}/2/mail-key", 409, code="bot-seat")
    claim = {"token": made["invites"]["0"], "public_key": ana.public_key, "name": "Ana",
             "mail_delegation": signing.sign(bea.private_key, info["delegation_body"])}
    api("POST", f"{seats}/0/claim", 401, code="bad-mail-delegation", json=claim)
    claim["mail_delegation"] = signing.sign(ana.private_key, info["delegation_body"])
    api("POST", f"{seats}/0/claim", 200, json=claim)
    assert api("GET", f"{seats}/0/mail-key", 200).get_json()["delegated"] is True
    service.join_by_mail(mid, 1, "Cid", "cid@example.org")
    assert api("GET", f"{seats}/1/mail-key", 200).get_json()["custody"] == "server"

    # mail moves until both Ana and Cid have made some, then Ana withdraws and grants again
    for n in range(500):
        meta = service.meta(mid)
        done = {e["seat"] for e in service.store.log(mid) if e["by"] == "email"}
        if n >= 4 and done == {0, 1}:
            break
        seat = meta.active[0]
        if seat == 2:
            service.server_move(mid, 2, meta.ply)
        else:
            service.submit_by_mail(mid, seat, meta.ply, [{"type": "roll"}],
                                   message_digest=hashlib.sha256(f"reply {n}".encode()).hexdigest())
    path = f"{seats}/0/mail-delegation"
    api("DELETE", path, 401, code="bad-withdrawal", **signed("DELETE", path, {"withdrawal": claim["mail_delegation"]},
                                                             ana.private_key))
    withdrawal = signing.sign(ana.private_key, withdrawal_body(mid, 0, info["mail_key"]))
    api("DELETE", path, 403, code="not-your-seat", **signed("DELETE", path, {"withdrawal": withdrawal}, bea.private_key))
    api("DELETE", path, 200, **signed("DELETE", path, {"withdrawal": withdrawal}, ana.private_key))
    api("DELETE", path, 409, code="no-mail-delegation", **signed("DELETE", path, {"withdrawal": withdrawal},
                                                                 ana.private_key))
    fresh = api("GET", f"{seats}/0/mail-key", 200).get_json()
    api("PUT", path, 401, code="bad-mail-delegation", **signed("PUT", path, {"signature": withdrawal}, ana.private_key))
    api("PUT", path, 400, valid_request=False, code="malformed-request", **signed("PUT", path, {}, ana.private_key))
    api("PUT", path, 200, **signed("PUT", path, {"signature": signing.sign(ana.private_key, fresh["delegation_body"])},
                                   ana.private_key))

    # Cid's custodial seat takes his own key
    cid = players[2]
    token = service.attach_token(mid, 1)
    ply = service.meta(mid).ply
    body = {"token": token, "public_key": cid.public_key, "from_ply": ply,
            "signature": signing.sign(cid.private_key, seat_key_body(mid, 1, cid.public_key, ply))}
    api("POST", f"{seats}/1/key", 409, code="stale-ply", json=dict(body, from_ply=ply + 1))
    api("POST", f"{seats}/1/key", 401, code="bad-attach-token", json=dict(body, token="nope"))
    api("POST", f"{seats}/9/key", 404, code="unknown-seat", json=body)
    api("POST", f"{seats}/1/key", 200, json=body)
    api("POST", f"{seats}/1/key", 409, code="not-custodial", json=body)

    log = api("GET", f"/v1/matches/{mid}/log", 200).get_json()
    assert any(e["by"] == "email" and "delegation" in e for e in log["entries"])
    record = api("GET", f"/v1/matches/{mid}/record", 200).get_json()
    assert record["key_changes"][0]["seat"] == 1 and record["mail_withdrawals"][0]["seat"] == 0
    assert record["header"]["seats"][1]["custody"] == "server"
