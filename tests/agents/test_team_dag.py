"""Team equilibrium files of format ``traitors_env.team_dag`` (``.team.json``, solve/team_lp.py) are downloadable
data: a tampered one is refused at load with one line naming the file, the entry and what was expected, never
loaded to hang (a cycle in ``up``), crash with a traceback or fail only during games."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pyspiel")  # the files are of OpenSpiel's social_deduction (the solve extra)

from traitors_env.agents import team_dag  # noqa: E402
from traitors_env.agents.policy import AgentSpecError  # noqa: E402
from traitors_env.agents.spec import agent_maker  # noqa: E402
from traitors_env.core.registry import load_game  # noqa: E402

GAME = "openspiel_social_deduction:mini3"


def _valid() -> dict:
    """A minimal valid file: root part 0 (state 0 chooses "a"'s action), child part 1 (states 1 and 2), the other
    side at "m"; of the game GAME (31 actions), its keys made up (loading does not play)."""
    return {"format": team_dag.FORMAT, "version": team_dag.VERSION, "game": load_game(GAME).type.env_id,
            "team": {"a": 0, "b": 1}, "up": [-1, 0],
            "dag": [[[0.25, {"a": 0}, [[1, 1]]], [0.75, {"a": 1}, [[1, 2]]]], [[1.0, {"b": 2}, []]],
                    [[1.0, {"b": 1}, []]]],
            "other": {"m": [[0, 1], [0.0, 1.0]]}}


def _set(*path_and_value):
    *path, value = path_and_value

    def mutate(data: dict) -> None:
        target = data
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value
    return mutate


def _cycle(data: dict) -> None:
    data["up"] = [-1, 2, 1]


BAD = {
    "up[1] = 1 (a cycle)": (_set("up", 1, 1), "up[1]"),
    "up[1] = 2, up[2] = 1 (a cycle)": (_cycle, "up[1]"),
    "up[0] not the root": (_set("up", 0, 0), "up[0]"),
    "no parts": (_set("up", []), "up[0]"),
    "dag[0] = [5]": (_set("dag", 0, [5]), "dag[0][0]"),
    "dag[0] = [{a: 1}]": (_set("dag", 0, [{"a": 1}]), "dag[0][0]"),
    "dag[0] = [[1.0]]": (_set("dag", 0, [[1.0]]), "dag[0][0]"),
    "dag[0] = []": (_set("dag", 0, []), "dag[0]"),
    "other = 5": (_set("other", "m", 5), "other['m']"),
    "probability 10**400": (_set("dag", 1, 0, 0, 10**400), "dag[1][0]"),
    "other probabilities [10**400]": (_set("other", "m", [[0], [10**400]]), "other['m']"),
    "probability '1.0'": (_set("dag", 1, 0, 0, "1.0"), "dag[1][0]"),
    "probability true": (_set("dag", 1, 0, 0, True), "dag[1][0]"),
    "probability NaN": (_set("dag", 1, 0, 0, float("nan")), "dag[1][0]"),
    "probabilities summing to 0.5": (_set("dag", 1, 0, 0, 0.5), "dag[1]"),
    "action 10**6": (_set("dag", 0, 0, 1, "a", 10**6), "dag[0][0] at 'a'"),
    "action 31 (num_actions)": (_set("dag", 0, 0, 1, "a", 31), "dag[0][0] at 'a'"),
    "action -1": (_set("dag", 0, 0, 1, "a", -1), "dag[0][0] at 'a'"),
    "action '1'": (_set("dag", 0, 0, 1, "a", "1"), "dag[0][0] at 'a'"),
    "action 1.0": (_set("dag", 0, 0, 1, "a", 1.0), "dag[0][0] at 'a'"),
    "action false": (_set("dag", 0, 0, 1, "a", False), "dag[0][0] at 'a'"),
    "other action -1": (_set("other", "m", 0, 0, -1), "other['m']"),
    "other action 10**6": (_set("other", "m", 0, 0, 10**6), "other['m']"),
    "other action '0'": (_set("other", "m", 0, 0, "0"), "other['m']"),
    "other lengths differ": (_set("other", "m", 1, [1.0]), "other['m']"),
    "empty dag": (_set("dag", []), "dag is empty"),
    "team part -1": (_set("team", "a", -1), "team['a']"),
    "team part out of range": (_set("team", "a", 2), "team['a']"),
    "team part 1.0": (_set("team", "b", 1.0), "team['b']"),
    "child part out of range": (_set("dag", 0, 0, 2, 0, [9, 1]), "dag[0][0]'s child"),
    "child part 1.0": (_set("dag", 0, 0, 2, 0, [1.0, 1]), "dag[0][0]'s child"),
    "child state 1.0": (_set("dag", 0, 0, 2, 0, [1, 1.0]), "dag[0][0]'s child"),
    "child state out of range": (_set("dag", 0, 0, 2, 0, [1, 9]), "dag[0][0]'s child"),
    "child [1]": (_set("dag", 0, 0, 2, 0, [1]), "dag[0][0]'s child"),
    "version 1.0": (_set("version", 1.0), "version 1.0"),
    "version true": (_set("version", True), "version True"),
    "game 5": (_set("game", 5), "game 5"),
}


def _write(tmp_path: Path, data: object, name: str = "x.team.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_the_valid_file_loads_and_plays(tmp_path):
    path = _write(tmp_path, _valid())
    label, make = agent_maker(str(path), game=GAME)
    mask = np.ones(31, dtype=np.int8)
    for seed in range(20):
        agent = make(seed)
        first = agent.act_key("a", mask)
        assert agent.act_key("b", mask) == (2 if first == 0 else 1)
        assert agent.act_key("m", mask) == 1


@pytest.mark.parametrize("case", list(BAD))
def test_a_bad_entry_is_refused_at_load_in_one_line(tmp_path, case):
    mutate, named = BAD[case]
    data = copy.deepcopy(_valid())
    mutate(data)
    path = _write(tmp_path, data)
    with pytest.raises(AgentSpecError) as error:
        agent_maker(str(path), game=GAME)
    message = str(error.value)
    assert "\n" not in message and str(path) in message and named in message and "expected" in message, message
    with pytest.raises(ValueError):  # the loader itself, without the spec
        team_dag.load_team_dag(path, load_game(GAME))


def test_a_cycle_in_up_never_reaches_a_game(tmp_path):
    """Run in a child with a timeout: were the cycle loaded, the agent's parent walk would never end."""
    data = _valid()
    _cycle(data)
    data["team"]["b"] = 2
    path = _write(tmp_path, data)
    code = ("import sys, numpy as np\nfrom traitors_env.agents.spec import agent_maker\n"
            "try:\n    make = agent_maker(sys.argv[1], game=sys.argv[2])[1]\n"
            "except ValueError as e:\n    print('refused', e)\n    sys.exit(0)\n"
            "make(0).act_key('b', np.ones(31, dtype=np.int8))\nprint('played')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[2]), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", code, str(path), GAME], capture_output=True, text=True, timeout=60,
                         env=env)
    assert out.returncode == 0 and out.stdout.startswith("refused") and "up[1]" in out.stdout, out


def test_a_file_in_neither_format_names_both(tmp_path):
    path = _write(tmp_path, {"format": "x", "version": 1})
    with pytest.raises(AgentSpecError) as error:
        agent_maker(str(path), game=GAME)
    message = str(error.value)
    assert "\n" not in message and "traitors_env.team_equilibrium" in message and team_dag.FORMAT in message


@pytest.mark.parametrize("target", ["fifo", "directory", "/dev/zero", "missing"])
def test_a_link_to_what_is_not_a_file_says_what_it_is(tmp_path, target):
    if target == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs here")
        os.mkfifo(tmp_path / "fifo")
        to, said = tmp_path / "fifo", "FIFO"
    elif target == "directory":
        (tmp_path / "dir").mkdir()
        to, said = tmp_path / "dir", "directory"
    elif target == "/dev/zero":
        if not os.path.exists("/dev/zero"):
            pytest.skip("no /dev/zero here")
        to, said = Path("/dev/zero"), "character device"
    else:
        to, said = tmp_path / "nothing", "missing file"
    link = tmp_path / "x.team.json"
    link.symlink_to(to)
    with pytest.raises(AgentSpecError) as error:
        agent_maker(str(link), game=GAME)
    message = str(error.value)
    assert "\n" not in message and said in message and "symbolic link" in message, message
    assert "no such" not in message
    with pytest.raises(AgentSpecError, match="no such team equilibrium file"):
        agent_maker(str(tmp_path / "absent.team.json"), game=GAME)
