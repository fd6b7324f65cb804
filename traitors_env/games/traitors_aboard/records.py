"""Game records: one finished (or unfinished) game as JSON, and its step-by-step replay.

The generic part (reading, writing, the checked replay) is :mod:`traitors_env.core.records`; this module declares
Traitors Aboard's options and result. A record holds the seed, the table size and options, every decision in order (agent, action
index, its meaning in words, and a fingerprint of the whole state after it) and, once the game
is over, the result with the chest revealed. Because the engine is deterministic given its seed
(:class:`~traitors_env.games.traitors_aboard.engine.GameState`), the seed and the actions are the game: :func:`replay`
rebuilds it bit for bit and checks every step against the record.

Format (``"version": 1``), as written by :meth:`GameRecord.to_json`::

    {
      "format": "traitors-aboard-record",
      "version": 1,
      "engine": "traitors-aboard-rl 0.1.0",      # the package that wrote it (information only)
      "seed": 42,                                # GameState.new(config, seed=42) deals the game
      "num_players": 5,
      "options": {"claims": true, "first_player": null},
      "seats": ["human", "heuristic", ...],      # who played each seat (information only; may be null)
      "start": "3f2a…",                          # fingerprint of the dealt state
      "decisions": [
        {"step": 1, "agent": "player_2", "action": 5,
         "meaning": "place loot 0 announced as 0", "check": "9bf3…"},
        ...
      ],
      "result": {"winner": "Pirate", "end_condition": "chest_opened", "roles": [...],
                 "chest_value": 11, "target": 11, "chest": [{"value": 1, "announced": 1, "placer": 2}, ...],
                 "turns": 17}                     # GameState.result(); null while unfinished
    }

``step`` counts decisions from 1; ``check`` is :meth:`GameState.fingerprint` after the decision.
A record reveals everything (hands through the loot actions, roles in the result): it is for
after the game.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel, Field

from ...core import records as _records
from ...core.records import STRICT, VERSION, Decision, RecordError
from .actions import NUM_ACTIONS
from .cards import MAX_PLAYERS, MIN_PLAYERS
from .engine import GameConfig, GameState

__all__ = ["FORMAT", "VERSION", "Decision", "GameRecord", "RecordError", "RecordOptions", "load_record",
           "record_game", "replay", "replay_steps"]

FORMAT = "traitors-aboard-record"


class RecordOptions(_records.RecordOptions):
    """The game options of a record (:class:`~traitors_env.games.traitors_aboard.engine.GameConfig` minus the table size)."""

    claims: bool
    first_player: int | None


class _ChestCard(BaseModel):
    model_config = STRICT
    value: int
    announced: int
    placer: int


class _Result(BaseModel):
    """The shape of :meth:`GameState.result` (checked on load; the record keeps the plain dict)."""

    model_config = STRICT
    winner: str
    end_condition: str
    roles: list[str]
    chest_value: int
    target: int
    chest: list[_ChestCard]
    turns: int


class GameRecord(_records.GameRecord):
    """A Traitors Aboard game record (format version 1); see the module docstring for the JSON layout."""

    state_class: ClassVar[type] = GameState
    result_shape: ClassVar[type[BaseModel]] = _Result
    num_actions: ClassVar[int] = NUM_ACTIONS

    format: str = FORMAT
    num_players: int = Field(ge=MIN_PLAYERS, le=MAX_PLAYERS)
    options: RecordOptions

    def config(self) -> GameConfig:
        """The :class:`GameConfig` of the recorded game.

        Raises:
            RecordError: for a table size or option the engine rejects.
        """
        try:
            return GameConfig(
                num_players=self.num_players, claims=self.options.claims, first_player=self.options.first_player
            )
        except ValueError as error:
            raise RecordError(f"the record's options do not fit the engine: {error}") from None


def record_game(state: GameState, seed: int, seats: list[str] | None = None) -> GameRecord:
    """The record of ``state``'s game, dealt by ``GameState.new(state.config, seed=seed)``.

    Raises:
        RecordError: if ``state`` is not the game of ``seed`` with its history, or ``seats`` does not name every
            seat.
    """
    options = RecordOptions(claims=state.config.claims, first_player=state.config.first_player)
    return _records.record_game(GameRecord, state, seed, options, seats)


def load_record(source: str | Path | dict) -> GameRecord:
    """Read and validate a record: a path to a JSON file, JSON text, or an already parsed dict.

    Raises:
        RecordError: for a missing or unreadable file, text that is not JSON, another format or version, a missing
            field or one of the wrong type (the message names the field).
    """
    return _records.load_record(GameRecord, source)


def replay_steps(record: GameRecord) -> Iterator[tuple[Decision | None, GameState]]:
    """Replay ``record`` step by step, checking each step against it (:func:`traitors_env.core.records.replay_steps`).

    Raises:
        RecordError: naming the first step that does not fit.
    """
    return _records.replay_steps(record)


def replay(record: GameRecord) -> GameState:
    """The final state of ``record``'s game, every step checked.

    Raises:
        RecordError: naming the first step that does not fit.
    """
    return _records.replay(record)
