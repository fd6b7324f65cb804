"""Training ``the_traitors_v0`` through the generic game master, pool and loop: one seat of one role, a tiny run.

No test asserts a learning result (that is measured by ``traitors-train --config
configs/the_traitors_quick.yaml``; figures in the README).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from training.agents import OpponentPool  # noqa: E402
from training.config import ConfigError, config_from_dict, load_config  # noqa: E402
from training.evaluate import main as evaluate_main  # noqa: E402
from training.sb3 import snapshot_pairs  # noqa: E402
from training.team_env import IllegalOpponentActionError, TeamEnv  # noqa: E402
from training.train import main as train_main  # noqa: E402
from traitors_env.agents.checkpoint import PolicyLoadError, load_frozen_policy  # noqa: E402
from traitors_env.agents.policy import observation_scale_of  # noqa: E402
from traitors_env.agents.run_folder import RunFolder  # noqa: E402
from traitors_env.core.agent import RandomAgent  # noqa: E402
from traitors_env.games.the_traitors.cards import Role  # noqa: E402
from traitors_env.games.the_traitors.observation import encode, piece  # noqa: E402

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
GAME = "the_traitors"
OBS_SCALE = observation_scale_of(GAME)


def RoleEnv(role, pool, player_counts=(3, 4, 5, 6), **kwargs):  # noqa: N802 (the old class's name)
    """The game master of this game, one seat of ``role`` (``training.team_env.TeamEnv``)."""
    return TeamEnv(role, pool, player_counts=player_counts, game=GAME, **kwargs)


def RolePool(weights, snapshots=(), seed=None):  # noqa: N802
    return OpponentPool(weights, snapshots, seed=seed, game=GAME)


def seat_of(env) -> int:
    (seat,) = env.learner_seats
    return seat


class Recorder:
    """An opponent that plays at random and records the seats it was asked for."""

    def __init__(self):
        self.agent = RandomAgent(0)
        self.observations = []

    def act(self, observation, action_mask):
        self.observations.append(observation)
        return self.agent.act(observation, action_mask)


class FixedPool:
    def __init__(self, agent):
        self.agent = agent

    def draw(self, rng):
        return "fixed", self.agent


@pytest.mark.parametrize("role", ["faithful", "traitor"])
def test_learner_plays_one_seat_of_its_role_and_gets_its_own_reward(role):
    opponent = Recorder()
    env = RoleEnv(role, FixedPool(opponent), player_counts=(3, 4, 5, 6))
    observation, _ = env.reset(seed=1)
    rng = np.random.default_rng(0)
    games = 0
    while games < 40:
        game, seat = env.game, seat_of(env)
        assert (game.roles[seat] == Role.TRAITOR) == (role == "traitor")
        mask = env.action_masks()
        assert mask.sum() >= 2  # forced decisions are the game master's, never a transition
        assert np.array_equal(observation, encode(game, seat) / OBS_SCALE) and np.abs(observation).max() <= 1
        assert game.current_player == seat
        observation, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated:
            assert env.game.is_terminal and not truncated
            assert reward == env.game.returns()[seat] and info["won"] == env.game.winners[seat]
            games += 1
            observation, _ = env.reset()
        else:
            assert reward == 0.0
    # the opponents played every other seat, never the learner's view
    assert opponent.observations


def test_opponent_illegal_action_is_reported():
    class Bad:
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask == 0)[0])

    env = RoleEnv("faithful", FixedPool(Bad()), player_counts=(4,))
    with pytest.raises(IllegalOpponentActionError, match="forbids"):
        env.reset(seed=0)
        for _ in range(200):
            env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_bad_arguments():
    with pytest.raises(ValueError, match="role"):
        RoleEnv("pirate", FixedPool(None))
    with pytest.raises(ValueError, match="3–6"):
        RoleEnv("faithful", FixedPool(None), player_counts=(7,))
    with pytest.raises(ValueError, match="kind"):
        RolePool({"best": 1.0})
    with pytest.raises(PolicyLoadError, match="does not exist"):
        load_frozen_policy("/nonexistent.zip", "the_traitors")


def test_pool_draws_kinds_by_weight():
    pool = RolePool({"heuristic": 1.0, "random": 1.0, "latest": 5.0}, (), seed=0)
    assert pool.kinds == ["heuristic", "random"]  # no snapshot yet: latest drops out
    rng = np.random.default_rng(0)
    kinds = [pool.draw(rng)[0] for _ in range(200)]
    assert 60 < kinds.count("heuristic") < 140


def test_snapshot_pairs(tmp_path):
    """Pairs hold (side 0's, side 1's) snapshot: (Traitor, Faithful) here."""
    run = RunFolder(tmp_path)
    config = config_from_dict({"name": "x", "env": "the_traitors_v0"})
    assert snapshot_pairs(run, 0, "faithful", config) == []
    assert snapshot_pairs(run, 0, "traitor", config) == [(None, str(run.checkpoint(0, "faithful")))]
    pairs = snapshot_pairs(run, 2, "traitor", config)
    assert pairs[-1] == (str(run.checkpoint(1, "traitor")), str(run.checkpoint(2, "faithful")))
    assert len(pairs) == 3 and len(snapshot_pairs(run, 2, "faithful", config)) == 2


def test_config_env_by_name():
    config = config_from_dict({"name": "x", "env": "the_traitors_v0"})
    assert config.env.name == "the_traitors_v0" and config.env.player_counts == [3, 4, 5, 6]
    assert config_from_dict({"name": "x"}).env.name == "traitors_aboard_v0"
    with pytest.raises(ConfigError, match="3–6"):
        config_from_dict({"name": "x", "env": {"name": "the_traitors_v0", "player_counts": [5, 7]}})
    with pytest.raises(ConfigError, match="env.name"):
        config_from_dict({"name": "x", "env": {"name": "chess_v6"}})
    quick = load_config(CONFIGS / "the_traitors_quick.yaml")
    assert quick.env.name == "the_traitors_v0"


def test_tiny_run_trains_saves_and_evaluates(tmp_path, capsys):
    config = tmp_path / "tiny.yaml"
    config.write_text(
        "name: tt\nseed: 0\nenv: the_traitors_v0\n"
        "training: {generations: 2, steps_per_team: 128, n_envs: 2, progress_bar: false}\n"
        "ppo: {n_steps: 64, batch_size: 64, n_epochs: 1, net_arch: [16]}\n"
        "evaluation: {games: 4, player_counts: [3, 6], games_per_generation: 8, workers: 1}\n",
        encoding="utf-8",
    )
    assert train_main(["--config", str(config), "--output-dir", str(tmp_path / "runs")]) == 0
    run = tmp_path / "runs" / "tt"
    for generation in ("gen_001", "gen_002"):
        for role in ("faithful", "traitor"):
            assert (run / "checkpoints" / generation / f"{role}.zip").is_file()
    state = json.loads((run / "state.json").read_text())
    assert state["completed_generations"] == 2 and "vs_heuristic" in state["history"][-1]
    report = json.loads((run / "evaluation.json").read_text())
    assert set(report["report"]) == {"faithful", "traitor"}
    assert report["report"]["traitor"]["trained"]["games"] == 8
    assert "## Faithful" in capsys.readouterr().out
    policy = load_frozen_policy(run / "checkpoints" / "gen_002" / "traitor.zip", "the_traitors")
    env = RoleEnv("traitor", FixedPool(RandomAgent(0)), player_counts=(5,))
    env.reset(seed=0)
    probabilities = policy.probabilities(encode(env.game, seat_of(env)), env.game.legal_mask())
    assert probabilities.sum() == pytest.approx(1.0) and (probabilities[env.game.legal_mask() == 0] == 0).all()
    assert piece(encode(env.game, seat_of(env)), "role")[1] == 1
    # traitors-eval --run evaluates a run of this game too (another number of games: suffixed files)
    assert evaluate_main(["--run", str(run), "--games", "2"]) == 0
    assert json.loads((run / "evaluation_gen002_games2.json").read_text())["games_per_table"] == 2
    # resuming a finished run trains nothing more
    assert train_main(["--config", str(config), "--output-dir", str(tmp_path / "runs"), "--resume", "--no-eval"]) == 0
