"""The most a team of per-seat policies can guarantee on a small variant, bounded by a global solver (issue 54).

    pip install pyscipopt          # SCIP (Apache 2.0); only this script needs it
    PYTHONPATH=. python docs/notes/lab/team_maxmin.py --game traitors_aboard --variant mini3 --time-limit 1500

Why: a per-seat policy profile π (every trained agent's kind: each seat acts on its own information, no shared
signal) has NashConv = BR_team(π_other) + BR_other(π_team) − 100 in win-rate points. The team's best response is a
pure joint plan, so it wins at least the correlated team equilibrium's value V_cor (TMECor: ``traitors_env.solve.
team_lp`` where the team's information decomposes, else the double oracle of ``team_equilibrium``, whose value is a
mixture's exact guarantee, so a lower bound on V_cor either way). The other side's best response leaves the team at most what its uncorrelated strategy guarantees, and no
uncorrelated strategy guarantees more than the team maxmin G (von Stengel & Koller's team-maxmin equilibrium, TME):

    NashConv(π) ≥ V_cor − G    for every per-seat profile π.

G is a non-convex problem: the team's two seats' realization plans x₀, x₁ multiply at each terminal. Written with
the other side's sequence-form dual (von Stengel 1996) it is

    max v₀  subject to  Fᵀ v ≤ c + L x + Σ C ∘ (x₀ x₁ᵀ),  x₀, x₁ realization plans,

a bilinear program that SCIP solves by spatial branch and bound. Its primal value is a strategy profile found (a lower
bound on G), its dual bound an upper bound on G, so ``V_cor − dual bound`` is a proven lower bound on every per-seat
profile's NashConv, whether or not the search closes. Two team seats only (Traitors Aboard's mini3, social
deduction's mini3); the other side as one player with perfect recall, as in ``team_lp``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict

import numpy as np


def _points(team_return: float) -> float:
    """The team's expected return (±1 per game) as its win rate in %."""
    return 50.0 * (1.0 + team_return)


def build_model(form, time_limit: float):
    """The bilinear program of the module doc for ``form`` (a :class:`~traitors_env.solve.team_equilibrium.
    SequenceForm`); returns the SCIP model and its objective variable."""
    from pyscipopt import Model, quicksum

    from traitors_env.solve.team_equilibrium import _mutineer_constraints

    if len(form.pirate_seats) != 2:
        raise SystemExit(f"the team acts at seats {form.pirate_seats}; this script bounds a team of two seats")
    F, _, seqs = _mutineer_constraints(form)
    column = {int(s): j for j, s in enumerate(seqs)}
    other = np.array([column[int(s)] for s in form.mutineer_last])
    weight = form.chance * form.pirate_return
    const, lin, quad = defaultdict(float), defaultdict(lambda: defaultdict(float)), defaultdict(lambda: defaultdict(float))
    s0, s1 = form.pirate_seats
    for z, (a, b) in enumerate(zip(form.pirate_last[:, s0].tolist(), form.pirate_last[:, s1].tolist())):
        j = int(other[z])
        if a < 0 and b < 0:
            const[j] += weight[z]
        elif a < 0 or b < 0:
            lin[j][max(a, b)] += weight[z]
        else:
            quad[j][(a, b)] += weight[z]
    model = Model("team_maxmin")
    model.setParam("limits/time", time_limit)
    model.setParam("display/freq", 1000)
    model.setParam("misc/usesymmetry", 0)  # SCIP aborted on this model (a double free) with it on
    x = {}
    for info in form.pirate_infos:
        for q in range(int(form.offsets[info]), int(form.offsets[info + 1])):
            x[q] = model.addVar(lb=0.0, ub=1.0, name=f"x{q}")
    for info in form.pirate_infos:
        parent = int(form.parent[info])
        total = quicksum(x[q] for q in range(int(form.offsets[info]), int(form.offsets[info + 1])))
        model.addCons(total == (1.0 if parent < 0 else x[parent]))
    v = [model.addVar(lb=-1e3, ub=1e3, name=f"v{r}") for r in range(F.shape[0])]
    product = {}
    for terms in quad.values():
        for a, b in terms:
            if (a, b) not in product:
                product[a, b] = model.addVar(lb=0.0, ub=1.0, name=f"p{a}_{b}")
                model.addCons(product[a, b] == x[a] * x[b])
    Fc = F.tocsc()
    for j in range(F.shape[1]):
        rows = Fc[:, j]
        lhs = quicksum(float(val) * v[int(r)] for r, val in zip(rows.indices, rows.data))
        rhs = (const[j] + quicksum(c * x[q] for q, c in lin[j].items())
               + quicksum(c * product[k] for k, c in quad[j].items()))
        model.addCons(lhs - rhs <= 0)
    model.setObjective(v[0], "maximize")
    return model


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="traitors_aboard")
    parser.add_argument("--variant", default="mini3")
    parser.add_argument("--time-limit", type=float, default=600.0, help="SCIP's limit in seconds (default 600)")
    parser.add_argument("--out", help="also write the report as JSON here")
    args = parser.parse_args(argv)
    if args.time_limit <= 0:
        parser.error(f"--time-limit {args.time_limit}; expected seconds > 0")
    try:
        import pyscipopt  # noqa: F401
    except ImportError:
        parser.error("pyscipopt is not installed; pip install pyscipopt (SCIP, the global solver this bound needs)")
    from traitors_env.core import load_game
    from traitors_env.solve import small_variants, team_equilibrium, team_lp
    from traitors_env.solve.exact import build_tree
    from traitors_env.solve.team_dp import NoDecomposition
    from traitors_env.solve.team_equilibrium import SequenceForm

    game = load_game(args.game)
    declared = small_variants(game)
    if args.variant not in declared:
        parser.error(f"{game.name} has no small variant {args.variant!r}; declared: {sorted(declared)}")
    form = SequenceForm(build_tree(declared[args.variant]))
    start = time.perf_counter()
    model = build_model(form, args.time_limit)
    model.optimize()  # before HiGHS runs in this process: SCIP aborted (heap corruption) in runs where it ran after
    found = _points(model.getObjVal()) if model.getNSols() else None
    bound = _points(model.getDualbound())
    status, seconds = model.getStatus(), round(time.perf_counter() - start, 1)
    try:
        v_cor = _points(team_lp.solve(form).value)
    except NoDecomposition:  # Traitors Aboard's Pirates: all their states in one part
        v_cor = _points(team_equilibrium.solve(form).value)
    report = {"game": game.type.env_id, "variant": args.variant, "team": game.type.sides[0],
              "status": status, "seconds": seconds,
              "uncorrelated_guarantee_found": found, "uncorrelated_guarantee_upper_bound": bound,
              "correlated_team_equilibrium": round(v_cor, 3),
              "per_seat_nash_conv_lower_bound": round(v_cor - bound, 3)}
    text = json.dumps(report, indent=1, default=float)
    print(text)
    if args.out:
        from pathlib import Path

        Path(args.out).write_text(text + "\n")
    return report


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
