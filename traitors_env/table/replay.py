"""``traitors-replay RECORD.json``: step through a saved game (:mod:`traitors_env.games.traitors_aboard.records`).

Views:

* default: the spectator's view, the public table only; others' decisions as the table saw them;
* ``--seat K``: what ``player_K`` observed (its role, hand, known chest values, Spyglass view),
  built from its observation at each step; its own decisions in full;
* ``--reveal``: everything, hands, roles and chest values included, every decision in full.

Every view ends with the result and the revealed chest. The record is checked in full before
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

from ..games.traitors_aboard.engine import GameState
from ..games.traitors_aboard.observation import decode, encode
from ..games.traitors_aboard.records import GameRecord, RecordError, load_record, replay_steps
from ..games.traitors_aboard.render import render_text
from .view import agent_view, event_text, result_view


def record_states(record: GameRecord) -> list[GameState]:
    """The states of ``record``'s game: the deal, then the state after each decision (copies).

    Raises:
        RecordError: naming the first step that does not replay.
    """
    return [copy.deepcopy(state) for _, state in replay_steps(record)]


def step_view(record: GameRecord, states: Sequence[GameState], step: int, seat: int | None, reveal: bool) -> RenderableType:
    """Step ``step`` (0 = the deal) of a replay, as a spectator (``seat=None``), one seat, or revealed."""
    state = states[step]
    n = record.num_players
    total = len(record.decisions)
    parts: list[RenderableType] = [Rule(f"step {step}/{total}" if step else f"the deal (seed {record.seed})")]
    if step == 0 and record.seats is not None:
        parts.append(Text("Seats: " + ", ".join(f"player_{i} {label}" for i, label in enumerate(record.seats))))
    if step:
        decision = record.decisions[step - 1]
        actor = int(decision.agent.removeprefix("player_"))
        if reveal:
            parts.append(Text(f"player_{actor}: {decision.meaning}"))
        else:
            parts.append(Text(event_text(actor, decision.action, n, seat)))
    if reveal:
        parts.append(Text(render_text(state, show_hidden=True)))
    else:
        observer = 0 if seat is None else seat  # a spectator sees the public part of any seat's view
        parts.append(agent_view(decode(encode(state, observer)), observer, private=seat is not None))
    if state.is_terminal:
        parts.append(result_view(state, seat))
    return Group(*parts)


def browse(
    record: GameRecord,
    states: Sequence[GameState],
    console: Console,
    seat: int | None,
    reveal: bool,
    read_line: Callable[[str], str] | None,
) -> None:
    """Show the steps: all in a row when ``read_line`` is ``None``, else one at a time on request."""
    last = len(states) - 1
    if read_line is None:
        for step in range(last + 1):
            console.print(step_view(record, states, step, seat, reveal))
        return
    step = 0
    while True:
        console.print(step_view(record, states, step, seat, reveal))
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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="traitors-replay", description="Step through a saved Traitors Aboard game.")
    parser.add_argument("record", help="a game record (JSON) written by traitors-play or raw_env.record()")
    view = parser.add_mutually_exclusive_group()
    view.add_argument("--seat", type=int, default=None, help="show what this seat observed")
    view.add_argument("--reveal", action="store_true", help="show everything: hands, roles, chest values")
    parser.add_argument("--no-pause", action="store_true", help="print every step without waiting")
    return parser


def main(argv: Sequence[str] | None = None, console: Console | None = None) -> int:
    """Run ``traitors-replay``; returns the exit status (0, or 2 for a bad record or argument)."""
    parser = _parser()
    args = parser.parse_args(argv)
    console = console or Console(highlight=False)
    try:
        record = load_record(args.record)
        states = record_states(record)
    except RecordError as error:
        console.print(Text(f"traitors-replay: {args.record}: {error}"))
        return 2
    if args.seat is not None and not 0 <= args.seat < record.num_players:
        parser.error(f"--seat {args.seat}: the record's table has seats 0–{record.num_players - 1}")
    interactive = not args.no_pause and sys.stdin.isatty() and console.is_terminal
    browse(record, states, console, args.seat, args.reveal, console.input if interactive else None)
    if not record.finished:
        console.print(Text(f"The record ends after step {len(record.decisions)}: the game was not finished."))
    return 0


if __name__ == "__main__":
    sys.exit(main())
