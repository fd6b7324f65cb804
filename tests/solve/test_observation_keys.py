"""A solver's output keyed by observation (the team equilibrium's ``.team.json`` and a ``.policy.json``): each
information state by its node's ``observation`` (what the env shows that seat), for any game's tree, with the same
refusal where two information states show one observation (an agent reading the table could not tell them apart)."""

from __future__ import annotations

import numpy as np
import pytest
from test_team_equilibrium import _matching_tree

from traitors_env.agents.tabular import observation_key
from traitors_env.solve import team_equilibrium as te
from traitors_env.solve.policy_file import tabular_policy


class _Node:
    """A node of a hand-made game: only what a tree's node promises (its seat's observation, its legal actions)."""

    def __init__(self, shows: int) -> None:
        self.shows = shows

    def observation(self, seat: int) -> np.ndarray:
        return np.eye(4, dtype=np.float32)[self.shows]

    def legal_actions(self) -> tuple[int, ...]:
        return (0, 1)


def _solved(shows):
    tree = _matching_tree()
    tree.info_node = [_Node(s) for s in shows]
    form = te.SequenceForm(tree)
    return tree, form, te.solve(form, tolerance_points=1e-6, max_iterations=20)


def test_a_team_solution_is_keyed_by_the_trees_observations_whatever_the_game():
    tree, form, solution = _solved((0, 1, 2))
    data = te.solution_data(form, solution, "matching")
    keys = [observation_key(np.eye(4, dtype=np.float32)[s]) for s in range(3)]
    assert sorted(data["states"]) == sorted(keys)
    assert list(data["mutineers"]) == [keys[2]]
    assert all(sorted(plan) == sorted(keys[:2]) for plan in data["pirates"]["plans"])
    assert sorted(tabular_policy(tree, [np.array([0.5, 0.5])] * 3, "matching", 2).table) == sorted(keys)


def test_two_information_states_behind_one_observation_are_refused_naming_them():
    tree, form, solution = _solved((0, 0, 2))  # the two Pirates' states look alike
    with pytest.raises(ValueError, match="'p0' and 'p1' show the same observation"):
        te.solution_data(form, solution, "matching")
    half, left, right = np.array([0.5, 0.5]), np.array([1.0, 0.0]), np.array([0.0, 1.0])
    assert len(tabular_policy(tree, [half, half, left], "matching", 2).table) == 2  # the same play at both: one row
    with pytest.raises(ValueError, match="'p0' and 'p1' show the same observation"):
        tabular_policy(tree, [left, right, half], "matching", 2)
