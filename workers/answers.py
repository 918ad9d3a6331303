"""The answer job: one mail answering one received message (service.play.mail.desk).

The desk decides what to say and enqueues it (kind ``answer``, service.delivery.dispatch); this
job renders the ``answer`` templates and sends the mail once, with the same lease and "sent"
mark as every other mail (:func:`workers.jobs.send_once`). The mark and the Message-ID come
from the received message's identity, so however often that message is redelivered or this job
retried, its sender gets one answer.
"""

from __future__ import annotations

import logging
from typing import Any

from service.delivery.dispatch import answer_job_id
from service.delivery.mail import Mail, render
from workers.jobs import job_outcome, send_once, service

log = logging.getLogger("portolan.answers")

AUTO_REPLIED = ("Auto-Submitted", "auto-replied")
"""RFC 3834 section 5: an answer made by a program in reply to a message; a well-behaved
auto-responder never answers it, and our own desk drops it (``automatic``)."""


def send_answer(key: str, answer: dict[str, Any]) -> str:
    """Send the answer ``answer`` (the desk's payload: to, subject, in_reply_to, reply_to,
    context, its words already in the address's language, ``context["language"]``) to the message
    ``key`` once."""
    m = service()
    jid = answer_job_id(key)
    mark = f"answer:{key}"

    def compose() -> Mail:
        return render("answer", answer["to"], answer["subject"], mark, answer["context"],
                      reply_to=answer.get("reply_to", ""), in_reply_to=answer.get("in_reply_to", ""),
                      headers=(AUTO_REPLIED,), language=str(answer["context"].get("language") or "en"))

    where = send_once(m, mark, compose)
    log.info("answer %s -> %s", mark, where)
    return job_outcome(m, jid, where)
