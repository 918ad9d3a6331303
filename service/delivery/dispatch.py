"""The fan-out point: accepted moves become RQ jobs (turn notices, bot turns).

Jobs are named by dotted path, so this module does not import ``workers`` (which imports
us). Job ids are deterministic (``notice:<match>:<seat>:<ply>``), and the jobs themselves
dedupe with a mark in Redis, so a retried or doubly enqueued job sends one mail.
"""

from __future__ import annotations

import redis
from rq import Queue, Retry

from service.config import Settings

NOTICE_JOB = "workers.jobs.send_turn_notice"
FINISHED_JOB = "workers.jobs.send_match_over"
BOT_JOB = "workers.jobs.play_bot"
INVITE_JOB = "workers.jobs.send_invite"


class RQDispatcher:
    def __init__(self, client: redis.Redis, settings: Settings) -> None:
        self.client = client
        self.notices = Queue(settings.queue_name("notices"), connection=client)
        self.bots = Queue(settings.queue_name("bots"), connection=client)

    def _enqueue(self, queue: Queue, calls: list[tuple[str, tuple[object, ...], str, Retry]]) -> None:
        """Enqueue jobs in one MULTI/EXEC pipeline: one Redis round trip however many jobs
        (RQ on its own makes two per job: the queue registration and the job itself)."""
        if not calls:
            return
        with self.client.pipeline() as pipe:
            for func, args, job_id, retry in calls:
                queue.enqueue_call(func, args=args, job_id=job_id, retry=retry, failure_ttl=30 * 86400, pipeline=pipe)
            pipe.execute()

    def turn(self, match_id: str, ply: int, seats: list[int]) -> None:
        self._enqueue(self.notices, [(NOTICE_JOB, (match_id, seat, ply), f"notice-{match_id}-{seat}-{ply}",
                                      Retry(max=5, interval=[1, 5, 30, 120, 600])) for seat in seats])

    def finished(self, match_id: str, ply: int, seats: list[int]) -> None:
        self._enqueue(self.notices, [(FINISHED_JOB, (match_id, seat), f"over-{match_id}-{seat}",
                                      Retry(max=5, interval=[1, 5, 30, 120, 600])) for seat in seats])

    def bot(self, match_id: str, ply: int, seat: int) -> None:
        self._enqueue(self.bots, [(BOT_JOB, (match_id, seat, ply), f"bot-{match_id}-{seat}-{ply}",
                                   Retry(max=3, interval=[1, 5, 30]))])

    def invite(self, match_id: str, seat: int, email: str, token: str) -> None:
        self._enqueue(self.notices, [(INVITE_JOB, (match_id, seat, email, token), f"invite-{match_id}-{seat}",
                                      Retry(max=5, interval=[1, 5, 30, 120, 600]))])
