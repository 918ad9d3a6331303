"""Less mail, in Chromium against ``portolan dev`` (issue 27, part 5): the creator who takes a seat
on /new gets no invitation to it, and while her match page is open (its stream signed by her
seat's key) her turn notice is kept back; when she closes the page before moving, it comes."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.proof import signing
from service.tools.client import Client
from tests.web.conftest import WAIT_S, Dev
from tests.web.driver import create_on_new_page, wait_for_ply


def notice_files(dev: Dev, match_id: str, seat: int) -> list[Path]:
    return sorted(dev.outbox.glob(f"notice-{match_id}-{seat}-*.eml"))


def wait_for(what: str, ok: Callable[[], bool], dev: Dev) -> None:
    deadline = time.monotonic() + WAIT_S
    while not ok():
        assert time.monotonic() < deadline, f"never happened: {what}\n" + "".join(dev.lines[-40:])
        time.sleep(0.2)


def test_no_invitation_to_her_own_seat_and_no_notice_while_her_page_is_open(dev: Dev,
                                                                             new_player: Callable[[], Any]) -> None:
    ana = new_player()
    # her match page's stream, signed by her seat's key, is open before Bea's claim can start the
    # match: a turn that starts before the page listens is rightly noticed by mail (CI once saw it)
    with ana.expect_response(lambda r: "/events?seat=0" in r.url and r.status == 200, timeout=WAIT_S * 1000):
        match_id = create_on_new_page(ana, "nauticus", ["me", "invite", "bot:random"], "Ana Lima",
                                      "ana@example.org", {1: "bea@example.org"})
    link = dev.claim_link(match_id, "bea@example.org")  # Bea's invitation came ...
    assert dev.mails("ana@example.org", f"invite-{match_id}-*.eml") == []  # ... and none to Ana for her own seat
    # Bea plays from Python (no page: her notices come by mail as ever)
    api = Client(dev.url)
    bea = signing.generate_private_key()
    api.claim(match_id, 1, link.split("#token=")[1], bea, "Bea", "bea@example.org")
    view = api.show(match_id)
    while view["status"] == "active" and 0 not in view["active_seats"]:
        if 1 in view["active_seats"]:
            legal = api.view(match_id, 1, bea)["legal_actions"]
            api.move(match_id, 1, bea, [legal[0]["action"]], ply=view["ply"])
        else:
            time.sleep(0.1)  # the bot's turn: the worker plays it
        view = api.show(match_id)
    assert view["status"] == "active"
    ply = view["ply"]  # Ana's turn begins here; her page shows it
    wait_for_ply(ana, ply, mine=True)
    mark = f"notice:{match_id}:0:{ply}"
    wait_for("the worker kept Ana's notice back", lambda: any(mark in line and "kept back" in line for line in dev.lines),
             dev)
    assert notice_files(dev, match_id, 0) == []
    ana.close()  # she leaves before moving: the server sees the stream close at its next heartbeat
    wait_for("Ana's notice came after she left", lambda: bool(notice_files(dev, match_id, 0)), dev)
    [sent] = notice_files(dev, match_id, 0)
    assert sent.name == f"notice-{match_id}-0-{ply}.eml"
