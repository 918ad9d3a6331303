"""The web client's core in Debian's Chromium (keys, signing, create, claim), against the app over real HTTP.

What only a browser can show: WebCrypto reproduces the published signing vectors, the stored key
is non-extractable, the backup file decrypts in Python to the same key, a second browser imports
it and signs requests the server accepts, and the claim and create pages turn refusals into the
server's words. The whole match played by clicking is the play test's business, not this one's.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
PASSPHRASE = "correct horse battery"


def b64d(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@pytest.fixture
def person(browser: Any, served: str) -> Iterator[Any]:
    """A fresh browser profile (its own IndexedDB, so its own key); call it for a page."""
    contexts: list[Any] = []

    def page() -> Any:
        context = browser.new_context(base_url=served, accept_downloads=True)
        contexts.append(context)
        return context.new_page()

    yield page
    for context in contexts:
        context.close()


def ready(page: Any, path: str) -> None:
    page.goto(path)
    page.wait_for_selector("body[data-ready=true]", state="attached")


def test_signing_vectors_are_reproduced_by_webcrypto(person: Any) -> None:
    page = person()
    ready(page, "/keys")
    vectors = json.loads((ROOT / "docs" / "signing-vectors.json").read_text())
    results = page.evaluate("async (v) => (await import('/web/static/js/vectors.js')).checkVectors(v)", vectors)
    assert [r["name"] for r in results] == [v["name"] for v in vectors["vectors"]]
    assert [r for r in results if not r["ok"]] == []


def test_a_broken_vector_is_reported(person: Any) -> None:
    page = person()
    ready(page, "/keys")
    vectors = json.loads((ROOT / "docs" / "signing-vectors.json").read_text())
    bad = {"vectors": [dict(vectors["vectors"][1], canonical_hex="00")]}
    results = page.evaluate("async (v) => (await import('/web/static/js/vectors.js')).checkVectors(v)", bad)
    assert results[0]["ok"] is False and "canonical bytes differ" in results[0]["problems"][0]


def test_backup_decrypts_in_python_and_imports_in_a_second_browser(person: Any, served: str,
                                                                   tmp_path: Path) -> None:
    first = person()
    ready(first, "/keys")
    first.click("#make-key")
    first.wait_for_selector("#key-id")
    public_key = first.locator("#public-key").get_attribute("data-public-key")
    assert public_key and len(b64d(public_key)) == 32
    stored = first.evaluate("""() => new Promise((resolve, reject) => {
        const open = indexedDB.open("portolan");
        open.onsuccess = () => {
          const get = open.result.transaction("keys").objectStore("keys").get("current");
          get.onsuccess = () => resolve({priv: get.result.privateKey.extractable, usages: get.result.privateKey.usages,
                                         device: get.result.deviceKey.extractable, pub: get.result.publicKey});
        };
        open.onerror = reject;
      })""")
    assert stored == {"priv": False, "usages": ["sign"], "device": False, "pub": public_key}

    first.fill("#export-passphrase", PASSPHRASE)
    with first.expect_download() as download:
        first.click("#export")
    path = tmp_path / "backup.json"
    download.value.save_as(path)
    backup = json.loads(path.read_text())
    assert backup["format"] == "portolan-key-backup/1" and backup["public_key"] == public_key
    assert backup["kdf"] == {"name": "PBKDF2", "hash": "SHA-256", "iterations": 600000, "salt": backup["kdf"]["salt"]}
    key = PBKDF2HMAC(hashes.SHA256(), 32, b64d(backup["kdf"]["salt"]), 600000).derive(PASSPHRASE.encode())
    pkcs8 = AESGCM(key).decrypt(b64d(backup["cipher"]["iv"]), b64d(backup["wrapped"]), None)
    private = serialization.load_der_private_key(pkcs8, None)
    assert isinstance(private, Ed25519PrivateKey)
    raw = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    assert raw == b64d(public_key)

    second = person()
    ready(second, "/keys")
    second.set_input_files("#import-file", str(path))
    second.fill("#import-passphrase", "not the passphrase")
    second.click("#import")
    second.wait_for_selector("#error:not([hidden])")
    assert "Wrong passphrase" in second.locator("#error").inner_text()
    assert second.locator("#key-id").count() == 0
    second.fill("#import-passphrase", PASSPHRASE)
    second.click("#import")
    second.wait_for_selector("#status:has-text('Imported')")
    assert second.locator("#public-key").get_attribute("data-public-key") == public_key
    assert second.locator("#error").is_hidden()
    # the imported key signs requests the server accepts as this key's
    turns = second.evaluate("async () => (await import('/web/static/js/api.js')).api('GET', '/v1/me/turns', {signed: true})")
    assert turns == {"public_key": public_key, "turns": []}


def test_create_takes_my_seat_and_remembers_the_invitation(person: Any, served: str) -> None:
    page = person()
    ready(page, "/new?game=el-capitan")
    rows = page.locator("#seats .seat-row")
    assert rows.count() == 2  # the game's fewest players
    page.click("#add-seat")
    rows.nth(1).locator("input.seat-email").fill("bea@example.org")
    rows.nth(2).locator("select.seat-kind").select_option("bot:random")
    # a seat option offers the seats as every page counts them, from 0 as the API does
    assert page.locator("#option-start_player option").all_text_contents()[1:] == ["Seat 0", "Seat 1", "Seat 2"]
    page.select_option("#option-start_player", label="Seat 2")
    page.fill("#my-name", "Ana <img src=x onerror=alert(1)>")
    page.fill("#my-email", "ana@example.org")
    page.click("#create")
    page.wait_for_url("**/match/*")
    match_id = page.url.rsplit("/", 1)[-1]
    view = requests.get(f"{served}/v1/matches/{match_id}", timeout=10).json()
    me = page.evaluate("async () => (await import('/web/static/js/keys.js')).currentKey()")
    assert view["seats"][0]["public_key"] == me["publicKey"] and view["seats"][0]["name"].startswith("Ana <img")
    assert [s["claimed"] for s in view["seats"]] == [True, False, True]
    assert view["options"]["start_player"] == 2
    invites = page.evaluate("async (m) => (await import('/web/static/js/api.js')).invitesFor(m)", match_id)
    assert [i["seat"] for i in invites] == [1]
    assert invites[0]["url"].startswith(f"{served}/claim/{match_id}/1#token=")

    # the invited player takes seat 1 from that link; the name is shown as text, never as markup
    other = person()
    other.goto(invites[0]["url"])
    other.wait_for_selector("body[data-ready=true]", state="attached")
    assert "Ana <img src=x onerror=alert(1)>" in other.locator("#match-players").inner_text()
    assert other.locator("#match-players img").count() == 0
    other.fill("#name", "Bea")
    other.click("#claim")
    other.wait_for_url(f"**/match/{match_id}")
    assert requests.get(f"{served}/v1/matches/{match_id}", timeout=10).json()["status"] == "active"

    ready(page, "/")
    assert page.locator(f"#my-matches a.match-link[data-match='{match_id}']").count() == 1


def test_claim_refusals_show_the_servers_words_and_do_nothing(person: Any, served: str) -> None:
    page = person()
    ready(page, "/new?game=el-capitan")
    page.locator("#seats .seat-row").nth(1).locator("select.seat-kind").select_option("invite")
    page.locator("#seats .seat-row").nth(1).locator("input.seat-email").fill("bea@example.org")
    page.fill("#my-name", "Ana")
    page.fill("#my-email", "ana@example.org")
    page.click("#create")
    page.wait_for_url("**/match/*")
    match_id = page.url.rsplit("/", 1)[-1]

    other = person()
    ready(other, f"/claim/{match_id}/1#token=not-the-token")
    other.fill("#name", "Eve")
    other.click("#claim")
    other.wait_for_selector("#error:not([hidden])")
    problem = requests.post(f"{served}/v1/matches/{match_id}/seats/1/claim", timeout=10,
                            json={"token": "not-the-token", "public_key": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
                                  "name": "Eve"}).json()
    assert other.locator("#error").inner_text() == problem["detail"]
    assert other.url.endswith(f"/claim/{match_id}/1#token=not-the-token")
    assert requests.get(f"{served}/v1/matches/{match_id}", timeout=10).json()["seats"][1]["claimed"] is False

    ready(other, "/claim/no-such-match/1#token=x")
    other.wait_for_selector("#error:not([hidden])")
    assert "no-such-match" in other.locator("#error").inner_text()

    ready(other, f"/claim/{match_id}/1")
    assert "no invite token" in other.locator("#error").inner_text()


def test_a_device_clock_far_off_still_signs_requests_the_server_accepts(person: Any) -> None:
    page = person()
    ready(page, "/keys")
    page.click("#make-key")
    page.wait_for_selector("#key-id")
    answer = page.evaluate("""async () => {
        const real = Date.now.bind(Date);
        Date.now = () => real() - 3600 * 1000;   // an hour slow: the server refuses the first ts
        const api = await import('/web/static/js/api.js');
        const first = await api.api('GET', '/v1/me/turns', {signed: true});
        const second = await api.api('GET', '/v1/me/turns', {signed: true});   // the offset is kept
        return [first.turns, second.turns];
      }""")
    assert answer == [[], []]


def test_two_tabs_making_a_key_at_once_end_up_with_the_same_key(person: Any) -> None:
    page = person()
    ready(page, "/keys")
    # two separate instances of the module stand for two tabs (each has its own in-page guard)
    keys = page.evaluate("""async () => {
        const [a, b] = await Promise.all([import('/web/static/js/keys.js?tab=a'), import('/web/static/js/keys.js?tab=b')]);
        const made = await Promise.all([a.ensureKey(), b.ensureKey()]);
        return [made[0].publicKey, made[1].publicKey, (await a.currentKey()).publicKey];
      }""")
    assert keys[0] == keys[1] == keys[2]


def test_a_match_can_be_created_with_the_keyboard_alone(person: Any, served: str) -> None:
    page = person()
    ready(page, "/new?game=el-capitan")
    reached = []
    for _ in range(40):  # Tab through the page until the create button, typing where asked
        page.keyboard.press("Tab")
        focused = page.evaluate("() => document.activeElement.id")
        reached.append(focused)
        if focused == "seat-email-1":
            page.keyboard.type("bea@example.org")
        elif focused == "my-name":
            page.keyboard.type("Ana")
        elif focused == "my-email":
            page.keyboard.type("ana@example.org")
        elif focused == "create":
            break
    assert {"game", "seat-kind-0", "seat-kind-1", "seat-email-1", "add-seat", "my-name", "my-email", "create"} <= set(reached)
    page.keyboard.press("Enter")
    page.wait_for_url("**/match/*")
    match_id = page.url.rsplit("/", 1)[-1]
    seats = requests.get(f"{served}/v1/matches/{match_id}", timeout=10).json()["seats"]
    assert [s["claimed"] for s in seats] == [True, False]


def test_an_import_keeps_the_old_key_and_the_page_switches_back_to_it(person: Any, tmp_path: Path) -> None:
    source = person()
    ready(source, "/keys")
    source.click("#make-key")
    source.wait_for_selector("#key-id")
    imported = source.locator("#public-key").get_attribute("data-public-key")
    source.fill("#export-passphrase", PASSPHRASE)
    with source.expect_download() as download:
        source.click("#export")
    download.value.save_as(tmp_path / "backup.json")

    page = person()
    ready(page, "/keys")
    page.click("#make-key")
    page.wait_for_selector("#key-id")
    own = page.locator("#public-key").get_attribute("data-public-key")
    assert page.locator("#kept").is_hidden()
    page.set_input_files("#import-file", str(tmp_path / "backup.json"))
    page.fill("#import-passphrase", PASSPHRASE)
    page.click("#import")
    page.wait_for_selector("#status:has-text('Imported')")
    assert page.locator("#public-key").get_attribute("data-public-key") == imported
    assert page.locator("#kept-keys button.use-key").get_attribute("data-public-key") == own
    page.click("#kept-keys button.use-key")
    page.wait_for_selector("#status:has-text('again')")
    assert page.locator("#public-key").get_attribute("data-public-key") == own
    assert page.locator("#kept-keys button.use-key").get_attribute("data-public-key") == imported
    assert page.locator("#key-id").get_attribute("data-public-key") == own
