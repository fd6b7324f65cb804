"""Every registered game as a TextArena environment (``pip install -e '.[llm]'``).

Importing this module registers, through TextArena's own :func:`textarena.register`, one environment per game of
the registry (:func:`~traitors_env.core.registry.registered_games`), named from the game's ``long_name`` and the
version of its env id: ``TraitorsAboard-v0`` (``traitors_aboard_v0``), ``TheTraitors-v0`` (``the_traitors_v0``),
and so on for any game registered later (call :func:`register_all` again). Each id comes with TextArena's usual
wrappers (``LLMObservationWrapper``: the observation is the player's whole conversation as one string;
``ActionFormattingWrapper``: the action is put in ``[brackets]``); ``<id>-raw`` has none. So an agent written for
TextArena (``__call__(observation: str) -> str``) plays unmodified::

    import textarena as ta
    import traitors_env.textarena_envs  # registers TraitorsAboard-v0, TheTraitors-v0, ...

    env = ta.make("TraitorsAboard-v0")
    env.reset(num_players=5, seed=0)
    done = False
    while not done:
        player_id, observation = env.get_observation()
        done, info = env.step(action=agents[player_id](observation))
    rewards, game_info = env.close()

What a player sees is its seat's :class:`~traitors_env.core.text.TextView` (the same words as a language model at
``traitors-eval``): the system prompt once, then at each of its decisions the prompt that ends with the numbered
``Legal actions:``. Nothing else is broadcast (a TextArena ``PLAYER_ACTION`` message would show others a private
action). A reply is read by :meth:`TextView.parse <traitors_env.core.text.TextView.parse>` (the number, the
action's text, or tool-call JSON), from the last ``[...]`` in it when there is one. An invalid reply is answered
(a ``GAME_ADMIN`` message listing the legal actions) and asked again up to ``retries`` times; then a uniformly random
legal action is played (the kit's documented fallback: the game never stalls), and ``game_info[player]`` counts
``invalid_replies`` and ``fallbacks`` (``invalid_move`` is set for a player that fell back).

At the end ``close()`` returns TextArena's ``(rewards, game_info)``: reward +1 for a seat that won
(``game.seat_won``), -1 otherwise; ``game_info[player]`` has ``role`` (its side's label, revealed at the end),
``reason`` (the game's end condition), ``turn_count``, ``invalid_move``, ``invalid_replies`` and ``fallbacks``.

This module sits on top of the package (it imports the core; nothing in the package imports it).
"""

from __future__ import annotations

import functools
import re

import numpy as np
import textarena as ta
from textarena.wrappers import ActionFormattingWrapper, LLMObservationWrapper

from .core.game import Game
from .core.registry import load_game, loadable_games
from .core.text import InvalidReply, TextDecision, TextView

__all__ = ["TextArenaGame", "register_all", "textarena_id"]

#: TextArena's default wrappers of a text game (observation as one string, action in brackets).
WRAPPERS = [LLMObservationWrapper, ActionFormattingWrapper]


def textarena_id(game: str | Game) -> str:
    """The TextArena id of a game: its ``long_name`` in CamelCase and its env id's version (``Traitors Aboard``,
    ``traitors_aboard_v0`` → ``TraitorsAboard-v0``)."""
    game = load_game(game)
    words = re.findall(r"[A-Za-z0-9]+", game.type.long_name)
    version = re.search(r"_(v\d+)$", game.type.env_id)
    return "".join(w[:1].upper() + w[1:] for w in words) + f"-{version.group(1) if version else 'v0'}"


class TextArenaGame(ta.Env):
    """One registered game as a TextArena environment (see the module doc).

    Args:
        game: a registered name (or env id) or a :class:`Game`.
        claims: the game's claims option.
        retries: invalid replies answered with the legal list before the random fallback (default 2).
    """

    def __init__(self, game: str | Game, claims: bool = True, retries: int = 2) -> None:
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise ValueError(f"retries={retries!r}; expected an int >= 0")
        self.game = load_game(game)
        self.claims = claims
        self.retries = retries
        self.env = None
        self.views: list[TextView] = []
        self.decision: TextDecision | None = None
        self._tries = 0

    # ------------------------------------------------------------------ TextArena's API
    def reset(self, num_players: int, seed: int | None = None) -> None:
        """Deal a new game at ``num_players`` seats from ``seed`` (``None``: fresh entropy).

        Raises:
            ValueError: for a table size the game does not have.
        """
        n = self.game.check_players(num_players)
        self.env = self.game.raw_env(num_players=n, claims=self.claims)
        self.env.reset(seed=seed)
        self.views = [TextView(self.game, n) for _ in range(n)]
        self._rng = np.random.default_rng(None if seed is None else [seed, 29])
        self.state = ta.MinimalMultiPlayerState(num_players=n, seed=None)  # seed=None: never reseeds `random`
        self.state.reset(role_mapping={pid: f"Player {pid}" for pid in range(n)},
                         player_prompt_function=lambda player_id, game_state: self.views[player_id].system_prompt())
        for pid in range(n):
            self.state.game_info[pid].update(invalid_replies=0, fallbacks=0)
        self._next_decision()

    def step(self, action: str) -> tuple[bool, dict]:
        """Play the current player's reply ``action``; returns ``(done, info)``.

        Raises:
            RuntimeError: when the game is over or was never reset.
        """
        if self.env is None or self.state.done:
            raise RuntimeError("the game is over (or was never reset); call reset(num_players, seed) first")
        pid = self.state.current_player_id
        info = self.state.game_info[pid]
        try:
            index = self.views[pid].parse(_reply_text(action), self.decision)
        except InvalidReply as error:
            info["invalid_replies"] += 1
            if self._tries < self.retries:
                self._tries += 1  # the same player is asked again
                self.state.add_observation(to_id=pid, message=str(error), observation_type=ta.ObservationType.GAME_ADMIN)
                return self._result()
            option = self.decision.options[int(self._rng.integers(len(self.decision.options)))]
            info["fallbacks"] += 1
            info["invalid_move"] = True
            self.state.add_observation(
                to_id=pid, observation_type=ta.ObservationType.GAME_ADMIN,
                message=f"{error.reason} No valid reply after {self.retries + 1} tries: a random legal action was "
                        f"played for you: {option.number}. {option.text}")
            index = option.action
        self.state.turn += 1
        info["turn_count"] += 1
        self.env.step(int(index))
        self._next_decision()
        return self._result()

    def close(self) -> tuple[dict | None, dict]:
        """TextArena's ``(rewards, game_info)`` (see the module doc); rewards ``None`` for an unfinished game."""
        return self.state.close()

    def _result(self) -> tuple[bool, dict]:
        info, self.state.step_info = self.state.step_info, {}
        return self.state.done, info

    # ------------------------------------------------------------------ the AEC game behind
    def _next_decision(self) -> None:
        """Skip the finished seats' dead steps; then ask the next seat (its prompt as its observation), or end."""
        env = self.env
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            pid = env.possible_agents.index(agent)
            observation = env.observe(agent)
            self.decision = self.views[pid].decide(observation["observation"], observation["action_mask"])
            self._tries = 0
            self.state.manually_set_current_player_id(pid, force=True)
            self.state.add_observation(to_id=pid, message=self.decision.prompt,
                                       observation_type=ta.ObservationType.GAME_BOARD)
            return
        self._finish()

    def _finish(self) -> None:
        game, state = self.game, self.env.unwrapped.game
        n = state.num_players
        reason = str(game.end_condition(state))
        rewards = {pid: 1 if game.seat_won(state, pid) else -1 for pid in range(n)}
        for pid in range(n):
            self.state.game_info[pid]["role"] = game.type.side_labels[game.side_of_seat(state, pid)]
        winners = [pid for pid in range(n) if rewards[pid] > 0]
        self.state.set_game_outcome(rewards, f"{reason}; winners: " + (", ".join(f"Player {p}" for p in winners)
                                                                          or "none"))
        self.state.add_observation(message=f"The game is over: {reason}.", observation_type=ta.ObservationType.GAME_ADMIN)
        self.decision = None


def _reply_text(action: str) -> str:
    """The reply inside the last ``[...]`` of ``action`` (TextArena's bracket convention), else all of it."""
    text = str(action)
    if text.lstrip().startswith("[{") or text.lstrip().startswith("{"):  # tool-call JSON, bracketed or not
        return text.strip().removeprefix("[").removesuffix("]")
    inner = re.findall(r"\[([^\[\]]*)\]", text)
    return inner[-1] if inner else text


def register_all() -> list[str]:
    """Register every registered game not yet in TextArena's registry (``<id>`` with TextArena's wrappers,
    ``<id>-raw`` without); returns the ids registered now (a broken game plug-in is left out, with a warning)."""
    added = []
    for game in loadable_games():
        name, env_id = game.name, textarena_id(game)
        for suffix, wrappers in (("", WRAPPERS), ("-raw", None)):
            if f"{env_id}{suffix}" in ta.envs.registration.ENV_REGISTRY:
                continue
            ta.register(id=f"{env_id}{suffix}", entry_point=functools.partial(TextArenaGame, name),
                        default_wrappers=wrappers)
            added.append(f"{env_id}{suffix}")
    return added


register_all()
