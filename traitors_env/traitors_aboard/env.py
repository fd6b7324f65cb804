"""# Traitors Aboard

| Import | `from traitors_env import traitors_aboard_v0` |
|---|---|
| Actions | Discrete |
| Parallel API | No |
| Manual control | No |
| Agents | `agents = ['player_0', …, 'player_{n-1}']`, n = 3–8 |
| Agents count | 3–8 (default 5) |
| Action shape | Discrete(196) |
| Action values | 0–195 |
| Observation shape | `{"observation": (1228,) float32, "action_mask": (196,) int8}` |
| Observation values | see the layout table (`traitors_env.traitors_aboard.observation.layout_table()`) |

A hidden-role bluffing card game for 3–8 players. Pirates fill a shared chest to the
target value; secret Mutineers sabotage it, lying about the loot they put in.

**Observation.** A dict with ``"observation"``, a ``float32`` vector of fixed length
1228 for every table size (seats relative to the observer, padded to 8), and
``"action_mask"``, an ``int8`` vector over the 196 actions (all zeros for an agent
that is not asked to act). The layout table is in the README and in
``traitors_env.traitors_aboard.observation.layout_table()``; it is derived from public information and
the observer's own knowledge only.

**Actions.** One ``Discrete(196)`` covers every decision of a turn: open the chest,
loot with its announced value, action cards with relative targets, the Spyglass order,
the two Miraculous Catch returns and the claim (R14–R16). The table is in
:mod:`traitors_env.traitors_aboard.actions`; ``env.unwrapped.action_to_string(a)`` describes an action
in the current state.

**Rewards.** +1 to every player of the winning team, −1 to the others, overboard
players included, when the game ends (R17); 0 otherwise.

**Episode.** Ends with one of the four end conditions; every agent's ``info`` is ``{}``
until then, and at the end holds scalars only, the same keys at every table size, so that the
infos of several environments stack into arrays (as Tianshou's collector does):

| key | type | meaning |
|---|---|---|
| ``winner`` | ``str`` | ``"Pirate"`` or ``"Mutineer"`` |
| ``end_condition`` | ``str`` | ``"chest_opened"``, ``"all_mutineers_overboard"``, ``"mutineers_not_outnumbered"`` or ``"draw_pile_empty"`` |
| ``role`` | ``str`` | this agent's own role, revealed at the end |
| ``chest_value`` | ``int`` | sum of the true values of the loot in the chest |
| ``target`` | ``int`` | the chest's target value at this table size |
| ``turns`` | ``int`` | turns played |
| ``num_players`` | ``int`` | table size |

Each agent's info is its own dict. The full revealed result (every role, the chest card by
card: value, announced, placer) is ``env.unwrapped.result`` (:meth:`GameState.result`).
Overboard agents stay in ``agents`` until the end but are never selected (R11).
"""

from __future__ import annotations

import copy

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import actions as A
from .engine import _GAME_OVER, GameConfig, GameState  # ``phase is _GAME_OVER``: no property call per decision
from .observation import OBS_HIGH, OBS_LOW, OBS_SIZE, encode
from .render import render_text

RENDER_MODES = ("ansi", "human")


def env(**kwargs) -> AECEnv:
    """The environment with PettingZoo's classic wrappers.

    Illegal moves end the game with reward −1 for the offender
    (``TerminateIllegalWrapper``); out-of-range actions raise (``AssertOutOfBoundsWrapper``);
    calls out of order raise (``OrderEnforcingWrapper``). Keyword arguments as :class:`raw_env`.
    """
    environment = raw_env(**kwargs)
    environment = wrappers.TerminateIllegalWrapper(environment, illegal_reward=-1)
    environment = wrappers.AssertOutOfBoundsWrapper(environment)
    environment = wrappers.OrderEnforcingWrapper(environment)
    return environment


class raw_env(AECEnv):
    """PettingZoo AEC environment of *Traitors Aboard* over :class:`traitors_env.traitors_aboard.engine.GameState`.

    Args:
        num_players: 3–8 (default 5).
        claims: the structured claim step after each turn (R14; default ``True``).
        render_mode: ``None``, ``"ansi"`` (``render()`` returns the text) or ``"human"`` (prints it).
        render_hidden: also render hidden state (roles, hands, chest values); debugging only.
        first_player: ``None`` (drawn from the seed, R01) or a fixed seat.

    Raises:
        ValueError: for a ``num_players`` outside 3–8, an unknown ``render_mode``, a bad
            ``first_player``; :class:`traitors_env.traitors_aboard.engine.IllegalActionError` (a ``ValueError``)
            from :meth:`step` for an action that is not legal.
    """

    metadata = {"render_modes": list(RENDER_MODES), "name": "traitors_aboard_v0", "is_parallelizable": False}

    def __init__(
        self,
        num_players: int = 5,
        claims: bool = True,
        render_mode: str | None = None,
        render_hidden: bool = False,
        first_player: int | None = None,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode={render_mode!r} is not supported; expected None, 'ansi' or 'human'")
        for name, value in (("claims", claims), ("render_hidden", render_hidden)):
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"{name}={value!r} is not supported; expected True or False")
        self.config = GameConfig(num_players=num_players, claims=bool(claims), first_player=first_player)
        self.render_mode = render_mode
        self.render_hidden = bool(render_hidden)
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agents = self.possible_agents[:]
        observation_space = spaces.Dict(
            {
                "observation": spaces.Box(low=OBS_LOW, high=OBS_HIGH, shape=(OBS_SIZE,), dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(A.NUM_ACTIONS,), dtype=np.int8),
            }
        )
        action_space = spaces.Discrete(A.NUM_ACTIONS)
        # One space object each, built once (PettingZoo asks for the same object every call).
        self.observation_spaces = {agent: observation_space for agent in self.possible_agents}
        self.action_spaces = {agent: action_space for agent in self.possible_agents}
        self._agent_index = {agent: i for i, agent in enumerate(self.possible_agents)}
        self._rng: np.random.Generator | None = None
        #: The seed of the current game (``None`` for a game started with :meth:`reset_to_position`).
        self.episode_seed: int | None = None
        self.game: GameState | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game from its own seed, :attr:`episode_seed`.

        ``reset(seed=s)`` plays the game of seed ``s`` (``GameState.new(config, seed=s)``) and
        seeds the env's RNG with ``s``; ``reset()`` continues that RNG, drawing the next episode's
        seed from it (fresh entropy before any seed was given). Every game thus has a seed, and
        :meth:`record` can write it as a replayable game record.

        Raises:
            ValueError: for a ``seed`` that is not ``None`` or a non-negative int.

        ``options`` is accepted and ignored, as PettingZoo's API test expects; explicit positions
        go through :meth:`reset_to_position`.
        """
        if seed is not None and (
            isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0
        ):
            raise ValueError(f"seed={seed!r} is not supported; expected None or a non-negative int")
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            episode_seed = int(seed)
        else:
            if self._rng is None:
                self._rng = np.random.default_rng()
            episode_seed = int(self._rng.integers(2**63))
        self.episode_seed = episode_seed
        self._start(GameState.new(self.config, seed=episode_seed))

    def reset_to_position(self, state: GameState) -> None:
        """Start from an explicit position (see :meth:`GameState.from_position`).

        The env plays on a copy: ``state`` itself is left as it is.

        Raises:
            ValueError: if the position's table size or claim setting differs from this env's.
        """
        if state.num_players != self.config.num_players or state.config.claims != self.config.claims:
            raise ValueError(
                f"position has {state.num_players} players, claims={state.config.claims}; this env has "
                f"{self.config.num_players} players, claims={self.config.claims}"
            )
        self.episode_seed = None  # a position has no seed to replay from
        self._start(copy.deepcopy(state))

    def _start(self, state: GameState) -> None:
        self.game = state
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[state.current_player]
        if state.is_terminal:  # a finished position: every agent is done, with its result
            self._finish()

    def _finish(self) -> None:
        """R17: every agent gets its team's reward and its end-of-game info; all are terminated."""
        game = self.game
        returns = game.returns()
        result = game.result()
        # Scalars only (see the module doc): infos of several envs stack; the lists stay in ``result``.
        shared = {key: result[key] for key in ("winner", "end_condition", "chest_value", "target", "turns")}
        for i, name in enumerate(self.agents):
            self.rewards[name] = returns[i]
            self.terminations[name] = True
            self.infos[name] = {**shared, "role": result["roles"][i], "num_players": game.num_players}
        self._accumulate_rewards()

    @property
    def result(self) -> dict | None:
        """The finished game's full result, everything revealed (:meth:`GameState.result`): ``winner``,
        ``end_condition``, ``roles`` (one per seat), ``chest_value``, ``target``, ``chest`` (top first:
        ``value``, ``announced``, ``placer``), ``turns``. A new dict on every call; ``None`` before
        :meth:`reset` and while the game runs (nothing may be revealed before the end)."""
        if self.game is None or not self.game.is_terminal:
            return None
        return self.game.result()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation: only public information and its own knowledge."""
        seat = self._agent_index[agent]
        game = self.game
        if game is None:
            raise RuntimeError("observe() was called before reset(); call reset() first")
        # An agent terminated by the illegal-move wrapper is asked nothing, though the game itself goes on.
        if game.current_player == seat and game.phase is not _GAME_OVER and not self.terminations[agent]:
            mask = game.legal_mask().copy()
        else:
            mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
        return {"observation": encode(game, seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Apply ``action`` for ``agent_selection``; ``None`` for an agent that is done.

        Raises:
            IllegalActionError: if ``action`` is not legal (a ``ValueError`` naming the legal set).
        """
        game = self.game
        if game is None:
            raise RuntimeError("step() was called before reset(); call reset() first")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game.apply_action(action)
        self._cumulative_rewards[agent] = 0
        if game.phase is _GAME_OVER:
            self._finish()
        else:
            # Rewards are 0 until the game ends, so there is nothing to accumulate (a per-step saving).
            self.agent_selection = self.possible_agents[game.current_player]
        if self.render_mode == "human":
            self.render()

    def record(self, seats: list[str] | None = None):
        """The current game as a :class:`traitors_env.traitors_aboard.records.GameRecord` (finished or not).

        Args:
            seats: optional label per seat of who played it (``"human"``, ``"heuristic"`` …).

        A game that PettingZoo's ``TerminateIllegalWrapper`` stopped after an illegal action is
        recorded as unfinished: the illegal action is no move of the game, so it is not in the record.

        Raises:
            RecordError: for a game started with :meth:`reset_to_position` (it has no seed), or
                before :meth:`reset`.
        """
        from .records import RecordError, record_game  # here: pydantic loads only for those who record

        if self.game is None:
            raise RecordError("record() was called before reset(); there is no game to record")
        if self.episode_seed is None:
            raise RecordError("this game started from an explicit position (reset_to_position); only seeded games can be recorded")
        return record_game(self.game, self.episode_seed, seats=seats)

    def action_to_string(self, action: int) -> str:
        """Readable text for ``action`` of the agent to act, in the current state."""
        return self.game.action_to_string(action)

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.game is None:
            raise RuntimeError("render() was called before reset(); call reset() first")
        text = render_text(self.game, show_hidden=self.render_hidden)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass
