"""The suite's own shape (issue 26): no test module imports another test module, and every test
module the run collects is one the scan reads.

A helper taken from another ``test_*.py`` ties the two files together: pytest imports the other
file's tests into the importer's namespace, a worker of pytest-xdist imports both to run one, and
moving or deleting one file breaks the other. Shared helpers live in ``tests/helpers/``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def is_test_module(name: str) -> bool:
    """``tests.api.test_contract`` is; ``tests.helpers.matches`` and ``tests.conftest`` are not."""
    return name.split(".")[0] == "tests" and name.rsplit(".", 1)[-1].startswith("test_")


def imported_test_modules(source: str) -> list[str]:
    """The test modules that ``source`` imports (``import`` and ``from ... import``, at any depth:
    an import inside a function ties the files together just the same), or names by dotted path in
    a string (a child process imports it then)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [node.module] if is_test_module(node.module) else []
            # ``from tests.api import test_contract`` names the module in the imported names
            found += [f"{node.module}.{a.name}" for a in node.names if is_test_module(f"{node.module}.{a.name}")]
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            found += [f"{'.' * node.level}{node.module or ''}.{a.name}" for a in node.names
                      if (node.module or "").rsplit(".", 1)[-1].startswith("test_") or a.name.startswith("test_")]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if is_test_module(a.name)]
    # a module path in a string: code a child process runs (python -c), a --policy module:function
    found += [m.group(0) for node in ast.walk(ast.parse(source))
              if isinstance(node, ast.Constant) and isinstance(node.value, str)
              for m in MODULE_PATH.finditer(node.value)]
    return found


MODULE_PATH = re.compile(r"\btests(?:\.\w+)*\.test_\w+")
"""A test module named by its dotted path (``tests.bots.test_policies``), not a file path."""




def test_the_scan_sees_each_way_of_importing_a_test_module() -> None:
    assert imported_test_modules("from tests.api.test_contract import Api") == ["tests.api.test_contract"]
    assert imported_test_modules("import tests.test_verify") == ["tests.test_verify"]
    assert imported_test_modules("from tests.api import test_contract") == ["tests.api.test_contract"]
    assert imported_test_modules("def f():\n    from tests.test_verify import play_to_end\n") == ["tests.test_verify"]
    assert imported_test_modules("from .test_races import released_together") == [".test_races.released_together"]
    assert imported_test_modules("from tests.helpers.matches import create\nfrom tests.conftest import Player") == []
    assert imported_test_modules("CHOICES = 'from tests.bots.test_policies import positions'") == ["tests.bots.test_policies"]
    assert imported_test_modules("ARGS = ['--policy', 'tests.test_bot_run:decide']") == ["tests.test_bot_run"]
    assert imported_test_modules("NODE = 'tests/e2e/test_play_by_mail.py::test_x'") == []  # a file path names no module


def test_no_test_module_imports_another_test_module() -> None:
    modules = sorted(p for p in TESTS.rglob("*.py") if p != Path(__file__).resolve())  # not the examples above
    assert len(modules) > 100  # the scan reads the suite, not an empty folder
    offenders = {}
    for p in modules:
        itself = ".".join(p.relative_to(TESTS.parent).with_suffix("").parts)  # "regenerate with python -m <itself>"
        found = [m for m in imported_test_modules(p.read_text(encoding="utf-8")) if m != itself]
        if found:
            offenders[str(p.relative_to(TESTS.parent))] = found
    assert offenders == {}, "move what they share to tests/helpers/"
