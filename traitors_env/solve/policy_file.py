"""A solver's policy on a small variant as a tabular policy file (:mod:`traitors_env.agents.tabular`): the agent
spec ``PATH.policy.json`` that plays it in every tool."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ..agents.tabular import TabularPolicy, observation_key
from .exact import Tree


def tabular_policy(tree: Tree, probabilities: Sequence[np.ndarray], game: str, num_actions: int,
                   source: Mapping | None = None) -> TabularPolicy:
    """``probabilities`` (one array per information state of ``tree``, over its legal actions) keyed by each
    information state's observation (:func:`observation_keys`). ``ValueError`` where two information states show the
    same observation with different probabilities: an agent that sees only the observation could not play that
    policy."""
    rows = [tuple((int(a), float(p)) for a, p in zip(node.legal_actions(), probabilities[info]))
            for info, node in enumerate(tree.info_node)]

    def same(i: int, j: int) -> bool:
        return len(rows[i]) == len(rows[j]) and all(a == b and abs(p - q) <= 1e-9
                                                    for (a, p), (b, q) in zip(rows[i], rows[j]))

    keys = observation_keys(tree, same)
    size = int(np.asarray(tree.info_node[-1].observation(tree.info_seat[-1])).size) if keys else 0
    return TabularPolicy(game, size, num_actions, dict(zip(keys, rows)), dict(source or {}))


def observation_keys(tree: Tree, same: Callable[[int, int], bool] | None = None) -> list[str]:
    """Per information state of ``tree``, the key of its observation (:func:`observation_key` of its node's
    ``observation(seat)``: what the env shows that seat, so what an agent playing a table by observation looks up);
    any game's tree (its nodes' ``observation``), what a solver's output file is keyed by.

    Raises:
        ValueError: where two information states show the same observation (an agent reading the table could not
            tell them apart), naming both; unless ``same(i, j)`` says the table may hold them as one (a policy that
            plays the same at both).
    """
    keys: list[str] = []
    owner: dict[str, int] = {}
    for info, node in enumerate(tree.info_node):
        key = observation_key(np.asarray(node.observation(tree.info_seat[info]), dtype=np.float32))
        if key in owner and (same is None or not same(owner[key], info)):
            raise ValueError(f"information states {tree.info_keys[owner[key]]!r} and {tree.info_keys[info]!r} show "
                             "the same observation" + (" but the policy differs there" if same else "") +
                             "; a table by observation could not tell them apart")
        owner[key] = info
        keys.append(key)
    return keys
