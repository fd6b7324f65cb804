"""An agents file names no code unless the user allows it (issue 49, item 1): ``traitors-eval --agents-file FILE``
refuses a spec ``file.py:function`` or ``package.module:function`` read from FILE, before anything is imported,
unless ``--allow-code-specs``; the same spec typed with ``--agents`` is the user's own choice and runs."""

from __future__ import annotations

import json

import pytest

from traitors_env.agents.spec import is_code_spec
from traitors_env.evaluation.cli import main
from traitors_env.evaluation.population import PopulationError, load_population_file

EVIL = """\
from pathlib import Path

Path({marker!r}).write_text("ran")  # what a file someone sent would do on import


def make(seed=None):
    from traitors_env.core.agent import RandomAgent

    return RandomAgent(seed)
"""


@pytest.fixture
def evil(tmp_path):
    """``(spec, marker)``: a factory spec whose module creates ``marker`` when imported."""
    marker = tmp_path / "marker"
    module = tmp_path / "evil.py"
    module.write_text(EVIL.format(marker=str(marker)))
    return f"{module}:make", marker


def _agents_file(tmp_path, *entries) -> str:
    path = tmp_path / "agents.yaml"
    path.write_text(json.dumps({"agents": list(entries)}))  # JSON is YAML
    return str(path)


def _eval(tmp_path, *args: str) -> int:
    return main([*args, "--games", "1", "--players", "3", "--out", str(tmp_path / "report"), "--no-plots",
                 "--no-progress", "--workers", "1"])


def test_an_agents_file_naming_code_is_refused_and_nothing_runs(tmp_path, evil, capsys):
    spec, marker = evil
    for entry in (spec, {"mine": spec}, {"seeds": ["heuristic", spec]}, "os.path:join"):
        agents = _agents_file(tmp_path, "heuristic", entry)
        assert _eval(tmp_path, "--agents", "random", "--agents-file", agents) == 2
        error = capsys.readouterr().err
        assert agents in error and "names code" in error and "--allow-code-specs" in error
        assert error.count("\n") == 1
        assert not marker.exists()
        assert not (tmp_path / "report").exists()
    with pytest.raises(PopulationError, match=r"agent 'mine' names code"):
        load_population_file(_agents_file(tmp_path, {"mine": spec}))
    assert not marker.exists()


def test_with_allow_code_specs_the_file_may_name_code(tmp_path, evil):
    spec, marker = evil
    assert _eval(tmp_path, "--agents-file", _agents_file(tmp_path, "heuristic", {"mine": spec}),
                 "--allow-code-specs") == 0
    assert marker.exists()
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    assert "mine" in json.dumps(report["agents"] if "agents" in report else report)


def test_the_same_spec_typed_on_the_command_line_runs(tmp_path, evil):
    spec, marker = evil
    assert _eval(tmp_path, "--agents", "heuristic", spec) == 0
    assert marker.exists()


def test_an_agents_file_of_bots_and_checkpoints_still_works(tmp_path):
    """Bots, a league file (with and without its suffix: a colon that is not code) from a file; no flag."""
    run = tmp_path / "run"
    run.mkdir()
    bots = [{"name": n, "kind": n, "iteration": 0, "checkpoint": None} for n in ("random", "heuristic")]
    league = run / "league.json"
    league.write_text(json.dumps({"game": "traitors_aboard", "members": {"pirates": bots, "mutineers": bots},
                                  "iterations": [{"iteration": 0, "nash": {"pirates": {"heuristic": 1.0},
                                                                           "mutineers": {"random": 1.0}}}]}))
    agents = _agents_file(tmp_path, "random", {"h": "heuristic"}, {"league": str(league)},
                          {"pooled": f"{league}:pooled"})
    assert _eval(tmp_path, "--agents-file", agents) == 0
    assert (tmp_path / "report" / "report.json").is_file()


@pytest.mark.parametrize("spec, code", [
    ("heuristic", False), ("openai:gpt-4o-mini", False), ("runs/x/league.json:pooled", False),
    ("evil.py:make", True), ("sub/evil.py:make", True), ("/abs/evil.py:make", True), ("os.path:join", True),
    ("pkg.mod:fn", True), ("./relative:fn", False), ("runs/quick", False),
])
def test_is_code_spec_says_what_agent_maker_would_import(spec, code):
    assert is_code_spec(spec) is code
