"""The game master of SB3 training: one side of any registered game as a single-agent gymnasium env.

SB3 is single-agent, so :class:`TeamEnv` acts as the game master: it deals a game with the game's
``raw_env``, reads the deal only to decide which seats the learner controls, and plays every other seat
with an opponent drawn from an :class:`~training.agents.OpponentPool` inside :meth:`TeamEnv.step`. The
learner's policy only ever sees the observation of the seat that is asked to act.

Which seats the learner plays (read from the :class:`~traitors_env.core.Game`, never from its name):

- a **zero-sum team game** (``utility == "zero_sum_teams"``, Traitors Aboard): every seat of its side. The
  side is treated as **one agent whose decisions, in any of its seats and in the order they happen, form one
  trajectory**. Why this is sound: the reward is shared by the whole side and arrives only at the end, so the
  return of every learner decision is the side's result (discounted by the number of learner decisions still
  to come), whichever seat made it; the value function sees one seat's observation at a time, never the side's
  joint view, so nothing a seat may not know reaches the policy through the trajectory.
- a **game with individual rewards** (The Traitors): **one seat** of its side
  (:meth:`~traitors_env.core.Game.seat_for_agent`, drawn from the game's seed, as the evaluation seats an agent):
  two learner seats in one trajectory would mix two players' returns. Every other seat, the learner's own
  side's included, is played by the opponent (snapshots of the learner's own policy among them, not the
  learner itself, so its update sees a stationary table within a generation).

How transitions are formed:

- Every learner decision is exactly one gymnasium step (one transition); opponent decisions happen
  between steps and are never transitions. Where the game declares ``skip_forced_moves`` (its env asks every
  seat questions with one answer, so that turns hide who has a choice), the game master applies a seat's only
  legal action itself, the learner's and the opponents' alike: such a decision carries no choice to learn,
  and is neither a transition nor asked of an opponent.
- Reward: 0 on every step except the last one of the game, which carries the learner seat's return
  (``state.returns()``: +1 won, −1 lost in Traitors Aboard, R17; +1 won, 0 otherwise in The Traitors, T16).
- The game may end on an opponent's decision. The learner's last transition then still gets the terminal
  reward with ``terminated=True``: the game master plays the opponents *inside* the step that follows the
  learner's decision, so the end of the game is always seen by a learner step (PettingZoo issue #1147's kind
  of bug, a reward lost because the game ended on another agent's turn, cannot happen).
- A game in which the learner never acts (the opponents end it before any learner turn) has no transition to
  learn from; :meth:`TeamEnv.reset` deals again and counts it in ``info["games_without_learner_decision"]``.

Draws, per game, from the env's generator in this order: the table size, the deal's seed, the opponent
(:meth:`OpponentPool.draw`). ``reset(seed=s)`` fixes everything that follows, as gymnasium's contract asks: it
seeds the env's generator and restarts the opponent pool's own stream (:meth:`OpponentPool.reseed`, from ``s``
and :data:`POOL_STREAM`), which the opponents' bots and sampled policies draw from.

Masked actions: :meth:`TeamEnv.action_masks` gives the legal ones. A learner action outside the mask raises the
game's illegal-action error by default (a learner that sends one has a bug). With ``illegal_actions="lose"`` the
env follows PettingZoo's convention for illegal moves (``TerminateIllegalWrapper``): the game ends there, the
learner loses (reward :data:`ILLEGAL_ACTION_REWARD`, ``info["illegal_action"]`` true). That accepts every action
of ``action_space``, which gymnasium's ``check_env`` needs: it steps with an unmasked ``action_space.sample()``
drawn before the ``reset`` it is played after, so no mask could be given to it
(``tests/training/test_team_env_seeding.py``).

Observations are the environment's ``float32`` vector divided by :func:`~training.agents.observation_scale`
(every feature in [-1, 1]); the action mask comes from :meth:`TeamEnv.action_masks`, which sb3-contrib's
``MaskablePPO`` calls before every step.
"""

from __future__ import annotations

from collections.abc import Sequence

import gymnasium
import numpy as np
from gymnasium import spaces

from traitors_env.core import Game, load_game
from traitors_env.core.actions import as_index, is_index
from traitors_env.core.registry import DEFAULT_GAME

from .agents import OpponentPool, observation_scale
from .table_sizes import table_size_probabilities

__all__ = ["ILLEGAL_ACTION_REWARD", "POOL_STREAM", "IllegalOpponentActionError", "TeamEnv", "parse_side"]

#: Mixed with ``reset``'s seed to seed the opponent pool's stream (another stream than the env's own generator).
POOL_STREAM = 0x9001
#: The learner's reward for an action outside its mask with ``illegal_actions="lose"`` (PettingZoo's -1).
ILLEGAL_ACTION_REWARD = -1.0


class IllegalOpponentActionError(ValueError):
    """An opponent agent returned an action that its action mask forbids."""


class TeamEnv(gymnasium.Env):
    """One side of a game as a single gymnasium agent; the other seats are played by opponents from a pool.

    Args:
        side: the learner's side: its key or label (``"pirates"``, ``"Traitor"``; case-insensitive, a trailing
            ``s`` optional) or its index (0, 1).
        opponents: the pool the opponent is drawn from, once per game (an :class:`~training.agents.OpponentPool`,
            or any object with ``draw(rng) -> (label, agent)``).
        player_counts: table sizes to draw from, one per game; ``None``: every size the game has.
        player_count_weights: relative weights of ``player_counts``; ``None`` = uniform.
        claims: the claim step of the game.
        game: the game (registry name, environment id or :class:`~traitors_env.core.Game`).
        hindsight: put the game's hindsight answer of each learner decision in ``info`` (see below).
        illegal_actions: ``"raise"`` (default): a learner action outside the mask raises; ``"lose"``: it ends the
            game, lost (see the module doc).

    Spaces: observation ``Box(-1, 1, observation_shape, float32)`` (scaled); action ``Discrete(num_actions)``.

    ``info`` of the last step of a game holds the environment's end-of-game info of the last learner seat
    (the game's own scalars, e.g. ``winner``, ``end_condition``) plus ``won`` (bool: the learner seat won),
    ``num_players``, ``learner_decisions``, ``game_decisions`` and ``opponent`` (the pool kind); the running or
    finished engine state is :attr:`game` until the next :meth:`reset`. With ``hindsight=True``, where the game
    declares ``Game.hindsight_action``, the ``info`` of a step whose learner decision has a hindsight answer holds it as
    ``hindsight_action`` (int): a training label read from the hidden state (``hindsight`` config section), which
    the observation never shows.

    Raises:
        ValueError: for an unknown side or table sizes the game does not have; from :meth:`step`, the game's
            illegal-action error for a learner action outside the mask, :class:`IllegalOpponentActionError` for an
            opponent action outside its mask.
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        side: int | str,
        opponents: OpponentPool,
        player_counts: Sequence[int] | None = None,
        player_count_weights: Sequence[float] | None = None,
        claims: bool = True,
        game: Game | str = DEFAULT_GAME,
        hindsight: bool = False,
        illegal_actions: str = "raise",
    ) -> None:
        super().__init__()
        if illegal_actions not in ("raise", "lose"):
            raise ValueError(f"illegal_actions={illegal_actions!r}; expected 'raise' or 'lose'")
        self.illegal_actions = illegal_actions
        self._forfeited = False
        self.registered_game: Game = load_game(game)
        kind = self.registered_game.type
        self.observation_space = spaces.Box(low=-1.0, high=1.0, shape=kind.observation_shape, dtype=np.float32)
        self.action_space = spaces.Discrete(kind.num_actions)
        self.side = parse_side(self.registered_game, side)
        self.pool = opponents
        self.player_counts = [int(n) for n in (kind.player_counts if player_counts is None else player_counts)]
        bad = [n for n in self.player_counts if not kind.min_players <= n <= kind.max_players]
        if not self.player_counts or bad:
            raise ValueError(
                f"player_counts={list(self.player_counts)!r}; expected table sizes in "
                f"{kind.min_players}–{kind.max_players} ({kind.env_id})"
            )
        self.claims = bool(claims)
        self._count_probabilities = table_size_probabilities(player_count_weights, self.player_counts)
        # One raw_env per table size, reused across games.
        self._envs = {n: self.registered_game.raw_env(num_players=n, claims=self.claims) for n in self.player_counts}
        self._env = None
        self._scale = observation_scale(self.registered_game)
        self._skip_forced = bool(self.registered_game.skip_forced_moves)
        # off unless asked for (the hindsight section): no hidden-state read on step()'s hot path otherwise
        self._hindsight = self.registered_game.hindsight_action if hindsight else None
        self._learner_seats: frozenset[int] = frozenset()
        self._last_learner_seat = 0
        self._opponent = None
        self._opponent_kind = ""
        self._decisions = 0
        self._game_decisions = 0
        self._skipped = 0

    # ------------------------------------------------------------ configuration
    def configure(
        self,
        side: int | str | None = None,
        opponents: OpponentPool | None = None,
        player_count_weights: Sequence[float] | None = None,
    ) -> None:
        """Change the learner's side, the opponent pool and/or the table sizes' weights (one per
        ``player_counts``); takes effect at the next :meth:`reset`.

        Meant for ``VecEnv.env_method("configure", …)`` between generations.

        Raises:
            ValueError: for an unknown side, or ``player_count_weights`` that are not one weight >= 0 per player
                count with a positive sum.
        """
        if player_count_weights is not None:
            self._count_probabilities = table_size_probabilities(player_count_weights, self.player_counts)
        if side is not None:
            self.side = parse_side(self.registered_game, side)
        if opponents is not None:
            self.pool = opponents

    # ------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """Deal a new game (or start from ``options["position"]``, an engine state of the game) and play the
        opponents up to the learner's first decision.

        ``seed`` seeds the env's generator and restarts the opponent pool's stream from ``(seed, POOL_STREAM)``;
        ``options["opponent_seed"]`` seeds the pool's stream directly instead (the SB3 trainer passes the seed each
        env's pool was built with, so a seeded run trains the weights it trained before the pool was reseeded here).

        Raises:
            RuntimeError: if the given position ends before the learner's first decision.
            ValueError: for options other than ``position`` and ``opponent_seed``, naming them.
        """
        options = dict(options or {})
        unknown = set(options) - {"position", "opponent_seed"}
        if unknown:
            raise ValueError(f"reset options {sorted(unknown)}; expected 'position' and/or 'opponent_seed'")
        super().reset(seed=seed)
        # The opponents' stream too: the seed fixes the whole game (gymnasium's contract).
        if options.get("opponent_seed") is not None:
            self.pool.reseed(options["opponent_seed"])
        elif seed is not None and hasattr(self.pool, "reseed"):
            self.pool.reseed([int(seed), POOL_STREAM])
        self._forfeited = False
        position = options.get("position")
        skipped = 0
        while True:
            if position is None:
                n = self.player_counts[int(self.np_random.choice(len(self.player_counts), p=self._count_probabilities))]
                env = self._env = self._envs[n]
                deal = int(self.np_random.integers(2**63))
                env.reset(seed=deal)
            else:
                n = position.num_players
                claims = getattr(getattr(position, "config", None), "claims", self.claims)
                if n in self._envs and claims == self.claims:
                    env = self._env = self._envs[n]
                else:
                    env = self._env = self.registered_game.raw_env(num_players=n, claims=claims)
                env.reset_to_position(position)  # the env plays on a copy
                deal = 0  # a position has no seed: the seat of a one-seat learner is drawn from 0
            state = env.game
            # Game master: the deal only decides which seats the learner plays.
            if self.registered_game.team_play:
                self._learner_seats = frozenset(self.registered_game.learner_seats(state, self.side))
            else:
                self._learner_seats = frozenset((self.registered_game.seat_for_agent(state, self.side, deal),))
            self._opponent_kind, self._opponent = self.pool.draw(self.np_random)
            self._decisions = 0
            self._game_decisions = 0
            self._advance()
            if not state.is_terminal:
                break
            if position is not None:
                raise RuntimeError("the given position ended before the learner's first decision")
            skipped += 1
        self._skipped += skipped
        self._last_learner_seat = state.current_player
        return self._observe(state.current_player), {
            "num_players": n,
            "opponent": self._opponent_kind,
            "games_without_learner_decision": skipped,
        }

    def step(self, action) -> tuple[np.ndarray, float, bool, bool, dict]:
        env = self._env
        if env is None or env.game.is_terminal or self._forfeited:
            raise RuntimeError("step() called before reset() or after the game ended; call reset()")
        state = env.game
        seat = state.current_player
        # Both modes take the same actions: Python and numpy ints and 0-d integer arrays (gymnasium's Discrete holds
        # these); a float or bool is no action index, refused by the engine or forfeited, never truncated by int().
        action = as_index(action)
        if self.illegal_actions == "lose" and not self._legal(state, action):
            return self._forfeit(seat, action)
        # read before the action is applied: the label belongs to the decision (hidden state; never observed)
        label = self._hindsight(state, seat) if self._hindsight is not None else None
        env.step(action)  # raises the game's illegal-action error (naming the legal set) for a masked action
        self._decisions += 1
        self._game_decisions += 1
        self._last_learner_seat = seat
        self._advance()
        hindsight = {} if label is None else {"hindsight_action": int(label)}
        if not state.is_terminal:
            return self._observe(state.current_player), 0.0, False, False, hindsight
        info = dict(env.infos[env.possible_agents[seat]])
        info.update(
            hindsight,
            won=bool(self.registered_game.seat_won(state, seat)),
            num_players=state.num_players,
            learner_decisions=self._decisions,
            game_decisions=self._game_decisions,
            opponent=self._opponent_kind,
        )
        # The terminal observation is the last learner seat's view of the ended game (never bootstrapped).
        return self._observe(seat), float(state.returns()[seat]), True, False, info

    def action_masks(self) -> np.ndarray:
        """The legal actions of the learner seat to act, ``bool`` shape ``(num_actions,)``; all ``False`` once the
        game is over."""
        state = self._env.game
        if state.is_terminal or self._forfeited:
            return np.zeros(self.action_space.n, dtype=bool)
        return state.legal_mask().astype(bool)

    # ------------------------------------------------------------ internals
    @staticmethod
    def _legal(state, action) -> bool:
        mask = state.legal_mask()
        return is_index(action, mask.size) and bool(mask[action])

    def _forfeit(self, seat: int, action) -> tuple[np.ndarray, float, bool, bool, dict]:
        """``illegal_actions="lose"``: the game ends on the learner's illegal ``action``, lost."""
        self._forfeited = True
        self._decisions += 1
        info = {"illegal_action": True, "action": action, "won": False, "num_players": self._env.game.num_players,
                "learner_decisions": self._decisions, "game_decisions": self._game_decisions,
                "opponent": self._opponent_kind}
        return self._observe(seat), ILLEGAL_ACTION_REWARD, True, False, info

    @property
    def game(self):
        """The running engine state (for tests and debugging; not an observation)."""
        return self._env.game

    @property
    def learner_seats(self) -> frozenset[int]:
        """Seats the learner plays in the current game."""
        return self._learner_seats

    def _advance(self) -> None:
        """Play the opponents (and, where the game says so, every forced decision) until a learner seat has a
        decision to make or the game ends."""
        env = self._env
        state = env.game
        while not state.is_terminal:
            seat = state.current_player
            if self._skip_forced:
                legal = state.legal_actions()
                if len(legal) == 1:
                    env.step(int(legal[0]))
                    self._game_decisions += 1
                    continue
            if seat in self._learner_seats:
                return
            observation = self.registered_game.encode(state, seat)
            mask = state.legal_mask().copy()
            action = self._opponent.act(observation, mask)
            if not (isinstance(action, (int, np.integer)) and 0 <= action < mask.size and mask[action]):
                raise IllegalOpponentActionError(
                    f"opponent {self._opponent_kind!r} chose action {action!r} for {env.possible_agents[seat]}, "
                    f"which its action mask forbids; legal actions: {np.flatnonzero(mask).tolist()}"
                )
            env.step(int(action))
            self._game_decisions += 1

    def _observe(self, seat: int) -> np.ndarray:
        return self.registered_game.encode(self._env.game, seat) / self._scale


def parse_side(game: Game, side: int | str) -> int:
    """The index (0 or 1) of a side of ``game`` given by its index, key or label (case-insensitive, a trailing
    ``s`` optional: ``"pirate"``, ``"Pirates"``).

    Raises:
        ValueError: naming the value and the game's sides.
    """
    if isinstance(side, (int, np.integer)) and not isinstance(side, bool) and int(side) in (0, 1):
        return int(side)
    if isinstance(side, str):
        key = side.strip().lower().rstrip("s")
        for index, (name, label) in enumerate(zip(game.type.sides, game.type.side_labels)):
            if key in (name.lower().rstrip("s"), label.lower().rstrip("s")):
                return index
    raise ValueError(
        f"side {side!r} is not a side (team or role) of {game.type.env_id}; expected one of {list(game.type.sides)}"
    )
