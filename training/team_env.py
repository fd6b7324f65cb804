"""A single-agent gymnasium view of *Traitors Aboard* for one team: the learner plays every seat of its team.

SB3 is single-agent, so :class:`TeamEnv` acts as the game master: it deals a game with
``traitors_aboard_v0.raw_env``, reads the roles only to decide which seats the learner
controls, and plays every other seat with an opponent drawn from an
:class:`~training.agents.OpponentPool` inside :meth:`TeamEnv.step`. The learner's policy only
ever sees the observation of the seat that is asked to act.

How transitions are formed (the choice, and why):

- The learner's team is treated as **one agent whose decisions, in any of its seats and
  in the order they happen, form one trajectory**. Every learner decision is exactly one
  gymnasium step (one transition); opponent decisions happen between steps and are never
  transitions.
- Rewards follow R17: 0 on every step except the last one of the game, which carries the
  team's terminal reward (+1 won, −1 lost). All seats of a team share that reward, so one
  reward on the trajectory's last transition is every learner seat's reward.
- The game may end on an opponent's decision (an opened chest, a Plank that throws
  someone overboard, the last card drawn…). The learner's last transition then still
  gets the terminal reward with ``terminated=True``: the wrapper plays the opponents
  *inside* the step that follows the learner's decision, so the end of the game is
  always seen by a learner step. (PettingZoo issue #1147's kind of bug — a reward lost
  because the game ended on another agent's turn — cannot happen.)
- Why this is sound: the reward is shared by the whole team and arrives only at the end,
  so the return of every learner decision is the team's result (discounted by the number
  of learner decisions still to come), whichever seat made it. The value function sees
  one seat's observation at a time, never the team's joint view, so nothing a seat may not
  know reaches the policy through the trajectory.
- A game in which the learner never acts (the opponents end it before any learner turn)
  has no transition to learn from; :meth:`TeamEnv.reset` deals again and counts it in
  ``info["games_without_learner_decision"]``.

Observations are the environment's ``float32`` vector divided by
:data:`~training.agents.OBS_SCALE` (every feature in [-1, 1]); the action mask comes from
:meth:`TeamEnv.action_masks`, which sb3-contrib's ``MaskablePPO`` calls before every step.
"""

from __future__ import annotations

from collections.abc import Sequence

import gymnasium
import numpy as np
from gymnasium import spaces

from traitors_env import traitors_aboard_v0
from traitors_env.games.traitors_aboard import actions as A
from traitors_env.games.traitors_aboard.cards import ROLE_NAMES, Role
from traitors_env.games.traitors_aboard.observation import OBS_SIZE, encode

from .agents import OBS_SCALE, OpponentPool, scale_observation
from .table_sizes import table_size_probabilities


class IllegalOpponentActionError(ValueError):
    """An opponent agent returned an action that its action mask forbids."""


class TeamEnv(gymnasium.Env):
    """One team's seats as a single gymnasium agent; the other seats are opponents from a pool.

    Args:
        role: the learner's team (:class:`~traitors_env.games.traitors_aboard.cards.Role` or ``"pirates"``/``"mutineers"``).
        opponents: the pool the other team's player is drawn from, once per game (an
            :class:`~training.agents.OpponentPool`, or any object with ``draw(rng) -> (label, agent)``).
        player_counts: table sizes to draw from (3–8), one per game.
        player_count_weights: relative weights of ``player_counts``; ``None`` = uniform.
        claims: the claim step (R14).

    Spaces: observation ``Box(-1, 1, (OBS_SIZE,), float32)`` (scaled); action ``Discrete(NUM_ACTIONS)``.

    ``info`` of the last step of a game holds the environment's end-of-game info of the last learner
    seat (scalars: ``winner``, ``end_condition``, ``role``, ``chest_value``…; a dict of its own) plus
    ``team_won`` (bool), ``learner_decisions``, ``game_decisions``, ``opponent`` (the pool kind); the
    full revealed result is ``env.game.result()`` until the next :meth:`reset`.

    Raises:
        ValueError: for an unknown role or bad player counts; from :meth:`step`, an
            :class:`~traitors_env.games.traitors_aboard.engine.IllegalActionError` for a learner action outside the mask,
            :class:`IllegalOpponentActionError` for an opponent action outside its mask.
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        role: Role | str,
        opponents: OpponentPool,
        player_counts: Sequence[int] = (3, 4, 5, 6, 7, 8),
        player_count_weights: Sequence[float] | None = None,
        claims: bool = True,
    ) -> None:
        super().__init__()
        self.observation_space = spaces.Box(
            low=-1.0, high=1.0, shape=(OBS_SIZE,), dtype=np.float32
        )  # bounds after scaling by OBS_SCALE
        self.action_space = spaces.Discrete(A.NUM_ACTIONS)
        self.role = parse_role(role)
        self.pool = opponents
        self.player_counts = [int(n) for n in player_counts]
        self._count_probabilities = table_size_probabilities(player_count_weights, self.player_counts)
        # One raw_env per table size, reused across games (raw_env validates the count).
        self._envs = {n: traitors_aboard_v0.raw_env(num_players=n, claims=claims) for n in self.player_counts}
        self._env: traitors_aboard_v0.raw_env | None = None
        self._learner_seats: frozenset[int] = frozenset()
        self._last_learner_seat = 0
        self._opponent = None
        self._opponent_kind = ""
        self._decisions = 0
        self._skipped = 0
        self._obs_buffer = np.zeros(OBS_SIZE, dtype=np.float32)
        assert OBS_SCALE.shape == (OBS_SIZE,)

    # ------------------------------------------------------------ configuration
    def configure(
        self,
        role: Role | str | None = None,
        opponents: OpponentPool | None = None,
        player_count_weights: Sequence[float] | None = None,
    ) -> None:
        """Change the learner's team, the opponent pool and/or the table sizes' weights (one per
        ``player_counts``); takes effect at the next :meth:`reset`.

        Meant for ``VecEnv.env_method("configure", …)`` between generations.

        Raises:
            ValueError: ``player_count_weights`` is not one weight >= 0 per player count with a positive sum.
        """
        if player_count_weights is not None:
            self._count_probabilities = table_size_probabilities(player_count_weights, self.player_counts)
        if role is not None:
            self.role = parse_role(role)
        if opponents is not None:
            self.pool = opponents

    # ------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """Deal a new game (or start from ``options["position"]``, a :class:`~traitors_env.games.traitors_aboard.engine.GameState`)
        and play the opponents up to the learner's first decision.

        Raises:
            RuntimeError: if the given position ends before the learner's first decision.
        """
        super().reset(seed=seed)
        position = (options or {}).get("position")
        skipped = 0
        while True:
            if position is None:
                n = self.player_counts[int(self.np_random.choice(len(self.player_counts), p=self._count_probabilities))]
                env = self._env = self._envs[n]
                env.reset(seed=int(self.np_random.integers(2**63)))
            else:
                n = position.num_players
                if n not in self._envs:
                    self._envs[n] = traitors_aboard_v0.raw_env(num_players=n, claims=position.config.claims)
                env = self._env = self._envs[n]
                env.reset_to_position(position)
            game = env.game
            # Game master: the roles only decide which seats the learner plays.
            self._learner_seats = frozenset(seat for seat, role in enumerate(game.roles) if role == self.role)
            self._opponent_kind, self._opponent = self.pool.draw(self.np_random)
            self._decisions = 0
            self._play_opponents()
            if not game.is_terminal:
                break
            if position is not None:
                raise RuntimeError("the given position ended before the learner's first decision")
            skipped += 1
        self._skipped += skipped
        self._last_learner_seat = game.current_player
        return self._observe(game.current_player), {
            "num_players": n,
            "opponent": self._opponent_kind,
            "games_without_learner_decision": skipped,
        }

    def step(self, action) -> tuple[np.ndarray, float, bool, bool, dict]:
        env = self._env
        if env is None or env.game.is_terminal:
            raise RuntimeError("step() called before reset() or after the game ended; call reset()")
        game = env.game
        seat = game.current_player
        env.step(int(action))  # raises IllegalActionError (naming the legal set) for a masked action
        self._decisions += 1
        self._last_learner_seat = seat
        self._play_opponents()
        if not game.is_terminal:
            return self._observe(game.current_player), 0.0, False, False, {}
        won = game.winner == self.role
        info = dict(env.infos[env.possible_agents[seat]])
        info.update(
            team_won=bool(won),
            num_players=game.num_players,
            learner_decisions=self._decisions,
            game_decisions=game.num_decisions,
            opponent=self._opponent_kind,
        )
        # The terminal observation is the last learner seat's view of the ended game (never bootstrapped).
        return self._observe(seat), (1.0 if won else -1.0), True, False, info

    def action_masks(self) -> np.ndarray:
        """The legal actions of the learner seat to act, ``bool`` shape ``(NUM_ACTIONS,)``; all ``False`` once the game is over."""
        game = self._env.game
        if game.is_terminal:
            return np.zeros(A.NUM_ACTIONS, dtype=bool)
        return game.legal_mask().astype(bool)

    # ------------------------------------------------------------ internals
    @property
    def game(self):
        """The running :class:`~traitors_env.games.traitors_aboard.engine.GameState` (for tests and debugging; not an observation)."""
        return self._env.game

    @property
    def learner_seats(self) -> frozenset[int]:
        """Seats the learner plays in the current game."""
        return self._learner_seats

    def _play_opponents(self) -> None:
        env = self._env
        game = env.game
        opponent = self._opponent
        while not game.is_terminal and game.current_player not in self._learner_seats:
            agent = env.agent_selection
            observation = env.observe(agent)
            mask = observation["action_mask"]
            action = opponent.act(observation["observation"], mask)
            if not (isinstance(action, (int, np.integer)) and 0 <= action < A.NUM_ACTIONS and mask[action]):
                raise IllegalOpponentActionError(
                    f"opponent {self._opponent_kind!r} chose action {action!r} for {agent}, which its action mask "
                    f"forbids; legal actions: {np.flatnonzero(mask).tolist()}"
                )
            env.step(int(action))

    def _observe(self, seat: int) -> np.ndarray:
        return scale_observation(encode(self._env.game, seat, out=self._obs_buffer))


def parse_role(role: Role | str) -> Role:
    """A :class:`Role` from a Role or a team name (``"pirates"``, ``"mutineers"``, case-insensitive, singular too).

    Raises:
        ValueError: naming the unknown value.
    """
    if isinstance(role, Role):
        return role
    if isinstance(role, str):
        key = role.strip().lower().rstrip("s")
        for value, name in ROLE_NAMES.items():
            if name.lower() == key:
                return value
    raise ValueError(f"role {role!r} is not a team; expected 'pirates' or 'mutineers'")


def team_name(role: Role) -> str:
    """``"pirates"`` or ``"mutineers"``."""
    return ROLE_NAMES[Role(role)].lower() + "s"
