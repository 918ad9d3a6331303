"""Invitation quotas and the all-bot match cap: how much mail and CPU one client may cause.

Inviting a seat sends mail to an address the creator names, so creation is a way to make the
server send mail to anyone. Fixed-window quotas bound it: invitations per creator key per hour
and per recipient address per day (issue 9), and, since keys cost nothing, per **client
address** per hour and for the whole installation per hour (issue 28). All are taken at once or
not at all, before anything of the match is stored, so a refused creation stores nothing and
sends nothing. The counters live in Redis through the store (:meth:`Store.take_quota`, one Lua
script: two racing API processes cannot both slip past).

A client address is what the API sees as the request's remote address (behind
``PORTOLAN_PROXIES`` trusted proxies, the one they forwarded), with an IPv6 address taken as its
/64: one phone or one home gets a /64, and counting single IPv6 addresses would give a script
2**64 clients (:func:`client_network`).

All-bot matches cost CPU and nothing else, so a client address may have at most
``BotLimits.matches_per_address`` of them running at once (:meth:`BotLimits.hold`), and each
all-bot match has a budget of search iterations (:meth:`BotLimits.search_allowed`;
docs/bots.md "What a bot may cost").
"""

from __future__ import annotations

import hashlib
import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from service.i18n import phrase
from service.play.errors import TooManyRequests
from service.proof.match_record import ENDED

if TYPE_CHECKING:  # injected, as in service.play.context
    from service.storage.store import Store

HOUR_S = 3600
DAY_S = 86400
PLACE_GRACE_S = 120
"""How long a held place may name a match not stored yet (the creation that took it is still on its
way to the store) before a check counts it as a creation that failed and frees it."""


def client_network(remote_addr: str | None) -> str:
    """The client a request counts as: an IPv4 address as it is, an IPv6 address as its /64
    (``2001:db8:1:2::/64``; an IPv4-mapped one as its IPv4), anything else ("", a unix socket) as
    written."""
    text = (remote_addr or "").strip()
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])  # a zone index names no other client
    except ValueError:
        return text
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def _digest(text: str) -> str:
    """A key name's part for an address: a digest, since key names show up in monitoring and dumps."""
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class InviteLimits:
    """The operator's quotas (service/config.py); 0 switches one off."""

    per_creator_hour: int = 60
    per_recipient_day: int = 20
    per_address_hour: int = 40
    install_hour: int = 1000

    def take(self, store: Store, creator_key: str, emails: Iterable[str], client: str = "") -> None:
        """Count one invitation per address in ``emails`` against every quota, or raise
        :class:`TooManyRequests` (code ``invite-throttled``) and count nothing. ``client`` is the
        request's client address (:func:`client_network`; "" when no request made it: not counted
        per address)."""
        addresses = [e.strip().lower() for e in emails if e]  # the same mailbox however it is spelled
        if not addresses:
            return
        counters: list[tuple[str, int, int, int]] = []
        whys: list[str] = []
        if self.install_hour:
            counters.append(("install", len(addresses), self.install_hour, HOUR_S))
            whys.append(phrase("this server sends at most {most} invitations per hour, from everyone together "
                               "(PORTOLAN_INVITES_INSTALL_HOUR)", most=self.install_hour))
        if self.per_address_hour and client:
            counters.append((f"client:{_digest(client)}", len(addresses), self.per_address_hour, HOUR_S))
            whys.append(phrase("one client address may cause at most {most} invitations per hour, whatever keys it "
                               "signs with (PORTOLAN_INVITES_PER_ADDRESS_HOUR)", most=self.per_address_hour))
        if self.per_creator_hour:
            counters.append((f"creator:{creator_key}", len(addresses), self.per_creator_hour, HOUR_S))
            whys.append(phrase("this key may send at most {most} invitations per hour "
                               "(PORTOLAN_INVITES_PER_CREATOR_HOUR)", most=self.per_creator_hour))
        if self.per_recipient_day:
            per_address: dict[str, int] = {}
            for a in addresses:
                per_address[a] = per_address.get(a, 0) + 1
            for a, n in per_address.items():
                counters.append((f"recipient:{_digest(a)}", n, self.per_recipient_day, DAY_S))
                whys.append(phrase("one address may receive at most {most} invitations per day "
                                   "(PORTOLAN_INVITES_PER_RECIPIENT_DAY)", most=self.per_recipient_day))
        refused = store.take_quota("invites", counters)
        if refused is None:
            return
        index, retry_after = refused
        raise TooManyRequests("invite-throttled", phrase("the match was not created and no invitation was sent: {why}; try again in {retry_after} s", why=whys[index], retry_after=retry_after), retry_after)


@dataclass(frozen=True)
class BotLimits:
    """What all-bot matches may cost (service/config.py); 0 switches one off.

    ``matches_per_address``: all-bot matches one client address may have running at once
    (``PORTOLAN_BOT_MATCHES_PER_ADDRESS``). ``search_budget``: search iterations all the search
    bots of one all-bot match may spend together (``PORTOLAN_BOT_SEARCH_BUDGET``); past it they
    play as the heuristic does. A match with a person in it is never budgeted."""

    matches_per_address: int = 10
    search_budget: int = 4800

    def hold(self, store: Store, client: str, match_id: str, now_s: float) -> None:
        """Take one of ``client``'s places for the all-bot match ``match_id`` (not stored yet), or
        raise :class:`TooManyRequests` (code ``bot-matches-throttled``) and take nothing.

        The places are a set of match ids per client address, pruned here of the matches that
        are over or gone (archived, or a creation that never stored its match): nothing has to
        give a place back when a match ends, so no lost decrement can leak one."""
        if not self.matches_per_address or not client:
            return
        places = store.places(f"bot-matches:{_digest(client)}")
        held = places.held()
        metas = store.metas(list(held), ("id", "status"))
        over = [mid for (mid, since), meta in zip(held.items(), metas, strict=True)
                if (meta.status in ENDED if meta is not None else now_s - since > PLACE_GRACE_S)]
        places.free(over)
        if not places.take(match_id, self.matches_per_address, now_s):
            raise TooManyRequests(
                "bot-matches-throttled",
                phrase("the match was not created: one client address may have at most {most} matches of bots only running at once (the operator's PORTOLAN_BOT_MATCHES_PER_ADDRESS); a place frees when one of them ends", most=self.matches_per_address), HOUR_S // 60)

    def search_allowed(self, store: Store, match_id: str, cost: int) -> bool:
        """May a search bot of the all-bot match ``match_id`` spend ``cost`` more iterations? Counts
        them when it may; once one decision is refused, every later one is (``cost`` 0 included)."""
        if not self.search_budget:
            return True
        return store.places(f"search-spent:{match_id}").spend(cost, self.search_budget, 30 * DAY_S)
