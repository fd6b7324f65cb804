"""``traitors-replay RECORD.json [--game NAME]``: step through a saved game of any game with records.

The game (``--game``, default :data:`~traitors_env.core.registry.DEFAULT_GAME`) reads its records through its
``records`` capability (``load_record``, ``replay_steps``, ``RecordError``: Traitors Aboard's are
:mod:`traitors_env.games.traitors_aboard.records`); a game without one is refused in words
("the_traitors_v0 has no game records"). Each step is drawn by the game's terminal view
(:mod:`traitors_env.table.text_view`).

Views:

* default: the spectator's view, the public table only; others' decisions as the table saw them;
* ``--seat K``: what ``player_K`` observed (in Traitors Aboard its role, hand, known chest values,
  Spyglass view), built from its observation at each step; its own decisions in full;
* ``--reveal``: everything (hands, roles, chest values), every decision in full.

Every view ends with the result, everything revealed. The record is checked in full before
anything is shown; a record that does not replay is refused with the step that fails.

In a terminal, Enter shows the next step, ``b`` the previous one, a number jumps to that step,
``q`` quits; with ``--no-pause`` (or when the output is not a terminal) all steps are printed.
"""

from __future__ import annotations

import argparse
import copy
import sys
from collections.abc import Callable, Sequence

from rich.console import Console, Group, RenderableType
from rich.rule import Rule
from rich.text import Text

from ..cli_args import GameOption
from ..core.game import Game
from ..core.records import RecordError, read_record
from ..core.registry import DEFAULT_GAME, GameLoadError, game_of_record, load_game
from .text_view import view_of


def record_states(record, game: str | Game = DEFAULT_GAME) -> list:
    """The states of ``record``'s game: the deal, then the state after each decision (copies).

    Raises:
        MissingCapabilityError: for a game without records.
        RecordError: (the game's) naming the first step that does not replay.
    """
    records = load_game(game).require("records")
    return [copy.deepcopy(state) for _, state in records.replay_steps(record)]


def step_view(record, states: Sequence, step: int, seat: int | None, reveal: bool,
              game: str | Game = DEFAULT_GAME) -> RenderableType:
    """Step ``step`` (0 = the deal) of a replay, as a spectator (``seat=None``), one seat, or revealed."""
    view = view_of(load_game(game))
    state = states[step]
    n = record.num_players
    total = len(record.decisions)
    # The seed recomputes the deal and the labels may tell the sides apart: shown revealed or at the end only.
    told = reveal or state.is_terminal
    deal = f"the deal (seed {record.seed})" if told else "the deal"
    parts: list[RenderableType] = [Rule(f"step {step}/{total}" if step else deal)]
    labels = seat_labels(record, told)
    if labels is not None and (step == 0 or (state.is_terminal and seat_labels(record, reveal) is None)):
        parts.append(Text("Seats: " + ", ".join(f"player_{i} {label}" for i, label in enumerate(labels))))
    if step:
        decision = record.decisions[step - 1]
        actor = int(decision.agent.removeprefix("player_"))
        text = f"player_{actor}: {decision.meaning}" if reveal else view.event_text(actor, decision.action, n, seat)
        if text is not None:
            parts.append(Text(text))
    if reveal:
        parts.append(view.revealed_view(state))
    else:
        observer = 0 if seat is None else seat  # a spectator sees the public part of any seat's view
        parts.append(view.observer_view(state, observer, seat is not None))
    if state.is_terminal:
        parts.append(view.result_view(state, seat))
        if step:  # at step 0 the deal's rule names it
            parts.append(Text(f"Seed {record.seed}"))
    return Group(*parts)


def seat_labels(record, told: bool) -> list[str] | None:
    """The record's seat labels (who played each seat) where they may be shown: always when ``told`` (everything
    revealed, or the game over), else only where they cannot tell the sides apart (every seat labelled alike): a
    cross-play record labels each seat with its side's agent."""
    labels = record.seats
    if labels is None or told or len(set(labels)) <= 1:
        return None if labels is None else list(labels)
    return None


def browse(
    record,
    states: Sequence,
    console: Console,
    seat: int | None,
    reveal: bool,
    read_line: Callable[[str], str] | None,
    game: str | Game = DEFAULT_GAME,
) -> None:
    """Show the steps: all in a row when ``read_line`` is ``None``, else one at a time on request."""
    last = len(states) - 1
    if read_line is None:
        for step in range(last + 1):
            console.print(step_view(record, states, step, seat, reveal, game))
        return
    step = 0
    while True:
        console.print(step_view(record, states, step, seat, reveal, game))
        try:
            answer = read_line(f"[Enter] next · b back · 0–{last} go to step · q quit: ").strip().lower()
        except (EOFError, KeyboardInterrupt):
            return
        if answer == "q":
            return
        if answer == "b":
            step = max(0, step - 1)
        elif answer.isascii() and answer.isdigit() and int(answer) <= last:
            step = int(answer)
        elif answer == "":
            if step == last:
                return
            step += 1
        else:
            shown = answer if len(answer) <= 20 else answer[:20] + "…"
            console.print(Text(f"{shown!r}: press Enter, b, q or give a step number 0–{last}"))


def add_record_arguments(parser: argparse.ArgumentParser, folder: bool = False) -> None:
    """The record to read and its ``--game`` (``traitors-replay``, ``traitors-view``)."""
    parser.add_argument("record", help="a game record (JSON) written by traitors-play or raw_env.record()"
                        + (", or a folder of them" if folder else ""))
    parser.add_argument("--game", action=GameOption, default=None,
                        help=f"the game the record is of (default: the game whose record format it names, else "
                             f"{DEFAULT_GAME})")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="traitors-replay", description="Step through a saved game.")
    add_record_arguments(parser)
    view = parser.add_mutually_exclusive_group()
    view.add_argument("--seat", type=int, default=None, help="show what this seat observed")
    view.add_argument("--reveal", action="store_true", help="show everything: hands, roles, chest values")
    parser.add_argument("--no-pause", action="store_true", help="print every step without waiting")
    return parser


def main(argv: Sequence[str] | None = None, console: Console | None = None) -> int:
    """Run ``traitors-replay``; returns the exit status (0, or 2 for a bad record or argument, or a game without
    records)."""
    parser = _parser()
    args = parser.parse_args(argv)
    console = console or Console(highlight=False)
    try:
        game = load_game(args.game) if args.game else None
        if game is None or game.records is not None:  # a game without records is refused before any reading
            source = read_record(args.record)  # once: a pipe (<(cat game.json)) cannot be read twice
            game = game or game_of_record(source)
    except GameLoadError as error:  # --game names a plug-in that does not load: its own error, in one line
        console.print(Text(f"traitors-replay: --game {args.game}: {error}"))
        return 2
    except RecordError as error:
        console.print(Text(f"traitors-replay: {args.record}: {error}"))
        return 2
    if game.records is None:
        console.print(Text(f"traitors-replay: {game.type.env_id} has no game records"))
        return 2
    records = game.records
    try:
        record = records.load_record(source)
        states = record_states(record, game)
    except records.RecordError as error:
        console.print(Text(f"traitors-replay: {args.record}: {error}"))
        return 2
    if args.seat is not None and not 0 <= args.seat < record.num_players:
        parser.error(f"--seat {args.seat}: the record's table has seats 0–{record.num_players - 1}")
    interactive = not args.no_pause and sys.stdin.isatty() and console.is_terminal
    browse(record, states, console, args.seat, args.reveal, console.input if interactive else None, game)
    if not record.finished:
        console.print(Text(f"The record ends after step {len(record.decisions)}: the game was not finished."))
    return 0


if __name__ == "__main__":
    sys.exit(main())
