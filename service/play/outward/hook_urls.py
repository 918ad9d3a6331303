"""Where a webhook may point: HTTPS to public addresses only (server-side request forgery).

A webhook makes the server send requests to a URL someone else chose. Left open, that is a way
into the operator's network (``http://10.0.0.1/admin``, the cloud metadata service at
``169.254.169.254``, Redis on loopback). So a URL must be ``https``, carry no credentials, and
its host must resolve only to global unicast addresses: every resolved address is checked (one
bad address refuses the URL), at registration and again at each delivery, and the delivery
connects to an address it checked (:func:`resolve_checked` hands it over), so a DNS answer that
changes between the check and the connection (DNS rebinding) cannot steer it elsewhere.

An IPv6 address that carries an IPv4 address inside it is judged by that IPv4 address too
(issue 28, item 6): a 6to4 router turns ``2002:7f00:1::`` into 127.0.0.1, a NAT64 gateway
``64:ff9b::a00:1`` into 10.0.0.1. The embeddings known: IPv4-mapped, IPv4-translated and
IPv4-compatible (``::ffff:a.b.c.d``, ``::ffff:0:a.b.c.d``, ``::a.b.c.d``), 6to4 (``2002::/16``, bits
16-48), Teredo (``2001::/32``: the server in bits 32-64, the client inverted in the last 32), NAT64
(``64:ff9b::/96``; the local-use ``64:ff9b:1::/48`` is never public) and ISATAP interface ids
(``…:0:5efe:a.b.c.d``, ``…:200:5efe:a.b.c.d``). A host written as a number in any spelling the
C library accepts (``2130706433``, ``0x7f.1``, ``0177.0.0.1``, ``127.1``) is that IPv4 address,
and a trailing dot (``localhost.``) is the same name without it.

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

from service.i18n import phrase
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


_SIXTOFOUR = ipaddress.IPv6Network("2002::/16")
_TEREDO = ipaddress.IPv6Network("2001::/32")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")
_TRANSLATED = ipaddress.IPv6Network("::ffff:0:0:0/96")
_COMPATIBLE = ipaddress.IPv6Network("::/96")
_ISATAP_IDS = (0x00005EFE, 0x02005EFE)  # bits 64-96 of an ISATAP interface id (RFC 5214), u/l bit off or on


def embedded_ipv4(addr: ipaddress.IPv6Address) -> list[tuple[ipaddress.IPv4Address, str]]:
    """The IPv4 addresses ``addr`` carries, each with the name of the embedding (empty when none):
    a packet to ``addr`` may end at any of them once a relay or translator unwraps it."""
    low32 = ipaddress.IPv4Address(int(addr) & 0xFFFFFFFF)
    found: list[tuple[ipaddress.IPv4Address, str]] = []
    if addr.ipv4_mapped is not None:
        found.append((addr.ipv4_mapped, "an IPv4-mapped address"))
    elif addr in _TRANSLATED:
        found.append((low32, "an IPv4-translated address"))
    elif addr in _COMPATIBLE and int(addr) > 1:  # not :: nor ::1, which are themselves
        found.append((low32, "an IPv4-compatible address"))
    if addr.sixtofour is not None:
        found.append((addr.sixtofour, "a 6to4 address"))
    if addr in _TEREDO and addr.teredo is not None:
        server, client = addr.teredo
        found += [(server, "a Teredo address (its server)"), (client, "a Teredo address (its client)")]
    if addr in _NAT64:
        found.append((low32, "a NAT64 address"))
    if (int(addr) >> 32) & 0xFFFFFFFF in _ISATAP_IDS:
        found.append((low32, "an ISATAP address"))
    return found


def _refused_reason(addr: IPAddress, allow_private: bool) -> str | None:
    """Why a webhook may not go to ``addr``, or None when it may."""
    if isinstance(addr, ipaddress.IPv6Address):
        if addr in _NAT64_LOCAL and not allow_private:
            return "a local-use NAT64 address (64:ff9b:1::/48, whose translator is the operator's own)"
        for inner, how in embedded_ipv4(addr):
            reason = _plain_refused_reason(inner, allow_private)
            if reason is not None:
                return f"{how} that embeds {inner}, {reason}"
        if addr.ipv4_mapped is not None:  # ::ffff:8.8.8.8 is 8.8.8.8, judged above; not a reserved v6
            return None
    return _plain_refused_reason(addr, allow_private)


def _plain_refused_reason(addr: IPAddress, allow_private: bool) -> str | None:
    """Why a webhook may not go to ``addr`` itself (what it embeds aside), or None when it may."""
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
        raise BadRequest("bad-webhook-url", phrase("url must be a non-empty string"))
    if len(url) > MAX_URL:
        raise BadRequest("bad-webhook-url", phrase("the webhook URL is longer than {most} characters", most=MAX_URL))
    if not url.isascii() or any(c.isspace() or ord(c) < 0x21 for c in url):
        raise BadRequest("bad-webhook-url", phrase("the webhook URL must be ASCII without spaces or control characters (write an international host name in its xn-- form)"))
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise BadRequest("bad-webhook-url", phrase("the webhook URL does not parse: {exc}", exc=exc)) from exc
    allowed = ("https", "http") if allow_private else ("https",)
    if parts.scheme not in allowed:
        raise BadRequest("bad-webhook-url", phrase("a webhook URL must be https:// (plain http is refused: the events and their signatures would travel in the clear)"))
    if parts.username is not None or parts.password is not None:
        raise BadRequest("bad-webhook-url", phrase("a webhook URL must not carry credentials (user:password@); verify the webhook-signature header instead"))
    if parts.fragment:
        raise BadRequest("bad-webhook-url", phrase("a webhook URL must not have a #fragment"))
    host = parts.hostname
    if host and host.endswith(".") and not host.endswith(".."):
        host = host[:-1]  # the root's dot: "localhost." is localhost, and is judged as such
    if not host:
        raise BadRequest("bad-webhook-url", phrase("the webhook URL has no host"))
    host = _numeric_ipv4(host) or host
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.scheme, host, port or (443 if parts.scheme == "https" else 80), path


def _numeric_ipv4(host: str) -> str | None:
    """The dotted-quad form of a host written as an IPv4 number in any spelling the C library's
    ``inet_aton`` reads (``2130706433``, ``0x7f.1``, ``0177.0.0.1``, ``127.1``), else None. Why:
    the resolver and browsers read those spellings as addresses, so the check must too; and a host
    whose last label is a number is no name at all (the WHATWG URL standard reads it as IPv4)."""
    if ":" in host:
        return None
    try:
        return socket.inet_ntoa(socket.inet_aton(host))
    except OSError:
        pass
    last = host.rsplit(".", 1)[-1].lower()
    if last.isdigit() or (last.startswith("0x") and all(c in "0123456789abcdef" for c in last[2:])):
        raise BadRequest("bad-webhook-url", phrase("the webhook host {host!r} is neither a name (its last label is a number) nor an IPv4 address", host=host))
    return None


def _addresses(host: str, port: int, resolve: Resolver) -> list[IPAddress]:
    """``host`` itself when it is an address literal, else what it resolves to (422 if nothing)."""
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    try:
        found = [ipaddress.ip_address(a.split("%", 1)[0]) for a in resolve(host, port)]
    except (OSError, UnicodeError, ValueError) as exc:
        raise Unprocessable("webhook-host-unresolvable", phrase("the webhook host {host!r} does not resolve: {exc}", host=host, exc=exc)) from exc
    if not found:
        raise Unprocessable("webhook-host-unresolvable", phrase("the webhook host {host!r} resolves to no address", host=host))
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
            raise Unprocessable("webhook-address-refused", phrase("the webhook host {host!r} is or resolves to {addr}, {reason}: webhooks go only to public addresses", host=host, addr=addr, reason=reason))
    return Target(scheme, host, port, path, str(addresses[0]))
