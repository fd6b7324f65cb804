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
| Observation values | see the layout table (`traitors_env.games.traitors_aboard.observation.layout_table()`) |

A hidden-role bluffing card game for 3–8 players. Pirates fill a shared chest to the
target value; secret Mutineers sabotage it, lying about the loot they put in.

**Observation.** A dict with ``"observation"``, a ``float32`` vector of fixed length
1228 for every table size (seats relative to the observer, padded to 8), and
``"action_mask"``, an ``int8`` vector over the 196 actions (all zeros for an agent
that is not asked to act). The layout table is in docs/games/traitors_aboard.md and in
``traitors_env.games.traitors_aboard.observation.layout_table()``; it is derived from public information and
the observer's own knowledge only.

**Actions.** One ``Discrete(196)`` covers every decision of a turn: open the chest,
loot with its announced value, action cards with relative targets, the Spyglass order,
the two Miraculous Catch returns and the claim (R14–R16). The table is in
:mod:`traitors_env.games.traitors_aboard.actions`; ``env.unwrapped.action_to_string(a)`` describes an action
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

from pettingzoo import AECEnv

from ...core.aec import RENDER_MODES, CardGameAECEnv, check_flag, wrap
from . import actions as A
from .engine import GameConfig, GameState, IllegalActionError
from .observation import _LAYOUT, encode
from .render import render_text
from .small import SmallVariant, deal, variant

__all__ = ["RENDER_MODES", "env", "raw_env"]


def env(**kwargs) -> AECEnv:
    """The environment with PettingZoo's classic wrappers.

    Illegal moves end the game with reward −1 for the offender
    (``TerminateIllegalWrapper``); out-of-range actions raise (the game's ``IllegalActionError``, naming the value and the legal set);
    calls out of order raise (``OrderEnforcingWrapper``). Keyword arguments as :class:`raw_env`.
    """
    return wrap(raw_env(**kwargs), IllegalActionError)


class raw_env(CardGameAECEnv):
    """PettingZoo AEC environment of *Traitors Aboard* over :class:`traitors_env.games.traitors_aboard.engine.GameState`.

    Args:
        num_players: 3–8 (default 5).
        claims: the structured claim step after each turn (R14; default ``True``).
        render_mode: ``None``, ``"ansi"`` (``render()`` returns the text) or ``"human"`` (prints it).
        render_hidden: also render hidden state (roles, hands, chest values); debugging only.
        first_player: ``None`` (drawn from the seed, R01) or a fixed seat.
        small_variant: ``None``, or the name of a small variant (:mod:`.small`: ``"micro3"``, ``"mini3"``,
            ``"mini3_long"``): each game is dealt from that variant's position (rulings S01–S03), at its table size
            and first seat; the game the exact solver walks (:mod:`traitors_env.solve`). Declared as the game's
            variants, so ``--game traitors_aboard:mini3`` plays it in every tool.

    Raises:
        ValueError: for a ``num_players`` outside 3–8, an unknown ``render_mode``, a bad
            ``first_player``; :class:`traitors_env.games.traitors_aboard.engine.IllegalActionError` (a ``ValueError``)
            from :meth:`step` for an action that is not legal.
    """

    metadata = {"render_modes": list(RENDER_MODES), "name": "traitors_aboard_v0", "is_parallelizable": False}
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
        first_player: int | None = None,
        small_variant: str | None = None,
    ) -> None:
        check_flag("claims", claims)
        self.config = GameConfig(num_players=num_players, claims=bool(claims), first_player=first_player)
        self.small_variant = None if small_variant is None else _small(small_variant, num_players, first_player)
        super().__init__(self.config.num_players, render_mode, render_hidden)

    def _new_game(self, seed: int) -> GameState:
        if self.small_variant is not None:
            return deal(self.small_variant, seed, claims=self.config.claims)
        return GameState.new(self.config, seed=seed)

    def _check_position(self, state: GameState) -> None:
        if state.num_players != self.config.num_players or state.config.claims != self.config.claims:
            raise ValueError(
                f"position has {state.num_players} players, claims={state.config.claims}; this env has "
                f"{self.config.num_players} players, claims={self.config.claims}"
            )

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

    def record(self, seats: list[str] | None = None):
        """The current game as a :class:`traitors_env.games.traitors_aboard.records.GameRecord` (finished or not).

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
        if self.small_variant is not None:
            raise RecordError(f"a game of the small variant {self.small_variant.name!r} cannot be recorded (a record "
                              "replays the full game's deal from its seed); record games of the full game")
        return record_game(self.game, self.episode_seed, seats=seats)


def _small(name: object, num_players: object, first_player: object) -> SmallVariant:
    """The small variant ``name``, checked against the env's other arguments (each error names the value)."""
    if not isinstance(name, str):
        raise ValueError(f"small_variant={name!r}; expected None or a variant name")
    v = variant(name)
    if num_players != v.num_players:
        raise ValueError(f"small_variant {name!r} is played by {v.num_players} players; got num_players={num_players!r}")
    if first_player is not None and first_player != v.first_player:
        raise ValueError(f"small_variant {name!r} starts with seat {v.first_player}; got first_player={first_player!r}")
    return v
