"""The CLI's argument handling and its local key store (no server needed)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from service.tools import cli


def test_move_takes_actions_before_and_after_options(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = {}

    def fake_move(args: object) -> int:
        seen["actions"] = args.actions  # type: ignore[attr-defined]
        seen["ply"] = args.ply  # type: ignore[attr-defined]
        return 0

    monkeypatch.setattr(cli, "cmd_move", fake_move)
    assert cli.main(["move", "m1", "--ply", "3", '{"type":"end-turn"}']) == 0
    assert seen == {"actions": ['{"type":"end-turn"}'], "ply": 3}
    assert cli.main(["move", "m1", '{"type":"a"}', "--ply", "4", '{"type":"b"}']) == 0
    assert seen == {"actions": ['{"type":"a"}', '{"type":"b"}'], "ply": 4}
    with pytest.raises(SystemExit):
        cli.main(["show", "m1", "--bogus"])


def test_keygen_writes_a_private_key_readable_only_by_its_owner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PORTOLAN_HOME", str(tmp_path))
    assert cli.main(["keygen", "--key", "me"]) == 0
    path = tmp_path / "keys" / "me.key"
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    first = path.read_text()
    assert cli.main(["keygen", "--key", "me"]) == 0  # never overwrites without --force
    assert path.read_text() == first and "exists" in capsys.readouterr().out
    cli.remember_seat("m1", 2, "me")
    assert oct(os.stat(tmp_path / "seats.json").st_mode & 0o777) == "0o600"
    assert cli.remembered_seats() == {"m1": {"seat": 2, "key": "me"}}


def test_an_unreachable_server_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    from service.storage.embedded import free_port

    assert cli.main(["--server", f"http://127.0.0.1:{free_port()}", "show", "m1"]) == 3
    assert "cannot reach the Portolan server" in capsys.readouterr().err
