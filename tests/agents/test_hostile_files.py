"""Crafted files that are data only but hostile (issue 49): each is refused at load with one line naming the file
and what was expected, never a traceback, a memory blow-up or a run that trains nothing and reports success."""

from __future__ import annotations

import io
import json
import math
import pickle
import shutil
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from traitors_env.agents.policy import AgentSpecError, PolicyLoadError


def _one_line(error: pytest.ExceptionInfo, path: Path | str) -> str:
    message = str(error.value)
    assert "\n" not in message and str(path) in message, message
    return message


# ---------------------------------------------------------------- SB3 snapshots
@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A real tiny MaskablePPO snapshot of Traitors Aboard (pirates) and its model."""
    pytest.importorskip("sb3_contrib")
    from training.agents import OpponentPool
    from training.config import config_from_dict
    from training.sb3 import new_model
    from training.storage import save_model_atomic
    from training.team_env import TeamEnv

    config = config_from_dict({"name": "t", "ppo": {"n_steps": 32, "batch_size": 32, "net_arch": [8]}})
    model = new_model(config, TeamEnv("pirates", OpponentPool({"random": 1.0}, seed=0), player_counts=[5]), seed=0)
    path = tmp_path_factory.mktemp("snapshot") / "pirates.zip"
    save_model_atomic(model, path)
    return path, model


@pytest.fixture
def snapshot(built, tmp_path):
    path = tmp_path / "pirates.zip"
    shutil.copy(built[0], path)
    return path


def _entries(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _rewrite(path: Path, **changes: bytes) -> None:
    entries = {**_entries(path), **{name.replace("__", "."): value for name, value in changes.items()}}
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in entries.items():
            archive.writestr(name, content)


def _edit_policy(path: Path, edit) -> None:
    import torch

    state = torch.load(io.BytesIO(_entries(path)["policy.pth"]), weights_only=True)
    edit(state)
    buffer = io.BytesIO()
    torch.save(state, buffer)
    _rewrite(path, policy__pth=buffer.getvalue())


def test_a_policy_state_dict_holding_a_non_tensor_is_refused(snapshot):
    from traitors_env.agents.checkpoint import FrozenPolicy

    _edit_policy(snapshot, lambda state: state.__setitem__("mlp_extractor.policy_net.0.weight", 5))
    with pytest.raises(PolicyLoadError) as error:
        FrozenPolicy(snapshot)
    assert "'mlp_extractor.policy_net.0.weight' is a int; expected tensors" in _one_line(error, snapshot)


class _Payload:
    def __reduce__(self):
        return (print, ("ran",))


def test_a_pickled_object_in_policy_pth_is_one_line_without_torchs_advice(snapshot, recwarn):
    import torch

    buffer = io.BytesIO()
    torch.save({"weight": _Payload()}, buffer, pickle_protocol=pickle.HIGHEST_PROTOCOL)
    _rewrite(snapshot, policy__pth=buffer.getvalue())
    from traitors_env.agents.checkpoint import FrozenPolicy

    with pytest.raises(PolicyLoadError) as error:
        FrozenPolicy(snapshot)
    message = _one_line(error, snapshot)
    assert "'policy.pth' holds something other than tensors (refused: weights only)" in message
    assert "weights_only set to False" not in message
    assert not [w for w in recwarn if "pickle" in str(w.message).lower()]


@pytest.mark.parametrize("edit", ["shape", "extra"])
def test_weights_that_do_not_fit_are_one_line(snapshot, edit):
    import torch

    from traitors_env.agents.checkpoint import FrozenPolicy

    def change(state):
        if edit == "shape":
            state["value_net.weight"] = torch.zeros(3, 3)
        else:
            state["extra.weight"] = torch.zeros(2)
    _edit_policy(snapshot, change)
    with pytest.raises(PolicyLoadError, match="do not fit") as error:
        FrozenPolicy(snapshot)
    _one_line(error, snapshot)


@pytest.mark.parametrize("entry,cap", [("data", "MAX_DATA_BYTES"), (r"[\w.]+\.pth", "MAX_WEIGHTS_BYTES")])
def test_an_entry_declared_larger_than_its_cap_is_refused_unread(snapshot, monkeypatch, entry, cap):
    from traitors_env.agents import checkpoint

    monkeypatch.setattr(checkpoint, cap, 100)
    read = []
    monkeypatch.setattr(zipfile.ZipFile, "read", lambda self, name, pwd=None: read.append(name))
    with pytest.raises(PolicyLoadError, match=f"'{entry}' holds \\d+ bytes uncompressed; expected at most 100") \
            as error:
        checkpoint.read_snapshot(snapshot)
    _one_line(error, snapshot)
    assert read == []


@pytest.mark.parametrize("value", [math.nan, math.inf])
def test_non_finite_weights_in_a_snapshot_are_refused_at_load(snapshot, value):
    from traitors_env.agents.checkpoint import FrozenPolicy

    _edit_policy(snapshot, lambda state: state["action_net.bias"].__setitem__(0, value))
    with pytest.raises(PolicyLoadError, match=r"non-finite values .* in policy\.pth\['action_net\.bias'\]") as error:
        FrozenPolicy(snapshot)
    _one_line(error, snapshot)


@pytest.mark.parametrize("key,value", [("num_timesteps", 1e300), ("_n_updates", math.nan), ("num_timesteps", -1),
                                       ("_episode_num", True), ("_total_timesteps", "5"),
                                       ("_current_progress_remaining", 2.0)])
def test_resume_refuses_counters_that_are_not_counts(built, snapshot, key, value):
    from training.resume import load_checkpoint

    data = json.loads(_entries(snapshot)["data"])
    data[key] = value
    _rewrite(snapshot, data=json.dumps(data).encode())
    model = built[1]
    before = model.num_timesteps
    with pytest.raises(PolicyLoadError, match=f"has {key} = .*; expected") as error:
        load_checkpoint(snapshot, model)
    _one_line(error, snapshot)
    assert model.num_timesteps == before


def test_resume_restores_sound_counters(built, snapshot):
    from training.resume import load_checkpoint

    data = json.loads(_entries(snapshot)["data"])
    data["num_timesteps"], data["_current_progress_remaining"] = 64, 0.5
    _rewrite(snapshot, data=json.dumps(data).encode())
    load_checkpoint(snapshot, built[1])
    assert built[1].num_timesteps == 64 and built[1]._current_progress_remaining == 0.5


# ---------------------------------------------------------------- JAX checkpoints
def _jax_payload(net_arch=(4,)):
    from traitors_env.agents.jax_checkpoint import FORMAT
    from traitors_env.core import load_game

    kind = load_game("traitors_aboard").type
    sizes = [kind.observation_shape[0], *net_arch, kind.num_actions]
    names = [f"hidden_{i}" for i in range(len(net_arch))] + ["out"]
    actor = {n: {"kernel": np.zeros((a, b), np.float32), "bias": np.zeros(b, np.float32)}
             for n, a, b in zip(names, sizes, sizes[1:])}
    return {"format": FORMAT, "version": 1, "team": "pirates", "num_timesteps": 0,
            "net_arch": np.asarray(net_arch, np.int64), "activation": "tanh", "obs_size": sizes[0],
            "num_actions": sizes[-1], "params": {"params": {"actor": actor, "critic": {}}}, "opt_state": {}}


def _hostile(data, change: str):
    actor = data["params"]["params"]["actor"]
    if change == "net_arch_int":
        data["net_arch"] = 5
    elif change == "missing_hidden":
        data["net_arch"] = np.asarray([4, 4], np.int64)
    elif change == "no_out":
        del actor["out"]
    elif change == "params_list":
        data["params"]["params"] = [1, 2]
    elif change == "wrong_shape":
        actor["hidden_0"]["kernel"] = np.zeros((3, 4), np.float32)
    elif change == "string_kernel":
        actor["out"]["kernel"] = "weights"
    elif change == "nan":
        actor["out"]["bias"][0] = np.nan
    elif change == "inf_critic":
        data["params"]["params"]["critic"] = {"out": {"bias": np.full(1, np.inf, np.float32)}}
    return data


@pytest.mark.parametrize("change", ["net_arch_int", "missing_hidden", "no_out", "params_list", "wrong_shape",
                                    "string_kernel", "nan", "inf_critic"])
def test_a_hostile_jax_tree_is_one_line(tmp_path, change):
    serialization = pytest.importorskip("flax.serialization")
    from traitors_env.agents.jax_checkpoint import JaxPolicy

    path = tmp_path / "pirates.msgpack"
    path.write_bytes(serialization.msgpack_serialize(_jax_payload()))
    JaxPolicy(path)  # the control: the sound tree loads
    path.write_bytes(serialization.msgpack_serialize(_hostile(_jax_payload(), change)))
    with pytest.raises(PolicyLoadError, match="expected") as error:
        JaxPolicy(path)
    _one_line(error, path)


# ---------------------------------------------------------------- league files
def _league(tmp_path, pirates=None, members=None, raw: str | None = None) -> Path:
    bots = [{"name": n, "kind": n, "iteration": 0, "checkpoint": None} for n in ("random", "heuristic")]
    data = {"schema": 1, "game": "traitors_aboard", "sides": ["pirates", "mutineers"],
            "members": {"pirates": members or bots, "mutineers": bots},
            "iterations": [{"iteration": 1, "nash": {"pirates": pirates or {"random": 1.0},
                                                     "mutineers": {"random": 1.0}}}]}
    path = tmp_path / "league.json"
    path.write_text(raw if raw is not None else json.dumps(data))
    return path


@pytest.mark.parametrize("weights,match", [
    ("10**400", "an integer too large"),
    ({"heuristic": 1e308, "random": 1e308}, "sum to inf; expected finite numbers whose sum is finite and positive"),
])
def test_league_weights_that_overflow_are_refused(tmp_path, weights, match):
    from traitors_env.agents.spec import agent_maker

    if weights == "10**400":
        path = _league(tmp_path)
        path.write_text(path.read_text().replace('"pirates": {"random": 1.0}', '"pirates": {"random": 1' + "0" * 400
                                                  + "}"))
    else:
        path = _league(tmp_path, pirates=weights)
    with pytest.raises(AgentSpecError, match=match) as error:
        agent_maker(str(path))
    _one_line(error, path)


def test_a_deeply_nested_league_file_is_refused(tmp_path):
    from traitors_env.agents.spec import agent_maker

    path = _league(tmp_path, raw="[" * 100_000 + "]" * 100_000)
    with pytest.raises(AgentSpecError, match="nested too deeply") as error:
        agent_maker(str(path))
    _one_line(error, path)


@pytest.mark.parametrize("checkpoint,match", [("gen\x00.zip", r"holds a NUL byte"),
                                              (".", "is a folder, not a checkpoint file")])
def test_a_league_member_checkpoint_that_is_no_file_says_why(tmp_path, checkpoint, match):
    from traitors_env.agents.spec import agent_maker

    members = [{"name": "learner", "kind": "policy", "iteration": 1, "checkpoint": checkpoint},
               {"name": "random", "kind": "random", "iteration": 0, "checkpoint": None}]
    path = _league(tmp_path, pirates={"learner": 1.0}, members=members)
    with pytest.raises(AgentSpecError, match=match) as error:
        agent_maker(str(path))
    _one_line(error, path)


def test_a_probe_member_without_the_jax_extra_names_the_file_and_member(tmp_path, monkeypatch):
    from traitors_env.agents import league
    from traitors_env.agents.spec import agent_maker

    def missing(game):
        raise AgentSpecError("traitors-aboard's probes need the JAX twin (pip install -e '.[jax]'): No module 'jax'")

    monkeypatch.setattr(league, "probes", missing)
    members = [{"name": "plank", "kind": "probe", "iteration": 0, "checkpoint": None},
               {"name": "random", "kind": "random", "iteration": 0, "checkpoint": None}]
    path = _league(tmp_path, members=members)
    with pytest.raises(AgentSpecError, match="probe member 'plank': .*need the JAX twin") as error:
        agent_maker(str(path))
    _one_line(error, path)


# ---------------------------------------------------------------- agents files
def test_an_openai_spec_without_the_llm_extra_names_the_file_and_entry(tmp_path, monkeypatch):
    from traitors_env.evaluation.population import PopulationError, load_population_file

    monkeypatch.setitem(sys.modules, "openai", None)  # as if the llm extra were not installed
    path = tmp_path / "agents.yaml"
    path.write_text("agents:\n  - heuristic\n  - gpt: openai:gpt-4o-mini\n")
    with pytest.raises(PopulationError, match="agent 'gpt' .*'openai:gpt-4o-mini'.* need the llm extra") as error:
        load_population_file(path)
    _one_line(error, path)


@pytest.mark.parametrize("key", ["null", "~", "true"])
def test_a_yaml_key_that_is_not_a_name_is_refused(tmp_path, key):
    from traitors_env.evaluation.population import PopulationError, load_population_file

    path = tmp_path / "agents.yaml"
    path.write_text(f"agents:\n  - {key}: heuristic\n")
    with pytest.raises(PopulationError, match="expected a text name") as error:
        load_population_file(path)
    _one_line(error, path)
