"""Moves by mail are signed all the same (issue 11 item 5): a delegated seat's mail moves are
signed by its mail key and carry the delegation; a keyless player who joined by mail has a
custodial seat; a redelivered message moves once; a seat without a delegation is refused and
nothing changes."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from service.play.errors import BadRequest, Conflict, Forbidden, ServiceError, Unauthorized, Unprocessable
from service.play.matches import Matches
from service.proof import signing
from service.proof.chain import entry_hash
from service.proof.delegation import custodial_private_key
from service.proof.match_record import MatchMeta
from tests.conftest import CREATOR_KEY, Player
from tests.helpers.verify import delegate, two_player_match


def digest_of(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def snapshot(m: Matches, mid: str) -> tuple[MatchMeta, int]:
    return m.meta(mid), m.store.log_length(mid)


def test_a_delegated_mail_move_is_signed_by_the_mail_key_and_logged_with_its_delegation(
        service: Matches, players: list[Player]) -> None:
    mid = two_player_match(service, players)
    meta = service.meta(mid)
    seat = meta.active[0]
    msg = digest_of("the first reply")
    result = service.submit_by_mail(mid, seat, 0, [{"type": "roll"}], message_digest=msg)
    assert result["replayed"] is False and result["accepted_ply"] == 0
    assert result["view"]["seat"] == seat  # the sender was authenticated by the desk: a private answer
    entry = service.store.log(mid, 0, 0)[0]
    assert entry["by"] == "email"
    assert entry["mail"] == {"digest": msg}
    assert entry["envelope"]["nonce"] == "mail-" + msg[:32]
    assert entry_hash(mid, entry) == entry["hash"]
    row = meta.seats[seat]
    if seat == 0:  # delegated: the mail key signs, the delegation signed by Ana's key rides along
        assert entry["delegation"]["body"] == service.delegation_body(mid, 0, row.mail_key)
        assert signing.verify(players[0].public_key, entry["delegation"]["body"], entry["delegation"]["signature"])
        assert signing.verify(row.mail_key, entry["envelope"], entry["signature"])
        assert not signing.verify(players[0].public_key, entry["envelope"], entry["signature"])
    else:  # custodial: the seat's own (server-held) key signs, and there is nothing delegated
        assert "delegation" not in entry
        assert row.custody == "server"
        assert signing.verify(row.public_key, entry["envelope"], entry["signature"])


def test_the_custodial_seat_key_is_derived_from_the_server_key(service: Matches, players: list[Player]) -> None:
    mid = two_player_match(service, players)
    row = service.meta(mid).seats[1]
    assert row.custody == "server" and row.name == "Cid" and row.email == "cid@example.org"
    assert row.public_key == signing.public_key_of(custodial_private_key(service.server_key, mid, 1))
    assert service.mail_ready(service.meta(mid), 1) is None
    # joining again is the same join (a redelivered "join" mail), not a conflict
    again = service.join_by_mail(mid, 1, "Cid", "cid@example.org")
    assert again["status"] == "active"


def test_mail_moves_play_both_kinds_of_seat(service: Matches, players: list[Player]) -> None:
    mid = two_player_match(service, players)
    for n in range(12):
        meta = service.meta(mid)
        if meta.status != "active":
            break
        seat = meta.active[0]
        legal = service.view(mid, seat)["legal_actions"]
        service.submit_by_mail(mid, seat, meta.ply, [legal[-1]["action"]], message_digest=digest_of(f"reply {n}"))
    entries = service.store.log(mid)
    assert len(entries) >= 2 and all(e["by"] == "email" for e in entries)
    assert {e["seat"] for e in entries} == {0, 1}


def test_a_redelivered_message_moves_once(service: Matches, players: list[Player]) -> None:
    mid = two_player_match(service, players)
    seat = service.meta(mid).active[0]
    msg = digest_of("one reply, delivered twice")
    first = service.submit_by_mail(mid, seat, 0, [{"type": "roll"}], message_digest=msg)
    again = service.submit_by_mail(mid, seat, 0, [{"type": "roll"}], message_digest=msg)
    assert again["replayed"] is True
    assert again["head"] == first["head"] and again["receipt"] == first["receipt"]
    assert service.store.log_length(mid) == 1


def test_a_seat_without_a_delegation_is_refused_and_nothing_changes(service: Matches, players: list[Player]) -> None:
    mid = two_player_match(service, players, delegated=False)
    meta = service.meta(mid)
    if meta.active != (0,):  # let the custodial seat pass the turn to Ana first
        while service.meta(mid).active != (0,):
            m = service.meta(mid)
            service.submit_by_mail(mid, 1, m.ply, [{"type": "roll"}], message_digest=digest_of(f"cid {m.ply}"))
    before = snapshot(service, mid)
    reason = service.mail_ready(before[0], 0)
    assert reason is not None and "has not delegated moves by mail" in reason
    with pytest.raises(Forbidden) as refused:
        service.submit_by_mail(mid, 0, before[0].ply, [{"type": "roll"}], message_digest=digest_of("ana"))
    assert refused.value.code == "no-mail-delegation" and refused.value.status == 403
    assert refused.value.message == reason
    assert snapshot(service, mid) == before


def test_mail_moves_are_refused_like_any_move(service: Matches, players: list[Player]) -> None:
    mid = two_player_match(service, players)
    meta = service.meta(mid)
    seat, other = meta.active[0], 1 - meta.active[0]
    before = snapshot(service, mid)
    cases: list[tuple[type[ServiceError], str, int, int, list[dict[str, Any]]]] = [
        (Unprocessable, "illegal-action", seat, 0, [{"type": "bank"}]),  # nothing to bank yet
        (BadRequest, "invalid-action", seat, 0, [{"type": "fly"}]),
        (Conflict, "stale-ply", seat, 3, [{"type": "roll"}]),
        (Conflict, "not-your-turn", other, 0, [{"type": "roll"}]),
    ]
    for n, (kind, code, who, ply, actions) in enumerate(cases):
        with pytest.raises(kind) as refused:
            service.submit_by_mail(mid, who, ply, actions, message_digest=digest_of(f"bad {n}"))
        assert refused.value.code == code
        assert snapshot(service, mid) == before
    illegal = cases[0]
    with pytest.raises(Unprocessable) as refused:
        service.submit_by_mail(mid, seat, 0, illegal[4], message_digest=digest_of("bad 0"))
    assert "roll first" in refused.value.message and refused.value.extra["rule_code"] == "empty-haul"
    with pytest.raises(BadRequest) as bad:
        service.submit_by_mail(mid, seat, 0, [{"type": "roll"}], message_digest="not hex")
    assert bad.value.code == "bad-message-digest"
    assert snapshot(service, mid) == before


def test_a_claim_with_a_forged_delegation_is_refused(service: Matches, players: list[Player]) -> None:
    made = service.create("harbour-race", {}, [{"invite": "ana@example.org"}, {"bot": "random"}], creator_key=CREATOR_KEY)
    mid = str(made["id"])
    forged = delegate(service, mid, 0, players[1])  # Bea's key signs for Ana's claim
    with pytest.raises(Unauthorized) as refused:
        service.claim(mid, 0, made["invites"]["0"], players[0].public_key, "Ana", "", mail_delegation=forged)
    assert refused.value.code == "bad-mail-delegation"
    assert service.meta(mid).status == "waiting" and not service.meta(mid).seats[0].claimed


def test_submit_refuses_to_log_a_move_as_by_email(service: Matches, players: list[Player]) -> None:
    mid = two_player_match(service, players)
    seat = service.meta(mid).active[0]
    env = {"match": mid, "seat": seat, "ply": 0, "actions": [{"type": "roll"}], "nonce": "x"}
    sig = signing.sign(custodial_private_key(service.server_key, mid, 1), env)
    with pytest.raises(BadRequest) as refused:
        service.submit(mid, env, sig, by="email")
    assert refused.value.code == "bad-origin"
    assert service.store.log_length(mid) == 0


def test_a_withdrawal_made_elsewhere_while_a_mail_move_is_on_its_way_stops_it(
        service: Matches, players: list[Player], monkeypatch: pytest.MonkeyPatch) -> None:
    """This process made the current ply and holds the meta it left (the fast path of a move);
    another process withdraws the delegation after the mail move passed its first check. The move
    is judged against the stored meta, not the held one, so it is refused and nothing changes."""
    from service.play.seats import keys
    from service.play.seats.keys import withdraw_mail_delegation
    from service.proof.delegation import withdrawal_body

    mid = two_player_match(service, players)
    while service.meta(mid).active != (0,):
        m = service.meta(mid)
        service.submit_by_mail(mid, 1, m.ply, [{"type": "roll"}], message_digest=digest_of(f"cid {m.ply}"))
    ply = service.meta(mid).ply
    assert service.states.held_meta(mid, ply) is not None  # what the fast path would judge by
    other = Matches(service.store, service.server_key)  # another process on the same store
    mail_key = other.meta(mid).seats[0].mail_key
    checked = keys.submit_checked  # what the mail move commits through, after its first check

    def withdrawn_meanwhile(*args: Any, **kwargs: Any) -> dict[str, Any]:
        withdraw_mail_delegation(other, mid, 0, players[0].public_key,
                                 signing.sign(players[0].private_key, withdrawal_body(mid, 0, mail_key)))
        return checked(*args, **kwargs)

    monkeypatch.setattr(keys, "submit_checked", withdrawn_meanwhile)
    with pytest.raises(Forbidden) as refused:
        service.submit_by_mail(mid, 0, ply, [{"type": "roll"}], message_digest=digest_of("on its way"))
    assert refused.value.code == "no-mail-delegation"
    assert service.store.log_length(mid) == ply
