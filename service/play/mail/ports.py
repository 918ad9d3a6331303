"""The ports the mail desk (service.play.mail.desk) talks through, besides the match context (:class:`service.play.context.MatchContext`).

Production adapters: :class:`service.storage.mailbox.Mailbox` (Redis marks and counters),
:class:`service.storage.preferences.NoticePreferences`, and
:meth:`service.delivery.dispatch.RQDispatcher.answer` (an RQ job with a promise). The desk
itself sends nothing and speaks no Redis: it decides, and hands the answer to :class:`AnswerPost`.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

Arrival = Literal["new", "busy", "done"]
"""What the mailbox knows of a message: never seen, being dealt with right now, dealt with."""


class MailboxPort(Protocol):
    """At-most-once bookkeeping of received messages, and the refusal quota per sender."""

    def begin(self, identity: str, lease_s: int) -> Arrival:
        """Take the message's processing lease (``new``), unless it is held (``busy``) or the
        message was dealt with already (``done``)."""
        ...

    def finish(self, identity: str, keep_s: int) -> None:
        """Mark the message dealt with (for ``keep_s`` seconds) and drop its lease."""
        ...

    def abandon(self, identity: str) -> None:
        """Drop the lease of a message whose processing failed, so a redelivery is processed."""
        ...

    def take_refusal(self, sender: str, limit: int, window_s: int) -> bool:
        """Count one refusal answer to ``sender``: False once ``limit`` were sent in the window."""
        ...

    def take_answer(self, sender: str, text_key: str, limit: int, window_s: int) -> bool:
        """Count one answer to ``sender`` for one text about one turn (``text_key``): False once
        ``limit`` were sent in the window, so an auto-responder that echoes answers is answered
        only so often (issue 28)."""
        ...


class PreferencesPort(Protocol):
    """Per-address notice preferences (``every``, ``digest``, ``off``) and mail languages."""

    def set(self, email: str, preference: Literal["every", "digest", "off"]) -> None: ...

    def language(self, email: str) -> str:
        """The address's mail language (a code of service.i18n): chosen, else its invitation's, else English."""
        ...

    def set_language(self, email: str, language: str) -> None:
        """The address chooses its mail language."""
        ...


class AnswerPost(Protocol):
    """Where an answer mail goes out: an RQ job keyed by ``key`` that sends ``answer`` once."""

    def answer(self, key: str, answer: dict[str, Any]) -> None: ...
