"""The exact team best response by dynamic programming over the team's common-knowledge parts (issue 50).

A team best response against a fixed policy of the other side is a single-agent problem for a coordinator who sees
what the whole team knows in common and prescribes each member's action as a function of its private information
(Nayyar, Mahajan & Teneketzis 2013, the common-information approach). With pure team strategies (an optimum over
pure strategies is one over all, the objective being multilinear) the coordinator's state is the set of histories
still *live*: consistent with its prescriptions so far. Chance's and the other side's reach of a history does not
depend on the team, so the value of a live set is a sum over its histories of that fixed reach times their value.

The decomposition, computed from :func:`.exact.build_tree`'s tree alone (no game-specific public state):

- **Parts**: the finest partition of the tree's nodes in which all nodes of one team information state share a part
  and nodes sharing a part have their parents sharing a part (union-find; the "public tree" the team's information
  induces). Children of a part's nodes fall into parts whose parents all lie in it, so the parts form a tree, and
  no team information state spans two parts.
- **Value** ``V(S)`` of a live set ``S`` inside one part: choose an action at every team information state with a
  node in ``S``; each live node sends its live children (the chosen one at a team node, every child of positive
  reach elsewhere) to their parts; ``V(S)`` = their terminals' payoffs plus ``V`` of each child part's live set,
  maximised over the choices. Choices whose children share no part are maximised separately (independent
  components); within a component the joint choices are enumerated (``max_joint`` caps a part's).
- Memoised on ``S``: a plan reaches each part with one live set, and the best continuation below a part depends on
  that set alone, so the recursion is exact. OpenSpiel's ``social_deduction`` at 3 players is the simple case: every
  action but the deal is public, so a part is one public history (the three deals), the Innocent to act has one
  information state there, and ``S`` is a subset of the deals.

Where the team's information has no such structure (a part holding a node and its own ancestor, which perfect
recall of each seat does not rule out in general; or a component too wide to enumerate) :class:`NoDecomposition`
is raised and the caller falls back to the MILP (:func:`.exact.team_best_response_milp`).
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np

# exact.py's node kinds (it calls this module, which therefore does not import it)
_CHANCE, _DECISION, _TERMINAL = 0, 1, 2

__all__ = ["NoDecomposition", "Parts", "team_best_response_dp"]


class NoDecomposition(ValueError):
    """The team's information does not decompose into a tree of parts small enough to enumerate (module doc)."""


class Parts:
    """The parts of ``tree`` (an :class:`.exact.Tree`) for ``side``'s team (module doc): ``of[node]`` is the node's
    part (−1 at terminals), ``up[part]`` its parent part, ``joint[part]`` its team states' joint choices."""

    def __init__(self, tree, side: int) -> None:
        kind, children, info = tree.kind, tree.children, tree.info
        size = len(kind)
        parent = [-1] * size
        for node in range(size):
            for child in children[node]:
                parent[child] = node
        self.parent = parent
        self.team = [kind[n] == _DECISION and tree.info_side[info[n]] == side for n in range(size)]
        link = list(range(size))

        def find(x: int) -> int:
            while link[x] != x:
                link[x] = link[link[x]]
                x = link[x]
            return x

        pending: list[tuple[int, int]] = []
        first: dict[int, int] = {}
        for node in range(size):
            if self.team[node]:
                other = first.setdefault(info[node], node)
                if other != node:
                    pending.append((other, node))
        while pending:  # merging two classes through x ~ y merges their parents' classes (parents' parts agree)
            x, y = pending.pop()
            rx, ry = find(x), find(y)
            if rx == ry:
                continue
            link[rx] = ry
            px, py = parent[x], parent[y]
            if (px < 0) != (py < 0):
                raise NoDecomposition("the root shares a part with another node: no tree of parts")
            if px >= 0:
                pending.append((px, py))
        ids: dict[int, int] = {}
        self.of = [-1] * size
        self.up: list[int] = []  # per part, its parent part (−1 for the root's)
        for node in range(size):  # preorder: a part's parent part is numbered before it unless the parts cycle
            if kind[node] == _TERMINAL:
                continue
            r = find(node)
            p = ids.get(r)
            if p is None:
                p = ids[r] = len(self.up)
                self.up.append(self.of[parent[node]] if parent[node] >= 0 else -1)
                if self.up[p] >= p or (self.up[p] < 0 and node != 0):
                    raise NoDecomposition("a part holds a node and one of its ancestors: no tree of parts")
            self.of[node] = p
        self.count = len(self.up)
        widths: dict[int, dict[int, int]] = {}  # per part, its team information states' widths
        for node in range(size):
            if self.team[node]:
                widths.setdefault(self.of[node], {})[info[node]] = len(children[node])
        #: per part, the joint choices of all its team information states (an upper bound on what is enumerated)
        self.joint = [math.prod(widths.get(p, {}).values()) for p in range(self.count)]


def team_best_response_dp(tree, policy: list[np.ndarray], side: int, max_joint: int = 100_000,
                          parts: Parts | None = None) -> dict:
    """The exact team best response of ``side`` against ``policy`` at the other side's information states (module
    doc), as :func:`.exact.team_best_response_milp` reports it, with the plan.

    Args:
        max_joint: most joint choices of the team's information states in one part (else
            :class:`NoDecomposition`, raised before the search).
        parts: :class:`Parts` of ``tree`` for ``side``, to reuse across calls (they do not depend on ``policy``).

    Returns:
        ``win_rate``, ``value`` (side's return), ``exact`` (True), ``plan`` (per information state of the side that
        some live set reaches, the chosen action index; the others are never reached by the plan), ``parts``,
        ``states`` (live sets solved), ``seconds``.
    """
    start = time.perf_counter()
    parts = Parts(tree, side) if parts is None else parts
    if max(parts.joint, default=1) > max_joint:  # refused before any work: the MILP is the caller's way then
        raise NoDecomposition(f"{max(parts.joint)} joint choices of the team at one part (max_joint {max_joint})")
    kind, children, probs, info = tree.kind, tree.children, tree.probs, tree.info
    team, of = parts.team, parts.of
    sign = 1.0 if side == 0 else -1.0
    size = len(kind)
    reach = [0.0] * size  # chance's and the other side's; the team's own choices only switch a node on or off
    reach[0] = 1.0
    for node in range(size):
        k = kind[node]
        if k == _TERMINAL or not reach[node]:
            continue
        r = reach[node]
        if k == _CHANCE:
            for w, child in zip(probs[node], children[node]):
                reach[child] = r * w
        elif team[node]:
            for child in children[node]:
                reach[child] = r
        else:
            for w, child in zip(policy[info[node]], children[node]):
                reach[child] = r * w
    payoff = {z: reach[z] * sign * v for z, v in tree.side0_return.items() if reach[z]}
    memo: dict[tuple[int, ...], float] = {}
    decided: dict[tuple[int, ...], dict[int, int]] = {}

    def value(live: tuple[int, ...]) -> float:
        v = memo.get(live)
        if v is not None:
            return v
        fixed: dict[int, list[int]] = {}  # child part -> its children live whatever the team chooses here
        total = 0.0
        choosing: dict[int, list[int]] = {}  # team information state -> its live nodes
        for node in live:
            if team[node]:
                choosing.setdefault(info[node], []).append(node)
                continue
            for child in children[node]:
                if reach[child]:
                    if kind[child] == _TERMINAL:
                        total += payoff[child]
                    else:
                        fixed.setdefault(of[child], []).append(child)
        choice: dict[int, int] = {}
        touched: set[int] = set()
        for group in _components(choosing, children, reach, kind, of):
            best, best_combo = -math.inf, None
            widths = [len(children[choosing[i][0]]) for i in group]
            reached = _parts_of(group, choosing, children, reach, kind, of)
            for combo in itertools.product(*(range(w) for w in widths)):
                extra: dict[int, list[int]] = {}
                v = 0.0
                for i, a in zip(group, combo):
                    for node in choosing[i]:
                        child = children[node][a]
                        if not reach[child]:
                            continue
                        if kind[child] == _TERMINAL:
                            v += payoff[child]
                        else:
                            extra.setdefault(of[child], []).append(child)
                for p, nodes in extra.items():
                    v += value(tuple(sorted(fixed.get(p, []) + nodes)))
                for p in reached:
                    if p not in extra and p in fixed:  # no live child of the choice there: its fixed ones alone
                        v += value(tuple(sorted(fixed[p])))
                if v > best + 1e-15:
                    best, best_combo = v, combo
            touched |= reached
            total += best
            choice.update(zip(group, best_combo))
        for p, nodes in fixed.items():
            if p not in touched:
                total += value(tuple(sorted(nodes)))
        memo[live] = total
        decided[live] = choice
        return total

    root_value = value((0,)) if kind[0] != _TERMINAL else payoff.get(0, 0.0)
    plan: dict[int, int] = {}
    stack = [(0,)] if kind[0] != _TERMINAL else []
    while stack:  # the plan: the choices along the live sets the optimum reaches
        live = stack.pop()
        choice = decided[live]
        plan.update(choice)
        nxt: dict[int, list[int]] = {}
        for node in live:
            targets = [children[node][choice[info[node]]]] if team[node] else children[node]
            for child in targets:
                if reach[child] and kind[child] != _TERMINAL:
                    nxt.setdefault(of[child], []).append(child)
        stack.extend(tuple(sorted(nodes)) for nodes in nxt.values())
    return {"win_rate": (float(root_value) + 1.0) / 2.0, "value": float(root_value), "exact": True, "plan": plan,
            "parts": parts.count, "states": len(memo), "seconds": round(time.perf_counter() - start, 2)}


def _parts_of(group, choosing, children, reach, kind, of) -> set[int]:
    """The child parts the information states of ``group`` can send a live node to."""
    return {of[c] for i in group for node in choosing[i] for c in children[node] if reach[c] and kind[c] != _TERMINAL}


def _components(choosing: dict[int, list[int]], children, reach, kind, of) -> list[list[int]]:
    """The team information states of a live set grouped where their children can share a part (the others'
    choices are independent: maximised one group at a time)."""
    owner: dict[int, int] = {}
    link = {i: i for i in choosing}

    def find(x: int) -> int:
        while link[x] != x:
            link[x] = link[link[x]]
            x = link[x]
        return x

    for i, nodes in choosing.items():
        for node in nodes:
            for c in children[node]:
                if reach[c] and kind[c] != _TERMINAL:
                    j = owner.setdefault(of[c], i)
                    link[find(i)] = find(j)
    groups: dict[int, list[int]] = {}
    for i in choosing:
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())
