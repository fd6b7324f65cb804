"""The exact team best response by dynamic programming over common-knowledge parts (traitors_env/solve/team_dp.py)
against brute force, the MILP and the single-seat best response."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from team_games import matching_game, private_types_game

from traitors_env.solve.exact import (
    Tree,
    _pure,
    _utility,
    best_response,
    evaluate,
    policy_value_side,
    team_best_response_milp,
)
from traitors_env.solve.team_dp import NoDecomposition, Parts, team_best_response_dp


def _brute_force(tree: Tree, policy: list[np.ndarray], side: int) -> float:
    """The team optimum: every pure plan of the side's highest seat, and the others' exact best response to it
    (with one seat left, a single player with perfect recall, exact by backward induction)."""
    seats = sorted({tree.info_seat[i] for i in range(len(tree.info_keys)) if tree.info_side[i] == side})
    last = [i for i in range(len(tree.info_keys)) if tree.info_seat[i] == seats[-1]]
    utility = _utility(tree, None, side)
    best = -np.inf
    for choice in itertools.product(*(range(len(policy[i])) for i in last)):
        fixed = _pure(tree, policy, dict(zip(last, choice)))
        value, _ = best_response(tree, fixed, lambda n: tree.kind[n] == 1 and tree.player[n] in seats[:-1], utility)
        best = max(best, value)
    return best


def _random_policy(tree: Tree, rng: np.random.Generator, pure: bool) -> list[np.ndarray]:
    policy = []
    for i in range(len(tree.info_keys)):
        width = 3 if any(tree.info[n] == i and len(tree.children[n]) == 3 for n in range(len(tree.kind))) else 2
        policy.append(np.eye(width)[rng.integers(width)] if pure else rng.dirichlet(np.ones(width)))
    return policy


@pytest.mark.parametrize("trial", range(6))
def test_dp_equals_brute_force_and_the_milp(trial):
    """On random games with private types (half of them against a pure Mutineer, whose zero-reach branches the DP
    drops), the DP's value is the brute-force optimum and the MILP's, and its plan achieves it."""
    rng = np.random.default_rng(trial)
    tree = private_types_game(rng)
    policy = _random_policy(tree, rng, pure=trial % 2 == 1)
    parts = Parts(tree, 0)
    assert max(parts.joint) > 2  # a part holds several of the team's information states
    dp = team_best_response_dp(tree, policy, 0, parts=parts)
    brute = _brute_force(tree, policy, 0)
    assert dp["value"] == pytest.approx(brute, abs=1e-12)
    assert dp["win_rate"] == pytest.approx(team_best_response_milp(tree, policy, 0)["win_rate"], abs=1e-9)
    assert policy_value_side(tree, _pure(tree, policy, dp["plan"])) == pytest.approx(brute, abs=1e-12)
    # the Mutineer's side, one seat: the DP is its best response
    on_side = lambda n: tree.kind[n] == 1 and tree.info_side[tree.info[n]] == 1  # noqa: E731
    br, _ = best_response(tree, policy, on_side, _utility(tree, None, 1))
    assert team_best_response_dp(tree, policy, 1)["value"] == pytest.approx(br, abs=1e-12)


def test_dp_on_the_matching_game():
    """The matching game (tests/team_games.py; the two seats' states in separate parts) with random returns, against
    brute force over the four joint plans."""
    rng = np.random.default_rng(7)
    for trial in range(6):
        tree = matching_game(rng, trial)
        q = rng.random()
        policy = [np.array([0.5, 0.5]), np.array([0.5, 0.5]), np.array([q, 1 - q])]
        brute = max(policy_value_side(tree, _pure(tree, policy, {0: a, 1: b}))
                    for a, b in itertools.product(range(2), repeat=2))
        dp = team_best_response_dp(tree, policy, 0)
        assert dp["value"] == pytest.approx(brute, abs=1e-12)
        assert trial or dp["win_rate"] == pytest.approx(max(q, 1 - q))  # LL or RR, against the guess


def test_a_team_without_such_structure_is_refused_and_evaluate_falls_back_to_the_milp(monkeypatch):
    """Past ``max_joint`` the DP refuses before searching; :func:`.exact.evaluate` then solves the MILP (here
    forced by a DP that refuses everything), and otherwise reports the DP's value."""
    from traitors_env.solve import team_dp

    rng = np.random.default_rng(3)
    tree = private_types_game(rng)
    policy = _random_policy(tree, rng, pure=False)
    with pytest.raises(NoDecomposition, match="joint choices"):
        team_best_response_dp(tree, policy, 0, max_joint=2)
    brute = _brute_force(tree, policy, 0) / 2 + 0.5
    report = evaluate(tree, policy)["sides"]["pirates"]
    if not report.get("dp"):  # person-by-person met the shared-information bound: nothing left to solve
        pytest.skip("person-by-person is exact on this draw")
    assert report["exact"] and report["dp"]["exact"] and "milp" not in report
    assert report["win_rate_lower"] == pytest.approx(brute)

    def refuse(*args, **kwargs):
        raise NoDecomposition("refused")

    monkeypatch.setattr(team_dp, "team_best_response_dp", refuse)
    report = evaluate(tree, policy)["sides"]["pirates"]
    assert not report["dp"]["exact"] and report["dp"]["reason"] == "refused"
    assert report["milp"]["exact"] and report["win_rate_lower"] == pytest.approx(brute)
