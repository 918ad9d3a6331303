"""The dependency locks (requirements/, README "Dependencies") and the offline check CI runs on
them: ``python requirements/lock.py --check`` fails, saying why, when a lock no longer satisfies
pyproject.toml."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
HASH = "--hash=sha256:" + "0" * 64


def load_lock_module() -> ModuleType:
    """requirements/lock.py, a script rather than a package module."""
    spec = importlib.util.spec_from_file_location("requirements_lock", ROOT / "requirements" / "lock.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


lock = load_lock_module()


def entry(pin: str, via: str = "portolan (pyproject.toml)", hashed: bool = True) -> str:
    """One lock entry as uv writes it."""
    if not hashed:
        return f"{pin}\n    # via {via}\n"
    return f"{pin} \\\n    {HASH}\n    # via {via}\n"


def project(tmp_path: Path, dependencies: list[str], dev: list[str], runtime_lock: str, dev_lock: str) -> Path:
    """A repository of a pyproject.toml and its two locks; returns its root."""
    (tmp_path / "requirements").mkdir()
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent(f"""\
        [project]
        name = "portolan"
        dependencies = {dependencies!r}
        [project.optional-dependencies]
        dev = {dev!r}
        """))
    (tmp_path / "requirements" / "runtime.txt").write_text(runtime_lock)
    (tmp_path / "requirements" / "dev.txt").write_text(dev_lock)
    return tmp_path


def problems_of(root: Path) -> list[str]:
    return list(lock.problems(root / "pyproject.toml", {root / "requirements" / "dev.txt": ("dev",),
                                                        root / "requirements" / "runtime.txt": ()}))


GOOD_RUNTIME = entry("redis==8.2.0", "portolan (pyproject.toml)") + entry("rq==3.0.0")
GOOD_DEV = GOOD_RUNTIME + entry("pytest==9.2.0")


def test_the_committed_locks_satisfy_pyproject() -> None:
    assert problems_of(ROOT) == []
    pins = {pin.name: pin for pin in lock.read_lock(ROOT / "requirements" / "runtime.txt")}
    assert pins["rq"].version and pins["redis"].version and all(pin.hashes for pin in pins.values())


def test_locks_that_satisfy_pyproject_pass(tmp_path: Path) -> None:
    root = project(tmp_path, ["redis>=5.0", "rq>=2.0"], ["pytest>=8"], GOOD_RUNTIME, GOOD_DEV)
    assert problems_of(root) == []


def test_a_range_the_lock_violates_fails_and_says_which(tmp_path: Path) -> None:
    root = project(tmp_path, ["redis>=5.0", "rq>=4"], ["pytest>=8"], GOOD_RUNTIME, GOOD_DEV)
    said = problems_of(root)
    assert "runtime.txt: pyproject.toml [dependencies] asks for 'rq>=4', but the lock pins rq==3.0.0" in said
    assert "dev.txt: pyproject.toml [dependencies] asks for 'rq>=4', but the lock pins rq==3.0.0" in said
    assert said[-1] == "refresh the locks: python requirements/lock.py (README, Dependencies)"


def test_a_dev_range_is_checked_in_the_dev_lock(tmp_path: Path) -> None:
    root = project(tmp_path, ["redis>=5.0", "rq>=2.0"], ["pytest>=10"], GOOD_RUNTIME, GOOD_DEV)
    assert problems_of(root)[:-1] == [
        "dev.txt: pyproject.toml [optional-dependencies.dev] asks for 'pytest>=10', but the lock pins pytest==9.2.0"]


def test_a_requirement_missing_from_the_lock_fails(tmp_path: Path) -> None:
    root = project(tmp_path, ["redis>=5.0", "rq>=2.0", "msgpack>=1.0"], ["pytest>=8", "pytest-xdist>=3.5"],
                   GOOD_RUNTIME, GOOD_DEV)
    assert problems_of(root)[:-1] == [
        "dev.txt: pyproject.toml [dependencies] asks for 'msgpack>=1.0', which the lock does not have",
        "dev.txt: pyproject.toml [optional-dependencies.dev] asks for 'pytest-xdist>=3.5', which the lock does not have",
        "runtime.txt: pyproject.toml [dependencies] asks for 'msgpack>=1.0', which the lock does not have"]


def test_a_pin_pyproject_dropped_fails(tmp_path: Path) -> None:
    root = project(tmp_path, ["redis>=5.0"], ["pytest>=8"], GOOD_RUNTIME, GOOD_DEV)
    said = problems_of(root)
    assert "runtime.txt: pins rq for pyproject.toml, which no longer asks for it" in said


def test_an_entry_without_hashes_or_an_exact_pin_fails(tmp_path: Path) -> None:
    runtime = entry("redis==8.2.0", hashed=False) + entry("rq>=3.0")
    root = project(tmp_path, ["redis>=5.0", "rq>=2.0"], [], runtime, runtime)
    said = problems_of(root)
    assert "runtime.txt: 'redis==8.2.0' has no --hash, so pip install --require-hashes refuses it" in said
    assert "runtime.txt: 'rq>=3.0' is not pinned to one version (==)" in said


def test_the_runtime_and_dev_locks_pin_the_same_versions(tmp_path: Path) -> None:
    dev = entry("redis==8.1.0") + entry("rq==3.0.0") + entry("pytest==9.2.0")
    root = project(tmp_path, ["redis>=5.0", "rq>=2.0"], ["pytest>=8"], GOOD_RUNTIME, dev)
    assert problems_of(root)[:-1] == ["dev.txt and runtime.txt pin redis differently: 8.1.0 and 8.2.0"]


def test_the_command_exits_1_and_prints_why(tmp_path: Path) -> None:
    root = project(tmp_path, ["redis>=5.0", "rq>=4"], ["pytest>=8"], GOOD_RUNTIME, GOOD_DEV)
    shutil.copy(ROOT / "requirements" / "lock.py", root / "requirements" / "lock.py")
    done = subprocess.run([sys.executable, "requirements/lock.py", "--check"], cwd=root, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 1
    assert "lock: runtime.txt: pyproject.toml [dependencies] asks for 'rq>=4', but the lock pins rq==3.0.0" in done.stderr
    ok = subprocess.run([sys.executable, str(ROOT / "requirements" / "lock.py"), "--check"], capture_output=True,
                        text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    assert "satisfy pyproject.toml" in ok.stdout


@pytest.mark.parametrize("name", ["runtime.txt", "dev.txt"])
def test_the_locks_name_no_machine_path(name: str) -> None:
    text = (ROOT / "requirements" / name).read_text()
    assert "/work/" not in text and "/home/" not in text and "file://" not in text
    assert text.splitlines()[1] == "#    python requirements/lock.py"
