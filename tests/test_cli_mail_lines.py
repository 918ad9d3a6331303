"""``portolan create`` prints what to forward to a friend, ``claim`` how notices come and how to
answer them, ``notices`` sets the preference: against a real server over HTTP, and every line
printed runs on another machine (it carries ``--server``)."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest

from service.config import Settings
from service.storage.connection import connect
from service.storage.preferences import NoticePreferences
from service.tools.cli.main import main


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PORTOLAN_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PORTOLAN_URL", raising=False)
    return tmp_path / "home"


def lines_with(printed: str, start: str) -> list[list[str]]:
    return [shlex.split(ln.strip()) for ln in printed.splitlines() if ln.strip().startswith(start)]


def test_create_claim_and_notices_print_lines_that_work_elsewhere(served: str, home: Path, service: Any,
                                                                  settings: Settings,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--server", served, "create", "harbour-race", "--invite", "zoe@example.org",
                     "--invite", "bea@example.org", "--name", "Zoë"]) == 0
    printed = capsys.readouterr().out
    claims = lines_with(printed, "portolan claim")
    assert len(claims) == 2 and "join Their Name" in printed
    first = claims[0]
    mid = first[2]
    assert service.meta(mid).creator_name == "Zoë"
    assert first[first.index("--server") + 1] == served and first[first.index("--email") + 1] == "zoe@example.org"
    assert f"invite token {first[4]}" in printed
    [abort] = lines_with(printed, "created by")  # the abort hint names the server too
    assert served in " ".join(abort)

    # the friend pastes the forwarded line (with their name), on their machine: no PORTOLAN_URL there
    friend = [w if w != "Their name" else "Zoë" for w in first[1:]]
    assert main(friend) == 0
    printed = capsys.readouterr().out
    assert f"seat 0 of match {mid} is yours" in printed
    assert "Turn notices go to zoe@example.org" in printed and "replying" in printed
    line = shlex.split(printed.split("A daily digest instead, or no mail: ")[1].splitlines()[0])
    assert line[:3] == ["portolan", "notices", "digest"] and line[line.index("--server") + 1] == served

    # that very line sets the preference the jobs read
    assert main(line[1:]) == 0
    assert "notices for zoe@example.org: digest" in capsys.readouterr().out
    assert NoticePreferences(connect(settings.redis_url), settings.namespace).get("zoe@example.org") == "digest"
    assert main(["notices", "--email", "zoe@example.org", "--server", served]) == 0
    assert "digest (one mail a day" in capsys.readouterr().out
    # another key may not
    assert main(["keygen", "--key", "other"]) == 0
    assert main(["notices", "off", "--email", "zoe@example.org", "--key", "other", "--server", served]) == 2
    assert "not-your-address" in capsys.readouterr().err


def test_claim_without_an_email_says_there_will_be_no_notices(served: str, home: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--server", served, "create", "harbour-race", "--invite", "zoe@example.org", "--bot", "random"]) == 0
    [claim] = lines_with(capsys.readouterr().out, "portolan claim")
    words = [*claim[1:claim.index("--email")], "--server", served]
    words[words.index("Their name")] = "Zoë"
    assert main(words) == 0
    printed = capsys.readouterr().out
    assert "no turn notices" in printed and "portolan my-turns --server" in printed
