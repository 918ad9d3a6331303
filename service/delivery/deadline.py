"""A wall-clock deadline for one outgoing HTTP exchange, enforced on the socket itself.

Why (issue 28, item 6): urllib3's timeouts, ``total`` included, bound each wait for the next bytes,
not the exchange: a receiver that drips one byte a second never lets a read wait five seconds, and
held a webhook worker for 181 s. urllib3's own documentation says so ("if a server streams one byte
every fifteen seconds, a timeout of 20 seconds will not trigger"). The usual cure, and the one here:
each connection the exchange opens is registered with a :class:`Deadline`, whose timer shuts the
connection down (``shutdown(SHUT_RDWR)``) when the time is up. Whatever read or write is blocked on
it (the TLS handshake, the request, the status line, the headers, the body) returns at once with an
error, in the thread that was doing the exchange, which then closes the connection as usual: no
thread is abandoned and no socket is left open. The caller then judges the outcome by the clock
(:meth:`Deadline.passed`), so an answer that came after the deadline is never a success.

The timer holds a duplicate of the connection's descriptor (``socket.dup``), not the socket
object: the TLS layer takes the raw socket's descriptor over (detaching the object) before its
handshake, and a shutdown through any descriptor of a connection shuts the connection.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
import time
from typing import Any

import urllib3.connection


class Deadline:
    """The end of one exchange, ``seconds`` from now (a monotonic clock); the connections it is
    to cut are registered with :meth:`watch`. Use it as a context manager: leaving it stops the
    timer and lets go of the descriptors (it never closes the connections themselves: their
    owner does)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds
        self._lock = threading.Lock()
        self._held: list[socket.socket] = []
        self._expired = False
        self._timer = threading.Timer(max(0.0, seconds), self._expire)
        self._timer.daemon = True

    def __enter__(self) -> Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        with self._lock:  # with the timer's lock: it never shuts a descriptor we are closing
            held, self._held = self._held, []
        for dup in held:
            dup.close()

    def left(self) -> float:
        """Seconds left (0 when the deadline has passed)."""
        return max(0.0, self.end - time.monotonic())

    def passed(self) -> bool:
        """Whether the deadline has come (by the clock, or the timer has already cut)."""
        return self._expired or time.monotonic() >= self.end

    def watch(self, sock: socket.socket) -> None:
        """Cut ``sock``'s connection when the deadline comes (at once if it has come)."""
        dup = sock.dup()
        with self._lock:
            self._held.append(dup)
            expired = self._expired
        if expired:
            _shut(dup)

    def _expire(self) -> None:
        with self._lock:
            self._expired = True
            for dup in self._held:
                _shut(dup)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed by its peer or its owner: nothing left to cut
        sock.shutdown(socket.SHUT_RDWR)


class PeerMismatch(OSError):
    """The connection reached another address than the one that was checked."""


def _registered(conn: Any, sock: socket.socket) -> socket.socket:
    """Register ``sock`` with the connection's deadline, and make sure the peer is the address
    that was checked (the host is an address literal, so nothing resolves it again; this holds
    that, whatever a resolver or a library would do)."""
    deadline: Deadline = conn.deadline
    deadline.watch(sock)
    peer = sock.getpeername()[0]
    if ipaddress.ip_address(peer.split("%", 1)[0]) != ipaddress.ip_address(conn.checked_address):
        sock.close()
        raise PeerMismatch(f"connected to {peer}, not the checked address {conn.checked_address}")
    return sock


class DeadlineHTTPConnection(urllib3.connection.HTTPConnection):
    """urllib3's connection, its socket watched by ``deadline`` and its peer checked."""

    def __init__(self, *args: Any, deadline: Deadline, checked_address: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.deadline = deadline
        self.checked_address = checked_address

    def _new_conn(self) -> socket.socket:
        return _registered(self, super()._new_conn())


class DeadlineHTTPSConnection(urllib3.connection.HTTPSConnection):
    """urllib3's TLS connection, its socket watched by ``deadline`` (from before the handshake)
    and its peer checked."""

    def __init__(self, *args: Any, deadline: Deadline, checked_address: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.deadline = deadline
        self.checked_address = checked_address

    def _new_conn(self) -> socket.socket:
        return _registered(self, super()._new_conn())
