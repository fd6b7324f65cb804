"""Arrows point down: no import cycle among the package's modules, and no import from a lower layer to a higher one.

Read from the source by AST, lazy imports (inside functions) included, as ``shared/tools/check_cycles.py`` does.
Layers, lowest first (DESIGN.md, "Layout"): ``core`` < ``games`` < ``agents`` < ``evaluation`` < ``table`` (with
``web``, the table in a browser) <
the package's top-level modules (shims, registration, benchmark) < ``training``. A game never imports another game.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("traitors_env", "training")

#: Module prefixes per layer, lowest first; a module belongs to the layer of its longest matching prefix.
LAYERS = (
    ("traitors_env.core", "traitors_env.files", "traitors_env.cli_args", "traitors_env._version"),
    ("traitors_env.games",),
    ("traitors_env.agents",),
    ("traitors_env.evaluation",),
    ("traitors_env.table", "traitors_env.web"),
    ("traitors_env",),
    ("training",),
)


def find_modules(root: Path, packages=PACKAGES) -> dict[str, Path]:
    found = {}
    for package in packages:
        for path in (root / package).rglob("*.py"):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def imports_of(name: str, path: Path, known) -> set[str]:
    """The known modules ``name`` imports anywhere in its file (its own parent packages excepted)."""
    base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                stem = base[: len(base) - (node.level - 1)]
                module = ".".join(stem + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            targets = [module] + [f"{module}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name and not name.startswith(target + "."):
                found.add(target)
    return found


def import_graph(root: Path = ROOT, packages=PACKAGES) -> tuple[dict[str, set[str]], set[str]]:
    modules = find_modules(root, packages)
    graph = {name: imports_of(name, path, modules) for name, path in modules.items()}
    package_inits = {name for name, path in modules.items() if path.name == "__init__.py"}
    return graph, package_inits


def cycles(graph: dict[str, set[str]], ignore: set[str]) -> list[list[str]]:
    """Strongly connected components of size > 1 (Tarjan), edges into ``ignore`` (package re-exports) dropped."""
    graph = {v: {w for w in targets if w not in ignore} for v, targets in graph.items()}
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def layer(module: str) -> int:
    best, rank = -1, None
    for i, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), i
    return rank


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    bad = []
    for source, targets in graph.items():
        for target in targets:
            if layer(target) > layer(source):
                bad.append(f"{source} (layer {layer(source)}) imports {target} (layer {layer(target)})")
            s, t = source.split("."), target.split(".")
            if s[:2] == t[:2] == ["traitors_env", "games"] and len(s) > 2 and len(t) > 2 and s[2] != t[2]:
                bad.append(f"game {s[2]} imports game {t[2]} ({source} -> {target})")
    return sorted(bad)


def test_no_import_cycle_among_the_packages_modules():
    graph, inits = import_graph()
    assert cycles(graph, inits) == []


def test_every_import_points_down_the_layers():
    graph, _ = import_graph()
    assert upward_imports(graph) == []


def test_the_environment_never_imports_training():
    graph, _ = import_graph()
    bad = [f"{s} -> {t}" for s, targets in graph.items() if s.startswith("traitors_env") for t in targets
           if t.split(".")[0] == "training"]
    assert bad == []


def _plant(tmp_path: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_the_checks_find_a_planted_cycle_and_a_planted_upward_import(tmp_path):
    # The checks have teeth: a lazy import that closes a circle, and a game reaching up into agents.
    root = _plant(tmp_path, {
        "traitors_env/__init__.py": "",
        "traitors_env/agents/__init__.py": "",
        "traitors_env/agents/spec.py": "from . import policy\n",
        "traitors_env/agents/policy.py": "def load():\n    from .spec import agent_maker\n",
        "traitors_env/games/__init__.py": "",
        "traitors_env/games/toy/__init__.py": "",
        "traitors_env/games/toy/bots.py": "from ...agents import spec\n",
        "traitors_env/games/other/__init__.py": "",
        "traitors_env/games/other/engine.py": "from ..toy import bots\n",
        "training/__init__.py": "",
    })
    graph, inits = import_graph(root)
    assert cycles(graph, inits) == [["traitors_env.agents.policy", "traitors_env.agents.spec"]]
    bad = upward_imports(graph)
    assert "game other imports game toy (traitors_env.games.other.engine -> traitors_env.games.toy.bots)" in bad
    assert "traitors_env.games.toy.bots (layer 1) imports traitors_env.agents.spec (layer 2)" in bad
    assert not [line for line in bad if "agents.policy" in line or line.startswith("traitors_env.agents")]
