"""RQ workers end at once: no burst, and no stopping worker, waits on its command listener.

rq's worker listens for commands (kill-horse, stop-job, shutdown) on a pubsub channel, in a
redis-py thread that polls for 60 s at a time. Its teardown sent UNSUBSCRIBE before it stopped
that thread: when the thread read the server's reply first, it found itself subscribed to nothing
but still told to run, and waited in ``get_message`` for a subscription that never came. Since
redis-py 8.2, ``PubSubWorkerThread.stop()`` waits for the thread, so the teardown waited too: 60 s
(issue 26: 6 of 30 bursts on an empty queue on a loaded machine). Here the thread that sends
UNSUBSCRIBE is held up right after it, as a loaded machine does now and then, so the listener
reads the reply first every time.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from redis.client import PubSub, PubSubWorkerThread

from service.config import Settings
from service.storage.connection import connect
from workers.worker import QUEUES, with_clock, work_burst, worker_class

BURSTS = 30


@pytest.fixture
def held_up_after_unsubscribe(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whoever sends UNSUBSCRIBE pauses 50 ms right after it (as if the OS ran another process),
    so the listener thread reads the server's reply before the sender goes on."""
    original = PubSub.unsubscribe

    def unsubscribe(self: PubSub, *args: Any) -> Any:
        try:
            return original(self, *args)
        finally:
            time.sleep(0.05)

    monkeypatch.setattr(PubSub, "unsubscribe", unsubscribe)


def listeners() -> set[threading.Thread]:
    """The command listeners (redis-py pubsub threads) running in this process."""
    return {t for t in threading.enumerate() if isinstance(t, PubSubWorkerThread) and t.is_alive()}


@pytest.mark.timeout(45)
@pytest.mark.parametrize("fork", [False, True], ids=["simple", "fork"])
def test_thirty_bursts_on_empty_queues_each_end_at_once(settings: Settings, fork: bool,
                                                        held_up_after_unsubscribe: None) -> None:
    client = connect(settings.queue_url)
    queues = [settings.queue_name(kind) for kind in with_clock(QUEUES)]
    already = listeners()
    took = []
    for _ in range(BURSTS):
        start = time.monotonic()
        assert not work_burst(queues, client, fork=fork)  # nothing to do, and done at once
        took.append(time.monotonic() - start)
    slow = [f"{t:.1f}" for t in took if t > 5]
    assert not slow, f"{len(slow)} of {BURSTS} bursts waited (s): {', '.join(slow)}"
    assert listeners() <= already, "a burst worker left a command listener running"


@pytest.mark.timeout(45)
@pytest.mark.parametrize("fork", [False, True], ids=["simple", "fork"])
def test_a_serving_worker_stops_its_command_listener_at_once(settings: Settings, fork: bool,
                                                             held_up_after_unsubscribe: None) -> None:
    """A long-running worker keeps its listener (an operator may send it commands), and its
    teardown stops it at once: RQ's own subscribe, then the unsubscribe its teardown calls."""
    worker = worker_class(fork, burst=False)([settings.queue_name("bots")], connection=connect(settings.queue_url))
    already = listeners()
    took = []
    for _ in range(BURSTS):
        worker.subscribe()
        assert listeners() - already, "a serving worker listens for commands"
        start = time.monotonic()
        worker.unsubscribe()
        took.append(time.monotonic() - start)
    slow = [f"{t:.1f}" for t in took if t > 5]
    assert not slow, f"{len(slow)} of {BURSTS} stops waited (s): {', '.join(slow)}"
    assert listeners() <= already, "a listener outlived its worker's teardown"
