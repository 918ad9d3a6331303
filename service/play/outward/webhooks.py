"""Use cases of webhooks: register, list, remove, ping, read the delivery log; and which events
a committed change sends to which hooks.

Two kinds of owner (the ``owner`` string the store keys hooks by):

* a **player** (``k:<public key>``): the hook hears of every match that key holds a seat in, as
  that seat sees it (its private events) plus ``your-turn``; requests are signed by that key;
* a **match** (``m:<id>``): set by the match's creator (requests signed by ``creator_key``),
  hears the public events of that match.

Deliveries never run here: :meth:`Webhooks.fan_out` hands (hook, event) pairs to the delivery
queue (RQ in production), so a slow or dead receiver never slows a move.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from service.i18n import phrase
from service.play.errors import Conflict, Forbidden, NotFound
from service.play.outward import events
from service.play.outward.hook_urls import Resolver, resolve_checked, system_resolver
from service.proof.match_record import MatchMeta

if TYPE_CHECKING:  # injected, as the match store is (see service.play.context)
    from service.play.context import MatchContext
    from service.storage.webhooks import WebhookStore

HOOK_ID = re.compile(r"wh_[A-Za-z0-9_-]{16}")
MAX_DESCRIPTION = 200


class DeliveryQueue(Protocol):
    """Where deliveries go to be done later (:class:`service.delivery.webhooks.RQWebhookQueue`)."""

    def deliver(self, owner: str, hook_id: str, msg_id: str, event: dict[str, Any]) -> None: ...
    def deliver_many(self, deliveries: list[tuple[str, str, str, dict[str, Any]]]) -> None: ...


class NullQueue:
    """Delivers nothing (pure unit tests)."""

    def deliver(self, owner: str, hook_id: str, msg_id: str, event: dict[str, Any]) -> None:
        pass

    def deliver_many(self, deliveries: list[tuple[str, str, str, dict[str, Any]]]) -> None:
        pass


def player_owner(public_key: str) -> str:
    return f"k:{public_key}"


def match_owner(match_id: str) -> str:
    return f"m:{match_id}"


@dataclass
class Webhooks:
    """The webhook use cases over the match use cases and a webhook store."""

    ctx: MatchContext
    store: WebhookStore
    queue: DeliveryQueue = field(default_factory=NullQueue)
    allow_private: bool = False
    per_owner: int = 10
    resolve: Resolver = system_resolver

    # -- who owns what -----------------------------------------------------------------------

    def owner_of_match(self, match_id: str, signer: str) -> str:
        """The owner string of a match's hooks, when ``signer`` (a verified key) created it;
        404 for no such match, 403 ``not-the-creator`` otherwise."""
        meta = self.ctx.meta(match_id)
        if meta.creator_key != signer:
            raise Forbidden("not-the-creator", phrase("only the key that created match {match_id} may manage its webhooks", match_id=match_id))
        return match_owner(match_id)

    # -- register, list, remove --------------------------------------------------------------

    def add(self, owner: str, url: str, description: str = "") -> dict[str, Any]:
        """Register a hook for ``owner`` after checking its URL (HTTPS, public addresses only);
        409 ``too-many-webhooks`` past the bound per owner."""
        resolve_checked(url, self.allow_private, self.resolve)
        hook = {"id": "wh_" + secrets.token_urlsafe(12), "url": url, "description": description[:MAX_DESCRIPTION],
                "created_at": self.ctx.now(), "disabled": False, "disabled_at": None, "disabled_reason": None}
        if not self.store.add(owner, hook, self.per_owner):
            raise Conflict("too-many-webhooks", phrase("this owner already has {most} webhooks, the most allowed; remove one first", most=self.per_owner))
        return self.public(owner, {**hook, "failures": 0})

    def all(self, owner: str) -> list[dict[str, Any]]:
        return [self.public(owner, h) for h in self.store.all(owner)]

    def get(self, owner: str, hook_id: str) -> dict[str, Any]:
        """One hook of ``owner`` (stored form), or 404 ``unknown-webhook``."""
        hook = self.store.get(owner, hook_id) if HOOK_ID.fullmatch(hook_id) else None
        if hook is None:
            raise NotFound("unknown-webhook", phrase("there is no webhook {hook_id!r} here", hook_id=hook_id))
        return hook

    def remove(self, owner: str, hook_id: str) -> None:
        self.get(owner, hook_id)
        self.store.remove(owner, hook_id)

    def deliveries(self, owner: str, hook_id: str) -> dict[str, Any]:
        """The hook (its state: disabled or not, why) and its last attempts, newest first."""
        hook = self.get(owner, hook_id)
        return {"webhook": self.public(owner, hook), "deliveries": self.store.deliveries(owner, hook_id)}

    def ping(self, owner: str, hook_id: str) -> dict[str, Any]:
        """Queue a ``ping`` event to the hook (a disabled hook too: a ping that gets through
        switches it back on)."""
        self.get(owner, hook_id)
        event = events.ping(hook_id, self.ctx.now(), secrets.token_hex(6))
        self.queue.deliver(owner, hook_id, event["id"], event)
        return {"queued": True, "event": event}

    @staticmethod
    def public(owner: str, hook: Mapping[str, Any]) -> dict[str, Any]:
        """What the owner is shown of a hook."""
        kind, _, who = owner.partition(":")
        return {"id": hook["id"], "url": hook["url"], "description": hook.get("description") or "",
                "scope": "player" if kind == "k" else "match", "match": who if kind == "m" else None,
                "created_at": hook["created_at"], "disabled": bool(hook.get("disabled")),
                "disabled_at": hook.get("disabled_at") or None, "disabled_reason": hook.get("disabled_reason") or None,
                "failures": int(hook.get("failures", 0))}

    # -- what a committed change sends -------------------------------------------------------

    def events_for(self, kind: str, match_id: str, ply: int, data: Mapping[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
        """(owner, message id, event) for every owner an outbox entry concerns: the match's hooks
        get the public events, each human seat's key its seat's view plus ``your-turn``. The
        message id is stable (the same entry twice gives the same ids), so receivers can fold
        duplicates by the ``webhook-id`` header."""
        meta = self.ctx.meta(match_id)
        seats = [(s.seat, s.public_key) for s in meta.seats if s.kind == "human" and s.public_key]
        out: list[tuple[str, str, dict[str, Any]]] = []

        def both(public: dict[str, Any], private: Any = None) -> None:
            out.append((match_owner(match_id), public["id"], public))
            for seat, key in seats:
                ev = private(seat) if private else public
                out.append((player_owner(key), f"{ev['id']}@{seat}" if private else ev["id"], ev))

        def turns(at: MatchMeta, active: list[int], already: list[int]) -> None:
            for seat, key in seats:
                if seat in active and seat not in already:
                    ev = events.your_turn(at, seat)
                    out.append((player_owner(key), ev["id"], ev))

        if kind == "started":
            both(events.started(meta), lambda s: events.started(meta, s))
            if meta.ply == 0:  # a your-turn for a ply already played would only mislead
                turns(meta, list(meta.active), [])
        elif kind == "moved" and ply > 0:
            found = self.ctx.store.log(match_id, ply - 1, ply - 1)
            if not found:
                return []
            entry = found[0]
            both(events.move(meta, entry), lambda s: events.move(meta, entry, s))
            after = data.get("after", (entry.get("next") or {}).get("active", []))
            status = data.get("status", (entry.get("next") or {}).get("status"))
            if status == "finished" and meta.status == "finished":
                both(events.finished(meta))
            elif status == "aborted" and meta.status == "aborted":  # by vote or timeout, after the start
                both(events.aborted(meta))
            elif status == "active":
                at = meta.but(ply=ply, active=tuple(after), updated_at=entry["accepted_at"])
                turns(at, list(after), list(data.get("before", [])))
        elif kind == "aborted" and meta.status == "aborted":
            both(events.aborted(meta))
        elif kind == "reminder" and meta.status == "active":
            ev = events.reminder(meta, data)
            if ev["reminder"] == "late":  # the daily late note is for everyone in the match
                both(ev)
            else:  # a reminder is for the seat that must move
                out.extend((player_owner(key), ev["id"], ev) for seat, key in seats if seat == data.get("seat"))
        unique: dict[tuple[str, str], dict[str, Any]] = {}
        for owner, msg_id, ev in out:  # one key holding two seats hears a public event once
            unique.setdefault((owner, msg_id), ev)
        return [(owner, msg_id, ev) for (owner, msg_id), ev in unique.items()]

    def fan_out(self, kind: str, match_id: str, ply: int, data: Mapping[str, Any]) -> int:
        """Queue one delivery per (enabled hook, event) of an outbox entry; how many were queued."""
        if kind not in ("started", "moved", "aborted", "reminder"):
            return 0
        meta = self.ctx.meta(match_id)
        owners = [match_owner(match_id)] + [player_owner(s.public_key) for s in meta.seats
                                            if s.kind == "human" and s.public_key]
        if not self.store.owners_with_hooks(owners):  # most matches: nobody listens, build nothing
            return 0
        planned = self.events_for(kind, match_id, ply, data)
        hooks: dict[str, list[dict[str, Any]]] = {}
        deliveries: list[tuple[str, str, str, dict[str, Any]]] = []
        for owner, msg_id, event in planned:
            if owner not in hooks:
                hooks[owner] = [h for h in self.store.all(owner) if not h.get("disabled")]
            deliveries += [(owner, hook["id"], msg_id, event) for hook in hooks[owner]]
        self.queue.deliver_many(deliveries)
        return len(deliveries)

    # -- the owner's address, for the notice that a hook was switched off -----------------------

    def owner_email(self, owner: str) -> str | None:
        """An email address known for the owner: a seat the key holds (for a match's hooks, the
        creator's key) that gave one."""
        kind, _, who = owner.partition(":")
        if kind == "m":
            meta = self.ctx.store.meta(who)
            if meta is None:
                return None
            key = str(meta.creator_key or "")
            for row in meta.seats:
                if row.public_key == key and row.email:
                    return str(row.email)
        else:
            key = who
        held = self.ctx.store.seats_of_key(key)
        metas = self.ctx.store.metas([mid for mid, _ in held], ("seats",))
        for (_, seat), meta in zip(held, metas, strict=True):
            rows = () if meta is None else meta.seats
            if seat < len(rows) and rows[seat].public_key == key and rows[seat].email:
                return str(rows[seat].email)
        return None
