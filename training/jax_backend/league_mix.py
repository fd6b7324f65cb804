"""The opponent mix of a side's training in a league: which opponents its games meet, and how often.

A league side trains against the other side's newest policy (``league.latest`` of its games), the fixed shares of
named fixed members (``league.fixed_share``) and, for the rest, the other side's population drawn by its meta-game
Nash weights: pooled (:func:`opponent_mix`) or at each table size (:func:`opponent_mix_by_size`,
``league.meta_game: per_size``). The results are the rollout's opponent probabilities over (latest, past,
heuristic, random, probes…) and its ``past`` pool (:class:`.rollout.Opponents`); :func:`mix_record` and
:func:`mix_record_by_size` are ``league.json``'s record of them.
"""

from __future__ import annotations

import numpy as np

from .population import Member

__all__ = ["mix_record", "mix_record_by_size", "opponent_mix", "opponent_mix_by_size"]


def opponent_mix(nash: dict[str, float], members: list[Member], probes: list[str], latest: float,
                 newest: bool, pool: int, fixed_share: dict[str, float] | None = None,
                 pooled: list[str] | None = None) -> tuple[np.ndarray, list[str], np.ndarray]:
    """The rollout's opponent probabilities for a side trained against the other side's ``members`` with Nash
    weights ``nash`` (name → weight), ``latest`` of the games against its newest policy (if ``newest``), and
    ``fixed_share[name]`` of them kept for each named fixed member among ``members`` (``league.fixed_share``;
    names absent from ``members`` keep nothing): the Nash mixture shares what is left. ``pooled``: the policy
    members of the ``past`` pool, in order (default: the ``pool`` heaviest with positive weight); one with no
    weight here gets probability 0 within ``past``.

    Returns:
        ``(probabilities, pooled, weights)``: float32 ``(4 + len(probes),)`` over (latest, past, heuristic, random,
        probes…); the names of the policy members in the ``past`` pool (the ``pool`` heaviest with positive weight);
        their probabilities within ``past`` (float32 ``(pool,)``, zeros past the real ones; ``[1, 0, …]`` when
        ``past`` cannot be drawn).
    """
    weight = {m.name: max(0.0, float(nash.get(m.name, 0.0))) for m in members}
    if pooled is None:
        policies = sorted((m for m in members if m.kind == "policy" and weight[m.name] > 0),
                          key=lambda m: (-weight[m.name], m.iteration))[:pool]
    else:
        by_name = {m.name: m for m in members}
        policies = [by_name[name] for name in pooled]

    def slot(m: Member) -> int:  # a fixed member's entry in the rollout's opponent kinds
        return 2 if m.kind == "heuristic" else 3 if m.kind == "random" else 4 + probes.index(m.name)

    share = latest if newest else 0.0
    raw = np.zeros(4 + len(probes))
    raw[0] = share
    raw[1] = sum(weight[m.name] for m in policies)
    for m in members:
        if m.kind != "policy":
            raw[slot(m)] += weight[m.name]
    rest = raw[1:].sum()
    if rest <= 0:  # cannot happen for a solved mixture; named if it does
        raise ValueError(f"the Nash mixture {nash} gives no weight to any member")
    kept = {m.name: float((fixed_share or {}).get(m.name, 0.0)) for m in members if m.kind != "policy"}
    raw[1:] *= (1 - share - sum(kept.values())) / rest
    for m in members:
        if kept.get(m.name):
            raw[slot(m)] += kept[m.name]
    past = np.zeros(pool)
    past[: len(policies)] = [weight[m.name] for m in policies]
    if past.sum() > 0:
        past /= past.sum()
    else:  # past is not drawn here (raw[1] == 0); the draw still needs a distribution
        past[0] = 1.0
    return (raw / raw.sum()).astype(np.float32), [m.name for m in policies], past.astype(np.float32)


def opponent_mix_by_size(nash_by_size: dict[int, dict[str, float]], members: list[Member], probes: list[str],
                         latest: float, newest: bool, pool: int, fixed_share: dict[str, float] | None,
                         player_counts, size_probabilities=None) -> tuple[np.ndarray, list[str], np.ndarray]:
    """:func:`opponent_mix` at each table size of ``player_counts`` (``league.meta_game: per_size``), from that
    size's Nash weights ``nash_by_size[n]``, over one ``past`` pool of at most ``pool`` policy members: all those
    with a positive weight at some size when they fit; else each size's heaviest, then the most often drawn
    (weight × ``size_probabilities``, the chance a game is dealt at each size; default uniform). A member left out
    gives its weight at a size to the rest of that size's mixture, as :func:`opponent_mix` does with the pool.

    Returns:
        ``(probabilities, pooled, weights)``: float32 ``(S, 4 + len(probes))`` and ``(S, pool)``, row ``s`` for
        table size ``player_counts[s]`` (the rollout's :class:`~.rollout.Opponents` rows), and the pool's names.
    """
    counts = list(player_counts)
    size_p = np.full(len(counts), 1 / len(counts)) if size_probabilities is None else np.asarray(size_probabilities)
    weight = {m.name: [max(0.0, float(nash_by_size[n].get(m.name, 0.0))) for n in counts]
              for m in members if m.kind == "policy"}
    best = {name: max(w) for name, w in weight.items()}
    order = sorted((m for m in members if m.kind == "policy" and best[m.name] > 0),
                   key=lambda m: (-best[m.name], m.iteration))
    if len(order) > pool:  # each size keeps its heaviest policy, so no size loses its whole policy share
        chosen = {max(order, key=lambda m: (weight[m.name][s], -m.iteration)).name
                  for s in range(len(counts)) if any(weight[m.name][s] > 0 for m in order)}
        often = sorted(order, key=lambda m: (-float(size_p @ np.asarray(weight[m.name])), m.iteration))
        for m in often:
            if len(chosen) >= pool:
                break
            chosen.add(m.name)
        order = [m for m in order if m.name in chosen][:pool]
    pooled = [m.name for m in order]
    rows = [opponent_mix(nash_by_size[n], members, probes, latest, newest, pool, fixed_share, pooled)
            for n in counts]
    return (np.stack([r[0] for r in rows]), pooled, np.stack([r[2] for r in rows]))


def mix_record(probabilities: np.ndarray, past_weights: np.ndarray, pooled: list[str], probes: list[str]) -> dict:
    """``league.json``'s record of an opponent mix: share of the games per member name (``latest``: the newest)."""
    return {
        "latest": round(float(probabilities[0]), 6),
        **{m: round(float(probabilities[1] * w), 6) for m, w in zip(pooled, past_weights)},
        **{k: round(float(p), 6) for k, p in zip(("heuristic", "random", *probes), probabilities[2:]) if p > 0},
    }


def mix_record_by_size(probabilities: np.ndarray, past_weights: np.ndarray, pooled: list[str], probes: list[str],
                       player_counts, size_probabilities: np.ndarray) -> dict:
    """:func:`mix_record` of per-size rows: each name's share averaged over the table-size draw, and ``by_size``."""
    rows = [mix_record(p, w, pooled, probes) for p, w in zip(probabilities, past_weights)]
    names = dict.fromkeys(k for record in rows for k in record)
    return {**{k: round(sum(p * r.get(k, 0.0) for p, r in zip(size_probabilities, rows)), 6) for k in names},
            "by_size": {str(n): r for n, r in zip(player_counts, rows)}}
