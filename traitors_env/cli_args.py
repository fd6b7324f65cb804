"""Argument types shared by the command-line tools (``traitors-eval``, ``traitors-exploit``, …).

An ``argparse`` type that raises :class:`argparse.ArgumentTypeError` makes argparse name the option and its value
(``argument --seed: -1: expected a whole number >= 0``) and exit with status 2 before anything runs.
"""

from __future__ import annotations

import argparse
import ipaddress
import sys
from pathlib import Path

from .core.game import sizes_text  # the one wording of table sizes, in core (Game.check_players uses it)

__all__ = ["GameChoices", "GameOption", "add_serve_arguments", "folder", "game_name", "host", "is_loopback", "port", "seed", "serve_refused",
           "sizes_text", "variants_text"]


def seed(text: str) -> int:
    """A seed: a whole number ``>= 0`` (numpy's ``SeedSequence`` takes no negative entropy).

    Raises:
        argparse.ArgumentTypeError: naming ``text`` and what was expected.
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number >= 0") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value}: expected a whole number >= 0")
    return value


def folder(text: str) -> Path:
    """An output folder: a path that is not empty (``Path("")`` is the current folder, which nobody means by
    ``--out ""``; a folder name that is only spaces is as likely a slip).

    Raises:
        argparse.ArgumentTypeError: naming ``text`` and what was expected.
    """
    if not text.strip():
        raise argparse.ArgumentTypeError(f"{text!r}: expected a folder path (not empty; '.' for the current folder)")
    return Path(text)


def game_name(text: str) -> str:
    """A ``--game`` value as given (``choices`` then checks it is registered); for a built-in game whose optional extra
    is not installed, the error saying how to install it instead of argparse's "invalid choice".

    Raises:
        argparse.ArgumentTypeError: naming the game, its extra and the install command.
    """
    from .core.registry import missing_extra

    hint = missing_extra(text)
    if hint is not None:
        raise argparse.ArgumentTypeError(hint)
    return text


class GameChoices:
    """``argparse`` choices of ``--game``: the registered games (listed in the help and errors), and each one's
    declared variants as ``<game>:<variant>`` (``traitors_aboard:mini3``; :meth:`Game.variant_game`)."""

    def __init__(self) -> None:
        from .core.registry import registered_games

        self.names = list(registered_games())

    def __iter__(self):
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)

    def __contains__(self, value: object) -> bool:
        from .core.registry import load_game

        if value in self.names:
            return True
        if not isinstance(value, str):
            return False
        base, sep, variant = value.partition(":")
        if not sep:
            return False
        try:  # the game by name or env id (traitors_aboard_v0:mini3, as a policy file names its game)
            return variant in load_game(base).variants
        except ValueError:  # unknown, or a plug-in that does not load: not a choice
            return False


class GameOption(argparse.Action):
    """``action=`` of a ``--game`` option (``parser.add_argument("--game", action=GameOption, default=..., help=...)``):
    stores the value as given, checked by ``type`` and ``choices`` (by default :func:`game_name` and
    :class:`GameChoices`), and its help ends with every declared variant (:func:`variants_text`), read from the
    registry only when the help is printed: building the parser loads no game."""

    def __init__(self, option_strings, dest, type=game_name, choices=None, **kwargs) -> None:  # noqa: A002 (argparse's name)
        super().__init__(option_strings, dest, type=type, choices=GameChoices() if choices is None else choices,
                         **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        setattr(namespace, self.dest, values)

    @property
    def help(self) -> str | None:
        if not self._help or self._help == argparse.SUPPRESS:
            return self._help
        variants = variants_text()
        return f"{self._help}; {variants}" if variants else self._help

    @help.setter
    def help(self, value: str | None) -> None:
        self._help = value


def variants_text() -> str:
    """The declared variants of the registered games that load, for a ``--game`` help: ``"or a declared variant:
    traitors_aboard:micro3, traitors_aboard:mini3, …"`` (``""`` where none declares one); ``%`` doubled, as argparse
    expands a help with ``%``."""
    from .core.registry import loadable_games

    names = [f"{game.name}:{variant}" for game in loadable_games() for variant in game.variants]
    return ("or a declared variant: " + ", ".join(names)).replace("%", "%%") if names else ""


def port(text: str) -> int:
    """``--port`` (``traitors-view``, ``traitors-play --web``): 0 (a free port) to 65535."""
    if not (text.isascii() and text.isdigit()) or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port; expected 0 (any free port) to 65535")
    return int(text)


def host(text: str) -> str:
    """``--host``: an address or name to bind, not empty (that binds every interface) and without a port."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty host would serve on every interface; expected an address such as "
                                         "127.0.0.1 (or 0.0.0.0 to serve on every interface)")
    if text.startswith("[") or text.count(":") == 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not an address; expected an address without a port or "
                                         "brackets, such as 127.0.0.1 or ::1 (the port is --port)")
    return text


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine only: ``localhost`` (any case) or a loopback address (127.0.0.0/8, ::1)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """``--host`` and ``--port`` of a command that serves pages on this machine (loopback by default)."""
    parser.add_argument("--host", type=host, default="127.0.0.1",
                        help="the address to serve on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=port, default=0, help="the port (default 0: any free port)")


def serve_refused(prog: str, args: argparse.Namespace, error: BaseException, what: str = "serving",
                  hint: str = "") -> int:
    """Say on stderr why ``prog`` cannot serve (``error``: the web extra missing, an ``ImportError``, for ``what``,
    with ``hint``; else the address cannot be bound, an ``OSError``); returns the exit status, 2."""
    if isinstance(error, ImportError):
        reason = (f"{what} needs the web extra, Starlette and uvicorn ({error}): pip install "
                  f"'traitors-aboard-rl[web]'{hint}")
    else:
        reason = f"cannot serve on --host {args.host} --port {args.port}: {getattr(error, 'strerror', None) or error}"
    print(f"{prog}: {reason}", file=sys.stderr)
    return 2
