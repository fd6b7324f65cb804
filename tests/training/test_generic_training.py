"""Training is generic over the game registry: a toy game defined only in tests trains through the same config,
game master and generation loop as the built-in games, and every game-dependent choice is read from its Game."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import toy_game  # noqa: E402

from training.agents import OpponentPool  # noqa: E402
from training.config import ConfigError, backend_problem, config_from_dict  # noqa: E402
from training.team_env import TeamEnv, parse_side  # noqa: E402
from traitors_env.core import load_game  # noqa: E402
from traitors_env.core.agent import RandomAgent  # noqa: E402
from traitors_env.core.registry import register_game, unregister_game  # noqa: E402

#: The toy game with individual rewards: a game master seats a learner at one seat of its side.
GENERAL_SUM = dataclasses.replace(
    toy_game.GAME,
    type=dataclasses.replace(toy_game.TYPE, short_name="toy_each", env_id="toy_each_v0", utility="general_sum"),
)


@pytest.fixture
def toy():
    register_game("toy", toy_game.GAME, override=True)
    register_game("toy_each", GENERAL_SUM, override=True)
    yield load_game("toy")
    unregister_game("toy")
    unregister_game("toy_each")


class FixedPool:
    def __init__(self, agent):
        self.agent = agent

    def draw(self, rng):
        return "fixed", self.agent


def test_the_config_reads_table_sizes_sides_and_backends_from_the_game(toy):
    config = config_from_dict({"name": "x", "env": "toy"})  # the short name works and is stored as the env id
    assert config.env.name == "toy_v0" and config.env.player_counts == [3, 4, 5]
    assert config.teams == ("spy", "others")
    with pytest.raises(ConfigError, match="player_counts holds 6; toy_v0 has table sizes 3–5"):
        config_from_dict({"name": "x", "env": {"name": "toy_v0", "player_counts": [3, 6]}})
    with pytest.raises(ConfigError, match="evaluation.player_counts holds 8; toy_v0 has table sizes 3–5"):
        config_from_dict({"name": "x", "env": "toy_v0", "evaluation": {"player_counts": [8]}})
    assert config_from_dict({"name": "x", "env": "toy_v0", "evaluation": {"deterministic": {"spy": True}}}).deterministic("spy")
    with pytest.raises(ConfigError, match="not a team of toy_v0"):
        config_from_dict({"name": "x", "env": "toy_v0", "evaluation": {"deterministic": {"pirates": True}}})
    with pytest.raises(ConfigError, match="sets the side 'mutineers', which toy_v0 does not have"):
        config_from_dict({"name": "x", "env": "toy_v0", "training": {"mutineers_steps": 10}})
    # a per-side budget by the game's own side keys (any game; mutineers_steps names one game's side)
    split = config_from_dict({"name": "x", "env": "toy_v0", "training": {"steps_per_team": 10,
                                                                         "steps_per_side": {"others": 30}}})
    assert (split.training.steps_for("spy"), split.training.steps_for("others")) == (10, 30)
    with pytest.raises(ConfigError, match=r"steps_per_side names \['evil'\], not a side of toy_v0"):
        config_from_dict({"name": "x", "env": "toy_v0", "training": {"steps_per_side": {"evil": 30}}})
    # backends: JAX needs a twin, RLlib and JAX need a zero-sum team game, SB3 trains any game
    with pytest.raises(ConfigError, match="toy_v0 has no JAX twin"):
        config_from_dict({"name": "x", "env": "toy_v0", "backend": "jax"})
    assert config_from_dict({"name": "x", "env": "toy_v0", "backend": "rllib"}).backend == "rllib"
    assert backend_problem(load_game("toy_each"), "sb3") is None
    assert "individual rewards" in backend_problem(load_game("toy_each"), "rllib")
    assert backend_problem(load_game("traitors_aboard"), "jax") is None


def test_the_game_master_seats_a_team_at_every_seat_of_its_side_and_an_individual_at_one(toy):
    rng = np.random.default_rng(0)
    for name, team_play in (("toy", True), ("toy_each", False)):
        game = load_game(name)
        env = TeamEnv("others", FixedPool(RandomAgent(1)), game=name)
        assert env.observation_space.shape == game.type.observation_shape
        obs, _ = env.reset(seed=3)
        for _ in range(30):
            state = env.game
            others = set(game.learner_seats(state, parse_side(game, "others")))
            assert env.learner_seats == others if team_play else len(env.learner_seats) == 1 and env.learner_seats < others
            terminated = False
            while not terminated:
                assert state.current_player in env.learner_seats and np.abs(obs).max() <= 1
                obs, reward, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            seat = min(env.learner_seats)  # a team's seats share one return
            assert reward == state.returns()[seat] and info["won"] == (reward > 0)
            obs, _ = env.reset()


def test_a_toy_game_trains_through_the_generic_loop(toy, tmp_path):
    from training.train import train

    config = config_from_dict({
        "name": "toy", "seed": 1, "output_dir": str(tmp_path), "env": "toy_v0",
        # bots only: a snapshot of a plug-in game is played through the agents' resolver (traitors_env.agents.spec)
        "opponents": {"latest": 0.0, "past": 0.0, "heuristic": 0.5, "random": 0.5},
        "training": {"generations": 2, "steps_per_team": 32, "n_envs": 1, "progress_bar": False},
        "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 1, "net_arch": [8]},
        "evaluation": {"games_per_generation": 0},
    })
    run = train(config)
    assert run.read_state()["completed_generations"] == 2
    assert sorted(p.name for p in run.generation_dir(1).iterdir()) == ["others.zip", "spy.zip"]
    assert [row.split(",")[1] for row in (run.path / "progress.csv").read_text().splitlines()[1:]] == [
        "spy", "others", "spy", "others"]


def test_the_pool_plays_a_side_pair_by_each_seats_side(toy):
    from training.agents import SideAgent

    game = load_game("toy_each")
    pool = OpponentPool({"heuristic": 1.0}, seed=0, game=game)
    assert set(pool._bots) == {"heuristic", "random"}  # individual rewards: the bots are built with the pool

    class Says:
        def __init__(self, action):
            self.action = action

        def act(self, observation, action_mask):
            return self.action

    agent = SideAgent(game, [Says(0), Says(1)])
    spy, other = np.zeros(game.type.observation_shape, np.float32), np.zeros(game.type.observation_shape, np.float32)
    spy[1], other[0] = 1.0, 1.0
    assert agent.act(spy, np.ones(5, np.int8)) == 0 and agent.act(other, np.ones(5, np.int8)) == 1
    assert OpponentPool({"heuristic": 1.0}, seed=0, game="toy")._bots == {}  # a team game: built when drawn


class FirstLegal:
    """A bot that always plays its lowest legal action (a policy that cloning can reproduce exactly)."""

    def __init__(self, seed=None):
        pass

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])


def _toy_run(tmp_path, env: str, generations: int, steps: int, n_steps: int, batch_size: int) -> dict:
    """A small SB3 run config of a toy game, as a dict: half heuristic, half random opponents, no evaluation."""
    return {"name": "toy", "seed": 1, "output_dir": str(tmp_path), "env": env,
            "opponents": {"latest": 0.0, "past": 0.0, "heuristic": 0.5, "random": 0.5},
            "training": {"generations": generations, "steps_per_team": steps, "n_envs": 2, "progress_bar": False},
            "ppo": {"n_steps": n_steps, "batch_size": batch_size, "n_epochs": 1, "net_arch": [16]},
            "evaluation": {"games_per_generation": 0}}


def test_warm_start_clones_a_bot_into_a_new_policy_before_generation_one(tmp_path):
    from training.clone import collect
    from training.sb3 import build_vec_env, configure_team
    from training.train import train

    register_game("toy_first", dataclasses.replace(
        toy_game.GAME, type=dataclasses.replace(toy_game.TYPE, short_name="toy_first", env_id="toy_first_v0"),
        bots={**toy_game.GAME.bots, "first": FirstLegal}), override=True)
    try:
        base = _toy_run(tmp_path, "toy_first_v0", generations=1, steps=32, n_steps=16, batch_size=32)
        with pytest.raises(ConfigError, match=r"warm_start.sides names \['evil'\], not a side of toy_first_v0"):
            config_from_dict({**base, "warm_start": {"sides": {"evil": 10}}})
        with pytest.raises(ConfigError, match="warm_start.bot='nobody' is not a bot of toy_first_v0"):
            config_from_dict({**base, "warm_start": {"sides": {"others": 10}, "bot": "nobody"}})
        config = config_from_dict({**base, "warm_start": {"sides": {"others": 400}, "bot": "first", "epochs": 30}})
        # the data: the bot's own actions, legal, with a return within [-1, 1] per decision
        venv = build_vec_env(config)
        game = config.game
        configure_team(venv, config, "others", [], 0)
        data = collect(venv, game, "first", 50, 0.9, 0)
        assert len(data["actions"]) >= 50 and data["masks"][np.arange(len(data["actions"])), data["actions"]].all()
        assert all(a == np.flatnonzero(m)[0] for a, m in zip(data["actions"], data["masks"]))
        assert np.abs(data["returns"]).max() <= 1
        run = train(config)
        stats = run.read_state()["warm_start"]
        assert set(stats) == {"others"} and stats["others"]["decisions"] >= 400
        assert stats["others"]["accuracy"] > 0.95  # the clone plays the bot's action (a random policy: far less)
    finally:
        unregister_game("toy_first")


def _accuse_the_spy(state, seat):
    """The toy game's answer in hindsight: an Other should accuse the Spy (read from the hidden deal)."""
    return None if seat == state.spy else (state.spy - seat) % state.num_players


def test_the_game_master_gives_the_hindsight_answer_in_the_step_info_never_in_the_observation():
    game = dataclasses.replace(toy_game.GAME, hindsight_action=_accuse_the_spy)
    env = TeamEnv("others", FixedPool(RandomAgent(0)), player_counts=[4], game=game, hindsight=True)
    labels = 0
    for seed in range(5):
        observation, _info = env.reset(seed=seed)
        done = False
        while not done:
            state, seat = env.game, env.game.current_player
            expected = (state.spy - seat) % 4
            observation, _reward, done, _truncated, info = env.step(0)
            assert info["hindsight_action"] == expected  # every Other's decision has one: the Spy's offset
            labels += 1
    assert labels >= 5 * 3
    # the answer is a training label only: the same table without it gives the same observations
    plain = TeamEnv("others", FixedPool(RandomAgent(0)), player_counts=[4], game=toy_game.GAME)
    with_label = TeamEnv("others", FixedPool(RandomAgent(0)), player_counts=[4], game=game, hindsight=True)
    a, _ = plain.reset(seed=3)
    b, _ = with_label.reset(seed=3)
    assert np.array_equal(a, b)
    a, _r, _d, _t, info_a = plain.step(1)
    b, _r, _d, _t, info_b = with_label.step(1)
    assert np.array_equal(a, b) and "hindsight_action" not in info_a and "hindsight_action" in info_b


def test_hindsight_fits_a_side_to_the_games_answer_after_each_generation(tmp_path, toy):
    from training.train import train

    # a learnable answer: always "accuse the seat on the left" (1); a fresh policy picks it about 1/4 of the time
    register_game("toy_hindsight", dataclasses.replace(
        toy_game.GAME, type=dataclasses.replace(toy_game.TYPE, short_name="toy_hindsight", env_id="toy_hindsight_v0"),
        hindsight_action=lambda state, seat: None if seat == state.spy else 1), override=True)
    try:
        base = _toy_run(tmp_path, "toy_hindsight_v0", generations=2, steps=256, n_steps=64, batch_size=64)
        with pytest.raises(ConfigError, match=r"hindsight.sides names \['evil'\], not a side of toy_hindsight_v0"):
            config_from_dict({**base, "hindsight": {"sides": ["evil"]}})
        with pytest.raises(ConfigError, match="names a side more than once"):
            config_from_dict({**base, "hindsight": {"sides": ["others", "others"]}})
        with pytest.raises(ConfigError, match="toy_v0 declares none"):
            config_from_dict({**base, "env": "toy_v0", "hindsight": {"sides": ["others"]}})
        config = config_from_dict({**base, "hindsight": {"sides": ["others"], "epochs": 20, "batch_size": 32}})
        state = train(config).read_state()
        for record in state["history"]:
            assert "hindsight" not in record["teams"]["spy"]  # only the sides named
            fit = record["teams"]["others"]["hindsight"]
            # every learner step of the Others has an answer: all of them are fitted or held out
            assert fit["decisions"] + fit["held_out"] == record["teams"]["others"]["learner_steps"]
            assert fit["held_out"] == int(record["teams"]["others"]["learner_steps"] * 0.1)
            assert fit["accuracy_after"] == 1.0
        assert state["history"][0]["teams"]["others"]["hindsight"]["accuracy_before"] < 0.6
    finally:
        unregister_game("toy_hindsight")


def test_sharpen_fits_the_posterior_raised_to_its_power(toy):
    from training.clone import clone_into, sampled_accuracy
    from training.config import config_from_dict as from_dict
    from training.sb3 import build_vec_env, new_model

    # one observation, answered 1 three times in four and 2 once: the posterior is (3/4, 1/4)
    obs = np.zeros((400, *toy.type.observation_shape), dtype=np.float32)
    masks = np.ones((400, toy.type.num_actions), dtype=bool)
    actions = np.array([1, 1, 1, 2] * 100, dtype=np.int64)
    data = {"obs": obs, "masks": masks, "actions": actions}
    config = from_dict({"name": "toy", "env": "toy_v0", "training": {"n_envs": 1}, "ppo": {"net_arch": [8]}})
    for sharpen, expected in ((1.0, 0.75), (3.0, 27 / 28)):  # (3/4)^3 / ((3/4)^3 + (1/4)^3)
        model = new_model(config, build_vec_env(config), seed=0)
        clone_into(model, data, epochs=150, batch_size=400, learning_rate=0.05, seed=0, sharpen=sharpen)
        probability_of_1 = sampled_accuracy(model, {**data, "actions": np.ones(400, dtype=np.int64)})
        assert probability_of_1 == pytest.approx(expected, abs=0.02)


def test_subproc_workers_that_cannot_load_a_game_registered_here_only_say_so(toy):
    from training.sb3 import build_vec_env

    # the forkserver workers start from the registry of a fresh process: a game registered at run time is unknown
    config = config_from_dict({"name": "toy", "env": "toy_v0", "training": {"n_envs": 2, "vec_env": "subproc"},
                               "ppo": {"net_arch": [8]}})
    with pytest.raises(RuntimeError, match=r"vec_env: subproc.*'toy_v0'.*register_game.*vec_env: dummy"):
        build_vec_env(config)
