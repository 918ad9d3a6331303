"""gunicorn settings for the Portolan API.

    gunicorn -c deploy/gunicorn.conf.py 'service.api:create_app()'

Every value can be overridden from the environment (or on the command line, which wins over
this file). The app itself reads its settings from the environment too: see service/config.py
and deploy/README.md.
"""

import multiprocessing
import os

from service.config import Settings, open_clock

# Refuse a file clock (PORTOLAN_CLOCK=file:PATH: tests and `portolan dev` only) before any worker
# starts, unless PORTOLAN_CLOCK_ALLOW_FILE=on; each worker's create_app checks it again. This
# imports nothing but the settings and the clock (no Redis, nothing gevent must patch first).
open_clock(Settings.from_env())

# Where to listen. Behind a reverse proxy on the same host keep the loopback default; a
# container sets PORTOLAN_BIND=0.0.0.0:8000.
bind = os.environ.get("PORTOLAN_BIND", "127.0.0.1:8000")

# Processes x connections. The API is stateless (everything lives in Redis), so add processes per
# core and machines behind the proxy to grow. gevent: each request is a greenlet, so an open event
# stream (GET .../events) or a waiting long-poll costs a socket and a little memory, not a thread;
# one pub/sub listener per process wakes them (deploy/README.md: why, and the measurements). The
# worker monkey-patches the standard library before the app is built, so redis-py, the request
# signing and Flask-Limiter's Redis calls yield while they wait. PORTOLAN_WORKER_CLASS=gthread
# goes back to threads (then streams and long-polls each hold a thread: keep them few).
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count()))
worker_class = os.environ.get("PORTOLAN_WORKER_CLASS", "gevent")
# Open connections per process: the event streams (PORTOLAN_STREAMS, 2000) plus room for requests.
worker_connections = int(os.environ.get("PORTOLAN_CONNECTIONS", "2500"))
threads = int(os.environ.get("PORTOLAN_THREADS", "8"))  # gthread only
# A waiting long-poll costs a greenlet under gevent: let far more wait than the thread default (4).
if worker_class == "gevent":
    os.environ.setdefault("PORTOLAN_LONG_POLLS", "1000")

# A request may legitimately wait up to 30 s (long-poll) or stream for 10 minutes; the worker's
# heartbeat is not blocked by either (a greenlet each), so this only kills a worker that is stuck.
timeout = int(os.environ.get("PORTOLAN_TIMEOUT", "60"))
# open event streams are cut at a restart; their clients resume with Last-Event-ID
graceful_timeout = 30
keepalive = 30
backlog = 2048

# Recycle workers now and then so a slow leak cannot grow without bound.
max_requests = int(os.environ.get("PORTOLAN_MAX_REQUESTS", "20000"))
max_requests_jitter = max_requests // 10

# Request size limits (the app itself refuses bodies over 256 KiB).
limit_request_line = 8190
limit_request_fields = 100

# Logs to stdout/stderr: systemd's journal or the container runtime collects them.
accesslog = os.environ.get("PORTOLAN_ACCESS_LOG", "-")
errorlog = "-"
loglevel = os.environ.get("PORTOLAN_LOG_LEVEL", "info")

# Trust X-Forwarded-* only from the proxy in front of us (comma-separated addresses).
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")

# The app connects to Redis when a worker builds it; no preload, so each worker opens its own
# connection pool after the fork.
preload_app = False


def child_exit(server: object, worker: object) -> None:
    """Prometheus multiprocess mode (PROMETHEUS_MULTIPROC_DIR): a worker that exits leaves its
    counters in the folder (they still count) but its live gauges (open streams) must go."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[attr-defined]
