"""A worker's heartbeat: while it runs, its RQ worker name is alive (service.storage.liveness).

What it is for (docs/architecture.md, 'The way out'): a worker killed while it sends a mail leaves
a job RQ still calls "started" and the mail's "sending" lease in its name. Both used to be trusted
until the job timeout had passed (65 s); now they are trusted only while their worker beats, so a
watchdog pass and the re-run job act ``PORTOLAN_WORKER_ALIVE_S`` after the kill, not a minute.
"""

from __future__ import annotations

import logging
import threading
from types import TracebackType

from service.storage.liveness import Liveness

log = logging.getLogger("portolan.heartbeat")


class Heartbeat:
    """Beats ``worker`` alive every third of ``ttl_s`` in a daemon thread, from ``start`` (or
    entering the ``with``) until ``stop``, which says the worker is gone at once."""

    def __init__(self, liveness: Liveness, worker: str, ttl_s: float) -> None:
        self.liveness = liveness
        self.worker = worker
        self.ttl_s = ttl_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> Heartbeat:
        """Beat once now (so the worker is alive before it takes a job), then keep beating."""
        self.liveness.beat(self.worker, self.ttl_s)
        self._thread = threading.Thread(target=self._run, daemon=True, name="heartbeat")
        self._thread.start()
        return self

    def _run(self) -> None:
        failing = False
        while not self._stop.wait(self.ttl_s / 3):
            try:
                self.liveness.beat(self.worker, self.ttl_s)
                failing = False
            except Exception as exc:  # Redis away: the next beat tries again; others may count us dead meanwhile
                if not failing:  # said once per outage, not at every beat
                    log.warning("heartbeat of worker %s failed: %s", self.worker, exc)
                failing = True

    def stop(self) -> None:
        """Stop beating; the worker is dead from now on (its leases may be taken over)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        try:
            self.liveness.gone(self.worker)
        except Exception:  # its key lapses by itself
            log.warning("could not say worker %s is gone", self.worker, exc_info=True)

    def __enter__(self) -> Heartbeat:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()
