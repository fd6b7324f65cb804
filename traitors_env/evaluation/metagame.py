"""The row-side-vs-column-side meta-game: the cross-play matrix as a zero-sum game, solved by linear programming.

The row player picks an agent for the game's row side (Traitors Aboard: the Pirates), the column player
one for the column side (the Mutineers); the payoff to the row player is the row side's win rate
``M[i, j]`` (the column side wins ``1 − M[i, j]``: constant-sum, so zero-sum up to a constant). The row
side's maximin mixture solves

    maximise v  subject to  Σ_i x_i M[i, j] ≥ v for every j,  Σ_i x_i = 1,  x ≥ 0,

and the column side's the mirror problem; both give the game value (``scipy.optimize.linprog``, HiGHS).
Equilibria need not be unique: an agent is *unused* when no equilibrium mixture gives it weight,
checked by a second LP per agent that maximises its weight over all maximin mixtures.

In a general-sum game (The Traitors: rows are Traitor agents, the payoff the Traitor's win rate,
columns Faithful agents) the zero-sum reading asks which column agent best stops the row side, not which
maximises its own wins.
"""

from __future__ import annotations

import numpy as np

__all__ = ["solve_zero_sum"]

_TOL = 1e-7


def _maximin(matrix: np.ndarray) -> tuple[np.ndarray, float]:
    """The row player's maximin mixture and the value of ``max_x min_j x·M[:, j]``."""
    from scipy.optimize import linprog

    rows, cols = matrix.shape
    # Variables: x_1..x_rows, v. Minimise -v.
    c = np.zeros(rows + 1)
    c[-1] = -1.0
    a_ub = np.hstack([-matrix.T, np.ones((cols, 1))])  # v - x·M[:, j] <= 0
    a_eq = np.hstack([np.ones((1, rows)), np.zeros((1, 1))])
    bounds = [(0, None)] * rows + [(None, None)]
    res = linprog(c, A_ub=a_ub, b_ub=np.zeros(cols), A_eq=a_eq, b_eq=[1.0], bounds=bounds, method="highs")
    if not res.success:  # cannot happen for a finite matrix; named if it does
        raise RuntimeError(f"the meta-game LP failed: {res.message}")
    return np.clip(res.x[:rows], 0, None), float(res.x[-1])


def _max_weights(matrix: np.ndarray, value: float) -> np.ndarray:
    """Per row, the largest weight any maximin mixture gives it (0 = no equilibrium uses that row)."""
    from scipy.optimize import linprog

    rows, cols = matrix.shape
    out = np.zeros(rows)
    a_ub = -matrix.T  # x·M[:, j] >= value - tol
    b_ub = -(value - 1e-9) * np.ones(cols)
    for i in range(rows):
        c = np.zeros(rows)
        c[i] = -1.0
        res = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=np.ones((1, rows)), b_eq=[1.0], bounds=[(0, None)] * rows,
                      method="highs")
        out[i] = res.x[i] if res.success else 0.0
    return out


def solve_zero_sum(matrix, row_names: list[str], col_names: list[str],
                   sides: tuple[str, str] | None = None) -> dict:
    """Nash equilibrium of the row side's agents (rows) against the column side's agents (columns).

    Args:
        matrix: the row side's win rates, shape ``(len(row_names), len(col_names))``, values in [0, 1].
        sides: the keys of the row and column sides in the result (default: those of the default game,
            :data:`traitors_env.core.registry.DEFAULT_GAME`: ``("pirates", "mutineers")``).

    Returns:
        ``{"value": the row side's equilibrium win rate, sides[0]: {"mixture": {agent: weight}, "unused": [agents]},
        sides[1]: {…}}``; weights rounded to 6 decimals.

    Raises:
        ValueError: for a matrix of another shape or with a value outside [0, 1] (NaN included).
    """
    m = np.asarray(matrix, dtype=np.float64)
    if m.shape != (len(row_names), len(col_names)) or m.size == 0:
        raise ValueError(f"matrix has shape {m.shape}; expected ({len(row_names)}, {len(col_names)}) win rates")
    if not np.all((m >= 0) & (m <= 1)):
        raise ValueError("matrix holds a value outside [0, 1] (or NaN); expected the row side's win rates")
    if sides is None:
        from ..core.registry import DEFAULT_GAME, load_game

        sides = load_game(DEFAULT_GAME).type.sides
    x, value = _maximin(m)
    # The column side maximises its own win rate 1 - M, i.e. maximin of (1 - M)^T.
    y, mut_value = _maximin(1.0 - m.T)
    out = {}
    for side, weights, names, payoff, v in (
        (sides[0], x, row_names, m, value),
        (sides[1], y, col_names, 1.0 - m.T, mut_value),
    ):
        best = _max_weights(payoff, v)
        out[side] = {
            "mixture": {name: round(float(w), 6) for name, w in zip(names, weights)},
            "unused": [name for name, b in zip(names, best) if b <= _TOL],
        }
    return {"value": round(value, 6), **out}
