"""Issue 28, items 1 and 5: invitations are no relay and bots are not free, per client address.

Keys cost nothing, so the per-key quotas did not bind: 80 creations from two client addresses,
each with fresh keys, announced 320 invitations to 320 strangers with the creator's text in their
Subject. Now a client address (an IPv6 one as its /64) may cause at most
PORTOLAN_INVITES_PER_ADDRESS_HOUR invitations an hour and the installation
PORTOLAN_INVITES_INSTALL_HOUR; the same address may have at most PORTOLAN_BOT_MATCHES_PER_ADDRESS
matches of bots only running. Each refusal is 429 problem+json with Retry-After, and stores,
announces and enqueues nothing.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from service.config import Settings
from service.play.matches import Matches
from service.play.throttle import PLACE_GRACE_S, BotLimits, InviteLimits, client_network
from service.proof import signing
from tests.conftest import signed_post
from tests.helpers.matches import assert_problem

ATTACKER = "203.0.113.7"


def create_from(client: Any, address: str, seats: list[dict[str, Any]], key: str | None = None,
                name: str = "Claim your prize at evil.example") -> Any:
    """A creation signed by a fresh key (keys cost nothing) from ``address``."""
    body = {"game": "harbour-race", "creator_name": name, "seats": seats}
    return signed_post(client, "/v1/matches", body, key or signing.generate_private_key(),
                       environ_base={"REMOTE_ADDR": address})


def strangers(n: int, tag: str) -> list[dict[str, Any]]:
    """``n`` invited seats (a random bot beside a single one: a harbour race has two seats or more)."""
    return [{"invite": f"{tag}-{i}@example.org"} for i in range(n)] + [{"bot": "random"}] * (2 - n if n < 2 else 0)


def announced_invitations(service: Matches) -> int:
    """Invitations the service announced in its outbox: each would become one mail."""
    store = service.store
    return sum(len(json.loads(f[b"data"])["invites"]) for key in store.outbox_keys() for _, f in store.r.xrange(key)
               if f[b"kind"] == b"created")


def queued_jobs(service: Matches, settings: Settings) -> int:
    """Jobs waiting in the RQ queues (the dispatcher is not running: none may come from a request)."""
    return sum(int(service.store.q.llen(f"rq:queue:{settings.queue_name(kind)}")) for kind in ("notices", "bots"))


def test_many_keys_from_one_address_get_40_invitations_an_hour_then_429(client: Any, service: Matches,
                                                                         settings: Settings) -> None:
    for i in range(10):  # 10 creations x 4 invitations = the address's 40
        assert create_from(client, ATTACKER, strangers(4, f"v{i}")).status_code == 201
    before = (service.store.match_ids(), announced_invitations(service))
    assert before[1] == 40
    r = create_from(client, ATTACKER, strangers(1, "one-more"))
    body = assert_problem(r, 429, "invite-throttled")
    assert "PORTOLAN_INVITES_PER_ADDRESS_HOUR" in body["detail"] and "40" in body["detail"]
    assert 3500 <= int(r.headers["Retry-After"]) <= 3600  # the window opened moments ago
    assert (service.store.match_ids(), announced_invitations(service)) == before  # nothing stored or announced
    assert queued_jobs(service, settings) == 0
    # a match of bots only sends no mail: the address may still make one; another address is unaffected
    assert create_from(client, ATTACKER, [{"bot": "random"}, {"bot": "random"}]).status_code == 201
    assert create_from(client, "198.51.100.9", strangers(4, "friend")).status_code == 201


def test_the_installation_budget_holds_across_addresses(client: Any, service: Matches) -> None:
    service.invite_limits = InviteLimits(per_creator_hour=0, per_recipient_day=0, per_address_hour=40, install_hour=6)
    for i in range(3):
        assert create_from(client, f"192.0.2.{i + 1}", strangers(2, f"a{i}")).status_code == 201
    r = create_from(client, "192.0.2.99", strangers(1, "late"))
    body = assert_problem(r, 429, "invite-throttled")
    assert "PORTOLAN_INVITES_INSTALL_HOUR" in body["detail"] and int(r.headers["Retry-After"]) > 3000
    assert len(service.store.match_ids()) == 3 and announced_invitations(service) == 6


def test_an_ipv6_client_counts_as_its_64(client: Any, service: Matches) -> None:
    service.invite_limits = InviteLimits(per_creator_hour=0, per_recipient_day=0, per_address_hour=4, install_hour=0)
    # the same /64 (a phone changing its privacy address) shares one budget
    assert create_from(client, "2001:db8:1:2::1", strangers(2, "x")).status_code == 201
    assert create_from(client, "2001:db8:1:2:ffff:abcd:1:9", strangers(2, "y")).status_code == 201
    assert_problem(create_from(client, "2001:db8:1:2:8000::7", strangers(1, "z")), 429, "invite-throttled")
    # the next /64 is another client
    assert create_from(client, "2001:db8:1:3::1", strangers(2, "w")).status_code == 201
    assert announced_invitations(service) == 6


@pytest.mark.parametrize(("remote", "client"), [
    ("203.0.113.7", "203.0.113.7"),
    ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
    ("2001:DB8:1:2::", "2001:db8:1:2::/64"),
    ("fe80::1%eth0", "fe80::/64"),
    ("::ffff:198.51.100.2", "198.51.100.2"),  # an IPv4 client on a dual-stack socket is its IPv4
    ("", ""),
    ("unix:/run/portolan.sock", "unix:/run/portolan.sock"),
])
def test_client_network(remote: str, client: str) -> None:
    assert client_network(remote) == client


def test_the_per_address_budget_reads_the_proxied_address_only_behind_a_trusted_proxy(
        settings: Settings, service: Matches) -> None:
    from dataclasses import replace

    from service.api import create_app

    service.invite_limits = InviteLimits(per_creator_hour=0, per_recipient_day=0, per_address_hour=2, install_hour=0)
    proxied = create_app(replace(settings, proxies=1), service, TESTING=True).test_client()
    for i, forwarded in enumerate(("198.51.100.1", "198.51.100.2")):
        r = signed_post(proxied, "/v1/matches", {"game": "harbour-race", "seats": strangers(2, f"p{i}")},
                        signing.generate_private_key(), headers={"X-Forwarded-For": forwarded},
                        environ_base={"REMOTE_ADDR": "10.0.0.1"})
        assert r.status_code == 201  # two clients behind the one proxy
    # without a trusted proxy the header is anyone's word: the budget is the connecting address's
    direct = create_app(settings, service, TESTING=True).test_client()
    r = signed_post(direct, "/v1/matches", {"game": "harbour-race", "seats": strangers(2, "d1")},
                    signing.generate_private_key(), headers={"X-Forwarded-For": "198.51.100.3"},
                    environ_base={"REMOTE_ADDR": "10.0.0.1"})
    assert r.status_code == 201
    r = signed_post(direct, "/v1/matches", {"game": "harbour-race", "seats": strangers(1, "d2")},
                    signing.generate_private_key(), headers={"X-Forwarded-For": "198.51.100.4"},
                    environ_base={"REMOTE_ADDR": "10.0.0.1"})
    assert_problem(r, 429, "invite-throttled")


# -- matches of bots only ------------------------------------------------------------------------

BOTS = [{"bot": "random"}, {"bot": "random"}]


def play_out(service: Matches, match_id: str) -> None:
    """Play a match of random bots to its end, as the bot jobs would."""
    for _ in range(2000):
        meta = service.meta(match_id)
        if meta.status != "active":
            return
        for seat in meta.active:
            service.server_move(match_id, seat, meta.ply)
    raise AssertionError("the match did not end")


def test_an_address_has_at_most_10_bot_matches_running_and_an_ended_one_frees_its_place(
        client: Any, service: Matches, settings: Settings) -> None:
    made = [create_from(client, ATTACKER, BOTS) for _ in range(10)]
    assert [r.status_code for r in made] == [201] * 10
    stored = service.store.match_ids()
    r = create_from(client, ATTACKER, BOTS)
    body = assert_problem(r, 429, "bot-matches-throttled")
    assert "PORTOLAN_BOT_MATCHES_PER_ADDRESS" in body["detail"] and "10" in body["detail"]
    assert int(r.headers["Retry-After"]) >= 1
    assert service.store.match_ids() == stored  # nothing stored, so no bot job either
    # a match with a person in it is not one of them, and another address has its own places
    assert create_from(client, ATTACKER, [{"invite": "me@example.org", "mine": True}, {"bot": "random"}]).status_code == 201
    assert create_from(client, "198.51.100.9", BOTS).status_code == 201
    # one ends by its rules: its place is free for the next
    first = made[0].get_json()["id"]
    play_out(service, first)
    assert service.meta(first).status == "finished"
    assert create_from(client, ATTACKER, BOTS).status_code == 201
    assert_problem(create_from(client, ATTACKER, BOTS), 429, "bot-matches-throttled")
    # one aborted, and one finished then archived (what stays in Redis is the archived stub), each frees one
    second, third = made[1].get_json()["id"], made[2].get_json()["id"]
    service.store.update_meta(second, lambda m: m.but(status="aborted"))
    play_out(service, third)
    from service.play import archiving
    archiving.archive_one(service, third)
    assert [create_from(client, ATTACKER, BOTS).status_code for _ in range(3)] == [201, 201, 429]


def test_a_place_whose_match_was_never_stored_frees_itself(service: Matches) -> None:
    limits = BotLimits(matches_per_address=1)
    limits.hold(service.store, "192.0.2.1", "never-stored", 1000.0)
    with pytest.raises(Exception, match="PORTOLAN_BOT_MATCHES_PER_ADDRESS"):
        limits.hold(service.store, "192.0.2.1", "next", 1000.0 + PLACE_GRACE_S)  # maybe still on its way
    limits.hold(service.store, "192.0.2.1", "next", 1001.0 + PLACE_GRACE_S)  # a creation that failed


def test_racing_processes_cannot_both_take_the_last_place(service: Matches) -> None:
    won: list[bool] = []
    places = service.store.places("race")
    start = threading.Barrier(12)

    def racer(i: int) -> None:
        start.wait()
        won.append(places.take(f"m{i}", 3, 1.0))

    threads = [threading.Thread(target=racer, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(won) == [False] * 9 + [True] * 3 and len(places.held()) == 3


def test_racing_creations_cannot_both_take_the_last_invitation(service: Matches) -> None:
    """The quotas are taken in one Lua script: of 12 creations racing from one address for 5
    invitations, exactly 5 get one."""
    from service.play.errors import TooManyRequests

    limits = InviteLimits(per_creator_hour=0, per_recipient_day=0, per_address_hour=5, install_hour=0)
    taken: list[bool] = []
    start = threading.Barrier(12)

    def racer(i: int) -> None:
        start.wait()
        try:
            limits.take(service.store, f"key{i}", [f"s{i}@example.org"], ATTACKER)
            taken.append(True)
        except TooManyRequests:
            taken.append(False)

    threads = [threading.Thread(target=racer, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(taken) == [False] * 7 + [True] * 5


def test_the_limits_come_from_the_environment() -> None:
    s = Settings.from_env({"PORTOLAN_INVITES_PER_ADDRESS_HOUR": "7", "PORTOLAN_INVITES_INSTALL_HOUR": "0",
                           "PORTOLAN_BOT_MATCHES_PER_ADDRESS": "3", "PORTOLAN_BOT_SEARCH_BUDGET": "500"})
    assert (s.invites_per_address_hour, s.invites_install_hour, s.bot_matches_per_address, s.bot_search_budget) \
        == (7, 0, 3, 500)
    d = Settings.from_env({})
    assert (d.invites_per_address_hour, d.invites_install_hour, d.bot_matches_per_address, d.bot_search_budget) \
        == (40, 1000, 10, 4800)
    with pytest.raises(ValueError, match="PORTOLAN_BOT_MATCHES_PER_ADDRESS"):
        Settings.from_env({"PORTOLAN_BOT_MATCHES_PER_ADDRESS": "ten"})
