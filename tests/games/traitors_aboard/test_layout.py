"""The package's layering (DESIGN.md, "Layout"): arrows point down, the environment never imports training."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[3] / "traitors_env"


def _imported_modules(path: Path) -> set[str]:
    """Every absolute module name ``path`` imports, at any depth (lazy imports inside functions too)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_environment_package_never_imports_training():
    sources = sorted(PACKAGE.rglob("*.py")) + sorted(PACKAGE.rglob("*.pyx"))
    assert len(sources) > 10  # the walk found the package
    offenders = {
        str(path.relative_to(PACKAGE)): sorted(m for m in _imported_modules(path) if m.split(".")[0] == "training")
        for path in sources
        if path.suffix == ".py"
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_engines_import_no_gymnasium_or_pettingzoo():
    """The rules engine is pure: no RL framework below the environment adapter (DESIGN.md)."""
    for path in (PACKAGE / "games" / "traitors_aboard" / "engine.py", PACKAGE / "games" / "traitors_aboard" / "cards.py"):
        frameworks = {m for m in _imported_modules(path) if m.split(".")[0] in ("gymnasium", "pettingzoo", "training")}
        assert frameworks == set(), path


def test_rule_texts_ship_in_the_repository():
    """Every rule text and ruling the code and README cite lies in docs/rules/ (issue 10)."""
    rules = PACKAGE.parent / "docs" / "rules"
    for name in ("RULINGS.md", "traitors-aboard-rulebook-en.txt", "the-traitors-RULINGS.md",
                 "the-traitors-board-game-2nd-ed-en.txt"):
        assert (rules / name).is_file(), name
    rulings = (rules / "RULINGS.md").read_text(encoding="utf-8")
    for number in range(1, 18):
        assert f"R{number:02d}" in rulings
