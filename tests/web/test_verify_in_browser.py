"""The log page's verifier (static/js/verify.js) run in Chromium against the offline verifier
(service.proof.verify): on honest records (signed by the seats' keys, moved by mail under a
delegation, by a custodial seat, across a key change; live and finished) both say the record
verifies; on every tampering both fail and name the same place in the same words. The strict
key rule (no small-order or non-canonical keys) is checked key by key against libsodium's.

The records are made in-process (the fixture game, fast); the browser only needs the page's
modules, served by the app over real HTTP.
"""

from __future__ import annotations

import copy
import hashlib
import secrets
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import nacl.bindings
import pytest

from service.play.matches import Matches
from service.proof import signing
from service.proof.delegation import seat_key_body
from service.proof.verify import verify_record
from tests.conftest import CREATOR_KEY, Player
from tests.helpers.verify import first_mail_move, play_by_mail, two_player_match

JS_VERIFY = """async ([record, key]) => {
  const { verifyRecord } = await import('/web/static/js/verify.js');
  return verifyRecord(record, key);
}"""
JS_KEYS = """async (keys) => {
  const { validPublicKey } = await import('/web/static/js/ed25519.js');
  const { fromB64url } = await import('/web/static/js/b64.js');
  return keys.map((k) => validPublicKey(fromB64url(k)));
}"""


@pytest.fixture
def page(browser: Any, served: str) -> Iterator[Any]:
    """A page of the web client (its modules importable), served by the app over HTTP."""
    context = browser.new_context(base_url=served)
    page = context.new_page()
    page.goto("/keys")
    yield page
    context.close()


def signed_match(m: Matches, players: list[Player], target: int = 12, moves: int = 10_000) -> str:
    """Harbour race between Ana and Bea, every move signed by their own keys."""
    made = m.create("harbour-race", {"target": target}, [{"invite": "ana@example.org"}, {"invite": "bea@example.org"}],
                    creator_key=CREATOR_KEY)
    mid = str(made["id"])
    for seat in (0, 1):
        m.claim(mid, seat, made["invites"][str(seat)], players[seat].public_key, players[seat].name, "")
    for n in range(moves):
        meta = m.meta(mid)
        if meta.status != "active":
            break
        seat = meta.active[0]
        legal = m.view(mid, seat)["legal_actions"]
        action = legal[n % len(legal)]["action"]
        m.submit(mid, **players[seat].envelope(mid, seat, meta.ply, [action], nonce=f"n{n}"))
    return mid


def both(page: Any, record: dict[str, Any], server_key: str | None = None) -> tuple[Any, dict[str, Any]]:
    """(Python's report, the browser's result) for one record."""
    return verify_record(record, server_key), page.evaluate(JS_VERIFY, [record, server_key])


def assert_same_failure(page: Any, record: dict[str, Any], server_key: str | None = None) -> str:
    report, result = both(page, record, server_key)
    assert not report.ok and result["ok"] is False, (report.text(), result)
    assert result["failure"] == report.failure, (result, report.text())
    return str(report.failure)


def test_an_honest_finished_record_verifies_in_the_browser_as_offline(page: Any, service: Matches,
                                                                      players: list[Player]) -> None:
    record = service.record(signed_match(service, players))
    assert record["status"] == "finished" and record["seed"]
    report, result = both(page, record, service.server_public_key)
    assert report.ok and result["ok"] is True, (report.text(), result)
    checks = {c["name"]: c for c in result["checks"]}
    assert checks["seed"]["ok"] is True and "commitment" in checks["seed"]["detail"]
    assert checks["signatures"]["ok"] is True and f"all {len(record['entries'])} moves" in checks["signatures"]["detail"]
    assert checks["receipts"]["ok"] is True and checks["chain"]["ok"] is True
    assert checks["events"]["ok"] is True and "hidden events included" in checks["events"]["detail"]
    # what the browser does not do it says, with the command that does it
    assert checks["rules replay"]["ok"] is None
    assert "not checked in the browser" in checks["rules replay"]["detail"]
    assert f"portolan verify record.json --server-key {service.server_public_key}" in checks["rules replay"]["detail"]


def test_a_live_record_verifies_so_far_and_says_the_seed_comes_later(page: Any, service: Matches,
                                                                     players: list[Player]) -> None:
    record = service.record(signed_match(service, players, target=100, moves=7))
    assert record["status"] == "active" and record["seed"] is None
    report, result = both(page, record)
    assert report.ok and result["ok"] is True, (report.text(), result)
    checks = {c["name"]: c for c in result["checks"]}
    assert checks["seed"]["ok"] is None and "not yet" in checks["seed"]["detail"]


def _action(record: dict[str, Any], i: int) -> None:
    env = record["entries"][i]["envelope"]
    env["actions"][0] = {"type": "bank"} if env["actions"][0] != {"type": "bank"} else {"type": "roll"}


def _receipt(record: dict[str, Any], i: int) -> None:
    entry = record["entries"][i]
    entry["receipt"] = signing.sign(signing.generate_private_key(), {"match": entry["envelope"]["match"], "ply": i,
                                                                      "hash": entry["hash"]})


def _prev(record: dict[str, Any], i: int) -> None:
    record["entries"][i]["prev"] = hashlib.sha256(b"elsewhere").hexdigest()


def _time(record: dict[str, Any], i: int) -> None:
    record["entries"][i]["accepted_at"] = "2020-01-01T00:00:00Z"


def _event(record: dict[str, Any], i: int) -> None:
    record["entries"][i]["events"].append({"type": "note", "text": "a die that never rolled"})


def _seat(record: dict[str, Any], i: int) -> None:
    record["entries"][i]["seat"] = 1 - record["entries"][i]["seat"]


@pytest.mark.parametrize("tamper", [_action, _receipt, _prev, _time, _event, _seat])
def test_tampering_one_move_fails_in_the_browser_naming_its_ply(page: Any, service: Matches, players: list[Player],
                                                              tamper: Callable[[dict[str, Any], int], None]) -> None:
    honest = service.record(signed_match(service, players))
    i = len(honest["entries"]) // 2
    record = copy.deepcopy(honest)
    tamper(record, i)
    assert assert_same_failure(page, record).startswith(f"ply {i}: ")


def test_a_wrong_seed_a_foreign_server_key_and_a_bad_seat_key_fail_as_offline(page: Any, service: Matches,
                                                                              players: list[Player]) -> None:
    honest = service.record(signed_match(service, players))
    record = copy.deepcopy(honest)
    record["seed"] = secrets.token_hex(32)
    assert assert_same_failure(page, record) == "seed: sha256(seed) is not the commitment published at creation"
    other = signing.public_key_of(signing.generate_private_key())
    report, result = both(page, honest, other)  # the same place; the browser names where its key came from
    assert not report.ok and result["ok"] is False
    assert result["failure"] == "header: the record's server key is not the one this server publishes (GET /v1/server-key)"
    record = copy.deepcopy(honest)
    record["header"]["seats"][0]["public_key"] = signing.b64e(bytes(32))  # small order: accepts forgeries
    assert "seat 0's public key is not a valid Ed25519 key" in assert_same_failure(page, record)


def test_moves_by_mail_verify_in_the_browser_with_their_delegations_and_custodial_keys(
        page: Any, service: Matches, players: list[Player]) -> None:
    mid = two_player_match(service, players)
    play_by_mail(service, mid)
    finished = service.record(mid)
    report, result = both(page, finished)
    assert report.ok and result["ok"] is True, (report.text(), result)
    notes = [c["detail"] for c in result["checks"] if c["name"] == "signers"]
    assert notes == [line[len("ok   "):] for line in report.lines if line.startswith("ok   seat ")]
    assert any("seat 1 is custodial" in n and "only as trustworthy as the server" in n for n in notes)
    for tamper in ("delegation body", "delegation signature", "envelope signature", "digest", "dropped", "custodial"):
        record = copy.deepcopy(finished)
        i = first_mail_move(record, 1 if tamper == "custodial" else 0)
        entry = record["entries"][i]
        if tamper == "delegation body":
            entry["delegation"]["body"]["seat"] = 1
        elif tamper == "delegation signature":
            entry["delegation"]["signature"] = signing.sign(signing.generate_private_key(), entry["delegation"]["body"])
        elif tamper in ("envelope signature", "custodial"):
            entry["signature"] = signing.sign(signing.generate_private_key(), entry["envelope"])
        elif tamper == "digest":
            entry["mail"]["digest"] = hashlib.sha256(b"another message").hexdigest()
        else:
            del entry["delegation"]
        assert assert_same_failure(page, record).startswith(f"ply {i}: "), tamper


def test_a_key_change_verifies_in_the_browser_and_a_forged_countersignature_fails(
        page: Any, service: Matches, players: list[Player]) -> None:
    from service.play.seats.key_attach import attach_key

    cid = players[2]
    mid = two_player_match(service, players)
    play_by_mail(service, mid, moves=4)
    ply = service.meta(mid).ply
    attach_key(service, mid, 1, service.attach_token(mid, 1), cid.public_key, ply,
               signing.sign(cid.private_key, seat_key_body(mid, 1, cid.public_key, ply)))
    for n in range(6):
        meta = service.meta(mid)
        seat = meta.active[0]
        action = service.view(mid, seat)["legal_actions"][0]["action"]
        if seat == 1:
            service.submit(mid, **cid.envelope(mid, 1, meta.ply, [action], nonce=f"c{n}"))
        else:
            service.submit_by_mail(mid, 0, meta.ply, [action], message_digest=hashlib.sha256(f"a{n}".encode()).hexdigest())
    record = service.record(mid)
    report, result = both(page, record)
    assert report.ok and result["ok"] is True, (report.text(), result)
    assert any(f"until ply {ply}, then by the player's own key" in c["detail"] for c in result["checks"])
    forged = copy.deepcopy(record)
    forged["key_changes"][0]["custodial_signature"] = signing.sign(signing.generate_private_key(), {"x": 1})
    assert "countersignature does not verify" in assert_same_failure(page, forged)


def test_the_browser_refuses_exactly_the_keys_libsodium_refuses(page: Any) -> None:
    small_order = [  # the eight points of order dividing 8, and non-canonical encodings of some
        "0100000000000000000000000000000000000000000000000000000000000000",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0000000000000000000000000000000000000000000000000000000000000080",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
        "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # y = p + 1: non-canonical 1
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # y = p
        "0100000000000000000000000000000000000000000000000000000000000080",  # "-0" with y = 1
    ]
    raw = [bytes.fromhex(h) for h in small_order]
    valid = [signing.b64d(signing.public_key_of(signing.generate_private_key())) for _ in range(6)]
    torsion = bytes.fromhex(small_order[4])
    raw += valid + [nacl.bindings.crypto_core_ed25519_add(v, torsion) for v in valid[:3]]  # off the prime subgroup
    raw += [secrets.token_bytes(32) for _ in range(20)]  # about half are not on the curve at all
    keys = [signing.b64e(k) for k in raw]
    expected = [signing.valid_public_key(k) for k in keys]
    assert sum(expected) >= 6 and not all(expected)
    assert page.evaluate(JS_KEYS, keys) == expected


def test_the_log_page_draws_the_chain_and_its_verify_button_names_a_changed_move(
        page: Any, service: Matches, players: list[Player]) -> None:
    mid = signed_match(service, players)
    honest = service.record(mid)
    n = len(honest["entries"])
    page.goto(f"/match/{mid}/log")
    page.wait_for_selector("#log tr.entry")
    rows = page.locator("#log tr.entry").evaluate_all(
        "(rows) => rows.map((r) => [r.dataset.ply, ...Array.from(r.querySelectorAll('td.hash code'), (c) => c.dataset.hash)])")
    assert [r[0] for r in rows] == [str(i) for i in range(n)]
    assert [r[1] for r in rows] == [e["hash"] for e in honest["entries"]]
    assert [r[2] for r in rows[1:]] == [r[1] for r in rows[:-1]]  # the chain: prev is the row before's hash
    page.click("button#verify")
    result = page.wait_for_selector("#verify-result[data-ok]")
    assert result.get_attribute("data-ok") == "true", result.text_content()
    words = result.text_content() or ""
    assert "The record checks out" in words and "not checked in the browser" in words and "portolan verify" in words

    # the same page with one action changed on its way from the server
    i = n // 2
    tampered = copy.deepcopy(honest)
    _action(tampered, i)
    page.route(f"**/v1/matches/{mid}/record", lambda route: route.fulfill(json=tampered))
    page.click("button#verify")
    page.wait_for_selector("#verify-result[data-ok=false]")
    words = page.locator("#verify-result").text_content() or ""
    seat = honest["entries"][i]["seat"]
    assert f"ply {i}: the signature does not verify under seat {seat}'s key" in words, words
    assert "does NOT verify" in words


def test_a_mail_withdrawal_verifies_in_the_browser_and_a_forged_one_fails(
        page: Any, service: Matches, players: list[Player]) -> None:
    from service.play.seats.keys import withdraw_mail_delegation
    from service.proof.delegation import withdrawal_body

    ana = players[0]
    mid = two_player_match(service, players, target=100)
    play_by_mail(service, mid, moves=5)
    mail_key = service.meta(mid).seats[0].mail_key
    withdraw_mail_delegation(service, mid, 0, ana.public_key, signing.sign(ana.private_key, withdrawal_body(mid, 0, mail_key)))
    record = service.record(mid)
    assert record["mail_withdrawals"]
    report, result = both(page, record)
    assert report.ok and result["ok"] is True, (report.text(), result)
    forged = copy.deepcopy(record)
    forged["mail_withdrawals"][0]["signature"] = signing.sign(signing.generate_private_key(), {"x": 1})
    assert "the withdrawal is not signed by seat 0's key" in assert_same_failure(page, forged)


def test_the_log_page_of_a_running_match_verifies_so_far(page: Any, service: Matches, players: list[Player]) -> None:
    mid = signed_match(service, players, target=100, moves=5)
    page.goto(f"/match/{mid}/log")
    page.wait_for_selector("#log tr.entry")
    assert page.locator("#log tr.entry").count() == 5
    page.click("button#verify")
    result = page.wait_for_selector("#verify-result[data-ok=true]")
    words = result.text_content() or ""
    assert "checks out so far" in words and "not yet: the seed is revealed once the match is over" in words


def test_a_record_with_timeouts_verifies_in_the_browser_and_an_earlier_timeout_fails_as_offline(
        page: Any, service: Matches, players: list[Player]) -> None:
    """Format 4: the clock key signs the timeouts and the stand-in's moves; a timeout moved
    before the deadline its clock field names (re-hashed and re-signed with the server's key,
    so only the time is wrong) fails in both, at the same ply, in the same words."""
    from service.clock import parse_iso
    from tests.helpers.clock_helpers import Hands, started
    from tests.helpers.verify_clock import earlier, play, rechain, time_out

    hands = Hands()
    service.now = hands
    mid = started(service, players, time_control={"kind": "per-move", "days": 2}, timeout_policy={"grace_hours": 12})
    ply = time_out(service, hands, mid)
    play(service, hands, players, mid)
    record = service.record(mid)
    assert record["header"]["format"] == "portolan-record/4" and record["status"] == "finished"
    report, result = both(page, record, service.server_public_key)
    assert report.ok and result["ok"] is True, (report.text(), result)
    checks = {c["name"]: c for c in result["checks"]}
    assert "the timeout was taken no earlier than the deadline its clock field names" in checks["clock"]["detail"]
    assert "each timeout's deadline is walked" in checks["rules replay"]["detail"]
    notes = [c["detail"] for c in result["checks"] if c["name"] == "signers"]
    assert any("signed by the match's clock key" in n for n in notes)

    since = parse_iso(record["entries"][ply]["clock"]["since"])
    forged = earlier(record, service.server_key, ply, since + timedelta(days=1))
    assert "before its deadline" in assert_same_failure(page, forged, service.server_public_key)
    forged = copy.deepcopy(record)
    forged["entries"][ply]["signature"] = signing.sign(service.server_key, forged["entries"][ply]["envelope"])
    rechain(forged, service.server_key, ply)
    assert "does not verify under the match's clock key" in assert_same_failure(page, forged)
    forged = copy.deepcopy(record)
    forged["entries"][ply + 1]["accepted_at"] = record["header"]["started_at"]
    rechain(forged, service.server_key, ply + 1)
    assert "the record's times go backwards" in assert_same_failure(page, forged)
