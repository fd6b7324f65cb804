"""``env()``'s one wrapper layer (:class:`traitors_env.core.aec.ClassicWrapper`) behaves as PettingZoo's classic
stack it replaced: ``OrderEnforcingWrapper(ActionIndexWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(
raw_env, -1))))``, kept below as the reference. Random scripts of calls (legal, illegal and malformed actions,
observes, reads, resets) run on both must give the same values, errors, warnings and env state, for every
registered game and the toy game; then one test per semantic, stated on its own.
"""

from __future__ import annotations

import copy
import pickle
import random

import numpy as np
import pytest
import toy_game
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import BaseWrapper, OrderEnforcingWrapper

from traitors_env.core.actions import is_index, not_an_index
from traitors_env.core.aec import ClassicWrapper, wrap
from traitors_env.core.registry import load_game, registered_games


# ---------------------------------------------------------------- the reference: the four-wrapper stack
class ActionIndexWrapper(wrappers.BaseWrapper):
    """The previous ``traitors_env.core.aec.ActionIndexWrapper``, verbatim in behaviour."""

    def __init__(self, env, error):
        super().__init__(env)
        self._error = error

    def step(self, action) -> None:
        agent = self.agent_selection
        done = self.terminations[agent] or self.truncations[agent]
        if action is None and not done:
            raise self._error(
                f"action None is only for an agent that is done; {agent} is to act, legal actions: "
                f"{list(self.unwrapped.game.legal_actions())}"
            )
        if action is not None and not done:
            if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
                action = action.item()
            if not is_index(action, self.action_space(self.agent_selection).n):
                game = self.unwrapped.game
                raise self._error(
                    f"{not_an_index(action, self.action_space(self.agent_selection).n)} is not legal for "
                    f"{self.agent_selection}; legal actions: {list(game.legal_actions())}"
                )
        super().step(action)


def old_wrap(environment, error):
    environment = wrappers.TerminateIllegalWrapper(environment, illegal_reward=-1)
    environment = wrappers.AssertOutOfBoundsWrapper(environment)
    environment = ActionIndexWrapper(environment, error)
    return wrappers.OrderEnforcingWrapper(environment)


# ---------------------------------------------------------------- games and tables
def _games():
    games = [load_game(name) for name in registered_games() if name != "toy"] + [toy_game.GAME]
    return [(game, n) for game in games for n in sorted({game.type.min_players, game.type.default_players,
                                                        game.type.max_players})]


GAMES = _games()
IDS = [f"{game.type.short_name}-{n}p" for game, n in GAMES]


def pair(game, n: int):
    """(new env(), old four-wrapper stack) over two raw envs of the same game and table."""
    new = game.env(num_players=n)
    assert isinstance(new, ClassicWrapper)
    return new, old_wrap(game.raw_env(num_players=n), new._error)


# ---------------------------------------------------------------- comparing
def same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return type(a) is type(b) and a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def outcome(env, call):
    """``call(env)``'s value or error (type and message) and the PettingZoo warnings it logged."""
    EnvLogger.flush()
    try:
        value, error = call(env), None
    except Exception as caught:  # noqa: BLE001 (any error is part of the behaviour compared)
        value, error = None, (type(caught), str(caught))
    return value, error, list(EnvLogger.mqueue)


def raw_state(env) -> dict:
    """Everything the raw env holds that an agent or a trainer reads."""
    raw = env.unwrapped
    if raw.game is None:
        return {}
    state = {name: copy.deepcopy(getattr(raw, name, None)) for name in
             ("agents", "agent_selection", "rewards", "_cumulative_rewards", "terminations", "truncations", "infos")}
    state["observations"] = [raw.observe(agent) for agent in raw.agents]
    state["episode_seed"] = raw.episode_seed
    return state


def assert_same_call(new, old, call, label):
    got, expected = outcome(new, call), outcome(old, call)
    assert got[1] == expected[1], (label, got[1], expected[1])
    assert got[2] == expected[2], (label, got[2], expected[2])
    assert same(got[0], expected[0]), (label, got[0], expected[0])
    assert same(raw_state(new), raw_state(old)), label


# ---------------------------------------------------------------- random scripts
def bad_or_odd_action(rng: random.Random, mask: np.ndarray, n: int):
    legal = [int(a) for a in np.flatnonzero(mask)] or [0]
    illegal = [int(a) for a in np.flatnonzero(mask == 0)] or [0]
    a = rng.choice(legal)
    return rng.choice([
        a, a, a, a, a, a, rng.choice(illegal), n, -1, 10**20, float(a), True, False, str(a), None, [a],
        np.int64(a), np.int32(a), np.uint64(a), np.uint8(a), np.array(a), np.array(a, dtype=np.uint64),
        np.array(float(a)), np.array([a]), np.bool_(True), np.float32(a),
    ])


def script_op(rng: random.Random, env_for_mask, n_actions: int):
    """One random call, as a function of the env (drawn once, applied to both envs)."""
    raw = env_for_mask.unwrapped
    roll = rng.random()
    if roll < 0.02:
        seed = rng.choice([None, rng.randrange(1000)])
        return f"reset({seed})", lambda env: env.reset(seed=seed)
    if roll < 0.30:
        observe = rng.random() < 0.9
        return f"last({observe})", lambda env: env.last(observe)
    if roll < 0.36:
        agent = rng.choice(raw.possible_agents)
        return f"observe({agent})", lambda env: env.observe(agent)
    if roll < 0.42:
        name = rng.choice(["agents", "rewards", "terminations", "truncations", "infos", "agent_selection",
                           "num_agents", "max_num_agents", "_cumulative_rewards", "possible_agents", "_rng",
                           "_has_reset", "episode_seed", "result", "metadata", "render_mode"])
        return f"getattr({name})", lambda env: getattr(env, name)
    if raw.game is None or not raw.agents:
        action = rng.choice([0, None])
    elif raw.terminations[raw.agent_selection] or raw.truncations[raw.agent_selection]:
        action = rng.choice([None, None, None, None, 0, n_actions, "x", np.array(0), np.uint64(0)])
    else:
        action = bad_or_odd_action(rng, raw.observe(raw.agent_selection)["action_mask"], n_actions)
    return f"step({action!r})", lambda env: env.step(action)


@pytest.mark.parametrize("game,n", GAMES, ids=IDS)
def test_random_scripts_match_the_four_wrapper_stack(game, n):
    for seed in range(3):
        new, old = pair(game, n)
        rng = random.Random(seed)
        history = []
        for step in range(400):
            if step == 3:  # after a few calls before reset (which must fail alike), start the game
                assert_same_call(new, old, lambda env, seed=seed: env.reset(seed=seed), "reset")
            label, call = script_op(rng, new, game.type.num_actions)
            history.append(label)
            assert_same_call(new, old, call, history[-8:])


@pytest.mark.parametrize("game,n", GAMES, ids=IDS)
def test_agent_iter_loops_with_illegal_moves_match(game, n):
    """The standard AEC loop, a random illegal move in some games: the same agents, ``last()`` and errors."""
    new, old = pair(game, n)
    for env in (new, old):
        env.reset(seed=7)
    for episode in range(12):
        trace = []
        for env in (new, old):
            rng = random.Random(episode)
            seen = []
            for agent in env.agent_iter():
                observation, reward, termination, truncation, info = env.last()
                seen.append((agent, observation, reward, termination, truncation, copy.deepcopy(info)))
                if termination or truncation:
                    action = None
                else:
                    mask = observation["action_mask"]
                    pool = np.flatnonzero(mask == 0) if rng.random() < 0.02 and not mask.all() else np.flatnonzero(mask)
                    action = int(rng.choice(list(pool)))
                env.step(action)
            trace.append(seen)
            env.reset()
        assert same(trace[0], trace[1]), episode


# ---------------------------------------------------------------- one test per semantic
GAME_AT = [(game, game.type.default_players) for game in {g.type.short_name: g for g, _ in GAMES}.values()]
GAME_IDS = [game.type.short_name for game, _ in GAME_AT]


def started(game, n, seed=3):
    env = game.env(num_players=n)
    env.reset(seed=seed)
    return env


@pytest.mark.parametrize("game,n", GAME_AT, ids=GAME_IDS)
def test_one_layer_over_the_raw_env(game, n):
    env = game.env(num_players=n)
    assert isinstance(env, OrderEnforcingWrapper) and isinstance(env, BaseWrapper)
    assert env.env is env.unwrapped and not isinstance(env.unwrapped, BaseWrapper)
    assert type(env.unwrapped) is game.raw_env
    assert str(env) == game.type.env_id  # PettingZoo's classic envs: str(env) is the env's name


@pytest.mark.parametrize("game,n", GAME_AT, ids=GAME_IDS)
def test_order_enforcing_before_reset(game, n):
    env = game.env(num_players=n)
    for name in ("rewards", "terminations", "truncations", "infos", "agent_selection", "num_agents", "agents"):
        with pytest.raises(AttributeError, match=f"{name} cannot be accessed before reset"):
            getattr(env, name)
    for call, what in ((lambda: env.step(0), "step"), (lambda: env.observe("player_0"), "observe"),
                       (env.render, "render"), (env.state, "state"), (env.agent_iter, r"agent_iter\(\)")):
        with pytest.raises(AssertionError, match=f"reset\\(\\) needs to be called before {what}"):
            call()
    with pytest.raises(AttributeError, match="agent_selection cannot be accessed before reset"):
        env.last()
    assert env.possible_agents == [f"player_{i}" for i in range(n)]  # forwarded, readable before reset
    with pytest.raises(AttributeError, match="accessing private attribute '_rng' is prohibited"):
        env._rng  # noqa: B018


@pytest.mark.parametrize("game,n", GAME_AT, ids=GAME_IDS)
def test_agent_iter_needs_a_step_between_agents(game, n):
    env = started(game, n)
    iterator = iter(env.agent_iter())
    next(iterator)
    with pytest.raises(AssertionError, match="need to call step"):
        next(iterator)
    assert len(list(zip(range(3), iter(env.agent_iter(max_iter=0))))) == 0  # max_iter respected


@pytest.mark.parametrize("game,n", GAME_AT, ids=GAME_IDS)
def test_step_after_every_agent_is_done_only_warns(game, n):
    env = started(game, n)
    for _ in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        env.step(None if termination or truncation else int(np.flatnonzero(observation["action_mask"])[0]))
    EnvLogger.flush()
    env.step(0)  # no error: PettingZoo's warning
    assert set(EnvLogger.mqueue) == {"[WARNING]: step() called after all agents are terminated or truncated. "
                                     "Should reset() first."}


@pytest.mark.parametrize("game,n", GAME_AT, ids=GAME_IDS)
def test_illegal_move_ends_the_game_with_minus_one_for_the_offender(game, n):
    env = started(game, n)
    offender = env.agent_selection
    observation, *_ = env.last()
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    infos_before = copy.deepcopy(env.infos)
    EnvLogger.flush()
    env.step(illegal)
    assert EnvLogger.mqueue[0].startswith("[WARNING]: Illegal move made")
    assert all(env.terminations.values()) and all(env.truncations.values())
    assert env.rewards == {agent: (-1.0 if agent == offender else 0) for agent in env.possible_agents}
    assert env.infos == infos_before  # infos untouched, as PettingZoo's wrapper leaves them
    assert env.agent_selection == "player_0"  # the dead step from the first seat on
    assert not env.observe(offender)["action_mask"].any()
    rewards = {}
    for agent in env.agent_iter():
        _, reward, termination, truncation, _ = env.last()
        assert termination and truncation
        rewards[agent] = reward
        with pytest.raises(ValueError, match="only valid action is None"):
            env.step(0)  # an action of a dead agent: PettingZoo's error
        env.step(None)
    assert rewards == {agent: (-1 if agent == offender else 0) for agent in env.possible_agents}
    env.reset(seed=4)  # a new game forgets the illegal move
    assert not any(env.terminations.values()) and env.unwrapped.game is not None


@pytest.mark.parametrize("game,n", GAME_AT, ids=GAME_IDS)
def test_the_mask_judged_is_the_last_observed_or_a_fresh_one(game, n):
    """Stepping without observing first: the wrapper observes itself, as PettingZoo's does."""
    env = started(game, n)
    legal = [int(a) for a in np.flatnonzero(env.unwrapped.observe(env.agent_selection)["action_mask"])]
    env.step(legal[-1])  # no last() before: legal, played (an illegal move would truncate every agent)
    assert not any(env.truncations.values()) and env.unwrapped.game is not None
    observation, *_ = env.last()
    env.step(int(np.flatnonzero(observation["action_mask"] == 0)[0]))  # judged by the mask last() gave
    assert all(env.truncations.values())


@pytest.mark.parametrize("game,n", GAME_AT, ids=GAME_IDS)
@pytest.mark.parametrize("bad", [None, -1, 10**20, True, 1.0, "0", [0], np.float32(0), np.array(0.0), np.array([0])])
def test_an_action_that_is_no_index_is_a_clear_error(game, n, bad):
    env = started(game, n)
    agent = env.agent_selection
    legal = list(env.unwrapped.game.legal_actions())
    with pytest.raises(ValueError, match=r"legal actions: ") as caught:
        env.step(bad)
    assert type(caught.value) is env._error and repr(bad) in str(caught.value) and str(legal) in str(caught.value)
    assert env.agent_selection == agent and not any(env.terminations.values())
    env.step(legal[0])  # nothing was played: the agent may still act


@pytest.mark.parametrize("game,n", GAME_AT, ids=GAME_IDS)
def test_numpy_indices_are_actions_and_out_of_bounds_ones_assert(game, n):
    env = started(game, n)
    legal = list(env.unwrapped.game.legal_actions())
    env.step(np.array(legal[-1]))  # SB3's predict() on one observation: a 0-d integer array
    legal = list(env.unwrapped.game.legal_actions())
    with pytest.raises(AssertionError, match="action is not in action space"):
        env.step(np.uint64(legal[-1]))  # an index, but Discrete(n) of int64 does not hold a uint64 (gymnasium)
    env.step(np.int64(legal[-1]))


@pytest.mark.parametrize("game,n", GAME_AT, ids=GAME_IDS)
def test_a_done_agent_steps_none_and_an_action_outside_the_space_asserts(game, n):
    env = started(game, n)
    observation, *_ = env.last()
    env.step(int(np.flatnonzero(observation["action_mask"] == 0)[0]))  # illegal: everyone is done
    with pytest.raises(AssertionError, match="action is not in action space"):
        env.step("x")
    env.step(None)


@pytest.mark.parametrize("game,n", GAME_AT, ids=GAME_IDS)
@pytest.mark.parametrize("clone", [copy.deepcopy, lambda env: pickle.loads(pickle.dumps(env))], ids=["deepcopy", "pickle"])
def test_a_copied_env_continues_the_same(game, n, clone):
    env = started(game, n)
    for _ in range(3):
        observation, *_ = env.last()
        env.step(int(np.flatnonzero(observation["action_mask"])[-1]))
    twin = clone(env)
    assert isinstance(twin, ClassicWrapper) and twin.unwrapped is not env.unwrapped
    for copy_ in (env, twin):
        copy_.last()
    traces = []
    for copy_ in (env, twin):
        rng, trace = random.Random(0), []
        for agent in copy_.agent_iter():
            observation, reward, termination, truncation, info = copy_.last()
            trace.append((agent, observation, reward, termination, truncation, info))
            mask = observation["action_mask"]
            copy_.step(None if termination or truncation else int(rng.choice(list(np.flatnonzero(mask)))))
        traces.append(trace)
    assert same(traces[0], traces[1])


def test_wrap_takes_any_error_class_and_the_toy_game_uses_value_error():
    env = wrap(toy_game.raw_env(num_players=3))
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"action 'x' \(a str, not an index"):
        env.step("x")
    class Custom(ValueError):
        pass
    env = wrap(toy_game.raw_env(num_players=3), Custom)
    env.reset(seed=0)
    with pytest.raises(Custom):
        env.step(None)

