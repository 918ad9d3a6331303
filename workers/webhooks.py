"""RQ jobs of webhooks: one delivery attempt, and the notice that a webhook was switched off.

The retries with backoff are RQ's (the job raises, :class:`service.delivery.webhooks.RQWebhookQueue`
enqueued it with the operator's ``PORTOLAN_WEBHOOK_RETRIES``); each attempt is logged on the hook.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from rq import get_current_job

from service.delivery.mail import Mail, render, shell_line
from service.delivery.webhooks import Delivery, RQWebhookQueue, webhooks_of
from service.i18n import tr
from service.play.outward.webhooks import Webhooks
from workers import jobs
from workers.jobs import send_once, service, settings


@lru_cache(maxsize=1)
def hooks() -> Webhooks:
    return webhooks_of(service(), settings())


def _attempt() -> int:
    """Which attempt this run of the job is (1 = the first), from RQ's retry count."""
    job = get_current_job()
    if job is None or job.retries_left is None or not job.retry_intervals:
        return 1
    return len(job.retry_intervals) - job.retries_left + 1


def deliver(owner: str, hook_id: str, msg_id: str, event: dict[str, Any]) -> str:
    """POST one event to one webhook (raises on failure: RQ retries with backoff)."""
    m = service()
    delivery = Delivery(hooks(), m.server_key, settings(), RQWebhookQueue(m.store.q, settings()))
    return delivery.run(owner, hook_id, msg_id, event, attempt=_attempt())


def send_disabled_notice(owner: str, hook_id: str) -> str:
    """Mail the owner (when an address is known) that their webhook was switched off (once per
    switch-off; the list and the delivery log show it either way)."""
    h = hooks()
    hook = h.store.get(owner, hook_id)
    if hook is None or not hook.get("disabled"):
        return "skipped: the webhook is gone or back on"
    email = h.owner_email(owner)
    if email is None:
        return "skipped: no email address known for the owner"
    public = h.public(owner, hook)
    language = jobs.preferences().language(email)
    scope = tr(language, "match {match}", match=public["match"]) if public["match"] else tr(language, "all your matches")
    where = ["--match", public["match"]] if public["match"] else []
    mark = f"hookoff:{hook_id}:{hook.get('disabled_at')}"

    def compose() -> Mail:
        ctx = {"hook_id": hook_id, "scope": scope, "url": hook["url"], "failures": hook["failures"],
               "reason": hook.get("disabled_reason") or "", "public_url": service().public_url,
               "ping_line": shell_line(["portolan", "webhook", "ping", hook_id, *where]),
               "deliveries_line": shell_line(["portolan", "webhook", "deliveries", hook_id, *where])}
        return render("webhook_disabled", email, tr(language, "[Portolan] Webhook {hook} was switched off", hook=hook_id),
                      mark, ctx, language=language)

    sent = send_once(service(), mark, compose)
    return "skipped: already sent" if sent is None else f"sent: {sent}"
