"""The game master for RLlib: one game of a zero-sum team game as a turn-based ``MultiAgentEnv``.

Any registered game whose sides share one reward (``GameType.utility == "zero_sum_teams"``; the env config's
``game``, default the registry's default game). RLlib maps an agent id to a policy before the agent's first
observation, so the ids say the side (its key) the seat was dealt for the current game: ``"<team>/<seat>"``
(``"pirates/3"``, ``"mutineers/1"`` in Traitors Aboard). Only the policy mapping reads the team from the id; the policy itself sees
only its own seat's observation and action mask (the game master knows the deal, the players
do not).

Turn-based stepping (RLlib's convention, as in its ``TicTacToe`` example): ``reset`` and every
``step`` return the observation of the one seat to act next; ``step`` takes that seat's action.
The acting seat gets reward 0 on every step. When the game ends (on anyone's decision) every
seat of the table gets its own final observation, its side's terminal reward (the game's return, e.g. +1 won,
−1 lost, R17) and ``terminated=True``: seats thrown overboard and seats that never acted included. The
final info of every seat also holds ``table_rewards``, the terminal reward of every seat of the
table by agent id, and ``won``/``num_players`` (the keys of the other game masters).

What RLlib does with these (ray 2.60, ``MultiAgentEpisode.add_env_step``): a seat that acted
(overboard seats included, whatever turn they stopped at) has a "hanging" action that the final
observation completes, so its last transition carries the terminal reward; rewards before are 0.
A seat that never acted (the chest opened before its first turn) has its first observation and
``terminated`` in the same step: RLlib drops it from the episode (no ``SingleAgentEpisode``, no
return in ``agent_episode_returns``/``module_episode_returns``), which is right for learning, as
there is no decision to credit, but it loses the seat's reward from RLlib's return metrics.
:class:`~training.rllib.callbacks.GameCallbacks` therefore reads ``table_rewards`` from the final
info of a seat that did act (the seat that ended the game always did) and keeps every seat's
reward in ``episode.custom_data["table_rewards"]`` and in per-team and per-module returns over
all seats (tests/training/test_rllib_rewards.py runs RLlib's env runner on such positions).

Seeds: ``reset(seed=s)`` seeds the deals with ``(s, worker_index)``; RLlib seeds sub-env ``i`` of
env runner ``w`` with ``seed + w + i``, and mixing in the env runner's index (``worker_index`` of
RLlib's ``EnvContext``, 0 in-process) keeps every sub-env of every env runner on its own deals.

Observation per agent: ``Dict(observations=Box(low, high, observation_shape, float32),
action_mask=Box(0, 1, (num_actions,), float32))`` (the game's declared layout), the keys RLlib's action-masking
RLModule reads; the observation vector is the environment's own (unscaled). Action: ``Discrete(num_actions)``;
sampling an agent's action space draws a legal action while that seat is to act (RLlib's env checker steps
the env with a sampled action).
"""

from __future__ import annotations

import weakref

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from traitors_env.core import Game, load_game
from traitors_env.core.registry import DEFAULT_GAME

from ..table_sizes import table_size_probabilities


def agent_id(team: str, seat: int) -> str:
    """The agent id of ``seat`` (0-based) dealt to side ``team`` (its key): ``"pirates/3"``."""
    return f"{team}/{seat}"


def team_of(agent: str, sides: tuple[str, ...] | None = None) -> str:
    """The side an agent id names (``"pirates/3"`` → ``"pirates"``).

    Raises:
        ValueError: for an id that is not ``"<side>/<seat>"`` (with ``sides``: a side among them).
    """
    team, _, seat = str(agent).partition("/")
    if not team or not seat.isdigit() or (sides is not None and team not in sides):
        expected = f" with team in {tuple(sides)}" if sides is not None else ""
        raise ValueError(f"agent id {agent!r} is not '<team>/<seat>'{expected}")
    return team


def rllib_game(config: dict | None) -> Game:
    """The game of an env config (``config["game"]``, default the registry's default game), checked to be a zero-sum
    team game.

    Raises:
        ValueError: for a game whose sides do not share one reward.
    """
    game = load_game((config or {}).get("game", DEFAULT_GAME))
    if not game.team_play:
        raise ValueError(f"the RLlib game master plays zero-sum team games; {game.type.env_id} has individual rewards")
    return game


class _LegalActions(spaces.Discrete):
    """``Discrete(NUM_ACTIONS)`` whose ``sample()`` (no mask given) draws a legal action while its seat is to act.

    Pickles and copies as a plain ``Discrete`` (the env reference stays behind).
    """

    def __init__(self, env: GameMasterEnv, agent: str) -> None:
        super().__init__(env.registered_game.type.num_actions)
        self._env = weakref.ref(env)
        self._agent = agent

    def sample(self, mask=None, probability=None):
        env = self._env()
        if mask is None and probability is None and env is not None:
            legal = env.legal_mask(self._agent)
            if legal.any():
                mask = legal.astype(np.int8)
        return super().sample(mask=mask, probability=probability)

    def __reduce__(self):
        return (spaces.Discrete, (self.n,))


class GameMasterEnv(MultiAgentEnv):
    """Deals games of a zero-sum team game and exposes every seat as an agent ``"<team>/<seat>"``.

    Args:
        config: a mapping (RLlib's ``env_config``) with optional keys ``game`` (a registered game's name or env
            id, default the registry's default game), ``player_counts`` (table sizes drawn per game, default every
            size the game has), ``player_count_weights`` (relative, default uniform), ``claims`` (the claim step;
            default ``True``) and ``seed`` (seeds the deals until ``reset(seed=...)`` is given one).

    Raises:
        ValueError: for a game with individual rewards, table sizes the game does not have or bad weights;
            from :meth:`step`, for an action dict without the acting agent, and the game's illegal-action error
            for an action outside its mask.
    """

    def __init__(self, config: dict | None = None) -> None:
        super().__init__()
        context = config
        config = dict(config or {})
        self.registered_game = game = rllib_game(config)
        kind = game.type
        self.teams = kind.sides
        self.player_counts = [int(n) for n in config.get("player_counts", kind.player_counts)]
        weights = config.get("player_count_weights")
        self._probabilities = table_size_probabilities(weights, self.player_counts)
        claims = bool(config.get("claims", True))
        self._envs = {n: game.raw_env(num_players=n, claims=claims) for n in self.player_counts}
        #: RLlib's env runner index (its EnvContext; 0 for a plain dict), mixed into every seed
        self.worker_index = int(getattr(context, "worker_index", 0) or 0)
        seed = config.get("seed")
        self._rng = np.random.default_rng(None if seed is None else [int(seed), self.worker_index])
        self._env = None
        self._ids: list[str] = []
        self.possible_agents = [agent_id(team, seat) for team in self.teams for seat in range(kind.max_players)]
        self.agents = []
        observation = spaces.Dict(
            {
                "observations": spaces.Box(game.layout.low, game.layout.high, kind.observation_shape, np.float32),
                "action_mask": spaces.Box(0.0, 1.0, (kind.num_actions,), np.float32),
            }
        )
        self.observation_spaces = {agent: observation for agent in self.possible_agents}
        self.action_spaces = {agent: _LegalActions(self, agent) for agent in self.possible_agents}

    # ------------------------------------------------------------ MultiAgentEnv API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal a new game (or start from ``options["position"]``, an engine state of the game); returns the
        observation of the seat to act first (and an empty info for it)."""
        if seed is not None:
            self._rng = np.random.default_rng([int(seed), self.worker_index])
        position = (options or {}).get("position")
        if position is None:
            n = self.player_counts[int(self._rng.choice(len(self.player_counts), p=self._probabilities))]
            env = self._env = self._envs[n]
            env.reset(seed=int(self._rng.integers(2**63)))
        else:
            claims = getattr(getattr(position, "config", None), "claims", True)
            env = self._env = self.registered_game.raw_env(num_players=position.num_players, claims=claims)
            env.reset_to_position(position)
        # Game master: the deal names the agents (the only place the sides are read).
        state = env.game
        self._ids = [agent_id(self.teams[self.registered_game.side_of_seat(state, seat)], seat)
                     for seat in range(state.num_players)]
        self.agents = list(self._ids)
        seat = env.game.current_player
        return {self._ids[seat]: self._observe(seat)}, {self._ids[seat]: {}}

    def step(self, action_dict: dict):
        env = self._env
        if env is None or env.game.is_terminal:
            raise RuntimeError("step() called before reset() or after the game ended; call reset()")
        game = env.game
        seat = game.current_player
        acting = self._ids[seat]
        if acting not in action_dict:
            raise ValueError(f"the action dict {sorted(action_dict)} holds no action for {acting!r}, the seat to act")
        env.step(int(action_dict[acting]))  # raises IllegalActionError (naming the legal set) for a masked action
        if not game.is_terminal:
            nxt = game.current_player
            return (
                {self._ids[nxt]: self._observe(nxt)},
                {acting: 0.0},
                {"__all__": False},
                {"__all__": False},
                {},
            )
        returns = game.returns()
        table_rewards = {agent: float(returns[seat]) for seat, agent in enumerate(self._ids)}
        observations, rewards, terminateds, infos = {}, {}, {"__all__": True}, {}
        for other, agent in enumerate(self._ids):
            observations[agent] = self._observe(other)
            rewards[agent] = table_rewards[agent]
            terminateds[agent] = True
            info = dict(env.infos[env.possible_agents[other]])
            # The whole table's result in every seat's info: RLlib keeps the infos of seats that acted only.
            info.update(won=bool(self.registered_game.seat_won(game, other)), num_players=game.num_players,
                        table_rewards=dict(table_rewards))
            infos[agent] = info
        return observations, rewards, terminateds, {"__all__": False}, infos

    # ------------------------------------------------------------ helpers
    def legal_mask(self, agent: str) -> np.ndarray:
        """The legal actions of ``agent`` (``bool``, shape ``(num_actions,)``): all ``False`` unless it is to act."""
        game = None if self._env is None else self._env.game
        if game is None or game.is_terminal or self._ids[game.current_player] != agent:
            return np.zeros(self.registered_game.type.num_actions, dtype=bool)
        return game.legal_mask().astype(bool)

    @property
    def game(self):
        """The running engine state (for tests; not an observation)."""
        return self._env.game

    def _observe(self, seat: int) -> dict:
        game = self._env.game
        mask = np.zeros(self.registered_game.type.num_actions, dtype=np.float32)
        if not game.is_terminal and game.current_player == seat:
            mask[:] = game.legal_mask()
        return {"observations": self.registered_game.encode(game, seat), "action_mask": mask}
