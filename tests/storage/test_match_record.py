"""The typed match record renders exactly what it read: ``MatchMeta.from_dict(d).to_dict() == d``
for the stored metas of real matches of every kind, made through the service."""

from __future__ import annotations

from typing import Any, cast

from service.play.matches import Matches
from service.play.seats import key_attach, keys
from service.proof import signing
from service.proof.delegation import seat_key_body, withdrawal_body
from service.proof.match_record import MatchMeta, SeatRow
from service.storage.keys import decode_meta
from tests.conftest import CREATOR, CREATOR_KEY, Player

GAME = "harbour-race"
INVITES = [{"invite": "a@example.org"}, {"invite": "b@example.org"}]


def _stored(service: Matches, match_id: str) -> dict[str, Any]:
    """The meta hash exactly as Redis holds it, decoded (no archive fallback)."""
    return decode_meta(cast(dict[bytes, bytes], service.store.r.hgetall(service.store._k(match_id, "meta"))))


def _play_out(service: Matches, match_id: str) -> None:
    for _ in range(500):
        meta = service.store.meta(match_id)
        assert meta is not None
        if meta.status != "active":
            return
        service.server_move(match_id, meta.active[0], meta.ply)
    raise AssertionError("the bots never finished")


def _kinds(service: Matches, players: list[Player]) -> dict[str, str]:
    """One match of every kind the record can describe, by name."""
    made: dict[str, str] = {}
    made["created"] = service.create(GAME, {}, INVITES, creator_key=CREATOR_KEY, creator_name="Ann")["id"]
    claimed = service.create(GAME, {}, INVITES, creator_key=CREATOR_KEY)
    service.claim(claimed["id"], 0, claimed["invites"]["0"], players[0].public_key, "P0", "p0@example.org")
    made["claimed"] = claimed["id"]
    delegated = service.create(GAME, {}, INVITES, creator_key=CREATOR_KEY,
                               time_control={"kind": "per-move", "days": 2}, timeout_policy={"grace_hours": 0})
    mail_key = service.mail_public_key(delegated["id"], 1, 0)
    signature = signing.sign(players[1].private_key, service.delegation_body(delegated["id"], 1, mail_key))
    service.claim(delegated["id"], 1, delegated["invites"]["1"], players[1].public_key, "P1", "p1@example.org",
                  nonce="n1", mail_delegation=signature)
    service.join_by_mail(delegated["id"], 0, "Custodian", "c@example.org")
    made["mail-delegated, custodial, clock"] = delegated["id"]
    service.attach_token(delegated["id"], 0)
    made["attach pending"] = delegated["id"]
    attached = service.create(GAME, {}, INVITES, creator_key=CREATOR_KEY)
    service.claim(attached["id"], 1, attached["invites"]["1"], players[1].public_key, "P1", "p1@example.org",
                  nonce="n1", mail_delegation=signing.sign(
                      players[1].private_key,
                      service.delegation_body(attached["id"], 1, service.mail_public_key(attached["id"], 1, 0))))
    service.join_by_mail(attached["id"], 0, "Custodian", "c@example.org")
    token, ply = service.attach_token(attached["id"], 0), service.meta(attached["id"]).ply
    key_attach.attach_key(service, attached["id"], 0, token, players[0].public_key, ply,
                          signing.sign(players[0].private_key, seat_key_body(attached["id"], 0, players[0].public_key,
                                                                             ply)))
    mail_key = service.meta(attached["id"]).seats[1].mail_key or ""
    keys.withdraw_mail_delegation(service, attached["id"], 1, players[1].public_key,
                                  signing.sign(players[1].private_key, withdrawal_body(attached["id"], 1, mail_key)))
    made["key attached, delegation withdrawn"] = attached["id"]
    made["bots"] = service.create(GAME, {}, [{"bot": "random"}, {"bot": "random"}], creator_key=CREATOR_KEY)["id"]
    finished = service.create(GAME, {"target": 5}, [{"bot": "random"}, {"bot": "random"}], creator_key=CREATOR_KEY,
                              time_control={"kind": "per-move", "days": 2})["id"]
    _play_out(service, finished)
    made["finished"] = finished
    aborted = service.create(GAME, {}, INVITES, creator_key=CREATOR_KEY)["id"]
    service.abort(aborted, CREATOR_KEY)
    made["aborted"] = aborted
    late = service.create(GAME, {}, INVITES, creator_key=CREATOR_KEY, time_control={"kind": "per-move", "days": 1},
                          timeout_policy={"grace_hours": 0})
    for seat in (0, 1):
        service.claim(late["id"], seat, late["invites"][str(seat)], players[seat].public_key, f"P{seat}",
                      f"p{seat}@example.org")
    service.now = lambda: "2099-01-01T00:00:00.000Z"
    meta = service.store.meta(late["id"])
    assert meta is not None
    service.timeout(late["id"], meta.active[0])
    made["stand-in after a timeout"] = late["id"]
    return made


def test_the_record_of_every_kind_of_match_renders_as_it_was_read(service: Matches, players: list[Player]) -> None:
    assert CREATOR  # the creator's key signs nothing here: the use cases take its public half
    made = _kinds(service, players)
    for kind, match_id in made.items():
        stored = _stored(service, match_id)
        typed = MatchMeta.from_dict(stored)
        assert typed.to_dict() == stored, kind
        assert not typed.unknown and not any(r.unknown for r in typed.seats), f"{kind}: a field the type lacks"
    seats = MatchMeta.from_dict(_stored(service, made["mail-delegated, custodial, clock"])).seats
    assert seats[0].is_custodial and seats[1].mail_key and seats[1].mail_delegation
    changed = MatchMeta.from_dict(_stored(service, made["key attached, delegation withdrawn"])).seats
    assert changed[0].key_changes and changed[0].genesis_key and changed[1].mail_withdrawals
    assert changed[1].generation == 1
    finished = _stored(service, made["finished"])
    assert finished["status"] == "finished" and finished["outcome"] and finished["clocks"]
    assert _stored(service, made["stand-in after a timeout"])["standing"]
    # archived: the tombstone, and the whole meta the store reads back from the document
    where = service.store.archive(made["finished"])
    tombstone = _stored(service, made["finished"])
    assert tombstone["archived"] == where
    assert MatchMeta.from_dict(tombstone).to_dict() == tombstone
    whole = service.store.meta(made["finished"])
    assert whole is not None and whole.to_dict() == {**finished, **tombstone}
    assert whole.is_archived and whole.outcome == finished["outcome"]


def test_a_meta_from_an_older_build_keeps_what_it_lacks_and_what_it_does_not_know() -> None:
    old = {"id": "abc", "game": GAME, "players": 1, "status": "waiting", "ply": 0,
           "seats": [{"seat": 0, "kind": "human", "claimed": False, "future": 1}], "later": "x"}
    typed = MatchMeta.from_dict(old)
    assert typed.to_dict() == old
    assert typed.time_control is None and "time_control" not in typed.to_dict()
    assert typed.but(outcome=None).to_dict()["outcome"] is None
    assert typed.with_seat(SeatRow(seat=0, kind="bot", claimed=True)).seats[0].is_bot
