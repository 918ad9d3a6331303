"""Issue 9, finding 8: anyone could create matches that mail invitations to any address, as fast
as they liked. Creation is now signed, invitations have quotas, and every route a rate limit."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from service.api import create_app
from service.config import Settings
from service.play.matches import Matches
from service.play.throttle import InviteLimits
from service.proof import signing
from service.storage.connection import connect
from service.storage.embedded import free_port
from service.storage.store import Store
from tests.conftest import Player, create_match, signed_post
from tests.helpers.matches import assert_problem

SEATS = [{"invite": "a@example.org"}, {"invite": "b@example.org"}]


class Announced(list[tuple[str, int, str]]):
    """Every invitation the service announced in its outbox (the mail that would go out), read
    afresh whenever the test looks (compared, measured or iterated)."""

    def __init__(self, service: Matches) -> None:
        super().__init__()
        self.service = service

    def _read(self) -> None:
        store = self.service.store
        found = [(mid, int(seat), invite["email"])
                 for key in store.outbox_keys() for _, f in store.r.xrange(key)
                 if f[b"kind"] == b"created"
                 for mid in [f[b"match"].decode()]
                 for seat, invite in sorted(json.loads(f[b"data"])["invites"].items())]
        self[:] = found

    def __eq__(self, other: object) -> bool:
        self._read()
        return list(self) == other

    def __len__(self) -> int:
        self._read()
        return super().__len__()

    def __iter__(self) -> Any:
        self._read()
        return super().__iter__()

    __hash__ = None  # type: ignore[assignment]


@pytest.fixture
def invites(service: Matches) -> list[tuple[str, int, str]]:
    return Announced(service)


def stored_matches(service: Matches) -> list[str]:
    return service.store.match_ids()


def test_creating_a_match_needs_a_signed_request(client: Any, service: Matches, invites: list[Any]) -> None:
    body = assert_problem(client.post("/v1/matches", json={"game": "harbour-race", "seats": SEATS}), 401,
                          "missing-signature")
    assert "creating a match needs a signed request" in body["detail"]
    forged = Player("Eve").auth("POST", "/v1/elsewhere")
    r = client.post("/v1/matches", json={"game": "harbour-race", "seats": SEATS}, headers=forged)
    assert_problem(r, 401, "bad-signature")
    assert stored_matches(service) == [] and invites == []


def test_the_signing_key_is_the_creator_in_the_match_view(client: Any, players: list[Player],
                                                          invites: list[Any]) -> None:
    r = create_match(client, {"game": "harbour-race", "seats": SEATS}, players[2].private_key)
    assert r.status_code == 201, r.get_json()
    made = r.get_json()
    assert made["creator_key"] == players[2].public_key and "creator_token" not in made
    view = client.get(f"/v1/matches/{made['id']}").get_json()
    assert view["creator_key"] == players[2].public_key
    assert [email for _, _, email in invites] == ["a@example.org", "b@example.org"]


def test_invitations_per_creator_are_throttled_whole(client: Any, service: Matches, players: list[Player],
                                                     invites: list[Any]) -> None:
    service.invite_limits = InviteLimits(per_creator_hour=3, per_recipient_day=100)
    ana, bea = players[0].private_key, players[1].private_key
    assert create_match(client, {"game": "harbour-race", "seats": SEATS}, ana).status_code == 201
    # two more invitations would make four: the whole creation is refused, not half of it
    r = create_match(client, {"game": "harbour-race", "seats": [{"invite": "c@example.org"}, {"invite": "d@example.org"}]},
                     ana)
    body = assert_problem(r, 429, "invite-throttled")
    assert "at most 3 invitations per hour" in body["detail"] and "no invitation was sent" in body["detail"]
    assert 3000 < int(r.headers["Retry-After"]) <= 3600
    assert len(stored_matches(service)) == 1 and len(invites) == 2
    # one more fits; bot seats send no mail and count nothing; another creator has a quota of its own
    one_more = {"game": "harbour-race", "seats": [{"invite": "c@example.org"}, {"bot": "random"}]}
    assert create_match(client, one_more, ana).status_code == 201
    assert create_match(client, {"game": "harbour-race", "seats": [{"bot": "random"}] * 2}, ana).status_code == 201
    assert create_match(client, one_more, bea).status_code == 201
    assert len(stored_matches(service)) == 4 and len(invites) == 4


def test_invitations_per_recipient_are_throttled_across_creators(client: Any, service: Matches,
                                                                 players: list[Player], invites: list[Any]) -> None:
    service.invite_limits = InviteLimits(per_creator_hour=100, per_recipient_day=2)
    victim = [{"invite": "victim@example.org"}, {"bot": "random"}]
    for p in players[:2]:
        assert create_match(client, {"game": "harbour-race", "seats": victim}, p.private_key).status_code == 201
    # a third creator, and the same mailbox spelled another way: still the same recipient
    shouted = [{"invite": "Victim@Example.org"}, {"bot": "random"}]
    r = create_match(client, {"game": "harbour-race", "seats": shouted}, players[2].private_key)
    body = assert_problem(r, 429, "invite-throttled")
    assert "at most 2 invitations per day" in body["detail"]
    assert 86000 < int(r.headers["Retry-After"]) <= 86400
    assert len(stored_matches(service)) == 2 and len(invites) == 2
    # the refused creation took nothing from its creator's own quota either
    other = [{"invite": "friend@example.org"}, {"bot": "random"}]
    assert create_match(client, {"game": "harbour-race", "seats": other}, players[2].private_key).status_code == 201


def test_invite_quotas_come_from_the_environment() -> None:
    s = Settings.from_env({"PORTOLAN_INVITES_PER_CREATOR_HOUR": "7", "PORTOLAN_INVITES_PER_RECIPIENT_DAY": "0",
                           "PORTOLAN_RATE_LIMITS": "off", "PORTOLAN_RATE_CREATE": "5/hour", "PORTOLAN_PROXIES": "1"})
    assert (s.invites_per_creator_hour, s.invites_per_recipient_day) == (7, 0)
    assert (s.rate_limits, s.rate_create, s.proxies) == (False, "5/hour", 1)
    with pytest.raises(ValueError, match="PORTOLAN_PROXIES must be an integer"):
        Settings.from_env({"PORTOLAN_PROXIES": "yes"})


# -- rate limits ------------------------------------------------------------------------------


def limited(settings: Settings, service: Matches, **limits: Any) -> Any:
    return create_app(dataclasses.replace(settings, **limits), service, TESTING=True).test_client()


def assert_rate_limited(r: Any) -> None:
    body = assert_problem(r, 429, "rate-limited")
    assert "rate limit" in body["detail"]
    assert 1 <= int(r.headers["Retry-After"]) <= 61  # a one-minute window, rounded up


def test_a_read_over_its_limit_is_429_with_retry_after(settings: Settings, service: Matches, redis_url: str) -> None:
    c = limited(settings, service, rate_read="3/minute")
    for _ in range(3):
        assert c.get("/v1/games").status_code == 200
    assert_rate_limited(c.get("/v1/games"))
    # another client address has its own budget; X-Forwarded-For is not believed without a proxy setting
    assert c.get("/v1/games", environ_base={"REMOTE_ADDR": "10.0.0.9"}).status_code == 200
    assert_rate_limited(c.get("/v1/games", headers={"X-Forwarded-For": "10.0.0.8"}))
    # the counters live in the store's Redis, under the test's namespace
    assert list(connect(redis_url).scan_iter(match=f"{settings.namespace}ratelimit*"))


def test_behind_a_proxy_the_forwarded_address_is_the_client(settings: Settings, service: Matches) -> None:
    c = limited(settings, service, rate_read="1/minute", proxies=1)
    assert c.get("/v1/games", headers={"X-Forwarded-For": "10.0.0.1"}).status_code == 200
    assert_rate_limited(c.get("/v1/games", headers={"X-Forwarded-For": "10.0.0.1"}))
    assert c.get("/v1/games", headers={"X-Forwarded-For": "10.0.0.2"}).status_code == 200


def test_a_create_over_its_limit_is_429_and_stores_nothing(settings: Settings, service: Matches,
                                                           players: list[Player], invites: list[Any]) -> None:
    c = limited(settings, service, rate_create="1/minute")
    ana, bea = players[0].private_key, players[1].private_key
    assert create_match(c, {"game": "harbour-race", "seats": SEATS}, ana).status_code == 201
    assert_rate_limited(create_match(c, {"game": "harbour-race", "seats": SEATS}, ana))
    assert len(stored_matches(service)) == 1 and len(invites) == 2
    # signed requests count per key, not per address
    assert create_match(c, {"game": "harbour-race", "seats": SEATS}, bea).status_code == 201


def test_fresh_keys_do_not_escape_the_per_address_create_limit(settings: Settings, service: Matches) -> None:
    c = limited(settings, service, rate_create="100/minute", rate_create_per_address="2/minute")
    bots = {"game": "harbour-race", "seats": [{"bot": "random"}] * 2}
    for _ in range(2):
        assert create_match(c, bots, signing.generate_private_key()).status_code == 201
    assert_rate_limited(create_match(c, bots, signing.generate_private_key()))
    assert len(stored_matches(service)) == 2
    # another address has a budget of its own
    r = signed_post(c, "/v1/matches", bots, signing.generate_private_key(), environ_base={"REMOTE_ADDR": "10.0.0.7"})
    assert r.status_code == 201


def test_a_move_over_its_limit_is_429_and_changes_nothing(settings: Settings, service: Matches,
                                                          players: list[Player]) -> None:
    c = limited(settings, service, rate_write="3/minute")
    made = create_match(c, {"game": "harbour-race", "seats": SEATS}).get_json()
    mid = made["id"]
    for seat in (0, 1):
        claim = {"token": made["invites"][str(seat)], "public_key": players[seat].public_key, "name": f"p{seat}"}
        assert c.post(f"/v1/matches/{mid}/seats/{seat}/claim", json=claim).status_code == 200
    seat = service.meta(mid).active[0]
    first = players[seat].envelope(mid, seat, 0, [{"type": "roll"}])
    assert c.post(f"/v1/matches/{mid}/moves", json=first).status_code == 201
    assert c.post(f"/v1/matches/{mid}/moves", json=first).status_code == 200  # a resubmission counts too
    assert c.post(f"/v1/matches/{mid}/moves", json=first).status_code == 200
    nxt = service.meta(mid).active[0]
    assert_rate_limited(c.post(f"/v1/matches/{mid}/moves", json=players[nxt].envelope(mid, nxt, 1, [{"type": "roll"}])))
    assert service.meta(mid).ply == 1 and service.store.log_length(mid) == 1


def test_a_dead_redis_is_503_from_the_routes_not_500_from_the_limiter(settings: Settings) -> None:
    from service.storage.connection import connect

    dead = dataclasses.replace(settings, redis_url=f"redis://127.0.0.1:{free_port()}/0", rate_read="1/minute",
                               rate_create="1/minute")
    service = Matches(store=Store(connect(dead.redis_url), dead.namespace), server_key=signing.generate_private_key())
    c = create_app(dead, service, TESTING=True).test_client()
    for _ in range(2):
        assert_problem(c.get("/v1/matches/abcdefghijkm"), 503, "storage-unavailable")
        assert_problem(create_match(c, {"game": "harbour-race", "seats": SEATS}), 503, "storage-unavailable")


def test_limits_switched_off_never_answer_429(settings: Settings, service: Matches) -> None:
    c = limited(settings, service, rate_read="1/minute", rate_limits=False)
    assert all(c.get("/v1/games").status_code == 200 for _ in range(5))


def test_the_default_limits_are_documented(settings: Settings) -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for doc in ("README.md", "deploy/README.md"):
        text = (root / doc).read_text()
        for var in ("PORTOLAN_RATE_LIMITS", "PORTOLAN_RATE_READ", "PORTOLAN_RATE_WRITE", "PORTOLAN_RATE_CREATE",
                    "PORTOLAN_RATE_CREATE_PER_ADDRESS", "PORTOLAN_PROXIES", "PORTOLAN_INVITES_PER_CREATOR_HOUR", "PORTOLAN_INVITES_PER_RECIPIENT_DAY"):
            assert var in text, f"{doc} does not document {var}"


def _forged(victim: Player, path: str, body: bytes) -> dict[str, str]:
    """A header naming ``victim``'s public key (public: it is in every log and record) over a
    signature made with some other key: what anyone can send without the victim's private key."""
    real = signing.authorization(signing.generate_private_key(), "POST", path, "", body)
    return {"Authorization": real.replace(real.split('"')[1], victim.public_key, 1)}


def test_forged_requests_naming_a_victims_key_do_not_spend_the_victims_budget(
        settings: Settings, service: Matches, players: list[Player]) -> None:
    """Found by the second outside test: the limiter counted a request against the key its
    header names before anything checked the signature, so anyone knowing a public key (every
    log shows them) could lock its holder out of creating, claiming and moving for the window.
    A key's bucket now counts only requests that key really signed; forgeries count against the
    sender's address, and are 401."""
    c = limited(settings, service, rate_create="2/minute", rate_create_per_address="100/minute")
    victim = players[0]
    bots = {"game": "harbour-race", "seats": [{"bot": "random"}] * 2}
    body = json.dumps(bots).encode()
    answers = [c.post("/v1/matches", data=body, content_type="application/json",
                      headers=_forged(victim, "/v1/matches", body), environ_base={"REMOTE_ADDR": "10.6.6.6"})
               for _ in range(5)]  # from the attacker's address, whose own budget they spend
    for r in answers[:2]:
        assert_problem(r, 401, "bad-signature")
    for r in answers[2:]:
        assert_rate_limited(r)
    # the victim, from elsewhere, still has the whole budget of its key
    for _ in range(2):
        assert signed_post(c, "/v1/matches", bots, victim.private_key).status_code == 201
    assert_rate_limited(signed_post(c, "/v1/matches", bots, victim.private_key))


def test_forgeries_count_against_the_senders_address(settings: Settings, service: Matches,
                                                      players: list[Player]) -> None:
    """Bad signatures are not free: each counts against the sending address's bucket, so a flood of
    forgeries meets the limit like any other traffic."""
    c = limited(settings, service, rate_read="3/minute")
    path = "/v1/me/turns"
    for _ in range(3):
        headers = {"Authorization": _forged(players[0], path, b"")["Authorization"]}
        assert_problem(c.get(path, headers=headers), 401, "bad-signature")
    assert_rate_limited(c.get(path))  # the address's budget on this route is spent
    # while the named key's holder, signing for real from the same address, is untouched
    assert c.get(path, headers=players[0].auth("GET", path)).status_code == 200


def test_board_pngs_have_a_small_budget_per_address(settings: Settings, service: Matches) -> None:
    """A PNG costs tenths of a second of CPU to draw, for any past ply: far fewer than reads, per
    address (keys cost nothing), while the SVG keeps the read limit."""
    from service.api.limits import PNGS_PER_ADDRESS
    budget = int(PNGS_PER_ADDRESS.split("/")[0])
    c = limited(settings, service)
    for _ in range(budget):
        assert c.get("/v1/matches/nosuchmatch/board.png").status_code == 404
    assert_rate_limited(c.get("/v1/matches/nosuchmatch/board.png"))
    assert c.get("/v1/matches/nosuchmatch/board.svg").status_code == 404  # the read budget is its own
    assert c.get("/v1/matches/nosuchmatch/board.png", environ_base={"REMOTE_ADDR": "10.0.0.9"}).status_code == 404
