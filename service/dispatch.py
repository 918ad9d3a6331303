"""The fan-out point: accepted moves become RQ jobs (turn notices, bot turns).

Jobs are named by dotted path, so this module does not import ``workers`` (which imports
us). Job ids are deterministic (``notice:<match>:<seat>:<ply>``), and the jobs themselves
dedupe with a mark in Redis, so a retried or doubly enqueued job sends one mail.
"""

from __future__ import annotations

import redis
from rq import Queue, Retry

from .config import Settings

NOTICE_JOB = "workers.jobs.send_turn_notice"
FINISHED_JOB = "workers.jobs.send_match_over"
BOT_JOB = "workers.jobs.play_bot"
INVITE_JOB = "workers.jobs.send_invite"


class RQDispatcher:
    def __init__(self, client: redis.Redis, settings: Settings) -> None:
        self.notices = Queue(settings.queue_name("notices"), connection=client)
        self.bots = Queue(settings.queue_name("bots"), connection=client)

    def turn(self, match_id: str, ply: int, seats: list[int]) -> None:
        for seat in seats:
            self.notices.enqueue_call(NOTICE_JOB, args=(match_id, seat, ply), job_id=f"notice-{match_id}-{seat}-{ply}",
                                      retry=Retry(max=5, interval=[1, 5, 30, 120, 600]), failure_ttl=30 * 86400)

    def finished(self, match_id: str, ply: int, seats: list[int]) -> None:
        for seat in seats:
            self.notices.enqueue_call(FINISHED_JOB, args=(match_id, seat), job_id=f"over-{match_id}-{seat}",
                                      retry=Retry(max=5, interval=[1, 5, 30, 120, 600]), failure_ttl=30 * 86400)

    def bot(self, match_id: str, ply: int, seat: int) -> None:
        self.bots.enqueue_call(BOT_JOB, args=(match_id, seat, ply), job_id=f"bot-{match_id}-{seat}-{ply}",
                               retry=Retry(max=3, interval=[1, 5, 30]), failure_ttl=30 * 86400)

    def invite(self, match_id: str, seat: int, email: str, token: str) -> None:
        self.notices.enqueue_call(INVITE_JOB, args=(match_id, seat, email, token), job_id=f"invite-{match_id}-{seat}",
                                  retry=Retry(max=5, interval=[1, 5, 30, 120, 600]), failure_ttl=30 * 86400)
