"""Hidden-role metrics of any game that declares them: tallies summed over games → values with 95 % intervals.

A game's ``metrics`` capability (``Game.metrics``; ``None`` where the game has none, and the kit's report
says so in words) is an object, usually a module of the game's folder, with:

- ``METRICS``: the metric declarations, each with ``name``, ``kind`` (``"rate"``: numerator / denominator
  with a Wilson interval; ``"mean"``: total / denominator with a normal interval, which needs the sum of
  squares under ``<numerator>_sq``), ``numerator``, ``denominator`` (keys of the tally) and ``description``;
- ``tally_state(state, seed) -> {side key: Counter}``: the counts of one finished game dealt from ``seed``,
  per side (``GameType.sides``); counts add up over games, in any order;
- optionally ``PLOTTED``: the names of the rate metrics drawn in ``metrics.png`` (default: every rate).

Traitors Aboard's are in :mod:`traitors_env.games.traitors_aboard.metrics`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

from ..core.stats import wilson_interval

__all__ = ["plotted_metrics", "summarize"]

_Z = 1.959963984540054


def summarize(tally: Counter, metrics: Sequence[Any]) -> dict[str, dict]:
    """Per metric of ``metrics``: ``{"value", "interval": [low, high], "count"}`` (value and interval ``None``
    when the count, the denominator, is 0); values rounded to 6 decimals."""
    out = {}
    for metric in metrics:
        n = int(tally.get(metric.denominator, 0))
        total = tally.get(metric.numerator, 0)
        if n == 0:
            out[metric.name] = {"value": None, "interval": None, "count": 0}
            continue
        if metric.kind == "rate":
            low, high = wilson_interval(int(total), n)
            value = total / n
        else:
            value = total / n
            variance = max(0.0, tally.get(metric.numerator + "_sq", 0) / n - value * value) * n / max(1, n - 1)
            half = _Z * math.sqrt(variance / n)
            low, high = value - half, value + half
        out[metric.name] = {"value": round(value, 6), "interval": [round(low, 6), round(high, 6)], "count": n}
    return out


def plotted_metrics(capability) -> list:
    """The metric declarations drawn in ``metrics.png``: the capability's ``PLOTTED`` names, else every rate."""
    names = getattr(capability, "PLOTTED", None)
    if names is None:
        return [m for m in capability.METRICS if m.kind == "rate"]
    return [m for m in capability.METRICS if m.name in names]
