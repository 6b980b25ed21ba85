"""No module of deepcrawl imports itself back, inside a package or across packages.

The floors between packages are an import-linter contract (``make lint``); this is the same
promise inside the folders: the modules' import graph (imports for type checkers aside, which
never run) has no cycle, so every package reads from its bottom module up.
"""

from __future__ import annotations

import grimp


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def test_no_module_imports_itself_back() -> None:
    graph = grimp.build_graph("deepcrawl", exclude_type_checking_imports=True)
    assert _cycles(graph) == []


def test_a_cycle_is_found() -> None:
    graph = grimp.ImportGraph()
    for module in ("p", "p.a", "p.b", "p.c"):
        graph.add_module(module)
    graph.add_import(importer="p.a", imported="p.b")
    graph.add_import(importer="p.b", imported="p.a")
    graph.add_import(importer="p.c", imported="p.a")
    assert _cycles(graph) == [["p.a", "p.b"]]
