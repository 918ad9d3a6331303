"""The CLI of moves by mail against a real server: ``portolan claim`` delegates by default and
says so (``--no-mail`` does not), ``portolan mail-delegation`` withdraws and grants, and
``portolan attach-key`` hands a custodial seat to the user's own key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from service.play.matches import Matches
from service.proof import signing
from service.proof.verify import verify_record
from service.tools.cli.common import load_key
from service.tools.cli.main import main
from tests.conftest import CREATOR_KEY


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PORTOLAN_HOME", str(tmp_path))
    return tmp_path


def invited(service: Matches) -> tuple[str, str]:
    made = service.create("harbour-race", {"target": 100}, [{"invite": "ana@example.org"}, {"bot": "random"}],
                          creator_key=CREATOR_KEY)
    return str(made["id"]), str(made["invites"]["0"])


def test_claim_delegates_by_default_and_the_delegation_can_be_withdrawn_and_granted(
        served: str, service: Matches, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mid, token = invited(service)
    assert main(["--server", served, "claim", mid, "0", token, "--name", "Ana"]) == 0
    said = capsys.readouterr().out
    assert "your key signed a mail delegation" in said and f"portolan mail-delegation {mid} --seat 0 withdraw" in said
    row = service.meta(mid).seats[0]
    key = load_key("default")
    assert row.public_key == signing.public_key_of(key)
    assert row.mail_key == service.mail_public_key(mid, 0, 0)
    assert signing.verify(row.public_key, service.delegation_body(mid, 0, row.mail_key), row.mail_delegation)

    assert main(["--server", served, "mail-delegation", mid, "withdraw"]) == 0  # the seat remembered by claim
    assert "mail delegation withdrawn" in capsys.readouterr().out
    assert service.mail_ready(service.meta(mid), 0) is not None
    assert main(["--server", served, "mail-delegation", mid, "withdraw"]) == 2
    assert "no-mail-delegation" in capsys.readouterr().err
    assert main(["--server", served, "mail-delegation", mid, "grant"]) == 0
    assert "mail delegation granted" in capsys.readouterr().out
    row = service.meta(mid).seats[0]
    assert row.mail_generation == 1 and row.mail_key == service.mail_public_key(mid, 0, 1)
    assert verify_record(service.record(mid)).ok


def test_claim_with_no_mail_does_not_delegate(served: str, service: Matches, home: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    mid, token = invited(service)
    assert main(["--server", served, "claim", mid, "0", token, "--name", "Ana", "--no-mail"]) == 0
    assert "moves by mail: off (--no-mail)" in capsys.readouterr().out
    assert service.meta(mid).seats[0].mail_delegation == ""


def test_attach_key_hands_a_custodial_seat_to_the_users_key(served: str, service: Matches, home: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    mid, _ = invited(service)
    service.join_by_mail(mid, 0, "Ana", "ana@example.org")
    token = service.attach_token(mid, 0)
    # hex, so it never starts with a dash (argparse took a token_urlsafe one for an option)
    assert re.fullmatch(r"[0-9a-f]{32}", token)
    assert main(["--server", served, "attach-key", mid, "--seat", "0", "--token", "not-it"]) == 2
    assert "bad-attach-token" in capsys.readouterr().err
    assert service.meta(mid).seats[0].custody == "server"
    assert main(["--server", served, "attach-key", mid, "--seat", "0", "--token", token]) == 0
    assert "now signs with your key 'default'" in capsys.readouterr().out
    row = service.meta(mid).seats[0]
    assert row.custody == "player" and row.public_key == signing.public_key_of(load_key("default"))
    report = verify_record(service.record(mid))
    assert report.ok, report.text()
