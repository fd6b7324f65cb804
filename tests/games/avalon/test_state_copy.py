"""``GameState.copy()`` (the secrets test's and hidden_variant's copy) is a deep copy: equal to ``copy.deepcopy``
and independent of the original whatever is played on either after it."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from traitors_env.games.avalon.engine import AvalonConfig, GameState


def _play_out(state: GameState, rng: np.random.Generator) -> None:
    while not state.is_terminal:
        state.apply_action(int(rng.choice(np.flatnonzero(state.legal_mask()))))


@pytest.mark.parametrize("n", [5, 7, 10])
@pytest.mark.parametrize("claims", [False, True])
def test_a_copy_equals_a_deep_copy_and_shares_nothing_the_rules_change(n, claims):
    rng = np.random.default_rng(n * 2 + claims)
    config = AvalonConfig(num_players=n, claims=claims, percival=True, morgana=True)
    for game in range(6):
        state = GameState.new(config, seed=game)
        while not state.is_terminal:
            if rng.random() < 0.3:
                before = pickle.dumps(state)
                copied = state.copy()
                assert pickle.dumps(copied) == pickle.dumps(copy.deepcopy(state))
                _play_out(copied, np.random.default_rng(int(rng.integers(2**32))))
                assert pickle.dumps(state) == before, "playing the copy on changed the original"
                twin = state.copy()
                _play_out(state, np.random.default_rng(7))
                _play_out(twin, np.random.default_rng(7))
                assert pickle.dumps(twin) == pickle.dumps(state), "the copy does not play as the original"
                break
            state.apply_action(int(rng.choice(np.flatnonzero(state.legal_mask()))))
