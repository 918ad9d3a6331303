"""The Python client SDK (requests): everything the CLI and a bot author need.

>>> c = Client("http://127.0.0.1:8000")            # doctest: +SKIP
>>> c.move("x1y2z3", seat=0, private_key=key, actions=[{"type": "pass"}])  # doctest: +SKIP
"""

from __future__ import annotations

import json
import secrets
from typing import Any
from urllib.parse import urlencode

import requests

from service.proof import signing
from service.proof.delegation import seat_key_body, withdrawal_body
from service.proof.signing import authorization


def json_bytes(obj: Any) -> bytes:
    """The exact bytes a signed request sends (and its signature covers) as its JSON body."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


class ApiError(Exception):
    """A problem+json answer: ``status``, ``code`` and the server's ``detail``."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        self.status = status
        self.body = body
        self.code = str(body.get("code", "http-error"))
        self.detail = str(body.get("detail", body))
        super().__init__(f"{status} {self.code}: {self.detail}")


class Client:
    """The REST API over HTTP. ``private_key`` is the key :meth:`_auth` signs requests with
    when a call names none (a player's own key, for a client that acts for one player).
    ``language`` (a code, ``"hu"``) is sent as ``Accept-Language`` with every request, so the
    server's words (labels, events, board texts, ``detail`` sentences) come back in it."""

    def __init__(self, base_url: str, timeout: float = 30.0, session: requests.Session | None = None,
                 private_key: str | None = None, language: str | None = None) -> None:
        self.base = base_url.rstrip("/")
        self.language = language
        self.private_key = private_key  # signs the requests whose call names no key of its own
        self.timeout = timeout
        self.http = session or requests.Session()
        self.server_now: str | None = None
        """The service clock's time at the last answer (its ``Portolan-Now`` header): what a
        deadline in a view is to be compared with (with a file clock it is not this machine's)."""

    def _auth(self, method: str, path: str, query: str = "", body: bytes = b"", *,
              private_key: str | None = None) -> dict[str, str]:
        """The headers that sign one request (docs/signing.md): ``query`` is the raw query
        string exactly as it will be sent and ``body`` the exact body bytes; each call makes a
        fresh nonce, so a header is good for one request only."""
        key = private_key or self.private_key
        if key is None:
            raise ValueError("this request must be signed: give the Client (or the call) a private key")
        return {"Authorization": authorization(key, method, path, query, body)}

    def _headers(self, headers: dict[str, str] | None) -> dict[str, str]:
        """``headers`` with the client's ``Accept-Language`` (unsigned: the signature covers none of them)."""
        return {**({"Accept-Language": self.language} if self.language else {}), **(headers or {})}

    def _call(self, method: str, path: str, *, json: Any = None, headers: dict[str, str] | None = None,
              params: dict[str, Any] | None = None, ok: tuple[int, ...] = (200, 201), data: bytes | None = None) -> Any:
        resp = self.http.request(method, self.base + path, json=json, data=data, headers=self._headers(headers),
                                 params=params, timeout=self.timeout)
        self.server_now = resp.headers.get("Portolan-Now") or self.server_now
        if resp.status_code == 304 or (resp.status_code == 204 and 204 in ok):
            return None
        if resp.status_code not in ok:
            try:
                body = resp.json()
            except ValueError:
                body = {"detail": resp.text[:500]}
            raise ApiError(resp.status_code, body)
        return resp.json()

    def _signed(self, method: str, path: str, private_key: str | None, body: Any = None,
                ok: tuple[int, ...] = (200, 201, 202)) -> Any:
        """A signed request with an optional JSON body (sent as exactly the signed bytes)."""
        data = json_bytes(body) if body is not None else b""
        headers = self._auth(method, path, body=data, private_key=private_key)
        if body is not None:
            headers["Content-Type"] = "application/json"
        return self._call(method, path, data=data, headers=headers, ok=(*ok, 204))

    def _signed_get(self, path: str, private_key: str | None, params: dict[str, Any] | None = None) -> Any:
        # the query is built here, not by requests, so that the signed string is the sent one
        query = urlencode(params or {})
        url = f"{path}?{query}" if query else path
        return self._call("GET", url, headers=self._auth("GET", path, query, private_key=private_key))

    # -- catalog and server ------------------------------------------------------------------
    def games(self) -> list[dict[str, Any]]:
        return list(self._call("GET", "/v1/games")["games"])

    def game(self, game_id: str) -> dict[str, Any]:
        return dict(self._call("GET", f"/v1/games/{game_id}"))

    def server_key(self) -> str:
        return str(self._call("GET", "/v1/server-key")["public_key"])

    def health(self) -> dict[str, Any]:
        return dict(self._call("GET", "/healthz"))

    # -- matches -----------------------------------------------------------------------------
    def create(self, game: str, seats: list[dict[str, str]], options: dict[str, Any] | None = None,
               private_key: str | None = None, creator_name: str = "", time_control: dict[str, Any] | None = None,
               timeout_policy: str | dict[str, Any] | None = None, edition: str | None = None) -> dict[str, Any]:
        """Create a match, signed with ``private_key`` (else the client's key): that key is the
        creator, the only one that may abort the match while it waits. ``creator_name`` is who
        the invitations say invited; ``time_control`` and ``timeout_policy`` set the match's
        clock (docs/clock.md; absent: no clock, the stand-in policy)."""
        fields: dict[str, Any] = {"game": game, "seats": seats, "options": options or {}}
        if creator_name:
            fields["creator_name"] = creator_name
        if time_control is not None:
            fields["time_control"] = time_control
        if timeout_policy is not None:
            fields["timeout_policy"] = timeout_policy
        if edition is not None:
            fields["edition"] = edition
        body = json_bytes(fields)
        headers = {"Content-Type": "application/json",
                   **self._auth("POST", "/v1/matches", body=body, private_key=private_key)}
        return dict(self._call("POST", "/v1/matches", data=body, headers=headers))

    def claim(self, match: str, seat: int, token: str, private_key: str, name: str, email: str = "",
              nonce: str | None = None, mail: bool = False) -> dict[str, Any]:
        """Take an invited seat with ``private_key``. With ``mail``, the key also signs the seat's
        mail delegation, so replies to the turn notices move for the seat (docs/fairness.md)."""
        body = {"token": token, "public_key": signing.public_key_of(private_key), "name": name,
                "nonce": secrets.token_hex(16) if nonce is None else nonce}
        if email:
            body["email"] = email
        if mail:
            body["mail_delegation"] = signing.sign(private_key, self.mail_key(match, seat)["delegation_body"])
        return dict(self._call("POST", f"/v1/matches/{match}/seats/{seat}/claim", json=body))

    # -- moves by mail: the seat's mail delegation, a custodial seat's own key -----------------
    def mail_key(self, match: str, seat: int) -> dict[str, Any]:
        """The seat's current mail key and the delegation body its key would sign (public)."""
        return dict(self._call("GET", f"/v1/matches/{match}/seats/{seat}/mail-key"))

    def grant_mail_delegation(self, match: str, seat: int, private_key: str | None = None) -> dict[str, Any]:
        """Let replies by mail move for the seat: the seat's key signs the delegation body."""
        key = private_key or self.private_key
        if key is None:
            raise ValueError("granting a mail delegation is signed: give the Client (or the call) the seat's key")
        body = {"signature": signing.sign(key, self.mail_key(match, seat)["delegation_body"])}
        return dict(self._signed("PUT", f"/v1/matches/{match}/seats/{seat}/mail-delegation", key, body))

    def withdraw_mail_delegation(self, match: str, seat: int, private_key: str | None = None) -> dict[str, Any]:
        """Stop replies by mail from moving for the seat: the key signs the withdrawal of the
        delegated mail key."""
        key = private_key or self.private_key
        if key is None:
            raise ValueError("withdrawing a mail delegation is signed: give the Client (or the call) the seat's key")
        mail_key = self.mail_key(match, seat)["mail_key"]
        body = {"withdrawal": signing.sign(key, withdrawal_body(match, seat, mail_key))}
        return dict(self._signed("DELETE", f"/v1/matches/{match}/seats/{seat}/mail-delegation", key, body))

    def attach_key(self, match: str, seat: int, token: str, private_key: str) -> dict[str, Any]:
        """Hand a custodial seat to ``private_key`` with the attach token mailed to the player,
        from the match's current ply on (the key proves possession by signing the seat key body)."""
        public = signing.public_key_of(private_key)
        ply = int(self.show(match)["ply"])
        body = {"token": token, "public_key": public, "from_ply": ply,
                "signature": signing.sign(private_key, seat_key_body(match, seat, public, ply))}
        return dict(self._call("POST", f"/v1/matches/{match}/seats/{seat}/key", json=body))

    def abort(self, match: str, private_key: str | None = None) -> dict[str, Any]:
        """Cancel a match that still waits for players, signed with the creator's key."""
        path = f"/v1/matches/{match}/abort"
        return dict(self._call("POST", path, headers=self._auth("POST", path, private_key=private_key)))

    def show(self, match: str) -> dict[str, Any]:
        return dict(self._call("GET", f"/v1/matches/{match}"))

    def view(self, match: str, seat: int, private_key: str | None = None) -> dict[str, Any]:
        return dict(self._signed_get(f"/v1/matches/{match}/seats/{seat}/view", private_key))

    def poll_view(self, match: str, seat: int, etag: str | None, private_key: str | None = None,
                  wait: int = 25) -> tuple[dict[str, Any] | None, str | None]:
        """The seat's view and its ETag once it differs from ``etag`` (a long poll of up to ``wait``
        s with ``If-None-Match``): ``(None, etag)`` when nothing changed in that time. ``etag``
        None: the view now."""
        path = f"/v1/matches/{match}/seats/{seat}/view"
        query = urlencode({"wait": wait}) if etag else ""
        headers = self._auth("GET", path, query, private_key=private_key)
        if etag:
            headers["If-None-Match"] = etag
        resp = self.http.get(self.base + (f"{path}?{query}" if query else path), headers=self._headers(headers),
                             timeout=self.timeout + (wait if etag else 0))
        self.server_now = resp.headers.get("Portolan-Now") or self.server_now
        if resp.status_code == 304:
            return None, etag
        if resp.status_code != 200:
            try:
                body = resp.json()
            except ValueError:
                body = {"detail": resp.text[:500]}
            raise ApiError(resp.status_code, body)
        return dict(resp.json()), resp.headers.get("ETag")

    def notices(self, email: str, private_key: str | None = None) -> dict[str, Any]:
        """The notice preference of ``email`` (a seat of the signing key must have it)."""
        return dict(self._signed_get("/v1/me/notices", private_key, {"email": email}))

    def set_notices(self, email: str, notices: str, private_key: str | None = None) -> dict[str, Any]:
        """Set it: ``every`` turn, a daily ``digest``, or ``off``."""
        return dict(self._signed("PUT", "/v1/me/notices", private_key, {"email": email, "notices": notices}))

    def set_language(self, email: str, language: str, private_key: str | None = None) -> dict[str, Any]:
        """Set the language of ``email``'s mail (``hu``, ``magyar``, ``en``...)."""
        return dict(self._signed("PUT", "/v1/me/language", private_key, {"email": email, "language": language}))

    def my_turns(self, private_key: str | None = None) -> list[dict[str, Any]]:
        return list(self._signed_get("/v1/me/turns", private_key)["turns"])

    def log(self, match: str, start: int = 0) -> dict[str, Any]:
        return dict(self._call("GET", f"/v1/matches/{match}/log", params={"from": start}))

    def record(self, match: str) -> dict[str, Any]:
        return dict(self._call("GET", f"/v1/matches/{match}/record"))

    def move(self, match: str, seat: int, private_key: str, actions: list[dict[str, Any]],
             ply: int | None = None, nonce: str | None = None) -> dict[str, Any]:
        """Sign and submit a move. Without ``ply`` the match's current ply is fetched first."""
        if ply is None:
            ply = int(self.show(match)["ply"])
        envelope = {"match": match, "seat": seat, "ply": ply, "actions": actions,
                    "nonce": nonce or secrets.token_hex(8)}
        path = f"/v1/matches/{match}/moves"
        # The request itself is signed too (over these exact body bytes): should this be a
        # retry of a move already accepted, the server then answers with the seat's private
        # view, which it gives an unsigned resubmission of a public log entry never.
        body = json.dumps({"envelope": envelope, "signature": signing.sign(private_key, envelope)}).encode()
        headers = {"Content-Type": "application/json", **self._auth("POST", path, body=body, private_key=private_key)}
        return dict(self._call("POST", path, data=body, headers=headers))

    # -- match actions (docs/clock.md): signed moves of their own, at the current ply -------------
    def match_action(self, match: str, seat: int, private_key: str, kind: str) -> dict[str, Any]:
        """Send the match action ``kind`` (``match:resign``, ``match:abort``, ``match:return``)
        for the seat, alone in an envelope at the match's current ply (any seat may, its turn or not)."""
        return self.move(match, seat, private_key, [{"type": kind}])

    def resign(self, match: str, seat: int, private_key: str) -> dict[str, Any]:
        """Give the seat up: it is ranked last, and the match's timeout policy says what follows."""
        return self.match_action(match, seat, private_key, "match:resign")

    def vote_abort(self, match: str, seat: int, private_key: str) -> dict[str, Any]:
        """Vote to abort a running match; the last remaining player's vote aborts it (no result).
        The ``abort-voted`` event's ``waiting_for`` lists the seats still to vote."""
        return self.match_action(match, seat, private_key, "match:abort")

    def come_back(self, match: str, seat: int, private_key: str) -> dict[str, Any]:
        """Take the seat back from its stand-in ("I am back")."""
        return self.match_action(match, seat, private_key, "match:return")

    # -- webhooks ------------------------------------------------------------------------------
    @staticmethod
    def _hooks_path(match: str | None) -> str:
        """A player's hooks (``match`` None: every match of the signing key) or a match's (its creator's)."""
        return f"/v1/matches/{match}/webhooks" if match else "/v1/me/webhooks"

    def add_webhook(self, url: str, match: str | None = None, description: str = "",
                    private_key: str | None = None) -> dict[str, Any]:
        """Register a webhook: the signing key's (all its matches), or a match's when ``match`` is
        given (signed by the match's creator key)."""
        return dict(self._signed("POST", self._hooks_path(match), private_key,
                                 {"url": url, "description": description}))

    def webhooks(self, match: str | None = None, private_key: str | None = None) -> list[dict[str, Any]]:
        return list(self._signed_get(self._hooks_path(match), private_key)["webhooks"])

    def remove_webhook(self, hook: str, match: str | None = None, private_key: str | None = None) -> None:
        self._signed("DELETE", f"{self._hooks_path(match)}/{hook}", private_key)

    def ping_webhook(self, hook: str, match: str | None = None, private_key: str | None = None) -> dict[str, Any]:
        """Queue a test event (``ping``) to a webhook; a ping that gets through switches a
        switched-off hook back on."""
        return dict(self._signed("POST", f"{self._hooks_path(match)}/{hook}/ping", private_key))

    def webhook_deliveries(self, hook: str, match: str | None = None, private_key: str | None = None) -> dict[str, Any]:
        """The hook's state and its last delivery attempts, newest first."""
        return dict(self._signed_get(f"{self._hooks_path(match)}/{hook}/deliveries", private_key))
