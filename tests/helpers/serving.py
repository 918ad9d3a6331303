"""A WSGI app over real HTTP for a test: werkzeug's threaded server on a free loopback port, as
`portolan dev` and `portolan serve` run the API."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from werkzeug.serving import make_server


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """Serve ``app`` while the block runs; yields its base URL, and shuts the server down after."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        server.shutdown()
        thread.join(10)
