"""Exact best responses and NashConv of any agent on a small variant (issue 50, item 4).

:func:`build_tree` walks a small variant's whole tree once (a variant whose ``root()`` is a node in OpenSpiel's
vocabulary: :mod:`.traitors_aboard` for Traitors Aboard, :mod:`.openspiel_tree` for any OpenSpiel-adapted game) into
flat lists: every node's kind, player, children, chance probabilities, the acting seat's information state
(interned), each side's return at the end. :func:`agent_policy` reads an agent's action probabilities at every
information state: exactly where the agent gives them (``RandomAgent``: uniform; a checkpoint's
``policy.probabilities``; an agent's own ``action_probabilities``), else as the frequencies of ``samples`` seeded
copies' actions (Traitors Aboard's heuristic: deterministic but for random tie breaks). The observation and mask are
the registered env's (the node's ``observation(seat)`` and ``legal_mask()``). An agent is read as a function of its
current observation (every agent in the project is, bar the heuristic's Spyglass memory, which the
declared variants never reach).

What :func:`evaluate` computes, for the profile in which the agent plays every seat:

- ``seats``: for each seat ``i``, its value ``V_i`` and its exact best-response value ``BR_i`` (seat ``i`` deviates
  at all its information states, both roles, the others keep the agent's policy); ``nash_conv_seats`` =
  ``Σ_i (BR_i − V_i)``, OpenSpiel's NashConv of the n-player game (``exploitability.nash_conv``).
- ``sides``: for each side, the side's win rate under the profile and under the **team best response**: every seat of
  that side deviates together (one deviation shared by the side's seats, each seat acting only on its own
  information state), the other side keeps the agent's policy. Where a side has one seat per deal (the Mutineers at
  3–5 players), the side's information states have perfect recall as one player and the standard best response is
  exact. Where it has several (the Pirates), a team best response without communication is a hard problem (the
  members hold different information); :func:`evaluate` brackets it: ``lower`` is a person-by-person optimum
  (coordinate ascent: each seat's best response in turn, its team mates fixed, until none improves; the best
  of several starts, :func:`team_best_response`; an achievable deviation, so a lower bound) and ``upper`` the best response of the team *as one player seeing all its members'
  information* (a relaxation, so an upper bound). Where the two meet the team best response is exact (``exact``).
  ``nash_conv_sides`` = the two sides' team best-response win rates summed, minus 1 (the project's NashConv,
  :mod:`traitors_env.evaluation.exploitability`), in ``[lower, upper]``.

Everything is computed on the explicit tree: O(nodes) per best response (OpenSpiel's own
``BestResponsePolicy`` on the pyspiel game, :mod:`.spiel`, gives the same seat values; a test checks it).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .traitors_aboard import CHANCE, TERMINAL
from .traitors_aboard import root as _traitors_aboard_root

__all__ = ["Tree", "agent_policy", "best_response", "build_tree", "evaluate", "policy_value"]

_CHANCE, _DECISION, _TERMINAL = 0, 1, 2


@dataclass
class Tree:
    """A small variant's whole tree (nodes in depth-first preorder; node 0 is the root).

    Attributes:
        kind: per node, 0 chance, 1 decision, 2 terminal.
        player: per decision node, the acting seat (−1 elsewhere).
        children: per node, its children's indices (legal actions / chance outcomes in order).
        actions: per node, the action or outcome leading to each child.
        probs: per chance node, the outcomes' probabilities (``None`` elsewhere).
        info: per decision node, the acting seat's information state id (−1 elsewhere).
        team: per decision node, the id of the acting side's joint information state (all its seats' information
            states together; the team-as-one-player relaxation), −1 elsewhere.
        returns: per terminal node, the seats' returns (``None`` elsewhere).
        side0_return: per terminal node, side 0's return (+1 / −1; side 1's is its negative): Traitors Aboard's
            Pirates, social_deduction's Innocents.
        info_keys: information state id → its string.
        info_seat, info_side: per information state, its seat and that seat's side (0 or 1: ``GameType.sides``).
        info_node: per information state, one of its nodes (its observation and legal actions are the same at all).
        seconds: how long the walk took.
        sides: the names of side 0 and side 1 (the variant's ``sides``, the game's ``GameType.sides``; Traitors
            Aboard's by default).
    """

    num_players: int
    kind: list[int] = field(default_factory=list)
    player: list[int] = field(default_factory=list)
    children: list[list[int]] = field(default_factory=list)
    actions: list[list[int]] = field(default_factory=list)
    probs: list[list[float] | None] = field(default_factory=list)
    info: list[int] = field(default_factory=list)
    team: list[int] = field(default_factory=list)
    returns: dict[int, list[float]] = field(default_factory=dict)
    side0_return: dict[int, float] = field(default_factory=dict)
    info_keys: list[str] = field(default_factory=list)
    info_seat: list[int] = field(default_factory=list)
    info_side: list[int] = field(default_factory=list)
    info_node: list = field(default_factory=list)
    seconds: float = 0.0
    sides: tuple[str, str] = ("pirates", "mutineers")

    @property
    def size(self) -> dict[str, int]:
        """Node counts (``histories``: every node, as OpenSpiel's state count) and information states."""
        kinds = np.bincount(np.asarray(self.kind), minlength=3)
        return {"histories": len(self.kind), "chance": int(kinds[0]), "decisions": int(kinds[1]),
                "terminals": int(kinds[2]), "information_states": len(self.info_keys),
                "team_information_states": len({t for t in self.team if t >= 0})}


def build_tree(variant: Any) -> Tree:
    """The whole tree of ``variant`` (anything with ``num_players`` and ``root()``, a node in OpenSpiel's vocabulary:
    :class:`~.traitors_aboard.SmallVariant`, :class:`~.openspiel_tree.SpielVariant`); iterative depth-first walk; the
    nodes are not kept, except one per information state for the agent's observation."""
    start = time.perf_counter()
    tree = Tree(variant.num_players)
    if getattr(variant, "sides", None):
        tree.sides = tuple(variant.sides)
    info_ids: dict[str, int] = {}
    team_ids: dict[tuple, int] = {}
    # Traitors Aboard's SmallVariant is plain data declared in the game's folder: its tree's root comes from
    # .traitors_aboard; another variant (an OpenSpiel game's) gives its own root()
    stack = [(variant.root() if hasattr(variant, "root") else _traitors_aboard_root(variant), -1)]
    while stack:
        node, parent = stack.pop()
        index = len(tree.kind)
        if parent >= 0:
            tree.children[parent].append(index)
        player = node.current_player()
        tree.player.append(player if player >= 0 else -1)
        tree.children.append([])
        if player == TERMINAL:
            tree.kind.append(_TERMINAL)
            tree.actions.append([])
            tree.probs.append(None)
            tree.info.append(-1)
            tree.team.append(-1)
            returns = node.returns()
            tree.returns[index] = returns
            side0 = next(s for s in range(variant.num_players) if node.side_of(s) == 0)
            tree.side0_return[index] = returns[side0]
            continue
        if player == CHANCE:
            outcomes = node.chance_outcomes()
            tree.kind.append(_CHANCE)
            tree.actions.append([a for a, _ in outcomes])
            tree.probs.append([p for _, p in outcomes])
            tree.info.append(-1)
            tree.team.append(-1)
            moves = tree.actions[-1]
        else:
            key = node.information_state_string(player)
            info = info_ids.get(key)
            if info is None:
                info = info_ids[key] = len(tree.info_keys)
                tree.info_keys.append(key)
                tree.info_seat.append(player)
                tree.info_side.append(node.side_of(player))
                tree.info_node.append(node.clone())
            side = node.side_of(player)
            # a node may give its side's joint state itself (Avalon's: cheaper, the same partition)
            joint = (node.team_information_state(side) if hasattr(node, "team_information_state") else
                     tuple(node.information_state_string(s) for s in range(variant.num_players) if node.side_of(s) == side))
            tree.kind.append(_DECISION)
            tree.actions.append(node.legal_actions())
            tree.probs.append(None)
            tree.info.append(info)
            tree.team.append(team_ids.setdefault(joint, len(team_ids)))
            moves = tree.actions[-1]
        # children pushed in reverse so that they are numbered in action order
        for action in reversed(moves):
            stack.append((node.child(action), index))
        # the children list is filled in preorder, reversed pushes give action order
    tree.seconds = time.perf_counter() - start
    return tree


# ------------------------------------------------------------------ policies
def _probabilities(agent, observation: np.ndarray, mask: np.ndarray, side: int | None = None) -> np.ndarray | None:
    """The agent's exact action probabilities, where it gives them; ``None`` otherwise. A
    :class:`~traitors_env.agents.side.SideAgent` (a run or generation folder: one policy per side) gives those of
    its ``side``'s agent."""
    from ..agents.side import SideAgent
    from ..core.agent import RandomAgent

    if isinstance(agent, SideAgent) and side is not None:
        return _probabilities(agent.agents[side], observation, mask)
    if isinstance(agent, RandomAgent):
        return mask.astype(np.float64) / mask.sum()
    policy = getattr(agent, "policy", None)
    stated = getattr(agent, "action_probabilities", None)  # a bot that states the distribution its act() draws from
    if callable(stated):
        p = np.asarray(stated(observation, mask), dtype=np.float64) * (mask > 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return p / p.sum()
    if policy is not None and hasattr(policy, "probabilities") and not getattr(agent, "deterministic", False):
        p = np.asarray(policy.probabilities(observation, mask), dtype=np.float64) * (mask > 0)
        with np.errstate(invalid="ignore", divide="ignore"):  # no mass on a legal action: NaN, refused by the caller
            return p / p.sum()
    return None


def agent_policy(tree: Tree, make_agent: Callable[[int], object], samples: int = 1024,
                 side_agents: dict[int, Callable[[int], object]] | None = None) -> tuple[list[np.ndarray], dict]:
    """The agent's action probabilities at every information state of ``tree`` (aligned with the decision
    nodes' ``actions``), and a note of how they were read.

    Args:
        make_agent: ``seed -> agent`` (:func:`traitors_env.agents.spec.agent_maker`'s maker).
        samples: seeded copies whose actions give the frequencies, for an agent without exact probabilities.
        side_agents: optional ``{side: maker}`` overriding ``make_agent`` at that side's information states.
    """
    makers = {0: make_agent, 1: make_agent, **(side_agents or {})}
    probe = {side: maker(0) for side, maker in makers.items()}
    from ..agents.team_dag import TeamDagAgent
    from ..agents.team_plan import TeamEquilibriumAgent

    if any(isinstance(agent, (TeamEquilibriumAgent, TeamDagAgent)) for agent in probe.values()):
        # its seats share the game's plan: per information state it would be read as the marginals, another agent
        raise ValueError("a team equilibrium (.team.json) correlates its seats through one plan per game; it has no "
                         "probabilities per information state to read. Its exact figures: python -m "
                         "traitors_env.solve.team_equilibrium (docs/notes/team-equilibrium.md)")
    copies: dict[int, list] = {}
    exact = sampled = 0
    cache: dict[tuple, np.ndarray] = {}
    out: list[np.ndarray] = []
    for info, node in enumerate(tree.info_node):
        seat, side = tree.info_seat[info], tree.info_side[info]
        observation = node.observation(seat)
        legal = node.legal_actions()
        mask = np.asarray(node.legal_mask())
        key = (side, observation.tobytes(), tuple(legal))
        p = cache.get(key)
        if p is None:
            full = _probabilities(probe[side], observation, mask, side)
            if full is not None:
                exact += 1
            else:
                sampled += 1
                if side not in copies:
                    copies[side] = [makers[side](seed) for seed in range(samples)]
                full = np.zeros(mask.size)
                for agent in copies[side]:
                    action = agent.act(observation, mask)
                    if not 0 <= int(action) < mask.size or not mask[int(action)]:
                        raise ValueError(f"the agent played action {action!r} at {tree.info_keys[info]!r}; expected one "
                                         f"of the legal actions {legal}")
                    full[int(action)] += 1.0 / samples
            if not np.isfinite(full).all() or (full[np.flatnonzero(mask == 0)] > 1e-12).any():
                raise ValueError(f"the agent's probabilities at {tree.info_keys[info]!r} are {full}; expected a "
                                 f"distribution over the legal actions {legal}")
            p = cache[key] = full[legal]
            if not np.isfinite(p).all() or abs(p.sum() - 1) > 1e-9 or (p < 0).any():
                raise ValueError(f"the agent's probabilities at {tree.info_keys[info]!r} are {p}; expected a distribution "
                                 f"over the legal actions {legal}")
        out.append(p)
    return out, {"observations_exact": exact, "observations_sampled": sampled, "samples": samples if sampled else 0}


# ------------------------------------------------------------------- values
def _utility(tree: Tree, seat: int | None, side: int | None) -> dict[int, float]:
    if seat is not None:
        return {n: r[seat] for n, r in tree.returns.items()}
    sign = 1.0 if side == 0 else -1.0
    return {n: sign * r for n, r in tree.side0_return.items()}


def policy_value(tree: Tree, policy: list[np.ndarray]) -> np.ndarray:
    """Every seat's expected return when ``policy`` plays every seat (bottom-up: children follow parents in preorder)."""
    value = np.zeros((len(tree.kind), tree.num_players))
    for node in range(len(tree.kind) - 1, -1, -1):
        kind = tree.kind[node]
        if kind == _TERMINAL:
            value[node] = tree.returns[node]
            continue
        weights = tree.probs[node] if kind == _CHANCE else policy[tree.info[node]]
        value[node] = np.asarray(weights) @ value[tree.children[node]]
    return value[0]


def best_response(tree: Tree, policy: list[np.ndarray], deviates: Callable[[int], bool], utility: dict[int, float],
                  key: list[int] | None = None) -> tuple[float, dict[int, int]]:
    """The exact best response of a deviator with perfect recall against ``policy`` elsewhere.

    Args:
        deviates: ``decision node -> bool``: whether the deviator acts there.
        utility: per terminal node, the deviator's payoff.
        key: per node, the deviator's information state id there (default ``tree.info``); all nodes of one id are
            one choice.

    Returns:
        The deviator's value at the root and its choice (index into the node's actions) per information state id.
    """
    key = tree.info if key is None else key
    kind, children, probs, info = tree.kind, tree.children, tree.probs, tree.info
    size = len(kind)
    reach = [0.0] * size  # the others' and chance's reach probability
    reach[0] = 1.0
    members: dict[int, list[int]] = {}
    for node in range(size):
        k = kind[node]
        if k == _TERMINAL:
            continue
        r = reach[node]
        if k == _CHANCE:
            for w, child in zip(probs[node], children[node]):
                reach[child] = r * w
        elif deviates(node):
            members.setdefault(key[node], []).append(node)
            for child in children[node]:
                reach[child] = r
        else:
            for w, child in zip(policy[info[node]], children[node]):
                reach[child] = r * w
    value: dict[int, float] = {}
    choice: dict[int, int] = {}
    # node_value and decide recurse along one path of the tree only (a deeper information state is decided from a
    # deeper node), so the depth is a few frames per level: Python's default limit is ample. (It was raised here
    # process-wide once, which let a later json.loads of a deeply nested file overflow the C stack instead of
    # raising RecursionError.)

    def node_value(node: int) -> float:
        v = value.get(node)
        if v is not None:
            return v
        k = kind[node]
        if k == _TERMINAL:
            v = utility[node]
        elif k == _CHANCE:
            v = sum(w * node_value(c) for w, c in zip(probs[node], children[node]) if w)
        elif deviates(node):
            v = node_value(children[node][decide(key[node])])
        else:
            v = sum(w * node_value(c) for w, c in zip(policy[info[node]], children[node]) if w)
        value[node] = v
        return v

    def decide(infoset: int) -> int:
        c = choice.get(infoset)
        if c is None:
            nodes = members[infoset]
            width = len(children[nodes[0]])
            q = [0.0] * width
            for node in nodes:
                r = reach[node]
                if r:
                    for a in range(width):
                        q[a] += r * node_value(children[node][a])
            c = choice[infoset] = int(np.argmax(q))
        return c

    return node_value(0), choice


def _pure(tree: Tree, policy: list[np.ndarray], choices: dict[int, int]) -> list[np.ndarray]:
    new = list(policy)
    for infoset, c in choices.items():
        p = np.zeros(len(policy[infoset]))
        p[c] = 1.0
        new[infoset] = p
    return new


def _win_rate(ret: float) -> float:
    return (ret + 1.0) / 2.0


def team_best_response(tree: Tree, policy: list[np.ndarray], side: int, max_rounds: int = 50,
                       random_starts: int = 4, seed: int = 0) -> dict:
    """The team best response of ``side`` (module doc): ``lower``, the best person-by-person optimum found by
    coordinate ascent from several starts, ``upper``, the team as one player, and ``exact`` where they meet.

    Coordinate ascent stops at a local optimum that depends on its start (a convention two seats must adopt together
    is never found one seat at a time), so it starts from the agent's policy, from uniform play, from every seat's
    best response computed at once (each on its own information state, its team mates' choices made the same way),
    and from ``random_starts`` seeded random pure strategies; it stops early where a start meets ``upper``."""
    start = time.perf_counter()
    utility = _utility(tree, None, side)
    kind, player, info = tree.kind, tree.player, tree.info
    on_side = [kind[n] == _DECISION and tree.info_side[info[n]] == side for n in range(len(kind))]
    upper, _ = best_response(tree, policy, lambda n: on_side[n], utility, key=tree.team)
    uniform = [np.full(len(p), 1.0 / len(p)) for p in policy]
    _, at_once = best_response(tree, policy, lambda n: on_side[n], utility, key=info)
    rng = np.random.default_rng(seed)

    def random_pure() -> list[np.ndarray]:
        return [np.eye(len(p))[rng.integers(len(p))] for p in policy]

    starts = [lambda: policy, lambda: uniform, lambda: _pure(tree, policy, at_once)]
    starts += [random_pure] * random_starts
    lower, rounds_used = -np.inf, 0
    for make_start in starts:
        first = make_start()
        # the start only changes the deviating side's information states; the other side keeps the agent's policy
        current = [first[i] if tree.info_side[i] == side else policy[i] for i in range(len(policy))]
        previous = -np.inf
        for rounds in range(1, max_rounds + 1):  # noqa: B007 (read after the loop)
            for seat in range(tree.num_players):
                value, choices = best_response(tree, current, lambda n, s=seat: on_side[n] and player[n] == s, utility)
                current = _pure(tree, current, choices)
            if value <= previous + 1e-12:
                break
            previous = value
        if value > lower:
            lower, rounds_used = value, rounds
        if abs(upper - lower) < 1e-9:
            break
    return {
        "win_rate_lower": _win_rate(lower), "win_rate_upper": _win_rate(upper),
        "person_by_person": _win_rate(lower), "shared_information": _win_rate(upper),
        "exact": bool(abs(upper - lower) < 1e-9), "rounds": rounds_used,
        "seconds": round(time.perf_counter() - start, 2),
    }


def team_best_response_milp(tree: Tree, policy: list[np.ndarray], side: int, time_limit: float = 300.0) -> dict:
    """The exact team best response of ``side`` as a mixed-integer program (sequence form, pure strategies).

    Each seat of the side chooses a pure strategy over its own information states of that side: a binary
    realization plan ``x`` per seat (``x(I, a)`` = 1 where the seat would take ``a`` at ``I``; ``Σ_a x(I, a)`` = its
    parent sequence's ``x``). A terminal history's payoff is weighted by chance's and the other side's reach and by
    the product of the side's seats' last sequences on its path; each product of several binaries is one more
    variable ``z`` bounded on the side its coefficient pushes it (:func:`solve_team_milp`), exact at binary ``x``. The optimum is the
    team best response (an optimum over pure strategies is an optimum over all: the objective is multilinear).
    Solved by HiGHS (``scipy.optimize.milp``, :func:`solve_team_milp`) within ``time_limit`` seconds; ``exact`` is
    false where it stopped early.
    """
    start = time.perf_counter()
    kind, children, probs, info, player = tree.kind, tree.children, tree.probs, tree.info, tree.player
    sign = 1.0 if side == 0 else -1.0
    seq: dict[tuple[int, int], int] = {}  # (information state, action index) -> variable
    parent: dict[int, int] = {}  # information state -> its seat's previous sequence variable (−1: the empty one)
    terms: dict[tuple[int, ...], float] = {}
    n = tree.num_players
    stack = [(0, 1.0, (-1,) * n)]
    while stack:
        node, reach, last = stack.pop()
        k = kind[node]
        if k == _TERMINAL:
            key = tuple(sorted(v for v in last if v >= 0))
            terms[key] = terms.get(key, 0.0) + reach * sign * tree.side0_return[node]
        elif k == _CHANCE:
            for w, child in zip(probs[node], children[node]):
                stack.append((child, reach * w, last))
        elif tree.info_side[info[node]] == side:
            infoset, seat = info[node], player[node]
            parent.setdefault(infoset, last[seat])
            for a, child in enumerate(children[node]):
                var = seq.setdefault((infoset, a), len(seq))
                stack.append((child, reach, last[:seat] + (var,) + last[seat + 1:]))
        else:
            for w, child in zip(policy[info[node]], children[node]):
                if w:
                    stack.append((child, reach * w, last))
    by_infoset: dict[int, list[int]] = {}
    for (infoset, _), var in seq.items():
        by_infoset.setdefault(infoset, []).append(var)
    result, constant, products = solve_team_milp(len(seq), [(v, parent[i]) for i, v in by_infoset.items()], terms,
                                                 time_limit)
    bound = getattr(result, "mip_dual_bound", None)
    bound = None if bound is None or not np.isfinite(bound) else _win_rate(constant - float(bound))
    sizes = {"binaries": len(seq), "products": products, "status": result.message,
             "seconds": round(time.perf_counter() - start, 2)}
    if result.x is None:  # stopped before any solution (time limit): the bracket of the bounds stands, marked inexact
        return {"win_rate": None, "exact": False, "win_rate_bound": bound, **sizes}
    return {"win_rate": _win_rate(constant - float(result.fun)), "exact": bool(result.status == 0),
            "win_rate_bound": bound, **sizes}


def solve_team_milp(num_x: int, infosets: list[tuple[list[int], int]], terms: dict[tuple[int, ...], float],
                    time_limit: float):
    """Maximise a multilinear objective over a team's pure sequence-form plans with HiGHS (``scipy.optimize.milp``).

    Args:
        num_x: binary sequence variables ``0 … num_x − 1`` (every seat of the team).
        infosets: per information state, its sequences' variables and its seat's parent sequence (−1: the empty
            one): ``Σ_a x(I, a) = x(parent)``, or ``= 1``.
        terms: sorted tuple of sequence variables → the objective's coefficient of their product (``()``: a
            constant). Each product of several is one continuous variable ``z`` bounded only on the side its
            coefficient pushes it (``z ≤ x_i`` where positive, ``z ≥ Σ x_i − (k − 1)`` where negative): exact at
            binary ``x``, and fewer rows than both.

    Returns ``(result, constant, products)``: scipy's result (``fun`` is minus the objective less ``constant``).
    """
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_matrix

    c = [0.0] * num_x
    constant = 0.0
    rows, cols, vals, lo, hi = [], [], [], [], []
    r = 0
    for members, parent in infosets:
        rows += [r] * len(members)
        cols += members
        vals += [1.0] * len(members)
        if parent >= 0:
            rows.append(r)
            cols.append(parent)
            vals.append(-1.0)
        lo.append(0.0 if parent >= 0 else 1.0)
        hi.append(0.0 if parent >= 0 else 1.0)
        r += 1
    products = 0
    for key, value in terms.items():
        if not key:
            constant += value
        elif len(key) == 1:
            c[key[0]] += value
        elif value != 0:
            z = num_x + products
            products += 1
            c.append(value)
            if value > 0:
                for var in key:  # z − x_i ≤ 0
                    rows += [r, r]
                    cols += [z, var]
                    vals += [1.0, -1.0]
                    lo.append(-np.inf)
                    hi.append(0.0)
                    r += 1
            else:
                rows += [r] * (len(key) + 1)  # z − Σ x_i ≥ −(k − 1)
                cols += [z, *key]
                vals += [1.0] + [-1.0] * len(key)
                lo.append(-(len(key) - 1.0))
                hi.append(np.inf)
                r += 1
    matrix = coo_matrix((vals, (rows, cols)), shape=(r, num_x + products)).tocsr()
    integrality = np.concatenate([np.ones(num_x), np.zeros(products)])
    result = milp(-np.asarray(c), constraints=LinearConstraint(matrix, lo, hi), integrality=integrality,
                  bounds=Bounds(0, 1), options={"time_limit": time_limit, "mip_rel_gap": 0.0})
    return result, constant, products


def evaluate(tree: Tree, policy: list[np.ndarray], sides: tuple[str, str] | None = None,
             milp_time_limit: float = 300.0) -> dict:
    """Seat and side best responses and NashConv of the profile ``policy`` (module doc); ``sides``: the names of side
    0 and side 1 in the report (the game's ``GameType.sides``; default the tree's, :attr:`Tree.sides`)."""
    start = time.perf_counter()
    sides = tree.sides if sides is None else tuple(sides)
    values = policy_value(tree, policy)
    seat_rows = []
    kind, player = tree.kind, tree.player
    for seat in range(tree.num_players):
        t0 = time.perf_counter()
        br, _ = best_response(tree, policy, lambda n, s=seat: kind[n] == _DECISION and player[n] == s,
                              _utility(tree, seat, None))
        seat_rows.append({"seat": seat, "value": float(values[seat]), "best_response": float(br),
                          "gain": float(br - values[seat]), "seconds": round(time.perf_counter() - t0, 2)})
    pirate_value = policy_value_side(tree, policy)
    side_rows = {}
    for side, name in enumerate(sides):
        team = team_best_response(tree, policy, side)
        if not team["exact"]:
            team["dp"] = _team_dp(tree, policy, side)
            if team["dp"]["exact"]:
                team["win_rate_lower"] = team["win_rate_upper"] = team["dp"]["win_rate"]
                team["exact"] = True
        if not team["exact"]:
            team["milp"] = team_best_response_milp(tree, policy, side, time_limit=milp_time_limit)
            if team["milp"]["exact"]:
                team["win_rate_lower"] = team["win_rate_upper"] = team["milp"]["win_rate"]
                team["exact"] = True
            else:  # stopped at its time limit: its incumbent and its dual bound still narrow the bracket
                if team["milp"]["win_rate"] is not None:
                    team["win_rate_lower"] = max(team["win_rate_lower"], team["milp"]["win_rate"])
                if team["milp"]["win_rate_bound"] is not None:
                    team["win_rate_upper"] = min(team["win_rate_upper"], team["milp"]["win_rate_bound"])
        own = _win_rate(pirate_value if side == 0 else -pirate_value)
        side_rows[name] = {"win_rate": own, **team}
    lower = side_rows[sides[0]]["win_rate_lower"] + side_rows[sides[1]]["win_rate_lower"] - 1
    upper = side_rows[sides[0]]["win_rate_upper"] + side_rows[sides[1]]["win_rate_upper"] - 1
    return {
        "seats": seat_rows,
        "nash_conv_seats": float(sum(r["gain"] for r in seat_rows)),
        "sides": side_rows,
        "nash_conv_sides": {"lower": lower, "upper": upper, "exact": bool(abs(upper - lower) < 1e-9),
                            "points_lower": round(100 * lower, 3), "points_upper": round(100 * upper, 3)},
        "seconds": round(time.perf_counter() - start, 2),
    }


def _team_dp(tree: Tree, policy: list[np.ndarray], side: int) -> dict:
    """The exact team best response by dynamic programming over the team's common-knowledge parts
    (:mod:`.team_dp`), without its plan; ``exact`` false (and ``reason``) where the team's information does not
    decompose, and the MILP is tried instead."""
    from .team_dp import NoDecomposition, team_best_response_dp

    start = time.perf_counter()
    try:
        result = team_best_response_dp(tree, policy, side)
    except NoDecomposition as error:
        return {"exact": False, "reason": str(error), "seconds": round(time.perf_counter() - start, 2)}
    return {k: v for k, v in result.items() if k != "plan"} | {"win_rate": float(result["win_rate"])}


def policy_value_side(tree: Tree, policy: list[np.ndarray]) -> float:
    """Side 0's expected return under ``policy`` (Traitors Aboard's Pirates)."""
    value, _ = best_response(tree, policy, lambda n: False, _utility(tree, None, 0))
    return value
