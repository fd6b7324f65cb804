"""The team equilibrium (TMECor) as one linear program over the team's belief DAG (issue 50).

:mod:`.team_dp` solves the team's best response by a dynamic program whose states are live sets inside the team's
common-knowledge parts. Enumerating *every* choice at every state instead of the best one gives a DAG (the "team
belief DAG" of Zhang, Farina & Sandholm 2023, "Team belief DAG: generalizing the sequence form to team games"): a
state ``s`` (a live set), its *sequences* ``(s, c)`` (a joint choice of the team's information states there), and
below each sequence the live sets it leaves in the child parts. A plan reaches at most one state per part, so a
state's parents exclude each other, and the flows ``x ≥ 0`` with ``Σ_c x(s, c) = Σ_{parents p} x(p)`` (1 at the
root) are exactly the realizations of the team's *correlated* strategies: drawing each state's choice from
``x(s, ·)`` independently reaches each state with probability ``x(s)``. A terminal's team reach is the sum of
``x`` over the sequences that send it a live node, linear in ``x``; the other side (one seat per deal) keeps its
sequence form ``F y = f``. The TMECor is then one LP, as for a two-player zero-sum game (von Stengel's sequence-form
LP): ``max f·v`` subject to ``Fᵀ v ≤ Aᵀ x`` and the flow constraints. The other side's equilibrium strategy is the
LP's dual. No double oracle: :mod:`.team_equilibrium`'s column generation adds one plan per iteration and, on
``social_deduction``'s ``mini3``, where the Innocents' equilibrium mixes over many codes, was still 41 points short
after 158 iterations.

:func:`solve` checks its answer with exact best responses computed apart from the LP: the team's by
:func:`.team_dp.team_best_response_dp` against the other side's strategy, the other side's by backward induction
against the team's reach per terminal.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass

import numpy as np

from ..agents.team_dag import TeamDagPolicy
from .team_dp import NoDecomposition, Parts, team_best_response_dp
from .team_equilibrium import MUTINEERS, PIRATES, SequenceForm, _mutineer_constraints, _points

__all__ = ["BeliefDag", "TeamLPSolution", "build_dag", "decompose", "solution_data", "solve"]

_CHANCE, _DECISION, _TERMINAL = 0, 1, 2


@dataclass
class BeliefDag:
    """The team's belief DAG of a tree (module doc).

    Attributes:
        state_of: per sequence, its state; parents: per state, the sequences below which it is live (empty: the
            root state); choices: per sequence, ``{team information state: action index}``.
        terminal_seq, terminal_node: one entry per (sequence, terminal) pair: the terminal is live below it.
        below: per sequence, ``(part, state)`` for each child part it leaves a live set in; part: per state, its
        part; parts: the :class:`.team_dp.Parts`.
    """

    states: int
    state_of: np.ndarray
    parents: list[list[int]]
    choices: list[dict[int, int]]
    terminal_seq: np.ndarray
    terminal_node: np.ndarray
    below: list[list[tuple[int, int]]]
    part: list[int]
    parts: Parts
    seconds: float

    @property
    def sequences(self) -> int:
        return len(self.state_of)


def build_dag(tree, side: int = PIRATES, max_joint: int = 100_000) -> BeliefDag:
    """Every state, sequence and live terminal of ``side``'s belief DAG in ``tree`` (an :class:`.exact.Tree`).
    A node is live where chance reaches it with positive probability (the other side's actions are all live: its
    strategy enters the LP as ``y``). Raises :class:`.team_dp.NoDecomposition` where :class:`.team_dp.Parts` does."""
    start = time.perf_counter()
    parts = Parts(tree, side)
    if max(parts.joint, default=1) > max_joint:
        raise NoDecomposition(f"{max(parts.joint)} joint choices of the team at one part (max_joint {max_joint})")
    kind, children, probs, info = tree.kind, tree.children, tree.probs, tree.info
    team, of = parts.team, parts.of
    size = len(kind)
    live = [True] * size  # chance's reach is positive
    for node in range(size):
        if kind[node] == _CHANCE:
            for w, child in zip(probs[node], children[node]):
                live[child] = live[node] and w > 0
        elif kind[node] == _DECISION:
            for child in children[node]:
                live[child] = live[node]
    ids: dict[tuple[int, ...], int] = {(0,): 0}
    parents: list[list[int]] = [[]]
    below_of: list[list[tuple[int, int]]] = []
    part = [of[0]]
    state_of: list[int] = []
    choices: list[dict[int, int]] = []
    t_seq: list[int] = []
    t_node: list[int] = []
    stack = [(0,)]
    while stack:
        nodes = stack.pop()
        s = ids[nodes]
        fixed: dict[int, list[int]] = {}
        fixed_terminals: list[int] = []
        choosing: dict[int, list[int]] = {}
        for node in nodes:
            if team[node]:
                choosing.setdefault(info[node], []).append(node)
                continue
            for child in children[node]:
                if live[child]:
                    (fixed_terminals if kind[child] == _TERMINAL else fixed.setdefault(of[child], [])).append(child)
        infos = list(choosing)
        for combo in itertools.product(*(range(len(children[choosing[i][0]])) for i in infos)):
            seq = len(state_of)
            state_of.append(s)
            choices.append(dict(zip(infos, combo)))
            below = {p: list(c) for p, c in fixed.items()}
            terminals = list(fixed_terminals)
            for i, a in zip(infos, combo):
                for node in choosing[i]:
                    child = children[node][a]
                    if live[child]:
                        (terminals if kind[child] == _TERMINAL else below.setdefault(of[child], [])).append(child)
            t_seq += [seq] * len(terminals)
            t_node += terminals
            below_of.append([])
            for p, nodes_below in below.items():
                key = tuple(sorted(nodes_below))
                child_state = ids.get(key)
                if child_state is None:
                    child_state = ids[key] = len(parents)
                    parents.append([])
                    part.append(p)
                    stack.append(key)
                parents[child_state].append(seq)
                below_of[seq].append((p, child_state))
    return BeliefDag(states=len(parents), state_of=np.asarray(state_of, dtype=np.int64), parents=parents,
                     choices=choices, terminal_seq=np.asarray(t_seq, dtype=np.int64),
                     terminal_node=np.asarray(t_node, dtype=np.int64), below=below_of, part=part, parts=parts,
                     seconds=time.perf_counter() - start)


@dataclass
class TeamLPSolution:
    """The TMECor of :func:`solve`: ``x`` (the team's flow per DAG sequence), ``mutineer`` (the other side's
    behaviour per information state), ``value`` (the LP's, side 0's return), ``team_best_response`` (side 0's exact
    best response against ``mutineer``) and ``other_best_response`` (the other side's, side 0's return under it)."""

    dag: BeliefDag
    x: np.ndarray
    mutineer: dict[int, np.ndarray]
    value: float
    team_best_response: float
    other_best_response: float
    seconds: dict

    @property
    def nash_conv_points(self) -> float:
        """The team NashConv in points: both sides' exact best responses' win rates summed, minus 100."""
        return _points(self.team_best_response - self.other_best_response)

    def summary(self) -> dict:
        return {"team_win_rate": (self.value + 1) / 2, "other_win_rate": (1 - self.value) / 2,
                "team_best_response_win_rate": (self.team_best_response + 1) / 2,
                "other_best_response_win_rate": (1 - self.other_best_response) / 2,
                "nash_conv_points": self.nash_conv_points, "dag_states": self.dag.states,
                "dag_sequences": self.dag.sequences, "seconds": self.seconds}


def solve(form: SequenceForm, dag: BeliefDag | None = None) -> TeamLPSolution:
    """The TMECor of ``form``'s game (side 0 the correlating team, side 1 one seat per deal) by the LP of the module
    doc (HiGHS), checked by exact best responses on both sides."""
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix, csr_matrix, hstack

    seconds = {}
    start = time.perf_counter()
    dag = build_dag(form.tree) if dag is None else dag
    seconds["dag"] = round(dag.seconds, 2)
    F, f, seqs = _mutineer_constraints(form)  # columns: the other side's sequences, then the empty one
    m = len(seqs)
    column = {int(s): j for j, s in enumerate(seqs)}  # −1 (the empty sequence) → the last column
    index = {int(node): t for t, node in enumerate(form.terminal)}
    rows_t = np.asarray([index[int(z)] for z in dag.terminal_node], dtype=np.int64)
    weight = form.chance[rows_t] * form.pirate_return[rows_t]
    other = np.asarray([column[int(q)] for q in form.mutineer_last[rows_t]], dtype=np.int64)
    n = dag.sequences
    A_t = coo_matrix((weight, (other, dag.terminal_seq)), shape=(m, n)).tocsr()  # Aᵀ: other's sequence × team's
    flow_rows = [dag.state_of, np.concatenate([np.full(len(p), s) for s, p in enumerate(dag.parents)])]
    flow_cols = [np.arange(n), np.concatenate([np.asarray(p, dtype=np.int64) for p in dag.parents])]
    flow_vals = [np.ones(n), -np.ones(len(flow_cols[1]))]
    G = coo_matrix((np.concatenate(flow_vals), (np.concatenate(flow_rows), np.concatenate(flow_cols))),
                   shape=(dag.states, n)).tocsr()
    g = np.zeros(dag.states)
    g[0] = 1.0
    rows = F.shape[0]
    # variables [x (n), v (rows)]: max f·v  s.t.  Fᵀ v − Aᵀ x ≤ 0,  G x = g,  x ≥ 0, v free
    t0 = time.perf_counter()
    result = linprog(np.concatenate([np.zeros(n), -f]), A_ub=hstack([-A_t, F.T], format="csr"), b_ub=np.zeros(m),
                     A_eq=hstack([G, csr_matrix((dag.states, rows))], format="csr"), b_eq=g,
                     bounds=[(0, None)] * n + [(None, None)] * rows, method="highs")
    seconds["lp"] = round(time.perf_counter() - t0, 2)
    if result.status != 0:
        raise RuntimeError(f"the TMECor LP failed: {result.message}; expected an optimum")
    x = np.maximum(result.x[:n], 0.0)
    value = float(-result.fun)
    y = np.zeros(form.num_seq + 1)  # the other side's strategy: the duals of Fᵀ v ≤ Aᵀ x
    y[seqs] = np.maximum(-np.asarray(result.ineqlin.marginals), 0.0)
    if not math.isclose(y[-1], 1.0, abs_tol=1e-6):
        raise RuntimeError(f"the LP's dual gives the empty sequence {y[-1]}; expected 1")
    y[-1] = 1.0
    mutineer = form.behaviour(y, MUTINEERS)
    # the checks, apart from the LP: the team's exact best response against the other side's behaviour, and the
    # other side's against the team's reach per terminal
    t0 = time.perf_counter()
    policy = [mutineer.get(i, np.ones(w) / w) for i, w in enumerate(form.width)]
    team = team_best_response_dp(form.tree, policy, PIRATES)
    reach = np.bincount(rows_t, x[dag.terminal_seq], minlength=len(form.terminal))
    other_column = np.bincount(np.where(form.mutineer_last >= 0, form.mutineer_last, form.num_seq),
                               form.chance * form.pirate_return * reach, minlength=form.num_seq + 1)
    other_br, _ = form.mutineer_best_response(other_column)
    seconds["checks"] = round(time.perf_counter() - t0, 2)
    seconds["total"] = round(time.perf_counter() - start + dag.seconds, 2)
    return TeamLPSolution(dag=dag, x=x, mutineer=mutineer, value=value, team_best_response=team["value"],
                          other_best_response=other_br, seconds=seconds)


def decompose(dag: BeliefDag, x: np.ndarray, tolerance: float = 1e-9) -> tuple[list[dict[int, int]], np.ndarray]:
    """The team's flow ``x`` as a mixture of pure plans (``{information state: action index}`` where the plan
    reaches it) and their weights: repeatedly the plan taking at each state it reaches the sequence of most
    remaining flow, weighted by the least remaining flow along it, subtracted (conservation holds after each
    step, and each step empties a sequence); flow below ``tolerance`` is dropped and the weights renormalised."""
    by_state: list[list[int]] = [[] for _ in range(dag.states)]
    for seq, s in enumerate(dag.state_of):
        by_state[s].append(seq)
    below = [[t for _, t in pairs] for pairs in dag.below]
    remaining = x.copy()
    plans, weights = [], []
    while sum(remaining[q] for q in by_state[0]) > tolerance:
        active, stack = [], [0]
        while stack:
            s = stack.pop()
            seq = max(by_state[s], key=lambda q: remaining[q])
            active.append(seq)
            stack.extend(below[seq])
        weight = min(remaining[q] for q in active)
        if weight <= tolerance * 1e-3:  # only rounding left on this path
            break
        remaining[active] -= weight
        plan: dict[int, int] = {}
        for seq in active:
            plan.update(dag.choices[seq])
        plans.append(plan)
        weights.append(weight)
    weights = np.asarray(weights)
    return plans, weights / weights.sum()


def solution_data(form: SequenceForm, solution: TeamLPSolution, variant_name: str, env_id: str,
                  tolerance: float = 1e-12) -> dict:
    """``solution`` as a ``.team.json`` of format ``traitors_env.team_dag`` (:mod:`traitors_env.agents.team_dag`):
    the DAG's states and choices with flow above ``tolerance`` (renumbered, the root first), keyed by the registered
    env's observations and actions. ``ValueError`` where two information states show one observation."""
    from ..agents.tabular import observation_key
    from ..agents.team_dag import FORMAT, VERSION

    tree, dag, x = form.tree, solution.dag, solution.x
    keys = [observation_key(node.observation(tree.info_seat[i])) for i, node in enumerate(tree.info_node)]
    if len(set(keys)) != len(keys):
        raise ValueError(f"{len(keys)} information states show {len(set(keys))} distinct observations; expected one each")
    first: dict[int, int] = {}
    for node, i in enumerate(tree.info):
        if i >= 0:
            first.setdefault(i, node)
    actions = [list(map(int, tree.actions[first[i]])) for i in range(len(keys))]
    flow = np.bincount(dag.state_of, x, minlength=dag.states)
    by_state: list[list[int]] = [[] for _ in range(dag.states)]
    for seq, s in enumerate(dag.state_of):
        by_state[s].append(seq)
    number = {0: 0}
    order, out = [0], []
    while len(out) < len(order):  # breadth first from the root over the choices with flow
        s = order[len(out)]
        row = []
        for seq in by_state[s]:
            if x[seq] <= tolerance:
                continue
            children = []
            for p, t in dag.below[seq]:
                if t not in number:
                    number[t] = len(order)
                    order.append(t)
                children.append([int(p), number[t]])
            row.append([float(x[seq] / flow[s]), {keys[i]: actions[i][a] for i, a in dag.choices[seq].items()},
                        children])
        out.append(row)
    team = {keys[i]: int(dag.parts.of[first[i]]) for i in range(len(keys)) if tree.info_side[i] == PIRATES}
    other = {keys[i]: [actions[i], [float(q) for q in probs]] for i, probs in solution.mutineer.items()}
    return {"format": FORMAT, "version": VERSION, "game": f"{env_id}:{variant_name}", "summary": solution.summary(),
            "team": team, "up": [int(p) for p in dag.parts.up], "dag": out, "other": other}


def main(argv: list[str] | None = None) -> dict:
    """``python -m traitors_env.solve.team_lp --game openspiel_social_deduction --variant mini3 [--check]``: the
    TMECor by the belief-DAG LP, printed as JSON; ``--check`` also decomposes the team's flow into joint plans and
    evaluates that mixture with :func:`.team_equilibrium.evaluate_mixture` (another code path: payoff columns)."""
    import argparse
    import json

    from ..core import load_game
    from . import small_variants
    from .exact import build_tree
    from .team_equilibrium import evaluate_mixture

    parser = argparse.ArgumentParser(prog="python -m traitors_env.solve.team_lp", description=main.__doc__)
    parser.add_argument("--game", default="openspiel_social_deduction")
    parser.add_argument("--variant", default="mini3")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--out", help="write the solution as an agent spec (a .team.json file)")
    args = parser.parse_args(argv)
    if args.out and not args.out.endswith(".team.json"):
        parser.error(f"--out {args.out!r}; expected a file name ending in .team.json (an agent spec)")
    if args.out:
        from pathlib import Path

        from ..files import output_problem

        problem = output_problem(Path(args.out), folder=False)
        if problem:
            parser.error(f"--out {args.out!r}: {problem}")
    try:
        game = load_game(args.game)
    except (KeyError, ValueError, ImportError) as error:  # an unknown game, or an optional one without its extra
        parser.error(f"--game {args.game!r}: {error}")
    declared = small_variants(game)
    if args.variant not in declared:
        parser.error(f"{game.name} has no small variant {args.variant!r}; declared: {sorted(declared)}")
    tree = build_tree(declared[args.variant])
    try:
        form = SequenceForm(tree)
        solution = solve(form)
    except ValueError as error:  # a team whose information does not decompose, or a side of several seats
        parser.error(f"--game {game.name} --variant {args.variant}: the belief-DAG LP does not apply ({error}); it "
                     "solves a two-seat team against one seat whose information decomposes (docs/notes/"
                     "team-equilibrium.md)")
    report = {"game": game.type.env_id, "variant": args.variant, "sides": list(game.type.sides),
              "walk_seconds": round(tree.seconds, 1), **solution.summary()}
    if args.check:
        t0 = time.perf_counter()
        plans, weights = decompose(solution.dag, solution.x)
        full = []
        for plan in plans:
            row = np.zeros(len(form.width), dtype=np.int64)
            row[list(plan)] = list(plan.values())
            full.append(row)
        report["mixture"] = {"plans": len(plans), "weights_min_max": [float(weights.min()), float(weights.max())],
                             **evaluate_mixture(form, full, weights, solution.mutineer),
                             "seconds": round(time.perf_counter() - t0, 1)}
    if args.out:
        from ..files import atomic_write_text

        data = solution_data(form, solution, args.variant, game.type.env_id)
        TeamDagPolicy(data)  # checked as the loader will read it
        atomic_write_text(args.out, json.dumps(data, separators=(",", ":")) + "\n")
        report["out"] = args.out
    print(json.dumps(report, indent=1, default=float))
    return report


if __name__ == "__main__":
    main()
