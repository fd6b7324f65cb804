"""The JAX twin's packed state (``jax.state``) and the helpers of the speed-ups that came with it.

The chest's rows are bit fields of one int32 each (``CHEST_FIELDS``), the draw pile's too
(``DRAW_FIELDS``); the unpacked fields are read through properties of the old names. These tests
check the packing round trip at the fields' extremes (a seat 0–7, a loot kind 0–2, a bitmask of 8
seats, a count), batched and under ``jit``/``vmap``; that ``Game.of`` refuses what would not fit; the
deal's stable ranking (``_ranks``, rulebook "Setup") against a stable sort; and the observation's
seat-relative ``targeted`` table against a plain rotation for every seat and table size.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

jax = pytest.importorskip("jax")

import jax.numpy as jnp  # noqa: E402

from traitors_env.games.traitors_aboard.jax import engine as E  # noqa: E402
from traitors_env.games.traitors_aboard.jax.observation import _targeted_by_relative_seat  # noqa: E402
from traitors_env.games.traitors_aboard.jax.state import Game, empty_game  # noqa: E402

#: The unpacked fields of the packed rows: name → (dtype of the property, largest legal value).
PACKED = {
    "draw": (np.int8, 7),  # a card kind (8 kinds)
    "draw_known": (np.uint8, 255),  # 8 seats
    "chest_kind": (np.int8, 2),  # a loot kind
    "chest_placer": (np.int8, 7),  # a seat
    "chest_announced": (np.int8, 2),
    "chest_known": (np.uint8, 255),
    "chest_scrambled": (np.bool_, 1),
    "chest_bottom": (np.bool_, 1),
    "group_known": (np.bool_, 1),
    "group_counts": (np.int8, 9),  # R07: at most 9 scrambled cards (3 Spyglass cards × 3)
}


def _unpacked(game: Game) -> dict:
    """Every field of ``game`` under its unpacked name (the packed rows through their properties)."""
    names = [f for f in Game.__dataclass_fields__ if f not in ("draw_pile", "chest")]
    return {name: getattr(game, name) for name in [*names, *PACKED]}


def _random_fields(rng, batch: tuple[int, ...] = ()) -> dict:
    """Unpacked fields of random values over each field's whole legal range (extremes included)."""
    base = jax.tree_util.tree_map(np.asarray, _unpacked(empty_game()))
    out = {}
    for name, value in base.items():
        shape = batch + value.shape
        if name in PACKED:
            dtype, top = PACKED[name]
            drawn = rng.integers(0, top + 1, shape)
            drawn.reshape(-1)[:2] = (0, top)  # both extremes, always
            out[name] = drawn.astype(dtype)
        else:
            out[name] = np.broadcast_to(value, shape).copy()
    return out


def _assert_fields_equal(game: Game, fields: dict) -> None:
    for name, expected in fields.items():
        got = np.asarray(getattr(game, name))
        assert got.dtype == np.asarray(expected).dtype, (name, got.dtype)
        np.testing.assert_array_equal(got, expected, err_msg=name)


def test_packed_fields_round_trip_at_their_extremes():
    fields = _random_fields(np.random.default_rng(0))
    _assert_fields_equal(Game.of(**fields), fields)


def test_packed_fields_round_trip_batched_under_jit_and_vmap():
    """A batch of games (B, …) packed eagerly, under ``jit`` and under ``jit(vmap)``: the same rows."""
    fields = _random_fields(np.random.default_rng(1), (16,))
    eager = Game.of(**fields)
    _assert_fields_equal(eager, fields)
    jitted = jax.jit(lambda f: Game.of(**f))(fields)
    mapped = jax.jit(jax.vmap(lambda f: Game.of(**f)))(fields)
    for game in (jitted, mapped):
        np.testing.assert_array_equal(game.chest, eager.chest)
        np.testing.assert_array_equal(game.draw_pile, eager.draw_pile)
    unpacked = jax.jit(jax.vmap(_unpacked))(eager)  # the properties of one game, mapped over the batch
    _assert_fields_equal(jax.tree_util.tree_map(np.asarray, Game.of(**unpacked)), fields)


@pytest.mark.parametrize(
    ("name", "value"),
    [("chest_placer", 8), ("chest_kind", 4), ("group_counts", 16), ("draw", 8), ("chest_announced", -1)],
)
def test_game_of_refuses_a_value_its_field_cannot_hold(name, value):
    """Packing keeps a field's low bits: a placer 8 would read back as seat 0. Refused, naming the field."""
    fields = _random_fields(np.random.default_rng(2))
    fields[name] = fields[name].astype(np.int16)
    fields[name].reshape(-1)[3] = value
    with pytest.raises(ValueError, match=rf"{name} holds {value}"):
        Game.of(**fields)


def test_game_of_names_a_missing_field():
    fields = _random_fields(np.random.default_rng(3))
    del fields["chest_known"]
    with pytest.raises(TypeError, match="chest_known"):
        Game.of(**fields)


def test_ranks_is_a_stable_sort_also_under_vmap():
    """The deal's shuffle (rulebook "Setup") ranks keys like a stable sort: ties by index."""
    rng = np.random.default_rng(4)
    keys = rng.integers(0, 20, (32, 76)).astype(np.uint32)  # many ties
    keys[:, -10:] = 2**31 + 1  # the deal's padding key, larger than any card's
    expected = np.argsort(np.argsort(keys, axis=1, kind="stable"), axis=1, kind="stable")
    np.testing.assert_array_equal(jax.jit(jax.vmap(E._ranks))(jnp.asarray(keys)), expected)
    np.testing.assert_array_equal(E._ranks(jnp.asarray(keys[0])), expected[0])


def _relative(targeted, seat, n):
    """[player, target, card] with both seats relative to ``seat`` (row r: seat (seat + r) % n), padded with 0."""
    out = np.zeros_like(targeted)
    for r in range(n):
        for t in range(n):
            out[r, t] = targeted[(seat + r) % n, (seat + t) % n]
    return out


def test_targeted_relative_to_every_seat_of_every_table_size_in_one_mixed_batch():
    """Entries of padding seats (junk here) never show; the batch mixes every table size and seat."""
    rng = np.random.default_rng(5)
    cases = [(n, seat) for n in range(3, 9) for seat in range(n)]
    targeted = rng.integers(0, 4, (len(cases), 8, 8, 2)).astype(np.int8)
    n, seat = (np.array(column) for column in zip(*cases))
    got = jax.jit(jax.vmap(_targeted_by_relative_seat))(targeted, seat, n)
    expected = np.stack([_relative(t, s, k) for t, (k, s) in zip(targeted, cases)])
    assert got.dtype == jnp.int8
    np.testing.assert_array_equal(got, expected)


def test_deals_are_those_of_the_unpacked_engine():
    """Same key, same deal (rulebook "Setup"): 192 deals (32 per table size) pinned from the engine before
    the rows were packed (d27e780), whose seeded training results the README reports. A new JAX whose
    PRNG draws other bits would fail here too: then the README's figures no longer reproduce either."""
    sizes = np.repeat(np.arange(3, 9), 32)
    keys = jax.random.split(jax.random.PRNGKey(2026), len(sizes))
    g = jax.jit(jax.vmap(lambda k, n: E.init(k, n)))(keys, jnp.asarray(sizes))
    parts = [np.asarray(x).astype(np.int64) for x in (g.roles, g.hands, g.draw, g.draw_size, g.current_player)]
    assert np.asarray(g.draw[0, :12]).tolist() == [0, 0, 2, 3, 2, 0, 0, 3, 0, 3, 2, 1]
    digest = hashlib.sha256(b"".join(p.tobytes() for p in parts)).hexdigest()
    assert digest == "11b3a96a0a4a57e4b20536df67de2266aea6cf6834f23d520dd7441ae6812853"
