"""Avalon's game records: one finished (or unfinished) game as JSON, and its step-by-step replay (``GAME.records``).

A record holds the seed, the table size and options, every decision in order (agent, action index, its meaning in
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

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, field_validator, model_validator

from ...files import atomic_write_text
from .actions import NUM_ACTIONS
from .engine import OUTCOMES, AvalonConfig, GameState, IllegalActionError
from .roles import MAX_PLAYERS, MIN_PLAYERS

__all__ = ["FORMAT", "VERSION", "Decision", "GameRecord", "RecordError", "RecordOptions", "load_record",
           "record_game", "replay", "replay_steps"]

FORMAT = "avalon-record"
VERSION = 1


class RecordError(ValueError):
    """A record that cannot be read or does not replay; the message names the step and the reason."""


# Strict: a record is written by this module, so a value of another JSON type ("62", 62.0, true for
# 1) is an edit, refused rather than converted.
_STRICT = ConfigDict(extra="forbid", strict=True)


class RecordOptions(BaseModel):
    """The game options of a record (:class:`~traitors_env.games.avalon.engine.AvalonConfig` minus the table size)."""

    model_config = _STRICT
    claims: bool
    merlin: bool
    percival: bool
    morgana: bool
    mordred: bool
    oberon: bool
    first_leader: int | None


class Decision(BaseModel):
    """One decision: who took it, the action index, its meaning and the state's fingerprint after it."""

    model_config = _STRICT
    step: int = Field(ge=1)
    agent: str
    action: int
    meaning: str
    check: str


class _Quest(BaseModel):
    model_config = _STRICT
    team: list[int]
    fails: int
    success: bool


class _Result(BaseModel):
    """The shape of :meth:`GameState.result` (checked on load; the record keeps the plain dict)."""

    model_config = _STRICT
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


# Labels are shown on a terminal by traitors-replay: no control characters (escape sequences).
_Label = Annotated[str, StringConstraints(max_length=200, pattern=r"^[^\x00-\x1f\x7f-\x9f]*$")]


class GameRecord(BaseModel):
    """A game record (format version 1); see the module docstring for the JSON layout."""

    model_config = _STRICT
    format: str = FORMAT
    version: int = VERSION
    engine: _Label | None = None
    seed: int = Field(ge=0)
    num_players: int = Field(ge=MIN_PLAYERS, le=MAX_PLAYERS)
    options: RecordOptions
    seats: list[_Label] | None
    start: str
    decisions: list[Decision]
    result: dict | None

    @field_validator("result")
    @classmethod
    def _result_has_its_shape(cls, value: dict | None) -> dict | None:
        if value is not None:
            try:
                _Result.model_validate(value)
            except ValidationError as error:
                first = error.errors()[0]
                raise ValueError(f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}") from None
        return value

    @model_validator(mode="after")
    def _seats_name_every_seat(self) -> GameRecord:
        if self.seats is not None and len(self.seats) != self.num_players:
            raise ValueError(f"seats names {len(self.seats)} seats; the record's table has {self.num_players}")
        return self

    @property
    def finished(self) -> bool:
        """Whether the record holds a result (the game was played to its end)."""
        return self.result is not None

    def config(self) -> AvalonConfig:
        """The :class:`AvalonConfig` of the recorded game.

        Raises:
            RecordError: for a table size or option the engine rejects (A01, A02).
        """
        try:
            return AvalonConfig(num_players=self.num_players, **self.options.model_dump())
        except ValueError as error:
            raise RecordError(f"the record's options do not fit the engine: {error}") from None

    def to_json(self) -> str:
        """The record as indented JSON text."""
        return self.model_dump_json(indent=1)

    def save(self, path: str | Path) -> Path:
        """Write the record to ``path`` (parent folders made; an existing file is replaced whole)."""
        path = Path(path)
        atomic_write_text(path, self.to_json() + "\n")
        return path


def _engine_label() -> str:
    from ... import __version__

    return f"traitors-aboard-rl {__version__}"


def record_game(state: GameState, seed: int, seats: list[str] | None = None) -> GameRecord:
    """The record of ``state``'s game, dealt by ``GameState.new(state.config, seed=seed)`` (A04, A18).

    The decisions are ``state.history``; the game is replayed from the seed to take the
    fingerprints, so a state that did not come from that seed is refused.

    Raises:
        RecordError: if ``state`` is not the game of ``seed`` with its history, or ``seats``
            does not name every seat.
    """
    if seats is not None and len(seats) != state.num_players:
        raise RecordError(f"seats names {len(seats)} seats; the game has {state.num_players}")
    game = GameState.new(state.config, seed=seed)
    start = game.fingerprint()
    decisions = []
    for step, (seat, action) in enumerate(state.history, start=1):
        if seat != game.current_player:
            raise RecordError(f"step {step}: the history has player_{seat} acting, but seed {seed} asks player_{game.current_player}")
        meaning = game.action_to_string(action)
        try:
            game.apply_action(action)
        except IllegalActionError as error:
            raise RecordError(f"step {step}: the history does not replay from seed {seed}: {error}") from None
        decisions.append(Decision(step=step, agent=f"player_{seat}", action=action, meaning=meaning, check=game.fingerprint()))
    if game.fingerprint() != state.fingerprint():
        raise RecordError(f"the state is not the game of seed {seed} (its deal or hidden state differ)")
    return GameRecord(
        engine=_engine_label(),
        seed=seed,
        num_players=state.num_players,
        options=RecordOptions(**{name: getattr(state.config, name) for name in RecordOptions.model_fields}),
        seats=list(seats) if seats is not None else None,
        start=start,
        decisions=decisions,
        result=state.result() if state.is_terminal else None,
    )


def load_record(source: str | Path | dict) -> GameRecord:
    """Read and validate a record: a path to a JSON file, JSON text, or an already parsed dict.

    Raises:
        RecordError: for a missing or unreadable file, text that is not JSON, another format or
            version, a missing field or one of the wrong type (the message names the field).
    """
    if isinstance(source, dict):
        data = source
    elif isinstance(source, (str, Path)):
        data = _parse(_read_text(source))
    else:
        raise RecordError(f"a record source is a path, JSON text or a dict; got {type(source).__name__}")
    if not isinstance(data, dict):
        raise RecordError(f"the record is a JSON {type(data).__name__}; expected an object")
    if data.get("format") != FORMAT:
        raise RecordError(f"format={data.get('format')!r}; expected {FORMAT!r} (is this a game record?)")
    version = data.get("version")
    if type(version) is not int or version != VERSION:
        raise RecordError(f"record version {version!r} is not supported; this engine reads version {VERSION}")
    try:
        return GameRecord.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'record'}: {e['msg']}" for e in error.errors()[:5]
        )
        raise RecordError(f"the record has malformed fields: {problems}") from None


def _read_text(source: str | Path) -> str:
    """The text of a record file, or ``source`` itself when it is JSON text rather than a path."""
    text = str(source)
    if not text.strip():
        raise RecordError("no record given: expected a record file path")
    try:
        path = Path(source)
        exists = path.exists()  # also pipes such as /dev/stdin or <(cat game.json)
        if path.is_dir():
            raise RecordError(f"{text!r} is a folder; expected a record file")
    except OSError:  # e.g. a name too long to be a path: then it can only be JSON text
        exists = False
    if not exists:
        if isinstance(source, str) and source.lstrip().startswith("{"):
            return source
        raise RecordError(f"record file {text!r} does not exist")
    try:
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise RecordError(f"record file {text!r} is not UTF-8 text ({error.reason} at byte {error.start})") from None
    except OSError as error:
        raise RecordError(f"record file {text!r} cannot be read: {error.strerror or error}") from None


def _parse(text: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError(f"the record is not valid JSON: {error}") from None
    except RecursionError:
        raise RecordError("the record is not a game record: its JSON is nested too deeply") from None


def replay_steps(record: GameRecord) -> Iterator[tuple[Decision | None, GameState]]:
    """Replay ``record`` step by step, checking each step against it.

    Yields ``(None, dealt state)`` first, then ``(decision, state after it)`` for every
    decision. The same :class:`GameState` object moves on between yields: copy it
    (``copy.deepcopy``) to keep one.

    Raises:
        RecordError: naming the first step that does not fit: a deal that differs from the
            record's (another engine version or seed), a step number out of order, the wrong
            agent, an illegal action, another meaning, a state that departs from the recorded
            fingerprint, decisions after the game ended, a missing end, or another result.
    """
    config = record.config()
    game = GameState.new(config, seed=record.seed)
    if game.fingerprint() != record.start:
        raise RecordError(
            f"step 0 (the deal): seed {record.seed} deals a different game than the record's "
            "(a record from another engine version, or an edited seed or options)"
        )
    yield None, game
    for index, decision in enumerate(record.decisions):
        step = index + 1
        where = f"step {step} ({decision.agent}, action {decision.action})"
        if decision.step != step:
            raise RecordError(f"{where}: numbered {decision.step}; expected {step} (a decision missing or out of order)")
        if game.is_terminal:
            raise RecordError(f"{where}: the game already ended after step {index}; the record goes on")
        expected_agent = f"player_{game.current_player}"
        if decision.agent != expected_agent:
            raise RecordError(f"{where}: the game asks {expected_agent} to act here, not {decision.agent}")
        if decision.action not in game.legal_actions():
            phase = game.phase.name.lower().replace("_", " ")
            raise RecordError(f"{where}: {_action_text(decision.action, game)} is not legal here ({expected_agent}, phase {phase})")
        meaning = game.action_to_string(decision.action)
        game.apply_action(decision.action)
        if meaning != decision.meaning:
            raise RecordError(f"{where}: the record says {decision.meaning!r}; this engine reads the action as {meaning!r}")
        if game.fingerprint() != decision.check:
            raise RecordError(f"{where}: the game departs from the recorded one here (its state fingerprint differs)")
        yield decision, game
    if record.result is not None:
        if not game.is_terminal:
            raise RecordError(
                f"step {len(record.decisions) + 1}: the record ends with a result, but the game goes on here "
                "(decisions are missing: a truncated record?)"
            )
        differences = _differences(record.result, game.result())
        if differences:
            raise RecordError(f"the result differs from the replay's: {'; '.join(differences)}")
    elif game.is_terminal:
        raise RecordError(f"step {len(record.decisions)}: the game ended here, but the record has no result")


def _action_text(action: int, game: GameState) -> str:
    try:
        return f"action {action} ({game.action_to_string(action)})"
    except ValueError:
        return f"action {action} (not an action index: expected 0–{NUM_ACTIONS - 1})"


def _differences(recorded: dict, replayed: dict) -> list[str]:
    """The result keys whose values differ, compared as JSON (so 48.0 is not 48, nor true 1)."""
    keys = sorted(set(recorded) | set(replayed))
    return [
        f"{key}: the record says {json.dumps(recorded.get(key))[:80]}, the replay gives {json.dumps(replayed.get(key))[:80]}"
        for key in keys
        if json.dumps(recorded.get(key), sort_keys=True) != json.dumps(replayed.get(key), sort_keys=True)
    ]


def replay(record: GameRecord) -> GameState:
    """The final state of ``record``'s game, every step checked (see :func:`replay_steps`).

    Raises:
        RecordError: naming the first step that does not fit.
    """
    *_, (_, final) = replay_steps(record)
    return final
