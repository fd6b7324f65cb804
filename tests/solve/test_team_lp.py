"""The TMECor as one LP over the team's belief DAG (traitors_env/solve/team_lp.py) against brute force (every joint
plan as a column of the restricted game), the double oracle, and exact best responses on both sides."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from team_games import matching_game, private_types_game

from traitors_env.solve import team_equilibrium as te
from traitors_env.solve import team_lp


@pytest.mark.parametrize("trial", range(4))
def test_lp_equals_the_maxmin_over_every_joint_plan(trial):
    """The matching game (correlation pays: ½ with the coin's returns) against the restricted game holding every
    joint plan; the decomposed mixture has the LP's value."""
    form = te.SequenceForm(matching_game(np.random.default_rng(trial), trial))
    solution = team_lp.solve(form)
    plans = [np.array([a, b, 0]) for a, b in itertools.product(range(2), repeat=2)]
    full, _, _ = te.solve_restricted(form, form.payoff_columns(plans))
    assert solution.value == pytest.approx(full, abs=1e-9)
    assert trial or (solution.value + 1) / 2 == pytest.approx(0.5)
    assert solution.nash_conv_points == pytest.approx(0.0, abs=1e-7)
    mixture, weights = team_lp.decompose(solution.dag, solution.x)
    rows = [np.array([p.get(0, 0), p.get(1, 0), 0]) for p in mixture]
    assert te.evaluate_mixture(form, rows, weights)["mutineers_best_response_win_rate"] == pytest.approx(
        (1 - solution.value) / 2, abs=1e-9)


@pytest.mark.parametrize("trial", range(4))
def test_lp_equals_the_double_oracle_on_private_types(trial):
    """Games whose parts hold several of the team's states: the LP's value is the double oracle's (certified by the
    DP), and both sides' exact best responses meet it."""
    form = te.SequenceForm(private_types_game(np.random.default_rng(10 + trial)))
    solution = team_lp.solve(form)
    oracle = te.solve(form, tolerance_points=1e-7, max_iterations=200)
    assert oracle.exact and solution.value == pytest.approx(oracle.value, abs=1e-9)
    assert solution.team_best_response == pytest.approx(solution.value, abs=1e-9)
    assert solution.other_best_response == pytest.approx(solution.value, abs=1e-9)


@pytest.mark.slow
@pytest.mark.every_extra
def test_social_deduction_mini3_team_equilibrium():
    """OpenSpiel's social_deduction at 3 players, 1 round: the Innocents' TMECor value is 457/480 (95.21 %), both
    sides' exact best responses meet it (team NashConv 0), and the flow decomposes into joint plans worth the same
    (~1 min here)."""
    pytest.importorskip("pyspiel")
    from traitors_env.core import load_game
    from traitors_env.solve import small_variants
    from traitors_env.solve.exact import build_tree

    form = te.SequenceForm(build_tree(small_variants(load_game("openspiel_social_deduction"))["mini3"]))
    solution = team_lp.solve(form)
    assert (solution.value + 1) / 2 == pytest.approx(457 / 480, abs=1e-9)
    assert abs(solution.nash_conv_points) < 1e-6
    plans, weights = team_lp.decompose(solution.dag, solution.x)
    rows = []
    for plan in plans:
        row = np.zeros(len(form.width), dtype=np.int64)
        row[list(plan)] = list(plan.values())
        rows.append(row)
    mixture = te.evaluate_mixture(form, rows, weights, solution.mutineer)
    assert mixture["pirates_win_rate"] == pytest.approx(457 / 480, abs=1e-9)
    assert mixture["nash_conv_points"] == pytest.approx(0.0, abs=1e-6)
