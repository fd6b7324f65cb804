"""Hidden-role metrics of any game that declares them: tallies summed over games → values with 95 % intervals.

A game's ``metrics`` capability (``Game.metrics``; ``None`` where the game has none, and the kit's report
says so in words) is an object, usually a module of the game's folder, with:

- ``METRICS``: the metric declarations, each with ``name``, ``kind`` (``"rate"``: numerator / denominator
  with a Wilson interval; ``"mean"``: total / denominator with a normal interval, which needs the sum of
  squares under ``<numerator>_sq``), ``numerator``, ``denominator`` (keys of the tally) and ``description``;
- ``tally_state(state, seed) -> {side key: Counter}``: the counts of one finished game dealt from ``seed``,
  per side (``GameType.sides``); counts add up over games, in any order;
- optionally ``PLOTTED``: the names of the rate metrics drawn in ``metrics.png`` (default: every rate);
- optionally ``SUMMARY``: the names of the metrics in the report's per-agent summary table (default: the plotted
  ones);
- optionally, per metric, ``chance``: the tally key of the summed *per-decision chance* of the numerator's event
  (e.g. the probability that a uniformly random legal target is on the hidden side, added at each decision the
  denominator counts; any number type, :class:`fractions.Fraction` keeps sums exact). The summary then gives
  ``chance`` (that sum over the count) and ``over_chance`` (value / chance).

Traitors Aboard's are in :mod:`traitors_env.games.traitors_aboard.metrics`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

from ..core.stats import wilson_interval

__all__ = ["plotted_metrics", "summarize", "summary_metrics"]

_Z = 1.959963984540054


def summarize(tally: Counter, metrics: Sequence[Any]) -> dict[str, dict]:
    """Per metric of ``metrics``: ``{"value", "interval": [low, high], "count"}`` (value and interval ``None``
    when the count, the denominator, is 0); values rounded to 6 decimals. A metric that declares ``chance`` also gets
    ``chance`` (the mean per-decision chance over the count) and ``over_chance`` (value / chance; ``None`` where the
    chance is 0 or there is no count)."""
    out = {}
    for metric in metrics:
        n = int(tally.get(metric.denominator, 0))
        total = tally.get(metric.numerator, 0)
        chance_key = getattr(metric, "chance", None)
        if n == 0:
            out[metric.name] = {"value": None, "interval": None, "count": 0}
            if chance_key:
                out[metric.name].update(chance=None, over_chance=None)
            continue
        if metric.kind == "rate":
            low, high = wilson_interval(int(total), n)
            value = total / n
        else:
            value = total / n
            variance = max(0.0, tally.get(metric.numerator + "_sq", 0) / n - value * value) * n / max(1, n - 1)
            half = _Z * math.sqrt(variance / n)
            low, high = value - half, value + half
        out[metric.name] = {"value": round(float(value), 6), "interval": [round(low, 6), round(high, 6)], "count": n}
        if chance_key:
            chance = float(tally.get(chance_key, 0)) / n
            out[metric.name]["chance"] = round(chance, 6)
            out[metric.name]["over_chance"] = round(float(value) / chance, 4) if chance > 0 else None
    return out


def plotted_metrics(capability) -> list:
    """The metric declarations drawn in ``metrics.png``: the capability's ``PLOTTED`` names, else every rate."""
    names = getattr(capability, "PLOTTED", None)
    if names is None:
        return [m for m in capability.METRICS if m.kind == "rate"]
    return [m for m in capability.METRICS if m.name in names]


def summary_metrics(capability) -> list:
    """The metric declarations of the report's per-agent summary: the capability's ``SUMMARY`` names (in that
    order), else the plotted ones (:func:`plotted_metrics`).

    Raises:
        ValueError: naming a ``SUMMARY`` entry that no metric of ``METRICS`` has.
    """
    names = getattr(capability, "SUMMARY", None)
    if names is None:
        return plotted_metrics(capability)
    by_name = {m.name: m for m in capability.METRICS}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise ValueError(f"SUMMARY names {unknown}: not metrics of METRICS ({', '.join(by_name)})")
    return [by_name[n] for n in names]
