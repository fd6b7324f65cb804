"""``TeamEnv.reset(seed=s)`` fixes the whole game that follows, and gymnasium's ``check_env`` passes (issue 49)."""

from __future__ import annotations

import numpy as np
import pytest

from training.agents import OpponentPool
from training.team_env import ILLEGAL_ACTION_REWARD, TeamEnv


def _plain(info: dict) -> list:
    return sorted((k, (v.dtype.str, v.tobytes()) if isinstance(v, np.ndarray) else v) for k, v in info.items())


def _episode(env: TeamEnv, seed: int) -> list:
    """Everything a seeded game shows the learner, its actions drawn from a generator seeded by ``seed`` too."""
    rng = np.random.default_rng(seed)
    observation, info = env.reset(seed=seed)
    shown = [observation.tobytes(), _plain(info)]
    done = False
    while not done:
        legal = np.flatnonzero(env.action_masks())
        observation, reward, done, truncated, info = env.step(int(rng.choice(legal)))
        shown += [observation.tobytes(), reward, done, truncated, _plain(info)]
    return shown


@pytest.mark.parametrize(("game", "side", "opponents"), [
    ("traitors_aboard", "mutineers", {"heuristic": 1.0}),
    ("traitors_aboard", "pirates", {"heuristic": 1.0, "random": 1.0}),
    ("the_traitors", "traitor", {"heuristic": 1.0, "random": 1.0}),
])
def test_reset_with_a_seed_gives_the_same_game_again(game, side, opponents):
    env = TeamEnv(side, OpponentPool(opponents, seed=0, game=game), player_counts=None, game=game)
    for seed in range(40):
        first = _episode(env, seed)
        env.reset()  # an unseeded game in between moves every stream on
        _episode(env, seed + 1000)
        assert _episode(env, seed) == first, f"seed {seed}"


def test_the_issue_example_gives_equal_first_observations():
    env = TeamEnv("mutineers", OpponentPool({"heuristic": 1.0}, seed=0), player_counts=[5])
    for seed in range(40):
        o1, _ = env.reset(seed=seed)
        o2, _ = env.reset(seed=seed)
        assert np.array_equal(o1, o2), f"seed {seed}"


def test_an_illegal_action_raises_by_default_and_loses_the_game_when_asked():
    env = TeamEnv("pirates", OpponentPool({"heuristic": 1.0}, seed=0), player_counts=[5])
    env.reset(seed=3)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(Exception, match=str(illegal)):
        env.step(illegal)
    env = TeamEnv("pirates", OpponentPool({"heuristic": 1.0}, seed=0), player_counts=[5], illegal_actions="lose")
    env.reset(seed=3)
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"], info["won"]) == (ILLEGAL_ACTION_REWARD, True,
                                                                                    False, True, False)
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(illegal)
    with pytest.raises(ValueError, match="illegal_actions='skip'; expected 'raise' or 'lose'"):
        TeamEnv("pirates", OpponentPool({"heuristic": 1.0}, seed=0), illegal_actions="skip")


@pytest.mark.parametrize("game", ["traitors_aboard", "the_traitors"])
def test_gymnasiums_check_env_passes(game):
    """check_env steps with an unmasked ``action_space.sample()``: the documented ``illegal_actions="lose"`` takes it."""
    from gymnasium.utils.env_checker import check_env

    env = TeamEnv(0, OpponentPool({"heuristic": 1.0, "random": 1.0}, seed=0, game=game), game=game,
                  illegal_actions="lose")
    check_env(env, skip_render_check=True)


@pytest.mark.parametrize("mode", ["raise", "lose"])
def test_both_modes_take_the_same_actions_and_truncate_none(mode):
    """gymnasium's ``Discrete`` holds numpy ints and 0-d integer arrays: both modes play them as the int they hold;
    a float or bool is no action index (issue 49: ``"lose"`` forfeited a legal 0-d array, ``"raise"`` truncated 2.5
    to 2 with ``int()``)."""
    for kind in (int, np.int64, lambda a: np.array(a)):
        env = TeamEnv("pirates", OpponentPool({"heuristic": 1.0}, seed=0), player_counts=[5], illegal_actions=mode)
        env.reset(seed=3)
        legal = int(np.flatnonzero(env.action_masks())[0])
        _, _, _, _, info = env.step(kind(legal))
        assert "illegal_action" not in info and env._decisions == 1  # played (a real loss can also pay -1)
    for bad in (0.0, 1.5, True):
        env = TeamEnv("pirates", OpponentPool({"heuristic": 1.0}, seed=0), player_counts=[5], illegal_actions=mode)
        env.reset(seed=3)
        if mode == "raise":
            with pytest.raises(ValueError, match="not legal"):
                env.step(bad)
        else:
            _, reward, terminated, _, info = env.step(bad)
            assert info["illegal_action"] and info["action"] is bad and terminated


def test_opponent_seed_option_seeds_the_pool_as_its_constructor_would_and_unknown_options_are_refused():
    """The SB3 trainer resets each env with ``options={"opponent_seed": p}``, ``p`` the seed the env's pool was built
    with: the pool then draws what a pool freshly built with ``p`` draws, so seeded runs train what they trained
    before ``reset(seed)`` reseeded the pool (issue 49; the docs' SB3 figures stand)."""
    weights = {"heuristic": 0.5, "random": 0.5}
    env = TeamEnv("pirates", OpponentPool(weights, seed=99), player_counts=[5])
    obs, _ = env.reset(seed=3, options={"opponent_seed": 11})
    before = TeamEnv("pirates", OpponentPool(weights, seed=11), player_counts=[5])
    before.pool.reseed = lambda seed: None  # the pool as reset left it before issue 49: built with 11, untouched
    old_obs, _ = before.reset(seed=3)
    assert (obs == old_obs).all() and env.pool.rng.bit_generator.state == before.pool.rng.bit_generator.state
    env.reset(seed=3)  # without the option: the stream follows the env's seed
    assert env.pool.rng.bit_generator.state != before.pool.rng.bit_generator.state
    with pytest.raises(ValueError, match=r"reset options \['first_leader'\]; expected 'position' and/or 'opponent_seed'"):
        env.reset(seed=3, options={"first_leader": 2})
