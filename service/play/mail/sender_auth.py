"""Who really sent a reply: our own MTA's ``Authentication-Results`` (RFC 8601), read for DMARC and DKIM.

A From header is text anyone may write. The MTA in front of Portolan (Postfix with OpenDKIM and
OpenDMARC, rspamd, ...) checks SPF, DKIM and DMARC and writes what it found into an
``Authentication-Results`` header that begins with its own *authserv-id*
(``PORTOLAN_MAIL_AUTHSERV_ID``, e.g. ``mx.example.org``). Only those are trusted: a sender may
write A-R headers of any other id, or even of ours further down (RFC 8601 section 5 asks the MTA
to remove those on the way in; deploy/README.md "Mail in" shows how), which is why the transport
hands the desk only the A-R headers at the top of the message (service.delivery.inbound.parsing).

The verdict (:func:`judge`), for the From address's domain D:

- a ``dmarc`` result for D: ``fail`` refuses, ``pass`` passes (DMARC already asked for alignment);
- without one (``none``, ``temperror``, no policy published, no DMARC checker at all): a ``dkim=pass``
  whose ``header.d`` (or ``header.i``'s domain) is D or a parent of D (``example.org`` signs for
  ``mail.example.org``: relaxed alignment, parent side only, as service.delivery.inbound.dkim_check);
- anything else is no proof.

Hand-written because no maintained parser is at hand (``authres`` is not in the offline index the
locks resolve from, and has had no release since 2019); the grammar needed is small: comments
dropped, ``;``-separated result infos of ``method=result`` and ``ptype.property=value`` pairs.
Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

_PAIR = re.compile(r'([A-Za-z0-9_.-]+(?:/[0-9]+)?)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s";]+)')


@dataclass(frozen=True)
class Result:
    """One result info: ``method=result`` and its properties (``header.d`` -> ``example.org``)."""

    method: str
    result: str
    properties: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class AuthResults:
    """One ``Authentication-Results`` header: whose it is and what it says."""

    authserv_id: str
    results: tuple[Result, ...]


@dataclass(frozen=True)
class Judgement:
    """Whether the From domain is proven (``passed``), and the one line that says why."""

    passed: bool
    why: str
    dmarc_fail: bool = False
    """The domain's own DMARC check failed: nothing else (our own DKIM check) may overrule it."""


def _without_comments(value: str) -> str:
    """The header value with its ``(comments)`` removed (nested, and not inside quotes)."""
    out: list[str] = []
    depth, quoted, escaped = 0, False, False
    for ch in value:
        if escaped:
            escaped = False
            if depth == 0:
                out.append(ch)
            continue
        if ch == "\\":
            escaped = True
            if depth == 0:
                out.append(ch)
            continue
        if quoted:
            quoted = ch != '"'
            out.append(ch)
        elif ch == "(":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        elif depth == 0:
            quoted = ch == '"'
            out.append(ch)
    return "".join(out)


def _split(value: str) -> list[str]:
    """``;``-separated parts, ``;`` inside quotes left alone."""
    parts: list[str] = []
    current: list[str] = []
    quoted, escaped = False, False
    for ch in value:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == '"':
            quoted = not quoted
        elif ch == ";" and not quoted:
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    parts.append("".join(current))
    return [p.strip() for p in parts]


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return re.sub(r"\\(.)", r"\1", text[1:-1])
    return text


def parse(value: str) -> AuthResults | None:
    """One ``Authentication-Results`` header value, or None when it has no authserv-id."""
    head, *infos = _split(" ".join(_without_comments(value).split()))
    words = head.split()
    if not words:
        return None
    results: list[Result] = []
    for info in infos:
        pairs = _PAIR.findall(info)
        if not pairs:
            continue  # "none": no result at all
        (method, result), rest = pairs[0], pairs[1:]
        props = {name.lower(): _unquote(val) for name, val in rest if "." in name}
        results.append(Result(method.split("/")[0].lower(), _unquote(result).lower(), props))
    return AuthResults(_unquote(words[0]).lower().rstrip("."), tuple(results))


def _domain(text: str) -> str:
    return text.rpartition("@")[2].strip().lower().rstrip(".")


def aligned(signer: str, domain: str) -> bool:
    """A signing domain that is the From domain or a parent of it."""
    return bool(signer) and (domain == signer or domain.endswith("." + signer))


def judge(headers: Iterable[str], authserv_id: str, sender: str) -> Judgement:
    """The verdict on ``sender``'s domain from the A-R ``headers`` of ``authserv_id`` (see the
    module's docstring); headers of every other authserv-id are ignored."""
    domain = _domain(sender)
    ours = authserv_id.strip().lower().rstrip(".")
    if not domain or not ours:
        return Judgement(False, "no sender domain" if not domain else "no authserv-id configured")
    results: list[Result] = []
    for value in headers:
        parsed = parse(value)
        if parsed is not None and parsed.authserv_id == ours:
            results.extend(parsed.results)
    if not results:
        return Judgement(False, f"no Authentication-Results of {ours} with a result")
    dmarc = [r for r in results if r.method == "dmarc"
             and _domain(r.properties.get("header.from", domain)) == domain]
    if any(r.result == "fail" for r in dmarc):
        return Judgement(False, f"{domain} fails DMARC ({ours})", dmarc_fail=True)
    if any(r.result == "pass" for r in dmarc):
        return Judgement(True, f"{domain} passes DMARC ({ours})")
    for r in results:
        signer = _domain(r.properties.get("header.d", "") or r.properties.get("header.i", ""))
        if r.method == "dkim" and r.result == "pass" and aligned(signer, domain):
            return Judgement(True, f"a DKIM signature of {signer} aligned with {domain} passes ({ours})")
    return Judgement(False, f"{domain} has no DMARC pass and no passing DKIM signature aligned with it ({ours})")
