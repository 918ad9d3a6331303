"""The player's private key never leaves the browser (issue 12, "Tests that must pass").

Every request both browsers make through a whole flow (create, claim from the invite link, a
few moves, the key page) is recorded: URL, every header, the body. The key backup exported on
/keys is then decrypted in Python (docs/web-client.md, "portolan-key-backup/1") to get each
private key, and no request may carry it in any encoding: the 32-byte seed and the PKCS#8 DER,
as base64url, base64 (padded or not) or hex. Only the public key and signatures go out, and
the recorder did see those (so it saw the requests at all).

Also: the key stays after a reload, and the backup imported in a second browser gives the same
public key, which can then move for the seat.
"""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC

from service.proof import signing
from tests.web.conftest import Dev
from tests.web.driver import Clicker, claim_from_link, create_on_new_page, play_until

PASSPHRASE = "a long walk on the quay"


def b64d(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Recorder:
    """Every request a browser context makes, kept to be read whole afterwards."""

    def __init__(self, context: Any) -> None:
        self.requests: list[Any] = []
        context.on("request", lambda request: self.requests.append(request))

    def texts(self) -> list[str]:
        """Each request as one text: method, URL, every header (name and value), the body."""
        out = []
        for r in self.requests:
            body = r.post_data_buffer or b""
            try:
                raw = r.all_headers()  # what went on the wire, cookies and all
            except Exception:  # a request whose page is gone: the headers Playwright kept
                raw = r.headers
            headers = "\n".join(f"{k}: {v}" for k, v in raw.items())
            out.append(f"{r.method} {r.url}\n{headers}\n\n{body.decode('utf-8', 'replace')}\n{body.hex()}")
        return out


def export_backup(page: Any, tmp_path: Path, name: str) -> dict[str, Any]:
    """Download this browser's key backup from /keys (a passphrase of our choosing)."""
    page.goto("/keys")
    page.wait_for_selector("body[data-ready=true]", state="attached")
    page.fill("input#export-passphrase", PASSPHRASE)
    with page.expect_download() as download:
        page.click("button#export")
    path = tmp_path / f"{name}.json"
    download.value.save_as(str(path))
    return dict(json.loads(path.read_text()))


def decrypt(backup: dict[str, Any]) -> bytes:
    """The PKCS#8 DER of the backup's private key, as docs/web-client.md says to read it."""
    assert backup["format"] == "portolan-key-backup/1" and backup["kdf"]["iterations"] >= 600_000
    key = PBKDF2HMAC(hashes.SHA256(), 32, b64d(backup["kdf"]["salt"]), backup["kdf"]["iterations"]).derive(PASSPHRASE.encode())
    return AESGCM(key).decrypt(b64d(backup["cipher"]["iv"]), b64d(backup["wrapped"]), None)


def encodings(secret: bytes) -> list[str]:
    """Every way a request could carry ``secret`` as text."""
    std = base64.b64encode(secret).decode()
    url = base64.urlsafe_b64encode(secret).decode()
    return [std, std.rstrip("="), url, url.rstrip("="), secret.hex(), secret.hex().upper()]


def test_no_request_carries_a_private_key_and_a_backup_moves_to_a_second_browser(
        dev: Dev, new_player: Callable[[], Any], tmp_path: Path) -> None:
    ana, bea = new_player(), new_player()
    recorders = [Recorder(ana.context), Recorder(bea.context)]
    match_id = create_on_new_page(ana, "nauticus", ["me", "invite", "bot:random"], "Ana Lima", "ana@example.org",
                                  {1: "bea@example.org"})
    link = ana.locator("a.invite-link[data-seat='1']").get_attribute("href")
    assert link and f"/claim/{match_id}/1#token=" in link
    claim_from_link(bea, link, "Bea Souza")
    rng = random.Random(7)
    clickers = {0: Clicker(ana, rng), 1: Clicker(bea, rng)}
    play_until(dev, match_id, clickers, moves=2)

    backups = [export_backup(ana, tmp_path, "ana"), export_backup(bea, tmp_path, "bea")]
    public_keys = []
    for backup in backups:
        pkcs8 = decrypt(backup)
        private = serialization.load_der_private_key(pkcs8, None)
        assert isinstance(private, Ed25519PrivateKey)
        seed = private.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                     serialization.NoEncryption())
        assert pkcs8.endswith(seed) and signing.public_key_of(signing.b64e(seed)) == backup["public_key"]
        public_keys.append(backup["public_key"])
        secrets = encodings(seed) + encodings(pkcs8)
        for recorder in recorders:
            for text in recorder.texts():
                leaked = [s for s in secrets if s in text]
                assert not leaked, f"a private key went out in: {text[:300]}"
    # the recorder saw what does go out: each public key in a claim, and signed requests
    everything = "\n".join(t for r in recorders for t in r.texts())
    assert all(k in everything for k in public_keys)
    assert everything.count('Authorization: Portolan key="') + everything.count('authorization: Portolan key="') > 4
    assert "/moves" in everything and "/claim" in everything

    # the key stays after a reload
    bea.reload()
    bea.wait_for_selector("body[data-ready=true]", state="attached")
    assert bea.locator("#public-key").get_attribute("data-public-key") == public_keys[1]
    assert bea.locator("#key-id").get_attribute("data-public-key") == public_keys[1]

    # Bea's second device: import the backup, the same public key, and it moves for seat 1
    second = new_player()
    second_recorder = Recorder(second.context)
    second.goto("/keys")
    second.wait_for_selector("body[data-ready=true]", state="attached")
    second.set_input_files("input#import-file", str(tmp_path / "bea.json"))
    second.fill("input#import-passphrase", PASSPHRASE)
    second.click("button#import")
    second.wait_for_function("(key) => document.querySelector('#public-key').dataset.publicKey === key", arg=public_keys[1])
    second.goto(f"/match/{match_id}")
    second.wait_for_selector("#match-status[data-status]")
    ana.goto(f"/match/{match_id}")
    before = clickers[1].moves
    clickers[1] = Clicker(second, rng)
    play_until(dev, match_id, {0: clickers[0], 1: clickers[1]}, moves=1)
    assert clickers[1].moves >= 1 and before >= 2
    pkcs8 = decrypt(backups[1])
    for text in second_recorder.texts():
        assert not [s for s in encodings(pkcs8[-32:]) + encodings(pkcs8) if s in text], text[:300]
    assert not (ana.errors or bea.errors or second.errors), (ana.errors, bea.errors, second.errors)
