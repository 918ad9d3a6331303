"""Issue 28, item 1, with real processes: gunicorn as it ships, a real `portolan worker` and an
SMTP sink. 80 creations from one client address, each signed by a fresh key and inviting one
stranger, must put exactly PORTOLAN_INVITES_PER_ADDRESS_HOUR (40) invitation mails into the sink;
the other 40 are 429 ``invite-throttled`` with Retry-After, and no creator text is in a Subject.
(Before: 80 creations from 2 addresses mailed 320 strangers.)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import requests

from service.config import Settings
from service.proof import signing
from tests.conftest import SmtpSink

pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parents[2]
ADVERT = "Claim your prize at evil.example"


def test_80_creations_from_one_address_mail_exactly_40_invitations(settings: Settings, gevent_served: str,
                                                                  smtp_sink: SmtpSink, tmp_path: Path) -> None:
    env = dict(os.environ, REDIS_URL=settings.redis_url, PORTOLAN_NS=settings.namespace, SMTP_URL=smtp_sink.url,
               PUBLIC_URL=settings.public_url, MAIL_FROM=settings.mail_from, PORTOLAN_SWEEP_S="0",
               PORTOLAN_PLUGINS="tests.helpers.fixture_game", PYTHONPATH=str(ROOT))
    with (tmp_path / "worker.log").open("wb") as log:
        worker = subprocess.Popen([sys.executable, "-m", "service.tools.cli", "worker"], env=env, cwd=ROOT,
                                  stdout=log, stderr=subprocess.STDOUT)
    try:
        answers: Counter[int] = Counter()
        retry_after: set[str] = set()
        with requests.Session() as http:
            for i in range(80):
                body = json.dumps({"game": "harbour-race", "creator_name": ADVERT,
                                   "seats": [{"invite": f"stranger-{i}@example.org"}, {"bot": "random"}]}).encode()
                key = signing.generate_private_key()  # keys cost nothing: a fresh one each time
                r = http.post(f"{gevent_served}/v1/matches", data=body, timeout=30, headers={
                    "Content-Type": "application/json",
                    "Authorization": signing.authorization(key, "POST", "/v1/matches", "", body)})
                answers[r.status_code] += 1
                if r.status_code == 429:
                    assert r.json()["code"] == "invite-throttled", r.text
                    retry_after.add(r.headers["Retry-After"])
        assert answers == {201: 40, 429: 40}
        assert all(3000 < int(s) <= 3600 for s in retry_after)
        deadline = time.monotonic() + 60  # a generous bound on a loaded machine: the mails go at once
        while len(smtp_sink.messages) < 40 and time.monotonic() < deadline:
            assert worker.poll() is None, (tmp_path / "worker.log").read_text()[-3000:]
            time.sleep(0.2)
        time.sleep(3)  # time for a 41st to arrive, were one due
        invitations = [m for m in smtp_sink.messages if str(m["X-Portolan-Notice"]).startswith("invite:")]
        assert len(invitations) == len(smtp_sink.messages) == 40
        assert len({str(m["To"]) for m in invitations}) == 40
        assert all(str(m["Subject"]).startswith("[Portolan] An invitation to play Harbour race")
                   and "evil" not in str(m["Subject"]) for m in invitations)
    finally:
        worker.terminate()
        try:
            worker.wait(15)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
