"""The compiled observation encoder (``traitors_env.games.traitors_aboard._encoder``) against the pure-Python one.

``observation.encode`` uses the compiled twin when the install built it; ``encode_python`` is the
reference. They must give the same array for every state: random games at every table size with
and without claims (Spyglass scrambles, Good Riddance, Miraculous Catch returns, overboards, claims
of every kind), explicit positions, every seat. The information-hiding tests (``test_secrets.py``)
and the ruling tests read observations through ``encode``, so they check the compiled encoder too.

CI sets ``TRAITORS_REQUIRE_COMPILED=1``: there, an install that failed to build the extension fails
instead of silently testing the pure-Python encoder twice.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from game_helpers import TABLE_SIZES, explicit_positions, random_action, random_states
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from traitors_env.games.traitors_aboard import observation
from traitors_env.games.traitors_aboard.engine import GameConfig, GameState
from traitors_env.games.traitors_aboard.observation import OBS_SIZE, encode, encode_python

compiled = pytest.mark.skipif(not observation.COMPILED_ENCODER, reason="the compiled encoder was not built here")


def test_compiled_encoder_is_built_where_required():
    if os.environ.get("TRAITORS_REQUIRE_COMPILED") == "1":
        assert observation.COMPILED_ENCODER, "TRAITORS_REQUIRE_COMPILED=1 but traitors_env.games.traitors_aboard._encoder did not build"
    elif not observation.COMPILED_ENCODER:
        pytest.skip("the compiled encoder was not built here (no C compiler at install?)")


def assert_same_observations(state: GameState) -> None:
    for seat in range(state.num_players):
        fast, reference = encode(state, seat), encode_python(state, seat)
        assert fast.dtype == reference.dtype == np.float32
        different = np.flatnonzero(fast != reference)
        assert different.size == 0, f"seat {seat}: entries {different.tolist()} differ"


@compiled
@pytest.mark.parametrize("claims", [True, False])
@pytest.mark.parametrize("num_players", TABLE_SIZES)
def test_same_observations_in_random_games(num_players, claims):
    for seed in range(12):
        for state in random_states(num_players, claims, seed=100 * num_players + seed, open_prob=0.02):
            assert_same_observations(state)


@compiled
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(state=explicit_positions(), steps=st.integers(0, 12), seed=st.integers(0, 2**16))
def test_same_observations_in_explicit_positions(state, steps, seed):
    rng = np.random.default_rng(seed)
    assert_same_observations(state)
    for _ in range(steps):
        if state.is_terminal:
            break
        state.apply_action(random_action(state, rng, open_prob=0.0))
        assert_same_observations(state)


def test_out_is_overwritten_entirely_and_returned():
    state = GameState.new(GameConfig(num_players=6), seed=3)
    out = np.full(OBS_SIZE, 7.0, dtype=np.float32)
    assert encode(state, 2, out=out) is out
    np.testing.assert_array_equal(out, encode_python(state, 2))


def _read_only() -> np.ndarray:
    out = np.zeros(OBS_SIZE, dtype=np.float32)
    out.flags.writeable = False
    return out


@pytest.mark.parametrize(
    ("bad", "named"),
    [
        (np.zeros(OBS_SIZE, dtype=np.float64), "float64 array of shape (1228,)"),
        (np.zeros(OBS_SIZE + 1, dtype=np.float32), "float32 array of shape (1229,)"),
        (np.zeros(2 * OBS_SIZE, dtype=np.float32)[::2], "strided float32 array"),
        (_read_only(), "read-only float32 array"),
        ([0.0] * OBS_SIZE, "got list"),
    ],
)
def test_bad_out_is_refused_by_both_encoders_naming_what_it_is(bad, named):
    state = GameState.new(GameConfig(num_players=4), seed=0)
    for encoder in (encode, encode_python):
        with pytest.raises(ValueError, match="C-contiguous float32 array of shape") as error:
            encoder(state, 0, out=bad)
        assert named in str(error.value)


@pytest.mark.parametrize("seat", [-1, 4, 8, 2**63, None, "1", 1.5, True])
def test_a_seat_outside_the_table_is_refused(seat):
    state = GameState.new(GameConfig(num_players=4), seed=0)
    for encoder in (encode, encode_python):
        with pytest.raises(ValueError, match=r"seat .* expected an int in 0–3"):
            encoder(state, seat)


def test_numpy_int_seats_are_accepted():
    state = GameState.new(GameConfig(num_players=4), seed=0)
    np.testing.assert_array_equal(encode(state, np.int64(2)), encode_python(state, 2))


def _corrupt(field: str, value) -> GameState:
    state = next(s for s in random_states(5, True, seed=2, open_prob=0.0) if s.chest)  # a chest card to corrupt
    if field == "announced":
        state.chest[0].announced = value
    elif field == "placer":
        state.chest[0].placer = value
    elif field == "targeted":
        state.targeted.append((value, 0, 0))
    else:
        getattr(state, field)[1] = value
    return state


@compiled
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("claim_hand", 10_000),  # no such hand claim
        ("claim_accuse", 7),  # no such seat at 5 players
        ("claim_vouch", 5),
        ("planks", 10_000),
        ("announced", 3),
        ("announced", -1),
        ("placer", 5),
        ("targeted", 9),
    ],
)
def test_a_malformed_state_raises_instead_of_reading_or_writing_out_of_bounds(field, value):
    # The compiled encoder checks every index: a corrupt value is an error, never a stray read or write.
    state = _corrupt(field, value)
    with pytest.raises(IndexError):
        encode(state, 0)


def test_pure_python_fallback_gives_the_same_observations(monkeypatch):
    state = random_states(5, True, seed=11)[-1]
    expected = [encode(state, seat) for seat in range(5)]
    monkeypatch.setattr(observation, "_encode_into", None)  # as where the extension was not built
    for seat in range(5):
        np.testing.assert_array_equal(observation.encode(state, seat), expected[seat])
