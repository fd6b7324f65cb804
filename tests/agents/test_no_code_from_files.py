"""No code runs from a data file (issue 49, item 1): checkpoints, run states and run folders are read as data only.

Each malicious file carries a pickle whose unpickling would create a marker file; loading it the ways a user does
(an agent spec such as ``traitors-eval --agents evil.zip heuristic``, ``traitors-train --resume``) must leave no
marker: the file's weights are loaded without the pickle, or it is refused with a one-line error.
"""

from __future__ import annotations

import base64
import json
import pickle
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest

from traitors_env.agents.policy import AgentSpecError, PolicyLoadError


class _Payload:
    """Unpickled, it creates the file ``marker`` (what a crafted checkpoint's ``os.system`` call would do)."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _payload(marker: Path) -> bytes:
    return pickle.dumps(_Payload(marker))


def _poison_data(zip_path: Path, marker: Path) -> None:
    """Rewrite ``zip_path``'s ``data`` so that every ``:serialized:`` entry holds the payload (SB3's own loader
    cloudpickle-loads them all), the rest of the zip kept."""
    with zipfile.ZipFile(zip_path) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    data = json.loads(entries["data"])
    evil = base64.b64encode(_payload(marker)).decode()
    for value in data.values():
        if isinstance(value, dict) and ":serialized:" in value:
            value[":serialized:"] = evil
    entries["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(zip_path, "w") as archive:
        for name, content in entries.items():
            archive.writestr(name, content)


@pytest.fixture
def snapshot(tmp_path):
    """A real tiny MaskablePPO snapshot of Traitors Aboard (pirates)."""
    pytest.importorskip("sb3_contrib")
    from training.agents import OpponentPool
    from training.config import config_from_dict
    from training.sb3 import new_model
    from training.storage import save_model_atomic
    from training.team_env import TeamEnv

    config = config_from_dict({"name": "t", "ppo": {"n_steps": 32, "batch_size": 32, "net_arch": [8]}})
    model = new_model(config, TeamEnv("pirates", OpponentPool({"random": 1.0}, seed=0), player_counts=[5]), seed=0)
    path = tmp_path / "evil.zip"
    save_model_atomic(model, path)
    return path


def test_the_payload_is_live(snapshot, tmp_path):
    """The control: SB3's own reader of ``data`` runs the payload (what every loader here must avoid)."""
    from stable_baselines3.common.save_util import json_to_data

    marker = tmp_path / "control-marker"
    _poison_data(snapshot, marker)
    with zipfile.ZipFile(snapshot) as archive:
        json_to_data(archive.read("data").decode())
    assert marker.exists()


def test_an_sb3_zip_with_pickled_data_loads_its_weights_only(snapshot, tmp_path):
    from traitors_env.agents.checkpoint import FrozenPolicy, load_frozen_policy
    from traitors_env.agents.spec import load_agent

    marker = tmp_path / "marker"
    _poison_data(snapshot, marker)
    policy = FrozenPolicy(snapshot)
    probabilities = policy.probabilities(np.zeros(policy.obs_size, np.float32), np.ones(policy.num_actions, np.int8))
    assert probabilities.shape == (policy.num_actions,) and abs(probabilities.sum() - 1) < 1e-9
    load_frozen_policy(snapshot)
    load_agent(str(snapshot), seed=0)  # traitors-eval --agents evil.zip heuristic resolves its agents so
    assert not marker.exists()


def test_traitors_eval_with_a_poisoned_zip_runs_nothing(snapshot, tmp_path):
    from training.evaluate import main

    marker = tmp_path / "marker"
    _poison_data(snapshot, marker)
    status = main(["--agents", str(snapshot), "heuristic", "--games", "1", "--players", "3", "--out",
                   str(tmp_path / "report"), "--no-plots", "--no-progress", "--workers", "1"])
    assert status in (0, None)
    assert not marker.exists()


def test_an_sb3_zip_whose_weights_file_is_a_pickle_is_refused(snapshot, tmp_path):
    import torch

    from traitors_env.agents.checkpoint import FrozenPolicy
    from traitors_env.agents.spec import load_agent

    marker = tmp_path / "marker"
    with zipfile.ZipFile(snapshot) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    evil = tmp_path / "policy.pth"
    torch.save({"weight": _Payload(marker)}, evil)  # torch's own format, holding an object that runs code
    entries["policy.pth"] = evil.read_bytes()
    with zipfile.ZipFile(snapshot, "w") as archive:
        for name, content in entries.items():
            archive.writestr(name, content)
    with pytest.raises(PolicyLoadError, match="is not a MaskablePPO snapshot"):
        FrozenPolicy(snapshot)
    with pytest.raises(AgentSpecError):
        load_agent(str(snapshot), seed=0)
    assert not marker.exists()


def test_resume_from_a_poisoned_checkpoint_runs_nothing_and_trains_on(tmp_path):
    pytest.importorskip("sb3_contrib")
    from training.storage import RunFolder
    from training.train import main

    config = Path(__file__).resolve().parents[1] / "training" / "pinned" / "sb3_tiny.yaml"
    args = ["--config", str(config), "--output-dir", str(tmp_path), "--no-eval"]
    assert main([*args, "--generations", "1"]) in (0, None)
    run = RunFolder(tmp_path / "sb3_tiny")
    marker = tmp_path / "marker"
    for team in ("pirates", "mutineers"):
        _poison_data(run.checkpoint(0, team), marker)
    assert main([*args, "--resume"]) in (0, None)
    assert run.completed_generations() == 2
    assert not marker.exists()


# ---------------------------------------------------------------- RLlib
def test_an_rllib_module_folder_with_a_pickle_runs_nothing(tmp_path):
    """A module folder as RLlib writes one (``class_and_ctor_args.pkl``, ``state.pkl``), both poisoned."""
    from traitors_env.agents.spec import load_agent

    module = tmp_path / "pirates"
    module.mkdir()
    marker = tmp_path / "marker"
    for name in ("class_and_ctor_args.pkl", "state.pkl"):
        (module / name).write_bytes(_payload(marker))
    (module / "metadata.json").write_text("{}")
    with pytest.raises((AgentSpecError, PolicyLoadError)) as error:
        load_agent(str(module), seed=0)
    assert str(module) in str(error.value) and "\n" not in str(error.value)
    assert not marker.exists()


def test_an_rllib_checkpoint_folder_with_a_pickle_runs_nothing(tmp_path):
    from traitors_env.agents.spec import load_agent

    marker = tmp_path / "marker"
    for side in ("pirates", "mutineers"):
        module = tmp_path / "learner_group" / "learner" / "rl_module" / side
        module.mkdir(parents=True)
        for name in ("class_and_ctor_args.pkl", "state.pkl"):
            (module / name).write_bytes(_payload(marker))
    with pytest.raises((AgentSpecError, PolicyLoadError)):
        load_agent(str(tmp_path), seed=0)
    assert not marker.exists()


# ---------------------------------------------------------------- small items
def test_a_jax_checkpoint_without_params_names_the_file_and_what_was_expected(tmp_path):
    serialization = pytest.importorskip("flax.serialization")
    from traitors_env.agents.jax_checkpoint import FORMAT, read_checkpoint
    from traitors_env.core import load_game

    kind = load_game("traitors_aboard").type
    path = tmp_path / "pirates.msgpack"
    data = {"format": FORMAT, "version": 1, "team": "pirates", "num_timesteps": 0, "net_arch": np.zeros(0, np.int64),
            "activation": "tanh", "obs_size": kind.observation_shape[0], "num_actions": kind.num_actions,
            "opt_state": {}}
    path.write_bytes(serialization.msgpack_serialize(data))
    with pytest.raises(PolicyLoadError, match=r"pirates\.msgpack.* has no 'params'; expected .*keys") as error:
        read_checkpoint(path)
    assert str(path) in str(error.value)
    data["params"] = {"weights": np.zeros(3)}
    path.write_bytes(serialization.msgpack_serialize(data))
    with pytest.raises(PolicyLoadError, match=r"holds params of keys \['weights'\]; expected"):
        read_checkpoint(path)


@pytest.mark.parametrize("history", [[1, 2], ["gen"], {"generation": 1}, [None]])
def test_a_state_whose_history_holds_non_objects_is_a_clear_error(tmp_path, history):
    from traitors_env.agents.run_folder import RunFolder, RunFolderError

    run = RunFolder(tmp_path)
    run.state_path.write_text(json.dumps({"completed_generations": 1, "history": history}))
    with pytest.raises(RunFolderError, match="'history' must be a list of JSON objects") as error:
        run.read_state()
    assert str(run.state_path) in str(error.value)


def test_resume_ignores_folders_that_are_not_generation_folders(tmp_path):
    from training.resume import discard_incomplete_generations
    from training.storage import RunFolder

    run = RunFolder(tmp_path)
    for name in ("gen_001", "gen_002", "gen_001_best", "gen_", "notes"):
        (run.checkpoints / name).mkdir(parents=True)
    events = tmp_path / "tensorboard" / "pirates"
    events.mkdir(parents=True)
    (events / "events.out.tfevents.1.host.2.0.gen_002").write_text("")
    (events / "events.out.tfevents.1.host.2.0.gen_002.bak").write_text("")
    discard_incomplete_generations(run, 1)
    assert sorted(p.name for p in run.checkpoints.iterdir()) == ["gen_", "gen_001", "gen_001_best", "notes"]
    assert [p.name for p in events.iterdir()] == ["events.out.tfevents.1.host.2.0.gen_002.bak"]


def test_no_unguarded_pickle_loads_in_the_package():
    """Every use of a loader that can run code is one of the guarded ones listed in docs/security.md."""
    root = Path(__file__).resolve().parents[2]
    risky = ("pickle.load", "cloudpickle", "yaml.load(", "torch.load(", "from_checkpoint", "json_to_data",
             "MaskablePPO.load", "restore_from_path")
    found = []
    for folder in ("traitors_env", "training"):
        for path in sorted((root / folder).rglob("*.py")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                code = line.split("#", 1)[0]
                # eval( as a call of its own (not jax.ensure_compile_time_eval())
                if (any(word in code for word in risky) or re.search(r"\beval\(", code)) and "weights_only=True" not in code:
                    found.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    listed = (root / "docs" / "security.md").read_text(encoding="utf-8")
    unlisted = [hit for hit in found if hit.split(":", 1)[0] not in listed]
    assert not unlisted, "\n".join(unlisted)
