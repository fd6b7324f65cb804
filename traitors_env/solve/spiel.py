"""Our games' small variants as pyspiel Python games (issue 50, item 2): OpenSpiel's algorithms run on them unmodified.

``import traitors_env.solve.spiel`` registers ``python_traitors_aboard_small`` (parameter ``variant``, one of
:data:`~.traitors_aboard.VARIANTS`; default ``mini3``)::

    import pyspiel
    import traitors_env.solve.spiel  # noqa: F401 (registers the games)

    game = pyspiel.load_game("python_traitors_aboard_small", {"variant": "mini3"})
    pyspiel.random_sim_test(game, num_sims=10, serialize=False, verbose=False)

The game is the tree of :mod:`.traitors_aboard` (chance nodes for the deal, the draws and the Spyglass shuffle;
module doc there): ``information_state_string`` is the seat's perfect-recall sequence of its own observations and
actions, ``observation_tensor`` the game's own observation vector (``encode``, the env's ``"observation"``), and the
actions are the env's action indices. Rewards: +1 for each seat of the winning side, −1 for the others (R17): a
general-sum game of ``num_players`` seats, each seat's role dealt by chance. Needs the ``solve`` extra
(``pip install -e ".[solve]"``).
"""

from __future__ import annotations

import numpy as np

from . import require_pyspiel
from .traitors_aboard import CHANCE, MAX_CHANCE_OUTCOMES, TERMINAL, SmallVariant, root, variant

pyspiel = require_pyspiel()

from ..games.traitors_aboard import actions as A  # noqa: E402
from ..games.traitors_aboard.observation import OBS_SIZE  # noqa: E402

__all__ = ["SHORT_NAME", "TraitorsAboardSmallGame", "load"]

SHORT_NAME = "python_traitors_aboard_small"
DEFAULT_VARIANT = "mini3"
_DECISIONS_PER_TURN = 4  # main card, then a Spyglass order or two Miraculous Catch returns, then a claim


def _game_type(num_players: int) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="Traitors Aboard (small variants)",
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
        parameter_specification={"variant": DEFAULT_VARIANT},
    )


def _game_info(v: SmallVariant) -> pyspiel.GameInfo:
    # Every turn but the last draws at least one card net (a Miraculous Catch draws 3 and puts 2 back, R09), so a
    # game has at most ``pile`` turns, each of at most four decisions.
    return pyspiel.GameInfo(
        num_distinct_actions=A.NUM_ACTIONS,
        max_chance_outcomes=MAX_CHANCE_OUTCOMES,
        num_players=v.num_players,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=None,
        max_game_length=_DECISIONS_PER_TURN * v.pile,
    )


class TraitorsAboardSmallGame(pyspiel.Game):
    """A small variant of *Traitors Aboard* as a pyspiel game (module doc)."""

    def __init__(self, params=None):
        params = dict(params or {})
        unknown = set(params) - {"variant"}
        if unknown:
            raise ValueError(f"{SHORT_NAME}: unknown parameters {sorted(unknown)}; expected only 'variant'")
        self.variant = variant(str(params.get("variant", DEFAULT_VARIANT)))
        super().__init__(_game_type(self.variant.num_players), _game_info(self.variant), {"variant": self.variant.name})

    def new_initial_state(self):
        return TraitorsAboardSmallState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        perfect_recall = iig_obs_type is None or iig_obs_type.perfect_recall
        return _Observer(perfect_recall)


class TraitorsAboardSmallState(pyspiel.State):
    """One history of the tree (:class:`~.traitors_aboard.Node`)."""

    def __init__(self, game: TraitorsAboardSmallGame):
        super().__init__(game)
        self.node = root(game.variant)

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
        return A.describe_action(action, player, self.node.variant.num_players)

    def is_terminal(self):
        return self.node.is_terminal()

    def returns(self):
        return self.node.returns()

    def __str__(self):
        return str(self.node)


class _Observer:
    """The information state string (perfect recall) or the seat's current observation (``encode``)."""

    def __init__(self, perfect_recall: bool):
        self.perfect_recall = perfect_recall
        size = 0 if perfect_recall else OBS_SIZE
        self.tensor = np.zeros(size, np.float32)
        self.dict = {} if perfect_recall else {"observation": self.tensor}

    def set_from(self, state: TraitorsAboardSmallState, player: int) -> None:
        if self.perfect_recall:
            return
        if state.node.engine is None:
            self.tensor.fill(0.0)  # the deal is under way: nothing seen yet
        else:
            self.tensor[:] = state.node.observation(player)

    def string_from(self, state: TraitorsAboardSmallState, player: int) -> str:
        if self.perfect_recall:
            return state.node.information_state_string(player)
        info = state.node.info[player]
        last = next((e for e in reversed(info) if e.startswith("/o")), "")
        return f"p{player}{last}"


def load(variant_name: str = DEFAULT_VARIANT):
    """The pyspiel game of a small variant."""
    return pyspiel.load_game(SHORT_NAME, {"variant": variant_name})


pyspiel.register_game(_game_type(3), TraitorsAboardSmallGame)


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


def openspiel_nash_conv(variant_name: str, tree, probabilities) -> dict:
    """OpenSpiel's ``exploitability.nash_conv`` (its Python tabular best response per seat) of the profile."""
    from open_spiel.python.algorithms import exploitability

    game = load(variant_name)
    result = exploitability.nash_conv(game, tree_policy(game, tree, probabilities), return_only_nash_conv=False)
    return {"nash_conv": float(result.nash_conv), "player_improvements": [float(x) for x in result.player_improvements]}
