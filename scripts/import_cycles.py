"""Fail on any import cycle in service/ and workers/ (CI: .ci/run, after ``lint-imports``).

Two views of the same import graph, TYPE_CHECKING imports included (a cycle of types is a cycle
of knowledge; the import-linter contracts in pyproject.toml leave them out):

* **modules**: every strongly connected set of modules that import each other, directly or in a
  ring (``a -> b -> c -> a``);
* **packages**: for every package, its children (sub-packages taken whole, with everything under
  them) that import each other, so two folders that reach into each other are a cycle even when
  no single module ring shows it, as ``service.runtime`` <-> ``service.delivery`` was. Rings of
  plain modules are the first view's and are not printed twice.

Each cycle is printed with the imports inside it (file and line), then a count; the exit code is
1 when there is any cycle not in :data:`ALLOWED`, or an entry of ALLOWED that no longer matches a
cycle exactly. The direction between the layers is import-linter's (the ``layers`` contracts).

Usage: python scripts/import_cycles.py [PACKAGE...]   (default: service workers)
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping

import grimp

# Temporary: the two cycles in service/play that their own rework removes (issue 26 item 4). Each
# entry must match one found cycle exactly; a stale or changed entry fails the check too, so this
# list is emptied when that work is merged. Nothing else may be added here.
ALLOWED: frozenset[frozenset[str]] = frozenset({
    frozenset({"service.play.boards", "service.play.claims", "service.play.key_attach", "service.play.matches",
               "service.play.moves", "service.play.preview", "service.play.seat_keys", "service.play.timeouts"}),
    frozenset({"service.play.by_mail", "service.play.by_mail_clock"}),
})

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


def main(argv: list[str]) -> int:
    """Print every cycle among the packages' modules and folders; 1 when the check fails."""
    roots = argv or ["service", "workers"]
    graph = grimp.build_graph(*roots, include_external_packages=False, exclude_type_checking_imports=False,
                              cache_dir=None)
    modules = module_graph(graph)
    failing = 0
    matched: set[frozenset[str]] = set()
    for ring in strongly_connected(modules):
        allowed = frozenset(ring) in ALLOWED
        matched.update({frozenset(ring)} if allowed else set())
        failing += not allowed
        print(f"cycle of {len(ring)} modules{' (allowed for now: ALLOWED in this script)' if allowed else ''}: "
              + ", ".join(ring))
        for line in imports_within(graph, modules, ring, None):
            print(line)
    for parent, ring in package_cycles(graph, modules):
        failing += 1
        print(f"cycle of {len(ring)} in {parent}: " + ", ".join(ring))
        for line in imports_within(graph, modules, ring, parent):
            print(line)
    for stale in sorted(sorted(entry) for entry in ALLOWED - matched):
        failing += 1
        print("ALLOWED names a cycle that is not found as it stands (gone or changed): remove it: " + ", ".join(stale))
    print(f"import cycles failing the check: {failing} (allowed for now: {len(matched)})")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
