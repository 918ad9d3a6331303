"""Board pictures over HTTP: spectator and seat pictures, past plies, caching, refusals.

The pictures are drawn by the stub renderer (tests/helpers/board_stub.py), which writes the view it was
given into the SVG: these tests check what the service hands a renderer and how it serves the
result, not how a board looks.
"""

from __future__ import annotations

import re
import struct
from typing import Any

import pytest

from tests.conftest import Player, signed_post
from tests.helpers.board_stub import drawn_from, spot_count, use_stub
from tests.helpers.contract import Api, signed
from tests.helpers.matches import create, started

SVG = "image/svg+xml; charset=utf-8"


@pytest.fixture(autouse=True)
def _stub(monkeypatch: pytest.MonkeyPatch) -> None:
    use_stub(monkeypatch)


def signed_get(client: Any, player: Player, path: str, query: str, **headers: str) -> Any:
    return client.get(f"{path}?{query}", headers={**player.auth("GET", path, query), **headers})


def roll(client: Any, players: list[Player], mid: str) -> dict[str, Any]:
    view = client.get(f"/v1/matches/{mid}").get_json()
    seat, ply = view["active_seats"][0], view["ply"]
    r = client.post(f"/v1/matches/{mid}/moves", json=players[seat].envelope(mid, seat, ply, [{"type": "roll"}],
                                                                           nonce=f"n{ply}"))
    assert r.status_code == 201, r.get_json()
    return dict(r.get_json())


def test_the_spectator_picture_is_the_spectator_view(client: Any, players: list[Player]) -> None:
    mid, view = started(client, players)
    r = client.get(f"/v1/matches/{mid}/board.svg")
    assert r.status_code == 200 and r.headers["Content-Type"] == SVG
    svg = r.get_data(as_text=True)
    assert svg.startswith("<svg") and drawn_from(svg) == view["board"] and spot_count(svg) == 0
    assert r.headers["Cache-Control"] == "public, no-cache" and r.headers["ETag"].startswith('"b-')


def test_the_png_is_the_same_picture_at_most_900_pixels_wide(client: Any, players: list[Player]) -> None:
    mid, _ = started(client, players)
    r = client.get(f"/v1/matches/{mid}/board.png")
    assert r.status_code == 200 and r.mimetype == "image/png"
    png = r.get_data()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert (width, height) == (400, 200)  # the stub's own size: never blown up
    assert r.headers["ETag"] != client.get(f"/v1/matches/{mid}/board.svg").headers["ETag"]


def test_a_past_ply_is_replayed_and_cached_for_long(client: Any, players: list[Player]) -> None:
    mid, at_start = started(client, players)
    roll(client, players, mid)
    after_one = client.get(f"/v1/matches/{mid}").get_json()
    roll(client, players, mid)
    now = client.get(f"/v1/matches/{mid}").get_json()
    assert now["ply"] == 2
    for ply, expected in ((0, at_start), (1, after_one), (2, now)):
        r = client.get(f"/v1/matches/{mid}/board.svg?ply={ply}")
        assert r.status_code == 200, r.get_json()
        assert drawn_from(r.get_data(as_text=True)) == expected["board"], ply
    past = client.get(f"/v1/matches/{mid}/board.svg?ply=1")
    assert past.headers["Cache-Control"] == f"public, max-age={365 * 24 * 3600}, immutable"
    assert client.get(f"/v1/matches/{mid}/board.svg?ply=2").headers["Cache-Control"] == "public, no-cache"


def test_etag_answers_304_until_the_position_changes(client: Any, players: list[Player]) -> None:
    mid, _ = started(client, players)
    first = client.get(f"/v1/matches/{mid}/board.svg")
    etag = first.headers["ETag"]
    again = client.get(f"/v1/matches/{mid}/board.svg", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.get_data() == b"" and again.headers["ETag"] == etag
    roll(client, players, mid)
    moved = client.get(f"/v1/matches/{mid}/board.svg", headers={"If-None-Match": etag})
    if drawn_from(moved.get_data(as_text=True)) != drawn_from(first.get_data(as_text=True)):
        assert moved.status_code == 200 and moved.headers["ETag"] != etag
    # the position after setup never changes: its tag still holds
    past = client.get(f"/v1/matches/{mid}/board.svg?ply=0")
    assert past.headers["ETag"] == etag


def test_a_seat_picture_needs_that_seats_signature(client: Any, players: list[Player]) -> None:
    mid, view = started(client, players)
    seat = view["active_seats"][0]
    other = 1 - seat
    path = f"/v1/matches/{mid}/board.svg"
    unsigned = client.get(f"{path}?seat={seat}")
    assert unsigned.status_code == 401 and unsigned.get_json()["code"] == "missing-signature"
    wrong = signed_get(client, players[other], path, f"seat={seat}")
    assert wrong.status_code == 403 and wrong.get_json()["code"] == "not-your-seat"
    mine = signed_get(client, players[seat], path, f"seat={seat}")
    assert mine.status_code == 200 and mine.headers["Cache-Control"] == "private, no-cache"
    assert spot_count(mine.get_data(as_text=True)) == 1  # the one legal action: roll
    idle = signed_get(client, players[other], path, f"seat={other}")
    assert idle.status_code == 200 and spot_count(idle.get_data(as_text=True)) == 0  # not to move: no spots
    png = signed_get(client, players[seat], "/v1/matches/" + mid + "/board.png", f"seat={seat}")
    assert png.status_code == 200 and png.mimetype == "image/png"


def test_a_seat_sees_its_private_parts_and_the_spectator_does_not(client: Any, players: list[Player]) -> None:
    """Ophir's draft: the picker sees the specialists offered, and its own victory points; a
    spectator sees neither, at the current ply or a past one."""
    made = create(client, [{"invite": "a@example.org"}, {"invite": "b@example.org"}], game="ophir", barriers="random")
    mid = made["id"]
    for i in range(2):
        r = client.post(f"/v1/matches/{mid}/seats/{i}/claim", json={
            "token": made["invites"][str(i)], "public_key": players[i].public_key, "name": players[i].name})
        assert r.status_code == 200, r.get_json()
    picker = client.get(f"/v1/matches/{mid}").get_json()["active_seats"][0]
    path = f"/v1/matches/{mid}/board.svg"
    public = drawn_from(client.get(path).get_data(as_text=True))
    assert public["draft"]["offered"] is None and all("vp" not in p for p in public["players"])
    private = drawn_from(signed_get(client, players[picker], path, f"seat={picker}").get_data(as_text=True))
    assert private["draft"]["offered"] and "vp" in private["players"][picker]
    assert "vp" not in private["players"][1 - picker]
    past = drawn_from(client.get(f"{path}?ply=0").get_data(as_text=True))
    assert past == public


def test_no_board_before_the_start_and_no_such_ply(client: Any, players: list[Player]) -> None:
    waiting = create(client, [{"invite": "a@example.org"}, {"bot": "random"}])
    r = client.get(f"/v1/matches/{waiting['id']}/board.svg")
    assert r.status_code == 409 and r.mimetype == "application/problem+json"
    assert "is still waiting for players: no board yet" in r.get_json()["detail"]
    mid, _ = started(client, players)
    ahead = client.get(f"/v1/matches/{mid}/board.svg?ply=5")
    assert ahead.status_code == 404 and ahead.get_json()["code"] == "unknown-ply"
    assert "there is no ply 5 yet" in ahead.get_json()["detail"]
    for bad in ("-1", "x", "1.5", "１"):
        r = client.get(f"/v1/matches/{mid}/board.svg?ply={bad}")
        assert r.status_code == 400 and r.get_json()["code"] == "bad-query", bad
    assert client.get(f"/v1/matches/{mid}/board.svg?ply=0&ply=0").status_code == 400
    assert client.get("/v1/matches/nosuchmatch1/board.png").status_code == 404


def test_a_game_without_pictures_is_404_in_words(client: Any, players: list[Player],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()  # the real registry: the fixture game has no picture module
    mid, _ = started(client, players)
    r = client.get(f"/v1/matches/{mid}/board.svg")
    assert r.status_code == 404 and r.get_json()["code"] == "no-picture"
    assert "harbour-race" in r.get_json()["detail"]


@pytest.fixture(scope="module")
def openapi() -> Any:
    """openapi.yaml as tests/api/test_contract.py reads it, with the pictures' media types read as
    what they are (openapi-core hands unknown ones over as bytes, which no ``string`` schema takes)."""
    from openapi_core import Config, OpenAPI
    from openapi_core.deserializing.media_types.util import json_loads

    from service.api import spec as game_spec
    from tests.helpers.fixture_game import GAME as FIXTURE

    readers = {"application/problem+json": json_loads, "image/svg+xml": lambda b: b.decode("utf-8"),
               "image/png": lambda b: b.decode("latin-1")}
    config = Config(extra_media_type_deserializers=readers, additional_properties_default_policy="forbid")
    return OpenAPI.from_dict(game_spec.document([*game_spec.hosted_games(), FIXTURE]), config=config)


def test_pictures_and_previews_answer_as_documented(client: Any, openapi: Any, players: list[Player]) -> None:
    """Every answer of the three operations, validated against openapi.yaml by openapi-core."""
    api = Api(client, openapi)
    waiting = create(client, [{"invite": "a@example.org"}, {"bot": "random"}])
    api("GET", f"/v1/matches/{waiting['id']}/board.svg", 409, code="match-not-started")
    mid, view = started(client, players)
    seat = view["active_seats"][0]
    path = f"/v1/matches/{mid}/board.svg"
    etag = api("GET", path, 200).headers["ETag"]
    api("GET", path, 304, headers={"If-None-Match": etag})
    api("GET", f"/v1/matches/{mid}/board.png", 200)
    api("GET", f"{path}?ply=3", 404, code="unknown-ply")
    api("GET", f"{path}?ply=x", 400, valid_request=False, code="bad-query")
    api("GET", f"{path}?seat={seat}", 401, code="missing-signature")
    api("GET", f"{path}?seat={seat}", 403, code="not-your-seat", headers=players[1 - seat].auth("GET", path, f"seat={seat}"))
    api("GET", f"{path}?seat={seat}", 200, headers=players[seat].auth("GET", path, f"seat={seat}"))
    preview = f"/v1/matches/{mid}/seats/{seat}/preview"

    def ask(body: Any, key: Player, status: int, **kw: Any) -> Any:
        return api("POST", preview, status, **signed(body, preview, key.private_key), **kw)

    body = ask({"ply": 0, "actions": [{"type": "roll"}]}, players[seat], 200).get_json()
    assert body["open"] is False and body["svg"].startswith("<svg")
    ask({"ply": 1, "actions": [{"type": "roll"}]}, players[seat], 409, code="stale-ply")
    ask({"ply": 0, "actions": [{"type": "bank"}]}, players[seat], 422, code="illegal-action")
    ask({"ply": 0, "actions": [{"type": "roll"}]}, players[1 - seat], 403, code="not-your-seat")
    ask({"ply": 0, "actions": [{"type": "roll"}] * 21}, players[seat], 400, valid_request=False, code="bad-preview")


@pytest.mark.parametrize("game", ["el-capitan", "nauticus", "ophir"])
def test_the_real_pictures_through_the_routes(client: Any, players: list[Player], game: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """With each game's own renderer (skipped where it is not installed): the seat's picture has
    one spot per legal action it draws a place for, and every spot's indices point into the seat
    view's legal actions; the spectator's has none; the PNG is drawn; the preview carries the SVG."""
    pytest.importorskip(f"service.pictures.{game.replace('-', '_')}")
    monkeypatch.undo()
    made = create(client, [{"invite": "a@example.org"}, {"invite": "b@example.org"}], game=game)
    mid = made["id"]
    for i in range(2):
        r = client.post(f"/v1/matches/{mid}/seats/{i}/claim", json={
            "token": made["invites"][str(i)], "public_key": players[i].public_key, "name": players[i].name})
        assert r.status_code == 200, r.get_json()
    path = f"/v1/matches/{mid}/board.svg"
    public = client.get(path)
    assert public.status_code == 200 and 'role="img"' in public.get_data(as_text=True)
    assert spot_count(public.get_data(as_text=True)) == 0
    seat = client.get(f"/v1/matches/{mid}").get_json()["active_seats"][0]
    legal = signed_get(client, players[seat], f"/v1/matches/{mid}/seats/{seat}/view", "").get_json()["legal_actions"]
    svg = signed_get(client, players[seat], path, f"seat={seat}").get_data(as_text=True)
    indices = {int(i) for found in re.findall(r'data-actions="([0-9 ]*)"', svg) for i in found.split()}
    assert spot_count(svg) > 0 and indices <= set(range(len(legal)))
    png = client.get(f"/v1/matches/{mid}/board.png")
    assert png.status_code == 200 and png.get_data()[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", png.get_data()[16:24])[0] <= 900
    ply = client.get(f"/v1/matches/{mid}").get_json()["ply"]
    preview = signed_post(client, f"/v1/matches/{mid}/seats/{seat}/preview", {"ply": ply, "actions": [legal[0]["action"]]},
                          players[seat].private_key)
    assert preview.status_code == 200 and preview.get_json()["svg"].startswith("<svg")


def test_a_picture_in_hungarian_has_its_own_tag_and_varies_on_the_language(client: Any, players: list[Player],
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The request's language reaches the picture (the real El Capitán renderer): a Hungarian picture has
    Hungarian words and a tag of its own ("-hu"), English keeps its tag, and every answer says it varies
    on Accept-Language (and on Cookie when the language cookie is there), so that no cache hands one
    language's picture to a reader of another."""
    monkeypatch.undo()
    made = create(client, [{"invite": "a@example.org"}, {"invite": "b@example.org"}], game="el-capitan")
    mid = made["id"]
    for i in range(2):
        r = client.post(f"/v1/matches/{mid}/seats/{i}/claim", json={
            "token": made["invites"][str(i)], "public_key": players[i].public_key, "name": players[i].name})
        assert r.status_code == 200, r.get_json()
    path = f"/v1/matches/{mid}/board.svg"
    english = client.get(path)
    hungarian = client.get(path, headers={"Accept-Language": "hu"})
    assert english.status_code == hungarian.status_code == 200
    assert "Bank harbour" in english.get_data(as_text=True) and "Bank kikötője" in hungarian.get_data(as_text=True)
    assert not english.headers["ETag"].endswith('-hu"') and hungarian.headers["ETag"].endswith('-hu"')
    assert english.headers["ETag"] != hungarian.headers["ETag"]
    assert "Accept-Language" in english.headers["Vary"] and "Accept-Language" in hungarian.headers["Vary"]
    assert hungarian.headers["Content-Language"] == "hu"
    # a tag names one language's picture: the English tag does not answer 304 to a Hungarian reader
    again = client.get(path, headers={"Accept-Language": "hu", "If-None-Match": english.headers["ETag"]})
    assert again.status_code == 200 and again.headers["ETag"] == hungarian.headers["ETag"]
    assert client.get(path, headers={"Accept-Language": "hu", "If-None-Match": hungarian.headers["ETag"]}).status_code == 304
    # the web client's choice, in the cookie, is a key too (a picture at a given ply names its language as well)
    client.set_cookie("lang", "hu")
    past = client.get(f"{path}?ply=0")
    assert "Cookie" in past.headers["Vary"] and past.headers["ETag"].endswith('-hu"')
    seat = client.get(f"/v1/matches/{mid}").get_json()["active_seats"][0]
    mine = signed_get(client, players[seat], path, f"seat={seat}")
    assert mine.headers["Vary"].split(", ")[:2] == ["Authorization", "Accept-Language"]
    preview = signed_post(client, f"/v1/matches/{mid}/seats/{seat}/preview",
                          {"ply": client.get(f"/v1/matches/{mid}").get_json()["ply"],
                           "actions": [signed_get(client, players[seat], f"/v1/matches/{mid}/seats/{seat}/view",
                                                  "").get_json()["legal_actions"][0]["action"]]},
                          players[seat].private_key)
    assert preview.status_code == 200 and "Bank kikötője" in preview.get_json()["svg"]
