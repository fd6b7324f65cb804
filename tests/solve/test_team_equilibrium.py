"""The team equilibrium (TMECor) of small variants: the double oracle, its exact evaluation, the solution as data and
as an agent (issue 50, item 6; traitors_env/solve/team_equilibrium.py)."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from traitors_env.games.traitors_aboard.observation import encode
from traitors_env.solve import team_equilibrium as te
from traitors_env.solve.exact import Tree, _utility, best_response, build_tree, evaluate, policy_value_side
from traitors_env.solve.traitors_aboard import CHANCE, TERMINAL, root, variant


def _matching_tree(rng: np.random.Generator | None = None, high: float = 1.0) -> Tree:
    """A hand-made team game where correlation pays: a fair coin nobody sees, then Pirate seats 0 and 1 each pick
    L or R without seeing the other, then the Mutineer (seat 2) guesses one letter without seeing them. The Pirates
    win where they picked the same letter and the Mutineer guessed the other one. Correlated (LL or RR, half each),
    they win half the games whatever the Mutineer does; as independent seats at most a quarter. With ``rng``, the
    Pirates' returns are drawn in [−1, ``high``] instead (a general team game of the same shape, for brute force)."""
    tree = Tree(3)

    def add(kind, player=-1, info=-1, probs=None, team=-1):
        tree.kind.append(kind)
        tree.player.append(player)
        tree.children.append([])
        tree.actions.append([])
        tree.probs.append(probs)
        tree.info.append(info)
        tree.team.append(team)  # the side's joint information state: seat 0 knows its own pick at seat 1's turn
        return len(tree.kind) - 1

    def grow(parent, child, action):
        tree.children[parent].append(child)
        tree.actions[parent].append(action)

    root = add(0, probs=[0.5, 0.5])
    for coin in range(2):
        s0 = add(1, 0, 0, team=0)
        grow(root, s0, coin)
        for a0 in range(2):
            s1 = add(1, 1, 1, team=1 + a0)
            grow(s0, s1, a0)
            for a1 in range(2):
                m = add(1, 2, 2, team=3)
                grow(s1, m, a1)
                for guess in range(2):
                    z = add(2)
                    grow(m, z, guess)
                    r = 1.0 if a0 == a1 and guess != a0 else -1.0
                    if rng is not None:
                        r = float(rng.uniform(-1, high))
                    tree.returns[z] = [r, r, -r]
                    tree.side0_return[z] = r
    tree.info_keys = ["p0", "p1", "m"]
    tree.info_seat = [0, 1, 2]
    tree.info_side = [0, 0, 1]
    tree.info_node = [None, None, None]
    return tree


def test_correlation_pays_in_the_matching_game():
    """The double oracle finds the correlated value (Pirates win 1/2, two plans LL and RR), certified exact; the
    marginal policy (each seat L/R half each, independent) is worth only 1/4 against the Mutineer's best response,
    by this module and by exact.evaluate alike."""
    tree = _matching_tree()
    form = te.SequenceForm(tree)
    solution = te.solve(form, tolerance_points=1e-6, max_iterations=20)
    assert solution.exact and solution.nash_conv_points == pytest.approx(0.0, abs=1e-6)
    assert (solution.value + 1) / 2 == pytest.approx(0.5)
    assert sorted(tuple(p[:2]) for p in solution.plans) == [(0, 0), (1, 1)]
    assert solution.weights == pytest.approx([0.5, 0.5])
    mixture = te.evaluate_mixture(form, solution.plans, solution.weights, solution.mutineer)
    assert mixture["mutineers_best_response_win_rate"] == pytest.approx(0.5)
    assert mixture["nash_conv_points"] == pytest.approx(0.0, abs=1e-6)
    marginal = te.marginal_policy(form, solution.plans, solution.weights, solution.mutineer)
    assert marginal[0] == pytest.approx([0.5, 0.5]) and marginal[1] == pytest.approx([0.5, 0.5])
    result = evaluate(tree, marginal)
    assert result["sides"]["mutineers"]["win_rate_upper"] == pytest.approx(0.75)


def test_milp_and_person_by_person_against_brute_force():
    """The exact team best response (MILP, and the DP) equals the best of all joint pure plans against random Mutineer
    strategies; person-by-person never beats it; a one-plan mixture's figures match exact.py's functions."""
    rng = np.random.default_rng(0)
    for trial in range(8):
        # random returns from the second trial; every other one all negative (no product's coefficient above 0)
        tree = _matching_tree(rng if trial else None, high=1.0 if trial % 2 else 0.0)
        form = te.SequenceForm(tree)
        q = rng.random()
        mutineer = [None, None, np.array([q, 1 - q])]
        y = form.realization(mutineer, te.MUTINEERS)
        plans = [np.array([a, b, 0]) for a, b in itertools.product(range(2), repeat=2)]
        brute = max(form.pirate_value(p, y) for p in plans)
        exact = te.team_best_response_plan(form, y, method="milp")
        assert exact["exact"] and exact["value"] == pytest.approx(brute) and exact["milp_value"] == pytest.approx(brute)
        dp = te.team_best_response_plan(form, y)  # the default oracle here: the DP over common-knowledge parts
        assert dp["method"] == "dp" and dp["value"] == pytest.approx(brute) and dp["dp_value"] == pytest.approx(brute)
        assert form.person_by_person(plans[1], y)[0] <= brute + 1e-12
        # the double oracle's value is the maxmin over all joint plans (the restricted game with every column)
        full, _, _ = te.solve_restricted(form, form.payoff_columns(plans))
        assert te.solve(form, tolerance_points=1e-6, max_iterations=20).value == pytest.approx(full, abs=1e-9)
        for plan in plans:
            policy = [np.eye(2)[plan[0]], np.eye(2)[plan[1]], mutineer[2]]
            mixture = te.evaluate_mixture(form, [plan], np.ones(1), {2: mutineer[2]})
            assert (2 * mixture["pirates_win_rate"] - 1) == pytest.approx(policy_value_side(tree, policy))
            on_side = lambda n, t=tree: t.kind[n] == 1 and t.info_side[t.info[n]] == 1  # noqa: E731
            br, _ = best_response(tree, policy, on_side, _utility(tree, None, 1))
            assert mixture["mutineers_best_response_win_rate"] == pytest.approx((br + 1) / 2)


def test_bad_weights_are_refused():
    form = te.SequenceForm(_matching_tree())
    with pytest.raises(ValueError, match="summing to 1"):
        te.evaluate_mixture(form, [np.zeros(3, dtype=np.int64)], np.array([0.5]))


@pytest.fixture(scope="module")
def micro3():
    tree = build_tree(variant("micro3"))
    form = te.SequenceForm(tree)
    return tree, form, te.solve(form, max_iterations=30)


def test_micro3_the_mutineers_always_win(micro3):
    """micro3 has no Planks: no Pirate can win, whatever anyone plays (docs/solve.md); value and NashConv 0 exactly."""
    _, form, solution = micro3
    assert solution.exact and solution.value == pytest.approx(-1.0) and solution.nash_conv_points == pytest.approx(0.0)
    assert len(form.pirate_infos) == len(form.mutineer_infos) and form.pirate_seats == [0, 1]


def test_solution_round_trips_as_json_and_plays(micro3, tmp_path):
    """Saved as JSON and loaded back, the agent plays its drawn plan at every Pirate state, the Mutineer's
    probabilities at the Mutineer's; a tampered file is refused naming the field."""
    tree, form, solution = micro3
    path = te.save_solution(tmp_path / "micro3.team.json", te.solution_data(form, solution, "micro3"))
    policy = te.load_solution(path)
    assert len(policy.states) == len(tree.info_keys) and policy.weights == pytest.approx(solution.weights.tolist())
    agent = te.TeamEquilibriumAgent(policy, seed=3)
    plan = policy.plans[agent.plan_index]
    for info, node in enumerate(tree.info_node):
        obs = encode(node.engine, tree.info_seat[info])
        mask = np.asarray(node.engine.legal_mask())
        key = te.observation_key(obs)
        if tree.info_side[info] == 0:
            assert agent.act(obs, mask) == plan[key]
        else:
            assert agent.act(obs, mask) in policy.states[key]["actions"]
    with pytest.raises(ValueError, match="no state with observation"):
        agent.act(np.zeros_like(obs), mask)
    data = json.loads(path.read_text())
    data["pirates"]["weights"] = [2.0] + data["pirates"]["weights"][1:]
    with pytest.raises(te.TeamPolicyError, match="weight"):
        te.TeamPolicy.from_data(data)
    data = json.loads(path.read_text())
    key = next(iter(data["pirates"]["plans"][0]))
    data["pirates"]["plans"][0][key] = 999
    with pytest.raises(te.TeamPolicyError, match="999"):
        te.TeamPolicy.from_data(data)
    data = json.loads(path.read_text())
    del data["states"][key]["teammates"]  # without it the agent could not tell a game from the next
    with pytest.raises(te.TeamPolicyError, match="teammates"):
        te.TeamPolicy.from_data(data)
    # shapes that would crash the agent in play are refused at load, naming the field (an attack found them)
    for change, words in ((lambda d: d["states"][key].__setitem__("teammates", [[1]]), "teammates"),
                          (lambda d: d["pirates"]["plans"][0].pop(key), "no action at the Pirate state"),
                          (lambda d: d["pirates"].__setitem__("weights", [True] * len(d["pirates"]["weights"])), "weight"),
                          (lambda d: d["states"][key].__setitem__("actions", [10**30]), "list of action indices"),
                          (lambda d: d["mutineers"].pop(next(iter(d["mutineers"]))), "has no probabilities")):
        data = json.loads(path.read_text())
        change(data)
        with pytest.raises(te.TeamPolicyError, match=words):
            te.TeamPolicy.from_data(data)
    nested = tmp_path / "nested.team.json"
    nested.write_text('{"a":' * 100_000 + "1" + "}" * 100_000)
    with pytest.raises(te.TeamPolicyError, match="nested too deeply"):
        te.load_solution(nested)
    from traitors_env.agents.policy import AgentSpecError
    from traitors_env.agents.spec import agent_maker

    with pytest.raises(AgentSpecError, match="expected a solution of traitors_aboard_v0:mini3"):
        agent_maker(str(path), game="traitors_aboard:mini3")  # a micro3 solution: another variant
    from training.exact import run

    with pytest.raises(ValueError, match="team equilibrium"):  # its seats are correlated: not readable per state
        run([str(path)], "micro3")


# ------------------------------------------------------------------ mini3 (the tree walk alone takes 10–30 s here)
@pytest.fixture(scope="module")
def mini3():
    tree = build_tree(variant("mini3"))
    form = te.SequenceForm(tree)
    return tree, form, te.solve(form, max_iterations=30)


@pytest.mark.slow
def test_mini3_team_equilibrium(mini3):
    """A certified team equilibrium of mini3: team NashConv ≤ 1 point (in fact 0 to rounding), the Pirates win 27/91
    (29.67 %, above CFR+'s seat-level 23.1 %); the Mutineer's best response to the mixture, computed independently,
    gives the same value; one plan's figures equal exact.py's; the per-seat marginals are worth less to the team."""
    tree, form, solution = mini3
    assert solution.exact and solution.nash_conv_points <= 1.0
    assert (solution.value + 1) / 2 == pytest.approx(27 / 91, abs=1e-6)
    mixture = te.evaluate_mixture(form, solution.plans, solution.weights)
    assert mixture["mutineers_best_response_win_rate"] == pytest.approx((1 - solution.value) / 2, abs=1e-9)
    plan = solution.plans[int(np.argmax(solution.weights))]
    policy = [np.eye(form.width[i])[plan[i]] if form.side[i] == 0 else solution.mutineer[i]
              for i in range(len(form.width))]
    one = te.evaluate_mixture(form, [plan], np.ones(1))
    on_side = lambda n: tree.kind[n] == 1 and tree.info_side[tree.info[n]] == 1  # noqa: E731
    br, _ = best_response(tree, policy, on_side, _utility(tree, None, 1))
    assert one["mutineers_best_response_win_rate"] == pytest.approx((br + 1) / 2, abs=1e-12)
    y = form.realization(policy, te.MUTINEERS)
    assert form.pirate_value(plan, y) == pytest.approx(policy_value_side(tree, policy), abs=1e-12)
    marginal = te.marginal_policy(form, solution.plans, solution.weights, solution.mutineer)
    br, _ = best_response(tree, marginal, on_side, _utility(tree, None, 1))
    assert (1 - br) / 2 < (solution.value + 1) / 2 - 0.01  # uncoordinated, the same seats win less


@pytest.mark.slow
def test_mini3_agent_keeps_one_plan_per_game(mini3, tmp_path):
    """Playing mini3 games through the tree's nodes: an agent built per game (as the kit does) plays its drawn plan
    at every Pirate decision and never redraws; an agent kept over many games never redraws within a game, follows
    one plan per game, and tells most new games apart from their first Pirate observation."""
    tree, form, solution = mini3
    policy = te.load_solution(te.save_solution(tmp_path / "mini3.team.json",
                                               te.solution_data(form, solution, "mini3")))
    rng = np.random.default_rng(0)
    kept = te.TeamEquilibriumAgent(policy, seed=1)
    detected = 0
    for game in range(100):
        agents = {0: te.TeamEquilibriumAgent(policy, seed=game) if game % 2 else kept,
                  1: te.TeamEquilibriumAgent(policy, seed=10_000 + game)}
        node = root(variant("mini3"))
        before, plans = kept.games, set()
        while node.current_player() != TERMINAL:
            player = node.current_player()
            if player == CHANCE:
                outcomes, probs = zip(*node.chance_outcomes())
                node = node.child(int(rng.choice(outcomes, p=probs)))
                continue
            obs = encode(node.engine, player)
            agent = agents[node.side_of(player)]
            action = agent.act(obs, np.asarray(node.engine.legal_mask()))
            if node.side_of(player) == 0:
                assert action == policy.plans[agent.plan_index][te.observation_key(obs)]
                plans.add(agent.plan_index)
            node = node.child(action)
        assert len(plans) <= 1 and agents[1].games == 1
        if agents[0] is kept:
            assert kept.games - before <= 1
            detected += kept.games - before
        else:
            assert agents[0].games == 1
    assert detected >= 35  # of the 49 games after the kept agent's first, most start where it can tell (42 here)
