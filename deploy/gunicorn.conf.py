"""gunicorn settings for the Portolan API.

    gunicorn -c deploy/gunicorn.conf.py 'service.api:create_app()'

Every value can be overridden from the environment (or on the command line, which wins over
this file). The app itself reads its settings from the environment too: see service/config.py
and deploy/README.md.
"""

import multiprocessing
import os

# Where to listen. Behind a reverse proxy on the same host keep the loopback default; a
# container sets PORTOLAN_BIND=0.0.0.0:8000.
bind = os.environ.get("PORTOLAN_BIND", "127.0.0.1:8000")

# Processes x threads. The API is stateless (everything lives in Redis), so add processes per
# core and add machines behind the proxy to grow. gthread keeps client connections alive and
# lets a worker overlap its Redis round trips; bench/api_moves.py compares it with sync.
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count()))
worker_class = "gthread"
# Long-polls (GET /v1/matches/{id}?wait=N, up to 30 s) hold a thread while they wait; at most
# PORTOLAN_LONG_POLLS (4) of them wait at once per process, the rest are answered at once. Raise
# both (threads above long-polls) if many clients long-poll, or run them on their own gunicorn.
threads = int(os.environ.get("PORTOLAN_THREADS", "8"))

# A request thread may legitimately wait up to 30 s (long-poll); the worker heartbeat is not
# blocked by it under gthread, so this only kills a worker that is really stuck.
timeout = int(os.environ.get("PORTOLAN_TIMEOUT", "60"))
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
