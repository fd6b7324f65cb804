"""The exact team best response by dynamic programming over common-knowledge parts (traitors_env/solve/team_dp.py)
against brute force, the MILP and the single-seat best response."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

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


def _tree(step, sides=(0, 0, 1)) -> Tree:
    """A tree from ``step(history)``: ``("chance", probs)``, ``("decision", seat, key, width[, joint])`` or
    ``("terminal", side 0's return)``; children numbered in preorder, as :func:`.exact.build_tree` numbers them.
    ``joint``: the side's information states together (the shared-information relaxation's key; default ``key``)."""
    tree = Tree(len(sides))
    ids: dict[str, int] = {}
    joints: dict[object, int] = {}

    def grow(history: tuple) -> int:
        what = step(history)
        index = len(tree.kind)
        tree.children.append([])
        tree.probs.append(None)
        tree.team.append(-1)
        if what[0] == "terminal":
            tree.kind.append(2)
            tree.player.append(-1)
            tree.info.append(-1)
            tree.actions.append([])
            tree.returns[index] = [what[1] if s == 0 else -what[1] for s in sides]
            tree.side0_return[index] = what[1]
            return index
        if what[0] == "chance":
            tree.kind.append(0)
            tree.player.append(-1)
            tree.info.append(-1)
            tree.probs[index] = list(what[1])
            width = len(what[1])
        else:
            seat, key, width = what[1:4]
            tree.team[index] = joints.setdefault((sides[seat], what[4] if len(what) > 4 else key), len(joints))
            if key not in ids:
                ids[key] = len(tree.info_keys)
                tree.info_keys.append(key)
                tree.info_seat.append(seat)
                tree.info_side.append(sides[seat])
                tree.info_node.append(None)
            tree.kind.append(1)
            tree.player.append(seat)
            tree.info.append(ids[key])
        tree.actions.append(list(range(width)))
        for a in range(width):
            tree.children[index].append(grow((*history, a)))
        return index

    grow(())
    return tree


def _private_types_game(rng: np.random.Generator) -> Tree:
    """Each Pirate seat (0, 1) is dealt a private type; seat 0 acts on its own, the Mutineer (2) sees that action,
    seat 1 acts on its type and both public actions, then seat 0 again on all it has seen: a team whose parts hold
    several of its information states and whose live sets depend on both seats' choices."""
    p0, p1 = rng.dirichlet(np.ones(2)), rng.dirichlet(np.ones(2))
    payoff = {}

    def step(h):
        if len(h) == 0:
            return ("chance", p0)
        if len(h) == 1:
            return ("chance", p1)
        if len(h) == 2:
            return ("decision", 0, f"0 {h[0]}", 2, h)  # the Pirates together see the whole history
        if len(h) == 3:
            return ("decision", 2, f"2 {h[2]}", 2)
        if len(h) == 4:
            return ("decision", 1, f"1 {h[1]} {h[2:]}", 2, h)
        if len(h) == 5:
            return ("decision", 0, f"0 {h[0]} {h[2:]}", 3, h)
        return ("terminal", payoff.setdefault(h, float(rng.uniform(-1, 1))))

    return _tree(step)


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
    tree = _private_types_game(rng)
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
    """tests/solve/test_team_equilibrium.py's matching game (a coin nobody sees, each Pirate seat picks L or R
    unseen, the Mutineer guesses; the two seats' states in separate parts) with random returns, against brute force
    over the four joint plans."""
    rng = np.random.default_rng(7)
    for trial in range(6):
        payoff = {}

        def step(h, trial=trial, payoff=payoff):
            if len(h) == 0:
                return ("chance", [0.5, 0.5])
            if len(h) < 4:
                return ("decision", len(h) - 1, "pm"[len(h) // 3] + str(len(h)), 2, h[1:])
            win = 1.0 if h[1] == h[2] and h[3] != h[1] else -1.0
            return ("terminal", payoff.setdefault(h, float(rng.uniform(-1, 1)) if trial else win))

        tree = _tree(step)
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
    tree = _private_types_game(rng)
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
