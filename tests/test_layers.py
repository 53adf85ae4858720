"""The house: the data path flows one way, and no module imports a layer above its own.

Read statically (every module of ``workbench/`` parsed with :mod:`ast`, nothing
imported), so an import inside a function counts as much as one at the top: a lazy
import only defers the dependency.  Imports of the type-checking kind count too.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Mapping
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "workbench"

#: The layers, lowest first, in the order of the data path: kernel -> properties ->
#: measurements -> fitted model -> predictions -> tables and plots.  A module may
#: import its own package and any package of a lower layer; packages that share a
#: layer do not import each other.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "shipped_files"),   # the exceptions every layer raises; files shipped as .xz
    ("kernels",),      # loopy kernels, their variants and search spaces
    ("properties",),   # what a kernel does, counted symbolically
    ("hardware",),     # device descriptions (peak figures, from vendors' documents)
    ("measure",),      # devices, timing protocols, the measurement store
    ("models",),       # fitted models and their predictions
    ("tuning",),       # choosing variants: models' rankings and live evaluations
    ("distributed",),  # campaigns and explorations spread over Dask workers
    ("reports",),      # tables and plots
    ("cli", "ui"),     # the command line and the notebook dashboard, on top
)

#: Modules outside the layers: the root package (its version, and the dashboard as a
#: lazy entry point into ``ui``) and ``python -m workbench`` (the command line).
#: Importing the root is free: Python loads it before any of its submodules.
ROOT_MODULES = frozenset({"workbench", "workbench.__main__"})

#: Upward imports kept on purpose, (importer, imported module) -> why.  Empty: an entry
#: needs a reason that beats moving the code to the layer where it belongs.
ALLOWED_UPWARD: Mapping[tuple[str, str], str] = {}


def module_sources(root: Path = PACKAGE) -> dict[str, str]:
    """Dotted module name -> source text, for every module under ``root``."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path.read_text(encoding="utf-8")
    return found


def _is_package(name: str, sources: Mapping[str, str]) -> bool:
    return any(other.startswith(name + ".") for other in sources)


def import_edges(sources: Mapping[str, str]) -> dict[str, dict[str, int]]:
    """Importer -> {imported workbench module: line}, each target resolved to the
    longest module name that exists (``from a.b import c`` is ``a.b.c`` when ``c`` is a
    module, else ``a.b``); a module's own parent packages are left out."""
    edges: dict[str, dict[str, int]] = {name: {} for name in sources}
    for name, text in sources.items():
        package = name if _is_package(name, sources) else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(text, filename=name)):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    parts = parts[: len(parts) - node.level + 1]
                    base = ".".join(parts + ([base] if base else []))
                targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in targets:
                while target and target not in sources:
                    target = target.rpartition(".")[0]
                if target and target != name and not name.startswith(target + "."):
                    edges[name].setdefault(target, node.lineno)
    return edges


def layer_of(module: str) -> int | None:
    """The layer index of a workbench module (None for the root modules)."""
    if module in ROOT_MODULES:
        return None
    package = module.split(".")[1]
    for index, members in enumerate(LAYERS):
        if package in members:
            return index
    raise KeyError(f"{module}: package {package!r} is in no layer of LAYERS")


def upward_imports(sources: Mapping[str, str]) -> list[str]:
    """``importer:line -> imported`` for every import of a package in the same or a
    higher layer than the importer's own, other than ALLOWED_UPWARD."""
    found = []
    for importer, targets in import_edges(sources).items():
        low = layer_of(importer)
        for target, line in sorted(targets.items()):
            high = layer_of(target)
            if low is None or high is None or target.split(".")[1] == importer.split(".")[1]:
                continue
            if high >= low and (importer, target) not in ALLOWED_UPWARD:
                found.append(f"{importer}:{line} -> {target}")
    return sorted(found)


def import_cycles(sources: Mapping[str, str]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    graph = {name: set(targets) for name, targets in import_edges(sources).items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(frozenset(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph)))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return cycles


SOURCES = module_sources()


def test_every_package_has_a_layer():
    packages = {name.split(".")[1] for name in SOURCES if name not in ROOT_MODULES}
    placed = {p for members in LAYERS for p in members}
    assert packages - placed == set(), "place the new package in LAYERS"
    assert placed - packages == set(), "LAYERS names a package that is gone"


def test_no_module_imports_a_higher_layer():
    offenders = upward_imports(SOURCES)
    assert offenders == [], "upward imports:\n" + "\n".join(offenders)


def test_every_allowed_upward_import_is_still_there():
    edges = import_edges(SOURCES)
    stale = [pair for pair in ALLOWED_UPWARD if pair[1] not in edges.get(pair[0], {})]
    assert stale == [], f"drop these from ALLOWED_UPWARD: {stale}"


def test_no_import_cycles():
    """Every import counts, lazy ones too (as the developers' import-cycle counter does)."""
    cycles = [" ".join(sorted(c)) for c in import_cycles(SOURCES)]
    assert cycles == [], "import cycles:\n" + "\n".join(cycles)


def test_the_checks_catch_an_upward_import_and_a_cycle():
    sources = {
        "workbench": "",
        "workbench.kernels": "",
        "workbench.kernels.spaces": "from ..tuning import runner\n",
        "workbench.tuning": "",
        "workbench.tuning.runner": "def run():\n    from workbench.kernels import spaces\n",
        "workbench.measure": "",
        "workbench.measure.store": "from workbench import __version__\n"
                                   "from workbench.errors import TuningError\n",
        "workbench.errors": "",
    }
    assert upward_imports(sources) == [   # the package's __init__ runs first, so both
        "workbench.kernels.spaces:1 -> workbench.tuning",
        "workbench.kernels.spaces:1 -> workbench.tuning.runner"]
    assert import_cycles(sources) == [
        frozenset({"workbench.kernels.spaces", "workbench.tuning.runner"})]
