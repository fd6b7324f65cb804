"""# The Resistance: Avalon

| Import | `from traitors_env import avalon_v0` |
|---|---|
| Actions | Discrete |
| Parallel API | No |
| Manual control | No |
| Agents | `agents = ['player_0', …, 'player_{n-1}']`, n = 5–10 |
| Agents count | 5–10 (default 5) |
| Action shape | Discrete(45) |
| Action values | 0–44 |
| Observation shape | `{"observation": (2398,) float32, "action_mask": (45,) int8}` |
| Observation values | see the layout table (`traitors_env.games.avalon.observation.layout_table()`) |

*The Resistance: Avalon* for 5–10 players (rulings A01–A18, ``docs/rules/avalon-RULINGS.md``): Good against a
hidden Evil minority; five quests, each a proposal by the leader, a vote, and the team's secret Success/Fail cards;
three failures or five rejections in a row win for Evil, three successes for Good unless the Assassin then names
Merlin. The default is DeepRole's 5-player variant: Merlin, two Servants, the Assassin, a Minion, no talk.

**Observation.** ``"observation"``: a ``float32`` vector of fixed length 2398 for every table size (seats relative
to the observer, padded to 10): the whole public record plus the observer's own role and A03 knowledge;
``"action_mask"``: ``int8`` over the 45 actions (all zeros for an agent not asked to act). Votes appear once every
vote is cast (A07); of a quest's cards only the number of Fails (A11).

**Actions.** One ``Discrete(45)`` (:mod:`traitors_env.games.avalon.actions`), seats as offsets from the actor.

**Rewards.** At the end only (A15): +1 to every seat of the winning side, −1 to the others (zero-sum teams).

**Episode end.** Every agent's ``info`` holds its result: ``won``, ``reward``, ``role`` (its own role's name),
``side`` (0 Good, 1 Evil), ``outcome`` (``"three_fails"``, ``"five_rejections"``, ``"merlin_assassinated"``,
``"merlin_survived"``, ``"three_successes"``), ``winning_side`` (0/1), ``successes``, ``failures``, ``proposals``,
``sides`` and ``roles`` (10,) (absolute seats, padded with −1), ``num_players``. The full result is
``env.unwrapped.result``.
"""

from __future__ import annotations

import numpy as np
from pettingzoo import AECEnv

from ...core.aec import RENDER_MODES, CardGameAECEnv, wrap
from . import actions as A
from .engine import AvalonConfig, GameState, IllegalActionError
from .observation import _LAYOUT, encode
from .render import render_text
from .roles import MAX_PLAYERS, ROLE_NAMES

__all__ = ["RENDER_MODES", "env", "final_info", "raw_env"]


def env(**kwargs) -> AECEnv:
    """The environment with PettingZoo's classic wrappers (illegal moves end the game with −1 for the offender;
    an action that is no index raises :class:`IllegalActionError`; calls out of order raise). Keyword arguments as
    :class:`raw_env`."""
    return wrap(raw_env(**kwargs), IllegalActionError)


def final_info(game: GameState, seat: int) -> dict:
    """The end-of-game ``info`` of ``seat``: scalars and fixed-shape arrays (absolute seats, padded with −1); a new
    object per call."""
    n = game.num_players

    def padded(values) -> np.ndarray:
        array = np.full(MAX_PLAYERS, -1, dtype=np.int64)
        array[:n] = values
        return array

    return {
        "won": bool(game.winners[seat]),
        "reward": float(game.returns()[seat]),
        "role": ROLE_NAMES[game.roles[seat]],
        "side": int(game.side_of(seat)),
        "outcome": game.outcome,
        "winning_side": int(game.winning_side),
        "successes": game.successes,
        "failures": game.failures,
        "proposals": len(game.proposals),
        "sides": padded(game.sides),
        "roles": padded([int(r) for r in game.roles]),
        "num_players": n,
    }


class raw_env(CardGameAECEnv):
    """PettingZoo AEC environment of *Avalon* over :class:`traitors_env.games.avalon.engine.GameState`.

    Args:
        num_players: 5–10 (default 5, A01).
        claims: the structured claim round after each proposal (A16; default ``False``).
        render_mode: ``None``, ``"ansi"`` (``render()`` returns the text) or ``"human"`` (prints it).
        render_hidden: also render hidden state (roles, pending votes, who played Fails); debugging only.
        merlin: Merlin and the Assassin (default ``True``); percival, morgana, mordred, oberon: the optional roles
            (default ``False``, A02). first_leader: a fixed first leader's seat (default drawn, A04).

    Raises:
        ValueError: for a ``num_players`` outside 5–10, a role set the table cannot hold (A02), an unknown
            ``render_mode`` or option; :class:`IllegalActionError` (a ``ValueError``) from :meth:`step`.
    """

    metadata = {"render_modes": list(RENDER_MODES), "name": "avalon_v0", "is_parallelizable": False}
    layout = _LAYOUT
    num_actions = A.NUM_ACTIONS
    _encode = staticmethod(encode)
    _render_text = staticmethod(render_text)

    def __init__(self, num_players: int = 5, claims: bool = False, render_mode: str | None = None,
                 render_hidden: bool = False, **options) -> None:
        known = set(AvalonConfig.__dataclass_fields__) - {"num_players", "claims"}
        unknown = sorted(set(options) - known)
        if unknown:
            raise ValueError(f"unknown option(s) {unknown}; expected keyword arguments among {sorted(known)}")
        self.config = AvalonConfig(num_players=num_players, claims=claims, **options)
        super().__init__(self.config.num_players, render_mode, render_hidden)

    def _new_game(self, seed: int) -> GameState:
        return GameState.new(self.config, seed=seed)

    def _check_position(self, state: GameState) -> None:
        if state.config != self.config:
            raise ValueError(f"position has options {state.config}; this env has {self.config}")

    def _finish(self) -> None:
        """A15: every agent gets its side's reward and its result ``info``; all are terminated."""
        game = self.game
        returns = game.returns()
        for i, name in enumerate(self.agents):
            self.rewards[name] = returns[i]
            self.terminations[name] = True
            self.infos[name] = final_info(game, i)
        self._accumulate_rewards()
