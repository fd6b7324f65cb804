"""Interval estimates for win rates."""

from __future__ import annotations

import math

__all__ = ["difference_interval", "sum_interval", "wilson_interval"]


def wilson_interval(successes: int, trials: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (default 95 %).

    ``(0, 1)`` for no trials (nothing is known).

    Raises:
        ValueError: if ``trials`` is negative or ``successes`` is outside ``0…trials``.
    """
    if trials < 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials; got successes={successes}, trials={trials}")
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def difference_interval(wins_a: int, games_a: int, wins_b: int, games_b: int,
                        z: float = 1.959963984540054) -> tuple[float, float]:
    """Newcombe's hybrid score interval (his method 10, from two :func:`wilson_interval`) of the difference of two
    binomial proportions ``wins_a / games_a − wins_b / games_b`` (default 95 %); bounds in ``[-1, 1]``.

    Source: R. G. Newcombe, "Interval estimation for the difference between independent proportions",
    Statistics in Medicine 17 (1998). It treats the two samples as independent; two rates measured on the same
    seeded deals are positively correlated, which makes the interval conservative (wider than needed).

    Raises:
        ValueError: as :func:`wilson_interval`, for either sample.
    """
    low_a, high_a = wilson_interval(wins_a, games_a, z)
    low_b, high_b = wilson_interval(wins_b, games_b, z)
    p_a = wins_a / games_a if games_a else 0.5
    p_b = wins_b / games_b if games_b else 0.5
    d = p_a - p_b
    low = d - math.sqrt((p_a - low_a) ** 2 + (high_b - p_b) ** 2)
    high = d + math.sqrt((high_a - p_a) ** 2 + (p_b - low_b) ** 2)
    return max(-1.0, low), min(1.0, high)


def sum_interval(wins_a: int, games_a: int, wins_b: int, games_b: int,
                 z: float = 1.959963984540054) -> tuple[float, float]:
    """The interval of the sum of two binomial proportions ``wins_a / games_a + wins_b / games_b`` (default 95 %),
    by the method of variance estimates recovery (MOVER); bounds in ``[0, 2]``. ``p_a + p_b = 1 + (p_a − (1 − p_b))``
    and the Wilson interval of ``1 − p_b`` mirrors ``p_b``'s, so this is :func:`difference_interval` of ``p_a`` and
    the losses ``(games_b − wins_b) / games_b``, plus 1.

    Source: G. Y. Zou and A. Donner, "Construction of confidence limits about effect measures: a general
    approach", Statistics in Medicine 27 (2008). The two samples are taken as independent.

    Raises:
        ValueError: as :func:`wilson_interval`, for either sample.
    """
    if games_b < 0 or not 0 <= wins_b <= games_b:
        raise ValueError(f"need 0 <= successes <= trials; got successes={wins_b}, trials={games_b}")
    low, high = difference_interval(wins_a, games_a, games_b - wins_b, games_b, z)
    return low + 1, high + 1
