"""Deduction metrics: an agent's role beliefs scored against the true roles, per table size and game phase.

An agent with beliefs (:class:`traitors_env.core.agent.BeliefAgent`: ``beliefs(observation)``, P(hidden side)
per relative seat) is asked for them at each of its decisions in the kit's play loop
(:func:`traitors_env.evaluation.games.play_game`, ``beliefs=``), for the seats it plays only, before it acts.
Every finite entry (another seat of the table) is one *prediction* ``p`` of the truth ``y`` (1 if that seat is
on the game's hidden side, ``Game.hidden_side``, as the game master reads the deal: ``side_of_seat``). Per
prediction:

- **Brier score** ``(p − y)²`` (0 is perfect; lower is better);
- **log loss** ``−[y·ln p + (1 − y)·ln(1 − p)]`` in nats, ``p`` clipped to ``[1e-6, 1 − 1e-6]`` (:data:`EPS`);
- the same for the **base rate**: the prior that knows only the table size and the observer's own side, the
  hidden side's seats among the others over the others (:func:`base_rate`: at a 5-player Traitors Aboard table
  a Pirate's 1/4, a Mutineer's 0/4), on the same predictions;
- the same for the **heuristic** (the game's ``"heuristic"`` bot, where it has beliefs), asked about the same
  observation: a reference deducer next to the agent.

Means are over predictions (each decision weighs by the number of seats it scores). Predictions within a game
are correlated, and so are the games of one agent that the kit deals alike (game ``i`` at a table size gets the
same deal in every cell, :func:`.games.game_seed`), so the interval of ``Brier / base`` takes each *deal* as one
draw: the ratio of the two sums (a ratio estimator), its variance by the delta method over the deals' own sums
(the cluster-robust sandwich, ``G/(G−1)·Σ_g (a_g − R·b_g)² / (Σ_g b_g)²``), a 95 % normal interval
(:func:`ratio_interval`). A late phase that few games reach (3-player tables end early) gets a wide one. The game's phase of a decision is the thirds of ``Game.progress(state)``
at that decision (:data:`PHASES`: early < 1/3 ≤ mid < 2/3 ≤ late); a game without ``progress`` has one phase,
``"all"``. A game whose game master skips forced moves (``Game.skip_forced_moves``) is scored at the decisions
with a choice only (the others are not asked in training either). A reliability diagram (:data:`BINS` equal bins
of ``p``) pools each agent's predictions per side.

Tallies are :class:`collections.Counter` objects keyed by ``(num_players, phase, field)``,
``("reliability", bin, field)`` and, once a game is over (:func:`close_game`), ``("deal", num_players, deal,
phase, field)`` (the Brier and base-rate sums of each deal): they add up over games in any order (the kit's
workers).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np

from ..core.agent import agent_beliefs
from ..core.game import Game

__all__ = ["BINS", "EPS", "PHASES", "Deduction", "base_rate", "brier", "close_game", "log_loss", "phase_of",
           "ratio_interval", "summarize_deduction"]

PHASES = ("early", "mid", "late")
EPS = 1e-6
BINS = 10


def brier(p: np.ndarray | Sequence[float], y: np.ndarray | Sequence[float]) -> float:
    """Sum of ``(p − y)²`` over the predictions (shape ``(k,)`` each; 0.0 for none)."""
    p, y = np.asarray(p, dtype=np.float64), np.asarray(y, dtype=np.float64)
    return float(np.sum((p - y) ** 2))


def log_loss(p: np.ndarray | Sequence[float], y: np.ndarray | Sequence[float], eps: float = EPS) -> float:
    """Sum of ``−[y·ln p + (1 − y)·ln(1 − p)]`` (nats) over the predictions, ``p`` clipped to ``[eps, 1 − eps]``."""
    p = np.clip(np.asarray(p, dtype=np.float64), eps, 1.0 - eps)
    y = np.asarray(y, dtype=np.float64)
    return float(-np.sum(y * np.log(p) + (1.0 - y) * np.log1p(-p)))


def base_rate(game: Game, num_players: int, own_side: int) -> float:
    """The prior P(another seat is on the hidden side) of an observer of ``own_side`` at ``num_players``: the hidden
    side's seats (``side_sizes``) less the observer's own, over the ``num_players − 1`` others.

    Raises:
        MissingCapabilityError: for a game without ``hidden_side``; ValueError: for a table size it lacks.
    """
    n = game.check_players(num_players)
    hidden = game.hidden_count(n) - (own_side == game.hidden_side)
    return hidden / (n - 1)


def phase_of(progress: float | None) -> str:
    """``"early"``, ``"mid"`` or ``"late"`` for a progress fraction (thirds); ``"all"`` for ``None``."""
    if progress is None:
        return "all"
    return PHASES[min(2, max(0, int(math.floor(3.0 * float(progress) + 1e-9))))]


class Deduction:
    """Collects the deduction tallies of one play loop: ``tallies[(agent label, side key)]`` (a ``Counter``).

    Args:
        game: the game played (it must declare ``hidden_side``).
        heuristic: the reference deducer (an agent with ``beliefs``); default the game's ``"heuristic"`` bot when
            it has beliefs, else none. Its beliefs must not depend on its history (they are asked of one object
            for every seat).

    Raises:
        MissingCapabilityError: for a game without ``hidden_side``.
    """

    def __init__(self, game: Game, heuristic: object | None = None) -> None:
        game.require("hidden_side")
        self.game = game
        if heuristic is None and "heuristic" in game.bots:
            bot = game.make_bot("heuristic", 0)
            heuristic = bot if callable(getattr(bot, "beliefs", None)) else None
        self.heuristic = heuristic
        self.tallies: dict[tuple[str, str], Counter] = {}

    def fresh(self) -> Deduction:
        """A collector of the same game and heuristic with empty tallies (one game's, kept only if it finishes)."""
        other = object.__new__(Deduction)
        other.game, other.heuristic, other.tallies = self.game, self.heuristic, {}
        return other

    def observe(self, label: str, state, seat: int, observation: np.ndarray, beliefs: np.ndarray,
                action_mask: np.ndarray | None = None, agent: object | None = None) -> None:
        """Score one decision of ``seat`` (played by the agent ``label``), whose ``beliefs`` were read from
        ``observation`` before it acted (``state``: the engine state at that decision, read as a game master)."""
        game = self.game
        if game.skip_forced_moves and action_mask is not None and np.count_nonzero(action_mask) <= 1:
            return
        n = state.num_players
        own = game.side_of_seat(state, seat)
        truth = np.array([float(game.side_of_seat(state, (seat + r) % n) == game.hidden_side) for r in range(n)])
        beliefs = np.asarray(beliefs, dtype=np.float64)[:n]
        scored = np.isfinite(beliefs)
        scored[0] = False
        if not scored.any():
            return
        p, y = beliefs[scored], truth[scored]
        prior = np.full(p.shape, base_rate(game, n, own))
        phase = phase_of(game.progress(state) if game.progress is not None else None)
        tally = self.tallies.setdefault((label, game.type.sides[own]), Counter())
        k = int(scored.sum())
        tally[(n, phase, "decisions")] += 1
        tally[(n, phase, "predictions")] += k
        tally[(n, phase, "brier")] += brier(p, y)
        tally[(n, phase, "log_loss")] += log_loss(p, y)
        tally[(n, phase, "base_brier")] += brier(prior, y)
        tally[(n, phase, "base_log_loss")] += log_loss(prior, y)
        bins = np.minimum((p * BINS).astype(int), BINS - 1)
        for b, pi, yi in zip(bins.tolist(), p.tolist(), y.tolist()):
            tally[("reliability", b, "count")] += 1
            tally[("reliability", b, "belief")] += pi
            tally[("reliability", b, "hidden")] += yi
        if self.heuristic is None:
            return
        same = agent is not None and type(agent) is type(self.heuristic)
        reference = beliefs if same else agent_beliefs(self.heuristic, observation)
        if reference is None:
            return
        reference = np.asarray(reference, dtype=np.float64)[:n]
        both = scored & np.isfinite(reference)
        if both.any():
            q, yq = reference[both], truth[both]
            tally[(n, phase, "heuristic_predictions")] += int(both.sum())
            tally[(n, phase, "heuristic_brier")] += brier(q, yq)
            tally[(n, phase, "heuristic_log_loss")] += log_loss(q, yq)


def close_game(tally: Counter, deal: int) -> Counter:
    """One finished game's tally (one agent, one side) with its sums filed under its ``deal`` (the game's index at
    its table size): ``("deal", n, deal, phase, field)`` for ``field`` ``brier`` and ``base_brier``. The games of
    one deal (the same cards in every cell) add up into one cluster of :func:`ratio_interval`."""
    out = Counter(tally)
    for key, value in tally.items():
        if len(key) == 3 and key[0] != "reliability" and key[2] in ("brier", "base_brier"):
            n, phase, field = key
            out[("deal", n, deal, phase, field)] += value
    return out


def ratio_interval(a, b, z: float = 1.959964) -> tuple[float, float] | None:
    """95 % interval of ``R = Σa / Σb`` over clusters with sums ``a``, ``b`` (float arrays ``(G,)``):
    ``R ± z·√(G/(G−1)·Σ(a_g − R·b_g)²) / Σb`` (delta method), the lower end clipped at 0. ``None`` for fewer than
    2 clusters or ``Σb <= 0``."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    total = float(b.sum())
    if len(a) < 2 or total <= 0:
        return None
    r = float(a.sum()) / total
    half = z * math.sqrt(float(np.sum((a - r * b) ** 2)) * len(a) / (len(a) - 1)) / total
    return max(0.0, r - half), r + half


def _row(num_players, phase: str, counts: Counter, deals: dict) -> dict:
    k = counts["predictions"]
    h = counts["heuristic_predictions"]

    def mean(total, count):
        return round(total / count, 6) if count else None

    row = {
        "num_players": num_players, "phase": phase, "decisions": int(counts["decisions"]), "predictions": int(k),
        "brier": mean(counts["brier"], k), "log_loss": mean(counts["log_loss"], k),
        "base_brier": mean(counts["base_brier"], k), "base_log_loss": mean(counts["base_log_loss"], k),
        "heuristic_brier": mean(counts["heuristic_brier"], h), "heuristic_log_loss": mean(counts["heuristic_log_loss"], h),
        "heuristic_predictions": int(h),
    }
    row["brier_over_base"] = (round(counts["brier"] / counts["base_brier"], 4) if counts["base_brier"] > 0 else None)
    row["deals"] = len(deals)
    interval = ratio_interval([d["brier"] for d in deals.values()], [d["base_brier"] for d in deals.values()])
    row["brier_over_base_ci"] = None if interval is None else [round(x, 4) for x in interval]
    return row


def summarize_deduction(tally: Counter, players: Sequence[int]) -> dict:
    """One agent's tallies in one side as the report's entry.

    Returns:
        ``{"rows": [...], "reliability": [...]}``. ``rows``: per table size of ``players`` then ``"all"`` (pooled;
        not for one table size),
        per phase then ``"all"`` (pooled), the rows with predictions: ``num_players``, ``phase``, ``decisions``,
        ``predictions``, ``brier``, ``log_loss``, ``base_brier``, ``base_log_loss`` (the base rate's, same
        predictions), ``heuristic_brier``, ``heuristic_log_loss`` (the heuristic's on the same observations, over
        ``heuristic_predictions``), ``brier_over_base`` (the agent's Brier over the base rate's; ``None`` where the
        base rate is perfect), ``deals`` (the deals that scored the row, the interval's clusters; 0 for
        tallies without :func:`close_game`), ``brier_over_base_ci`` (its 95 % interval, :func:`ratio_interval`;
        ``None`` for fewer than 2 deals or a perfect base rate). ``reliability``: per bin of the belief, ``low``, ``high``, ``count``, ``mean_belief``,
        ``frequency`` (the share of those seats on the hidden side).
    """
    present = {key[1] for key in tally if len(key) == 3 and key[0] != "reliability"}
    phases = [p for p in (*PHASES, "all") if p in present]
    rows = []
    for n in [*players, "all"] if len(players) > 1 else list(players):
        for phase in [*phases, "all"] if phases != ["all"] else phases:
            counts: Counter = Counter()
            deals: dict[tuple, Counter] = {}
            for key, value in tally.items():
                if key[0] == "deal":  # a deal's own sums: the row's phases of it
                    _, key_n, deal, key_phase, field = key
                    if (n == "all" or key_n == n) and (phase == "all" or key_phase == phase):
                        deals.setdefault((key_n, deal), Counter())[field] += value
                elif key[0] != "reliability":
                    key_n, key_phase, field = key
                    if (n == "all" or key_n == n) and (phase == "all" or key_phase == phase):
                        counts[field] += value
            if counts["predictions"]:
                rows.append(_row(n, phase, counts, deals))
    reliability = []
    for b in range(BINS):
        count = tally[("reliability", b, "count")]
        reliability.append({
            "low": b / BINS, "high": (b + 1) / BINS, "count": int(count),
            "mean_belief": round(tally[("reliability", b, "belief")] / count, 6) if count else None,
            "frequency": round(tally[("reliability", b, "hidden")] / count, 6) if count else None,
        })
    return {"rows": rows, "reliability": reliability}
