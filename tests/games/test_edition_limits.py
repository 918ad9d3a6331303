"""Issue 28, F8/F13: what `portolan data check` and the service's edition loading refuse, each
with one line naming the field and the rule, never a traceback: an all-zero edition (its
Nauticus match used to stop on a ZeroDivisionError in scoring), numbers that are not plain
integers (1e308, 2.0), a document nested 200,000 deep, one too large, a key twice."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from service import games
from service.config import Settings
from service.games import edition_check
from service.play import editions as shelf
from service.tools.cli.main import main as cli
from tests.helpers.editions import GAMES, changed_document

ROOT = Path(__file__).resolve().parents[2]


def _zero(value: Any) -> Any:
    """Every number 0 (booleans and words as they are)."""
    if isinstance(value, bool) or not isinstance(value, int | list | dict):
        return value
    if isinstance(value, int):
        return 0
    if isinstance(value, list):
        return [_zero(v) for v in value]
    return {k: _zero(v) for k, v in value.items()}


ZERO_RULES = {
    "el-capitan": "data.display.connection: 0 is less than the minimum of 1",
    "nauticus": "data.end_scoring.thaler_per_vp: 0 is less than the minimum of 1",
    "ophir": "data.dice.sides: 0 is less than the minimum of 1",
}


@pytest.mark.parametrize("game_id", GAMES)
def test_an_all_zero_edition_is_refused_naming_the_rule(game_id: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    doc = changed_document(game_id, "zero")
    doc["data"] = _zero(doc["data"])
    with pytest.raises(edition_check.EditionError) as caught:
        edition_check.check(doc, games.registry())
    assert ZERO_RULES[game_id] in caught.value.lines()
    path = tmp_path / "zero.json"
    path.write_text(json.dumps(doc))
    assert cli(["data", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"error: {path}: {ZERO_RULES[game_id]}" in err.splitlines()
    assert "Traceback" not in err and all(line.startswith(f"error: {path}: data.") for line in err.splitlines())


@pytest.mark.parametrize(("number", "shown"), [("1e308", "1e308"), ("2.0", "2.0"), ("3E2", "3E2"), ("NaN", "NaN"),
                                               ("-0.5", "-0.5")])
def test_a_number_that_is_not_a_plain_integer_is_refused(number: str, shown: str) -> None:
    text = json.dumps(changed_document("nauticus")).replace('"thaler_per_vp": 3', f'"thaler_per_vp": {number}')
    assert number in text
    with pytest.raises(edition_check.EditionError) as caught:
        edition_check.parse(text)
    assert f"the number {shown} is not an integer" in caught.value.message


def test_a_float_or_a_boolean_in_a_document_parsed_elsewhere_is_refused_naming_the_field() -> None:
    doc = changed_document("nauticus")
    doc["data"]["end_scoring"]["thaler_per_vp"] = 1e308
    with pytest.raises(edition_check.EditionError) as caught:
        edition_check.check(doc, games.registry())
    assert caught.value.field == "data.end_scoring.thaler_per_vp" and "is not an integer" in caught.value.message
    doc["data"]["end_scoring"]["thaler_per_vp"] = True
    with pytest.raises(edition_check.EditionError) as caught:
        edition_check.check(copy.deepcopy(doc), games.registry())
    assert caught.value.field == "data.end_scoring.thaler_per_vp" and "not of type 'integer'" in caught.value.message


def test_too_deep_too_large_twice_a_key_or_not_json_is_one_refusal() -> None:
    cases = {
        "[" * 200_000: "nested more than 16 deep",
        " " * (edition_check.MAX_BYTES + 1): "an edition is at most 1,048,576 bytes",
        '{"edition": "a", "edition": "b"}': "the key 'edition' appears twice",
        '{"edition": ': "not valid JSON: Expecting value: line 1 column 13",
        "1" * 5000: "not valid JSON",  # Python refuses an integer string that long
    }
    for text, words in cases.items():
        with pytest.raises(edition_check.EditionError) as caught:
            edition_check.parse(text)
        assert words in caught.value.message, (text[:30], caught.value.message)
    # brackets inside a string do not nest (an escaped quote does not end it)
    assert edition_check.parse('{"a": "\\"' + "[" * 200_000 + '"}') == {"a": '"' + "[" * 200_000}
    nested: Any = {"x": 1}
    for _ in range(20):
        nested = {"x": nested}
    with pytest.raises(edition_check.EditionError, match="nested more than 16 deep"):
        edition_check.check({**changed_document("ophir"), "title": "t", "data": nested}, games.registry())


def test_the_shelf_reads_a_file_through_the_same_limits(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000)
    with pytest.raises(edition_check.EditionError) as caught:
        shelf.read(deep)
    assert caught.value.field == f"{deep}: (the document)" and "nested more than 16 deep" in caught.value.message
    good = tmp_path / "good.json"
    good.write_text(json.dumps(changed_document("ophir")))
    assert shelf.read(good).id == "box"


def _env(settings: Settings, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PORTOLAN_")}
    return {**env, "REDIS_URL": settings.redis_url, "PORTOLAN_NS": settings.namespace, "PYTHONPATH": str(ROOT),
            "OUTBOX_DIR": settings.outbox_dir, **extra}


@pytest.mark.processes  # the CLI as a process: what an operator sees on the terminal
def test_a_200000_deep_document_is_one_line_from_the_cli_and_stops_the_service(settings: Settings,
                                                                               tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000)
    done = subprocess.run([sys.executable, "-m", "service.tools.cli", "data", "check", str(deep)],
                          env=_env(settings), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [f"error: {deep}: (the document): nested more than 16 deep; an edition's data "
                                        "nests a few levels (portolan data template)"]
    # installed: the worker (and serve) refuse to start, one line naming the setting and the file
    for command in (["worker", "--burst"], ["serve", "--port", "0"]):
        done = subprocess.run([sys.executable, "-m", "service.tools.cli", *command],
                              env=_env(settings, PORTOLAN_EDITIONS=str(deep)), capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.strip().splitlines()[-1] == (
            f"error: an edition in PORTOLAN_EDITIONS cannot be used: {deep}: (the document): nested more than 16 "
            "deep; an edition's data nests a few levels (portolan data template)")
