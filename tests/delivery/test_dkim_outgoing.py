"""Outgoing mail DKIM-signed with PORTOLAN_DKIM_KEY (service.delivery.dkim_sign), RSA and Ed25519,
verified by dkimpy against the key's own TXT record through an injected DNS lookup (no network):
the outbox file and the bytes a real SMTP server received; ``portolan dkim keygen`` and ``check``."""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import dkim
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from service.config import Settings
from service.delivery import dkim_sign
from service.delivery.dkim_sign import DkimKeyError
from service.delivery.mail import Mail, deliver
from service.tools.cli.main import main
from tests.conftest import Player, as_in_a_worker, smtp_server
from tests.helpers.notices import notice, raw_mail

SENDER = "Portolan <turns@example.org>"
NAME = "portolan._domainkey.example.org."


@pytest.fixture(scope="module", params=["rsa", "ed25519"])
def key_file(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A private key of each type in a PEM file; (its path, its TXT record)."""
    path = tmp_path_factory.mktemp("dkim") / f"{request.param}.pem"
    path.write_bytes(dkim_sign.generate(request.param))
    return str(path), dkim_sign.load(str(path), "portolan", "example.org").record()


def dns(records: dict[str, str]) -> Callable[..., bytes | None]:
    """dkimpy's ``dnsfunc``: TXT answers from ``records``, nothing else."""

    def txt(name: bytes, timeout: float = 5) -> bytes | None:
        found = records.get(name.decode())
        return found.encode() if found is not None else None

    return txt


def signed_settings(settings: Settings, key: str) -> Settings:
    return dataclasses.replace(settings, mail_from=SENDER, dkim_key=key)


def mail(**changes: Any) -> Mail:
    base = Mail(to="zoe@example.org", subject="[Portolan] Your turn, Zoë", text="Hello Zoë,\n\n1. Sail east\n",
                html="<p>Hello Zoë</p><ol><li>Sail east</li></ol>", key="notice:m1:0:3",
                reply_to="turns+t-m1-0-3-abc@example.org",
                headers=(("List-Unsubscribe", "<mailto:turns+o@example.org?subject=stop%20notices>"),))
    return dataclasses.replace(base, **changes)


def signature_tags(raw: bytes) -> dict[str, str]:
    header = raw.split(b"\n\n", 1)[0].replace(b"\r\n", b"\n").decode()
    found = re.search(r"^DKIM-Signature:(.*?)(?=^\S)", header + "\nX:", re.S | re.M)
    assert found is not None, "no DKIM-Signature"
    tags = (t.split("=", 1) for t in re.sub(r"\s+", "", found.group(1)).split(";") if t)
    return {k: v for k, v in tags}


def test_the_outbox_file_is_signed_and_verifies(settings: Settings, key_file: tuple[str, str]) -> None:
    path, record = key_file
    raw = Path(deliver(signed_settings(settings, path), mail())).read_bytes()
    assert raw.startswith(b"DKIM-Signature: ")
    assert dkim.verify(raw, dnsfunc=dns({NAME: record}))
    tags = signature_tags(raw)
    assert tags["d"] == "example.org" and tags["s"] == "portolan" and tags["c"] == "relaxed/relaxed"
    assert tags["a"] == ("rsa-sha256" if "k=rsa" in record else "ed25519-sha256")
    signed = tags["h"].split(":")
    for header in ("from", "to", "subject", "date", "message-id", "reply-to", "mime-version", "content-type",
                   "list-unsubscribe", "auto-submitted"):
        assert header in signed


def test_a_tampered_mail_or_another_key_fails(settings: Settings, key_file: tuple[str, str]) -> None:
    path, record = key_file
    raw = Path(deliver(signed_settings(settings, path), mail())).read_bytes()
    assert not dkim.verify(raw.replace(b"Sail east", b"Sail west"), dnsfunc=dns({NAME: record}))
    assert not dkim.verify(raw.replace(b"stop%20notices", b"start"), dnsfunc=dns({NAME: record}))
    other = dkim_sign.from_pem(dkim_sign.generate("rsa" if "k=rsa" in record else "ed25519"), "portolan",
                               "example.org").record()
    assert not dkim.verify(raw, dnsfunc=dns({NAME: other}))
    assert not dkim.verify(raw, dnsfunc=dns({}))


@pytest.fixture
def raw_sink() -> Iterator[tuple[str, list[bytes]]]:
    """A real SMTP server (aiosmtpd) keeping the bytes of each message exactly as received."""
    received: list[bytes] = []

    class Handler:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            received.append(bytes(envelope.original_content or envelope.content))
            return "250 OK"

    with smtp_server(Handler()) as url:
        yield url, received


def test_the_bytes_an_smtp_server_receives_verify(settings: Settings, key_file: tuple[str, str],
                                                   raw_sink: tuple[str, list[bytes]]) -> None:
    path, record = key_file
    url, received = raw_sink
    deliver(dataclasses.replace(signed_settings(settings, path), smtp_url=url), mail())
    [raw] = received
    assert raw.startswith(b"DKIM-Signature: ") and b"\r\n" in raw
    assert "Hello Zoë".encode() in raw  # 8-bit, as before the signature
    assert dkim.verify(raw, dnsfunc=dns({NAME: record}))
    assert not dkim.verify(raw.replace(b"Sail east", b"Sail west"), dnsfunc=dns({NAME: record}))


def test_a_turn_notice_sent_by_the_job_is_signed(outbox_settings: Settings, players: list[Player],
                                                  key_file: tuple[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    path, record = key_file
    as_in_a_worker(monkeypatch, {"PORTOLAN_DKIM_KEY": path, "MAIL_FROM": SENDER})
    s = Settings.from_env()
    _, _, mid, seat, ply = notice(s, players)
    raw = raw_mail(s, f"notice:{mid}:{seat}:{ply}")
    assert dkim.verify(raw, dnsfunc=dns({NAME: record}))


def test_without_the_setting_mail_is_not_signed(settings: Settings) -> None:
    assert b"DKIM-Signature" not in Path(deliver(dataclasses.replace(settings, mail_from=SENDER), mail())).read_bytes()


def unusable_keys(tmp: Path) -> dict[str, str]:
    ec_pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    (tmp / "ec.pem").write_bytes(ec_pem)
    (tmp / "junk.pem").write_text("-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n")
    return {"missing": str(tmp / "none.pem"), "junk": str(tmp / "junk.pem"), "ec": str(tmp / "ec.pem")}


@pytest.mark.parametrize("which", ["missing", "junk", "ec"])
def test_an_unusable_key_fails_clearly_and_writes_nothing(settings: Settings, tmp_path: Path, which: str) -> None:
    key = unusable_keys(tmp_path)[which]
    with pytest.raises(DkimKeyError, match=f"PORTOLAN_DKIM_KEY={re.escape(key)}"):
        deliver(signed_settings(settings, key), mail())
    assert not list(Path(settings.outbox_dir).glob("*.eml"))


def test_a_worker_with_an_unusable_key_stops_as_it_starts(settings: Settings, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    key = unusable_keys(tmp_path)["junk"]
    monkeypatch.setenv("REDIS_URL", settings.redis_url)
    monkeypatch.setenv("PORTOLAN_NS", settings.namespace)
    monkeypatch.setenv("PORTOLAN_DKIM_KEY", key)
    with pytest.raises(SystemExit) as stopped:
        main(["worker", "--burst"])
    assert str(stopped.value).startswith("portolan worker: PORTOLAN_DKIM_KEY=")


def test_keygen_writes_a_private_key_and_prints_a_record_that_verifies(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        settings: Settings) -> None:
    monkeypatch.setenv("MAIL_FROM", SENDER)
    monkeypatch.delenv("PORTOLAN_DKIM_SELECTOR", raising=False)
    for kind in ("rsa", "ed25519"):
        out = tmp_path / f"{kind}.pem"
        assert main(["dkim", "keygen", "--type", kind, "--out", str(out)]) == 0
        assert os.stat(out).st_mode & 0o777 == 0o600
        printed = capsys.readouterr().out
        line = next(li for li in printed.splitlines() if li.startswith(NAME))
        record = "".join(re.findall(r'"([^"]*)"', line))
        assert record.startswith(f"v=DKIM1; k={kind}; p=")
        raw = Path(deliver(signed_settings(settings, str(out)), mail())).read_bytes()
        assert dkim.verify(raw, dnsfunc=dns({NAME: record}))
    assert main(["--json", "dkim", "keygen", "--out", str(tmp_path / "x.pem"), "--selector", "s2026",
                 "--domain", "mail.example.net"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["name"] == "s2026._domainkey.mail.example.net." and said["type"] == "rsa"  # RSA: the default


def test_keygen_refuses_to_overwrite_unless_forced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAIL_FROM", SENDER)
    out = tmp_path / "k.pem"
    out.write_text("the key in use")
    with pytest.raises(SystemExit, match="exists"):
        main(["dkim", "keygen", "--type", "ed25519", "--out", str(out)])
    assert out.read_text() == "the key in use"
    os.chmod(out, 0o644)
    assert main(["dkim", "keygen", "--type", "ed25519", "--out", str(out), "--force"]) == 0
    assert b"PRIVATE KEY" in out.read_bytes() and os.stat(out).st_mode & 0o777 == 0o600


def test_keygen_needs_a_real_domain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MAIL_FROM", raising=False)
    with pytest.raises(SystemExit, match="MAIL_FROM"):
        main(["dkim", "keygen", "--out", str(tmp_path / "k.pem")])
    assert not (tmp_path / "k.pem").exists()


def test_check_prints_the_record_of_the_configured_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str],
                                                       key_file: tuple[str, str]) -> None:
    path, record = key_file
    monkeypatch.setenv("MAIL_FROM", SENDER)
    monkeypatch.setenv("PORTOLAN_DKIM_KEY", path)
    assert main(["dkim", "check"]) == 0
    assert f'"{record[:200]}' in capsys.readouterr().out
    monkeypatch.setenv("PORTOLAN_DKIM_KEY", unusable_keys(tmp_path)["junk"])
    with pytest.raises(SystemExit, match="PORTOLAN_DKIM_KEY="):
        main(["dkim", "check"])
    monkeypatch.delenv("PORTOLAN_DKIM_KEY")
    with pytest.raises(SystemExit, match="not set"):
        main(["dkim", "check"])


def test_a_bad_selector_stops_the_process_at_start() -> None:
    with pytest.raises(ValueError, match="PORTOLAN_DKIM_SELECTOR"):
        Settings.from_env({"PORTOLAN_DKIM_SELECTOR": "no spaces"})
    assert Settings.from_env({"PORTOLAN_DKIM_SELECTOR": "mail-2026.eu"}).dkim_selector == "mail-2026.eu"
