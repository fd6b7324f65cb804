"""Bad input gets a clear error naming the bad value and what was expected (STYLE, DESIGN).

Covers table sizes, render modes, first seats, illegal and out-of-range actions (raw env and
PettingZoo's wrapped ``env()``), every check of ``GameState.from_position`` and env/position
mismatches.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from game_helpers import EYP, GR, MC, MINUS, PL, PLUS, SG, ZERO, M, P, position

from traitors_env import the_traitors_v0, traitors_aboard_v0
from traitors_env.games.traitors_aboard import actions as A
from traitors_env.games.traitors_aboard.cards import table_setup
from traitors_env.games.traitors_aboard.engine import GameConfig, GameState, IllegalActionError, PositionError

BAD_TABLE_SIZES = [2, 9, 0, -3, "5", 5.0, True, None]


# ---------------------------------------------------------------------- table size, render mode, first seat
@pytest.mark.parametrize("bad", BAD_TABLE_SIZES)
def test_num_players_outside_3_to_8(bad):
    for build in (
        lambda: table_setup(bad),
        lambda: GameConfig(num_players=bad),
        lambda: traitors_aboard_v0.raw_env(num_players=bad),
        lambda: traitors_aboard_v0.env(num_players=bad),
        lambda: GameState.new(GameConfig(num_players=bad)),
    ):
        with pytest.raises(ValueError, match=re.escape(f"num_players={bad!r}")) as info:
            build()
        assert "3" in str(info.value) and "8" in str(info.value)


@pytest.mark.parametrize("bad", ["rgb_array", "ANSI", "", 1])
def test_unknown_render_mode(bad):
    with pytest.raises(ValueError, match=re.escape(f"render_mode={bad!r}")) as info:
        traitors_aboard_v0.env(render_mode=bad)
    assert "ansi" in str(info.value) and "human" in str(info.value)


@pytest.mark.parametrize("bad", [5, -1, "0", 1.5, True])
def test_first_player_not_a_seat(bad):
    with pytest.raises(ValueError, match=re.escape(f"first_player={bad!r}")):
        GameConfig(num_players=5, first_player=bad)
    with pytest.raises(ValueError, match=re.escape(f"first_player={bad!r}")):
        traitors_aboard_v0.raw_env(num_players=5, first_player=bad)


# ---------------------------------------------------------------------- illegal actions
def test_illegal_action_in_raw_env_names_action_and_legal_set():
    environment = traitors_aboard_v0.raw_env(num_players=3)
    environment.reset_to_position(position(3, current_player=2))  # seat 2 is the Mutineer
    legal = list(environment.game.legal_actions())
    with pytest.raises(IllegalActionError) as info:
        environment.step(A.OPEN_CHEST)
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert "action 0" in message and "open the chest" in message and "player_2" in message
    assert str(legal) in message
    # Nothing changed: the same agent may still act legally.
    assert environment.agent_selection == "player_2" and not environment.game.history
    environment.step(legal[-1])


@pytest.mark.parametrize("bad", [A.NUM_ACTIONS, 1000, -1])
def test_out_of_range_action_in_raw_env(bad):
    environment = traitors_aboard_v0.raw_env(num_players=4)
    environment.reset(seed=0)
    with pytest.raises(IllegalActionError, match=re.escape(f"action {bad!r} (not an index in 0–{A.NUM_ACTIONS - 1})")):
        environment.step(bad)


def test_non_integer_action_in_raw_env():
    environment = traitors_aboard_v0.raw_env(num_players=4)
    environment.reset(seed=0)
    for bad in ("3", None, [1], True, 5.0):
        # the type is named, and no value is called out of range that is not (5.0 is "in range" but a float)
        kind = type(bad).__name__
        with pytest.raises(IllegalActionError, match=re.escape(f"(a {kind}, not an index: action indices are ints")):
            environment.step(bad)


def test_action_after_the_game_ended():
    state = position(3)
    state.apply_action(A.OPEN_CHEST)
    with pytest.raises(IllegalActionError, match="after the game ended"):
        state.apply_action(A.CLAIM_NONE)


def test_engine_rejects_actions_of_the_wrong_phase():
    state = position(3)
    state.apply_action(A.loot_action(PLUS, PLUS))
    with pytest.raises(IllegalActionError, match="phase CLAIM"):
        state.apply_action(A.loot_action(ZERO, ZERO))


def test_wrapped_env_terminates_on_illegal_move():
    environment = traitors_aboard_v0.env(num_players=4)
    environment.reset(seed=3)
    offender = environment.agent_selection
    observation, *_ = environment.last()
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    environment.step(illegal)
    rewards = {}
    for agent in environment.agent_iter():
        _, reward, termination, truncation, _ = environment.last()
        assert termination or truncation
        rewards[agent] = reward
        environment.step(None)
    assert rewards[offender] == -1
    assert all(reward == 0 for agent, reward in rewards.items() if agent != offender)
    assert len(rewards) == 4


@pytest.mark.parametrize("bad", [A.NUM_ACTIONS, -1, 10**20, True, 0.0, "0", None])
@pytest.mark.parametrize("module", [traitors_aboard_v0, the_traitors_v0])
def test_wrapped_env_names_an_action_that_is_no_index(module, bad):
    """env(): the raw env's wording (value, legal set), not a bare assertion or a numpy error (review finding);
    nothing is played and the agent may still act legally."""
    environment = module.env(num_players=4)
    environment.reset(seed=3)
    agent = environment.agent_selection
    legal = list(environment.unwrapped.game.legal_actions())
    with pytest.raises(ValueError, match=re.escape(f"legal actions: {legal}")) as caught:
        environment.step(bad)
    assert repr(bad) in str(caught.value) and type(caught.value).__name__ == "IllegalActionError"
    assert environment.agent_selection == agent and not environment.unwrapped.game.history
    environment.step(legal[0])


def test_describe_action_out_of_range():
    with pytest.raises(ValueError, match=re.escape(f"action {A.NUM_ACTIONS!r}")):
        A.describe_action(A.NUM_ACTIONS)


def test_result_while_running():
    with pytest.raises(RuntimeError, match="still running"):
        position(3).result()


def test_reset_to_position_of_another_table():
    environment = traitors_aboard_v0.raw_env(num_players=4)
    with pytest.raises(ValueError, match="3 players"):
        environment.reset_to_position(position(3))
    environment = traitors_aboard_v0.raw_env(num_players=3, claims=False)
    with pytest.raises(ValueError, match="claims=True"):
        environment.reset_to_position(position(3, claims=True))


# ---------------------------------------------------------------------- from_position checks
BASE = {
    "num_players": 3,
    "roles": [P, P, M],
    "hands": [[PLUS, ZERO, MINUS]] * 3,
    "draw_pile": [PL, PL],
    "chest": [],
    "planks": None,
    "overboard": [],
    "current_player": 0,
}
FIVE = {
    "num_players": 5,
    "roles": [P, P, P, P, M],
    "hands": [[PLUS, ZERO, MINUS]] * 5,
    "draw_pile": [PL, PL],
}


@pytest.mark.parametrize(
    "changes,expected",
    [
        ({"roles": [P, M]}, "roles has 2 entries"),
        ({"roles": [P, P, 7]}, "not a Role"),
        ({"roles": [P, P, "x"]}, "not a Role"),
        ({"roles": [P, P, None]}, "not a Role"),
        ({"roles": [P, M, M]}, "roles has 2 Mutineers"),
        ({"roles": [P, P, P]}, "roles has 0 Mutineers"),
        ({"hands": [[PLUS, ZERO, MINUS]] * 2}, "hands has 2 entries"),
        ({"hands": [[PLUS, ZERO], [PLUS, ZERO, MINUS], [PLUS, ZERO, MINUS]]}, "hands[0] holds 2 cards"),
        ({"hands": [[PLUS, ZERO, 9], [PLUS, ZERO, MINUS], [PLUS, ZERO, MINUS]]}, "hands[0] card=9"),
        ({"hands": [[PLUS, ZERO, None], [PLUS, ZERO, MINUS], [PLUS, ZERO, MINUS]]}, "hands[0] card=None"),
        ({"draw_pile": []}, "draw_pile is empty"),
        ({"draw_pile": [PL, -1]}, "draw_pile card=-1"),
        ({"chest": [(PLUS, 1)]}, "is not (card, placer, announced)"),
        ({"chest": [(SG, 1, ZERO)]}, "SPYGLASS is an action card"),
        ({"chest": [(PLUS, 3, ZERO)]}, "chest placer 3"),
        ({"chest": [(PLUS, 1, PL)]}, "chest announced=3"),
        ({"chest": [(PLUS, 1, 8)]}, "chest announced=8"),
        ({"planks": [0, 0]}, "planks has 2 entries"),
        ({"planks": [0, 3, 0]}, "planks[1]=3"),
        ({"planks": [0, -1, 0]}, "planks[1]=-1"),
        ({"current_player": 3}, "current_player=3"),
        ({"current_player": "0"}, "current_player='0'"),
        ({"overboard": [5]}, "overboard seat 5"),
        ({"draw_pile": [GR] * 4}, "uses 4 GOOD_RIDDANCE cards; the 3-player deck has 3"),
        ({"draw_pile": [PLUS] * 18}, "uses 21 LOOT_PLUS_1 cards"),
        ({"planks": [2, 2, 2], "draw_pile": [PL] * 7}, "uses 13 PLANK cards; the 3-player deck has 12"),
        ({"num_players": 2}, "num_players=2"),
    ],
)
def test_from_position_rejects_malformed_positions(changes, expected):
    kwargs = {**BASE, **changes}
    with pytest.raises(ValueError, match=re.escape(expected)):
        GameState.from_position(**kwargs)


@pytest.mark.parametrize(
    "changes,expected",
    [
        ({"overboard": [1], "hands": [[PLUS, ZERO, MINUS]] * 5}, "hands[1] holds 3 cards; a seat overboard holds 0"),
        (
            {"overboard": [1], "hands": [[EYP, MC, SG], [], *[[PLUS, ZERO, MINUS]] * 3], "current_player": 1},
            "overboard",
        ),
        (
            {
                "overboard": [1],
                "hands": [[PLUS, ZERO, MINUS], [], *[[PLUS, ZERO, MINUS]] * 3],
                "planks": [0, 1, 0, 0, 0],
            },
            "planks[1]=1",
        ),
        ({"overboard": [4], "hands": [*[[PLUS, ZERO, MINUS]] * 4, []]}, "ALL_MUTINEERS_OVERBOARD"),
        (
            {
                "overboard": [0, 1, 2],
                "hands": [[], [], [], [PLUS, ZERO, MINUS], [PLUS, ZERO, MINUS]],
                "current_player": 3,
            },
            "MUTINEERS_NOT_OUTNUMBERED",
        ),
    ],
)
def test_from_position_rejects_impossible_overboard_positions(changes, expected):
    with pytest.raises(PositionError, match=re.escape(expected)):
        GameState.from_position(**{**FIVE, **changes})


def test_position_error_is_a_value_error():
    assert issubclass(PositionError, ValueError) and issubclass(IllegalActionError, ValueError)


def test_from_position_accepts_the_boundaries():
    # The largest legal values: 2 Planks in front of every seat, every Good Riddance of the deck in one place.
    state = GameState.from_position(**{**BASE, "planks": [2, 2, 2], "draw_pile": [GR, GR, GR]})
    assert state.planks == [2, 2, 2] and len(state.draw_pile) == 3


# ---------------------------------------------------------------------- env arguments and lifecycle
@pytest.mark.parametrize("name", ["claims", "render_hidden"])
@pytest.mark.parametrize("bad", ["False", None, 0, 1])
def test_bool_options_must_be_bools(name, bad):
    with pytest.raises(ValueError, match=re.escape(f"{name}={bad!r}")):
        traitors_aboard_v0.raw_env(**{name: bad})


@pytest.mark.parametrize("bad", [-1, 1.5, "abc", True])
def test_reset_rejects_bad_seeds(bad):
    environment = traitors_aboard_v0.raw_env()
    with pytest.raises(ValueError, match=re.escape(f"seed={bad!r}")):
        environment.reset(seed=bad)


def test_raw_env_before_reset_says_so():
    environment = traitors_aboard_v0.raw_env()
    for call in (lambda: environment.observe("player_0"), lambda: environment.step(0)):
        with pytest.raises(RuntimeError, match=r"reset\(\)"):
            call()


@pytest.mark.parametrize("module", [traitors_aboard_v0, the_traitors_v0])
def test_raw_env_step_after_every_agent_is_done_says_so(module):
    """Review finding: a raw_env step once every agent had stepped None raised KeyError('player_k')."""
    environment = module.raw_env(num_players=3)
    environment.reset(seed=0)
    for _agent in environment.agent_iter():
        observation, _, termination, truncation, _ = environment.last()
        environment.step(None if termination or truncation else int(np.flatnonzero(observation["action_mask"])[0]))
    assert environment.agents == []
    for action in (0, None):
        with pytest.raises(RuntimeError, match=r"after the game ended.*reset\(\)"):
            environment.step(action)


def test_zero_dim_integer_array_is_an_action_but_floats_are_not():
    # SB3's predict() on one observation returns a 0-d integer array.
    environment = traitors_aboard_v0.raw_env(num_players=4)
    environment.reset(seed=0)
    legal = environment.game.legal_actions()
    for bad in (np.float32(legal[0]), np.float64(legal[0]), float(legal[0])):
        with pytest.raises(IllegalActionError, match="not an index"):
            environment.step(bad)
    environment.step(np.array(legal[0]))
    assert environment.game.history[-1][1] == legal[0]


def test_mask_is_zero_after_an_illegal_move_terminated_the_offender():
    environment = traitors_aboard_v0.env(num_players=4)
    environment.reset(seed=3)
    offender = environment.agent_selection
    observation, *_ = environment.last()
    environment.step(int(np.flatnonzero(observation["action_mask"] == 0)[0]))
    assert not environment.observe(offender)["action_mask"].any()


def test_reset_to_position_plays_on_a_copy_and_ends_a_finished_game():
    state = position(3)
    environment = traitors_aboard_v0.raw_env(num_players=3)
    environment.reset_to_position(state)
    environment.step(A.loot_action(PLUS, PLUS))
    assert state.chest == [] and state.history == []  # the caller's state is untouched
    state.apply_action(A.OPEN_CHEST)  # an empty chest: the Mutineers win (R03)
    environment.reset_to_position(state)
    assert all(environment.terminations.values())
    assert environment.rewards == {"player_0": -1, "player_1": -1, "player_2": 1}
    assert environment.infos["player_0"]["winner"] == "Mutineer"
