"""Reproducible RLlib runs (issue 14): the same config and seed train the same weights and report the same figures.

What the seed fixes (training/rllib/): the deals of every sub-env of every env runner (``GameMasterEnv``
mixes the env runner index into RLlib's per-sub-env seed), the matchup of every episode (drawn from a
generator per sub-env by ``GameCallbacks.on_episode_created``, not from RLlib's random episode ids),
torch's and numpy's global generators (RLlib's ``debugging(seed=...)``: learner and each env runner),
the bots' generators. With a fixed number of env runners: RLlib's synchronous sampling gathers each
round from every env runner in order, each a fixed fragment (see README, "Reproducibility").
Skipped without the ``rllib`` extra.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
pytest.importorskip("PIL")

from rllib_helpers import TINY, rllib_config, running_local_ray  # noqa: E402

from training.config import config_from_dict  # noqa: E402
from training.rllib.runner import MODULE_DIR, TEAMS, train_rllib  # noqa: E402
from training.storage import RunFolder  # noqa: E402

#: Figures of state.json that measure time, not what was sampled or trained.
TIMING = ("seconds", "learner_steps_per_second", "game_decisions_per_second", "episodes_per_node")


@pytest.fixture
def local_ray():
    with running_local_ray():
        yield


def test_sub_envs_of_different_env_runners_deal_different_games():
    """RLlib seeds sub-env i of env runner w with seed + w + i, so (w=1, i=0) and (w=0, i=1) get the same number; the
    game master mixes in the env runner's index (RLlib's EnvContext), so they deal different games, and the same
    runner and seed deal the same games again."""
    from ray.rllib.env.env_context import EnvContext

    from training.rllib.env import GameMasterEnv

    def deals(worker: int, seed: int) -> list:
        env = GameMasterEnv(EnvContext({"player_counts": [3, 5, 8]}, worker_index=worker))
        observation, _ = env.reset(seed=seed)
        games = [(tuple(env.game.roles), next(iter(observation.values()))["observations"].tobytes())]
        for _ in range(3):
            observation, _ = env.reset()
            games.append((tuple(env.game.roles), next(iter(observation.values()))["observations"].tobytes()))
        return games

    assert deals(1, 7) == deals(1, 7)
    assert deals(1, 7) != deals(0, 7)


def _train(tmp_path, name: str, seed: int, **rllib):
    data = rllib_config(tmp_path, **rllib).model_dump(mode="json")
    data.update(name=name, seed=seed)
    return train_rllib(config_from_dict(data))


def _weights(run, generation: int) -> dict:
    return {
        team: pickle.loads((run.generation_dir(generation) / MODULE_DIR / team / "module_state.pkl").read_bytes())
        for team in TEAMS
    }


def _figures(run) -> list[dict]:
    history = json.loads(run.state_path.read_text())["history"]
    return [{k: v for k, v in record.items() if k not in TIMING} for record in history]


def _same(a: dict, b: dict) -> bool:
    return all(a[t].keys() == b[t].keys() and all(np.array_equal(a[t][k], b[t][k]) for k in a[t]) for t in a)


def _check(tmp_path, **rllib) -> None:
    first, again, other = (_train(tmp_path, name, seed, **rllib) for name, seed in (("a", 0), ("b", 0), ("c", 1)))
    for generation in (0, 1):
        assert _same(_weights(first, generation), _weights(again, generation))
    assert _figures(first) == _figures(again)
    assert _figures(first)[0]["episodes"] > 0 and _figures(first)[0]["win_rates"]  # figures that can differ
    assert not _same(_weights(first, 1), _weights(other, 1))
    assert _figures(first) != _figures(other)


def test_same_seed_same_weights_and_figures_in_process(tmp_path, local_ray):
    """configs/rllib_tiny.yaml (env runner in-process, 2 sub-envs), two iterations, three runs: the two with seed 0
    save identical team weights after each iteration and identical per-iteration figures (episodes, win rates,
    returns, losses); seed 1 gives other weights and figures."""
    _check(tmp_path)


@pytest.mark.slow
def test_same_seed_same_weights_and_figures_with_two_remote_env_runners(tmp_path, local_ray):
    """As above with two remote env runners (Ray actors): still identical for the same seed and runner count."""
    _check(tmp_path, num_env_runners=2)


@pytest.mark.slow
def test_two_traitors_train_commands_train_the_same_weights(tmp_path):
    """Two ``traitors-train --config configs/rllib_tiny.yaml`` processes, each with its own randomised string
    hashing (no PYTHONHASHSEED given): the command pins the hash seed (RLlib orders a team's batch rows by a set
    of agent ids), so both save the same weights and figures."""
    command = shutil.which("traitors-train", path=os.path.dirname(sys.executable))
    assert command, "traitors-train is installed beside this Python"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}
    env["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # a local Ray on loopback only
    runs = []
    for name in ("first", "second"):
        args = [command, "--config", str(TINY), "--output-dir", str(tmp_path), "--name", name, "--no-eval"]
        done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        runs.append(RunFolder(tmp_path / name))
    for generation in (0, 1):
        assert _same(_weights(runs[0], generation), _weights(runs[1], generation))
    assert _figures(runs[0]) == _figures(runs[1])


def test_traitors_train_prints_a_notice_once_though_it_pins_the_hash_seed(tmp_path):
    """``python -m training.train`` (the command, no PYTHONHASHSEED given) re-executes itself with the hash seed
    pinned; a notice of the command (here: keeping the run's 3 generations over the config file's 2 on --resume)
    appears once, not once per image. Unbuffered output, as on a terminal: a pipe's buffer would otherwise hide a
    second copy. The saved run is complete, so no Ray starts."""
    from training.config import dump_config

    data = rllib_config(tmp_path).model_dump(mode="json")
    data["training"]["generations"] = 3
    run = RunFolder(tmp_path / data["name"])
    run.path.mkdir()
    run.config_path.write_text(dump_config(config_from_dict(data)))
    run.write_state({"completed_generations": 3, "history": []})
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONHASHSEED", "RAY_ADDRESS")}
    env["PYTHONUNBUFFERED"] = "1"
    args = [sys.executable, "-m", "training.train", "--config", str(TINY), "--output-dir", str(tmp_path)]
    done = subprocess.run([*args, "--resume", "--trust-checkpoint", "--no-eval"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.count("keeping training.generations = 3") == 1, done.stdout
    assert done.stdout.count("nothing to train") == 1, done.stdout
