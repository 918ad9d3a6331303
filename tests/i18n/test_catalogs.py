"""The catalogs are complete: every message the code says is translated in every language we speak.

The same check as ``python scripts/catalogs.py --check`` (CI runs both): extraction from the code,
then each complete language's catalogs, with each translation's {placeholders} among its message's.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from service import i18n

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("portolan_catalogs", ROOT / "scripts" / "catalogs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_every_message_is_translated_in_every_language() -> None:
    script = _script()
    templates = script.extracted()
    assert sum(len(t) for t in templates.values()) > 0
    assert script.problems(templates) == []


def test_each_source_file_has_one_domain() -> None:
    script = _script()
    assert script.domain_of("service/games/ophir/labels.py") == "ophir"
    assert script.domain_of("service/web/templates/base.html") == "web"
    assert script.domain_of("service/delivery/templates/invite.txt") == "mail"
    assert script.domain_of("service/play/errors.py") == "common"
    assert script.domain_of("service/api/errors.py") == "common"
    assert script.domain_of("service/play/mail/desk.py") == "desk"
    assert set(domain for _, domain in script.SOURCES) <= set(i18n.DOMAINS)


def test_the_catalogs_read_in_every_language() -> None:
    for code in i18n.codes():
        i18n.translations(code)  # a broken .po file fails here, not in the middle of a notice
