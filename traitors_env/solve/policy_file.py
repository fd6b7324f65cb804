"""A solver's policy on a small variant as a tabular policy file (:mod:`traitors_env.agents.tabular`): the agent
spec ``PATH.policy.json`` that plays it in every tool."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..agents.tabular import TabularPolicy, observation_key
from .exact import Tree


def tabular_policy(tree: Tree, probabilities: Sequence[np.ndarray], game: str, num_actions: int,
                   source: Mapping | None = None) -> TabularPolicy:
    """``probabilities`` (one array per information state of ``tree``, over its legal actions) keyed by each
    information state's observation. ``ValueError`` where two information states show the same observation with
    different probabilities: an agent that sees only the observation could not play that policy."""
    table: dict[str, tuple[tuple[int, float], ...]] = {}
    owner: dict[str, int] = {}
    size = 0
    for info, node in enumerate(tree.info_node):
        observation = np.asarray(node.observation(tree.info_seat[info]), dtype=np.float32)
        size = observation.size
        key = observation_key(observation)
        row = tuple((int(a), float(p)) for a, p in zip(node.legal_actions(), probabilities[info]))
        if key in table and (len(table[key]) != len(row)
                             or any(a != b or abs(p - q) > 1e-9 for (a, p), (b, q) in zip(table[key], row))):
            raise ValueError(f"information states {tree.info_keys[owner[key]]!r} and {tree.info_keys[info]!r} show "
                             "the same observation but the policy differs there; a tabular policy by observation "
                             "cannot play it")
        table[key], owner[key] = row, info
    return TabularPolicy(game, size, num_actions, table, dict(source or {}))
