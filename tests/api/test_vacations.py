"""``/v1/me/vacations`` through the real app, each answer validated against openapi.yaml, and
``portolan vacation`` against the app served over HTTP. Real Redis; the service's clock is held
at a fixed moment (no sleeping).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from openapi_core import OpenAPI

from service.clock import iso
from service.play.clock.vacations import book_of
from service.play.matches import Matches
from service.tools.cli.main import main
from tests.conftest import Player
from tests.helpers.contract import Api

NOW = datetime(2026, 12, 1, 10, 30, tzinfo=UTC)
PATH = "/v1/me/vacations"


@pytest.fixture
def fixed(service: Matches) -> Matches:
    book_of(service).now = lambda: NOW
    service.now = lambda: iso(NOW)
    return service


def _post(player: Player, body: Any) -> dict[str, Any]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return {"data": data, "content_type": "application/json", "headers": player.auth("POST", PATH, body=data)}


def test_vacations_over_the_api(client: Any, openapi: OpenAPI, fixed: Matches,
                                players: list[Player]) -> None:
    api = Api(client, openapi)
    ana, bea = players[0], players[1]
    empty = api("GET", PATH, 200, headers=ana.auth("GET", PATH)).get_json()
    assert empty["vacations"] == [] and empty["years"] == [{"year": 2026, "taken": 0, "left": 21}]
    assert empty["public_key"] == ana.public_key and empty["now"] == "2026-12-01T10:30:00.000Z"

    made = api("POST", PATH, 201, **_post(ana, {"start": "2026-12-24", "days": 3})).get_json()
    v = made["vacation"]
    assert (v["start"], v["last_day"], v["days"], v["status"]) == ("2026-12-24", "2026-12-26", 3, "upcoming")
    assert made["years"] == [{"year": 2026, "taken": 3, "left": 18}]
    listed = api("GET", PATH, 200, headers=ana.auth("GET", PATH)).get_json()
    assert listed["vacations"] == [v]
    assert api("GET", PATH, 200, headers=bea.auth("GET", PATH)).get_json()["vacations"] == []  # per key

    # refusals: each a problem with its code, and nothing changes
    body = api("POST", PATH, 409, code="vacation-overlap", **_post(ana, {"start": "2026-12-25", "days": 1})).get_json()
    assert body["overlaps"] == v["id"]
    body = api("POST", PATH, 422, code="vacation-allowance", **_post(ana, {"start": "2026-12-02", "days": 19})).get_json()
    assert body["days_left"] == 18 and body["year"] == 2026 and "18 days of 2026 are left" in body["detail"]
    api("POST", PATH, 422, code="vacation-in-the-past", **_post(ana, {"start": "2026-11-30", "days": 1}))
    body = api("POST", PATH, 400, code="bad-vacation", **_post(ana, {"start": "24/12/2026", "days": 1})).get_json()
    assert body["field"] == "start"
    assert api("POST", PATH, 400, code="bad-vacation",
               **_post(ana, {"start": "2026-12-02", "days": 0})).get_json()["field"] == "days"
    api("POST", PATH, 400, code="malformed-request", valid_request=False, **_post(ana, {"start": "2026-12-02", "days": "3"}))
    api("POST", PATH, 400, code="malformed-request", valid_request=False, **_post(ana, {"start": "2026-12-02"}))
    api("POST", PATH, 400, code="malformed-json", valid_request=False, **_post(ana, b"{no"))
    api("POST", PATH, 401, code="missing-signature", valid_request=False, json={"start": "2026-12-02", "days": 1})
    api("GET", PATH, 401, code="missing-signature", valid_request=False)
    assert api("GET", PATH, 200, headers=ana.auth("GET", PATH)).get_json() == listed

    # cancel: only the key's own, once
    gone = f"{PATH}/{v['id']}"
    api("DELETE", gone, 404, code="unknown-vacation", headers=bea.auth("DELETE", gone))
    api("DELETE", gone, 401, code="missing-signature", valid_request=False)
    done = api("DELETE", gone, 200, headers=ana.auth("DELETE", gone)).get_json()
    assert done["vacation"]["status"] == "cancelled" and done["vacations"] == []
    assert done["years"] == [{"year": 2026, "taken": 0, "left": 21}]
    api("DELETE", gone, 404, code="unknown-vacation", headers=ana.auth("DELETE", gone))

    # a current one ends now; one that is over cannot be cancelled
    current = api("POST", PATH, 201, **_post(ana, {"start": "2026-12-01", "days": 2})).get_json()["vacation"]
    assert current["status"] == "current"
    path = f"{PATH}/{current['id']}"
    ended = api("DELETE", path, 200, headers=ana.auth("DELETE", path)).get_json()["vacation"]
    assert ended["status"] == "ended" and ended["ends_at"] == iso(NOW) and ended["days"] == 1
    api("DELETE", path, 409, code="vacation-over", headers=ana.auth("DELETE", path))


def test_portolan_vacation_add_list_cancel(served: str, fixed: Matches, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PORTOLAN_HOME", str(tmp_path))
    assert main(["keygen"]) == 0
    capsys.readouterr()
    assert main(["--server", served, "vacation", "add", "--from", "2026-12-24", "--days", "3"]) == 0
    said = capsys.readouterr().out
    assert "2026-12-24 to 2026-12-26 (3 days)" in said and "18 days of vacation left in 2026" in said
    listed = main(["--server", served, "--json", "vacation", "list"])
    book = json.loads(capsys.readouterr().out)
    assert listed == 0 and len(book["vacations"]) == 1
    vid = book["vacations"][0]["id"]
    assert main(["--server", served, "vacation", "list"]) == 0
    assert f"{vid}  2026-12-24 to 2026-12-26 (3 days, upcoming)" in capsys.readouterr().out
    # a refusal: the server's sentence, exit 2, nothing changed
    assert main(["--server", served, "vacation", "add", "--from", "2026-12-25", "--days", "30"]) == 2
    assert "vacation-allowance" in capsys.readouterr().err
    assert main(["--server", served, "vacation", "cancel", vid]) == 0
    assert f"vacation {vid} cancelled; 21 days of vacation left in 2026" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="which vacation"):
        main(["--server", served, "vacation", "cancel", "../x"])
    with pytest.raises(SystemExit, match="--from YYYY-MM-DD --days N"):
        main(["--server", served, "vacation", "add", "--days", "2"])
