"""# The Traitors

| Import | `from traitors_env import the_traitors_v0` |
|---|---|
| Actions | Discrete |
| Parallel API | No |
| Manual control | No |
| Agents | `agents = ['player_0', …, 'player_{n-1}']`, n = 3–6 |
| Agents count | 3–6 (default 5) |
| Action shape | Discrete(36) |
| Action values | 0–35 |
| Observation shape | `{"observation": (791,) float32, "action_mask": (36,) int8}` |
| Observation values | see the layout table (`traitors_env.the_traitors.observation.layout_table()`) |

The Traitors board game (2nd edition) for 3–6 players: one hidden Traitor among Faithful, four
rounds of Mission → Round Table (claims, a secret vote) → Armoury → Night (a murder), then the
End Game scoring and a two-player Final, a prisoner's dilemma. Players score individually: a
mixed-motive hidden-role game. Rulings T01–T16: ``docs/rules/the-traitors-RULINGS.md``.

**Observation.** A dict with ``"observation"``, a ``float32`` vector of fixed length 791 for
every table size (seats relative to the observer, padded to 6), and ``"action_mask"``, an
``int8`` vector over the 36 actions (all zeros for an agent that is not asked to act). It holds
public information and the observer's own knowledge only; votes and Final choices appear only
once all of them are made (T09, T15).

**Actions.** One ``Discrete(36)`` covers every decision (:mod:`traitors_env.the_traitors.actions`).
Secret decisions are asked of *everyone* (the Mission's assignment, the Night's murder: a
Faithful's only legal action is "no attempt" / "no murder"), so whose turn it is never shows who
the Traitor is.

**Rewards.** Individual, at the end only (T16): +1 to each winner of the Final, 0 to everyone
else (``reward="score"``: a winner's score).

**Episode.** Always four rounds and the Final; every agent's ``info`` then holds the result as
scalars and fixed-shape arrays (stackable across agents and games; absolute seats, padded to 6
with −1): ``won``, ``reward``, ``score``, ``role``, ``traitor``, ``outcome``, ``finalists``,
``third``, ``final_choices``, ``gold``, ``winners``, ``scores``, ``pot``, ``murders``,
``num_players``. The full result (lists over seats) is ``env.unwrapped.result``.
"""

from __future__ import annotations

import copy

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import actions as A
from .cards import MAX_PLAYERS, FinalOutcome
from .engine import GameConfig, GameState
from .observation import OBS_HIGH, OBS_LOW, OBS_SIZE, encode
from .render import render_text

RENDER_MODES = ("ansi", "human")


def env(**kwargs) -> AECEnv:
    """The environment with PettingZoo's classic wrappers.

    Illegal moves end the game with reward −1 for the offender (``TerminateIllegalWrapper``);
    out-of-range actions raise (``AssertOutOfBoundsWrapper``); calls out of order raise
    (``OrderEnforcingWrapper``). Keyword arguments as :class:`raw_env`.
    """
    environment = raw_env(**kwargs)
    environment = wrappers.TerminateIllegalWrapper(environment, illegal_reward=-1)
    environment = wrappers.AssertOutOfBoundsWrapper(environment)
    environment = wrappers.OrderEnforcingWrapper(environment)
    return environment


def final_info(game: GameState, seat: int) -> dict:
    """The end-of-game ``info`` of ``seat``: scalars and fixed-shape arrays (absolute seats, padded with −1).

    A new object (with its own arrays) per call, so agents never share one.
    """
    n = game.num_players
    rewards = game.returns()

    def padded(values, dtype, fill=-1):
        array = np.full(MAX_PLAYERS, fill, dtype=dtype)
        array[:n] = values
        return array

    return {
        "won": bool(game.winners[seat]),
        "reward": float(rewards[seat]),
        "score": float(game.scores[seat]),
        "role": int(game.roles[seat]),
        "traitor": int(game.traitor),
        "outcome": int(game.outcome),
        "outcome_name": FinalOutcome(game.outcome).name.lower(),
        "finalists": np.array(game.finalists, dtype=np.int64),
        "third": int(game.third),
        "final_choices": np.array(game.final_choices, dtype=np.int64),
        "gold": padded(game.gold, np.int64),
        "winners": padded(game.winners, np.int8),
        "scores": padded(game.scores, np.float64),
        "pot": int(game.pot),
        "murders": int(game.murders),
        "num_players": n,
    }


class raw_env(AECEnv):
    """PettingZoo AEC environment of *The Traitors* over :class:`traitors_env.the_traitors.engine.GameState`.

    Args:
        num_players: 3–6 (default 5, T01).
        claims: the claim step before each vote (T08; default ``True``).
        render_mode: ``None``, ``"ansi"`` (``render()`` returns the text) or ``"human"`` (prints it).
        render_hidden: also render hidden state (roles, cards in hand, the assignment); debugging only.
        **options: further :class:`~traitors_env.the_traitors.engine.GameConfig` options
            (``mission_gold``, ``assignment_success``, ``signal_faithful``, ``signal_traitor_idle``,
            ``signal_traitor_attempt``, ``armoury``, ``reward``).

    Raises:
        ValueError: for a ``num_players`` outside 3–6, an unknown ``render_mode`` or option, a bad
            option value; :class:`~traitors_env.the_traitors.engine.IllegalActionError` (a ``ValueError``)
            from :meth:`step` for an action that is not legal.
    """

    metadata = {"render_modes": list(RENDER_MODES), "name": "the_traitors_v0", "is_parallelizable": False}

    def __init__(
        self,
        num_players: int = 5,
        claims: bool = True,
        render_mode: str | None = None,
        render_hidden: bool = False,
        **options,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode={render_mode!r} is not supported; expected None, 'ansi' or 'human'")
        if not isinstance(render_hidden, (bool, np.bool_)):
            raise ValueError(f"render_hidden={render_hidden!r} is not supported; expected True or False")
        known = set(GameConfig.__dataclass_fields__) - {"num_players", "claims"}
        unknown = sorted(set(options) - known)
        if unknown:
            raise ValueError(f"unknown option(s) {unknown}; expected keyword arguments among {sorted(known)}")
        self.config = GameConfig(num_players=num_players, claims=claims, **options)
        self.render_mode = render_mode
        self.render_hidden = bool(render_hidden)
        self.possible_agents = [f"player_{i}" for i in range(self.config.num_players)]
        self.agents = self.possible_agents[:]
        observation_space = spaces.Dict(
            {
                "observation": spaces.Box(low=OBS_LOW, high=OBS_HIGH, shape=(OBS_SIZE,), dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(A.NUM_ACTIONS,), dtype=np.int8),
            }
        )
        action_space = spaces.Discrete(A.NUM_ACTIONS)
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

        ``reset(seed=s)`` plays the game of seed ``s`` and seeds the env's RNG with ``s``;
        ``reset()`` draws the next episode's seed from that RNG (fresh entropy before any seed).

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
        self._start(GameState.new(self.config, seed=episode_seed))

    def reset_to_position(self, state: GameState) -> None:
        """Start from an explicit position (:meth:`GameState.from_position`); the env plays on a copy.

        Raises:
            ValueError: if the position's options differ from this env's.
        """
        if state.config != self.config:
            raise ValueError(f"position has options {state.config}; this env has {self.config}")
        self.episode_seed = None
        self._start(copy.deepcopy(state))

    def _start(self, state: GameState) -> None:
        self.game = state
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[state.current_player]
        if state.is_terminal:
            self._finish()

    def _finish(self) -> None:
        """T16: every agent gets its own reward and its own result ``info``; all are terminated."""
        game = self.game
        returns = game.returns()
        for i, name in enumerate(self.agents):
            self.rewards[name] = returns[i]
            self.terminations[name] = True
            self.infos[name] = final_info(game, i)
        self._accumulate_rewards()

    @property
    def result(self) -> dict | None:
        """The finished game's full result, everything revealed (:meth:`GameState.result`: roles, gold, the
        Final, winners, scores; lists over absolute seats). A new dict on every call; ``None`` before
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
        if game.current_player == seat and not game.is_terminal and not self.terminations[agent]:
            mask = game.legal_mask()
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
        self._cumulative_rewards[agent] = 0.0
        if game.is_terminal:
            self._finish()
        else:
            self.agent_selection = self.possible_agents[game.current_player]
        if self.render_mode == "human":
            self.render()

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
