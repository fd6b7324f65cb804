"""The shared declarations (traitors_env/common): a layout's offsets and bounds, blocks of indices, errors."""

import numpy as np
import pytest

from traitors_env.core.layout import Layout, Piece, starts
from traitors_env.games.the_traitors import actions as TA
from traitors_env.games.traitors_aboard import observation as O


def test_layout_offsets_bounds_and_views():
    layout = Layout([Piece("a", (2,), 0, 1, "first"), Piece("b", (2, 3), -2, 5, "second")])
    assert layout.offsets == {"a": 0, "b": 2} and layout.size == 8
    assert layout.low.tolist() == [0, 0] + [-2] * 6 and layout.high.tolist() == [1, 1] + [5] * 6
    observation = np.arange(8, dtype=np.float32)
    assert layout.piece(observation, "b").tolist() == [[2, 3, 4], [5, 6, 7]]
    batch = np.stack([observation, observation + 10])
    assert layout.piece(batch, "a").tolist() == [[0, 1], [10, 11]]  # a batch: the last axis
    assert layout.table().splitlines()[2] == "| 0:2 | `a` | (2,) | first |"


def test_bad_names_are_named():
    with pytest.raises(KeyError, match="'nope'.*declared"):
        Layout([Piece("a", (1,), 0, 1, "")]).piece(np.zeros(1), "nope")
    with pytest.raises(ValueError, match="'a'"):
        starts([("a", 1), ("a", 2)])
    with pytest.raises(ValueError, match="'b'"):
        starts([("b", -1)])


def test_games_read_their_offsets_from_their_declaration():
    # Traitors Aboard: blocks follow one another in the declared order, 1228 floats in all.
    end = 0
    for p in O.LAYOUT:
        assert O.OFFSETS[p.name] == end
        end += p.size
    assert end == O.OBS_SIZE == 1228
    # The Traitors' action groups: consecutive blocks, 36 actions in all.
    assert [TA.GROUP_START[g.name] for g in TA.ACTION_GROUPS] == list(
        np.cumsum([0] + [g.count for g in TA.ACTION_GROUPS])[:-1]
    )
    assert TA.NUM_ACTIONS == 36
