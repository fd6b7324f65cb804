"""Small hand-made team games as exact trees (:class:`traitors_env.solve.exact.Tree`) for the team solvers' tests
(tests/solve/test_team_dp.py, tests/solve/test_team_lp.py)."""

from __future__ import annotations

import numpy as np

from traitors_env.solve.exact import Tree


def tree_from(step, sides=(0, 0, 1)) -> Tree:
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


def private_types_game(rng: np.random.Generator) -> Tree:
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

    return tree_from(step)


def matching_game(rng: np.random.Generator, trial: int):
    """The matching game of tests/solve/test_team_equilibrium.py (a coin nobody sees, each Pirate seat picks L or R
    unseen, the Mutineer guesses), with random returns after the first trial."""
    payoff = {}

    def step(h):
        if len(h) == 0:
            return ("chance", [0.5, 0.5])
        if len(h) < 4:
            return ("decision", len(h) - 1, "pm"[len(h) // 3] + str(len(h)), 2, h[1:])
        win = 1.0 if h[1] == h[2] and h[3] != h[1] else -1.0
        return ("terminal", payoff.setdefault(h, float(rng.uniform(-1, 1)) if trial else win))

    return tree_from(step)
