"""The game master of ``the_traitors_v0`` for SB3: one seat of one role as a single gymnasium agent.

*The Traitors* has no teams: every player scores alone (T16). So "both teams" becomes **one
policy per role**, Faithful and Traitor, each fitted against a pool of opponents (the other
policies' snapshots, the heuristic, random), generation after generation
(:mod:`training.the_traitors_train`).

The design (the choices, and why):

- **The learner plays exactly one seat per game.** With individual rewards, two learner seats
  in one trajectory would mix two players' returns; so :class:`RoleEnv` deals a game, reads the
  deal only to pick the learner's seat (the Traitor's seat for ``role="traitor"``; one Faithful
  seat drawn from the game's seed for ``role="faithful"``, the rule of
  :func:`traitors_env.evaluation.games.agent_seats`, so training and evaluation
  seat the learner alike) and plays every other seat with one opponent drawn from the pool for
  the whole game. The other Faithful seats of a Faithful learner are opponents too (self-play
  against snapshots of the Faithful policy, not the learner itself, so the learner's update sees a
  stationary table within a generation).
- **One game is one episode; one learner decision is one step.** Opponent decisions happen inside
  :meth:`RoleEnv.step` and are never transitions. Learner decisions with one legal action (a
  Faithful's "no attempt" and "no murder", which the env asks of everyone so that turns do not
  reveal the Traitor) are applied by the game master and are not transitions either: they carry
  no choice to learn.
- **Reward:** the learner seat's own T16 reward (+1 for a win, 0 otherwise), on the step that
  ends the game; 0 on every other step. The game always ends after the Final, and the Final can
  end on an opponent's decision (the other finalist's choice): the opponents are played inside
  the learner's last step, so the reward always reaches a learner step.
- The policy sees only its seat's observation (``the_traitors_v0``'s, divided by
  :data:`~traitors_env.agents.the_traitors_checkpoint.OBS_SCALE`), never the deal.

``info`` of the last step holds ``won`` (bool), ``num_players``, ``learner_decisions``,
``game_decisions`` and ``opponent`` (the pool kind).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces

from traitors_env.agents.the_traitors_checkpoint import OBS_SCALE, PolicyAgent, load_the_traitors_policy
from traitors_env.core.agent import RandomAgent
from traitors_env.core.registry import load_game
from traitors_env.evaluation.games import agent_seats
from traitors_env.games.the_traitors import actions as A
from traitors_env.games.the_traitors.bots import TheTraitorsHeuristicAgent, TheTraitorsRoleAgent
from traitors_env.games.the_traitors.cards import MAX_PLAYERS, MIN_PLAYERS
from traitors_env.games.the_traitors.engine import GameConfig, GameState
from traitors_env.games.the_traitors.observation import OBS_SIZE, encode

from .agents import OPPONENT_KINDS, drawable_kinds
from .table_sizes import table_size_probabilities

ROLES = ("faithful", "traitor")  # training's order of the roles (was evaluation.the_traitors_games.ROLES)


class IllegalOpponentActionError(ValueError):
    """An opponent agent returned an action that its action mask forbids."""


class RolePool:
    """The opponents of one role's training: weighted kinds over snapshot pairs and the baselines.

    Args:
        weights: relative weight per kind: ``"latest"`` (the newest snapshot pair), ``"past"``
            (an older pair, uniformly), ``"heuristic"``, ``"random"``.
        snapshots: ``(faithful_path, traitor_path)`` pairs, oldest first; a ``None`` path is
            played by the heuristic.
        seed: seeds the agents built here.

    Kinds with nothing to draw drop out and the remaining weights are renormalised.

    Raises:
        ValueError: for an unknown kind, a negative weight, or no kind left with positive weight.
    """

    KINDS = OPPONENT_KINDS

    def __init__(
        self,
        weights: Mapping[str, float],
        snapshots: Sequence[tuple[str | None, str | None]] = (),
        seed: int | None = None,
    ) -> None:
        self.snapshots = [tuple(pair) for pair in snapshots]
        self.kinds, self.probabilities = drawable_kinds(weights, len(self.snapshots))
        self.rng = np.random.default_rng(seed)
        self._heuristic = TheTraitorsHeuristicAgent(int(self.rng.integers(2**63)))
        self._random = RandomAgent(int(self.rng.integers(2**63)))

    def _pair(self, pair: tuple[str | None, str | None]):
        faithful, traitor = (
            self._heuristic if path is None else PolicyAgent(load_the_traitors_policy(path), seed=self.rng)
            for path in pair
        )
        return TheTraitorsRoleAgent(faithful, traitor)

    def draw(self, rng: np.random.Generator):
        """One opponent for a game, playing every other seat: ``(label, agent)``."""
        kind = self.kinds[int(rng.choice(len(self.kinds), p=self.probabilities))]
        if kind == "latest":
            return kind, self._pair(self.snapshots[-1])
        if kind == "past":
            return kind, self._pair(self.snapshots[int(rng.integers(len(self.snapshots) - 1))])
        return kind, self._heuristic if kind == "heuristic" else self._random


class RoleEnv(gymnasium.Env):
    """One seat of one role of ``the_traitors_v0`` as a single gymnasium agent (see the module doc).

    Args:
        role: ``"faithful"`` or ``"traitor"``.
        opponents: a :class:`RolePool` (or any object with ``draw(rng) -> (label, agent)``).
        player_counts: table sizes to draw from (3–6), one per game.
        player_count_weights: relative weights of ``player_counts``; ``None`` = uniform.
        claims: the claim step (T08).

    Spaces: observation ``Box(-1, 1, (791,), float32)`` (scaled); action ``Discrete(36)``.

    Raises:
        ValueError: for an unknown role or bad table sizes; from :meth:`step`, an
            :class:`~traitors_env.games.the_traitors.engine.IllegalActionError` for a learner action outside
            the mask, :class:`IllegalOpponentActionError` for an opponent's.
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        role: str,
        opponents: RolePool,
        player_counts: Sequence[int] = (3, 4, 5, 6),
        player_count_weights: Sequence[float] | None = None,
        claims: bool = True,
    ) -> None:
        super().__init__()
        self.observation_space = spaces.Box(low=-1.0, high=1.0, shape=(OBS_SIZE,), dtype=np.float32)
        self.action_space = spaces.Discrete(A.NUM_ACTIONS)
        self.role = _check_role(role)
        self.pool = opponents
        self.player_counts = [int(n) for n in player_counts]
        if not self.player_counts or any(not MIN_PLAYERS <= n <= MAX_PLAYERS for n in self.player_counts):
            raise ValueError(
                f"player_counts={list(player_counts)!r}; expected table sizes in {MIN_PLAYERS}–{MAX_PLAYERS}"
            )
        self._count_probabilities = table_size_probabilities(player_count_weights, self.player_counts)
        self._configs = {n: GameConfig(num_players=n, claims=claims) for n in self.player_counts}
        self.game: GameState | None = None
        self.seat = 0
        self._opponent = None
        self._opponent_kind = ""
        self._decisions = 0
        self._obs = np.zeros(OBS_SIZE, dtype=np.float32)

    def configure(self, role: str | None = None, opponents: RolePool | None = None) -> None:
        """Change the learner's role and/or pool; takes effect at the next :meth:`reset` (for ``env_method``)."""
        if role is not None:
            self.role = _check_role(role)
        if opponents is not None:
            self.pool = opponents

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """Deal a new game and play up to the learner's first decision with a choice."""
        super().reset(seed=seed)
        while True:
            n = self.player_counts[int(self.np_random.choice(len(self.player_counts), p=self._count_probabilities))]
            game_seed = int(self.np_random.integers(2**63))
            game = self.game = GameState.new(self._configs[n], seed=game_seed)
            # Game master: the deal only decides which seat the learner plays.
            self.seat = agent_seats(load_game("the_traitors"), game, self.role, game_seed)[0]
            self._opponent_kind, self._opponent = self.pool.draw(self.np_random)
            self._decisions = 0
            self._advance()
            if not game.is_terminal:
                break
        return self._observe(), {"num_players": n, "opponent": self._opponent_kind}

    def step(self, action) -> tuple[np.ndarray, float, bool, bool, dict]:
        game = self.game
        if game is None or game.is_terminal:
            raise RuntimeError("step() called before reset() or after the game ended; call reset()")
        game.apply_action(int(action))  # raises IllegalActionError (naming the legal set) for a masked action
        self._decisions += 1
        self._advance()
        if not game.is_terminal:
            return self._observe(), 0.0, False, False, {}
        reward = game.returns()[self.seat]
        info = {
            "won": bool(game.winners[self.seat]),
            "num_players": game.num_players,
            "learner_decisions": self._decisions,
            "game_decisions": len(game.history),
            "opponent": self._opponent_kind,
        }
        return self._observe(), float(reward), True, False, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions, ``bool`` shape ``(36,)``; all ``False`` once the game is over."""
        if self.game.is_terminal:
            return np.zeros(A.NUM_ACTIONS, dtype=bool)
        return self.game.legal_mask().astype(bool)

    def _advance(self) -> None:
        """Play opponents and the learner's forced decisions until the learner has a choice or the game ends."""
        game = self.game
        while not game.is_terminal:
            seat = game.current_player
            legal = game.legal_actions()
            if seat == self.seat:
                if len(legal) > 1:
                    return
                game.apply_action(legal[0])
                continue
            if len(legal) == 1:  # an opponent's forced decision: no need to ask it
                game.apply_action(legal[0])
                continue
            mask = game.legal_mask()
            action = self._opponent.act(encode(game, seat), mask)
            if not (isinstance(action, (int, np.integer)) and 0 <= action < A.NUM_ACTIONS and mask[action]):
                raise IllegalOpponentActionError(
                    f"opponent {self._opponent_kind!r} chose action {action!r} for player_{seat}, which its action "
                    f"mask forbids; legal actions: {legal}"
                )
            game.apply_action(int(action))

    def _observe(self) -> np.ndarray:
        return encode(self.game, self.seat, out=self._obs) / OBS_SCALE


def _check_role(role: str) -> str:
    key = str(role).strip().lower()
    if key not in ROLES:
        raise ValueError(f"role {role!r} is not a role of the_traitors_v0; expected one of {ROLES}")
    return key
