"""Agents by spec for any registered game (issue 26): bots by the game's names, checkpoints of its spaces and sides.

The toy game of ``tests/toy_game.py`` (sides ``spy``/``others``, 8 features, 5 actions) is registered here, so these
tests show that nothing in ``traitors_env.agents`` is written for one game.
"""

from __future__ import annotations

import numpy as np
import pytest
import toy_game

from traitors_env.agents import SideAgent, make_agent
from traitors_env.agents.policy import PolicyLoadError, masked_probabilities, observation_scale, observation_scale_of
from traitors_env.agents.run_folder import RunFolder
from traitors_env.agents.spec import AgentSpecError, agent_maker, load_agent
from traitors_env.core.registry import load_game, register_game, unregister_game


@pytest.fixture(scope="module")
def toy():
    register_game("toy", toy_game.GAME)
    yield load_game("toy")
    unregister_game("toy")


def _observe(game, seed: int = 0, seat: int = 0):
    state = game.new_initial_state(game.type.default_players, seed, True)
    return game.encode(state, seat), state.legal_mask(), state


def test_bots_by_the_games_own_names(toy):
    label, make = agent_maker("heuristic", game="toy")
    observation, mask, _ = _observe(toy)
    assert label == "heuristic" and mask[make(0).act(observation, mask)]
    assert make(5).act(observation, mask) == make(5).act(observation, mask)  # same seed, same action
    assert isinstance(make_agent("random", 1, game=toy), toy.bots["random"])
    with pytest.raises(AgentSpecError, match=r"'genius' is neither a bot name of toy_v0 \(random, heuristic\)"):
        agent_maker("genius", game="toy")
    with pytest.raises(AgentSpecError, match="unknown game 'chess'"):
        agent_maker("random", game="chess")


def test_a_factory_plays_any_game(toy):
    label, agent = load_agent("traitors_env.core.agent:RandomAgent", seed=3, game=toy)
    observation, mask, _ = _observe(toy)
    assert label == "factory:traitors_env.core.agent:RandomAgent" and mask[agent.act(observation, mask)]


def test_observation_scale_comes_from_the_games_declared_bounds(toy):
    for name in ("traitors_aboard", "the_traitors", "toy"):
        game = load_game(name)
        expected = np.maximum(np.maximum(np.abs(game.layout.low), np.abs(game.layout.high)), 1.0).astype(np.float32)
        assert np.array_equal(observation_scale_of(name), expected)
        assert observation_scale_of(game) is observation_scale_of(game.type.env_id)  # computed once per game
    from traitors_env.agents import checkpoint
    from traitors_env.games.traitors_aboard.observation import OBS_HIGH, OBS_LOW

    assert np.array_equal(checkpoint.OBS_SCALE, observation_scale(OBS_LOW, OBS_HIGH))  # the default game's, as before


def test_side_agent_plays_the_toy_sides(toy):
    class Fixed:
        def __init__(self, action):
            self.action = action

        def act(self, observation, action_mask):
            return self.action

    observation, mask, state = _observe(toy, seed=4)
    side = SideAgent(Fixed(0), Fixed(1), game="toy")  # spy, others
    for seat in range(state.num_players):
        assert side.act(toy.encode(state, seat), mask) == (0 if seat == state.spy else 1)


# ---------------------------------------------------------------- checkpoints of the toy game
def _save_sb3(path, game, seed: int = 0):
    gymnasium = pytest.importorskip("gymnasium")
    sb3_contrib = pytest.importorskip("sb3_contrib")

    class Spaces(gymnasium.Env):
        observation_space = gymnasium.spaces.Box(game.layout.low, game.layout.high, dtype=np.float32)
        action_space = gymnasium.spaces.Discrete(game.type.num_actions)

        def reset(self, *, seed=None, options=None):
            return self.observation_space.sample(), {}

        def step(self, action):
            return self.observation_space.sample(), 0.0, True, False, {}

    model = sb3_contrib.MaskablePPO("MlpPolicy", Spaces(), policy_kwargs={"net_arch": [8]}, n_steps=32, batch_size=32,
                                    seed=seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    model.save(path)


def test_sb3_generation_and_run_folders_of_any_game(toy, tmp_path):
    run = RunFolder(tmp_path / "run")
    for index, side in enumerate(toy.type.sides):
        _save_sb3(run.checkpoint(0, side), toy, seed=index)
    run.write_state({"completed_generations": 1, "history": [{"generation": 1}]})
    label, make = agent_maker(str(run.path), game="toy")
    assert label == f"policy:{run.generation_dir(0)}" and isinstance(make(0), SideAgent)
    observation, mask, _ = _observe(toy)

    def actions(seed):
        agent = make(seed)
        return [agent.act(observation, mask) for _ in range(20)]

    assert actions(7) == actions(7) and all(mask[a] for a in actions(7))
    # one side's checkpoint plays every seat, with the game's spaces checked and its scale applied
    label, agent = load_agent(str(run.checkpoint(0, "spy")), seed=0, game="toy")
    assert label.startswith("policy:") and mask[agent.act(observation, mask)]
    probabilities = agent.policy.probabilities(observation, mask)
    assert probabilities.shape == (toy.type.num_actions,) and probabilities.sum() == pytest.approx(1.0)
    assert np.array_equal(agent.policy.obs_scale, observation_scale_of(toy)) and agent.policy.env_name == "toy_v0"
    # the same folder for another game: refused, naming the game it belongs to
    with pytest.raises(AgentSpecError, match=r"holds no pirates\.zip and mutineers\.zip.*toy_v0; use --game toy"):
        agent_maker(str(run.path), game="traitors_aboard")
    with pytest.raises(AgentSpecError, match=r"observations of shape \(8,\) and 5 actions; the_traitors_v0 has"):
        agent_maker(str(run.checkpoint(0, "spy")), game="the_traitors")


def test_jax_checkpoint_of_any_game(toy, tmp_path):
    pytest.importorskip("flax")
    from traitors_env.agents.jax_checkpoint import read_checkpoint, save_checkpoint

    rng = np.random.default_rng(0)
    size, actions = toy.type.observation_shape[0], toy.type.num_actions
    params = {"params": {"actor": {
        "hidden_0": {"kernel": rng.normal(size=(size, 4)).astype(np.float32), "bias": np.zeros(4, np.float32)},
        "out": {"kernel": rng.normal(size=(4, actions)).astype(np.float32), "bias": np.zeros(actions, np.float32)},
    }}}
    path = tmp_path / "spy.msgpack"
    save_checkpoint(path, params, {}, team="spy", net_arch=[4], activation="tanh", num_timesteps=0, game="toy")
    assert read_checkpoint(path, game="toy")["obs_size"] == size
    label, agent = load_agent(str(path), seed=0, game="toy")
    observation, mask, _ = _observe(toy, seed=2)
    x = np.tanh(observation / observation_scale_of(toy) @ params["params"]["actor"]["hidden_0"]["kernel"])
    expected = masked_probabilities(x @ params["params"]["actor"]["out"]["kernel"], mask)
    np.testing.assert_allclose(agent.policy.probabilities(observation, mask), expected, rtol=1e-5)
    with pytest.raises(PolicyLoadError, match="traitors_aboard_v0 has 1228 and 196"):
        read_checkpoint(path)  # the default game's spaces


def test_a_run_folder_with_no_completed_generation_says_why(tmp_path):
    run = RunFolder(tmp_path / "run")
    run.generation_dir(0).mkdir(parents=True)  # a training killed before its first generation was saved
    with pytest.raises(AgentSpecError, match="no generation completed yet \\(it has no state.json: its training"):
        agent_maker(str(run.path))
    run.write_state({"completed_generations": 0, "history": []})
    with pytest.raises(AgentSpecError, match="no generation completed yet \\(its state.json names none\\)"):
        agent_maker(str(run.path))
