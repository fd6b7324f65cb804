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
def test_social_deduction_mini3_team_equilibrium(tmp_path):
    """OpenSpiel's social_deduction at 3 players, 1 round: the Innocents' TMECor value is 457/480 (95.21 %), both
    sides' exact best responses meet it (team NashConv 0), the flow decomposes into joint plans worth the same, and
    the agent spec written from it plays to that value (~2 min here)."""
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
    # the agent spec: written, loaded as any .team.json, and played through the tree (both sides) for 2,000 games
    import json

    from traitors_env.agents.spec import agent_maker
    from traitors_env.agents.tabular import observation_key

    path = tmp_path / "sd.team.json"
    path.write_text(json.dumps(team_lp.solution_data(form, solution, "mini3", "openspiel_social_deduction_v0")))
    label, make = agent_maker(str(path), game="openspiel_social_deduction:mini3")
    assert label.startswith("team:")
    tree, keys, rng, wins = form.tree, {}, np.random.default_rng(0), 0
    for game in range(2000):
        agent, node = make(game), 0
        while tree.kind[node] != 2:
            if tree.kind[node] == 0:
                node = tree.children[node][rng.choice(len(tree.probs[node]), p=tree.probs[node])]
                continue
            info = tree.info[node]
            if info not in keys:
                keys[info] = observation_key(tree.info_node[info].observation(tree.info_seat[info]))
            action = agent.act_key(keys[info], tree.info_node[info].legal_mask())
            node = tree.children[node][tree.actions[node].index(action)]
        wins += tree.side0_return[node] > 0
    assert abs(wins / 2000 - 457 / 480) < 4 * np.sqrt(0.05 * 0.95 / 2000)


def test_team_dag_file_is_checked_and_played():
    """A hand-written DAG file: the agent plays its one choice and the other side's probabilities; a tampered
    distribution, a state out of range and another game are refused."""
    from traitors_env.agents import team_dag

    data = {"format": team_dag.FORMAT, "version": team_dag.VERSION, "game": "g", "team": {"a": 0, "b": 1},
            "up": [-1, 0], "dag": [[[0.25, {"a": 0}, [[1, 1]]], [0.75, {"a": 1}, [[1, 2]]]], [[1.0, {"b": 2}, []]],
                                  [[1.0, {"b": 1}, []]]], "other": {"m": [[0, 1], [0.0, 1.0]]}}
    agent = team_dag.TeamDagAgent(team_dag.TeamDagPolicy(data), seed=0)
    mask = np.ones(3, dtype=np.int8)
    first = agent.act_key("a", mask)
    assert agent.act_key("b", mask) == (2 if first == 0 else 1)  # the state its own draw led to
    assert agent.act_key("m", mask) == 1
    for bad in ({"dag": [[[0.5, {"a": 0}, []]]] + data["dag"][1:]}, {"dag": [[[1.0, {"a": 0}, [[1, 9]]]]]},
                {"format": "x"}):
        with pytest.raises(ValueError):
            team_dag.TeamDagPolicy({**data, **bad})


@pytest.mark.parametrize("args, words", [
    (["--game", "nosuch"], "unknown game 'nosuch'"),
    (["--game", "traitors_aboard", "--variant", "micro3"], "the belief-DAG LP does not apply"),
    (["--out", "{tmp}/folder.team.json"], "is a folder"),
])
def test_the_command_refuses_bad_arguments_in_one_line(args, words, tmp_path, capsys):
    """A tester's finds: an unknown game, a game whose team does not decompose and an --out that is a folder ended
    in tracebacks (the last after the whole solve)."""
    from traitors_env.solve.team_lp import main

    (tmp_path / "folder.team.json").mkdir()
    with pytest.raises(SystemExit):
        main([a.format(tmp=tmp_path) for a in args])
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err
