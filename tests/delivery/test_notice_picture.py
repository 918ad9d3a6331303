"""The turn notice shows the seat's board as an inline PNG in its HTML part (issue 12): a
``multipart/related`` part with the HTML and the picture, referred to by ``cid:``, with alt text.
The plain-text part stays as it was, and a picture that fails costs the picture, never the notice.
Real Redis, the real job, real outbox files; the picture is the stub renderer's (tests/helpers/board_stub.py).
"""

from __future__ import annotations

import logging
import re
import struct

import pytest

from service.config import Settings
from service.runtime import build
from tests.conftest import Player
from tests.helpers.board_stub import use_stub
from tests.helpers.notices import assert_clean_8bit, body, human_to_act, notice, ophir_match


def test_the_notice_shows_the_board_inline(outbox_settings: Settings, players: list[Player],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    use_stub(monkeypatch)
    msg, raw, mid, seat, ply = notice(outbox_settings, players)
    assert_clean_8bit(raw)  # the text parts are still 8-bit; only the picture is base64
    assert msg.get_content_type() == "multipart/alternative"
    plain, related = msg.get_payload()  # type: ignore[misc]
    assert plain.get_content_type() == "text/plain" and related.get_content_type() == "multipart/related"
    html_part, image = related.get_payload()
    assert html_part.get_content_type() == "text/html" and image.get_content_type() == "image/png"
    png = image.get_content()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", png[16:24]) == (400, 200)
    cid = image["Content-ID"].strip("<>")
    assert cid == f"board.{mid}.{seat}.{ply}@portolan.test" and image.get_content_disposition() == "inline"
    html = html_part.get_content()
    [img] = re.findall(r"<img [^>]*>", html)
    assert f'src="cid:{cid}"' in img
    alt = re.search(r'alt="([^"]*)"', img)
    assert alt is not None and f"The board of Ophir, match {mid} at ply {ply}" in alt.group(1)
    assert "picture" not in body(msg).lower() and "cid:" not in body(msg)  # the text part knows no picture


def test_a_failing_picture_still_sends_the_notice(outbox_settings: Settings, players: list[Player],
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    use_stub(monkeypatch, fail=True)
    with caplog.at_level(logging.WARNING, logger="portolan.letters"):
        msg, raw, mid, seat, _ply = notice(outbox_settings, players)
    assert msg.get_content_type() == "multipart/alternative"
    assert [p.get_content_type() for p in msg.walk()] == ["multipart/alternative", "text/plain", "text/html"]
    assert "<img" not in body(msg, "html") and "your turn" in body(msg)
    assert any(f"no picture for the notice of match {mid} seat {seat}" in r.getMessage() for r in caplog.records)
    assert_clean_8bit(raw)


def test_the_text_part_is_the_same_with_or_without_the_picture(outbox_settings: Settings, players: list[Player],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from service.delivery import letters

    use_stub(monkeypatch)
    m = build(outbox_settings)
    mid = ophir_match(m, players)
    seat = human_to_act(m, mid)
    with_picture = letters.turn_notice(m, outbox_settings, mid, seat, "k", m.meta(mid).ply)
    use_stub(monkeypatch, fail=True)
    without = letters.turn_notice(m, outbox_settings, mid, seat, "k", m.meta(mid).ply)
    assert with_picture is not None and without is not None
    assert with_picture.images and not without.images
    assert with_picture.text == without.text
