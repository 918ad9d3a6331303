"""The routes behind moves by mail (issue 11 item 5): the public mail key, the delegation at claim
and later, its withdrawal, and a custodial seat attaching a key of its own. Every refusal changes
nothing; the records of all of it verify, and tampering a key change fails and names it."""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

import pytest

from service.play.matches import Matches
from service.proof import signing
from service.proof.delegation import seat_key_body, withdrawal_body
from service.proof.verify import verify_record
from tests.conftest import CREATOR_KEY, Player, signed_headers


def signed(client: Any, method: str, path: str, body: Any, private_key: str) -> Any:
    raw = json.dumps(body).encode()
    return client.open(path, method=method, data=raw, content_type="application/json",
                       headers=signed_headers(private_key, method, path, raw))


def digest_of(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def claimed(service: Matches, client: Any, ana: Player, *, delegate: bool) -> str:
    """A harbour race: Ana claims seat 0 over the API (delegating by mail or not), a bot has seat 1."""
    made = service.create("harbour-race", {"target": 100}, [{"invite": "ana@example.org"}, {"bot": "random"}], creator_key=CREATOR_KEY)
    mid = str(made["id"])
    body: dict[str, Any] = {"token": made["invites"]["0"], "public_key": ana.public_key, "name": "Ana"}
    if delegate:
        info = client.get(f"/v1/matches/{mid}/seats/0/mail-key").get_json()
        body["mail_delegation"] = signing.sign(ana.private_key, info["delegation_body"])
    r = client.post(f"/v1/matches/{mid}/seats/0/claim", json=body)
    assert r.status_code == 200, r.get_json()
    return mid


def to_seat(service: Matches, mid: str, seat: int) -> None:
    """Let the bot move until ``seat`` must act (or the match is over)."""
    while service.meta(mid).status == "active" and seat not in service.meta(mid).active:
        other = service.meta(mid).active[0]
        service.server_move(mid, other, service.meta(mid).ply)


def test_the_mail_key_is_public_and_a_claim_can_delegate_to_it(client: Any, service: Matches, players: list[Player]) -> None:
    ana = players[0]
    mid = claimed(service, client, ana, delegate=True)
    info = client.get(f"/v1/matches/{mid}/seats/0/mail-key").get_json()
    assert info["delegated"] is True and info["generation"] == 0 and info["custody"] == "player"
    assert info["delegation_body"] == {"type": "portolan-mail-delegation/1", "match": mid, "seat": 0,
                                       "mail_key": info["mail_key"]}
    assert info["mail_key"] == service.mail_public_key(mid, 0, 0)
    to_seat(service, mid, 0)
    assert service.mail_ready(service.meta(mid), 0) is None
    assert client.get(f"/v1/matches/{mid}/seats/5/mail-key").status_code == 404
    assert client.get(f"/v1/matches/{mid}/seats/1/mail-key").get_json()["code"] == "bot-seat"


def test_a_delegation_granted_later_lets_mail_move_and_refusals_change_nothing(
        client: Any, service: Matches, players: list[Player]) -> None:
    ana, bea = players[0], players[1]
    mid = claimed(service, client, ana, delegate=False)
    path = f"/v1/matches/{mid}/seats/0/mail-delegation"
    body = client.get(f"/v1/matches/{mid}/seats/0/mail-key").get_json()["delegation_body"]
    good = {"signature": signing.sign(ana.private_key, body)}
    before = service.meta(mid)
    refusals = [
        (signed(client, "PUT", path, {"signature": signing.sign(bea.private_key, body)}, ana.private_key), 401,
         "bad-mail-delegation"),
        (signed(client, "PUT", path, good, bea.private_key), 403, "not-your-seat"),
        (signed(client, "PUT", f"/v1/matches/{mid}/seats/7/mail-delegation", good, ana.private_key), 404, "unknown-seat"),
        (client.put(path, json=good), 401, "missing-signature"),
        (signed(client, "PUT", path, {"sig": "x"}, ana.private_key), 400, "malformed-request"),
    ]
    for r, status, code in refusals:
        assert (r.status_code, r.get_json()["code"]) == (status, code), r.get_json()
        assert r.get_json()["detail"]
    assert service.meta(mid) == before
    raw = json.dumps(good).encode()
    headers = signed_headers(ana.private_key, "PUT", path, raw)
    r = client.put(path, data=raw, content_type="application/json", headers=headers)
    assert r.status_code == 200 and r.get_json()["delegated"] is True
    replay = client.put(path, data=raw, content_type="application/json", headers=headers)
    assert (replay.status_code, replay.get_json()["code"]) == (401, "replayed-request")
    to_seat(service, mid, 0)
    moved = service.submit_by_mail(mid, 0, service.meta(mid).ply, [{"type": "roll"}], message_digest=digest_of("ana"))
    assert moved["replayed"] is False
    report = verify_record(service.record(mid))
    assert report.ok, report.text()


def test_a_withdrawn_delegation_refuses_mail_moves_and_the_record_shows_it(
        client: Any, service: Matches, players: list[Player]) -> None:
    ana = players[0]
    mid = claimed(service, client, ana, delegate=True)
    to_seat(service, mid, 0)
    service.submit(mid, **ana.envelope(mid, 0, service.meta(mid).ply, [{"type": "roll"}]))  # so a mail move is not ply 0
    to_seat(service, mid, 0)
    service.submit_by_mail(mid, 0, service.meta(mid).ply, [{"type": "roll"}], message_digest=digest_of("before"))
    path = f"/v1/matches/{mid}/seats/0/mail-delegation"
    old_key = service.meta(mid).seats[0].mail_key
    wrong = signed(client, "DELETE", path, {"withdrawal": signing.sign(ana.private_key, {"not": "it"})}, ana.private_key)
    assert (wrong.status_code, wrong.get_json()["code"]) == (401, "bad-withdrawal")
    assert service.meta(mid).seats[0].mail_key == old_key
    withdrawal = signing.sign(ana.private_key, withdrawal_body(mid, 0, old_key))
    r = signed(client, "DELETE", path, {"withdrawal": withdrawal}, ana.private_key)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["generation"] == 1 and r.get_json()["delegated"] is False and r.get_json()["mail_key"] != old_key
    again = signed(client, "DELETE", path, {"withdrawal": withdrawal}, ana.private_key)
    assert (again.status_code, again.get_json()["code"]) == (409, "no-mail-delegation")
    to_seat(service, mid, 0)
    ply = service.meta(mid).ply
    reason = service.mail_ready(service.meta(mid), 0)
    assert reason is not None and "withdrew its mail delegation" in reason
    with pytest.raises(Exception) as refused:
        service.submit_by_mail(mid, 0, ply, [{"type": "roll"}], message_digest=digest_of("after"))
    assert getattr(refused.value, "code", None) == "no-mail-delegation"
    assert service.meta(mid).ply == ply
    record = service.record(mid)
    assert record["mail_withdrawals"] == [{"seat": 0, "ply": record["mail_withdrawals"][0]["ply"], "mail_key": old_key,
                                           "signature": withdrawal}]
    assert verify_record(record).ok, verify_record(record).text()
    forged = copy.deepcopy(record)
    forged["mail_withdrawals"][0]["signature"] = signing.sign(signing.generate_private_key(), {"x": 1})
    report = verify_record(forged)
    assert report.failure is not None and "the withdrawal is not signed by seat 0's key" in report.failure
    # a mail move signed by the withdrawn key after the withdrawal does not verify: move the
    # withdrawal back before the first mail move
    early = copy.deepcopy(record)
    first = next(i for i, e in enumerate(early["entries"]) if e["by"] == "email")
    assert first > 0
    early["mail_withdrawals"][0]["ply"] = first - 1
    early["mail_withdrawals"][0]["signature"] = withdrawal
    report = verify_record(early)
    assert report.failure == f"ply {first}: seat 0 withdrew that mail key at ply {first - 1}, before this move", report.text()


def custodial_match(service: Matches) -> str:
    """Harbour race: Cid joined by mail (custodial seat 0), a bot has seat 1."""
    made = service.create("harbour-race", {"target": 100}, [{"invite": "cid@example.org"}, {"bot": "random"}], creator_key=CREATOR_KEY)
    mid = str(made["id"])
    service.join_by_mail(mid, 0, "Cid", "cid@example.org")
    return mid


def attach_body(mid: str, player: Player, token: str, ply: int, seat: int = 0) -> dict[str, Any]:
    return {"token": token, "public_key": player.public_key, "from_ply": ply,
            "signature": signing.sign(player.private_key, seat_key_body(mid, seat, player.public_key, ply))}


def test_a_custodial_seat_attaches_a_key_of_its_own(client: Any, service: Matches, players: list[Player]) -> None:
    cid = players[2]
    mid = custodial_match(service)
    to_seat(service, mid, 0)
    service.submit_by_mail(mid, 0, service.meta(mid).ply, [{"type": "roll"}], message_digest=digest_of("cid 1"))
    token = service.attach_token(mid, 0)
    path = f"/v1/matches/{mid}/seats/0/key"
    ply = service.meta(mid).ply
    before = service.meta(mid)
    refusals = [
        (attach_body(mid, cid, "wrong-token", ply), 401, "bad-attach-token"),
        (attach_body(mid, cid, token, ply + 1), 409, "stale-ply"),
        (dict(attach_body(mid, cid, token, ply), signature=signing.sign(players[3].private_key, {"x": 1})), 401,
         "bad-signature"),
        (dict(attach_body(mid, cid, token, ply), public_key="A" * 43), 400, "bad-public-key"),
    ]
    for body, status, code in refusals:
        r = client.post(path, json=body)
        assert (r.status_code, r.get_json()["code"]) == (status, code), r.get_json()
    assert service.meta(mid) == before
    assert client.post(f"/v1/matches/{mid}/seats/1/key", json=attach_body(mid, cid, token, ply, 1)).get_json()["code"] \
        == "not-custodial"
    r = client.post(path, json=attach_body(mid, cid, token, ply))
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["custody"] == "player" and r.get_json()["public_key"] == cid.public_key
    spent = client.post(path, json=attach_body(mid, cid, token, ply))
    assert (spent.status_code, spent.get_json()["code"]) == (409, "not-custodial")
    # from now on the seat is Cid's: mail moves need a delegation from his key, envelopes his signature
    reason = service.mail_ready(service.meta(mid), 0)
    assert reason is not None and "now signs with the player's own key" in reason
    to_seat(service, mid, 0)
    own = service.meta(mid).ply
    r = client.post(f"/v1/matches/{mid}/moves", json=cid.envelope(mid, 0, own, [{"type": "roll"}]))
    assert r.status_code == 201, r.get_json()
    # Cid delegates moves by mail from his own key: replies move for him again, under that delegation
    delegation = client.get(f"/v1/matches/{mid}/seats/0/mail-key").get_json()["delegation_body"]
    r = signed(client, "PUT", f"/v1/matches/{mid}/seats/0/mail-delegation",
               {"signature": signing.sign(cid.private_key, delegation)}, cid.private_key)
    assert r.status_code == 200, r.get_json()
    to_seat(service, mid, 0)
    by_mail = service.meta(mid).ply
    service.submit_by_mail(mid, 0, by_mail, [{"type": "roll"}], message_digest=digest_of("cid, own key"))
    record = service.record(mid)
    assert record["entries"][by_mail]["delegation"]["body"] == delegation
    assert record["header"]["seats"][0]["custody"] == "server"
    assert record["header"]["seats"][0]["public_key"] != cid.public_key
    assert [c["from_ply"] for c in record["key_changes"]] == [ply]
    report = verify_record(record)
    assert report.ok, report.text()
    assert f"seat 0 is custodial: its moves are signed by a key the server holds until ply {ply}" in report.text()
    for field, named in (("signature", "the new key's signature (proof of possession) does not verify"),
                         ("custodial_signature", "the countersignature does not verify under seat 0's custodial key"),
                         ("public_key", "the new key's signature (proof of possession) does not verify")):
        tampered = copy.deepcopy(record)
        tampered["key_changes"][0][field] = (players[3].public_key if field == "public_key"
                                             else signing.sign(players[3].private_key, {"x": 1}))
        report = verify_record(tampered)
        assert report.failure == f"key change of seat 0 at ply {ply}: {named}", report.text()
    dropped = copy.deepcopy(record)
    dropped["key_changes"] = []
    report = verify_record(dropped)  # Cid's own move cannot pass for the custodial key's
    assert report.failure == f"ply {own}: the signature does not verify under seat 0's key", report.text()


def test_an_attach_token_is_only_for_a_custodial_seat(client: Any, service: Matches, players: list[Player]) -> None:
    mid = claimed(service, client, players[0], delegate=False)
    with pytest.raises(Exception) as refused:
        service.attach_token(mid, 0)
    assert getattr(refused.value, "code", None) == "not-custodial"


def test_a_claim_with_a_delegation_for_a_seat_beyond_the_match_is_404(client: Any, service: Matches,
                                                                      players: list[Player]) -> None:
    """Found by the stateful fuzz: seat 2**54 + 1 with a mail delegation was a 500, since the
    delegation body naming that seat is no canonical JSON (beyond 2**53). Now the seat is checked
    first, and nothing changes."""
    made = service.create("harbour-race", {"target": 100}, [{"invite": "ana@example.org"}, {"bot": "random"}],
                          creator_key=CREATOR_KEY)
    mid = str(made["id"])
    before = service.meta(mid)
    for seat in (2, 18014398509481985):
        r = client.post(f"/v1/matches/{mid}/seats/{seat}/claim",
                        json={"token": made["invites"]["0"], "public_key": players[0].public_key, "name": "Ana",
                              "mail_delegation": "v8"})
        assert r.status_code == 404 and r.get_json()["code"] == "unknown-seat", r.get_json()
    assert service.meta(mid) == before
