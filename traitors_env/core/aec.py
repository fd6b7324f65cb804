"""The PettingZoo AEC scaffolding both games share: spaces, seeding, turn order, observe, render.

Each game's ``raw_env`` subclasses :class:`CardGameAECEnv` and supplies its engine (a ``GameState``
with ``new(config, seed=)``, ``current_player``, ``is_terminal``, ``legal_mask()``,
``apply_action()``, ``returns()``, ``action_to_string()``), its encoder, its renderer and its
end-of-game infos; the seeding contract, the observation dict, dead steps and rendering are the
same for both and live here once.
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from .actions import is_index, not_an_index
from .layout import Layout

RENDER_MODES = ("ansi", "human")


#: The attributes PettingZoo's ``OrderEnforcingWrapper`` refuses to read before ``reset()``.
_BEFORE_RESET = frozenset(
    {"rewards", "terminations", "truncations", "infos", "agent_selection", "num_agents", "agents"}
)


class ClassicWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's classic wrappers in one layer: what ``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(
    TerminateIllegalWrapper(env, illegal_reward)))`` does, plus a clear error for an action that is no action index.

    Four ``BaseWrapper`` layers cost most of ``env()``'s time (every attribute read went through each layer's
    ``__getattr__``); this one reads the raw env directly on the AEC loop's path (``agent_iter``, ``last``,
    ``observe``, ``step``, ``reset``) and forwards anything else once. Behaviour, in PettingZoo's words
    (``pettingzoo/utils/wrappers``, 1.24–1.27):

    * order (``OrderEnforcingWrapper``): ``step``, ``observe``, ``render``, ``state``, ``agent_iter`` before
      ``reset()`` raise ``AssertionError``; reading ``rewards``, ``terminations``, ``truncations``, ``infos``,
      ``agent_selection``, ``num_agents``, ``agents`` before it raises ``AttributeError``; ``step`` once every
      agent is done only logs PettingZoo's warning; ``agent_iter`` asserts a ``step`` or ``reset`` between
      agents; private attributes (``_name``, but ``_cumulative_rewards``) are not forwarded.
    * action index (in place of ``AssertOutOfBoundsWrapper``'s bare assertion, which stays behind it): for an
      agent to act, ``None`` or an action that is no index in ``0 … n-1`` (a float, a bool, a string, an int out
      of range) raises ``error`` naming the value and the legal set, and nothing is played; a 0-d integer array
      (SB3's ``predict`` on one observation) is taken as its int. For an agent that is done, an action outside
      the action space raises ``AssertionError("action is not in action space")``.
    * illegal move (``TerminateIllegalWrapper``): an index the agent's last observed ``action_mask`` forbids
      ends the game: PettingZoo's warning is logged, every agent is terminated and truncated, the offender gets
      ``illegal_reward`` (−1.0) and the others 0, infos are left as they are, and the dead agents step ``None``
      from the first seat on.

    ``unwrapped`` is the raw env, ``str(env)`` its name; ``isinstance(env, OrderEnforcingWrapper)`` holds, as
    PettingZoo's iterator and ``aec_to_parallel`` expect.
    """

    def __init__(self, env: AECEnv, error: type[Exception] = ValueError, illegal_reward: float = -1) -> None:
        super().__init__(env)  # asserts an AECEnv; _has_reset, _has_updated = False
        self._error = error
        self._illegal_value = illegal_reward
        self._prev_obs: Any = None  # the last observation of the agent to act, whose mask judges its action
        self._prev_info: Any = None
        self._terminated = False  # the game was ended by an illegal move
        self._limits: dict[str, int] = {}  # agent -> n of its Discrete(n) action space from 0 (else 0): the fast check

    def __getattr__(self, name: str) -> Any:
        if name in _BEFORE_RESET and not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        if (name.startswith("_") and name != "_cumulative_rewards") or name == "env":  # "env": not yet set (unpickling)
            raise AttributeError(f"accessing private attribute '{name}' is prohibited")
        return getattr(self.env, name)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._has_reset = True
        self._has_updated = True
        self._terminated = False
        self._prev_obs = None
        self._prev_info = None
        self.env.reset(seed=seed, options=options)

    def observe(self, agent: str) -> Any:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        env = self.env
        observation = env.observe(agent)
        if agent == env.agent_selection:
            self._prev_obs = observation
            infos = env.infos
            self._prev_info = infos[agent] if agent in infos else {}
        return observation

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        env = self.env
        agent = env.agent_selection
        assert agent is not None
        if observe:  # self.observe(agent), inlined: the agent observed is the one to act
            observation = self._prev_obs = env.observe(agent)
            infos = env.infos
            self._prev_info = infos[agent] if agent in infos else {}
        else:
            observation, infos = None, env.infos
        return observation, env._cumulative_rewards[agent], env.terminations[agent], env.truncations[agent], infos[agent]

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        env = self.env
        if not env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            if action is not None and not env.action_space(agent).contains(action):
                raise AssertionError("action is not in action space")
            self._prev_obs = self._prev_info = None
            if self._terminated:
                env.unwrapped._was_dead_step(action)
            else:
                env.step(action)
            return
        # The agent is to act: an action index, else a clear error and nothing played. The common case first: a
        # Python int in range of a Discrete space from 0, which every check below passes.
        limit = self._limits.get(agent)
        if limit is None:
            space = env.action_space(agent)  # PettingZoo: the same space object on every call
            limit = self._limits[agent] = space.n if space.start == 0 else 0
        if not (type(action) is int and 0 <= action < limit):
            action = self._checked_index(agent, action)
        # TerminateIllegalWrapper: judged by the mask the agent last observed.
        observation = self._prev_obs
        if observation is None:
            observation = self.observe(agent)
        if isinstance(observation, dict):
            assert "action_mask" in observation, f"`action_mask` not found in dictionary observation: {observation}"
            mask = observation["action_mask"]
        else:
            assert self._prev_info is not None and "action_mask" in self._prev_info, (
                f"`action_mask` not found in info for non-dictionary observation: {self._prev_info}"
            )
            mask = self._prev_info["action_mask"]
        self._prev_obs = self._prev_info = None
        if mask[action]:
            env.step(action)
            return
        EnvLogger.warn_on_illegal_move()
        raw = env.unwrapped
        raw._cumulative_rewards[agent] = 0
        raw.terminations = dict.fromkeys(env.agents, True)
        raw.truncations = dict.fromkeys(env.agents, True)
        raw.rewards = dict.fromkeys(raw.truncations, 0)
        raw.rewards[agent] = float(self._illegal_value)
        raw._accumulate_rewards()
        raw._deads_step_first()
        self._terminated = True

    def _checked_index(self, agent: str, action: Any) -> Any:
        """``action`` of ``agent`` (who is to act) as the index played, or the clear error (``ActionIndexWrapper``)
        or PettingZoo's out-of-bounds assertion (``AssertOutOfBoundsWrapper``)."""
        space = self.env.action_space(agent)
        if action is None:
            raise self._error(
                f"action None is only for an agent that is done; {agent} is to act, legal actions: "
                f"{list(self.unwrapped.game.legal_actions())}"
            )
        if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
            action = action.item()  # SB3's predict() on one observation
        if not is_index(action, space.n):
            raise self._error(
                f"{not_an_index(action, space.n)} is not legal for {agent}; legal actions: "
                f"{list(self.unwrapped.game.legal_actions())}"
            )
        if not space.contains(action):  # a numpy index the space's dtype does not hold (uint64 in int64)
            raise AssertionError("action is not in action space")
        return action

    def agent_iter(self, max_iter: int = 2**63) -> _AgentIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _AgentIterable(self, max_iter)

    def __str__(self) -> str:
        return str(self.env)


class _AgentIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> _AgentIterator:
        return _AgentIterator(self.env, self.max_iter)


class _AgentIterator(AECOrderEnforcingIterator):
    """PettingZoo's order-enforcing iterator, reading the raw env directly."""

    def __next__(self) -> str:
        wrapper = self.env
        env = wrapper.env
        if not env.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._has_updated = False
        return env.agent_selection


def wrap(environment: AECEnv, error: type[Exception] = ValueError) -> AECEnv:
    """``environment`` with PettingZoo's classic wrappers in one layer (:class:`ClassicWrapper`): illegal moves end
    the game with reward −1 for the offender; calls out of order raise; an action that is no action index raises
    ``error`` naming it and the legal set."""
    return ClassicWrapper(environment, error, illegal_reward=-1)


def check_flag(name: str, value: Any) -> None:
    """Raise ``ValueError`` unless ``value`` is a bool (numpy's included)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name}={value!r} is not supported; expected True or False")


class CardGameAECEnv(AECEnv):
    """A turn-based game of hidden roles as a PettingZoo AEC env; agents ``player_0 … player_{n-1}``.

    Observation of each agent: ``{"observation": float32 (layout.size,), "action_mask": int8
    (num_actions,)}``, the mask all zeros for an agent not asked to act. Action: ``Discrete(num_actions)``.

    Subclasses set ``metadata``, ``layout``, ``num_actions`` and the static ``_encode(state, seat)`` and
    ``_render_text(state, show_hidden=)``, build ``self.config`` before calling ``super().__init__``, and
    implement :meth:`_new_game`, :meth:`_check_position` and :meth:`_finish`.

    Raises:
        ValueError: for an unknown ``render_mode`` or a ``render_hidden`` that is not a bool.
    """

    layout: ClassVar[Layout]
    num_actions: ClassVar[int]

    def __init__(self, num_players: int, render_mode: str | None, render_hidden: bool) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode={render_mode!r} is not supported; expected None, 'ansi' or 'human'")
        check_flag("render_hidden", render_hidden)
        self.render_mode = render_mode
        self.render_hidden = bool(render_hidden)
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agents = self.possible_agents[:]
        observation_space = spaces.Dict(
            {
                "observation": spaces.Box(low=self.layout.low, high=self.layout.high, dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(self.num_actions,), dtype=np.int8),
            }
        )
        action_space = spaces.Discrete(self.num_actions)
        # One space object each, built once (PettingZoo asks for the same object every call).
        self.observation_spaces = {agent: observation_space for agent in self.possible_agents}
        self.action_spaces = {agent: action_space for agent in self.possible_agents}
        self._agent_index = {agent: i for i, agent in enumerate(self.possible_agents)}
        self._rng: np.random.Generator | None = None
        #: The seed of the current game (``None`` for a game started with :meth:`reset_to_position`).
        self.episode_seed: int | None = None
        self.game = None

    # ------------------------------------------------------------ game-specific parts
    def _new_game(self, seed: int):
        """The game dealt from ``seed``."""
        raise NotImplementedError

    def _check_position(self, state) -> None:
        """Raise ``ValueError`` if ``state`` cannot be played by this env (other table size or options)."""
        raise NotImplementedError

    def _finish(self) -> None:
        """At the end of the game: every agent's reward, termination and end-of-game info."""
        raise NotImplementedError

    # ------------------------------------------------------------ PettingZoo API
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game from its own seed, :attr:`episode_seed`.

        ``reset(seed=s)`` plays the game of seed ``s`` and seeds the env's RNG with ``s``;
        ``reset()`` continues that RNG, drawing the next episode's seed from it (fresh entropy
        before any seed was given). Every game thus has a seed it can be replayed from.
        ``options`` is accepted and ignored, as PettingZoo's API test expects; explicit positions
        go through :meth:`reset_to_position`.

        Raises:
            ValueError: for a ``seed`` that is not ``None`` or a non-negative int.
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
        self._start(self._new_game(episode_seed))

    def reset_to_position(self, state) -> None:
        """Start from an explicit position (the engine's ``GameState.from_position``); the env plays on a
        copy, ``state`` itself is left as it is. A method of the raw env only: PettingZoo's wrappers of
        ``env()`` learn of a new game through ``reset()`` alone.

        Raises:
            ValueError: if the position's table size or options differ from this env's.
        """
        self._check_position(state)
        self.episode_seed = None  # a position has no seed to replay from
        self._start(copy.deepcopy(state))

    def _start(self, state) -> None:
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

    @property
    def result(self) -> dict | None:
        """The finished game's full result, everything revealed (the engine's ``GameState.result()``). A new
        dict on every call; ``None`` before :meth:`reset` and while the game runs (nothing may be revealed
        before the end)."""
        if self.game is None or not self.game.is_terminal:
            return None
        return self.game.result()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation: only public information and its own knowledge.

        Raises:
            RuntimeError: before :meth:`reset`.
        """
        seat = self._agent_index[agent]
        game = self.game
        if game is None:
            raise RuntimeError("observe() was called before reset(); call reset() first")
        # An agent terminated by the illegal-move wrapper is asked nothing, though the game itself goes on.
        if game.current_player == seat and not game.is_terminal and not self.terminations[agent]:
            mask = game.legal_mask().copy()  # the engine may cache it; the agent gets its own
        else:
            mask = np.zeros(self.num_actions, dtype=np.int8)
        return {"observation": self._encode(game, seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Apply ``action`` for ``agent_selection``; ``None`` for an agent that is done.

        Raises:
            RuntimeError: before :meth:`reset`, and once every agent is done (the game is over and each has
                stepped ``None``).
            ValueError: the engine's ``IllegalActionError``, naming the legal set, for an action that is not legal.
        """
        game = self.game
        if game is None:
            raise RuntimeError("step() was called before reset(); call reset() first")
        if not self.agents:  # every agent has stepped None after the end: there is no agent_selection left
            raise RuntimeError(f"step({action!r}) was called after the game ended and every agent was done; call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game.apply_action(action)
        self._cumulative_rewards[agent] = 0
        if game.is_terminal:
            self._finish()
        else:
            # Rewards are 0 until the game ends, so there is nothing to accumulate (a per-step saving).
            self.agent_selection = self.possible_agents[game.current_player]
        if self.render_mode == "human":
            self.render()

    def action_to_string(self, action: int) -> str:
        """Readable text for ``action`` of the agent to act, in the current state.

        Raises:
            RuntimeError: before :meth:`reset`.
        """
        if self.game is None:
            raise RuntimeError("action_to_string() was called before reset(); call reset() first")
        return self.game.action_to_string(action)

    def render(self) -> str | None:
        """The table as text (``"ansi"``: returned; ``"human"``: printed); hidden state only with ``render_hidden``.

        Raises:
            RuntimeError: before :meth:`reset`.
        """
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.game is None:
            raise RuntimeError("render() was called before reset(); call reset() first")
        text = self._render_text(self.game, show_hidden=self.render_hidden)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass
