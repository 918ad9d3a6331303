"""The dependency locks in requirements/: make them, or check them against pyproject.toml.

    .venv/bin/python requirements/lock.py                     refresh both locks (uv, from PyPI)
    .venv/bin/python requirements/lock.py -P rq -P redis      move these (and what they need) to
                                                              the newest versions pyproject allows
    .venv/bin/python requirements/lock.py --upgrade           move everything (rarely: one commit
                                                              per package is easier to read)
    .venv/bin/python requirements/lock.py --check             CI: offline, exit 1 when a lock no
                                                              longer satisfies pyproject.toml

A refresh keeps every pin that pyproject.toml still allows (uv reads the lock it rewrites as its
preferences), so only what a changed range forces moves. dev.txt is resolved first and runtime.txt
inside it: the tests run exactly the versions production runs. Both are universal (any OS,
Python 3.11 and later) with the hashes of every file, for ``pip install --require-hashes``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
LOCKS = {"dev.txt": ("dev",), "runtime.txt": ()}
"""Each lock and the extras of pyproject.toml it holds besides the dependencies; dev first (the
runtime lock is resolved inside it)."""
PYTHON = "3.11"
"""The oldest Python the locks resolve for (pyproject's requires-python)."""
COMMAND = "python requirements/lock.py"
"""How the lock files' header says they were made."""
FROM_PYPROJECT = "portolan (pyproject.toml)"
"""uv's annotation of a package that pyproject.toml asks for itself."""


@dataclass
class Pin:
    """One pinned entry of a lock: ``name==version [; marker]`` with its hashes."""

    line: str
    requirement: Requirement
    hashes: list[str] = field(default_factory=list)
    via: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The canonical project name."""
        return canonicalize_name(self.requirement.name)

    @property
    def version(self) -> str:
        """The pinned version (empty when the entry is not an ``==`` pin)."""
        specs = list(self.requirement.specifier)
        return specs[0].version if len(specs) == 1 and specs[0].operator in ("==", "===") else ""

    @property
    def marker(self) -> str:
        """Where the pin applies (empty: everywhere)."""
        return str(self.requirement.marker or "")


def read_lock(path: Path) -> list[Pin]:
    """The pins of a lock file as uv writes it: an entry per line (continued with ``\\``), its
    ``--hash`` options, then ``# via`` comments naming who asked for it."""
    pins: list[Pin] = []
    in_via = False
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        text = raw.strip().removesuffix("\\").strip()
        if not text:
            continue
        if not raw[0].isspace() and not text.startswith(("#", "-")):
            try:
                pins.append(Pin(text, Requirement(text)))
            except InvalidRequirement as exc:
                raise SystemExit(f"{path.name}:{number}: not a requirement: {text} ({exc})") from None
            in_via = False
        elif text.startswith("--hash=") and pins:
            pins[-1].hashes.append(text.removeprefix("--hash="))
        elif text.startswith("# via") and pins:
            who = text.removeprefix("# via").strip()
            in_via = not who
            if who:
                pins[-1].via.append(who)
        elif in_via and text.startswith("#") and pins:
            pins[-1].via.append(text.lstrip("#").strip())
    return pins


def wanted(pyproject: Path, extras: tuple[str, ...]) -> list[tuple[str, Requirement]]:
    """What pyproject.toml asks for in a lock holding ``extras``: (where it is said, requirement)."""
    project = tomllib.loads(pyproject.read_text())["project"]
    found = [("dependencies", Requirement(text)) for text in project.get("dependencies", [])]
    optional = project.get("optional-dependencies", {})
    for extra in extras:
        if extra not in optional:
            raise SystemExit(f"pyproject.toml has no optional-dependencies '{extra}' (requirements/lock.py LOCKS)")
        found += [(f"optional-dependencies.{extra}", Requirement(text)) for text in optional[extra]]
    return found


def problems(pyproject: Path, locks: dict[Path, tuple[str, ...]]) -> list[str]:
    """Every way the locks fail pyproject.toml, each a sentence; none when they satisfy it."""
    said: list[str] = []
    pinned: dict[Path, dict[str, list[Pin]]] = {}
    for lock, extras in locks.items():
        if not lock.exists():
            said.append(f"{lock.name}: missing")
            continue
        by_name: dict[str, list[Pin]] = {}
        for pin in read_lock(lock):
            by_name.setdefault(pin.name, []).append(pin)
            if not pin.version:
                said.append(f"{lock.name}: '{pin.line}' is not pinned to one version (==)")
            if not pin.hashes:
                said.append(f"{lock.name}: '{pin.line}' has no --hash, so pip install --require-hashes refuses it")
        pinned[lock] = by_name
        asked: set[str] = set()
        for where, req in wanted(pyproject, extras):
            name = canonicalize_name(req.name)
            asked.add(name)
            pins = by_name.get(name, [])
            if not pins and req.marker is None:
                said.append(f"{lock.name}: pyproject.toml [{where}] asks for '{req}', which the lock does not have")
            for pin in pins:
                if pin.version and not req.specifier.contains(pin.version, prereleases=True):
                    said.append(f"{lock.name}: pyproject.toml [{where}] asks for '{req}', but the lock pins "
                                f"{pin.requirement.name}=={pin.version}{f' ; {pin.marker}' if pin.marker else ''}")
        for locked, entries in sorted(by_name.items()):
            if locked not in asked and any(v.startswith(FROM_PYPROJECT) for pin in entries for v in pin.via):
                said.append(f"{lock.name}: pins {locked} for pyproject.toml, which no longer asks for it")
    if len(pinned) == len(locks) and len(locks) > 1:
        # the tests must run what production runs: a package in two locks has the same pins in both
        first, *others = pinned
        for other in others:
            for shared in sorted(pinned[first].keys() & pinned[other].keys()):
                # versions only: a marker may differ (dev needs greenlet everywhere, the runtime only
                # where gevent does), a version where both apply must not
                a = sorted({pin.version for pin in pinned[first][shared]})
                b = sorted({pin.version for pin in pinned[other][shared]})
                if a != b:
                    said.append(f"{first.name} and {other.name} pin {shared} differently: "
                                f"{', '.join(a)} and {', '.join(b)}")
    if said:
        said.append(f"refresh the locks: {COMMAND} (README, Dependencies)")
    return said


def check(root: Path = ROOT) -> int:
    """Exit status 0 when the locks satisfy pyproject.toml, else 1 with every problem printed."""
    found = problems(root / "pyproject.toml", {root / "requirements" / name: extras for name, extras in LOCKS.items()})
    for line in found:
        print(f"lock: {line}", file=sys.stderr)
    if not found:
        print(f"lock: {', '.join(LOCKS)} satisfy pyproject.toml")
    return 1 if found else 0


def refresh(upgrade: bool, packages: list[str]) -> int:
    """Rewrite both locks with uv (run from the repository, so the files name no machine path)."""
    for name, extras in LOCKS.items():
        command = [sys.executable, "-m", "uv", "pip", "compile", "pyproject.toml", "--quiet", "--universal",
                   "--python-version", PYTHON, "--generate-hashes", "--custom-compile-command", COMMAND,
                   "-o", f"requirements/{name}"]
        command += [f"--extra={extra}" for extra in extras]
        if name != "dev.txt":
            command += ["--constraints", "requirements/dev.txt"]  # the runtime lock inside the dev lock
        elif upgrade:
            command += ["--upgrade"]
        else:
            command += [f"--upgrade-package={package}" for package in packages]
        print("$", " ".join(command[1:]), flush=True)
        if subprocess.run(command, cwd=ROOT, check=False).returncode != 0:
            return 1
    return check()


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module's docstring)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="check the locks against pyproject.toml, offline")
    parser.add_argument("--upgrade", action="store_true", help="move every package to its newest allowed version")
    parser.add_argument("-P", "--upgrade-package", action="append", default=[], metavar="NAME",
                        help="move this package (and what it needs) to its newest allowed version")
    args = parser.parse_args(argv)
    if args.check:
        return check()
    return refresh(args.upgrade, args.upgrade_package)


if __name__ == "__main__":
    sys.exit(main())
