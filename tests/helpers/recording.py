"""A desk that keeps what it is given (the transport's tests; the real desk is service.play.mail.desk)."""

from __future__ import annotations

import threading

from service.play.mail.inbound import InboundMail


class RecordingDesk:
    """Records every mail; raises for the first ``failures`` deliveries, as a desk whose Redis is
    down would, so the transport's temporary-failure answer can be tested."""

    def __init__(self, failures: int = 0) -> None:
        self.mails: list[InboundMail] = []
        self.failures = failures
        self._lock = threading.Lock()

    def receive(self, mail: InboundMail) -> str:
        with self._lock:
            if self.failures:
                self.failures -= 1
                raise ConnectionError("the store is unreachable")
            self.mails.append(mail)
        return f"recorded {mail.message_id}"
