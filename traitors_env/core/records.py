"""Game records of any game: the JSON a game writes after play, and its checked step-by-step replay.

A game's ``records`` module (``Game.records``) declares its record with :func:`record_kind`'s pieces: a
:class:`GameRecord` subclass that names its ``format``, its table sizes, its :class:`RecordOptions` and the
shape of its engine's ``result()``, and says how to rebuild its engine config; this module does the rest the same
way for every game: writing (:func:`record_game`), reading with errors in words (:func:`load_record`) and the
replay that checks every step against the record (:func:`replay_steps`, :func:`replay`).

The engine of a game with records is deterministic given its seed: the seed and the actions are the game. Its state
class must offer ``new(config, seed=)``, ``history`` (``(seat, action)`` pairs), ``current_player``,
``legal_actions()``, ``action_to_string(action)``, ``apply_action(action)``, ``fingerprint()``, ``is_terminal``,
``result()``, ``phase``, ``num_players`` and ``config``; an illegal action raises a ``ValueError``.

Format (``"version": 1``), common to every game (the game's docstring gives its ``options`` and ``result``)::

    {
      "format": "<game>-record",
      "version": 1,
      "engine": "traitors-aboard-rl 0.1.0",      # the package that wrote it (information only)
      "seed": 42,                                # State.new(config, seed=42) deals the game
      "num_players": 5,
      "options": {...},                          # the game's config minus the table size
      "seats": ["human", "heuristic", ...],      # who played each seat (information only; may be null)
      "start": "3f2a…",                          # fingerprint of the dealt state
      "decisions": [{"step": 1, "agent": "player_2", "action": 5, "meaning": "…", "check": "9bf3…"}, ...],
      "result": {...}                            # State.result(); null while unfinished
    }

``step`` counts decisions from 1; ``check`` is the state's fingerprint after the decision. A record reveals
everything (hidden cards through the actions, roles in the result): it is for after the game.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, field_validator, model_validator

from ..files import atomic_write_text

__all__ = ["MAX_FILES", "VERSION", "Decision", "GameRecord", "Label", "RecordError", "RecordOptions", "STRICT",
           "load_record", "read_record", "record_files", "record_format", "record_game", "replay", "replay_steps"]

#: The most bytes a record file may hold: far above any game's record, a bound on what a bad path (/dev/zero) reads.
MAX_RECORD_BYTES = 64 * 2**20

VERSION = 1

# Strict: a record is written by this module, so a value of another JSON type ("62", 62.0, true for 1) is an edit,
# refused rather than converted.
STRICT = ConfigDict(extra="forbid", strict=True)

# Labels are shown on a terminal by traitors-replay: no control characters (escape sequences).
Label = Annotated[str, StringConstraints(max_length=200, pattern=r"^[^\x00-\x1f\x7f-\x9f]*$")]


class RecordError(ValueError):
    """A record that cannot be read or does not replay; the message names the step and the reason."""


class RecordOptions(BaseModel):
    """A game's options in its record (its engine config minus the table size); a game subclasses it."""

    model_config = STRICT


class Decision(BaseModel):
    """One decision: who took it, the action index, its meaning and the state's fingerprint after it."""

    model_config = STRICT
    step: int = Field(ge=1)
    agent: str
    action: int
    meaning: str
    check: str


class GameRecord(BaseModel):
    """A game record (format version 1); see the module docstring for the JSON layout.

    A game subclasses it and sets ``format`` (its default), ``num_players`` (with the game's bounds),
    ``options`` (its :class:`RecordOptions`), the class variables below, and :meth:`config`.
    """

    model_config = STRICT
    #: the engine's state class (``new``, ``apply_action``, … as in the module docstring)
    state_class: ClassVar[type]
    #: the shape of the engine's ``result()`` (checked on load; the record keeps the plain dict)
    result_shape: ClassVar[type[BaseModel]]
    #: the number of action indices, for the error message of an index out of range
    num_actions: ClassVar[int]

    format: str
    version: int = VERSION
    engine: Label | None = None
    seed: int = Field(ge=0)
    num_players: int
    options: RecordOptions
    seats: list[Label] | None
    start: str
    decisions: list[Decision]
    result: dict | None

    @field_validator("result")
    @classmethod
    def _result_has_its_shape(cls, value: dict | None) -> dict | None:
        if value is not None:
            try:
                cls.result_shape.model_validate(value)
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

    def config(self) -> Any:
        """The engine config of the recorded game (the game's subclass builds it).

        Raises:
            RecordError: for a table size or option the engine rejects.
        """
        raise NotImplementedError

    def to_json(self) -> str:
        """The record as indented JSON text."""
        return self.model_dump_json(indent=1)

    def save(self, path: str | Path) -> Path:
        """Write the record to ``path`` (parent folders made; an existing file is replaced whole)."""
        path = Path(path)
        atomic_write_text(path, self.to_json() + "\n")
        return path


def _engine_label() -> str:
    from .. import __version__

    return f"traitors-aboard-rl {__version__}"


def record_game(kind: type[GameRecord], state: Any, seed: int, options: RecordOptions,
                seats: list[str] | None = None) -> GameRecord:
    """The ``kind`` record of ``state``'s game, dealt by ``State.new(state.config, seed=seed)``.

    The decisions are ``state.history``; the game is replayed from the seed to take the fingerprints, so a state
    that did not come from that seed is refused.

    Raises:
        RecordError: if ``state`` is not the game of ``seed`` with its history, or ``seats`` does not name every
            seat.
    """
    if seats is not None and len(seats) != state.num_players:
        raise RecordError(f"seats names {len(seats)} seats; the game has {state.num_players}")
    game = kind.state_class.new(state.config, seed=seed)
    start = game.fingerprint()
    decisions = []
    for step, (seat, action) in enumerate(state.history, start=1):
        if seat != game.current_player:
            raise RecordError(f"step {step}: the history has player_{seat} acting, but seed {seed} asks player_{game.current_player}")
        meaning = game.action_to_string(action)
        try:
            game.apply_action(action)
        except ValueError as error:
            raise RecordError(f"step {step}: the history does not replay from seed {seed}: {error}") from None
        decisions.append(Decision(step=step, agent=f"player_{seat}", action=action, meaning=meaning, check=game.fingerprint()))
    if game.fingerprint() != state.fingerprint():
        raise RecordError(f"the state is not the game of seed {seed} (its deal or hidden state differ)")
    return kind(
        engine=_engine_label(),
        seed=seed,
        num_players=state.num_players,
        options=options,
        seats=list(seats) if seats is not None else None,
        start=start,
        decisions=decisions,
        result=state.result() if state.is_terminal else None,
    )


def load_record(kind: type[GameRecord], source: str | Path | dict | object) -> GameRecord:
    """Read and validate a ``kind`` record: a path to a JSON file, JSON text, or an already parsed dict.

    Raises:
        RecordError: for a missing or unreadable file, text that is not JSON, another format or version, a missing
            field or one of the wrong type (the message names the field).
    """
    # Anything else is taken as parsed JSON (read_record's): a list or number is refused below, by its JSON type.
    data = _parse(_read_text(source)) if isinstance(source, (str, Path)) else source
    if not isinstance(data, dict):
        raise RecordError(f"the record is a JSON {type(data).__name__}; expected an object")
    expected = kind.model_fields["format"].default
    if data.get("format") != expected:
        raise RecordError(f"format={data.get('format')!r}; expected {expected!r} (is this a game record?)")
    version = data.get("version")
    if type(version) is not int or version != VERSION:
        raise RecordError(f"record version {version!r} is not supported; this engine reads version {VERSION}")
    try:
        return kind.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'record'}: {e['msg']}" for e in error.errors()[:5]
        )
        raise RecordError(f"the record has malformed fields: {problems}") from None


def read_record(source: str | Path) -> object:
    """The JSON of a record file (or of ``source`` itself when it is JSON text), read once: a pipe such as
    ``<(cat game.json)`` can be read only once, so a tool that needs the format first and the record then passes this
    to :func:`record_format` and ``load_record``.

    Raises:
        RecordError: for a missing, unreadable or too large file or text that is not JSON.
    """
    return _parse(_read_text(source))


def record_format(source: str | Path | dict | object) -> str | None:
    """The ``format`` a record names (e.g. ``"avalon-record"``), or None where it names none.

    Raises:
        RecordError: for a missing or unreadable file or text that is not JSON.
    """
    data = _parse(_read_text(source)) if isinstance(source, (str, Path)) else source
    value = data.get("format") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


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
        with path.open("rb") as file:  # at most the limit and one byte: /dev/zero or a huge file must not fill memory
            data = file.read(MAX_RECORD_BYTES + 1)
        if len(data) > MAX_RECORD_BYTES:
            raise RecordError(f"record file {text!r} holds more than {MAX_RECORD_BYTES} bytes, the most a record may "
                              "hold; expected a game record")
        return data.decode("utf-8-sig")
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
    except ValueError:  # Python's limit on converting long digit strings to int
        raise RecordError(f"the record is not a game record: it holds a number with more than "
                          f"{sys.get_int_max_str_digits()} digits") from None


def replay_steps(record: GameRecord) -> Iterator[tuple[Decision | None, Any]]:
    """Replay ``record`` step by step, checking each step against it.

    Yields ``(None, dealt state)`` first, then ``(decision, state after it)`` for every decision. The same state
    object moves on between yields: copy it (``copy.deepcopy``) to keep one.

    Raises:
        RecordError: naming the first step that does not fit: a deal that differs from the record's (another engine
            version or seed), a step number out of order, the wrong agent, an illegal action, another meaning, a
            state that departs from the recorded fingerprint, decisions after the game ended, a missing end, or
            another result.
    """
    config = record.config()
    game = type(record).state_class.new(config, seed=record.seed)
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
            raise RecordError(
                f"{where}: {_action_text(decision.action, game, type(record).num_actions)} is not legal here "
                f"({expected_agent}, phase {phase})"
            )
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


def _action_text(action: int, game: Any, num_actions: int) -> str:
    try:
        return f"action {action} ({game.action_to_string(action)})"
    except ValueError:
        return f"action {action} (not an action index: expected 0–{num_actions - 1})"


def _differences(recorded: dict, replayed: dict) -> list[str]:
    """The result keys whose values differ, compared as JSON (so 48.0 is not 48, nor true 1)."""
    keys = sorted(set(recorded) | set(replayed))
    return [
        f"{key}: the record says {json.dumps(recorded.get(key))[:80]}, the replay gives {json.dumps(replayed.get(key))[:80]}"
        for key in keys
        if json.dumps(recorded.get(key), sort_keys=True) != json.dumps(replayed.get(key), sort_keys=True)
    ]


def replay(record: GameRecord) -> Any:
    """The final state of ``record``'s game, every step checked (see :func:`replay_steps`).

    Raises:
        RecordError: naming the first step that does not fit.
    """
    *_, (_, final) = replay_steps(record)
    return final


#: The most record files one folder gives (``traitors-eval --played``, ``traitors-view FOLDER``).
MAX_FILES = 100_000


def record_files(paths: Sequence[str | Path]) -> list[Path]:
    """The record files of ``paths``: each a ``.json`` file, or a folder searched for ``*.json`` (sorted, nested
    folders included).

    Raises:
        RecordError: for a path that does not exist, or paths that hold no record file.
    """
    files: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*.json") if p.is_file()))
        elif path.is_file():
            files.append(path)
        elif path.exists():
            raise RecordError(f"{str(path)!r} is neither a file nor a folder; expected a game record (.json) or a "
                              "folder of them")
        else:
            raise RecordError(f"{str(path)!r} does not exist; expected a game record (.json) or a folder of them")
        if len(files) > MAX_FILES:
            raise RecordError(f"more than {MAX_FILES:,} record files under {str(path)!r}; expected a folder of "
                              "played games")
    if not files:
        raise RecordError(f"no game record (.json) in {', '.join(map(str, paths))}")
    # One file once, however it is reached (a link, "dir/../dir/game.json"): a game counted twice narrows the intervals.
    unique: dict[Path, Path] = {}
    for file in files:
        unique.setdefault(file.resolve(), file)
    return list(unique.values())
