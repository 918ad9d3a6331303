"""service.storage.outage: a Redis outage is said once, retried with a capped backoff, and its end
is said once."""

from __future__ import annotations

import logging

import pytest
import redis

from service.storage.outage import Outage, redis_unreachable


def test_an_outage_is_logged_once_and_its_end_once(caplog: pytest.LogCaptureFixture) -> None:
    outage = Outage("outbox jobs", logging.getLogger("test.outage"), max_wait_s=5.0)
    with caplog.at_level(logging.WARNING, logger="test.outage"):
        waits = [outage.failed(redis.ConnectionError("refused")) for _ in range(8)]
        assert outage.ongoing
        outage.ok()
        outage.ok()  # no outage now: nothing more to say
    assert waits == [0.5, 1.0, 2.0, 4.0, 5.0, 5.0, 5.0, 5.0]  # doubling, capped
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 2, said
    assert said[0].startswith("outbox jobs: Redis went away (refused)")
    assert said[1].startswith("outbox jobs: Redis is back after") and "(8 tries)" in said[1]
    assert not outage.ongoing
    assert outage.failed(redis.TimeoutError("slow")) == 0.5  # a new outage starts from the first wait


def test_only_an_unreachable_redis_counts_as_an_outage() -> None:
    assert redis_unreachable(redis.ConnectionError("refused"))
    assert redis_unreachable(redis.TimeoutError("timed out"))
    assert redis_unreachable(redis.BusyLoadingError("loading the dataset"))  # a restarted Redis reading its AOF
    assert not redis_unreachable(redis.ResponseError("WRONGTYPE"))
    assert not redis_unreachable(ValueError("a fault of ours"))
