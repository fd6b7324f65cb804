"""A team equilibrium of a small variant: the Pirates correlate ex ante, the Mutineer best-responds (issue 50, item 6).

CFR+ (:mod:`.cfr`) converges to a *seat-level* equilibrium, yet on ``mini3`` the two Pirates deviating together gain
6.6 points (docs/solve.md, "A seat-level equilibrium is not a team equilibrium"). The standard team notion is the
team-maxmin equilibrium with ex-ante correlation (TMECor; Celli & Gatti 2018; Farina et al. 2018): before the game
the Pirate team draws one *joint pure plan* (a pure choice at every Pirate information state, both seats) from a
shared seed, and each Pirate seat follows its part; the Mutineer side (one seat per deal: one player with perfect
recall) plays a behaviour strategy. Against a correlated team, a per-seat behaviour policy cannot express the
mixture, so everything here works on the sequence form of the explicit tree (:func:`.exact.build_tree`):

- :class:`SequenceForm`: per terminal, chance's reach, the Pirates' return, each seat's last sequence (its last
  information state and action on the path) and the Mutineer's.
- :func:`solve`: a double oracle (column generation). The restricted game is the Pirates' mixture over the joint
  plans found so far against the Mutineer's *whole* sequence-form strategy space: two small LPs (HiGHS). The Pirates'
  oracle is their exact team best response against the Mutineer's strategy: person-by-person local search from
  several starts (cheap; any improving plan is a new column), and where it finds none, the exact MILP over both
  seats' pure sequence-form strategies (:func:`team_best_response_plan`, the formulation of
  :func:`.exact.team_best_response_milp`, returning the plan). The loop stops when the MILP certifies that the
  Pirates' best plan gains at most ``tolerance`` over the restricted value; since the Mutineer's restricted
  strategy space is already its full one, that gain is the exact team NashConv.
- :func:`evaluate_mixture`: the exact value of a mixture of joint plans against a Mutineer strategy, the Mutineer's
  best response to the mixture (the Pirates' reach of a terminal is ``Σ_k w_k·x1_k(z)·x2_k(z)``) and the Pirates'
  team best response; :func:`marginal_policy` the per-seat behaviour policy the mixture induces (what an
  uncoordinated team would play), which :func:`.exact.evaluate` can read.
- :func:`save_solution` / :func:`load_solution` (JSON, weights only) and :class:`TeamEquilibriumAgent`, which plays
  the correlated solution: it draws one joint plan per game from its seed.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..agents.tabular import observation_key
from ..agents.team_plan import FORMAT, VERSION, TeamEquilibriumAgent, TeamPolicy, TeamPolicyError, load_solution
from ..files import atomic_write_text
from .exact import _CHANCE, _TERMINAL, Tree, solve_team_milp
from .team_dp import NoDecomposition, Parts, team_best_response_dp

__all__ = ["FORMAT", "SequenceForm", "Solution", "TeamEquilibriumAgent", "TeamPolicy", "TeamPolicyError",
           "evaluate_mixture", "load_solution", "marginal_policy", "observation_key", "save_solution", "solve",
           "solution_data", "team_best_response_plan"]

PIRATES, MUTINEERS = 0, 1
MAX_JOINT = 100_000  # most joint choices of the Pirates at one part for the DP oracle (else the MILP)


def _points(pirate_gain: float) -> float:
    """A gain in the Pirates' return (±1 per game) as win-rate points."""
    return 100.0 * pirate_gain / 2.0


class SequenceForm:
    """The sequence form of ``tree`` for the two sides (module doc).

    Sequences are numbered as CFR's slots: information state ``I``'s action ``a`` is ``offsets[I] + a``; the empty
    sequence is ``-1``, which indexes the trailing 1 of every realization vector here (``np.append(x, 1.0)``).

    Attributes:
        width, offsets: per information state, its number of actions and its first sequence.
        parent: per information state, its seat's previous sequence on every path to it (perfect recall), or −1.
        order: information states in preorder of first visit (a parent sequence's state comes first).
        chance, pirate_return: per terminal, chance's reach and the Pirates' return.
        last: per terminal and seat, the seat's last sequence on the path (−1: none).
        pirate_last: ``last`` where the seat is a Pirate, else −1; mutineer_last: the Mutineer's last sequence.
    """

    def __init__(self, tree: Tree) -> None:
        start = time.perf_counter()
        self.tree = tree
        n = tree.num_players
        num_info = len(tree.info_keys)
        self.width = np.zeros(num_info, dtype=np.int64)
        self.parent = np.full(num_info, -2, dtype=np.int64)
        order: list[int] = []
        self.side = np.asarray(tree.info_side, dtype=np.int64)
        self.seat = np.asarray(tree.info_seat, dtype=np.int64)
        for node, k in enumerate(tree.kind):
            if k not in (_CHANCE, _TERMINAL):
                self.width[tree.info[node]] = len(tree.children[node])
        self.offsets = np.concatenate([[0], np.cumsum(self.width)])
        self.num_seq = int(self.offsets[-1])
        self.seq_info = np.repeat(np.arange(num_info), self.width)
        #: per Pirate information state, the sets of team mates' last Pirate sequences it is reached with
        self.teammates: dict[int, set[frozenset[int]]] = {}
        terminals, chance, last_rows = [], [], []
        stack = [(0, 1.0, (-1,) * n)]
        while stack:
            node, reach, last = stack.pop()
            k = tree.kind[node]
            if k == _TERMINAL:
                terminals.append(node)
                chance.append(reach)
                last_rows.append(last)
            elif k == _CHANCE:
                for w, child in zip(tree.probs[node], tree.children[node]):
                    stack.append((child, reach * w, last))
            else:
                info, seat = tree.info[node], tree.player[node]
                if self.parent[info] == -2:
                    self.parent[info] = last[seat]
                    order.append(info)
                elif self.parent[info] != last[seat]:
                    raise ValueError(f"information state {tree.info_keys[info]!r} follows sequences "
                                     f"{self.parent[info]} and {last[seat]} of seat {seat}; expected perfect recall")
                if tree.info_side[info] == PIRATES:  # the team mates' Pirate sequences so far (see the agent)
                    mates = frozenset(q for s, q in enumerate(last) if s != seat and q >= 0
                                      and tree.info_side[self.seq_info_of(q)] == PIRATES)
                    self.teammates.setdefault(info, set()).add(mates)
                base = int(self.offsets[info])
                for a, child in enumerate(tree.children[node]):
                    stack.append((child, reach, last[:seat] + (base + a,) + last[seat + 1:]))
        self.order = np.asarray(order, dtype=np.int64)
        self.terminal = np.asarray(terminals, dtype=np.int64)
        self.chance = np.asarray(chance)
        self.pirate_return = np.asarray([tree.side0_return[t] for t in terminals])
        self.last = np.asarray(last_rows, dtype=np.int64).reshape(len(terminals), n)
        seq_side = np.append(self.side[self.seq_info], -1)  # index −1: the empty sequence, no side
        self.pirate_last = np.where(seq_side[self.last] == PIRATES, self.last, -1)
        mutineer = np.where(seq_side[self.last] == MUTINEERS, self.last, -1)
        if ((mutineer >= 0).sum(axis=1) > 1).any():
            raise ValueError("a deal has two Mutineer seats that act; expected one Mutineer seat per deal (the "
                             "Mutineer side as one player with perfect recall)")
        self.mutineer_last = mutineer.max(axis=1)
        self.pirate_infos = self.order[self.side[self.order] == PIRATES]
        self.mutineer_infos = self.order[self.side[self.order] == MUTINEERS]
        self.pirate_seats = sorted({int(s) for s in self.seat[self.pirate_infos]})
        self.mutineer_seqs = np.flatnonzero(self.side[self.seq_info] == MUTINEERS)
        self.seconds = time.perf_counter() - start

    def seq_info_of(self, seq: int) -> int:
        return int(self.seq_info[seq])

    # ------------------------------------------------------------ plans and realizations
    def plan_realization(self, plan: np.ndarray) -> np.ndarray:
        """A joint pure plan's realization over all sequences (Pirate ones; 1 at the trailing empty sequence).
        ``plan``: per information state, the chosen action index (read at Pirate information states only)."""
        x = np.zeros(self.num_seq + 1)
        x[-1] = 1.0
        for info in self.pirate_infos:
            x[self.offsets[info] + plan[info]] = x[self.parent[info]]
        return x

    def plan_reach(self, plan: np.ndarray) -> np.ndarray:
        """Per terminal, 1 where the plan's seats take every Pirate action on its path, else 0."""
        x = self.plan_realization(plan)
        return np.prod(x[self.pirate_last], axis=1)

    def realization(self, policy: list[np.ndarray], side: int) -> np.ndarray:
        """The realization plan of ``side``'s behaviour ``policy`` (per information state, aligned with its
        actions), over all sequences, with the trailing empty sequence."""
        y = np.zeros(self.num_seq + 1)
        y[-1] = 1.0
        for info in self.order[self.side[self.order] == side]:
            y[self.offsets[info]:self.offsets[info + 1]] = y[self.parent[info]] * np.asarray(policy[info])
        return y

    def behaviour(self, y: np.ndarray, side: int, fallback: list[np.ndarray] | None = None) -> dict[int, np.ndarray]:
        """``side``'s behaviour policy from a realization plan; uniform (or ``fallback``) where the side never gets."""
        out = {}
        for info in self.order[self.side[self.order] == side]:
            part = y[self.offsets[info]:self.offsets[info + 1]]
            total = part.sum()
            if total > 1e-15:
                out[int(info)] = part / total
            else:
                out[int(info)] = fallback[info] if fallback is not None else np.full(len(part), 1.0 / len(part))
        return out

    def payoff_columns(self, plans: list[np.ndarray]) -> np.ndarray:
        """Per plan, the Pirates' expected return per Mutineer sequence (the trailing entry: the empty sequence),
        shape ``(plans, num_seq + 1)``: ``A_k[σ] = Σ_{z: σ_M(z) = σ} chance(z)·return(z)·reach_k(z)``."""
        index = np.where(self.mutineer_last >= 0, self.mutineer_last, self.num_seq)
        weight = self.chance * self.pirate_return
        return np.stack([np.bincount(index, weight * self.plan_reach(p), minlength=self.num_seq + 1) for p in plans])

    # ------------------------------------------------------------ best responses
    def mutineer_best_response(self, column: np.ndarray) -> tuple[float, np.ndarray]:
        """The Mutineer's exact best response against the Pirates' payoff per Mutineer sequence ``column``
        (a mixture's ``Σ_k w_k A_k``): the Pirates' return under it (the Mutineer minimises) and its realization."""
        value = column.copy()  # per sequence: its own terminals plus the best of what follows
        choice = {}
        for info in self.mutineer_infos[::-1]:
            part = value[self.offsets[info]:self.offsets[info + 1]]
            a = int(np.argmin(part))
            choice[int(info)] = a
            value[self.parent[info]] += part[a]
        y = np.zeros(self.num_seq + 1)
        y[-1] = 1.0
        for info in self.mutineer_infos:
            y[self.offsets[info] + choice[int(info)]] = y[self.parent[info]]
        return float(value[-1]), y

    def pirate_value(self, plan: np.ndarray, y: np.ndarray) -> float:
        """The Pirates' expected return when they play ``plan`` and the Mutineer the realization ``y``."""
        return float(np.sum(self.chance * self.pirate_return * y[self.mutineer_last] * self.plan_reach(plan)))

    def seat_best_response(self, plan: np.ndarray, y: np.ndarray, seat: int) -> tuple[float, np.ndarray]:
        """Pirate ``seat``'s exact best response, its team mates keeping ``plan``, the Mutineer ``y``: the team's
        return and the updated plan (every information state of the seat, reached or not)."""
        x = self.plan_realization(plan)
        others = [s for s in self.pirate_seats if s != seat]
        w = self.chance * self.pirate_return * y[self.mutineer_last] * np.prod(x[self.pirate_last[:, others]], axis=1)
        index = np.where(self.pirate_last[:, seat] >= 0, self.pirate_last[:, seat], self.num_seq)
        value = np.bincount(index, w, minlength=self.num_seq + 1)
        new = plan.copy()
        infos = self.pirate_infos[self.seat[self.pirate_infos] == seat]
        for info in infos[::-1]:
            part = value[self.offsets[info]:self.offsets[info + 1]]
            a = int(np.argmax(part))
            new[info] = a
            value[self.parent[info]] += part[a]
        return float(value[-1]), new

    def person_by_person(self, plan: np.ndarray, y: np.ndarray, max_rounds: int = 50) -> tuple[float, np.ndarray]:
        """Coordinate ascent from ``plan``: each Pirate seat's best response in turn until none improves (a
        person-by-person optimum: a lower bound on the team best response)."""
        best = self.pirate_value(plan, y)
        for _ in range(max_rounds):
            previous = best
            for seat in self.pirate_seats:
                value, candidate = self.seat_best_response(plan, y, seat)
                if value > best + 1e-12:
                    best, plan = value, candidate
            if best <= previous + 1e-12:
                break
        return best, plan


def team_dp_parts(form: SequenceForm):
    """The Pirates' common-knowledge parts of ``form``'s tree (:class:`.team_dp.Parts`), or ``None`` where the team's
    information does not decompose into parts small enough for :func:`.team_dp.team_best_response_dp` (computed once
    per form: they do not depend on the Mutineer's strategy)."""
    if not hasattr(form, "_team_parts"):
        try:
            parts = Parts(form.tree, PIRATES)
            form._team_parts = parts if max(parts.joint, default=1) <= MAX_JOINT else None
        except NoDecomposition:
            form._team_parts = None
    return form._team_parts


def team_best_response_plan(form: SequenceForm, y: np.ndarray, time_limit: float = 600.0,
                            method: str = "auto") -> dict:
    """The Pirates' exact team best response against the Mutineer's realization ``y``, with its plan.

    ``method``: ``"dp"``, the dynamic program over the team's common-knowledge parts (:mod:`.team_dp`; OpenSpiel's
    ``social_deduction``, where it takes about a second); ``"milp"``, the mixed-integer program below; ``"auto"``
    (default), the DP where the parts allow it (:func:`team_dp_parts`), else the MILP (Traitors Aboard, whose
    Pirates' private information puts all their states in one part). Returns ``value`` (the Pirates' return),
    ``plan``, ``exact``, ``bound``, ``method`` and sizes.

    The mixed-integer program of :func:`.exact.team_best_response_milp` (binary sequence-form plan per Pirate seat,
    one continuous variable per product of several seats' last sequences), built from the terminal arrays, with each
    product bounded only on the side its objective pushes it (``z ≤ x_i`` where its coefficient is positive,
    ``z ≥ Σ x_i − (k − 1)`` where negative: exact at binary ``x`` and smaller). Returns ``value`` (the Pirates'
    return), ``plan``, ``exact`` (HiGHS closed the gap), ``bound`` and sizes.
    """
    start = time.perf_counter()
    if method not in ("auto", "dp", "milp"):
        raise ValueError(f"method {method!r}; expected 'auto', 'dp' or 'milp'")
    parts = team_dp_parts(form) if method != "milp" else None
    if parts is not None:
        behaviour = form.behaviour(y, MUTINEERS)  # uniform where the Mutineer's own play never gets: reach 0 there
        policy = [behaviour.get(i, np.ones(w) / w) for i, w in enumerate(form.width)]
        result = team_best_response_dp(form.tree, policy, PIRATES, max_joint=MAX_JOINT, parts=parts)
        plan = np.zeros(len(form.width), dtype=np.int64)
        for info, a in result["plan"].items():
            plan[info] = a
        return {"value": form.pirate_value(plan, y), "dp_value": result["value"], "plan": plan, "exact": True,
                "bound": result["value"], "method": "dp", "parts": result["parts"], "states": result["states"],
                "seconds": round(time.perf_counter() - start, 2)}
    if method == "dp":
        raise NoDecomposition("the Pirates' information does not decompose into small parts here; use the MILP")
    coef = form.chance * form.pirate_return * y[form.mutineer_last]
    keep = coef != 0
    keys = np.sort(form.pirate_last[keep], axis=1)
    unique, inverse = np.unique(keys, axis=0, return_inverse=True)
    total = np.bincount(inverse.ravel(), coef[keep], minlength=len(unique))
    seq_of = {int(s): j for j, s in enumerate(np.flatnonzero(form.side[form.seq_info] == PIRATES))}
    num_x = len(seq_of)
    infosets = [([seq_of[int(s)] for s in range(form.offsets[info], form.offsets[info + 1])],
                 seq_of[int(form.parent[info])] if form.parent[info] >= 0 else -1) for info in form.pirate_infos]
    terms: dict[tuple[int, ...], float] = {}
    for key, value in zip(unique, total):
        members = tuple(sorted(seq_of[int(s)] for s in key if s >= 0))
        terms[members] = terms.get(members, 0.0) + float(value)
    result, constant, products = solve_team_milp(num_x, infosets, terms, time_limit)
    if result.x is None:
        raise RuntimeError(f"the team best response MILP stopped without a solution ({result.message}); expected one "
                           f"within time_limit={time_limit} s")
    plan = np.zeros(len(form.width), dtype=np.int64)
    for info in form.pirate_infos:
        part = [result.x[seq_of[int(s)]] for s in range(form.offsets[info], form.offsets[info + 1])]
        plan[info] = int(np.argmax(part))
    bound = getattr(result, "mip_dual_bound", None)
    return {"value": form.pirate_value(plan, y), "milp_value": constant - float(result.fun), "plan": plan,
            "exact": bool(result.status == 0), "method": "milp",
            "bound": None if bound is None or not np.isfinite(bound) else constant - float(bound),
            "binaries": num_x, "products": products, "seconds": round(time.perf_counter() - start, 2)}


# ------------------------------------------------------------------ the restricted game
def _mutineer_constraints(form: SequenceForm):
    """The Mutineer's sequence-form constraints ``F y = f`` over ``form.mutineer_seqs`` and the empty sequence (the
    last column): row 0 ``y(∅) = 1``, then per Mutineer information state ``Σ_a y(I, a) − y(parent) = 0``."""
    from scipy.sparse import csr_matrix

    seqs = form.mutineer_seqs
    col = {int(s): j for j, s in enumerate(seqs)}
    empty = len(seqs)
    col[-1] = empty
    rows, cols, vals = [0], [empty], [1.0]  # sparse: social_deduction's mini3 has 21,942 × 46,000 of them
    for row, info in enumerate(form.mutineer_infos, start=1):
        for s in range(form.offsets[info], form.offsets[info + 1]):
            rows.append(row)
            cols.append(col[s])
            vals.append(1.0)
        rows.append(row)
        cols.append(col[int(form.parent[info])])
        vals.append(-1.0)
    F = csr_matrix((vals, (rows, cols)), shape=(1 + len(form.mutineer_infos), len(seqs) + 1))
    f = np.zeros(F.shape[0])
    f[0] = 1.0
    return F, f, np.append(seqs, -1)


def solve_restricted(form: SequenceForm, columns: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """The restricted game: the Pirates' mixture over the plans whose payoff ``columns`` are given (rows) against
    the Mutineer's whole sequence-form strategy space. Two LPs (HiGHS): the Pirates' maxmin gives the weights, the
    Mutineer's minmax its realization plan. Returns the value (the Pirates' return), weights and realization."""
    from scipy.optimize import linprog
    from scipy.sparse import csr_matrix, hstack

    F, f, seqs = _mutineer_constraints(form)
    A = csr_matrix(columns[:, seqs])  # (plans, Mutineer sequences + empty)
    k, m = A.shape
    rows = F.shape[0]
    # Pirates: max f·v  s.t.  Fᵀ v − Aᵀ w ≤ 0, Σ w = 1, w ≥ 0, v free
    pirates = linprog(np.concatenate([-f, np.zeros(k)]), A_ub=hstack([F.T, -A.T], format="csr"), b_ub=np.zeros(m),
                      A_eq=np.concatenate([np.zeros(rows), np.ones(k)])[None], b_eq=[1.0],
                      bounds=[(None, None)] * rows + [(0, None)] * k, method="highs")
    # Mutineer: min u  s.t.  A y − u ≤ 0, F y = f, y ≥ 0
    mutineer = linprog(np.append(np.zeros(m), 1.0), A_ub=hstack([A, -np.ones((k, 1))], format="csr"),
                       b_ub=np.zeros(k), A_eq=hstack([F, csr_matrix((rows, 1))], format="csr"), b_eq=f,
                       bounds=[(0, None)] * m + [(None, None)], method="highs")
    for name, result in (("Pirates'", pirates), ("Mutineer's", mutineer)):
        if result.status != 0:
            raise RuntimeError(f"the restricted game's {name} LP failed: {result.message}; expected an optimum")
    weights = np.maximum(pirates.x[rows:], 0.0)
    weights /= weights.sum()
    y = np.zeros(form.num_seq + 1)
    y[seqs] = np.maximum(mutineer.x[:m], 0.0)
    y[-1] = 1.0
    return float(-pirates.fun), weights, y


# ------------------------------------------------------------------ solution and evaluation
@dataclass
class Solution:
    """A team equilibrium (TMECor) of a small variant.

    Attributes:
        plans: the Pirates' joint pure plans in the support (per information state, an action index; read at
            Pirate information states); weights: their probabilities.
        mutineer: the Mutineer's behaviour policy (per Mutineer information state id, aligned with its actions).
        value: the restricted game's value (the Pirates' return), exact against the Mutineer's best response.
        team_best_response: the Pirates' exact team best response (return) against ``mutineer``.
        history: one row per iteration.
    """

    plans: list[np.ndarray]
    weights: np.ndarray
    mutineer: dict[int, np.ndarray]
    value: float
    team_best_response: float
    exact: bool
    history: list[dict] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def nash_conv_points(self) -> float:
        """The project's team NashConv in points: the two sides' team best responses' win rates summed, minus 100."""
        return _points(self.team_best_response - self.value)

    def summary(self) -> dict:
        return {"pirates_win_rate": (self.value + 1) / 2, "mutineers_win_rate": (1 - self.value) / 2,
                "pirates_team_best_response_win_rate": (self.team_best_response + 1) / 2,
                "nash_conv_points": self.nash_conv_points, "exact": self.exact, "support": len(self.plans),
                "iterations": len(self.history), "seconds": round(self.seconds, 1)}


def solve(form: SequenceForm, tolerance_points: float = 0.01, max_iterations: int = 500, starts: int = 8,
          milp_time_limit: float = 600.0, seed: int = 0, log=None) -> Solution:
    """A TMECor of ``form``'s game by double oracle (module doc) to a certified team NashConv ≤ ``tolerance_points``.

    Args:
        starts: random joint plans added to the support's plans as starts of the person-by-person search.
        milp_time_limit: seconds per exact certificate (a MILP that stops early raises).
        log: ``print``-like callable for one line per iteration, or ``None``.
    """
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    tolerance = 2.0 * tolerance_points / 100.0  # points to the Pirates' return

    def random_plan() -> np.ndarray:  # 0 at the Mutineer's states, so that equal plans have equal bytes
        return np.where(form.side == PIRATES, (rng.random(len(form.width)) * form.width).astype(np.int64), 0)

    dp = team_dp_parts(form) is not None
    uniform = np.append(np.zeros(form.num_seq), 1.0)
    for info in form.mutineer_infos:
        uniform[form.offsets[info]:form.offsets[info + 1]] = uniform[form.parent[info]] / form.width[info]
    _, first = form.person_by_person(np.zeros(len(form.width), dtype=np.int64), uniform)
    plans = [first]
    seen = {first.tobytes()}
    columns = form.payoff_columns(plans)
    history = []
    for iteration in range(1, max_iterations + 1):
        t0 = time.perf_counter()
        value, weights, y = solve_restricted(form, columns)
        found = []
        # where the DP applies it is the oracle at every iteration (exact, about a second); else person-by-person
        # from every plan so far and random starts first, the MILP only to certify
        for plan in [] if dp else [*plans, *(random_plan() for _ in range(starts))]:
            best, candidate = form.person_by_person(plan, y)
            if best > value + 1e-9 and candidate.tobytes() not in seen:
                seen.add(candidate.tobytes())
                found.append((best, candidate))
        row = {"iteration": iteration, "support": int((weights > 1e-12).sum()), "plans": len(plans),
               "value": value, "pirates_win_rate": (value + 1) / 2}
        certified = None
        if found:
            row["oracle"] = "person_by_person"
            row["best_response"] = max(b for b, _ in found)
        else:
            certified = team_best_response_plan(form, y, time_limit=milp_time_limit)
            if not certified["exact"]:
                raise RuntimeError(f"the certificate MILP stopped early ({certified['seconds']} s, bound "
                                   f"{certified['bound']}); expected an exact optimum: raise milp_time_limit")
            row["oracle"] = certified["method"]
            row["best_response"] = certified["value"]
            row["oracle_seconds"] = certified["seconds"]
            if certified["value"] - value > tolerance and certified["plan"].tobytes() not in seen:
                seen.add(certified["plan"].tobytes())
                found.append((certified["value"], certified["plan"]))
        # the team NashConv: at least this where person-by-person found it (a lower bound on the team best
        # response), exactly this where the MILP did
        row["gap_points"] = _points(row["best_response"] - value)
        row["seconds"] = round(time.perf_counter() - t0, 2)
        history.append(row)
        if log is not None:
            log(" ".join(f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()))
        if certified is not None and not found:
            keep = weights > 1e-12
            return Solution(plans=[p for p, k in zip(plans, keep) if k], weights=weights[keep] / weights[keep].sum(),
                            mutineer=form.behaviour(y, MUTINEERS), value=value,
                            team_best_response=max(certified["value"], value), exact=True, history=history,
                            seconds=time.perf_counter() - start)
        for _, plan in found:
            plans.append(plan)
        columns = np.vstack([columns, form.payoff_columns([p for _, p in found])])
    raise RuntimeError(f"no team equilibrium within {max_iterations} iterations (last gap "
                       f"{history[-1]['gap_points']:.3f} points); expected convergence")


def evaluate_mixture(form: SequenceForm, plans: list[np.ndarray], weights: np.ndarray,
                     mutineer: dict[int, np.ndarray] | None = None, milp_time_limit: float = 600.0) -> dict:
    """The exact figures of the Pirates' mixture ``Σ_k w_k plan_k`` (and, given, the Mutineer's ``mutineer``
    behaviour): the Mutineer's best response to the mixture; with ``mutineer``: the profile's value and the Pirates'
    exact team best response (MILP); and the team NashConv in points."""
    weights = np.asarray(weights, dtype=float)
    if len(plans) != len(weights) or (weights < 0).any() or not math.isclose(weights.sum(), 1.0, abs_tol=1e-9):
        raise ValueError(f"weights {weights.tolist()} for {len(plans)} plans; expected one non-negative weight per plan "
                         "summing to 1")
    column = weights @ form.payoff_columns(plans)
    mutineer_br, _ = form.mutineer_best_response(column)
    out = {"mutineers_best_response_win_rate": (1 - mutineer_br) / 2}
    if mutineer is not None:
        policy = [mutineer.get(i) for i in range(len(form.width))]
        y = form.realization(policy, MUTINEERS)
        reach = weights @ np.stack([form.plan_reach(p) for p in plans])  # Σ_k w_k·x1_k(z)·x2_k(z)
        value = float(np.sum(form.chance * form.pirate_return * y[form.mutineer_last] * reach))
        team = team_best_response_plan(form, y, time_limit=milp_time_limit)
        out.update({"pirates_win_rate": (value + 1) / 2, "mutineers_win_rate": (1 - value) / 2,
                    "pirates_team_best_response_win_rate": (team["value"] + 1) / 2,
                    "team_best_response_exact": team["exact"], "team_best_response_seconds": team["seconds"],
                    "nash_conv_points": _points(team["value"] - mutineer_br)})
    return out


def marginal_policy(form: SequenceForm, plans: list[np.ndarray], weights: np.ndarray,
                    mutineer: dict[int, np.ndarray]) -> list[np.ndarray]:
    """The per-seat behaviour policy the mixture induces (each Pirate seat's realization averaged over the plans,
    Kuhn's theorem seat by seat; the plans' correlation between seats is lost), with the Mutineer's ``mutineer``,
    as :func:`.exact.evaluate` reads a policy (per information state, aligned with its actions)."""
    x = np.asarray(weights) @ np.stack([form.plan_realization(p) for p in plans])
    chosen = np.zeros(form.num_seq + 1)  # unconditional frequencies, used where the seat's own play never gets
    for w, p in zip(weights, plans):
        chosen[form.offsets[:-1] + p] += w
    fallback = [chosen[form.offsets[i]:form.offsets[i + 1]] for i in range(len(form.width))]
    pirates = form.behaviour(x, PIRATES, fallback)
    return [pirates[i] if form.side[i] == PIRATES else np.asarray(mutineer[i]) for i in range(len(form.width))]


# ------------------------------------------------------------------ the solution as data, and as an agent


def solution_data(form: SequenceForm, solution: Solution, variant_name: str, env_id: str = "traitors_aboard_v0") -> dict:
    """``solution`` as JSON data keyed by observation: every information state's observation key, seat, side, legal
    actions (the env's action indices), its seat's previous sequence and, for a Pirate state, the team mates' last
    sequences it can follow; the Mutineer's probabilities; the Pirates' plans (key → action) and weights.

    The observation is the registered env's (the node's ``observation(seat)``, as :func:`.exact.agent_policy` reads
    agents), so any game with small variants is written the same way; ``env_id``: the game's (the file names
    ``{env_id}:{variant_name}``, the variant the kit plays it on).

    Raises ``ValueError`` where two information states show the same observation (the table could not tell them
    apart; not so on the declared variants)."""
    from .policy_file import observation_keys

    tree = form.tree
    keys = observation_keys(tree)
    first: dict[int, int] = {}  # one decision node per information state (its actions are the same at all)
    for node, i in enumerate(tree.info):
        if i >= 0:
            first.setdefault(i, node)
    actions = [list(map(int, tree.actions[first[i]])) for i in range(len(keys))]

    def seq(q: int) -> list | None:
        if q < 0:
            return None
        info = form.seq_info_of(q)
        return [keys[info], actions[info][q - int(form.offsets[info])]]

    states = {}
    for info in range(len(keys)):
        entry = {"seat": int(form.seat[info]), "side": int(form.side[info]), "actions": actions[info],
                 "parent": seq(int(form.parent[info]))}
        if form.side[info] == PIRATES:
            entry["teammates"] = sorted(sorted(seq(q) for q in mates) for mates in form.teammates[info])
        states[keys[info]] = entry
    return {
        "format": FORMAT, "version": VERSION, "game": f"{env_id}:{variant_name}",
        "summary": solution.summary(),
        "states": states,
        "mutineers": {keys[i]: [float(p) for p in probs] for i, probs in solution.mutineer.items()},
        "pirates": {"weights": [float(w) for w in solution.weights],
                    "plans": [{keys[i]: actions[i][int(plan[i])] for i in form.pirate_infos} for plan in solution.plans]},
    }


def save_solution(path: str | os.PathLike, data: dict) -> Path:
    """Write :func:`solution_data`'s ``data`` as JSON (checked by loading it back)."""
    TeamPolicy.from_data(data)
    path = Path(path)
    atomic_write_text(path, json.dumps(data, indent=1, sort_keys=True) + "\n")
    return path


def main(argv: list[str] | None = None) -> dict:
    """``python -m traitors_env.solve.team_equilibrium [--game GAME] --variant mini3 [--out FILE] [--check]``: solve,
    print the figures as JSON; ``--check`` also evaluates one plan of the support (a pure policy) with both this
    module and :func:`.exact.evaluate`, and the mixture's per-seat marginal policy with :func:`.exact.evaluate`.
    ``--game``: any registered game that declares small variants (default ``traitors_aboard``; side 0 is the team
    that correlates, side 1 must have one seat per deal)."""
    import argparse

    from ..core import load_game
    from . import small_variants
    from .exact import build_tree, evaluate

    parser = argparse.ArgumentParser(prog="python -m traitors_env.solve.team_equilibrium", description=main.__doc__)
    parser.add_argument("--game", default="traitors_aboard")
    parser.add_argument("--variant", default="mini3")
    parser.add_argument("--out", help="write the solution here as JSON (save_solution)")
    parser.add_argument("--tolerance-points", type=float, default=0.01)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    game = load_game(args.game)
    declared = small_variants(game)
    if args.variant not in declared:
        parser.error(f"{game.name} has no small variant {args.variant!r}; declared: {sorted(declared)}")
    tree = build_tree(declared[args.variant])
    form = SequenceForm(tree)
    solution = solve(form, tolerance_points=args.tolerance_points)
    report = {"game": game.type.env_id, "sides": list(game.type.sides), "variant": args.variant, "walk_seconds": round(tree.seconds, 1), **solution.summary(),
              "history": solution.history,
              "mixture": evaluate_mixture(form, solution.plans, solution.weights, solution.mutineer)}
    if args.check:
        def pure(plan):
            return [np.eye(form.width[i])[plan[i]] if form.side[i] == PIRATES else solution.mutineer[i]
                    for i in range(len(form.width))]

        def sides(result):
            return {name: {k: row[k] for k in ("win_rate", "win_rate_lower", "win_rate_upper", "exact")}
                    for name, row in result["sides"].items()} | {"nash_conv_sides": result["nash_conv_sides"],
                                                                  "nash_conv_seats": result["nash_conv_seats"]}

        plan = solution.plans[int(np.argmax(solution.weights))]
        report["one_plan"] = {"team_equilibrium": evaluate_mixture(form, [plan], np.ones(1), solution.mutineer),
                              "exact_evaluate": sides(evaluate(tree, pure(plan), sides=tuple(game.type.sides)))}
        marginal = marginal_policy(form, solution.plans, solution.weights, solution.mutineer)
        report["marginal_exact_evaluate"] = sides(evaluate(tree, marginal, sides=tuple(game.type.sides)))
    if args.out:
        save_solution(args.out, solution_data(form, solution, args.variant, game.type.env_id))
    print(json.dumps(report, indent=1, default=float))
    return report


if __name__ == "__main__":
    main()
