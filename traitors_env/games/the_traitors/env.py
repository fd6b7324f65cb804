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
| Observation values | see the layout table (`traitors_env.games.the_traitors.observation.layout_table()`) |

The Traitors board game (2nd edition) for 3–6 players: one hidden Traitor among Faithful, four
rounds of Mission → Round Table (claims, a secret vote) → Armoury → Night (a murder), then the
End Game scoring and a two-player Final, a prisoner's dilemma. Players score individually: a
mixed-motive hidden-role game. Rulings T01–T16: ``docs/rules/the-traitors-RULINGS.md``.

**Observation.** A dict with ``"observation"``, a ``float32`` vector of fixed length 791 for
every table size (seats relative to the observer, padded to 6), and ``"action_mask"``, an
``int8`` vector over the 36 actions (all zeros for an agent that is not asked to act). It holds
public information and the observer's own knowledge only; votes and Final choices appear only
once all of them are made (T09, T15).

**Actions.** One ``Discrete(36)`` covers every decision (:mod:`traitors_env.games.the_traitors.actions`).
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

import numpy as np
from pettingzoo import AECEnv

from ...core.aec import RENDER_MODES, CardGameAECEnv, wrap
from . import actions as A
from .cards import MAX_PLAYERS, ROLE_NAMES, FinalOutcome
from .engine import GameConfig, GameState, IllegalActionError
from .observation import _LAYOUT, encode
from .render import render_text

__all__ = ["RENDER_MODES", "env", "final_info", "raw_env"]


def env(**kwargs) -> AECEnv:
    """The environment with PettingZoo's classic wrappers.

    Illegal moves end the game with reward −1 for the offender (``TerminateIllegalWrapper``);
    out-of-range actions raise (the game's ``IllegalActionError``, naming the value and the legal set); calls out of order raise
    (``OrderEnforcingWrapper``). Keyword arguments as :class:`raw_env`.
    """
    return wrap(raw_env(**kwargs), IllegalActionError)


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
        "role": ROLE_NAMES[game.roles[seat]],  # the role's name, as traitors_aboard_v0 gives it
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


class raw_env(CardGameAECEnv):
    """PettingZoo AEC environment of *The Traitors* over :class:`traitors_env.games.the_traitors.engine.GameState`.

    Args:
        num_players: 3–6 (default 5, T01).
        claims: the claim step before each vote (T08; default ``True``).
        render_mode: ``None``, ``"ansi"`` (``render()`` returns the text) or ``"human"`` (prints it).
        render_hidden: also render hidden state (roles, cards in hand, the assignment); debugging only.
        **options: further :class:`~traitors_env.games.the_traitors.engine.GameConfig` options
            (``mission_gold``, ``assignment_success``, ``signal_faithful``, ``signal_traitor_idle``,
            ``signal_traitor_attempt``, ``armoury``, ``reward``).

    Raises:
        ValueError: for a ``num_players`` outside 3–6, an unknown ``render_mode`` or option, a bad
            option value; :class:`~traitors_env.games.the_traitors.engine.IllegalActionError` (a ``ValueError``)
            from :meth:`step` for an action that is not legal.
    """

    metadata = {"render_modes": list(RENDER_MODES), "name": "the_traitors_v0", "is_parallelizable": False}
    layout = _LAYOUT
    num_actions = A.NUM_ACTIONS
    _encode = staticmethod(encode)
    _render_text = staticmethod(render_text)

    def __init__(
        self,
        num_players: int = 5,
        claims: bool = True,
        render_mode: str | None = None,
        render_hidden: bool = False,
        **options,
    ) -> None:
        known = set(GameConfig.__dataclass_fields__) - {"num_players", "claims"}
        unknown = sorted(set(options) - known)
        if unknown:
            raise ValueError(f"unknown option(s) {unknown}; expected keyword arguments among {sorted(known)}")
        self.config = GameConfig(num_players=num_players, claims=claims, **options)
        super().__init__(self.config.num_players, render_mode, render_hidden)

    def _new_game(self, seed: int) -> GameState:
        return GameState.new(self.config, seed=seed)

    def _check_position(self, state: GameState) -> None:
        if state.config != self.config:
            raise ValueError(f"position has options {state.config}; this env has {self.config}")

    def _finish(self) -> None:
        """T16: every agent gets its own reward and its own result ``info``; all are terminated."""
        game = self.game
        returns = game.returns()
        for i, name in enumerate(self.agents):
            self.rewards[name] = returns[i]
            self.terminations[name] = True
            self.infos[name] = final_info(game, i)
        self._accumulate_rewards()
