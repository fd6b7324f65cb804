"""Paths read from a data file stay in its folder (issue 49, item 2): a league file someone sent must not lead the
reader to any other file on the machine (``traitors_env.files.confined_path``)."""

from __future__ import annotations

import json
import os

import pytest

from traitors_env.agents.policy import AgentSpecError
from traitors_env.agents.spec import agent_maker
from traitors_env.files import confined_path


def league_file(folder, pirates, mutineers):
    """A league file of the two bots a side (as tests/agents/test_league_agent.py writes one)."""
    bots = [{"name": n, "kind": n, "iteration": 0, "checkpoint": None} for n in ("random", "heuristic")]
    data = {"schema": 1, "game": "traitors_aboard", "sides": ["pirates", "mutineers"],
            "members": {"pirates": list(bots), "mutineers": bots},
            "iterations": [{"iteration": 1, "nash": {"pirates": pirates, "mutineers": mutineers}}]}
    path = folder / "league.json"
    path.write_text(json.dumps(data))
    return path


def _with_policy(path, checkpoint):
    """The league file at ``path`` with a Pirates policy member ``evil`` at ``checkpoint``, weight 1."""
    data = json.loads(path.read_text())
    data["members"]["pirates"].append({"name": "evil", "kind": "policy", "iteration": 1, "checkpoint": checkpoint})
    data["iterations"][-1]["nash"]["pirates"] = {"evil": 1.0}
    path.write_text(json.dumps(data))
    return path


def _outside(tmp_path):
    """A file outside the league's folder (``tmp_path/run``): what a poisoned member points at."""
    target = tmp_path / "evil.zip"
    target.write_bytes(b"not read")
    (tmp_path / "run").mkdir()
    return target


@pytest.mark.parametrize("how", ["dotdot", "absolute", "symlink"])
def test_a_league_member_whose_checkpoint_leads_outside_the_folder_is_refused_naming_it(tmp_path, how):
    target = _outside(tmp_path)
    if how == "symlink":
        os.symlink(target, tmp_path / "run" / "inside.zip")
        checkpoint = "inside.zip"
    else:
        checkpoint = "../evil.zip" if how == "dotdot" else str(target)
    path = _with_policy(league_file(tmp_path / "run", {"heuristic": 1.0}, {"heuristic": 1.0}), checkpoint)
    with pytest.raises(AgentSpecError) as error:
        agent_maker(str(path))
    message = str(error.value)
    assert "member 'evil'" in message and str(path) in message and repr(checkpoint) in message
    assert ("absolute path" if how == "absolute" else "outside") in message and "\n" not in message


def test_a_symlink_inside_the_folder_and_plain_relative_paths_are_fine(tmp_path):
    run = tmp_path / "run"
    (run / "checkpoints" / "gen_001").mkdir(parents=True)
    os.symlink(run / "checkpoints" / "gen_001", run / "newest")
    assert confined_path(run, "checkpoints/gen_001/pirates.msgpack") == run / "checkpoints/gen_001/pirates.msgpack"
    assert confined_path(run, "newest/pirates.msgpack") == run / "newest/pirates.msgpack"
    assert confined_path(run, "checkpoints/../checkpoints/x.zip") == run / "checkpoints/../checkpoints/x.zip"
    for bad in ("..", "../run2/x.zip", "/etc/passwd", "checkpoints/../../x.zip"):
        with pytest.raises(ValueError, match=repr(bad).replace(".", r"\.")):
            confined_path(run, bad)


@pytest.mark.parametrize("checkpoint", ["../elsewhere/pirates.msgpack", "/etc/passwd"])
def test_a_resumed_leagues_saved_members_are_confined_to_the_run_folder(tmp_path, checkpoint):
    """``traitors-train --resume`` of a league reads its members' checkpoints from ``league.json``."""
    pytest.importorskip("jax")
    from training.config import config_from_dict
    from training.jax_backend.engine import standin_engine
    from training.jax_backend.population import Population

    config = config_from_dict({"name": "ltiny", "backend": "jax", "output_dir": str(tmp_path / "runs"),
                               "league": {"iterations": 2, "fixed": ["random", "heuristic"]}})
    population = Population(config, standin_engine(), ("pirates", "mutineers"))
    bots = [{"name": n, "kind": n, "iteration": 0, "checkpoint": None} for n in ("random", "heuristic")]
    evil = {"name": "league_1", "kind": "policy", "iteration": 1, "checkpoint": checkpoint}
    data = {"members": {"pirates": [*bots, evil], "mutineers": bots}}
    with pytest.raises(ValueError, match=rf"pirates member 'league_1': its checkpoint '{checkpoint}'"):
        population.restore(data, 1)
