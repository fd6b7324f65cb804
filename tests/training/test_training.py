"""Team training: the learner's gymnasium wrapper, frozen snapshots, configs, train/resume/evaluate.

No test asserts a learning result (that is measured by ``traitors-train --config configs/quick.yaml``).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from training.agents import OpponentPool  # noqa: E402
from training.config import ConfigError, config_from_dict, load_config  # noqa: E402
from training.evaluate import evaluate_run, wilson_interval  # noqa: E402
from training.evaluate import main as eval_main  # noqa: E402
from training.storage import RunFolder  # noqa: E402
from training.team_env import IllegalOpponentActionError, TeamEnv  # noqa: E402
from training.train import RunError, train  # noqa: E402
from training.train import main as train_main  # noqa: E402
from traitors_env.agents import make_agent  # noqa: E402
from traitors_env.agents.checkpoint import OBS_SCALE, FrozenPolicy, PolicyLoadError  # noqa: E402
from traitors_env.games.traitors_aboard import actions as A  # noqa: E402
from traitors_env.games.traitors_aboard.cards import CardKind, EndCondition, Role  # noqa: E402
from traitors_env.games.traitors_aboard.engine import GameState  # noqa: E402
from traitors_env.games.traitors_aboard.observation import piece  # noqa: E402

P, M = Role.PIRATE, Role.MUTINEER
PLUS, ZERO, MINUS, PLANK = CardKind.LOOT_PLUS_1, CardKind.LOOT_ZERO, CardKind.LOOT_MINUS_2, CardKind.PLANK
CONFIGS = Path(__file__).resolve().parents[2] / "configs"


# ---------------------------------------------------------------- helpers
class CheckedAgent:
    """Wraps an agent; fails the test if the wrapper ever hands it a position where it is not to act,
    or if it would be stepped with an action outside its mask; records its decisions."""

    def __init__(self, agent, team: Role):
        self.agent = agent
        self.team = team
        self.decisions = 0

    def act(self, observation, action_mask):
        assert action_mask.any(), "an opponent was asked to act with an empty action mask"
        assert piece(observation, "role")[self.team] == 1.0, "an opponent got an observation of the other team"
        action = self.agent.act(observation, action_mask)
        assert action_mask[action] == 1, f"opponent chose illegal action {action}"
        self.decisions += 1
        return action


class FixedPool:
    """A pool that always draws the same agent (tests only)."""

    def __init__(self, agent):
        self.agent = agent

    def draw(self, rng):
        return "fixed", self.agent


class Scripted:
    """Plays ``preferred`` actions in order when legal, else the first legal action."""

    def __init__(self, *preferred: int):
        self.preferred = preferred

    def act(self, observation, action_mask):
        for action in self.preferred:
            if action_mask[action]:
                return action
        return int(np.flatnonzero(action_mask)[0])


def first_legal_not_open(mask: np.ndarray) -> int:
    legal = np.flatnonzero(mask)
    rest = legal[legal != A.OPEN_CHEST]
    return int(rest[0] if len(rest) else legal[0])


def tiny_config(tmp_path: Path, **overrides) -> dict:
    data = {
        "name": "tiny",
        "seed": 3,
        "output_dir": str(tmp_path / "runs"),
        "env": {"player_counts": [3, 5, 8]},
        "training": {"generations": 1, "steps_per_team": 128, "n_envs": 2, "vec_env": "dummy", "progress_bar": False},
        "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
        "evaluation": {"games": 4, "games_per_generation": 6, "player_counts": [3, 6], "workers": 1},
    }
    for section, values in overrides.items():
        if isinstance(values, dict):
            data[section] = {**data.get(section, {}), **values}
        else:
            data[section] = values
    return data


# ---------------------------------------------------------------- the wrapper: rewards at the end of the game
def test_r17_opponent_plank_overboard_ends_game_learner_mutineer_gets_win():
    """3 players, seat 1 (Pirate) has 2 Planks; the learner (Mutineer, seat 2) plays, then the
    opponent Pirate on seat 0 Planks seat 1: overboard, 1 Pirate vs 1 Mutineer (R11, R12) —
    the game ends on the opponent's move and the learner's last step carries +1 (R17)."""
    state = GameState.from_position(
        3,
        roles=[P, P, M],
        hands=[(PLANK, ZERO, ZERO), (PLUS, ZERO, MINUS), (PLUS, ZERO, MINUS)],
        draw_pile=[ZERO] * 6,
        planks=[0, 2, 0],
        current_player=2,
    )
    opponent = CheckedAgent(Scripted(A.plank_action(1), A.CLAIM_NONE), P)
    env = TeamEnv("mutineers", FixedPool(opponent), player_counts=[3])
    obs, _ = env.reset(seed=0, options={"position": state})
    assert env.learner_seats == {2}
    rewards, steps, terminated = [], 0, False
    while not terminated:
        obs, reward, terminated, truncated, info = env.step(A.loot_action(ZERO, ZERO) if steps == 0 else A.CLAIM_NONE)
        rewards.append(reward)
        steps += 1
    game = env.game
    assert game.end_condition == EndCondition.MUTINEERS_NOT_OUTNUMBERED
    assert game.history[-1][0] == 0, "the game must end on the opponent's decision"
    assert rewards == [0.0, 1.0] and steps == 2  # loot + claim, then the terminal reward
    assert info["won"] and info["learner_decisions"] == 2
    assert rewards[-1] == game.returns()[2]


def test_r17_learner_pirate_thrown_overboard_by_opponent_gets_loss():
    """The learner plays both Pirates (seats 0, 1); the Mutineer opponent Planks seat 1 (third
    Plank): 1 Pirate vs 1 Mutineer, the Mutineers win (R12); the learner's last transition gets −1,
    also for the seat that went overboard (R11, R17)."""
    state = GameState.from_position(
        3,
        roles=[P, P, M],
        hands=[(PLUS, ZERO, MINUS), (PLUS, ZERO, MINUS), (PLANK, ZERO, MINUS)],
        draw_pile=[ZERO] * 6,
        planks=[0, 2, 0],
        current_player=0,
    )
    # The Mutineer on seat 2 reaches seat 1 at offset 2.
    env = TeamEnv("pirates", FixedPool(CheckedAgent(Scripted(A.plank_action(2), A.CLAIM_NONE), M)), player_counts=[3])
    env.reset(seed=0, options={"position": state})
    assert env.learner_seats == {0, 1}
    terminated, rewards = False, []
    while not terminated:
        obs, reward, terminated, _, info = env.step(first_legal_not_open(env.action_masks()))
        rewards.append(reward)
    game = env.game
    assert not game.aboard[1] and game.winner == M
    assert game.end_condition == EndCondition.MUTINEERS_NOT_OUTNUMBERED
    assert game.history[-1][0] == 2
    assert rewards[-1] == -1.0 and all(r == 0.0 for r in rewards[:-1])
    assert rewards[-1] == game.returns()[0] == game.returns()[1]
    assert not info["won"]


def test_r03_opponent_opens_chest_learner_mutineer_gets_loss():
    """The chest holds 5 × +1 (target 5 at 3 players); after the learner's turn the opponent
    Pirate opens it (R03): Pirates win; the learner's last step gets −1."""
    state = GameState.from_position(
        3,
        roles=[M, P, P],
        hands=[(PLUS, ZERO, MINUS)] * 3,
        draw_pile=[MINUS] * 6,
        chest=[(PLUS, 1, PLUS)] * 5,
        current_player=0,
    )
    env = TeamEnv("mutineers", FixedPool(CheckedAgent(Scripted(A.OPEN_CHEST), P)), player_counts=[3])
    env.reset(seed=0, options={"position": state})
    env.step(A.loot_action(ZERO, ZERO))
    obs, reward, terminated, truncated, info = env.step(A.CLAIM_NONE)
    assert terminated and not truncated
    assert env.game.end_condition == EndCondition.CHEST_OPENED and env.game.history[-1] == (1, A.OPEN_CHEST)
    assert reward == -1.0 == env.game.returns()[0]
    assert info["winner"] == "Pirate"


@pytest.mark.parametrize("role", ["pirates", "mutineers"])
def test_every_learner_decision_is_one_transition_and_every_game_ends_with_its_reward(role):
    """Random games at every table size against checked heuristic and random opponents: one step per
    learner decision (counted in the engine's history), reward 0 until the last step, which equals the
    R17 return of every learner seat; opponents only ever act on their own seats with legal actions."""
    team = P if role == "pirates" else M
    rng = np.random.default_rng(1)
    ended_by_opponent = ended_by_overboard = 0
    for kind in ("heuristic", "random"):
        opponent = CheckedAgent(make_agent(kind, seed=2), 1 - team)
        env = TeamEnv(role, FixedPool(opponent), player_counts=[3, 4, 5, 6, 7, 8])
        obs, _ = env.reset(seed=5)
        for _game in range(40):
            steps, terminated = 0, False
            while not terminated:
                seat = env.game.current_player
                assert seat in env.learner_seats
                assert env.observation_space.contains(obs)
                assert obs[team] == 1.0  # the role piece: the learner sees its own team's seat
                mask = env.action_masks()
                assert mask.dtype == bool and mask.any()
                action = int(rng.choice(np.flatnonzero(mask)))
                obs, reward, terminated, truncated, info = env.step(action)
                steps += 1
                assert not truncated
                if not terminated:
                    assert reward == 0.0
            game = env.game
            learner_decisions = sum(1 for seat, _ in game.history if seat in env.learner_seats)
            assert steps == learner_decisions == info["learner_decisions"]
            for seat in env.learner_seats:
                assert reward == game.returns()[seat]
            assert info["won"] == (game.winner == team)
            ended_by_opponent += game.history[-1][0] not in env.learner_seats
            ended_by_overboard += game.end_condition in (
                EndCondition.ALL_MUTINEERS_OVERBOARD,
                EndCondition.MUTINEERS_NOT_OUTNUMBERED,
            )
            obs, _ = env.reset()
        assert opponent.decisions > 0
    # The sample must contain the cases under test, or the test proves nothing.
    assert ended_by_opponent > 0 and ended_by_overboard > 0


def test_opponent_illegal_action_is_refused_before_the_env_is_stepped():
    class Cheater:
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask == 0)[0])

    env = TeamEnv("mutineers", FixedPool(Cheater()), player_counts=[5])
    with pytest.raises(IllegalOpponentActionError, match="forbids"):
        for seed in range(20):  # some deal has an opponent act before the learner
            env.reset(seed=seed)
            while True:
                _, _, terminated, _, _ = env.step(first_legal_not_open(env.action_masks()))
                if terminated:
                    break


def test_learner_illegal_action_raises_naming_it():
    env = TeamEnv("pirates", FixedPool(make_agent("random", seed=0)), player_counts=[4])
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(ValueError, match=f"action {illegal}"):
        env.step(illegal)


def test_opponent_pool_drops_kinds_without_snapshots():
    pool = OpponentPool({"latest": 0.5, "past": 0.3, "heuristic": 0.2}, snapshots=[], seed=0)
    assert pool.kinds == ["heuristic"]
    pool = OpponentPool({"latest": 0.5, "past": 0.3, "heuristic": 0.2}, snapshots=["a.zip"], seed=0)
    assert pool.kinds == ["latest", "heuristic"] and pool.probabilities == pytest.approx([0.5 / 0.7, 0.2 / 0.7])
    with pytest.raises(ValueError, match="'nobody'"):
        OpponentPool({"nobody": 1.0})


# ---------------------------------------------------------------- frozen snapshots
def test_frozen_policy_matches_the_torch_policy(tmp_path):
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger

    env = TeamEnv("mutineers", OpponentPool({"random": 1.0}, seed=0), player_counts=[5])
    model = MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [32, 16]}, n_steps=32, batch_size=32, seed=0)
    model.set_logger(Logger(None, []))  # no /tmp/SB3-<date> folder
    model.learn(64)  # weights move away from their initialisation
    model.save(tmp_path / "m.zip")
    frozen = FrozenPolicy(tmp_path / "m.zip")
    obs, _ = env.reset(seed=3)
    for _ in range(20):
        mask = env.action_masks()
        raw = obs * OBS_SCALE  # the environment's unscaled observation
        with torch.no_grad():
            expected = model.policy.get_distribution(torch.as_tensor(obs[None]), action_masks=mask[None])
        got = frozen.probabilities(raw, mask)
        np.testing.assert_allclose(got, expected.distribution.probs.numpy()[0], atol=1e-5)
        assert got[~mask].sum() == 0
        obs, _, terminated, _, _ = env.step(int(np.argmax(got)))
        if terminated:
            obs, _ = env.reset()


def test_a_new_model_learns_without_leaving_a_log_folder_in_the_temp_dir(tmp_path, monkeypatch):
    """SB3 makes ``<tempdir>/SB3-<date>`` on every learn() of a model without a logger; ours sets a silent one."""
    import tempfile

    from training.sb3 import new_model

    monkeypatch.delenv("SB3_LOGDIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    config = config_from_dict({"name": "t", "ppo": {"n_steps": 32, "batch_size": 32, "net_arch": [8]}})
    model = new_model(config, TeamEnv("pirates", OpponentPool({"random": 1.0}, seed=0), player_counts=[5]), seed=0)
    model.learn(64)
    assert model.num_timesteps >= 64 and list(tmp_path.iterdir()) == []


def test_missing_checkpoint_is_a_clear_error(tmp_path):
    with pytest.raises(PolicyLoadError, match="does not exist"):
        FrozenPolicy(tmp_path / "nowhere.zip")
    (tmp_path / "junk.zip").write_text("not a zip")
    with pytest.raises(PolicyLoadError, match="not a MaskablePPO snapshot"):
        FrozenPolicy(tmp_path / "junk.zip")
    config = config_from_dict(tiny_config(tmp_path))
    with pytest.raises(PolicyLoadError, match="no completed generation"):
        evaluate_run(config, RunFolder(config.run_dir))
    assert eval_main(["--run", str(tmp_path / "nothing")]) == 2


# ---------------------------------------------------------------- configs
def test_shipped_configs_validate():
    names = sorted(p.name for p in CONFIGS.glob("*.yaml"))
    assert {"quick.yaml", "default.yaml", "tiny.yaml"} <= set(names)
    import yaml

    from traitors_env.core.registry import missing_extra

    for name in names:
        env = (yaml.safe_load((CONFIGS / name).read_text(encoding="utf-8")).get("env") or {})
        hint = missing_extra(env.get("name", "") if isinstance(env, dict) else str(env))
        if hint is not None:  # a game of an optional extra not installed here: the error says how to install it
            with pytest.raises(ConfigError, match=re.escape(hint)):
                load_config(CONFIGS / name)
            continue
        load_config(CONFIGS / name)


def test_unknown_key_is_named(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("name: x\nppo:\n  learning_rat: 0.001\n")
    with pytest.raises(ConfigError, match=r"ppo\.learning_rat: unknown key"):
        load_config(path)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("name: x\ntraining:\n  n_envs: four\n", "training.n_envs"),
        ("name: x\ntraining:\n  n_envs: '4'\n", "training.n_envs"),
        ("name: x\nenv:\n  claims: 1\n", "env.claims"),
        ("name: x\nppo:\n  learning_rate: 3e-4\n", "ppo.learning_rate"),  # YAML 1.1 reads 3e-4 as a string
        ("name: x\nenv:\n  player_counts: [2, 5]\n", "env"),
        ("name: x\ntraining:\n  vec_env: threads\n", "training.vec_env"),
        ("seed: 1\n", "name"),
        ("name: x\nseed: -3\n", "seed"),
    ],
)
def test_wrong_type_or_value_is_named(tmp_path, text, key):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert f"{path}: {key}" in str(error.value)


@pytest.mark.parametrize("name", [".", ".."])
def test_a_name_that_is_no_folder_of_its_own_is_refused(tmp_path, name):
    """``<output_dir>/..`` is the output folder's parent: ``--force`` would delete it (and all it holds)."""
    path = tmp_path / "bad.yaml"
    path.write_text(f"name: '{name}'\n")
    with pytest.raises(ConfigError, match=rf"{path}: name: .*{re.escape(repr(name))}"):
        load_config(path)


@pytest.mark.parametrize(
    "key", ["opponents.latest", "opponents.heuristic", "ppo.learning_rate", "ppo.ent_coef", "ppo.clip_range"]
)
def test_an_infinite_number_is_named(tmp_path, key):
    """Review finding: ``opponents.latest: .inf`` passed the schema and the run crashed in numpy (probabilities
    contain NaN) after making the run folder."""
    section, field = key.split(".")
    path = tmp_path / "bad.yaml"
    path.write_text(f"name: x\n{section}:\n  {field}: .inf\n")
    with pytest.raises(ConfigError, match=rf"{path}: {re.escape(key)}: .*finite"):
        load_config(path)


@pytest.mark.parametrize("widths", ["[0]", "[64, -5]"])
def test_a_layer_without_units_is_named(tmp_path, widths):
    """Review finding: ``net_arch: [0]`` trained a network with an empty layer (torch only warned); a negative width
    failed in torch after the run folder was made."""
    path = tmp_path / "bad.yaml"
    path.write_text(f"name: x\nppo:\n  net_arch: {widths}\n")
    with pytest.raises(ConfigError, match=rf"{path}: ppo\.net_arch\.\d: .*greater than or equal to 1"):
        load_config(path)


def test_every_table_size_out_of_range_is_named():
    """Review finding: ``player_counts: [2, 9]`` named only 2."""
    with pytest.raises(ConfigError, match="player_counts holds 2, 9; traitors_aboard_v0 has table sizes 3–8"):
        config_from_dict({"name": "x", "env": {"player_counts": [2, 5, 9]}})


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"env": {"player_counts": [3, 8], "mutineers_player_count_weights": [1.0]}}, r"got 1 for 2 table sizes"),
        ({"env": {"player_counts": [3, 8], "mutineers_player_count_weights": [0, 0]}}, "with a positive sum"),
        ({"backend": "rllib", "env": {"player_counts": [3, 8], "mutineers_player_count_weights": [1, 2]}}, "backend sb3"),
        # review finding: a NaN passed "w < 0" and "sum <= 0", an inf made every probability NaN
        ({"env": {"player_counts": [3, 8], "mutineers_player_count_weights": [float("nan"), 1]}}, "all finite"),
        ({"env": {"player_counts": [3, 8], "mutineers_player_count_weights": [float("inf"), 1]}}, "all finite"),
    ],
)
def test_bad_mutineers_player_count_weights_are_named(data, message):
    with pytest.raises(ConfigError, match=f"mutineers_player_count_weights.*{message}"):
        config_from_dict({"name": "x", **data})


def _role_env(weights):
    pool = OpponentPool({"random": 1.0}, seed=0, game="the_traitors")
    return TeamEnv("traitor", pool, player_counts=[3, 5, 6], player_count_weights=weights, game="the_traitors")


def _game_master_env(weights):
    pytest.importorskip("ray.rllib")
    pytest.importorskip("PIL")
    from training.rllib.env import GameMasterEnv

    return GameMasterEnv({"player_counts": [3, 5, 8], "player_count_weights": weights})


def _run_config(weights):
    return config_from_dict({"name": "w", "env": {"player_counts": [3, 5, 8], "player_count_weights": weights}})


# Every place that draws a table size refuses the same weights (one check, training/table_sizes.py); the RLlib env
# accepted NaN before it shared the check.
@pytest.mark.parametrize(
    "make",
    [
        lambda w: TeamEnv("pirates", OpponentPool({"random": 1.0}, seed=0), player_counts=[3, 5, 8], player_count_weights=w),
        _role_env,
        _game_master_env,
        _run_config,
    ],
    ids=["TeamEnv", "TeamEnv-the_traitors", "GameMasterEnv", "RunConfig"],
)
@pytest.mark.parametrize(
    ("weights", "why"),
    [
        ([float("nan"), 1.0, 1.0], "all finite"),
        ([float("inf"), 1.0, 1.0], "all finite"),
        ([-1.0, 1.0, 1.0], "all finite"),
        ([0, 0, 0], "with a positive sum"),
        ([1.0, 1.0], "got 2 for 3 table sizes"),
    ],
)
def test_every_table_size_draw_refuses_bad_weights_naming_them(make, weights, why):
    with pytest.raises(ValueError, match=rf"player_count_weights=\[.*must be one weight >= 0 per player count \[3, \d, \d\].*{why}"):
        make(weights)


def test_table_size_probabilities_are_the_weights_normalised():
    from training.table_sizes import table_size_probabilities

    np.testing.assert_allclose(table_size_probabilities([1, 3, 0], [3, 5, 8]), [0.25, 0.75, 0.0])
    np.testing.assert_allclose(table_size_probabilities(None, [3, 5, 8, 4]), [0.25] * 4)
    with pytest.raises(ValueError, match="player_counts is empty"):
        table_size_probabilities(None, [])


def test_table_size_weights_near_the_float64_maximum_still_give_probabilities():
    """Review finding: ``[1e308, 1e308]`` are finite weights >= 0 with a positive sum, but their sum overflowed to
    inf and every probability came out 0 (a draw then fails far from the setting)."""
    from training.table_sizes import table_size_probabilities

    np.testing.assert_allclose(table_size_probabilities([1e308, 1e308, 0], [3, 5, 8]), [0.5, 0.5, 0.0])
    np.testing.assert_allclose(table_size_probabilities([1.7e308, 1e-300], [3, 5]), [1.0, 0.0])


@pytest.mark.parametrize(
    ("weights", "shown"),
    [
        (np.array(1.0), "player_count_weights=1.0 "),
        (np.array([[1.0], [2.0]]), r"player_count_weights=\[\[1.0\], \[2.0\]\] "),
    ],
)
def test_table_size_weights_given_as_a_wrong_shaped_array_are_named(weights, shown):
    """Review finding: a 0-d array raised ``TypeError: iteration over a 0-d array`` while its error was being
    written, and an array's entries were shown as ``np.float64(...)`` / ``array(...)``."""
    from training.table_sizes import table_size_probabilities

    with pytest.raises(ValueError, match=shown + r"must be one weight >= 0 per player count \[3, 5\]"):
        table_size_probabilities(weights, [3, 5])


@pytest.mark.parametrize(
    ("weights", "got"),
    [([True, False, True], "bool"), (["1", "2", "3"], "str"), ([None, 1, 1], "NoneType, int"), ([1j, 1, 1], "complex")],
)
def test_table_size_weights_that_are_not_numbers_are_refused_as_the_run_config_refuses_them(weights, got):
    """Review finding: the run config (strict) refuses ``[true, false, true]`` and ``["1", "2", "3"]``, but TeamEnv,
    RoleEnv and the RLlib env turned them into weights through ``float()`` (a bool as a table-size weight)."""
    from training.table_sizes import table_size_probabilities

    with pytest.raises(ValueError, match=rf"per player count \[3, 5, 8\]: got {got} entries, expected ints or floats"):
        table_size_probabilities(weights, [3, 5, 8])
    with pytest.raises(ConfigError, match="player_count_weights"):
        _run_config(weights)
    np.testing.assert_allclose(table_size_probabilities(np.array([1, 3], np.int8), [3, 5]), [0.25, 0.75])


def _table_sizes_dealt(venv, config, team: str, resets: int) -> set[int]:
    """The table sizes of ``resets`` games dealt to ``team`` after the SB3 backend's ``configure_team``."""
    from training.sb3 import configure_team

    configure_team(venv, config, team, [], seed=1)
    env = venv.envs[0]
    sizes = set()
    for seed in range(resets):
        env.reset(seed=seed)
        sizes.add(env.unwrapped.game.num_players)
    return sizes


def test_the_pirates_get_uniform_table_sizes_back_after_the_mutineers_turn():
    """Review finding: with ``player_count_weights`` unset (uniform), ``configure_team`` passed ``None`` for the
    Pirates, which ``TeamEnv.configure`` reads as "unchanged": from generation 2 on the Pirates trained at the
    Mutineers' table sizes."""
    from stable_baselines3.common.vec_env import DummyVecEnv


    config = config_from_dict(
        {"name": "w", "env": {"player_counts": [3, 5, 8], "mutineers_player_count_weights": [0, 0, 1]}}
    )
    assert config.env.count_weights_for("pirates") == [1.0, 1.0, 1.0]
    venv = DummyVecEnv([lambda: TeamEnv("pirates", OpponentPool({"random": 1.0}, seed=0), player_counts=[3, 5, 8])])
    for team, expected in (("pirates", {3, 5, 8}), ("mutineers", {8}), ("pirates", {3, 5, 8})):
        assert _table_sizes_dealt(venv, config, team, 30) == expected, team


def test_the_mutineers_train_at_their_own_table_size_weights(tmp_path):
    """``env.mutineers_player_count_weights`` weighs the Mutineers' training games; the Pirates keep
    ``env.player_count_weights``. Here each team is given one table size and plays only that one."""
    from stable_baselines3.common.vec_env import DummyVecEnv


    config = config_from_dict(
        {
            "name": "w",
            "env": {
                "player_counts": [3, 5, 8],
                "player_count_weights": [0, 1, 0],
                "mutineers_player_count_weights": [0, 0, 1],
            },
        }
    )
    assert config.env.count_weights_for("pirates") == [0, 1, 0]
    assert config.env.count_weights_for("mutineers") == [0, 0, 1]
    venv = DummyVecEnv([lambda: TeamEnv("pirates", OpponentPool({"random": 1.0}, seed=0), player_counts=[3, 5, 8])])
    for team, size in (("mutineers", 8), ("pirates", 5)):
        assert _table_sizes_dealt(venv, config, team, 12) == {size}
    with pytest.raises(ValueError, match="one weight >= 0 per player count"):
        venv.envs[0].configure(player_count_weights=[1.0])


def test_negative_seed_is_refused_before_the_run_folder_is_made(tmp_path):
    """Review finding: ``--seed -1`` (or ``seed: -3``) crashed in numpy after making the run folder, which then
    refused a corrected rerun under the same name."""
    config = tmp_path / "tiny.yaml"
    config.write_text(f"name: neg\noutput_dir: {tmp_path / 'runs'}\n")
    assert train_main(["--config", str(config), "--seed", "-1", "--no-eval"]) == 2
    assert not (tmp_path / "runs" / "neg").exists()


@pytest.mark.parametrize(("backend", "module", "extra"), [("jax", "jax", "jax"), ("rllib", "ray", "rllib")])
def test_a_backend_without_its_extra_is_a_clear_error(tmp_path, capsys, monkeypatch, backend, module, extra):
    """Review finding: ``backend: jax`` (or ``rllib``) without its extra ended in a ModuleNotFoundError traceback."""
    monkeypatch.setitem(sys.modules, module, None)  # as if the extra were not installed: ``import`` fails
    config = tmp_path / "c.yaml"
    config.write_text(f"name: extra\nbackend: {backend}\noutput_dir: {tmp_path / 'runs'}\n")
    assert train_main(["--config", str(config), "--no-eval"]) == 2
    error = capsys.readouterr().err
    assert f"backend: {backend}" in error and f"pip install -e '.[{extra}]'" in error and repr(module) in error
    assert not (tmp_path / "runs" / "extra").exists()


def test_the_training_benchmark_without_the_jax_extra_is_a_clear_error(capsys, monkeypatch):
    """Review finding: ``traitors-bench --training`` without the jax extra ended in a ModuleNotFoundError traceback."""
    from training.bench import cli as bench_main

    monkeypatch.setitem(sys.modules, "jax", None)  # as if the extra were not installed
    with pytest.raises(SystemExit) as stop:
        bench_main(["--training", "--seconds", "0.1", "--quiet"])
    assert stop.value.code == 2
    error = capsys.readouterr().err
    assert "pip install -e '.[jax]'" in error and "--backends sb3" in error


@pytest.mark.parametrize("text", ["{garbage", "[]", '{"history": []}', '{"completed_generations": "2"}',
                                  '{"completed_generations": -1}', '{"completed_generations": true}'])
def test_corrupted_state_json_is_a_clear_error_and_keeps_the_run(tmp_path, capsys, text):
    """Review finding: ``--resume`` on a run whose state.json is damaged ended in a JSONDecodeError traceback."""
    config = tmp_path / "c.yaml"
    config.write_text(f"name: hurt\noutput_dir: {tmp_path / 'runs'}\n")
    run = tmp_path / "runs" / "hurt"
    (run / "checkpoints" / "gen_001").mkdir(parents=True)
    (run / "config.yaml").write_text(config.read_text())
    (run / "checkpoints" / "gen_001" / "pirates.zip").write_bytes(b"kept")
    (run / "state.json").write_text(text)
    assert train_main(["--config", str(config), "--resume", "--no-eval"]) == 2
    err = capsys.readouterr().err
    assert "state.json" in err and "completed_generations" in err and "Traceback" not in err
    assert eval_main(["--run", str(run)]) == 2
    assert "state.json" in capsys.readouterr().err
    assert (run / "state.json").read_text() == text  # nothing saved is touched
    assert (run / "checkpoints" / "gen_001" / "pirates.zip").read_bytes() == b"kept"


def test_missing_config_file_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.yaml")
    assert train_main(["--config", str(tmp_path / "nope.yaml")]) == 2


def test_wilson_interval_known_values():
    low, high = wilson_interval(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    assert wilson_interval(0, 20)[0] == 0.0 and wilson_interval(20, 20)[1] == 1.0


# ---------------------------------------------------------------- train, checkpoint, resume, evaluate
def test_tiny_run_trains_checkpoints_resumes_and_evaluates(tmp_path, capsys):
    import yaml

    config_path = tmp_path / "tiny.yaml"
    config_path.write_text(yaml.safe_dump(tiny_config(tmp_path)))
    assert train_main(["--config", str(config_path)]) == 0
    run = RunFolder(tmp_path / "runs" / "tiny")
    assert run.checkpoint(0, "pirates").is_file() and run.checkpoint(0, "mutineers").is_file()
    state = run.read_state()
    assert state["completed_generations"] == 1
    assert state["history"][0]["teams"]["pirates"]["learner_steps"] >= 128
    for name in ("evaluation.json", "evaluation.csv", "evaluation.md", "winrates.png", "progress.csv", "config.yaml"):
        assert (run.path / name).is_file(), name
    assert list((run.path / "tensorboard" / "pirates").glob("events.out.tfevents.*"))
    report = json.loads((run.path / "evaluation.json").read_text())
    # 2 table sizes × 3 × 3 policies, plus 9 pooled cells
    assert len(report["cells"]) == 27 and all(
        c["games"] == (8 if c["num_players"] == "all" else 4) for c in report["cells"]
    )
    assert "Pirates \\ Mutineers" in capsys.readouterr().out

    # Starting the same run again without --resume refuses to overwrite it.
    assert train_main(["--config", str(config_path)]) == 2
    # A kill during generation 2 left a partial folder and log rows behind.
    (run.generation_dir(1)).mkdir(parents=True)
    (run.checkpoint(1, "pirates")).write_text("half-written")
    with (run.path / "progress.csv").open("a") as handle:
        handle.write("2,pirates" + "," * 14 + "\n")
    assert train_main(["--config", str(config_path), "--resume", "--generations", "2", "--no-eval"]) == 0
    state = run.read_state()
    assert state["completed_generations"] == 2 and len(state["history"]) == 2
    assert FrozenPolicy(run.checkpoint(1, "pirates")).policy is not None  # rewritten, loadable
    rows = (run.path / "progress.csv").read_text().splitlines()[1:]
    assert {r.split(",")[0] for r in rows} == {"1", "2"} and not any(r.startswith("2,pirates,,") for r in rows)
    report = evaluate_run(load_config(run.config_path), run)
    assert report["generation"] == 2  # 1-based, like the checkpoint folders


def test_resume_refuses_a_config_that_changes_training(tmp_path):
    config = config_from_dict(tiny_config(tmp_path, evaluation={"games_per_generation": 0}))
    train(config)
    changed = config_from_dict(
        tiny_config(tmp_path, ppo={"learning_rate": 0.1}, evaluation={"games_per_generation": 0})
    )
    with pytest.raises(RunError, match="ppo.learning_rate"):
        train(changed, resume=True)
    with pytest.raises(RunError, match="nothing to resume"):
        train(config_from_dict(tiny_config(tmp_path, name="other")), resume=True)


# ---------------------------------------------------------------- the command lines: outputs, ranges, messages
@pytest.fixture(scope="module")
def two_generation_run(tmp_path_factory):
    """A tiny run trained for 1 generation from a config file, then extended with ``--resume --generations 2``;
    both calls evaluate. Returns (config file, run folder)."""
    import yaml

    tmp_path = tmp_path_factory.mktemp("cli")
    config_path = tmp_path / "tiny.yaml"
    config_path.write_text(yaml.safe_dump(tiny_config(tmp_path)))
    assert train_main(["--config", str(config_path)]) == 0
    assert train_main(["--config", str(config_path), "--resume", "--generations", "2"]) == 0
    return config_path, RunFolder(tmp_path / "runs" / "tiny")


def _main_files(run: RunFolder) -> dict[str, bytes]:
    names = ("evaluation.json", "evaluation.csv", "evaluation.md", "winrates.png")
    return {name: (run.path / name).read_bytes() for name in names}


def test_resume_generations_is_saved_and_a_finished_run_is_not_evaluated_again(two_generation_run, capsys):
    config_path, run = two_generation_run
    assert load_config(run.config_path).training.generations == 2
    assert load_config(config_path).training.generations == 1
    before = _main_files(run)
    capsys.readouterr()
    # Without --generations the config file's 1 must not shrink the run back; the evaluation is current.
    assert train_main(["--config", str(config_path), "--resume"]) == 0
    out = capsys.readouterr().out
    assert "keeping training.generations = 2" in out
    assert "--generations" in out and "not evaluated again" in out and "evaluation.md" in out
    assert "Pirates \\ Mutineers" not in out
    assert load_config(run.config_path).training.generations == 2
    assert run.read_state()["completed_generations"] == 2
    assert _main_files(run) == before


def test_non_default_evaluation_writes_suffixed_files(two_generation_run, capsys):
    _, run = two_generation_run
    before = _main_files(run)
    capsys.readouterr()
    assert eval_main(["--run", str(run.path), "--generation", "1", "--games", "3"]) == 0
    out = capsys.readouterr().out
    assert "evaluation_gen001_games3.json" in out
    report = json.loads((run.path / "evaluation_gen001_games3.json").read_text())
    assert report["generation"] == 1 and report["games_per_cell"] == 3
    assert (run.path / "evaluation_gen001_games3.csv").is_file()
    assert "generation 1, 3 games per cell" in (run.path / "evaluation_gen001_games3.md").read_text()
    # Newest generation with other games: also suffixed.
    assert eval_main(["--run", str(run.path), "--games", "2"]) == 0
    assert json.loads((run.path / "evaluation_gen002_games2.json").read_text())["generation"] == 2
    assert _main_files(run) == before
    assert not list(run.path.glob("winrates_*")) and not list(run.path.glob("*gen00*.png"))


def test_evaluation_markdown_explains_yes_no(two_generation_run):
    _, run = two_generation_run
    assert "95% Wilson intervals do not overlap" in (run.path / "evaluation.md").read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--games", "0"], "--games 0: expected at least 1"),
        (["--generation", "0"], "--generation 0 is out of range"),
        (["--generation", "3"], "completed 2 generations; expected 1–2"),
        (["--workers", "0"], "--workers 0"),
    ],
)
def test_eval_rejects_out_of_range_arguments(two_generation_run, capsys, args, message):
    _, run = two_generation_run
    before = sorted(p.name for p in run.path.iterdir())
    assert eval_main(["--run", str(run.path), *args]) == 2
    assert message in capsys.readouterr().err
    assert sorted(p.name for p in run.path.iterdir()) == before


def test_run_and_config_path_errors_say_what_is_wrong(tmp_path, capsys):
    (tmp_path / "runs" / "quick").mkdir(parents=True)
    assert eval_main(["--run", str(tmp_path / "runs" / "quik")]) == 2
    err = capsys.readouterr().err
    assert f"run folder {str(tmp_path / 'runs' / 'quik')!r} does not exist" in err and "quick" in err
    assert eval_main(["--run", str(tmp_path / "runs" / "quick")]) == 2
    assert "has no config.yaml" in capsys.readouterr().err
    assert train_main(["--config", str(tmp_path / "runs")]) == 2
    err = capsys.readouterr().err
    assert "is a directory" in err and "does not exist" not in err


def test_evaluation_progress_bar_counts_games(capsys):
    from training.agents import AgentSpec
    from training.evaluate import evaluate_matrix

    specs = {team: {"random": AgentSpec("random")} for team in ("pirates", "mutineers")}
    cells = evaluate_matrix(specs, [3, 4], games=2, seed=0, progress=True)
    assert [c.games for c in cells] == [2, 2, 4]
    err = capsys.readouterr().err
    assert "evaluation" in err and "4/4" in err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name: x\nbackend: rllib\nenv: the_traitors_v0\n", "backend: rllib trains zero-sum team games only"),
        ("name: x\nbackend: jax\nenv: the_traitors_v0\n", "backend: jax trains zero-sum team games only"),
        (
            "name: x\nbackend: rllib\nppo:\n  batch_size: 1000\nrllib:\n  train_batch_size: 200\n",
            "ppo.batch_size=1000 (the minibatch) is larger than rllib.train_batch_size=200",
        ),
    ],
)
def test_backend_settings_that_cannot_train_are_refused_before_a_run_starts(tmp_path, text, message):
    """Review findings: the_traitors_v0 with backend rllib once trained with SB3 unasked; a minibatch above RLlib's
    train batch failed inside RLlib after the run folder was made."""
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_config(path)


# ---------------------------------------------------------------- per-size learning checks (issue 13's target)
def test_size_checks_need_ten_points_and_intervals_apart_at_each_table_size():
    from training.evaluate import VS_HEURISTIC, Cell, markdown_report, size_checks

    def cells(n, trained_p, heuristic_p, trained_m_pirate_wins, games=500):
        return [
            Cell(n, "trained", "heuristic", games, trained_p),
            Cell(n, "heuristic", "heuristic", games, heuristic_p),
            Cell(n, "heuristic", "trained", games, trained_m_pirate_wins),
        ]

    # 3 players: Pirates 300 vs 200 of 500 (+20, apart); Mutineers win 400 vs 300 (+20).
    # 4 players: Pirates +9.6 (apart, but under 10 points); Mutineers no better than the heuristic.
    # 5 players: Pirates +10.0 over 40 games (intervals overlap); the Mutineers' cells are missing.
    table = cells(3, 300, 200, 100) + cells(4, 298, 250, 250) + [
        Cell(5, "trained", "heuristic", 40, 24),
        Cell(5, "heuristic", "heuristic", 40, 20),
    ]
    checks = size_checks(table)
    assert checks[3]["pirates"]["passes"] and checks[3]["mutineers"]["passes"]
    assert checks[3]["mutineers"]["difference"] == pytest.approx(0.2)  # won 400 vs 300 of 500 as Mutineers
    assert not checks[4]["pirates"]["passes"] and checks[4]["pirates"]["difference"] == pytest.approx(0.096)
    assert checks[4]["mutineers"]["difference"] == pytest.approx(0.0) and not checks[4]["mutineers"]["passes"]
    assert not checks[5]["pirates"]["passes"]  # +10 points, but 40 games leave the intervals overlapping
    assert "mutineers" not in checks[5]  # its cells were not played
    report = markdown_report(table, {}, "t")
    assert "| 3 | 60.0 [55.6, 64.2] | 40.0 [35.8, 44.4] | yes (+20.0)" in report
    assert {("trained", "heuristic"), ("heuristic", "trained")} <= set(VS_HEURISTIC)


def test_evaluation_cells_setting_is_checked():
    assert config_from_dict({"name": "x", "evaluation": {"cells": "vs_heuristic"}}).evaluation.cells == "vs_heuristic"
    with pytest.raises(ConfigError, match="cells"):
        config_from_dict({"name": "x", "evaluation": {"cells": "some"}})


def test_a_table_size_given_twice_is_refused():
    """Review finding: ``player_counts: [3, 3, 5]`` silently drew 3-player games twice as often, and
    ``evaluation.player_counts: [4, 4]`` evaluated 4 players twice."""
    with pytest.raises(ConfigError, match="player_counts holds 3 more than once.*player_count_weights"):
        config_from_dict({"name": "x", "env": {"player_counts": [3, 3, 5]}})
    with pytest.raises(ConfigError, match="evaluation.player_counts holds 4 more than once"):
        config_from_dict({"name": "x", "evaluation": {"player_counts": [4, 4]}})


def test_evaluation_deterministic_is_one_switch_or_one_per_team():
    both = config_from_dict({"name": "x", "evaluation": {"deterministic": True}})
    assert both.deterministic("pirates") and both.deterministic("mutineers")
    per_team = config_from_dict({"name": "x", "evaluation": {"deterministic": {"mutineers": True}}})
    assert per_team.deterministic("mutineers") and not per_team.deterministic("pirates")  # left out: samples
    with pytest.raises(ConfigError, match=r"\['pirate'\].*'pirates', 'mutineers'"):
        config_from_dict({"name": "x", "evaluation": {"deterministic": {"pirate": True}}})
    roles = config_from_dict({"name": "x", "env": "the_traitors_v0", "evaluation": {"deterministic": {"traitor": True}}})
    assert roles.deterministic("traitor") and not roles.deterministic("faithful")
    with pytest.raises(ConfigError, match="not a team of the_traitors_v0"):
        config_from_dict({"name": "x", "env": "the_traitors_v0", "evaluation": {"deterministic": {"pirates": True}}})
    with pytest.raises(ConfigError, match="deterministic"):
        config_from_dict({"name": "x", "evaluation": {"deterministic": [True, False]}})


def test_each_team_is_evaluated_with_its_own_switch(two_generation_run, monkeypatch):
    """``evaluation.deterministic: {pirates: true}``: the final evaluation and the per-generation check play the
    trained Pirates greedily and the trained Mutineers by sampling; the report records the setting."""
    import training.evaluate as evaluate_module

    config_path, run = two_generation_run
    config = load_config(config_path)
    config = config.model_copy(
        update={"evaluation": config.evaluation.model_copy(update={"deterministic": {"pirates": True}})}
    )
    seen = []

    class Played(Exception):
        pass

    def record(specs, *args, **kwargs):
        seen.append({team: specs[team]["trained"].deterministic for team in ("pirates", "mutineers")})
        raise Played

    monkeypatch.setattr(evaluate_module, "evaluate_matrix", record)
    with pytest.raises(Played):
        evaluate_run(config, run)
    with pytest.raises(Played):
        evaluate_module.vs_heuristic(config, {t: str(run.checkpoint(1, t)) for t in ("pirates", "mutineers")}, False)
    assert seen == [{"pirates": True, "mutineers": False}] * 2
