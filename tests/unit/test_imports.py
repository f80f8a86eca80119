"""Layering: no import cycle anywhere in generator/, and the estimator knows nothing of the catalogue or pages."""

from __future__ import annotations

from pathlib import Path

from generator.incremental import GENERATOR_DIR, module_imports


def _modules(package_dir: Path) -> list[str]:
    names = []
    for path in sorted(package_dir.rglob("*.py")):
        parts = path.relative_to(package_dir.parent).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def _graph(package_dir: Path) -> dict[str, list[str]]:
    """Each module's imports of other package modules (in functions too); a package's own ``__init__`` is not an
    edge of its submodules."""
    return {m: [i for i in module_imports(m, package_dir) if i != m and not m.startswith(i + ".")]
            for m in _modules(package_dir)}


def cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]
    assert cycles({"a": ["b"], "b": [], "c": ["a", "b"]}) == []


def test_no_import_cycle_in_the_generator() -> None:
    assert cycles(_graph(GENERATOR_DIR)) == []


def test_the_estimator_imports_nothing_of_the_catalogue_results_or_pages() -> None:
    graph = _graph(GENERATOR_DIR)
    outside = [(module, imported) for module, imports in graph.items() if module.startswith("generator.estimate")
               for imported in imports if not imported.startswith("generator.estimate")]
    assert outside == []
