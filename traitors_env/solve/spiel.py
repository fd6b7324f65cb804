"""Our games' small variants as pyspiel Python games (issue 50, item 2): OpenSpiel's algorithms run on them unmodified.

``import traitors_env.solve.spiel`` registers one pyspiel game per game with small variants (:data:`FAMILIES`), each
with the parameter ``variant``: ``python_traitors_aboard_small`` (:data:`~.traitors_aboard.VARIANTS`; default
``mini3``) and ``python_avalon_small`` (:data:`~.avalon.VARIANTS`; default ``mini5``)::

    import pyspiel
    import traitors_env.solve.spiel  # noqa: F401 (registers the games)

    game = pyspiel.load_game("python_traitors_aboard_small", {"variant": "mini3"})
    pyspiel.random_sim_test(game, num_sims=10, serialize=False, verbose=False)

Each game is its tree (:mod:`.traitors_aboard`: chance nodes for the deal, the draws and the Spyglass shuffle;
:mod:`.avalon`: the deal; module docs there): ``information_state_string`` is the seat's perfect-recall sequence of
its own observations and actions, ``observation_tensor`` the game's own observation vector (``encode``, the env's
``"observation"``), and the actions are the env's action indices. Rewards: +1 for each seat of the winning side, −1
for the others (R17, A15): a general-sum game of ``num_players`` seats, each seat's role dealt by chance. Needs the
``solve`` extra (``pip install -e ".[solve]"``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import avalon as _avalon
from . import require_pyspiel
from . import traitors_aboard as _traitors_aboard

pyspiel = require_pyspiel()

from ..games.avalon import actions as _avalon_actions  # noqa: E402
from ..games.avalon.observation import OBS_SIZE as _AVALON_OBS_SIZE  # noqa: E402
from ..games.traitors_aboard import actions as _ta_actions  # noqa: E402
from ..games.traitors_aboard.observation import OBS_SIZE as _TA_OBS_SIZE  # noqa: E402

__all__ = ["FAMILIES", "SHORT_NAME", "load", "openspiel_nash_conv", "tree_policy"]

CHANCE, TERMINAL = _traitors_aboard.CHANCE, _traitors_aboard.TERMINAL


@dataclass(frozen=True)
class Family:
    """One game's small variants as one pyspiel game (parameter ``variant``).

    Attributes:
        short_name, long_name: the pyspiel game's. default: the default variant's name.
        module: the tree's module (``VARIANTS``, ``variant(name)``, ``root(v)``).
        num_actions, obs_size: the env's action count and observation length.
        max_chance_outcomes: the largest chance node's outcomes (every variant).
        max_game_length: ``variant -> int``, decisions in the longest game.
        action_text: ``(action, seat, num_players) -> str``.
        observation_string: ``(node, seat) -> str``, the seat's current observation (not perfect recall).
    """

    short_name: str
    long_name: str
    default: str
    module: Any
    num_actions: int
    obs_size: int
    max_chance_outcomes: int
    max_game_length: Callable[[Any], int]
    action_text: Callable[[int, int, int], str]
    observation_string: Callable[[Any, int], str]

    def __deepcopy__(self, memo) -> Family:
        return self  # pyspiel copies a state with copy.deepcopy; the family (modules, functions) is shared


def _ta_observation_string(node, player: int) -> str:
    # the last settled observation: mid-draw the engine's hand holds a provisional card the seat has not seen
    last = next((e for e in reversed(node.info[player]) if e.startswith("/o")), "")
    return f"p{player}{last}"


def _avalon_observation_string(node, player: int) -> str:
    return f"p{player}" if node.engine is None else f"p{player}/o" + _avalon._digest(node.observation(player))


def _avalon_length(v) -> int:
    # per quest: every proposal (the picks, the claims, the votes), then the team's cards; then the assassination
    config = v.config
    n = config.num_players
    per_proposal = n * (2 if config.claims else 1)
    return sum(config.max_proposals * (size + per_proposal) + size for size in config.track) + 1


#: Every game whose small variants are pyspiel games, by the pyspiel short name.
FAMILIES: dict[str, Family] = {f.short_name: f for f in (
    # Every turn but the last draws at least one card net (a Miraculous Catch draws 3 and puts 2 back, R09), so a
    # game has at most ``pile`` turns, each of at most four decisions (main card, a Spyglass order or two Catch
    # returns, a claim).
    Family("python_traitors_aboard_small", "Traitors Aboard (small variants)", "mini3", _traitors_aboard,
           _ta_actions.NUM_ACTIONS, _TA_OBS_SIZE, _traitors_aboard.MAX_CHANCE_OUTCOMES, lambda v: 4 * v.pile,
           _ta_actions.describe_action, _ta_observation_string),
    Family("python_avalon_small", "The Resistance: Avalon (small variants)", "mini5", _avalon,
           _avalon_actions.NUM_ACTIONS, _AVALON_OBS_SIZE,
           max(max(len(_avalon._deals(v.config)), v.num_players) for v in _avalon.VARIANTS.values()),
           _avalon_length, _avalon_actions.describe_action, _avalon_observation_string),
)}
SHORT_NAME = "python_traitors_aboard_small"  # the first family's (kept for callers of the one-game module)


def _game_type(family: Family, num_players: int) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=family.short_name,
        long_name=family.long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=num_players,
        min_num_players=num_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"variant": family.default},
    )


def _game_info(family: Family, v) -> pyspiel.GameInfo:
    return pyspiel.GameInfo(
        num_distinct_actions=family.num_actions,
        max_chance_outcomes=family.max_chance_outcomes,
        num_players=v.num_players,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=None,
        max_game_length=family.max_game_length(v),
    )


class SmallGame(pyspiel.Game):
    """A small variant of one of our games as a pyspiel game (module doc); one subclass per :class:`Family`."""

    family: Family

    def __init__(self, params=None):
        params = dict(params or {})
        unknown = set(params) - {"variant"}
        family = self.family
        if unknown:
            raise ValueError(f"{family.short_name}: unknown parameters {sorted(unknown)}; expected only 'variant'")
        self.variant = family.module.variant(str(params.get("variant", family.default)))
        super().__init__(_game_type(family, self.variant.num_players), _game_info(family, self.variant),
                         {"variant": self.variant.name})

    def new_initial_state(self):
        return SmallState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        perfect_recall = iig_obs_type is None or iig_obs_type.perfect_recall
        return _Observer(self.family, perfect_recall)


class SmallState(pyspiel.State):
    """One history of the tree (the family's ``Node``)."""

    def __init__(self, game: SmallGame):
        super().__init__(game)
        # by name, not the Family itself (it holds modules): a state must pickle and serialize (random_sim_test)
        self.family_name = game.family.short_name
        self.node = self.family.module.root(game.variant)

    @property
    def family(self) -> Family:
        return FAMILIES[self.family_name]

    def current_player(self):
        player = self.node.current_player()
        if player == CHANCE:
            return pyspiel.PlayerId.CHANCE
        if player == TERMINAL:
            return pyspiel.PlayerId.TERMINAL
        return player

    def _legal_actions(self, player):
        return self.node.legal_actions()

    def chance_outcomes(self):
        return self.node.chance_outcomes()

    def _apply_action(self, action):
        self.node.apply_action(action)

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance:{action}"
        return self.family.action_text(action, player, self.node.variant.num_players)

    def is_terminal(self):
        return self.node.is_terminal()

    def returns(self):
        return self.node.returns()

    def __str__(self):
        return str(self.node)


class _Observer:
    """The information state string (perfect recall) or the seat's current observation (``encode``)."""

    def __init__(self, family: Family, perfect_recall: bool):
        self.family = family
        self.perfect_recall = perfect_recall
        size = 0 if perfect_recall else family.obs_size
        self.tensor = np.zeros(size, np.float32)
        self.dict = {} if perfect_recall else {"observation": self.tensor}

    def set_from(self, state: SmallState, player: int) -> None:
        if self.perfect_recall:
            return
        if state.node.engine is None:
            self.tensor.fill(0.0)  # the deal is under way: nothing seen yet
        else:
            self.tensor[:] = state.node.observation(player)

    def string_from(self, state: SmallState, player: int) -> str:
        if self.perfect_recall:
            return state.node.information_state_string(player)
        return self.family.observation_string(state.node, player)


def _family_of(variant) -> Family:
    """The family of a variant object (a name: Traitors Aboard's, as before there were several)."""
    if isinstance(variant, str):
        return FAMILIES[SHORT_NAME]
    for family in FAMILIES.values():
        if isinstance(variant, family.module.SmallVariant):
            return family
    raise ValueError(f"{variant!r} is no small variant of {sorted(FAMILIES)}")


def load(variant=None, game: str = SHORT_NAME):
    """The pyspiel game of a small variant: a variant object, or a name of ``game``'s (default Traitors Aboard's)."""
    family = FAMILIES[game] if isinstance(variant, str) or variant is None else _family_of(variant)
    name = family.default if variant is None else variant if isinstance(variant, str) else variant.name
    return pyspiel.load_game(family.short_name, {"variant": name})


class TraitorsAboardSmallGame(SmallGame):
    """Traitors Aboard's small variants (module-level, so pickle finds the class by name)."""

    family = FAMILIES["python_traitors_aboard_small"]


class AvalonSmallGame(SmallGame):
    """Avalon's small variants (module-level, so pickle finds the class by name)."""

    family = FAMILIES["python_avalon_small"]


for _cls in (TraitorsAboardSmallGame, AvalonSmallGame):
    _first = next(iter(_cls.family.module.VARIANTS.values()))
    pyspiel.register_game(_game_type(_cls.family, _first.num_players), _cls)


def tree_policy(game, tree, probabilities):
    """An OpenSpiel ``policy.Policy`` playing ``probabilities`` (:func:`~.exact.agent_policy`'s, per information
    state of ``tree``) at every seat: for OpenSpiel's own algorithms (``exploitability.nash_conv``,
    ``best_response.BestResponsePolicy``) on the same variant."""
    from open_spiel.python import policy as openspiel_policy

    index = {key: i for i, key in enumerate(tree.info_keys)}
    legal = [tree.info_node[i].legal_actions() for i in range(len(tree.info_keys))]

    class _TreePolicy(openspiel_policy.Policy):
        def action_probabilities(self, state, player_id=None):
            player = state.current_player() if player_id is None else player_id
            i = index[state.information_state_string(player)]
            return {int(a): float(p) for a, p in zip(legal[i], probabilities[i])}

    return _TreePolicy(game, list(range(game.num_players())))


def openspiel_nash_conv(variant, tree, probabilities) -> dict:
    """OpenSpiel's ``exploitability.nash_conv`` (its Python tabular best response per seat) of the profile;
    ``variant``: a variant object (or a Traitors Aboard variant's name)."""
    from open_spiel.python.algorithms import exploitability

    game = load(variant)
    result = exploitability.nash_conv(game, tree_policy(game, tree, probabilities), return_only_nash_conv=False)
    return {"nash_conv": float(result.nash_conv), "player_improvements": [float(x) for x in result.player_improvements]}
