"""Where ``traitors-play`` saves a game's record: checked before the game, kept even where the path fails after it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from rich.console import Console
from rich.text import Text

from ..core.game import Game
from ..core.registry import DEFAULT_GAME

__all__ = ["save_record", "unwritable"]


def save_record(record, path: Path, default_name: str, console: Console, game: Game) -> Path:
    """Save ``record`` at ``path`` (a temporary file's where that fails: the game is kept); returns where."""
    try:
        record.save(path)
    except OSError as error:  # e.g. the folder went away during the game: keep the record anyway
        fallback = Path(tempfile.gettempdir()) / default_name
        record.save(fallback)
        console.print(Text(f"Could not write {path} ({error.strerror or error}); the record is in {fallback} instead."))
        path = fallback
    option = "" if game.name == DEFAULT_GAME else f" --game {game.name}"
    console.print(Text(f"Game record saved to {path} (replay: traitors-replay {path}{option})"))
    return path


def unwritable(path: Path) -> str | None:
    """Why a record cannot be written at ``path`` (``None`` if it can). Nothing is created here."""
    if path.is_dir():
        return "is a folder; expected a file name such as game.json"
    if path.exists() or path.is_symlink():
        kind = "file" if path.is_file() else "special file"
        return f"a {kind} is already there; records never replace a file, so give a new name"
    folder = path.parent
    while not folder.exists():  # the folders missing are made when the record is saved
        folder = folder.parent
    if not folder.is_dir():
        return f"{str(folder)!r} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"the folder {str(folder)!r} is not writable"
    return None
