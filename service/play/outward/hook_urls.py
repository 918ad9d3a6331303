"""Where a webhook may point: HTTPS to public addresses only (server-side request forgery).

A webhook makes the server send requests to a URL someone else chose. Left open, that is a way
into the operator's network (``http://10.0.0.1/admin``, the cloud metadata service at
``169.254.169.254``, Redis on loopback). So a URL must be ``https``, carry no credentials, and
its host must resolve only to global unicast addresses: every resolved address is checked (one
bad address refuses the URL), at registration and again at each delivery, and the delivery
connects to an address it checked (:func:`resolve_checked` hands it over), so a DNS answer that
changes between the check and the connection (DNS rebinding) cannot steer it elsewhere.

``allow_private`` (the operator's ``PORTOLAN_WEBHOOKS_ALLOW_PRIVATE``, for development and tests)
also lets plain ``http`` and loopback or private addresses through; multicast and the
unspecified address never are.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from urllib.parse import urlsplit

from service.play.errors import BadRequest, Unprocessable

MAX_URL = 1024

Resolver = Callable[[str, int], list[str]]
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


RESOLVE_TIMEOUT_S = 3.0
# getaddrinfo has no timeout of its own; a slow resolver must not hold a request thread (or a
# delivery) for long, so lookups run in a small pool and are given up after RESOLVE_TIMEOUT_S.
_lookups = ThreadPoolExecutor(max_workers=4, thread_name_prefix="webhook-dns")


def system_resolver(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (the system resolver, TCP), within RESOLVE_TIMEOUT_S."""
    lookup = _lookups.submit(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM)
    try:
        infos = lookup.result(timeout=RESOLVE_TIMEOUT_S)
    except FutureTimeout as exc:
        raise OSError(f"no answer from the resolver within {RESOLVE_TIMEOUT_S:g} s") from exc
    return sorted({str(info[4][0]) for info in infos})


@dataclass(frozen=True)
class Target:
    """A checked URL: where to connect (``address``, ``port``) and what to say (``host`` for the
    Host header and TLS name, ``path`` with its query)."""

    scheme: str
    host: str
    port: int
    path: str
    address: str


def _refused_reason(addr: IPAddress, allow_private: bool) -> str | None:
    """Why a webhook may not go to ``addr``, or None when it may."""
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped  # ::ffff:127.0.0.1 is 127.0.0.1
    if addr.is_unspecified:
        return "the unspecified address"
    if addr.is_multicast:
        return "a multicast address"
    if allow_private:
        return None
    for test, what in ((addr.is_loopback, "a loopback address"), (addr.is_link_local, "a link-local address"),
                       (addr.is_private, "a private address"), (addr.is_reserved, "a reserved address")):
        if test:
            return what
    if not addr.is_global:  # shared address space (100.64/10), documentation ranges, ...
        return "an address that is not public"
    return None


def parse(url: str, allow_private: bool) -> tuple[str, str, int, str]:
    """(scheme, host, port, path) of a webhook URL, or 400 ``bad-webhook-url`` saying why not."""
    if not isinstance(url, str) or not url:
        raise BadRequest("bad-webhook-url", "url must be a non-empty string")
    if len(url) > MAX_URL:
        raise BadRequest("bad-webhook-url", f"the webhook URL is longer than {MAX_URL} characters")
    if not url.isascii() or any(c.isspace() or ord(c) < 0x21 for c in url):
        raise BadRequest("bad-webhook-url", "the webhook URL must be ASCII without spaces or control characters "
                         "(write an international host name in its xn-- form)")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise BadRequest("bad-webhook-url", f"the webhook URL does not parse: {exc}") from exc
    allowed = ("https", "http") if allow_private else ("https",)
    if parts.scheme not in allowed:
        raise BadRequest("bad-webhook-url", "a webhook URL must be https:// (plain http is refused: the events "
                         "and their signatures would travel in the clear)")
    if parts.username is not None or parts.password is not None:
        raise BadRequest("bad-webhook-url", "a webhook URL must not carry credentials (user:password@); "
                         "verify the webhook-signature header instead")
    if parts.fragment:
        raise BadRequest("bad-webhook-url", "a webhook URL must not have a #fragment")
    host = parts.hostname
    if not host:
        raise BadRequest("bad-webhook-url", "the webhook URL has no host")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.scheme, host, port or (443 if parts.scheme == "https" else 80), path


def _addresses(host: str, port: int, resolve: Resolver) -> list[IPAddress]:
    """``host`` itself when it is an address literal, else what it resolves to (422 if nothing)."""
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    try:
        found = [ipaddress.ip_address(a.split("%", 1)[0]) for a in resolve(host, port)]
    except (OSError, UnicodeError, ValueError) as exc:
        raise Unprocessable("webhook-host-unresolvable", f"the webhook host {host!r} does not resolve: {exc}") from exc
    if not found:
        raise Unprocessable("webhook-host-unresolvable", f"the webhook host {host!r} resolves to no address")
    return found


def resolve_checked(url: str, allow_private: bool, resolve: Resolver = system_resolver) -> Target:
    """Check ``url`` and every address its host resolves to; the :class:`Target` to connect to,
    else 400 ``bad-webhook-url`` (the URL itself), 422 ``webhook-host-unresolvable`` or 422
    ``webhook-address-refused`` (the host is, or resolves to, an address no webhook may reach)."""
    scheme, host, port, path = parse(url, allow_private)
    addresses = _addresses(host, port, resolve)
    for addr in addresses:
        reason = _refused_reason(addr, allow_private)
        if reason is not None:
            raise Unprocessable("webhook-address-refused", f"the webhook host {host!r} is or resolves to {addr}, "
                                f"{reason}: webhooks go only to public addresses")
    return Target(scheme, host, port, path, str(addresses[0]))
