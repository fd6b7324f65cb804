"""Avalon's game records: one finished (or unfinished) game as JSON, and its step-by-step replay (``GAME.records``).

The generic part (reading, writing, the checked replay) is :mod:`traitors_env.core.records`; this module declares
Avalon's options and result. A record holds the seed, the table size and options, every decision in order (agent, action index, its meaning in
words, and a fingerprint of the whole state after it) and, once the game is over, the result with every role
revealed. The engine is deterministic given its seed (A18, :class:`~traitors_env.games.avalon.engine.GameState`):
the seed and the actions are the game, and :func:`replay` rebuilds it bit for bit, checking every step.

Format (``"version": 1``), as written by :meth:`GameRecord.to_json`::

    {
      "format": "avalon-record",
      "version": 1,
      "engine": "traitors-aboard-rl 0.1.0",      # the package that wrote it (information only)
      "seed": 42,                                # GameState.new(config, seed=42) deals the game (A04)
      "num_players": 5,
      "options": {"claims": false, "merlin": true, "percival": false, "morgana": false, "mordred": false,
                  "oberon": false, "first_leader": null},
      "seats": ["heuristic", "random", ...],     # who played each seat (information only; may be null)
      "start": "3f2a…",                          # fingerprint of the dealt state
      "decisions": [
        {"step": 1, "agent": "player_2", "action": 1, "meaning": "pick player_3 for the team", "check": "9bf3…"},
        ...
      ],
      "result": {"outcome": "merlin_survived", "winning_side": "good", "winners": [0, 1, 2], "roles": [...],
                 ...}                             # GameState.result(); null while unfinished
    }

``step`` counts decisions from 1; ``check`` is :meth:`GameState.fingerprint` after the decision. A record reveals
everything (votes and quest cards through the actions, roles in the result): it is for after the game.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel, Field, field_validator

from ...core import records as _records
from ...core.records import STRICT, VERSION, Decision, RecordError
from .actions import NUM_ACTIONS
from .engine import OUTCOMES, AvalonConfig, GameState
from .roles import MAX_PLAYERS, MAX_PROPOSALS, MIN_PLAYERS

__all__ = ["FORMAT", "VERSION", "Decision", "GameRecord", "RecordError", "RecordOptions", "load_record",
           "record_game", "replay", "replay_steps"]

FORMAT = "avalon-record"


class RecordOptions(_records.RecordOptions):
    """The game options of a record (:class:`~traitors_env.games.avalon.engine.AvalonConfig` minus the table size)."""

    claims: bool
    merlin: bool
    percival: bool
    morgana: bool
    mordred: bool
    oberon: bool
    first_leader: int | None


class _Quest(BaseModel):
    model_config = STRICT
    team: list[int]
    fails: int
    success: bool


class _Result(BaseModel):
    """The shape of :meth:`GameState.result` (checked on load; the record keeps the plain dict)."""

    model_config = STRICT
    outcome: str
    winning_side: str
    winners: list[int]
    roles: list[str]
    sides: list[int]
    merlin: int | None
    assassin: int | None
    assassin_target: int | None
    quests: list[_Quest]
    played_cards: list[list[int]]
    proposals: int
    rewards: list[float]

    @field_validator("outcome")
    @classmethod
    def _known_outcome(cls, value: str) -> str:
        if value not in OUTCOMES:
            raise ValueError(f"outcome {value!r} is not one of {sorted(OUTCOMES)}")
        return value


class GameRecord(_records.GameRecord):
    """An Avalon game record (format version 1); see the module docstring for the JSON layout."""

    state_class: ClassVar[type] = GameState
    result_shape: ClassVar[type[BaseModel]] = _Result
    num_actions: ClassVar[int] = NUM_ACTIONS

    format: str = FORMAT
    num_players: int = Field(ge=MIN_PLAYERS, le=MAX_PLAYERS)
    options: RecordOptions

    def config(self) -> AvalonConfig:
        """The :class:`AvalonConfig` of the recorded game.

        Raises:
            RecordError: for a table size or option the engine rejects (A01, A02).
        """
        try:
            return AvalonConfig(num_players=self.num_players, **self.options.model_dump())
        except ValueError as error:
            raise RecordError(f"the record's options do not fit the engine: {error}") from None


def record_game(state: GameState, seed: int, seats: list[str] | None = None) -> GameRecord:
    """The record of ``state``'s game, dealt by ``GameState.new(state.config, seed=seed)`` (A04, A18).

    Raises:
        RecordError: if ``state`` is not the game of ``seed`` with its history, or ``seats`` does not name every
            seat.
    """
    if state.config.quest_track is not None or state.config.max_proposals != MAX_PROPOSALS:
        # a record's options are the rulings' (format 1); a small variant's track or limit (S04) would replay wrong
        raise RecordError(f"a game with quest_track={state.config.quest_track!r}, max_proposals="
                          f"{state.config.max_proposals!r} cannot be recorded; record games of the full game")
    options = RecordOptions(**{name: getattr(state.config, name) for name in RecordOptions.model_fields})
    return _records.record_game(GameRecord, state, seed, options, seats)


def load_record(source: str | Path | dict) -> GameRecord:
    """Read and validate a record: a path to a JSON file, JSON text, or an already parsed dict.

    Raises:
        RecordError: for a missing or unreadable file, text that is not JSON, another format or version, a missing
            field or one of the wrong type (the message names the field).
    """
    return _records.load_record(GameRecord, source)


def replay_steps(record: GameRecord) -> Iterator[tuple[Decision | None, GameState]]:
    """Replay ``record`` step by step, checking each step against it (A18; :func:`traitors_env.core.records.replay_steps`).

    Raises:
        RecordError: naming the first step that does not fit.
    """
    return _records.replay_steps(record)


def replay(record: GameRecord) -> GameState:
    """The final state of ``record``'s game, every step checked (A18).

    Raises:
        RecordError: naming the first step that does not fit.
    """
    return _records.replay(record)
