"""The ``portolan`` command in the player's language (issue 29): ``--lang``, else ``PORTOLAN_LANG``,
else the POSIX locale, else English; Hungarian lines as a player reads them, no English word left in
the CLI's own words, the language asked of the server (``Accept-Language``), English as before."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.play.mail import match_words
from service.tools.cli import common, matches
from service.tools.cli import time_control as tc
from service.tools.cli.main import main
from service.tools.client import Client
from tests.helpers.untranslated import english_words

LOCALE = ("PORTOLAN_LANG", "LC_ALL", "LC_MESSAGES", "LANG")

# Words a Hungarian line may hold: names (of people, games, the program), the commands and their
# flags and machine values a player types as they are, and the mail commands the desk reads in English.
ALLOW = ("Ana", "Bea", "Zoe", "Portolan", "portolan", "harbour", "race", "example", "org", "server", "claim",
         "actions", "move", "pick", "show", "abort", "resign", "back", "email", "name", "seat", "key", "default",
         "notices", "digest", "mail", "delegation", "withdraw", "grant", "token", "join")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("PORTOLAN_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PORTOLAN_URL", raising=False)
    for name in LOCALE:
        monkeypatch.delenv(name, raising=False)
    yield tmp_path / "home"
    common.set_language("en")  # main() sets the process's language: leave it as the other tests expect


# -- choosing the language ---------------------------------------------------------------------------


@pytest.mark.parametrize(("given", "env", "want"), [
    (None, {}, "en"),
    ("hu", {"PORTOLAN_LANG": "en", "LANG": "en_US.UTF-8"}, "hu"),
    ("en", {"PORTOLAN_LANG": "hu"}, "en"),
    (None, {"PORTOLAN_LANG": "magyar", "LANG": "en_GB.UTF-8"}, "hu"),
    (None, {"PORTOLAN_LANG": "klingon", "LANG": "hu_HU.UTF-8"}, "hu"),  # a language we do not speak is passed over
    (None, {"LANG": "hu_HU.UTF-8"}, "hu"),
    (None, {"LANG": "hu_HU@euro"}, "hu"),
    (None, {"LC_ALL": "C.UTF-8", "LANG": "hu_HU.UTF-8"}, "en"),  # LC_ALL decides, and C is English
    (None, {"LC_MESSAGES": "hu_HU.UTF-8", "LANG": "en_US.UTF-8"}, "hu"),
    (None, {"LC_ALL": "", "LANG": "de_DE.UTF-8"}, "en"),  # an empty variable is unset; German is not spoken
])
def test_the_language_is_the_flag_then_portolan_lang_then_the_locale(given: str | None, env: dict[str, str],
                                                                      want: str) -> None:
    assert common.choose_language(given, env) == want


def test_a_bad_lang_flag_is_refused_by_the_parser(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--lang", "klingon", "keygen"])
    assert exc.value.code == 2 and "unknown language 'klingon' (en or hu)" in capsys.readouterr().err


def test_the_posix_locale_picks_hungarian(home: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("LANG", "hu_HU.UTF-8")
    assert main(["keygen", "--key", "me"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith(f"új kulcs: 'me', helye: {home / 'keys' / 'me.key'} (0600-s jogosultság)\nnyilvános kulcs: ")
    monkeypatch.setenv("PORTOLAN_LANG", "en")  # PORTOLAN_LANG comes before the locale
    assert main(["keygen", "--key", "me"]) == 0
    assert capsys.readouterr().out.startswith("key 'me' exists (")


def test_the_client_asks_the_server_for_the_language() -> None:
    sent: list[dict[str, str]] = []

    class Answer:
        status_code, headers = 200, {"Portolan-Now": "2026-12-05T12:00:00Z"}

        def json(self) -> dict[str, Any]:
            return {"ok": True}

    class Session:
        def request(self, method: str, url: str, **kw: Any) -> Answer:
            sent.append(dict(kw["headers"] or {}))
            return Answer()

    Client("http://x", session=Session(), language="hu").health()  # type: ignore[arg-type]
    Client("http://x", session=Session()).health()  # type: ignore[arg-type]
    assert sent == [{"Accept-Language": "hu"}, {}]


# -- the words -------------------------------------------------------------------------------------------


def test_hungarian_words_of_the_clock_and_the_votes() -> None:
    assert tc.duration_text(2 * 86400 + 3 * 3600 + 59, "hu") == "2 nap 3 óra"
    assert tc.duration_text(59, "hu") == "0 perc"
    assert tc.time_control_text({"kind": "per-move", "days": 3, "weekends": False}, "hu") == \
        "lépésenként 3 nap (a hétvége nem számít)"
    assert tc.policy_text({"policy": "stand-in", "grace_hours": 24}, "hu") == \
        "a késő hely helyett helyettes robot játszik, 24 órával a határideje után"
    assert tc.when_text("2026-12-04T12:00:00Z", "hu") == "2026. dec. 4. 12:00 UTC"
    assert matches.votes_needed_text([2], "hu") == "1 szavazat (hely: 2)"
    assert matches.votes_needed_text([0, 1, 3], "hu") == "3 szavazat (helyek: 0, 1 és 3)"


@pytest.mark.parametrize("waiting", [[2], [0, 2], [0, 1, 3]])
def test_english_votes_read_as_the_mail_desk_writes_them(waiting: list[int]) -> None:
    assert matches.votes_needed_text(waiting, "en") == match_words.votes_needed_text(waiting)


def test_resign_takes_igen_for_yes_in_hungarian(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        common.set_language("hu")
        for answer, want in (("igen\n", True), ("yes\n", True), ("nem\n", False), ("\n", False)):
            monkeypatch.setattr("sys.stdin", io.StringIO(answer))
            assert matches.confirmed("?") is want
        common.set_language("en")
        monkeypatch.setattr("sys.stdin", io.StringIO("igen\n"))
        assert matches.confirmed("?") is False
    finally:
        common.set_language("en")


# -- against a served app ---------------------------------------------------------------------------------


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 0, capsys.readouterr()
    return capsys.readouterr().out


def test_a_match_from_the_terminal_in_hungarian(served: str, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for key in ("default", "ana", "bea"):  # made here, so that no key's path (the test's folder) is in the output
        _run(["keygen", "--key", key], capsys)
    printed = _run(["--lang", "hu", "--server", served, "create", "harbour-race", "--invite", "zoe@example.org",
                    "--invite", "bea@example.org", "--name", "Zoe"], capsys)
    lines = printed.splitlines()
    mid = lines[0].split()[3]
    assert lines[0] == f"létrejött a játszma: {mid} (harbour-race), állapota: játékosokra vár"
    assert lines[2] == "óra: nincs időkorlát; a késő hely helyett helyettes robot játszik, 24 órával a határideje után"
    assert "Ha a levél nem érkezik meg, küldd tovább neki a helye sorait:" in printed
    assert english_words(printed, allow=ALLOW) == []
    claims = [ln.split() for ln in lines if ln.strip().startswith("portolan claim")]
    assert [c[c.index("--name") + 1:c.index("--name") + 3] for c in claims] == [["'A", "neve'"]] * 2

    for seat, (name, email) in enumerate((("Ana", "zoe@example.org"), ("Bea", "bea@example.org"))):
        token = claims[seat][claims[seat].index(mid) + 2]
        printed = _run(["--server", served, "claim", mid, str(seat), token, "--name", name, "--email", email,
                        "--key", name.lower(), "--lang", "hu"], capsys)
        assert printed.startswith(f"tiéd a hely {seat} ebben a játszmában: {mid}; a játszma állapota: ")
        assert f"A lépésértesítők ide mennek: {email}." in printed
        assert english_words(printed, allow=ALLOW) == []

    view = json.loads(_run(["--server", served, "--json", "show", mid], capsys))
    [first] = view["active_seats"]  # who begins is the seed's choice
    keys, names = ["ana", "bea"], ["Ana", "Bea"]
    shown = _run(["--server", served, "--lang", "hu", "show", mid], capsys)
    assert shown.splitlines()[:3] == [f"Játszma {mid} · harbour-race · folyik · lépés: 0", "Helyek: 0=Ana, 1=Bea",
                                      f"Lépni következik: hely {first} ({names[first]})"]
    # the board's text is the server's (the game's catalog): the CLI's own words are scanned here
    own = "\n".join(ln for ln in shown.splitlines() if ln not in (view.get("text") or "").splitlines())
    assert english_words(own, allow=ALLOW) == []

    # a signed view, asked in Hungarian (Accept-Language is no part of the signature)
    mine = _run(["--server", served, "--lang", "hu", "show", mid, "--seat", str(first), "--key", keys[first]], capsys)
    assert "Szabályos lépéseid (" in mine and f"): portolan actions {mid}" in mine
    listed = _run(["--server", served, "--lang", "hu", "actions", mid, "--seat", str(1 - first), "--key",
                   keys[1 - first]], capsys)
    assert listed == f"hely {1 - first}: most nem kell lépned (lépni következik: [{first}])\n"
    moved = _run(["--server", served, "--lang", "hu", "move", mid, "--seat", str(first), "--key", keys[first],
                  "--pick", "1"], capsys)
    assert moved.splitlines()[-1].startswith("elfogadva, lépés: 0; a játszma most itt tart: lépés 1 (")
    logged = _run(["--server", served, "--lang", "hu", "log", mid], capsys)
    assert logged.splitlines()[0].startswith(f"   0 hely {first} (human) ")
    assert logged.splitlines()[-1].startswith("a lánc feje: ")
    assert _run(["--lang", "hu", "--server", served, "my-turns"], capsys) == "egy játszma sem vár rád\n"


def test_english_is_the_default_and_what_it_was(served: str, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _run(["keygen"], capsys)
    printed = _run(["--server", served, "create", "harbour-race", "--invite", "zoe@example.org", "--bot", "random"],
                   capsys)
    mid = printed.split()[1]
    assert printed.splitlines()[:3] == [f"match {mid} (harbour-race) created, status waiting",
                                        printed.splitlines()[1],
                                        "clock: no time control; a stand-in bot plays a late seat, 24 h after its deadline"]
    assert "forward them their seat's lines:" in printed and "  seat 0 (zoe@example.org): invite token " in printed
    assert _run(["--server", served, "--lang", "en", "show", mid], capsys) == _run(["--server", served, "show", mid],
                                                                                   capsys)
    shown = _run(["--server", served, "show", mid], capsys)
    assert shown.splitlines()[:3] == [f"Match {mid} · harbour-race · waiting · ply 0", "Seats: 0=human, 1=random bot",
                                      "Open seats: [0]"]


VIEW: dict[str, Any] = {
    "id": "pu8c9jbkr6mq", "game": "el_capitan", "status": "active", "ply": 12, "open_seats": [], "head": "9f2c",
    "seats": [{"seat": 0, "name": "Ana", "kind": "human"}, {"seat": 1, "name": "", "kind": "bot"}],
    "active_seats": [0], "outcome": None, "legal_actions": [{}, {}],
    "match_actions": [{"action": {"type": "match:resign"}}, {"action": {"type": "match:abort"}}],
    "clock": {"time_control": {"kind": "per-move", "days": 3},
              "timeout_policy": {"policy": "stand-in", "grace_hours": 24},
              "seats": [{"seat": 0, "running": True, "deadline": "2026-12-08T12:00:00Z", "controller": "player"},
                        {"seat": 1, "controller": "bot"}]},
}


def test_the_view_page_in_hungarian_and_in_english() -> None:
    hu = matches.render_view(VIEW, "2026-12-05T17:00:00Z", "hu")
    assert hu.splitlines() == [
        "Játszma pu8c9jbkr6mq · el_capitan · folyik · lépés: 12",
        "Helyek: 0=Ana, 1=robot",
        "Lépni következik: hely 0 (Ana)",
        "Óra: lépésenként 3 nap; a késő hely helyett helyettes robot játszik, 24 órával a határideje után",
        "  hely 0 (Ana): lépnie kell, hátravan: 2 nap 19 óra, határidő: 2026. dec. 8. 12:00 UTC",
        "  hely 1 (robot, helyette játszik: egy robot)",
        "",
        "Szabályos lépéseid (2): portolan actions pu8c9jbkr6mq",
        "Vagy: portolan resign pu8c9jbkr6mq, portolan abort pu8c9jbkr6mq",
        "A lánc feje: 9f2c",
    ]
    assert english_words(hu, allow=ALLOW) == []
    en = matches.render_view(VIEW, "2026-12-05T17:00:00Z", "en")
    assert en.splitlines()[:6] == [
        "Match pu8c9jbkr6mq · el_capitan · active · ply 12", "Seats: 0=Ana, 1=bot", "To act: seat 0 (Ana)",
        "Clock: 3 days per move; a stand-in bot plays a late seat, 24 h after its deadline",
        "  seat 0 (Ana): to act, 2d 19h left, deadline 2026-12-08 12:00 UTC", "  seat 1 (bot, played by a bot)"]
    assert english_words(en, allow=ALLOW)  # the scan finds English where there is some


def test_webhooks_and_vacations_in_hungarian(served: str, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _run(["keygen"], capsys)
    assert _run(["--server", served, "--lang", "hu", "webhook", "list"], capsys) == "nincs webhook\n"
    assert _run(["--server", served, "webhook", "list"], capsys) == "no webhooks\n"
    listed = _run(["--server", served, "--lang", "hu", "vacation", "list"], capsys)
    assert listed.startswith("nincs bejelentett szabadság\n") and " szabadság maradt erre az évre: " in listed
    assert english_words(listed, allow=ALLOW) == []


def test_a_bad_clock_flag_is_refused_in_hungarian() -> None:
    try:
        common.set_language("hu")
        with pytest.raises(SystemExit) as exc:
            tc.parse_time_control("bank:x")
        assert exc.value.code == "--time-control: a kezdő időbank a napok száma, nem ez: 'x'"
        with pytest.raises(SystemExit) as exc:
            tc.parse_reminders("half,later")
        assert exc.value.code == "a --reminders egy lista, például half,24 (\"half\" vagy a hátralévő órák), nem ez: 'half,later'"
    finally:
        common.set_language("en")
    with pytest.raises(SystemExit) as exc:
        tc.parse_time_control("bank:x")
    assert exc.value.code == "--time-control: the initial bank is a number of days, not 'x'"
