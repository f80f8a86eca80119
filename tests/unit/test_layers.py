"""The folders are the pipeline's layers (README, "Code layout"): a module of ``generator/`` imports only from its own
layer or a lower one, and every module has a layer."""

from __future__ import annotations

import ast

from generator.incremental import GENERATOR_DIR

LAYERS = ("base", "estimate", "catalog", "calibrate", "sitedata", "views", "pages", "build", "cli")
# generator/<name>/ for a layer's folder; the top-level modules each name theirs.
TOP_LEVEL = {
    "__init__": "base",
    "cachefile": "base",
    "codegen": "base",
    "errors": "base",
    "i18n": "base",
    "incremental": "base",
    "inputfile": "base",
    "links": "base",
    "urls": "base",
    "build": "build",
    "buildlock": "build",
    "progress": "build",
    "tasks": "build",
    "__main__": "cli",
    "bench": "cli",
    "bench_hugo": "cli",
}


def layer_of(module: str) -> str | None:
    """The layer of a module of ``generator`` (None if it has none)."""
    parts = module.split(".")
    name = parts[1] if len(parts) > 1 else "__init__"
    if name in TOP_LEVEL:
        return TOP_LEVEL[name]
    return name if name in LAYERS else None


def imports(module: str, source: str, package: bool = False) -> set[str]:
    """The modules of ``generator`` (and of ``tests``) that ``module`` imports anywhere, functions included."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".")[:len(module.split(".")) - node.level + package]
                base = ".".join(parts + ([base] if base else []))
            # "from generator import build" names a module; "from generator.x import y" needs only x
            found |= {f"{base}.{alias.name}" for alias in node.names} if base == "generator" else {base}
    return {name for name in found if name.split(".")[0] in ("generator", "tests")}


def upward_imports(sources: dict[str, tuple[str, bool]]) -> list[str]:
    """Each import from a higher layer, or of test code, as "module (layer) imports other (layer)"."""
    found = []
    for module, (source, package) in sorted(sources.items()):
        here = layer_of(module)
        for other in sorted(imports(module, source, package)):
            there = layer_of(other) if other.startswith("generator") else "tests"
            if there == "tests" or (here and there and LAYERS.index(there) > LAYERS.index(here)):
                found.append(f"{module} ({here}) imports {other} ({there})")
    return found


def _sources() -> dict[str, tuple[str, bool]]:
    sources = {}
    for path in sorted(GENERATOR_DIR.rglob("*.py")):
        parts = path.relative_to(GENERATOR_DIR.parent).with_suffix("").parts
        package = parts[-1] == "__init__"
        sources[".".join(parts[:-1] if package else parts)] = (path.read_text(encoding="utf-8"), package)
    return sources


def test_every_module_has_a_layer() -> None:
    assert [module for module in _sources() if layer_of(module) is None] == []


def test_no_module_imports_from_a_higher_layer() -> None:
    assert upward_imports(_sources()) == []


def test_only_the_command_line_imports_the_fitting_code() -> None:
    importers = {module for module, (source, package) in _sources().items()
                 if any(layer_of(other) == "calibrate" for other in imports(module, source, package)
                        if other.startswith("generator"))}
    assert {module for module in importers if layer_of(module) not in ("calibrate", "cli")} == set()


def test_the_check_finds_an_upward_import_in_each_form() -> None:
    sources = {
        "generator.estimate.speed": ("from ..pages import render\n", False),
        "generator.catalog": ("def f():\n    from ..sitedata import store\n", True),
        "generator.urls": ("import generator.build\n", False),
        "generator.views.plan": ("from generator import build\n", False),
        "generator.links": ("from tests.quality import sitecheck\n", False),
        "generator.views.common": ("from .. import urls\nfrom ..estimate import estimator\n", False),
    }
    assert upward_imports(sources) == [
        "generator.catalog (catalog) imports generator.sitedata (sitedata)",
        "generator.estimate.speed (estimate) imports generator.pages (pages)",
        "generator.links (base) imports tests.quality (tests)",
        "generator.urls (base) imports generator.build (build)",
        "generator.views.plan (views) imports generator.build (build)",
    ]
    assert layer_of("generator.nothing_known") is None
