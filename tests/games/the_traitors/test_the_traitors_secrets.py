"""Information hiding in The Traitors: an observation never depends on what its agent cannot know.

For a state and an observer seat, :func:`hidden_variant` builds a copy in which everything the
observer cannot know is changed: the other players' roles (before the End Game reveals the
Traitor, T13; a Traitor knows everyone's), the other players' Shields and Daggers (only how many
they hold is public, T11), the deck order, the assignment and its result and the murder count
(the Traitor's secret, T06, T13), the votes of a Round Table not yet revealed (T09), the Final
choice not yet revealed (T15) and the RNG. The observation (``encode`` and ``raw_env.observe``,
mask included) must not change. Control tests check that it does change when something the
observer may know changes, so the comparison has teeth.
"""

from __future__ import annotations

import numpy as np
import pytest
from the_traitors_helpers import TABLE_SIZES, after_phase, murder_by, play, position, random_game

from traitors_env import the_traitors_v0
from traitors_env.games.the_traitors.engine import GameState, Phase
from traitors_env.games.the_traitors.hidden import hidden_variant
from traitors_env.games.the_traitors.observation import encode, piece

_ENVS: dict = {}


def observe(state: GameState, seat: int) -> dict:
    """``raw_env.observe`` of ``seat`` with the env's game set to ``state``."""
    key = (state.num_players, state.config.claims)
    if key not in _ENVS:
        _ENVS[key] = the_traitors_v0.raw_env(num_players=state.num_players, claims=state.config.claims)
        _ENVS[key].reset(seed=0)
    env = _ENVS[key]
    env.game = state
    env.agent_selection = env.possible_agents[state.current_player] if not state.is_terminal else env.agent_selection
    return env.observe(env.possible_agents[seat])


def _check_every_observer(state: GameState, rng: np.random.Generator) -> None:
    for observer in range(state.num_players):
        variant = hidden_variant(state, observer, rng)
        assert np.array_equal(encode(state, observer), encode(variant, observer)), (observer, state.phase)
        a, b = observe(state, observer), observe(variant, observer)
        assert np.array_equal(a["observation"], b["observation"])
        assert np.array_equal(a["action_mask"], b["action_mask"])


@pytest.mark.parametrize("num_players", TABLE_SIZES)
@pytest.mark.parametrize("claims", [True, False])
def test_secrets_hidden_state_never_changes_an_observation(num_players, claims):
    rng = np.random.default_rng(num_players)
    for seed in range(3):
        random_game(num_players, seed, check=lambda s: _check_every_observer(s, rng), claims=claims)


def test_secrets_roles_of_others():
    a = position(5, traitor=3)
    b = position(5, traitor=4)
    for seat in (0, 1, 2):
        assert np.array_equal(encode(a, seat), encode(b, seat))
    assert not np.array_equal(encode(a, 3), encode(b, 3))  # control: one's own role shows


def test_secrets_reward_cards_in_hand():
    a = position(5, traitor=4, hands=[(1, 0), (0, 1), (0, 0), (0, 0), (0, 0)], deck=[])
    b = position(5, traitor=4, hands=[(0, 1), (1, 0), (0, 0), (0, 0), (0, 0)], deck=[])
    for seat in (2, 3, 4):
        assert np.array_equal(encode(a, seat), encode(b, seat))
    assert not np.array_equal(encode(a, 0), encode(b, 0))  # control: one's own cards show


def test_secrets_assignment_result():
    a = position(5, traitor=4, options=dict(assignment_success=1.0, signal_traitor_attempt=0.0))
    b = position(5, traitor=4, options=dict(assignment_success=0.0, signal_traitor_attempt=0.0))
    for state in (a, b):
        play(state, murder_by(None), until=after_phase(Phase.VOTE))
    assert a.succeeded[0] and not b.succeeded[0]
    for seat in range(4):
        assert np.array_equal(encode(a, seat), encode(b, seat))
    assert not np.array_equal(encode(a, 4), encode(b, 4))  # control: the Traitor learns it (T06)


def test_secrets_votes_not_yet_revealed():
    a, b = position(5, traitor=4), position(5, traitor=4)
    for state in (a, b):
        play(state, until=after_phase(Phase.VOTE))
    a.apply_action(2 + 12)  # player_0 names player_1
    b.apply_action(2 + 15)  # player_0 names player_4
    for seat in range(5):
        assert np.array_equal(encode(a, seat), encode(b, seat))


def test_secrets_control_public_changes_show():
    a = position(5, traitor=4)
    b = position(5, traitor=4, gold=[8, 8, 8, 8, 7])
    for seat in range(5):
        assert not np.array_equal(encode(a, seat), encode(b, seat))
    assert piece(encode(b, 0), "seats")[4, 1] == 7
