"""Event objects: what the streams, the webhooks and the ``me`` stream say happened.

One shape for every way out (docs/architecture.md, "Outbox"), computed from what is stored (the meta and the log),
never stored itself. Each event is a plain JSON object with at least

=================  ==================================================================================
``id``             unique and stable: ``<match>.<n>`` where ``n`` is the match's ply after the event
                   (``started`` is ``.0``, a move accepted at ply ``p`` is ``.p+1``), or
                   ``<match>.aborted``; the same event always has the same id, so a consumer that
                   receives it twice (at-least-once delivery) can fold the duplicate
``type``           ``started``, ``move``, ``finished``, ``aborted``, ``your-turn``, ``reminder``, ``invited``,
                   ``ping``
``match``, ``game`` the match and its game
``ply``            the match's ply after the event (the number of accepted moves)
``at``             when it happened (ISO 8601, UTC)
=================  ==================================================================================

and, by type, the fields below. ``viewer`` is the seat whose private events may be shown (None:
the public), exactly as in :func:`service.proof.chain.visible_events`; a caller must have proved
that the requester holds that seat's key before passing it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.proof.chain import visible_events
from service.proof.match_record import MatchMeta

EVENT_TYPES = ("started", "move", "finished", "aborted", "your-turn", "reminder", "invited", "ping")


def event_id(match_id: str, ply: int | str) -> str:
    """The stable id of a match's event at ``ply`` (the match's ply after it), or ``aborted``."""
    return f"{match_id}.{ply}"


def started(meta: MatchMeta, viewer: int | None = None) -> dict[str, Any]:
    """The match began: ``active_seats`` must act first; ``events`` are the setup events the
    viewer may see."""
    return {"id": event_id(meta.id, 0), "type": "started", "match": meta.id, "game": meta.game, "ply": 0,
            "at": meta.started_at or meta.updated_at, "status": "active",
            # who acts first is the meta's only while no move has been made (the first move's
            # event names the seat that made it)
            "active_seats": list(meta.active) if meta.ply == 0 else None,
            "events": visible_events(list(meta.setup_events or []), viewer)}


def move(meta: MatchMeta, entry: Mapping[str, Any], viewer: int | None = None) -> dict[str, Any]:
    """A move was accepted at ``entry["ply"]``: who moved (``seat``, ``by``), what it caused
    (``events``, the viewer's share), and where the match stands after it (``status``,
    ``active_seats``, ``head``; ``outcome`` once finished). Entries written before the log
    carried ``next`` lack the after-state: ``status`` and ``active_seats`` are then null
    unless it is the newest entry, whose after-state is the meta's."""
    ply = int(entry["ply"])
    after = entry.get("next")
    if after is None and ply + 1 == meta.ply:
        after = {"status": meta.status, "active": list(meta.active)}
    status = after["status"] if after else None
    out: dict[str, Any] = {
        "id": event_id(meta.id, ply + 1), "type": "move", "match": meta.id, "game": meta.game,
        "ply": ply + 1, "accepted_ply": ply, "at": entry["accepted_at"], "seat": entry["seat"], "by": entry["by"],
        "actions": entry["envelope"]["actions"], "events": visible_events(list(entry["events"]), viewer),
        "status": status, "active_seats": list(after["active"]) if after else None, "head": entry["hash"],
    }
    if status == "finished":
        out["outcome"] = meta.outcome
    return out


def finished(meta: MatchMeta) -> dict[str, Any]:
    """The match is over: ``outcome`` holds scores and ranks per seat, ``names`` the seats' players."""
    return {"id": event_id(meta.id, f"{meta.ply}.over"), "type": "finished", "match": meta.id,
            "game": meta.game, "ply": meta.ply, "at": meta.updated_at, "status": "finished",
            "outcome": meta.outcome, "head": meta.head or None,
            "names": [s.name for s in meta.seats]}


def aborted(meta: MatchMeta) -> dict[str, Any]:
    """The match was cancelled: before its start (by its creator, or because it could not be set up),
    or after it (every remaining player voted to abort, or a timeout under the abort policy)."""
    return {"id": event_id(meta.id, "aborted"), "type": "aborted", "match": meta.id, "game": meta.game,
            "ply": meta.ply, "at": meta.updated_at, "status": "aborted"}


def reminder(meta: MatchMeta, data: Mapping[str, Any]) -> dict[str, Any]:
    """The match clock's word about a seat (the workers' outbox entry ``reminder``): a reminder
    before its deadline (``reminder``: ``half``, ``24h``, ...), or the daily note that it is late
    (``reminder: "late"``, ``day`` 0 on the day of the deadline). ``since``: when the seat's clock
    started, which with the reminder makes the id stable."""
    since = str(data.get("since", ""))
    name = str(data.get("reminder", ""))
    day = int(data.get("day") or 0)
    stamp = "".join(ch for ch in since if ch.isdigit())[:14]
    suffix = f"clock.{data.get('seat')}.{stamp}.{name}" + (f".{day}" if name == "late" else "")
    return {"id": event_id(meta.id, suffix), "type": "reminder", "match": meta.id, "game": meta.game,
            "ply": meta.ply, "at": meta.updated_at, "seat": data.get("seat"), "reminder": name, "day": day,
            "since": since}


def your_turn(meta: MatchMeta, seat: int) -> dict[str, Any]:
    """``seat`` must act now, at the match's current ply (for that seat's holder only)."""
    return {"id": event_id(meta.id, f"{meta.ply}.turn.{seat}"), "type": "your-turn", "match": meta.id,
            "game": meta.game, "ply": meta.ply, "at": meta.updated_at, "seat": seat,
            "active_seats": list(meta.active)}


def ping(hook_id: str, at: str, nonce: str) -> dict[str, Any]:
    """A test delivery a hook's owner asked for (no match: ``match``, ``game`` and ``ply`` are null)."""
    return {"id": f"ping.{hook_id}.{nonce}", "type": "ping", "match": None, "game": None, "ply": None, "at": at,
            "hook": hook_id}
