"""Built-in games that need an optional extra (OpenSpiel's, ``[solve]``): without it nothing lists them, nothing warns,
and asking for one says how to install the extra; only their own folder imports ``pyspiel`` / ``open_spiel``.

These tests need no extra: the missing module is simulated (``registry._module_present``).
"""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

import pytest

from traitors_env.core import registry
from traitors_env.core.registry import (
    OPTIONAL_GAMES,
    GameLoadError,
    MissingExtraError,
    UnknownGameError,
    load_game,
    loadable_games,
    missing_extra,
    registered_env_ids,
    registered_games,
)

#: The registry's contents depend on the optional extras installed: CI runs these in both venvs (conftest.py).
pytestmark = pytest.mark.every_extra

ROOT = Path(__file__).resolve().parents[2]
NAME = "openspiel_social_deduction"
ADAPTER = ROOT / "traitors_env" / "games" / "openspiel"


@pytest.fixture
def without_extras(monkeypatch):
    """A registry whose optional extras are absent, read afresh (as a process without them would)."""
    monkeypatch.setattr(registry, "_module_present", lambda module: False)
    monkeypatch.setattr(registry, "_entry_points", dict(registry.BUILTIN_GAMES))
    monkeypatch.setattr(registry, "_env_ids", {name: f"{name}_v0" for name in registry.BUILTIN_GAMES})
    monkeypatch.setattr(registry, "_loaded", {})
    monkeypatch.setattr(registry, "_warned", set())
    monkeypatch.setattr(registry, "_plugins_read", False)


def test_the_openspiel_game_is_declared_with_its_extra():
    entry_point, module, extra = OPTIONAL_GAMES[NAME]
    assert entry_point.startswith("traitors_env.games.openspiel.") and module == "pyspiel" and extra == "solve"


def test_without_the_extra_no_tool_lists_it_and_nothing_warns(without_extras):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning would fail here
        names = registered_games()
        loaded = [game.name for game in loadable_games()]
    assert NAME not in names and NAME not in loaded and f"{NAME}_v0" not in registered_env_ids()
    assert {"traitors_aboard", "the_traitors", "avalon"} <= set(loaded)


@pytest.mark.parametrize("asked", [NAME, f"{NAME}_v0", f"{NAME}:mini3", f"{NAME}_v0:mini3"])
def test_without_the_extra_asking_for_it_says_how_to_install_it(without_extras, asked):
    with pytest.raises(MissingExtraError, match=r'\[solve\].*pip install -e "\.\[solve\]"'):
        load_game(asked)
    assert issubclass(MissingExtraError, GameLoadError)
    assert missing_extra(asked) is not None and missing_extra("avalon") is None
    with pytest.raises(UnknownGameError, match="no_such_game"):  # an unknown name stays unknown
        load_game("no_such_game")


def test_without_the_extra_its_public_module_says_how_to_install_it(without_extras):
    import importlib
    import sys

    sys.modules.pop(f"traitors_env.{NAME}_v0", None)
    with pytest.raises(ImportError, match=r'pip install -e "\.\[solve\]"'):
        importlib.import_module(f"traitors_env.{NAME}_v0")


def test_an_optional_game_cannot_be_unregistered():
    with pytest.raises(ValueError, match="built-in"):
        registry.unregister_game(NAME)


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found


#: The exact tool's one module that turns our games into pyspiel games (issue 50: "nothing imports open_spiel outside
#: the adapter and the exact tool"; tests/solve/test_solve_imports.py).
EXACT_TOOL = ROOT / "traitors_env" / "solve"


def test_only_the_adapter_folder_and_the_exact_tool_import_openspiel():
    """Nothing in the package outside ``traitors_env/games/openspiel/`` and ``traitors_env/solve/`` imports
    ``pyspiel`` or ``open_spiel``."""
    offenders = []
    for package in ("traitors_env", "training"):
        for path in (ROOT / package).rglob("*.py"):
            if ADAPTER in path.parents or EXACT_TOOL in path.parents:
                continue
            if _imports(path) & {"pyspiel", "open_spiel"}:
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []
    assert _imports(ADAPTER / "__init__.py") == {"__future__"} or "pyspiel" not in _imports(ADAPTER / "__init__.py")


def test_without_the_extra_the_commands_say_how_to_install_it(without_extras, capsys):
    """``--game`` of the kit and the table names the extra instead of argparse's "invalid choice"."""
    from traitors_env.evaluation.cli import main as eval_main
    from traitors_env.table.play import main as play_main

    for main in (eval_main, play_main):
        with pytest.raises(SystemExit) as exit_info:
            main(["--game", NAME])
        assert exit_info.value.code == 2
        assert 'pip install -e ".[solve]"' in capsys.readouterr().err
