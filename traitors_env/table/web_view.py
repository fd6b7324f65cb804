"""``traitors-view RECORD_OR_FOLDER [--game NAME] [--beliefs SPEC] [--host 127.0.0.1] [--port 0] [--html OUTDIR]``:
watch a saved game in the browser.

Serves (on this machine only by default; the URL is printed) a page that steps through a game record of any game
with records (a folder: every record in it, chosen from a menu): the table as a picture, the log, each step as the
game's terminal view draws it, and the result. The viewpoints are ``traitors-replay``'s: the spectator, one seat,
everything; the server builds each step for the viewpoint asked, so a seat's page is sent nothing that seat may not know (:mod:`traitors_env.web.payload`).
``--beliefs SPEC`` adds an agent's role beliefs, read at every step from the viewed seat's observation.
``--html OUTDIR`` writes the page with every viewpoint in it instead, to open from ``file://``.

Serving needs the ``web`` extra (Starlette, uvicorn); the export does not.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from ..cli_args import add_serve_arguments, is_loopback, serve_refused
from ..core.records import RecordError, read_record, record_files
from ..core.registry import GameLoadError, game_of_record, load_game, load_game_record
from .replay import add_record_arguments

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="traitors-view", description="Watch a saved game in the browser.")
    add_record_arguments(parser, folder=True)
    parser.add_argument("--beliefs", default=None, metavar="SPEC",
                        help="an agent with role beliefs (e.g. heuristic, a checkpoint): its P(hidden side) per seat "
                             "at every step, read from the viewed seat's observation")
    add_serve_arguments(parser)
    parser.add_argument("--html", default=None, metavar="OUTDIR",
                        help="write a static page (index.html, table.js, viewer.js, viewer.css) with every viewpoint into "
                             "OUTDIR instead of serving")
    return parser


def _beliefs(parser: argparse.ArgumentParser, spec: str | None, game):
    """``(label, make)`` of ``--beliefs SPEC``, or ``None``; a spec that names no agent with beliefs is refused."""
    if spec is None:
        return None
    from ..agents.spec import AgentSpecError, agent_maker  # here: checkpoints' loaders only when asked

    if game.hidden_side is None:
        parser.error(f"--beliefs {spec}: {game.type.env_id} declares no hidden side (Game.hidden_side)")
    try:
        label, make = agent_maker(spec, game=game)
        probe = make(0)
    except (AgentSpecError, ValueError) as error:
        parser.error(f"--beliefs {spec}: {error}")
    if not callable(getattr(probe, "beliefs", None)):
        parser.error(f"--beliefs {spec}: this agent has no role beliefs (a beliefs(observation) method); expected "
                     "e.g. heuristic")
    return label, make


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``traitors-view``; returns the exit status (0, or 2 for a bad record or argument, exiting through
    argparse for a bad option)."""
    parser = _parser()
    args = parser.parse_args(argv)
    if Path(args.record).is_dir():
        return _folder(parser, args)
    try:
        game = load_game(args.game) if args.game else None
        if game is None or game.records is not None:  # a game without records is refused before any reading
            source = read_record(args.record)  # once: a pipe (<(cat game.json)) cannot be read twice
            game = game or game_of_record(source)
    except GameLoadError as error:
        parser.error(f"--game {args.game}: {error}")
    except RecordError as error:  # a missing, unreadable or too large file, not JSON
        print(f"traitors-view: {args.record}: {error}", file=sys.stderr)
        return 2
    if game.records is None:
        print(f"traitors-view: {game.type.env_id} has no game records", file=sys.stderr)
        return 2
    beliefs = _beliefs(parser, args.beliefs, game)
    from ..web.payload import ReplayData

    try:
        record = game.records.load_record(source)
        data = ReplayData(record, game, beliefs)
    except game.records.RecordError as error:
        print(f"traitors-view: {args.record}: {error}", file=sys.stderr)
        return 2
    title = f"{game.type.env_id}: {record.num_players} players"  # no seed: it recomputes the deal
    if args.html is not None:
        from ..web.export import write_export

        try:
            index = write_export(data, title, args.html)
        except (OSError, ValueError) as error:
            # The export's own refusals carry their words; the system's name the file and what was expected.
            reason = (f"cannot write {error.filename or args.html}: {error.strerror}; expected a folder that can be "
                      "written to" if isinstance(error, OSError) and error.strerror else str(error))
            print(f"traitors-view: --html {args.html or repr(args.html)}: {reason}", file=sys.stderr)
            return 2
        print(f"Wrote {index} (every viewpoint; open it in a browser)")
        return 0
    return _serve(data, title, args, args.record)


def _folder(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``traitors-view FOLDER``: every record in it (nested folders too), one at a time, chosen from a menu. A file
    that is not a record of a game with records is left out, named; ``--html`` exports one record."""
    if args.html is not None:
        print(f"traitors-view: --html {args.html}: the static export holds one record; give a record file of "
              f"{args.record}", file=sys.stderr)
        return 2
    try:
        game = load_game(args.game) if args.game else None
    except GameLoadError as error:
        parser.error(f"--game {args.game}: {error}")
    folder = Path(args.record)
    try:
        files = record_files([folder])
    except RecordError as error:
        print(f"traitors-view: {error}", file=sys.stderr)
        return 2
    from ..web.payload import RecordShelf

    entries, beliefs = [], {}
    for path in files:
        try:
            record, of = load_game_record(path, game)
        except ValueError as error:  # RecordError, the game's too
            print(f"traitors-view: left out {path}: {error}", file=sys.stderr)
            continue
        if of.name not in beliefs:
            beliefs[of.name] = _beliefs(parser, args.beliefs, of)
        entries.append((str(path.relative_to(folder)), record, of, beliefs[of.name]))
    if not entries:
        print(f"traitors-view: no record in {folder} could be read (each is named above)", file=sys.stderr)
        return 2
    title = f"{len(entries)} record{'s' if len(entries) > 1 else ''} in {folder.name or folder}"
    return _serve(RecordShelf(entries), title, args, str(folder))


def _serve(data, title: str, args: argparse.Namespace, what: str) -> int:
    """Serve ``data`` (a replay or a shelf of records) until Ctrl-C."""
    try:
        from ..web.server import ViewerServer
    except ImportError as error:
        return serve_refused("traitors-view", args, error, hint="; or write a static page with --html OUTDIR")
    try:
        server = ViewerServer(data, title, args.host, args.port)
    except OSError as error:
        return serve_refused("traitors-view", args, error)
    if not is_loopback(args.host):
        print(f"Note: serving on {args.host}: anyone who can reach it can see every viewpoint, the end included.")
    print(f"Watching {what} at {server.url} (Ctrl-C to stop)", flush=True)
    try:
        server.serve()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
