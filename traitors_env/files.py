"""Atomic file writes: a kill never leaves a half-written file behind a final name."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file in the same folder and ``os.replace``.

    Parent folders are made. Raises ``OSError`` as the file system does; the old file, if any,
    is then left as it was.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the file the usual permissions
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def output_problem(path: str | Path, folder: bool = True) -> str | None:
    """Why ``path`` cannot be written as an output folder (``folder``) or file, or ``None``: it, or a folder it
    would be made in, is an existing file (or, for a file, it is an existing folder). Checked before any work, so
    that a long run does not fail at its last step."""
    path = Path(path)
    if path.exists():
        if folder and not path.is_dir():
            return f"{str(path)!r} is a file; expected a folder (made if missing)"
        if not folder and path.is_dir():
            return f"{str(path)!r} is a folder; expected a file to write"
        return None
    blocker = next((p for p in path.parents if p.exists()), None)
    if blocker is not None and not blocker.is_dir():
        return f"{str(path)!r} cannot be made: {str(blocker)!r} is a file"
    return None
