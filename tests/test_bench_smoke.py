"""The benchmarks still run against the service as it is (they sign, create and move like any
client, so a change of the contract breaks them silently unless something runs them). This
checks that they work, never how fast: the figures go into the notes, not into assertions."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import one_redis_only

pytestmark = pytest.mark.processes  # each benchmark in a subprocess, with its servers and workers

ROOT = Path(__file__).resolve().parents[1]


def test_the_api_bench_plays_signed_moves_without_a_client_error(redis_url: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"} | {"REDIS_URL": redis_url}
    run = subprocess.run([sys.executable, "-m", "bench.api_moves", "--clients", "2", "--procs", "1", "--seconds", "1",
                          "--skip-bare"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180, check=False)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-3000:]
    accepted = re.search(r"signed moves accepted\s+(\d+)", out)
    assert accepted and int(accepted.group(1)) > 0, out[-3000:]
    assert "client errors" not in out, out[-3000:]


@one_redis_only  # the profile counts one Redis's round trips
def test_the_move_profile_runs_with_and_without_the_view(redis_url: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"} | {"REDIS_URL": redis_url}
    for view in ("full", "none"):
        run = subprocess.run([sys.executable, "-m", "bench.profile_moves", "--moves", "40", "--matches", "2",
                              "--profiler", "none", "--view", view], cwd=ROOT, env=env, capture_output=True, text=True,
                             timeout=180, check=False)
        out = run.stdout + run.stderr
        assert run.returncode == 0, out[-3000:]
        assert re.search(r"POST /v1/matches/\{id\}/moves: 40 requests", out), out[-3000:]


def test_the_streams_bench_delivers_every_event_in_order(redis_url: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"} | {"REDIS_URL": redis_url}
    run = subprocess.run([sys.executable, "-m", "bench.streams", "--streams", "4", "--matches", "2", "--movers", "1",
                          "--seconds", "1", "--procs", "1", "--workers", "1"], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=180, check=False)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-3000:]
    received = re.search(r"events received\s+(\d+)", out)
    assert received and int(received.group(1)) > 0, out[-3000:]
    assert "every stream in order: True" in out and "errors:" not in out, out[-3000:]


def test_the_bots_bench_prints_a_strength_row() -> None:
    run = subprocess.run([sys.executable, "-m", "bench.bots", "--games", "nauticus", "--players", "2", "--pairs",
                          "heuristic/random", "--matches", "2", "--jobs", "1"], cwd=ROOT, capture_output=True,
                         text=True, timeout=180, check=False)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-3000:]
    row = re.search(r"nauticus\s+2\s+heuristic\s+random\s+([\d.]+)%", out)
    assert row and float(row.group(1)) == 100.0, out[-3000:]
