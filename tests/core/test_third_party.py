"""Third-party clients use the environment unmodified (issue 10): PettingZoo's registry, Tianshou's
collector over several environments, and end-of-game infos that stack and belong to one agent each."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest

from traitors_env import registration, traitors_aboard_v0
from traitors_env.agents import make_agent

INFO_KEYS = {"winner", "end_condition", "role", "chest_value", "target", "turns", "num_players"}


def finished_env(num_players: int, seed: int):
    """``env()`` right after the game's last decision: every agent terminated, none removed yet."""
    env = traitors_aboard_v0.env(num_players=num_players)
    env.reset(seed=seed)
    agent = make_agent("random", seed=seed)
    while not env.unwrapped.game.is_terminal:
        observation = env.observe(env.agent_selection)
        env.step(agent.act(observation["observation"], observation["action_mask"]))
    return env


# ---------------------------------------------------------------- PettingZoo's registry
def test_pettingzoo_make_builds_the_registered_environment():
    if not hasattr(pettingzoo, "make"):  # PettingZoo < 1.27 has no registry; the import must still work
        assert registration.REGISTERED is False
        pytest.skip(f"PettingZoo {pettingzoo.__version__} has no registry")
    assert registration.REGISTERED is True
    env = pettingzoo.make("aec", "traitors_aboard_v0", num_players=4, claims=False)
    assert env.unwrapped.metadata["name"] == "traitors_aboard_v0"
    assert env.possible_agents == [f"player_{i}" for i in range(4)] and not env.unwrapped.config.claims
    env.reset(seed=3)  # the wrapped env(), as the public module builds it: the same game as env()
    twin = traitors_aboard_v0.env(num_players=4, claims=False)
    twin.reset(seed=3)
    assert env.unwrapped.game.fingerprint() == twin.unwrapped.game.fingerprint()
    assert type(env) is type(twin)
    assert pettingzoo.make("aec", "traitors_aboard_v0").possible_agents == [f"player_{i}" for i in range(5)]


def test_registration_degrades_gracefully_without_a_registry(monkeypatch):
    """PettingZoo 1.24–1.26 have no ``register``: registering says so and raises nothing."""
    monkeypatch.delattr(pettingzoo, "register", raising=False)
    assert registration.register_environments() is False


# ---------------------------------------------------------------- end-of-game infos
@pytest.mark.parametrize("num_players", [3, 5, 8])
def test_end_of_game_info_is_scalars_and_the_full_result_is_on_the_unwrapped_env(num_players):
    env = finished_env(num_players, seed=num_players)
    result = env.unwrapped.result
    assert set(result) >= {"roles", "chest"} and len(result["roles"]) == num_players
    for seat, agent in enumerate(env.possible_agents):
        info = env.unwrapped.infos[agent]
        assert set(info) == INFO_KEYS
        assert all(isinstance(value, (str, int)) for value in info.values()), info
        assert info["role"] == result["roles"][seat] and info["num_players"] == num_players
        for key in INFO_KEYS - {"role", "num_players"}:
            assert info[key] == result[key]
    assert env.unwrapped.result is not result  # a new dict each time: nobody can change the game's record


def test_result_is_hidden_until_the_game_ends():
    env = traitors_aboard_v0.raw_env(num_players=3)
    assert env.result is None
    env.reset(seed=0)
    assert env.result is None and env.infos["player_0"] == {}


def test_end_of_game_infos_of_many_games_stack_into_arrays():
    """What a vectorized collector does with the infos of several envs (Tianshou's ``Batch``, ``np.stack``):
    every key gives a flat array of a plain dtype, whatever the table size and the chest."""
    infos = [finished_env(n, seed).unwrapped.infos[f"player_{seed % n}"] for n in (3, 5, 8) for seed in range(4)]
    assert len({frozenset(info) for info in infos}) == 1
    for key in INFO_KEYS:
        column = np.array([info[key] for info in infos])
        assert column.shape == (len(infos),) and column.dtype != object, key


def containers(value, found=None) -> dict[int, object]:
    """Every list, dict or array reachable from ``value``, by id (what a change through one reference shows in all)."""
    found = {} if found is None else found
    if isinstance(value, (list, dict, set, np.ndarray)):
        found[id(value)] = value
        for item in value.values() if isinstance(value, dict) else value:
            containers(item, found)
    return found


def assert_nothing_shared(*infos) -> None:
    seen: dict[int, int] = {}
    for index, info in enumerate(infos):
        for key in containers(info):
            assert seen.setdefault(key, index) == index, "two infos share a mutable object"


def test_each_agent_has_its_own_end_of_game_info():
    """After a 3-player game, changing ``player_0``'s info changes no other agent's, nor the result."""
    env = finished_env(3, seed=1)
    infos = env.unwrapped.infos
    before = {agent: dict(info) for agent, info in infos.items()}
    assert_nothing_shared(*infos.values(), env.unwrapped.result)
    infos["player_0"]["winner"] = "X"
    infos["player_0"]["extra"] = []
    assert infos["player_1"] == before["player_1"] and infos["player_2"] == before["player_2"]
    assert env.unwrapped.result["winner"] == before["player_0"]["winner"]


def test_the_sharing_check_has_teeth():
    """The issue's case: a shallow copy of one result per agent shares its ``roles`` list."""
    result = {"winner": "Pirate", "roles": ["Pirate", "Pirate", "Mutineer"]}
    with pytest.raises(AssertionError, match="share"):
        assert_nothing_shared(dict(result), dict(result))


def test_team_env_end_of_game_info_is_its_own():
    """``TeamEnv``'s last info of a game: the env's scalars plus the learner's figures, shared with nothing."""
    pytest.importorskip("sb3_contrib")
    from training.agents import OpponentPool
    from training.team_env import TeamEnv

    env = TeamEnv("pirates", OpponentPool({"random": 1.0}, (), seed=0), player_counts=[3, 5])
    rng = np.random.default_rng(0)
    ends = []
    env.reset(seed=2)
    while len(ends) < 4:
        _, _, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if terminated:
            raw = env._env  # the raw env of the game just played
            ends.append(info)
            assert set(info) >= INFO_KEYS | {"won", "learner_decisions", "opponent"}
            assert info["role"] == "Pirate" and info["won"] == (info["winner"] == "Pirate")
            assert_nothing_shared(info, *raw.infos.values(), *ends[:-1])
            info["winner"] = "X"
            assert all(other["winner"] != "X" for other in raw.infos.values())
            env.reset()
# ---------------------------------------------------------------- Tianshou
def test_tianshou_collector_runs_over_several_environments():
    """Tianshou's multi-agent collector stacks the infos of its envs at every step; it failed on
    ``info["chest"]`` (a list of varying length). Several envs, random masked policies, no wrapper of ours."""
    pytest.importorskip("tianshou")
    from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    def build():
        return PettingZooEnv(traitors_aboard_v0.env(num_players=3))

    envs = DummyVectorEnv([build] * 4)
    envs.seed(list(range(4)))
    prototype = build()
    random_policy = MARLRandomDiscreteMaskedOffPolicyAlgorithm.Policy(prototype.action_space)
    policy = MultiAgentPolicy(dict.fromkeys(prototype.agents, random_policy))
    collector = Collector(policy, envs, VectorReplayBuffer(4_000, 4))
    collector.reset()
    stats = collector.collect(n_episode=12)
    assert stats.n_collected_episodes == 12
    winners = collector.buffer.info.winner[collector.buffer.done]
    assert len(winners) >= 12 and set(winners) <= {"Pirate", "Mutineer"}
