"""The table sizes of training games: relative weights checked and turned into probabilities.

One check for every place that draws a table size per game (the run config, the game master
:class:`~training.team_env.TeamEnv`, the RLlib env and the JAX backend), so that they accept and refuse the same
weights.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["table_size_probabilities"]


def table_size_probabilities(
    weights: Sequence[float] | None, player_counts: Sequence[int], name: str = "player_count_weights"
) -> np.ndarray:
    """The probability of drawing each of ``player_counts`` for a game.

    Args:
        weights: one relative weight (int or float) per entry of ``player_counts``, each finite and >= 0, with a
            positive sum; ``None`` = uniform.
        player_counts: the table sizes the weights belong to (only their number is used here).
        name: the setting's name, for the error message.

    Returns:
        float64 array of shape ``(len(player_counts),)`` summing to 1.

    Raises:
        ValueError: ``player_counts`` is empty, or ``weights`` has the wrong length, an entry that is not an int or
            float (a bool or string included), a negative, NaN or infinite entry, or sums to 0; the message names
            the setting, the weights and the table sizes.
    """
    counts = [int(n) for n in player_counts]
    if not counts:
        raise ValueError("player_counts is empty; give at least one table size")
    if weights is None:
        return np.full(len(counts), 1.0 / len(counts))
    try:
        raw = np.asarray(weights)
    except (TypeError, ValueError):  # a ragged nesting
        raw = None
    # numbers only, as the run config (strict) takes them: float() would turn True or "2" into a weight
    if raw is None or raw.dtype.kind not in "iuf" or raw.shape != (len(counts),):
        if raw is not None and raw.ndim == 1 and raw.dtype.kind not in "iuf":
            kinds = ", ".join(sorted({type(w).__name__ for w in raw.tolist()}))
            got = f": got {kinds} entries, expected ints or floats"
        elif raw is not None and raw.ndim == 1:
            got = f": got {raw.shape[0]} for {len(counts)} table sizes"
        else:
            got = ""
        raise ValueError(f"{name}={_shown(weights)} must be one weight >= 0 per player count {counts}{got}")
    array = raw.astype(np.float64)
    with np.errstate(over="ignore"):
        total = array.sum()
    # isfinite: a NaN passes "< 0" and an inf makes the probabilities NaN
    if not (np.isfinite(array) & (array >= 0)).all() or total <= 0:
        raise ValueError(
            f"{name}={_shown(weights)} must be one weight >= 0 per player count {counts}, all finite, "
            "with a positive sum"
        )
    if not np.isfinite(total):  # finite weights near the float64 maximum sum to inf (probabilities 0)
        array = array / array.max()  # only then: the probabilities of every other input stay bit for bit
        total = array.sum()
    return array / total


def _shown(weights: object) -> str:
    # numpy values as plain ones (list() of a 0-d array raises; numpy 2 shows np.float64(...))
    if isinstance(weights, (np.ndarray, np.generic)):
        return repr(weights.tolist())
    return repr(list(weights)) if isinstance(weights, (list, tuple)) else repr(weights)
