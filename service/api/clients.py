"""Who a request comes from, as far as the server's fairness is concerned, and the open event
streams each such client holds in this process.

A client is its address (the one ProxyFix reads from ``X-Forwarded-For`` behind the operator's
proxy), except that IPv6 counts per /64: one subscriber line gets a whole /64, so a per-address
bound on IPv6 would bind nobody. An IPv4-mapped IPv6 address is its IPv4 address.
"""

from __future__ import annotations

import threading

from flask import request

from service.play import throttle


def client_network(address: str | None) -> str:
    """The client ``address`` counts as (:func:`service.play.throttle.client_network`: itself on
    IPv4, its /64 on IPv6), or ``unknown`` when a request has no address at all."""
    return throttle.client_network(address) or "unknown"


def request_client() -> str:
    """The client of the current request (:func:`client_network` of its remote address)."""
    return client_network(request.remote_addr)


class ClientStreams:
    """How many event streams each client holds open in this process, bounded by ``cap`` (0: no
    bound). Why (issue 28, item 11): a process holds ``PORTOLAN_STREAMS`` streams in all, and one
    client must not take them from everyone else."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._lock = threading.Lock()
        self._open: dict[str, int] = {}

    def take(self, client: str) -> bool:
        """Count one more stream of ``client``; False (nothing counted) when it holds ``cap``."""
        with self._lock:
            held = self._open.get(client, 0)
            if self.cap and held >= self.cap:
                return False
            self._open[client] = held + 1
            return True

    def give_back(self, client: str) -> None:
        """One stream of ``client`` has ended."""
        with self._lock:
            held = self._open.get(client, 0) - 1
            if held > 0:
                self._open[client] = held
            else:
                self._open.pop(client, None)

    def held(self, client: str) -> int:
        """How many streams ``client`` holds now."""
        with self._lock:
            return self._open.get(client, 0)
