"""An OpenSpiel-adapted game's small variants as explicit trees for :mod:`.exact` and :mod:`.cfr` (issue 50).

Generic over :mod:`traitors_env.games.openspiel.adapter`: a game registered through a
:class:`~traitors_env.games.openspiel.adapter.SpielSpec` declares its small variants
(:class:`~traitors_env.games.openspiel.adapter.SmallSpielVariant`, ``Game.extras["small_variants"]``) and
:func:`variants` turns each into a :class:`SpielVariant`, whose :meth:`~SpielVariant.root` is a :class:`SpielNode`:
the :class:`~.traitors_aboard.Node` vocabulary (``current_player``, ``chance_outcomes``, ``legal_actions``,
``information_state_string``, ``observation``, ``returns``, ``side_of``, ``child``) over a ``pyspiel.State``.

- **Chance** is the pyspiel game's own (``chance_outcomes()``), every outcome a child.
- **Actions** are the env's action indices (the spec's ``from_spiel`` / ``to_spiel``), children in that order, so an
  agent's probabilities over the env's mask line up with the tree.
- **Information states** are OpenSpiel's ``information_state_string`` (its perfect-recall definition), so a policy
  on the tree is a policy of the pyspiel game, and OpenSpiel's algorithms give the same values (:func:`spiel_policy`,
  :func:`openspiel_nash_conv`).
- **Observations** are the registered env's: the spec's encoder on the same ``pyspiel.State``.

Needs the ``solve`` extra (``pip install -e ".[solve]"``); imported only where a game is an OpenSpiel one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import require_pyspiel

pyspiel = require_pyspiel()  # the install hint, before the adapter's bare `import pyspiel` fails without it

from ..games.openspiel.adapter import SmallSpielVariant, SpielSpec  # noqa: E402

__all__ = ["SpielNode", "SpielVariant", "openspiel_nash_conv", "spiel_policy", "variants"]


@dataclass(frozen=True)
class SpielVariant:
    """A declared small variant of an OpenSpiel game, ready to walk (module doc)."""

    spec: SpielSpec
    declaration: SmallSpielVariant

    @property
    def name(self) -> str:
        return self.declaration.name

    @property
    def description(self) -> str:
        return self.declaration.description

    @property
    def num_players(self) -> int:
        return self.declaration.num_players

    @property
    def options(self) -> dict[str, Any]:
        """Every parameter but the table size, defaults filled in and checked as the env checks them."""
        return self.spec.checked_options(self.declaration.num_players, self.declaration.options)[1]

    def pyspiel_game(self):
        """The loaded pyspiel game of the variant's parameters (the one the env plays)."""
        return pyspiel.load_game(self.spec.spiel_name, {self.spec.players_parameter: self.num_players, **self.options})

    def root(self) -> SpielNode:
        """The tree's root: the pyspiel game's initial state (a chance node: the deal)."""
        return SpielNode(self.spec, self.options, self.pyspiel_game().new_initial_state())


def variants(spec: SpielSpec) -> dict[str, SpielVariant]:
    """The small variants ``spec`` declares, by name."""
    return {name: SpielVariant(spec, declaration) for name, declaration in spec.small_variants.items()}


class SpielNode:
    """One history of a pyspiel game (module doc). ``state`` is never shown to an agent: :meth:`observation` is."""

    __slots__ = ("spec", "options", "state")

    def __init__(self, spec: SpielSpec, options: Mapping[str, Any], state) -> None:
        self.spec = spec
        self.options = options
        self.state = state

    def clone(self) -> SpielNode:
        return SpielNode(self.spec, self.options, self.state.clone())

    # --------------------------------------------------------------- queries
    def current_player(self) -> int:
        """The seat to act, or pyspiel's ids: −1 chance, −4 terminal (those of :mod:`.traitors_aboard`)."""
        return int(self.state.current_player())

    def is_terminal(self) -> bool:
        return bool(self.state.is_terminal())

    def is_chance_node(self) -> bool:
        return bool(self.state.is_chance_node())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(int(a), float(p)) for a, p in self.state.chance_outcomes()]

    def legal_actions(self) -> list[int]:
        """The env's action indices legal for the seat to act, sorted (the chance outcomes at a chance node)."""
        state = self.state
        if state.is_chance_node():
            return [a for a, _ in self.chance_outcomes()]
        if state.is_terminal():
            return []
        from_spiel = self.spec.from_spiel
        if from_spiel is None:
            return [int(a) for a in state.legal_actions()]
        return sorted(int(from_spiel(state, int(a))) for a in state.legal_actions())

    def legal_mask(self) -> np.ndarray:
        """``int8`` over the env's actions, as the env's ``action_mask``."""
        mask = np.zeros(self.spec.type.num_actions, dtype=np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def spiel_action(self, action: int) -> int:
        """pyspiel's index of the env's ``action`` for the seat to act (a chance outcome as it is)."""
        if self.spec.to_spiel is None or self.state.is_chance_node():
            return int(action)
        return int(self.spec.to_spiel(self.state, int(action)))

    def returns(self) -> list[float]:
        return [float(r) for r in self.state.returns()]

    def side_of(self, seat: int) -> int:
        """``seat``'s side (0 or 1) once dealt (the spec's ``sides``)."""
        return int(self.spec.sides(self.state, self.state.num_players())[seat])

    def information_state_string(self, seat: int) -> str:
        """OpenSpiel's perfect-recall information state of ``seat``."""
        return self.state.information_state_string(seat)

    def observation(self, seat: int) -> np.ndarray:
        """``seat``'s observation, exactly the registered env's (the spec's encoder on this state)."""
        return self.spec.encoder.encode(self.state, seat, self.options)

    # ----------------------------------------------------------- transitions
    def apply_action(self, action: int) -> None:
        """The env's action index for the seat to act, or a chance outcome."""
        self.state.apply_action(self.spiel_action(action))

    def child(self, action: int) -> SpielNode:
        state = self.state.clone()
        state.apply_action(self.spiel_action(action))
        return SpielNode(self.spec, self.options, state)

    def __str__(self) -> str:
        return str(self.state)


def spiel_policy(game, tree, probabilities: list[np.ndarray]):
    """An OpenSpiel ``policy.Policy`` of the pyspiel ``game`` playing ``probabilities`` (per information state of
    ``tree``, over its nodes' env actions) at every seat, the actions turned into pyspiel's."""
    from open_spiel.python import policy as openspiel_policy

    index = {key: i for i, key in enumerate(tree.info_keys)}
    table = []
    for i, node in enumerate(tree.info_node):
        table.append({node.spiel_action(a): float(p) for a, p in zip(node.legal_actions(), probabilities[i])})

    class _TreePolicy(openspiel_policy.Policy):
        def action_probabilities(self, state, player_id=None):
            player = state.current_player() if player_id is None else player_id
            return table[index[state.information_state_string(player)]]

    return _TreePolicy(game, list(range(game.num_players())))


def openspiel_nash_conv(variant: SpielVariant, tree, probabilities: list[np.ndarray]) -> dict:
    """OpenSpiel's ``exploitability.nash_conv`` (its Python tabular best response per seat) of the profile."""
    from open_spiel.python.algorithms import exploitability

    game = variant.pyspiel_game()
    result = exploitability.nash_conv(game, spiel_policy(game, tree, probabilities), return_only_nash_conv=False)
    return {"nash_conv": float(result.nash_conv), "player_improvements": [float(x) for x in result.player_improvements]}
