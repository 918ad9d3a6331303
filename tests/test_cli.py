"""The CLI's argument handling and its local key store (no server needed)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from service.tools.cli import common, matches
from service.tools.cli.main import main


def test_move_takes_actions_before_and_after_options(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = {}

    def fake_move(args: object) -> int:
        seen["actions"] = args.actions  # type: ignore[attr-defined]
        seen["ply"] = args.ply  # type: ignore[attr-defined]
        return 0

    monkeypatch.setattr(matches, "cmd_move", fake_move)
    assert main(["move", "m1", "--ply", "3", '{"type":"end-turn"}']) == 0
    assert seen == {"actions": ['{"type":"end-turn"}'], "ply": 3}
    assert main(["move", "m1", '{"type":"a"}', "--ply", "4", '{"type":"b"}']) == 0
    assert seen == {"actions": ['{"type":"a"}', '{"type":"b"}'], "ply": 4}
    with pytest.raises(SystemExit):
        main(["show", "m1", "--bogus"])


def test_keygen_writes_a_private_key_readable_only_by_its_owner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PORTOLAN_HOME", str(tmp_path))
    assert main(["keygen", "--key", "me"]) == 0
    path = tmp_path / "keys" / "me.key"
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    first = path.read_text()
    assert main(["keygen", "--key", "me"]) == 0  # never overwrites without --force
    assert path.read_text() == first and "exists" in capsys.readouterr().out
    common.remember_seat("m1", 2, "me")
    assert oct(os.stat(tmp_path / "seats.json").st_mode & 0o777) == "0o600"
    assert common.remembered_seats() == {"m1": {"seat": 2, "key": "me"}}


def test_an_unreachable_server_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    from service.storage.embedded import free_port

    assert main(["--server", f"http://127.0.0.1:{free_port()}", "show", "m1"]) == 3
    assert "cannot reach the Portolan server" in capsys.readouterr().err


@pytest.mark.parametrize(("argument", "says"), [
    ("[" * 5000 + "]" * 5000, "deeper than"),
    ('{"type": "x", "n": ' + "9" * 5000 + "}", "not JSON"),
    ('{"type": "x", "n": "a\\u0000b"}', "NUL"),
    ("[1]", "JSON object"),
    ("not json", "not JSON"),
])
def test_move_refuses_a_hostile_action_argument_with_a_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                argument: str, says: str) -> None:
    """Found by the second outside test: an action argument nested 5000 deep, or with a
    5000-digit number, made ``portolan move`` die with a Python traceback. It now says what is
    wrong (the server's own bounds), before anything is signed or sent."""
    monkeypatch.setenv("PORTOLAN_HOME", str(tmp_path))
    monkeypatch.setenv("PORTOLAN_URL", "http://127.0.0.1:9")  # nothing listens: nothing may be sent
    assert main(["keygen"]) == 0
    with pytest.raises(SystemExit) as exc:
        main(["move", "m1", "--seat", "0", argument])
    assert isinstance(exc.value.code, str) and says in exc.value.code and "Traceback" not in exc.value.code


def test_create_refuses_an_option_nested_too_deep_and_keeps_plain_words(monkeypatch: pytest.MonkeyPatch,
                                                                        tmp_path: Path) -> None:
    monkeypatch.setenv("PORTOLAN_HOME", str(tmp_path))
    monkeypatch.setenv("PORTOLAN_URL", "http://127.0.0.1:9")
    with pytest.raises(SystemExit) as exc:
        main(["create", "ophir", "--bot", "random", "--bot", "random", "--option", "x=" + "[" * 5000 + "]" * 5000])
    assert isinstance(exc.value.code, str) and "deeper than" in exc.value.code
    assert matches._option_value("barriers", "random") == "random"
    assert matches._option_value("expansions", '["porto"]') == ["porto"]
