"""``the_traitors_v0`` as a PettingZoo environment: conformance, the contract shared with
``traitors_aboard_v0``, determinism and bad input (issue 15)."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from the_traitors_helpers import TABLE_SIZES, random_game

from traitors_env import the_traitors_v0
from traitors_env.games.the_traitors import actions as A
from traitors_env.games.the_traitors.engine import GameConfig, GameState, IllegalActionError, PositionError
from traitors_env.games.the_traitors.observation import LAYOUT, OBS_SIZE, layout_table

TABLES = [(n, claims) for n in TABLE_SIZES for claims in (True, False)]


@pytest.mark.parametrize("num_players,claims", TABLES)
def test_pettingzoo_api(num_players, claims):
    api_test(the_traitors_v0.env(num_players=num_players, claims=claims), num_cycles=300)


@pytest.mark.parametrize("num_players,claims", TABLES)
def test_pettingzoo_seed(num_players, claims):
    seed_test(functools.partial(the_traitors_v0.env, num_players=num_players, claims=claims), num_cycles=300)


@pytest.mark.parametrize("num_players,claims", TABLES)
def test_pettingzoo_render(num_players, claims, capsys):
    render_test(functools.partial(the_traitors_v0.env, num_players=num_players, claims=claims))


def test_registered_in_pettingzoo_registry():
    registration = pytest.importorskip("pettingzoo.env_registry.registration")
    env = registration.make("aec", the_traitors_v0.REGISTRY_ID, num_players=4)
    env.reset(seed=0)
    assert env.unwrapped.metadata["name"] == "the_traitors_v0" and len(env.possible_agents) == 4


@pytest.mark.parametrize("num_players", TABLE_SIZES)
def test_fixed_spaces_for_every_table_size(num_players):
    env = the_traitors_v0.raw_env(num_players=num_players)
    env.reset(seed=1)
    space = env.observation_space("player_0")
    assert space["observation"].shape == (OBS_SIZE,) and space["action_mask"].dtype == np.int8
    assert env.action_space("player_0").n == A.NUM_ACTIONS
    observation = env.observe(env.agent_selection)
    assert observation["observation"].dtype == np.float32 and observation["action_mask"].dtype == np.int8
    assert observation["action_mask"].sum() >= 1


def test_tables_come_from_one_declaration():
    table = layout_table()
    assert all(f"`{p.name}`" in table for p in LAYOUT)
    assert sum(p.size for p in LAYOUT) == OBS_SIZE
    actions = A.action_table()
    assert actions.count("\n") == len(A.ACTION_GROUPS) + 1
    assert actions in A.__doc__  # the module doc shows the generated table
    for action in range(A.NUM_ACTIONS):
        A.describe_action(action)


def play_env(env, seed):
    """Play one game through the AEC loop; ``env.final_infos`` holds each agent's last ``info``."""
    env.reset(seed=seed)
    env.final_infos = {}
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            env.final_infos[agent] = info
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(legal[seed % len(legal)]))
    return env


@pytest.mark.parametrize("num_players", TABLE_SIZES)
def test_results_in_every_agents_final_info_stackable(num_players):
    env = play_env(the_traitors_v0.raw_env(num_players=num_players), seed=num_players)
    infos = [env.final_infos[a] for a in env.possible_agents]
    assert len({id(info) for info in infos}) == num_players  # each agent its own object
    assert len({id(info["gold"]) for info in infos}) == num_players
    for key in infos[0]:
        values = [info[key] for info in infos]
        if isinstance(values[0], np.ndarray):
            assert np.stack(values).shape == (num_players,) + values[0].shape
        else:
            assert np.isscalar(values[0]) or isinstance(values[0], str)
    game = env.game
    for seat, info in enumerate(infos):
        assert info["won"] == game.winners[seat] and info["reward"] == game.returns()[seat]
        assert info["gold"].shape == (6,) and list(info["gold"][:num_players]) == game.gold
        assert (info["gold"][num_players:] == -1).all()
        assert info["traitor"] == game.traitor
    assert env.result == game.result() and env.result is not env.result  # a new dict each call
    env.reset(seed=0)
    assert env.result is None  # nothing revealed while the game runs


@pytest.mark.parametrize("num_players", TABLE_SIZES)
def test_determinism_same_seed_same_game(num_players):
    a = random_game(num_players, seed=11)
    b = random_game(num_players, seed=11)
    assert a.fingerprint() == b.fingerprint() and a.history == b.history
    c = random_game(num_players, seed=12)
    assert c.fingerprint() != a.fingerprint()


def test_determinism_through_the_env():
    a = play_env(the_traitors_v0.raw_env(num_players=5), seed=3).game
    b = play_env(the_traitors_v0.raw_env(num_players=5), seed=3).game
    assert a.fingerprint() == b.fingerprint()


def test_determinism_of_a_position():
    a = GameState.from_position(5, 2, seed=4)
    b = GameState.from_position(5, 2, seed=4)
    assert a.fingerprint() == b.fingerprint()


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("action", [-1, 36, 1.0, "1", None, True])
def test_bad_actions_name_the_value_and_the_legal_set(action):
    env = the_traitors_v0.raw_env(num_players=4)
    env.reset(seed=0)
    before = env.game.fingerprint()
    with pytest.raises(IllegalActionError, match=r"legal actions: \[0"):
        env.step(action)
    assert env.game.fingerprint() == before  # nothing lost


def test_an_illegal_but_valid_index_is_refused():
    state = GameState.new(GameConfig(num_players=4), seed=0)
    seat = next(s for s in range(4) if s != state.traitor)
    while state.current_player != seat:
        state.apply_action(A.NO_ATTEMPT)
    with pytest.raises(IllegalActionError, match="attempt the secret assignment.*not legal for player_"):
        state.apply_action(A.ATTEMPT)


def test_actions_after_the_end_are_refused():
    state = random_game(3, seed=0)
    with pytest.raises(IllegalActionError, match="after the game ended"):
        state.apply_action(0)


def test_numpy_actions_are_accepted():
    state = GameState.new(GameConfig(num_players=4), seed=0)
    state.apply_action(np.int64(A.NO_ATTEMPT)) if state.current_player != state.traitor else state.apply_action(
        np.array(A.NO_ATTEMPT)
    )
    assert len(state.history) == 1


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(num_players=7), "3 to 6"),
        (dict(render_mode="rgb_array"), "render_mode"),
        (dict(claims="yes"), "claims"),
        (dict(render_hidden=1), "render_hidden"),
        (dict(mission_gold=(4, 2)), "mission_gold"),
        (dict(mission_gold=(0, 16)), "mission_gold"),
        (dict(assignment_success=1.5), "assignment_success"),
        (dict(signal_faithful=-0.1), "signal_faithful"),
        (dict(armoury="all"), "armoury"),
        (dict(reward="points"), "reward"),
        (dict(first_player=0), "unknown option"),
    ],
)
def test_bad_options_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        the_traitors_v0.raw_env(**kwargs)


@pytest.mark.parametrize("seed", [-1, 1.5, "3", True])
def test_bad_seeds_are_refused(seed):
    with pytest.raises(ValueError, match="seed"):
        the_traitors_v0.raw_env().reset(seed=seed)


def test_bad_positions_are_refused():
    with pytest.raises(PositionError, match="3 to 6"):
        GameState.from_position(8, 0)
    with pytest.raises(PositionError, match="deck"):
        GameState.from_position(5, 0, deck=[7])
    with pytest.raises(PositionError, match="murders"):
        GameState.from_position(5, 0, round=2, murders=3)
    env = the_traitors_v0.raw_env(num_players=5, claims=False)
    with pytest.raises(ValueError, match="options"):
        env.reset_to_position(GameState.from_position(5, 0))


def test_encode_refuses_a_bad_seat():
    from traitors_env.games.the_traitors.observation import encode

    with pytest.raises(ValueError, match="seat 5"):
        encode(GameState.new(seed=0), 5)


def test_observe_before_reset_is_an_error():
    with pytest.raises(RuntimeError, match="reset"):
        the_traitors_v0.raw_env().observe("player_0")


def test_readme_documents_the_second_game():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[3] / "docs" / "games" / "the_traitors.md").read_text(encoding="utf-8")
    assert layout_table() in readme
    assert A.action_table() in readme
    assert f"Discrete({A.NUM_ACTIONS})" in readme and f"Box({OBS_SIZE},)" in readme


def test_engine_imports_no_rl_framework():
    """The rules engine is pure: no gymnasium, pettingzoo or training below the environment adapter."""
    import ast
    from pathlib import Path

    folder = Path(__file__).resolve().parents[3] / "traitors_env" / "games" / "the_traitors"
    for name in ("cards.py", "actions.py", "engine.py", "observation.py", "render.py"):
        tree = ast.parse((folder / name).read_text(encoding="utf-8"))
        modules = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        modules |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
        assert not {m.split(".")[0] for m in modules} & {"gymnasium", "pettingzoo", "training"}, name
