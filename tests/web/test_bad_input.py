"""Bad input on the web client (issue 12): a bad token in an invite link, an unknown match, a
move the server refuses. Each time ``#error`` says in words what went wrong (the server's own
words), and what the page shows stays the server's state. Also: the client's signing code
reproduces docs/signing-vectors.json inside Chromium.

To refuse a move for real, the test holds the seat's key itself: it writes a key backup
(docs/web-client.md's format) for a key it made, imports it on /keys, and then moves for that
seat from Python while the page has a step queued; the page's event stream is cut off
(``page.route``), so it cannot notice before Send.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.proof import signing
from service.tools.client import Client
from tests.conftest import CREATOR
from tests.web.conftest import ROOT, Dev
from tests.web.driver import error_text, wait_for_ply
from tests.web.positions import backup_of, import_key


def test_a_bad_token_in_an_invite_link_is_refused_in_words(dev: Dev, new_player: Callable[[], Any]) -> None:
    made = Client(dev.url).create("nauticus", [{"invite": "ana@example.org"}, {"bot": "random"}], private_key=CREATOR)
    page = new_player()
    page.goto(f"/claim/{made['id']}/0#token=not-the-token")
    page.fill("input#name", "Ana")
    page.click("button#claim")
    page.wait_for_selector("#error:not([hidden])")
    assert "not the invite token of seat 0" in error_text(page)
    assert "/claim/" in page.url  # still here, nothing taken
    seat = Client(dev.url).show(made["id"])["seats"][0]
    assert not seat["claimed"]
    # a link that lost its token says so before anyone types
    page.goto(f"/claim/{made['id']}/0")
    page.wait_for_selector("#error:not([hidden])")
    assert "no invite token" in error_text(page)


def test_an_unknown_match_says_there_is_none(new_player: Callable[[], Any]) -> None:
    page = new_player()
    page.goto("/match/nosuchmatch0")
    page.wait_for_selector("#error:not([hidden])")
    assert "there is no match 'nosuchmatch0'" in error_text(page)
    assert not page.locator("#board svg").count() and not page.locator("#actions button.action").count()
    page.goto("/match/nosuchmatch0/log")
    page.wait_for_selector("#error:not([hidden])")
    assert "there is no match 'nosuchmatch0'" in error_text(page)
    assert not page.locator("#log tr.entry").count()


def test_a_move_the_server_refuses_is_explained_and_the_page_shows_the_servers_state(
        dev: Dev, new_player: Callable[[], Any], tmp_path: Path) -> None:
    ana_key = signing.generate_private_key()
    api = Client(dev.url)
    made = api.create("nauticus", [{"invite": "ana@example.org"}, {"invite": "bea@example.org"}], private_key=CREATOR)
    mid = made["id"]
    bea_key = signing.generate_private_key()
    api.claim(mid, 0, made["invites"]["0"], ana_key, "Ana")
    api.claim(mid, 1, made["invites"]["1"], bea_key, "Bea")
    page = new_player()
    import_key(page, backup_of(ana_key, tmp_path / "ana.json"))
    keys = {0: ana_key, 1: bea_key}
    rng = random.Random(3)
    # Bea (from Python) moves until Ana must act
    view = api.show(mid)
    while 0 not in view["active_seats"]:
        seat = view["active_seats"][0]
        legal = api.view(mid, seat, keys[seat])["legal_actions"]
        api.move(mid, seat, keys[seat], [rng.choice(legal)["action"]], ply=view["ply"])
        view = api.show(mid)
    page.route("**/events*", lambda route: route.abort())  # the page cannot hear what happens next
    page.goto(f"/match/{mid}")
    wait_for_ply(page, view["ply"], mine=True)
    page.locator("#actions button.action").first.click()
    page.wait_for_function("() => document.querySelectorAll('#queue li').length === 1 && !document.querySelector('#send').disabled")
    # meanwhile Ana's key moves from elsewhere (her terminal, say)
    legal = api.view(mid, 0, ana_key)["legal_actions"]
    api.move(mid, 0, ana_key, [legal[-1]["action"]], ply=view["ply"])
    now = api.show(mid)["ply"]
    page.click("#send")
    page.wait_for_selector("#error:not([hidden])")
    words = error_text(page)
    assert f"the move is based on ply {view['ply']} but the match is at ply {now}" in words, words
    wait_for_ply(page, now)  # the page read the server again: its ply, not the queue's
    assert page.locator("#queue li").count() == 0
    assert Client(dev.url).show(mid)["ply"] == now  # and nothing else was accepted

    # a body changed on its way (here by the test) no longer matches its signature: refused too
    view = api.show(mid)
    while 0 not in view["active_seats"]:
        seat = view["active_seats"][0]
        legal = api.view(mid, seat, keys[seat])["legal_actions"]
        api.move(mid, seat, keys[seat], [rng.choice(legal)["action"]], ply=view["ply"])
        view = api.show(mid)
    page.unroute("**/events*")
    page.reload()
    wait_for_ply(page, view["ply"], mine=True)

    def tamper(route: Any) -> None:
        body = json.loads(route.request.post_data or "{}")
        body["envelope"]["nonce"] = "changed-on-the-way"
        route.continue_(post_data=json.dumps(body))

    page.route("**/moves", tamper)
    page.locator("#actions button.action").first.click()
    page.wait_for_function("() => document.querySelectorAll('#queue li').length === 1 && !document.querySelector('#send').disabled")
    page.click("#send")
    page.wait_for_function("() => !document.querySelector('#error').hidden && document.querySelector('#error').textContent.length > 0")
    assert "signature" in error_text(page), error_text(page)
    assert api.show(mid)["ply"] == view["ply"]
    wait_for_ply(page, view["ply"])
    assert not page.errors, page.errors  # type: ignore[attr-defined]


def test_the_signing_vectors_are_reproduced_in_chromium(new_player: Callable[[], Any]) -> None:
    page = new_player()
    page.goto("/keys")
    vectors = json.loads((ROOT / "docs" / "signing-vectors.json").read_text(encoding="utf-8"))
    results = page.evaluate("""async (file) => {
      const { checkVectors } = await import('/web/static/js/vectors.js');
      return checkVectors(file);
    }""", vectors)
    assert len(results) == len(vectors["vectors"]) >= 3
    assert all(r["ok"] for r in results), [r for r in results if not r["ok"]]
