"""Issue 50: nothing outside the adapter and the exact tool imports OpenSpiel; without the solve extra the tools say
how to install it."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_only_the_solve_package_and_the_openspiel_games_import_open_spiel():
    pattern = re.compile(r"^\s*(import|from)\s+(pyspiel|open_spiel)\b|require_pyspiel\(\)", re.M)
    offenders = [str(path.relative_to(ROOT)) for folder in ("traitors_env", "training")
                 for path in (ROOT / folder).rglob("*.py")
                 if pattern.search(path.read_text(encoding="utf-8"))
                 and not any(f"traitors_env/{part}/" in path.as_posix() for part in ("solve", "games/openspiel"))]
    assert offenders == []


def test_games_and_core_do_not_import_the_solve_package():
    offenders = [str(path.relative_to(ROOT)) for folder in ("traitors_env/core", "traitors_env/games")
                 for path in (ROOT / folder).rglob("*.py") if "solve" in re.findall(r"^\s*from\s+\S*?(solve)\b",
                                                                                   path.read_text(encoding="utf-8"), re.M)]
    assert offenders == []


def test_without_the_extra_the_adapter_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # as if open-spiel were not installed
    monkeypatch.delitem(sys.modules, "traitors_env.solve.spiel", raising=False)
    with pytest.raises(ImportError, match=r"pip install 'traitors-aboard-rl\[solve\]'"):
        importlib.import_module("traitors_env.solve.spiel")
    # the exact tool itself needs no OpenSpiel
    assert importlib.import_module("traitors_env.solve.exact").evaluate


def test_traitors_exact_openspiel_flag_without_the_extra_is_an_error_in_words(monkeypatch, capsys):
    from training.exact import main

    monkeypatch.setitem(sys.modules, "pyspiel", None)
    monkeypatch.delitem(sys.modules, "traitors_env.solve.spiel", raising=False)
    assert main(["--variant", "micro3", "--openspiel"]) == 2
    assert "solve" in capsys.readouterr().err
