"""``portolan verify`` over records with moves by mail (issue 11 item 5): an honest record with
a delegated seat and a custodial seat verifies, live and finished, and says what a custodial
seat's moves are worth; tampering the delegation, its signature, the envelope signature or the
mail digest fails and names the place."""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable
from typing import Any

import pytest

from service.play.matches import Matches
from service.proof import signing
from service.proof.chain import RECORD_FORMAT
from service.proof.verify import verify_record
from tests.conftest import Player
from tests.helpers.verify import first_mail_move, play_by_mail, two_player_match


@pytest.fixture
def finished(service: Matches, players: list[Player]) -> dict[str, Any]:
    mid = two_player_match(service, players)
    play_by_mail(service, mid)
    assert service.meta(mid).status == "finished"
    return service.record(mid)


def test_a_finished_match_played_by_mail_verifies_and_says_what_custody_means(finished: dict[str, Any]) -> None:
    report = verify_record(finished)
    assert report.ok and not report.pending, report.text()
    text = report.text()
    assert "seat 1 is custodial: its moves are signed by a key the server holds" in text
    assert "only as trustworthy as the server" in text
    assert "seat 0 moved" in text and "under a mail delegation signed by the seat's key" in text
    assert finished["header"]["format"] == RECORD_FORMAT
    assert finished["header"]["seats"][1]["custody"] == "server" and "custody" not in finished["header"]["seats"][0]


def test_a_live_match_played_by_mail_verifies_so_far(service: Matches, players: list[Player]) -> None:
    mid = two_player_match(service, players, target=100)  # far enough not to end within six moves
    play_by_mail(service, mid, moves=6)
    record = service.record(mid)
    report = verify_record(record)
    assert report.ok, report.text()
    assert report.pending  # the seed is not revealed yet


def _body(key: str) -> Callable[[dict[str, Any], int], None]:
    def tamper(record: dict[str, Any], i: int) -> None:
        record["entries"][i]["delegation"]["body"][key] = {"seat": 1, "match": "someothermatch",
                                                          "mail_key": record["header"]["seats"][1]["public_key"]}[key]
    return tamper


def _delegation_signature(record: dict[str, Any], i: int) -> None:
    d = record["entries"][i]["delegation"]
    d["signature"] = signing.sign(signing.generate_private_key(), d["body"])


def _envelope_signature(record: dict[str, Any], i: int) -> None:
    e = record["entries"][i]
    e["signature"] = signing.sign(signing.generate_private_key(), e["envelope"])


def _mail_digest(record: dict[str, Any], i: int) -> None:
    record["entries"][i]["mail"]["digest"] = hashlib.sha256(b"another message").hexdigest()


def _dropped_delegation(record: dict[str, Any], i: int) -> None:
    del record["entries"][i]["delegation"]


def _not_by_mail(record: dict[str, Any], i: int) -> None:
    record["entries"][i]["by"] = "human"


@pytest.mark.parametrize(("tamper", "named"), [
    (_body("seat"), "the mail delegation does not name this match and seat 0"),
    (_body("match"), "the mail delegation does not name this match and seat 0"),
    (_body("mail_key"), "the mail delegation is not signed by seat 0's key"),
    (_delegation_signature, "the mail delegation is not signed by seat 0's key"),
    (_envelope_signature, "the signature does not verify under seat 0's mail key"),
    (_mail_digest, "the mail digest is not the one the signed envelope's nonce was made from"),
    (_dropped_delegation, "carries no mail delegation from seat 0's key"),
    (_not_by_mail, "a move that did not come by mail carries a mail digest or delegation"),
])
def test_tampering_a_delegated_mail_move_fails_and_names_it(finished: dict[str, Any],
                                                             tamper: Callable[[dict[str, Any], int], None],
                                                             named: str) -> None:
    record = copy.deepcopy(finished)
    i = first_mail_move(record, 0)
    tamper(record, i)
    report = verify_record(record)
    assert not report.ok
    assert report.failure is not None and report.failure.startswith(f"ply {i}: ") and named in report.failure, report.failure


def test_tampering_a_custodial_mail_move_fails_and_names_it(finished: dict[str, Any]) -> None:
    record = copy.deepcopy(finished)
    i = first_mail_move(record, 1)
    _envelope_signature(record, i)
    report = verify_record(record)
    assert report.failure == f"ply {i}: the signature does not verify under seat 1's custodial key", report.text()
    # a mail move signed by the server's custodial key cannot pass for the player's: dropping the
    # custody mark from the header changes the chain's genesis
    record = copy.deepcopy(finished)
    del record["header"]["seats"][1]["custody"]
    report = verify_record(record)
    assert not report.ok and report.failure is not None and report.failure.startswith("ply 0: prev is not the hash")


def test_the_published_vectors_are_the_bodies_the_code_signs() -> None:
    """docs/signing.md's mail vectors are exactly what service.proof.delegation builds, so
    another implementation can sign a delegation from the documentation alone."""
    import json
    from pathlib import Path

    from service.proof.delegation import delegation_body, seat_key_body, withdrawal_body

    vectors = {v["name"]: v for v in json.loads((Path(__file__).parent.parent / "docs" / "signing-vectors.json")
                                                .read_text(encoding="utf-8"))["vectors"]}
    d, w, k = vectors["mail-delegation"]["object"], vectors["mail-withdrawal"]["object"], vectors["seat-key"]["object"]
    assert d == delegation_body(d["match"], d["seat"], d["mail_key"])
    assert w == withdrawal_body(w["match"], w["seat"], w["mail_key"])
    assert k == seat_key_body(k["match"], k["seat"], k["public_key"], k["from_ply"])
    assert signing.verify(vectors["mail-delegation"]["public_key"], d, vectors["mail-delegation"]["signature"])


def test_a_finished_match_with_a_key_change_verifies_offline(service: Matches, players: list[Player],
                                                             tmp_path: Any) -> None:
    """Cid joined by mail (custodial), moved by mail, then attached his own key and finished the
    match with signed envelopes; Ana moved by mail throughout. ``portolan verify`` (a real
    subprocess, no server) accepts the record and says what the custodial plies are worth."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    from service.play.seats.key_attach import attach_key
    from service.proof.delegation import seat_key_body

    cid = players[2]
    mid = two_player_match(service, players)
    play_by_mail(service, mid, moves=4)
    ply = service.meta(mid).ply
    attach_key(service, mid, 1, service.attach_token(mid, 1), cid.public_key, ply,
               signing.sign(cid.private_key, seat_key_body(mid, 1, cid.public_key, ply)))
    for n in range(10_000):
        meta = service.meta(mid)
        if meta.status != "active":
            break
        seat = meta.active[0]
        action = service.view(mid, seat)["legal_actions"][-1]["action"]
        if seat == 1:
            service.submit(mid, **cid.envelope(mid, 1, meta.ply, [action], nonce=f"c{n}"))
        else:
            service.submit_by_mail(mid, 0, meta.ply, [action],
                                   message_digest=hashlib.sha256(f"ana {n}".encode()).hexdigest())
    record = service.record(mid)
    assert record["status"] == "finished" and record["key_changes"][0]["from_ply"] == ply
    assert {e["by"] for e in record["entries"] if e["seat"] == 1 and e["ply"] >= ply} <= {"human"}
    path = Path(tmp_path) / "record.json"
    path.write_text(json.dumps(record))
    run = subprocess.run([sys.executable, "-m", "service.tools.cli", "verify", str(path)], capture_output=True, text=True,
                         env={"PORTOLAN_PLUGINS": "tests.helpers.fixture_game", "PATH": ""}, cwd=Path(__file__).parent.parent)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"seat 1 is custodial: its moves are signed by a key the server holds until ply {ply}" in run.stdout
    assert "record verified" in run.stdout and "outcome reproduced" in run.stdout
