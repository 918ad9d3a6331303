"""Fail on any import cycle in service/ and workers/, and on any upward import, TYPE_CHECKING
imports included (CI: .ci/run, right after ``lint-imports``).

A cycle of types is a cycle of knowledge, but import-linter's contracts in pyproject.toml leave
TYPE_CHECKING imports out (``exclude_type_checking_imports``: the use cases may name the store's
types). So this script checks the whole graph three ways:

* **modules**: every strongly connected set of modules that import each other, directly or in a
  ring (``a -> b -> c -> a``);
* **packages**: for every package, its children (sub-packages taken whole, with everything under
  them) that import each other, so two folders that reach into each other are a cycle even when
  no single module ring shows it, as ``service.runtime`` <-> ``service.delivery`` was. Rings of
  plain modules are the first view's and are not printed twice;
* **layers**: the ``layers`` contracts of pyproject.toml once more, on this graph: no import (or
  chain of imports) from a layer up to a layer above it, nor between independent (``|``) siblings.

Each finding is printed with the imports that make it (file and line), then a count; the exit code
is 1 when there is any finding.

Usage: python scripts/import_cycles.py [PACKAGE...]   (default: service workers; the layers are
read from ./pyproject.toml, so run it from the repository's root)
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import grimp

Graph = Mapping[str, set[str]]


def strongly_connected(graph: Graph) -> list[list[str]]:
    """The sets of two or more nodes that reach each other (Tarjan's algorithm, iterative: the
    graph is deep enough to overflow Python's recursion), each sorted, the list sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def module_graph(graph: grimp.ImportGraph) -> dict[str, set[str]]:
    """Module -> the modules it imports. A module importing the package it lies in (its
    ``__init__``) is left out: Python runs that ``__init__`` first anyway, so it is no ring."""
    edges: dict[str, set[str]] = {}
    for module in graph.modules:
        edges[module] = {imported for imported in graph.find_modules_directly_imported_by(module)
                         if imported in graph.modules and not module.startswith(imported + ".")}
    return edges


def child_of(parent: str, module: str) -> str:
    """The child of ``parent`` that ``module`` is or lies in."""
    return parent + "." + module[len(parent) + 1:].split(".")[0]


def package_cycles(graph: grimp.ImportGraph, modules: Graph) -> list[tuple[str, list[str]]]:
    """(package, children) for every ring among a package's children, sub-packages squashed,
    where at least one child is a package (rings of plain modules are the module view's)."""
    found: list[tuple[str, list[str]]] = []
    packages = sorted(m for m in graph.modules if graph.find_children(m))
    for parent in packages:
        children = graph.find_children(parent)
        squashed: dict[str, set[str]] = {child: set() for child in children}
        for module, imported in modules.items():
            if not module.startswith(parent + "."):
                continue
            source = child_of(parent, module)
            for target in imported:
                if target.startswith(parent + ".") and child_of(parent, target) != source:
                    squashed[source].add(child_of(parent, target))
        for ring in strongly_connected(squashed):
            if any(graph.find_children(child) for child in ring):
                found.append((parent, ring))
    return found


def imports_within(graph: grimp.ImportGraph, modules: Graph, members: list[str], parent: str | None) -> list[str]:
    """The import lines that make the ring, as ``importer -> imported (line N)``."""
    def member_of(module: str) -> str | None:
        if parent is None:
            return module if module in members else None
        if not module.startswith(parent + "."):
            return None
        child = child_of(parent, module)
        return child if child in members else None

    lines = []
    for module in sorted(modules):
        source = member_of(module)
        if source is None:
            continue
        for target in sorted(modules[module]):
            aim = member_of(target)
            if aim is None or aim == source:
                continue
            for detail in graph.get_import_details(importer=module, imported=target):
                lines.append(f"    {module} -> {target} (line {detail['line_number']}: {detail['line_contents']})")
    return lines


def layer_contracts(pyproject: Path) -> list[dict[str, Any]]:
    """The ``layers`` contracts of import-linter's configuration (none when there is no such file)."""
    if not pyproject.is_file():
        return []
    config = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {}).get("importlinter", {})
    return [c for c in config.get("contracts", []) if c.get("type") == "layers"]


def upward_imports(graph: grimp.ImportGraph, contract: Mapping[str, Any]) -> list[str]:
    """What breaks one ``layers`` contract on ``graph``: a chain from a layer to one above it, or between
    independent siblings, as ``lower -> higher: importer -> imported (line N)`` for the chain's first step."""
    found: list[str] = []
    for container in contract.get("containers") or [""]:
        layers: list[tuple[list[str], bool]] = []
        for raw in contract["layers"]:
            independent = ":" not in raw
            names = [n.strip().strip("()") for n in raw.replace(":", "|").split("|")]
            modules = [f"{container}.{n}" if container else n for n in names]
            layers.append(([m for m in modules if m in graph.modules], independent))
        for high_index, (highs, independent) in enumerate(layers):
            pairs = [(low, high) for lower, _ in layers[high_index + 1:] for low in lower for high in highs]
            if independent:
                pairs += [(a, b) for a in highs for b in highs if a != b]
            for low, high in pairs:
                chain = graph.find_shortest_chain(importer=low, imported=high, as_packages=True)
                if chain is None:
                    continue
                first, second = chain[0], chain[1]
                line = graph.get_import_details(importer=first, imported=second)
                where = f" (line {line[0]['line_number']}: {line[0]['line_contents']})" if line else ""
                found.append(f"{low} -> {high}: {' -> '.join(chain)}{where}")
    return found


def main(argv: list[str]) -> int:
    """Print every cycle among the packages' modules and folders; 1 when the check fails."""
    roots = argv or ["service", "workers"]
    graph = grimp.build_graph(*roots, include_external_packages=False, exclude_type_checking_imports=False,
                              cache_dir=None)
    modules = module_graph(graph)
    failing = 0
    for ring in strongly_connected(modules):
        failing += 1
        print(f"cycle of {len(ring)} modules: " + ", ".join(ring))
        for line in imports_within(graph, modules, ring, None):
            print(line)
    for parent, ring in package_cycles(graph, modules):
        failing += 1
        print(f"cycle of {len(ring)} in {parent}: " + ", ".join(ring))
        for line in imports_within(graph, modules, ring, parent):
            print(line)
    for contract in layer_contracts(Path("pyproject.toml")):
        for broken in upward_imports(graph, contract):
            failing += 1
            print(f"upward import (contract {contract.get('name', '?')!r}, TYPE_CHECKING included): {broken}")
    print(f"import cycles and upward imports failing the check: {failing}")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
