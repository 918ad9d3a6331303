"""A refusal of a real game's move says where the rule it cites is written: the game's rules
reference page (issue 16, item 4), whose headings define every id the detail cites."""

from __future__ import annotations

from typing import Any

from tests.conftest import Player, signed_post
from tests.games.player_words import RULE_REF, page_ids
from tests.helpers.matches import create


def test_an_illegal_move_links_the_rules_page_that_defines_its_rule(client: Any, players: list[Player]) -> None:
    made = create(client, [{"invite": f"p{i}@example.org"} for i in range(2)], game="el-capitan")
    mid = made["id"]
    for i in range(2):
        r = client.post(f"/v1/matches/{mid}/seats/{i}/claim", json={
            "token": made["invites"][str(i)], "public_key": players[i].public_key, "name": players[i].name,
            "email": f"p{i}@example.org"})
        assert r.status_code == 200, r.get_json()
    seat = client.get(f"/v1/matches/{mid}").get_json()["active_seats"][0]
    head = client.get(f"/v1/matches/{mid}/log").get_json()
    # ending the turn before its action is illegal (rule §5.1), in a move and in its preview alike
    for r in (client.post(f"/v1/matches/{mid}/moves", json=players[seat].envelope(mid, seat, 0, [{"type": "end-turn"}])),
              signed_post(client, f"/v1/matches/{mid}/seats/{seat}/preview", {"ply": 0, "actions": [{"type": "end-turn"}]},
                          players[seat].private_key)):
        assert r.status_code == 422, r.get_json()
        body = r.get_json()
        assert body["code"] == "illegal-action" and body["rules_page"] == "/v1/games/el-capitan/rules"
        cited = {m.group(0) for m in RULE_REF.finditer(body["detail"])}
        assert cited and cited <= page_ids("el-capitan"), body["detail"]
        assert body["rule"] in cited  # the first rule the detail cites, when the game names none itself
    assert client.get(f"/v1/matches/{mid}/log").get_json() == head


def test_a_game_without_a_rules_page_links_none(client: Any, players: list[Player]) -> None:
    made = create(client, [{"invite": f"p{i}@example.org"} for i in range(2)])
    mid = made["id"]
    for i in range(2):
        client.post(f"/v1/matches/{mid}/seats/{i}/claim", json={
            "token": made["invites"][str(i)], "public_key": players[i].public_key, "name": players[i].name,
            "email": f"p{i}@example.org"})
    seat = client.get(f"/v1/matches/{mid}").get_json()["active_seats"][0]
    r = client.post(f"/v1/matches/{mid}/moves", json=players[seat].envelope(mid, seat, 0, [{"type": "bank"}]))
    assert r.status_code == 422 and "rules_page" not in r.get_json()


def test_the_rules_page_is_served_as_markdown(client: Any) -> None:
    r = client.get("/v1/games/ophir/rules")
    assert r.status_code == 200 and r.mimetype == "text/markdown"
    text = r.get_data(as_text=True)
    assert text.startswith("# Ophir: rules reference") and "### §10.11 Throwing goods back" in text
    assert client.get("/v1/games/no-such-game/rules").get_json()["code"] == "unknown-game"
    missing = client.get("/v1/games/harbour-race/rules")  # the fixture game has no page
    assert missing.status_code == 404 and missing.get_json()["code"] == "no-rules-page"
