"""``traitors-play --web``: the people at the table play in the browser, one page per seat (the ``web`` extra).

The table's server (:mod:`traitors_env.web.play_server`) serves each person's seat as a page at an address with that
seat's secret token, printed here; the game runs in this process (:class:`traitors_env.web.table.WebTable`), the bots
at once, each person's decision waiting for their page. At the end, or when a page leaves or Ctrl-C is pressed here,
the game's record is saved as in the terminal (an abandoned game's too, unfinished), marked with the people's seats
(``human`` or ``human:NAME``), and the pages show the result and where the record is.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
import traceback

from rich.console import Console
from rich.text import Text

from ..cli_args import is_loopback, serve_refused
from ..core.game import Game
from .saving import save_record

__all__ = ["play_in_browser"]

#: How long the server waits, after the game, for every page to be sent the end (seconds).
GOODBYE = 10.0
#: How long an abandoned game waits for a thinking bot before its record is taken as it stands (seconds).
RECORD_WAIT = 120.0


def _stop_signals_interrupt():
    """Make SIGTERM and SIGHUP (a closed terminal) end the game as Ctrl-C does, record kept; returns the undo."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    names = [name for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]

    def interrupt(number, frame):
        raise KeyboardInterrupt

    previous = {name: signal.signal(getattr(signal, name), interrupt) for name in names}
    return lambda: [signal.signal(getattr(signal, name), handler) for name, handler in previous.items()]


def _wait_for_the_game(table, console: Console) -> None:
    """Until the game ends; Ctrl-C (or SIGTERM) abandons it, and the game's thread makes the record as soon as it is
    back from the bot that is thinking (an interrupt while waiting for that is ignored: the record comes first)."""
    try:
        while not table.join(0.2):
            pass
        return
    except KeyboardInterrupt:
        table.abandon("interrupted at the terminal")
    console.print(Text("Abandoning the game: saving its record…"))
    waited = 0.0
    while True:
        try:
            if table.join(0.5):
                return
        except KeyboardInterrupt:
            console.print(Text("Still waiting for the game to stop, to save its record (a bot is thinking)."))
        waited += 0.5
        if waited >= RECORD_WAIT:  # a bot that never answers: the record of the game so far, taken as it stands
            table.record = table.record or table.make_record()
            return


def play_in_browser(game: Game, args, bots, labels, seed: int, claims: bool, advisors, advisor_label: str,
                    record_path, default_name: str, console: Console) -> int:
    """Serve the table, wait for the game to end, save its record; returns the exit status (0 finished, 1 abandoned
    or a bot failed, 2 cannot serve)."""
    try:
        from ..web.play_server import PlayServer
        from ..web.table import ABANDONED, OVER, WebTable
    except ImportError as error:
        return serve_refused("traitors-play", args, error, what="--web")
    table = WebTable(game, args.players, args.seats, bots, seed, claims, labels, advisors, advisor_label)
    title = f"{game.type.long_name}: {args.players} players"  # no seed: it recomputes the deal
    try:
        server = PlayServer(table, title, args.host, args.port)
    except OSError as error:
        return serve_refused("traitors-play", args, error)
    if not is_loopback(args.host):
        console.print(Text(f"Note: serving on {args.host} over plain HTTP: each seat's address is its key; send it "
                           "only to the person at that seat."))
    server.start()
    table.start()
    console.print(Text(f"{game.type.long_name}, {args.players} players. Open your seat's page:"))
    for seat in table.humans:
        console.print(Text(f"  player_{seat} ({labels[seat]}): {server.seat_url(seat)}"), soft_wrap=True)
    console.print(Text("Ctrl-C here abandons the game (its record is kept)."))
    restore = _stop_signals_interrupt()
    try:
        _wait_for_the_game(table, console)
        saved = None
        if table.record is not None and record_path is not None:
            saved = save_record(table.record, record_path, default_name, console, game)
        table.finish(str(saved) if saved is not None else None)
        deadline = time.monotonic() + GOODBYE
        while not table.all_seen() and time.monotonic() < deadline:
            time.sleep(0.1)
    except KeyboardInterrupt:  # while the pages were being sent the end: the record is saved already
        pass
    finally:
        server.stop()
        restore()
    if table.status == OVER:
        console.print(table.view.result_view(table.env.game, None))
        console.print(Text(f"Seed {seed}."))
        return 0
    if table.status == ABANDONED:
        console.print(Text(f"{table.message} The same deal and bots again: --seed {seed}."))
        return 1
    console.print(Text(table.message or "The game stopped."))
    if table.error is not None:  # the bot's traceback, for whoever debugs it
        traceback.print_exception(table.error, file=sys.stderr)
    return 1
