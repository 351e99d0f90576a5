"""The architecture contract: layers, no cycles, and a client that stays light.

Layers, top to bottom (a module imports its own layer or lower, never higher):

1. interfaces: the app factory and runtime, the HTTP API, the CLI, the Python client, transfer,
   and the ones to come (web console, MCP);
2. features: retain, recall, curate (and consolidate, reflect as they land); a feature may use
   another, but the packages never form a cycle;
3. resolve (entity resolution);
4. domain and store, independent of each other;
5. config and errors.

Schemas modules, the client, the client-side CLI and transfer import no I/O: nothing of the
store, the runtime or the API, and no database driver, vector engine, model or LLM library.
There is no exception list: a new violation fails here.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app"

INTERFACES = {"app.main", "app.runtime", "app.embedded", "app.api", "app.cli", "app.client",
              "app.transfer", "app.console", "app.mcp"}  # fmt: skip
FEATURES = {"app.retain", "app.recall", "app.curate", "app.consolidate", "app.reflect",
            "app.access", "app.webhooks"}  # fmt: skip
LAYERS: list[set[str]] = [
    INTERFACES,
    FEATURES,
    {"app.resolve"},
    {"app.domain", "app.store"},
    {"app.config", "app.errors", "app"},
]
# Third-party packages whose import means I/O or a heavy runtime.
HEAVY = {"neo4j", "qdrant_client", "qdrant_edge", "fastembed", "onnxruntime", "spacy", "numpy",
         "openai", "instructor", "pydantic", "litestar", "uvicorn", "dateparser"}  # fmt: skip
CLIENT_SIDE_ROOTS = ("app.client", "app.transfer", "app.cli")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def component(module: str) -> str:
    """``app.retain.extract.llm`` → ``app.retain``; ``app.config`` → ``app.config``."""
    return ".".join(module.split(".")[:2])


def layer_of(module: str) -> int:
    for rank, members in enumerate(LAYERS):
        if component(module) in members:
            return rank
    raise AssertionError(f"{module} is in no layer: add its package to LAYERS")


MODULES = {module_name(p): p for p in APP.rglob("*.py")}


def _top_level_imports(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """Imports that run when the module is imported (not inside functions or TYPE_CHECKING)."""
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.Try) or (
            isinstance(node, ast.If) and "TYPE_CHECKING" not in ast.unparse(node.test)
        ):
            yield from (n for n in ast.walk(node) if isinstance(n, ast.Import | ast.ImportFrom))


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:
        package = module.split(".")[: -node.level or None]
        if MODULES.get(module, Path()).name == "__init__.py":
            package = module.split(".")[: len(module.split(".")) - node.level + 1]
        base = ".".join([*package, base] if base else package)
    for alias in node.names:
        sub = f"{base}.{alias.name}"
        yield sub if sub in MODULES else base


@cache
def imports(module: str, *, every: bool = True) -> frozenset[str]:
    """What ``module`` imports: every import, or only those that run at import time."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    nodes = (
        (n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom))
        if every
        else _top_level_imports(tree)
    )
    return frozenset(t for node in nodes for t in _targets(module, node))


def internal(names: frozenset[str]) -> set[str]:
    return {n for n in names if n == "app" or n.startswith("app.")}


def test_every_package_belongs_to_a_layer() -> None:
    for module in MODULES:
        layer_of(module)


def test_no_module_imports_a_higher_layer() -> None:
    violations = [
        f"{module} imports {target}"
        for module in sorted(MODULES)
        for target in sorted(internal(imports(module)))
        if layer_of(target) < layer_of(module)
    ]
    assert violations == []


def test_domain_and_store_do_not_import_each_other() -> None:
    violations = [
        f"{module} imports {target}"
        for module in sorted(MODULES)
        for target in sorted(internal(imports(module)))
        if {component(module), component(target)} == {"app.domain", "app.store"}
    ]
    assert violations == []


def test_packages_form_no_cycle() -> None:
    graph: dict[str, set[str]] = {}
    for module in MODULES:
        for target in internal(imports(module)):
            if component(target) != component(module):
                graph.setdefault(component(module), set()).add(component(target))
    cycle = _find_cycle(graph)
    assert cycle is None, " → ".join(cycle or [])


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def _closure(roots: list[str]) -> set[str]:
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        module = todo.pop()
        if module in seen or module not in MODULES:
            continue
        seen.add(module)
        todo.extend(internal(imports(module, every=False)))
    return seen


def _client_side_modules() -> list[str]:
    schemas = [m for m in MODULES if m.endswith(".schemas") or ".schemas." in m]
    client = [
        m
        for m in MODULES
        if m.startswith(CLIENT_SIDE_ROOTS) and m != "app.cli.server"  # server runs the stack
    ]
    return sorted(schemas + client)


@pytest.mark.parametrize("root", _client_side_modules())
def test_client_side_modules_import_no_io(root: str) -> None:
    reached = _closure([root])
    io = sorted(m for m in reached if component(m) in {"app.store", "app.runtime", "app.main",
                                                       "app.api"})  # fmt: skip
    heavy = sorted(
        f"{m} imports {t}"
        for m in reached
        for t in imports(m, every=False)
        if t.split(".")[0] in HEAVY
    )
    assert io == [] and heavy == [], (io, heavy)


def test_importing_the_client_and_cli_loads_no_heavy_library() -> None:
    probe = (
        "import sys, app.client, app.cli; "
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {HEAVY!r}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
