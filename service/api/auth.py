"""Signed requests: a request signed with the seat's Ed25519 key (docs/signing.md).

``Authorization: Portolan key="<public key>", ts="<unix seconds>", nonce="<16-64 of [A-Za-z0-9_-]>",
sig="<signature>"`` where the signature signs the RFC 8785 canonical JSON of
``{"method", "path", "query", "body", "ts", "nonce"}`` (:func:`service.proof.signing.signed_request_body`):
the raw query string and the SHA-256 of the raw body are bound, so a seen signature is good for
no other request; a ``ts`` more than five minutes from the server's clock is refused, and each
(key, nonce) is remembered for as long as its ``ts`` could pass, so the same request cannot be
sent twice.
"""

from __future__ import annotations

import logging
import re
import time

from flask import current_app, g, request
from redis.exceptions import RedisError
from werkzeug.exceptions import HTTPException

from service.api.schemas import raw_body
from service.i18n import phrase
from service.play.errors import Unauthorized
from service.play.matches import Matches
from service.proof import signing
from service.proof.match_record import MatchMeta
from service.proof.signing import NONCE_PATTERN, signed_request_body

log = logging.getLogger("portolan.api")
WINDOW_S = 300
# A nonce must be remembered while a request carrying it could still pass the clock check:
# a ts up to WINDOW_S ahead stays acceptable for 2 * WINDOW_S.
NONCE_TTL_S = 2 * WINDOW_S + 1
_PARAM = re.compile(r'\s*(\w+)="([^"]*)"\s*(?:,|$)')
_WHOLE_SECONDS = re.compile(r"[0-9]{1,1000}")  # well below int()'s 4300-digit limit
_FORM = 'Authorization: Portolan key="...", ts="...", nonce="...", sig="..."'


def _params(header: str) -> dict[str, str]:
    """The key="value" pairs of a Portolan Authorization header; a repeated or unknown name,
    or anything that is not such a pair, is refused rather than guessed at."""
    text = header.removeprefix("Portolan ")
    params: dict[str, str] = {}
    pos = 0
    for m in _PARAM.finditer(text):
        if m.start() != pos:
            break
        name, value = m.group(1), m.group(2)
        if name in params or name not in ("key", "ts", "nonce", "sig"):
            raise Unauthorized("bad-authorization", phrase("the Authorization header has a repeated or unknown parameter {name!r}; the form is {form}", name=name, form=_FORM))
        params[name] = value
        pos = m.end()
    if pos != len(text) or set(params) != {"key", "ts", "nonce", "sig"}:
        raise Unauthorized("bad-authorization", phrase("the Authorization header needs exactly key, ts, nonce and sig: {form}", form=_FORM))
    return params


def verified_signer() -> str | None:
    """The public key whose signature over this request verifies, with a fresh ``ts``, or None.

    The nonce is not spent here: this is what the rate limiter asks before the route runs, to
    count a request against a key's bucket only when that key really signed it (a header merely
    naming a key is anyone's to send, since public keys are in every log). The answer is kept for
    the request, so :func:`signed_key` does not verify twice."""
    if "portolan_signer" not in g:
        try:
            g.portolan_signer = _checked_signature()
        except (Unauthorized, HTTPException):  # HTTPException: a body over the size limit (413)
            g.portolan_signer = None
    signer: tuple[str, str] | None = g.portolan_signer
    return signer[0] if signer is not None else None


def signed_key() -> str:
    """The public key that signed this request (verified, fresh, first use), or 401."""
    key, nonce = _signer()
    matches: Matches = current_app.extensions["portolan"]
    _spent(key, nonce, matches.spend_request_nonce(key, nonce, NONCE_TTL_S))
    return key


def signed_key_reading_meta(match_id: str) -> tuple[str, MatchMeta | None]:
    """:func:`signed_key`, and the meta of ``match_id`` (None: no such match) read in the same
    round trip as the nonce is spent. The answers are those of :func:`signed_key` followed by a
    read of the match: a bad or replayed signature is refused before the match is looked at."""
    key, nonce = _signer()
    matches: Matches = current_app.extensions["portolan"]
    fresh, meta = matches.spend_request_nonce_reading_meta(key, nonce, NONCE_TTL_S, match_id)
    _spent(key, nonce, fresh)
    return key, meta


def _signer() -> tuple[str, str]:
    """(key, nonce) of this request's verified signature: the one the rate limiter checked, if it did."""
    signer: tuple[str, str] | None = g.get("portolan_signer")
    return signer if signer is not None else _checked_signature()


def _spent(key: str, nonce: str, fresh: bool) -> None:
    """401 for a nonce already used; else remember that this request spent it (see :func:`give_back_nonce`)."""
    if not fresh:
        raise Unauthorized("replayed-request", phrase("this signed request (key and nonce) was already used; sign each request with a fresh nonce"))
    g.portolan_spent_nonce = (key, nonce)


def give_back_nonce() -> None:
    """Forget the nonce this request spent, if it spent one: called when the request ends in 503.

    A 503 carries ``Retry-After``, and HTTP clients that retry (urllib3's ``Retry`` honours it)
    send the identical request again, signature and nonce included. Had the nonce stayed spent,
    that retry would be 401 ``replayed-request`` for a request that was never served. Giving it
    back lets exactly that request through again; every route is safe to repeat (a move is
    idempotent, a claim too, an abort answers 409 once done, a read changes nothing); a create
    whose answer was lost may then store a second waiting match, which its creator can abort.
    Best effort: the store has just failed and may fail again, and then the nonce stays spent
    (the client signs afresh, as it must after any 401)."""
    spent: tuple[str, str] | None = g.pop("portolan_spent_nonce", None)
    if spent is None:
        return
    matches: Matches = current_app.extensions["portolan"]
    try:
        matches.release_request_nonce(*spent)
    except RedisError:
        log.warning("could not give back the nonce of a request that ended in 503")


def _checked_signature() -> tuple[str, str]:
    """(key, nonce) of a well-formed, fresh, verifying Portolan signature on this request, or 401."""
    header = request.headers.get("Authorization", "")
    if not header.startswith("Portolan "):
        raise Unauthorized("missing-signature", phrase("this request must be signed with the seat's key: {form}", form=_FORM))
    params = _params(header)
    key, sig, nonce = params["key"], params["sig"], params["nonce"]
    if not _WHOLE_SECONDS.fullmatch(params["ts"]):
        raise Unauthorized("bad-authorization", phrase("ts must be whole unix seconds (digits only), not {params!r}", params=params['ts'][:20]))
    ts = int(params["ts"])
    if not NONCE_PATTERN.fullmatch(nonce):
        raise Unauthorized("bad-authorization", phrase("nonce must be 16 to 64 characters of A-Z, a-z, 0-9, '_' and '-'"))
    if abs(int(time.time()) - ts) > WINDOW_S:  # int arithmetic: a huge ts must not overflow a float
        raise Unauthorized("stale-signature", phrase("the signed timestamp is more than {seconds} s away from the server's clock", seconds=WINDOW_S))
    if not signing.valid_public_key(key):
        raise Unauthorized("bad-signature", phrase("key is not a valid Ed25519 public key (32 bytes, a canonical point not of small order)"))
    signed = signed_request_body(request.method, request.path, ts, nonce,
                                 request.query_string.decode("latin-1"), raw_body())
    if not signing.verify(key, signed, sig):
        raise Unauthorized("bad-signature", phrase("the request signature does not verify under the given key for this method, path, query and body"))
    return key, nonce
