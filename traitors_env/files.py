"""File helpers: atomic writes (a kill never leaves a half-written file behind a final name), paths read from a data
file confined to its folder (:func:`confined_path`), and a guarded JSON read of a downloaded data file
(:func:`read_json_data`)."""

from __future__ import annotations

import json
import os
import stat
import tempfile
import threading
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
    """The process's umask, read without changing it where the system allows (Linux 4.7+: ``/proc/self/status``).

    ``os.umask`` reads it only by setting it: setting 0 for a moment, as before, let another thread create a file
    in that moment with the wrong mode. Elsewhere it is read once, under a lock, and kept.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):  # "Umask:\t0022"
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    global _cached_umask
    with _umask_lock:
        if _cached_umask is None:
            _cached_umask = os.umask(0o077)  # the strictest mask for that moment: a file made then is private
            os.umask(_cached_umask)
        return _cached_umask


_umask_lock = threading.Lock()
_cached_umask: int | None = None


def output_problem(path: str | Path, folder: bool = True, make_parents: bool = True) -> str | None:
    """Why ``path`` cannot be written as an output folder (``folder``) or file, or ``None``: it, or a folder it
    would be made in, is an existing file (or, for a file, it is an existing folder), or the folder it would be
    written in is not writable; with ``make_parents=False``, its folder does not exist. Checked before any work, so
    that a long run does not fail at its last step."""
    path = Path(path)
    if path.exists():
        if folder and not path.is_dir():
            return f"{str(path)!r} is a file; expected a folder (made if missing)"
        if not folder and path.is_dir():
            return f"{str(path)!r} is a folder; expected a file to write"
        where = path if folder else path.parent  # an atomic write makes its temporary file beside the file
    else:
        blocker = next((p for p in path.parents if p.exists()), None)
        if blocker is not None and not blocker.is_dir():
            return f"{str(path)!r} cannot be made: {str(blocker)!r} is a file"
        if not make_parents and blocker != path.parent:
            return f"{str(path)!r} cannot be written: its folder {str(path.parent)!r} does not exist"
        where = blocker
    if where is not None and not os.access(where, os.W_OK | os.X_OK):
        return f"{str(path)!r} cannot be written: the folder {str(where)!r} is not writable"
    return None


def confined_path(folder: str | Path, relative: str) -> Path:
    """``folder / relative`` for a path read from a data file in ``folder`` (a league member's checkpoint): a file
    someone sent must not lead the reader to any other file on the machine.

    Raises:
        ValueError: for an absolute path, or one that leads outside ``folder`` once ``..`` and symbolic links are
            resolved (the message names the path, where it leads and the folder).
    """
    folder = Path(folder)
    if Path(relative).is_absolute() or Path(relative).drive:
        raise ValueError(f"{relative!r} is an absolute path; expected a path relative to {str(folder)!r}, inside it")
    base, target = folder.resolve(), (folder / relative).resolve()
    if not target.is_relative_to(base):
        raise ValueError(f"{relative!r} leads to {str(target)!r}, outside {str(base)!r}; expected a path inside "
                         "that folder")
    return folder / relative


def read_json_data(path: str | Path, max_bytes: int) -> object:
    """The JSON in ``path``, read as untrusted data: ``ValueError`` in one line (without the path: the caller names
    the file) for a non-regular file (a FIFO or device would block or never end), an empty one (``/proc``'s files
    say 0 bytes whatever they hold, and some, ``/proc/kmsg``, wait on read), one over ``max_bytes``, text that is
    not UTF-8 JSON, integers over Python's digit limit, or nesting deeper than Python's stack.

    Never blocks: the file is opened without waiting (``O_NONBLOCK``: a FIFO with no writer opens at once) and
    checked on the opened descriptor (``os.fstat``), so that what is read is what was checked, even if the path is
    changed in between; at most ``max_bytes + 1`` bytes are read.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        raise ValueError(f"cannot be read ({error.strerror or error})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("is not a regular file")
        if info.st_size == 0:
            raise ValueError("is empty (0 bytes, as /proc's files say); expected a JSON file")
        if info.st_size > max_bytes:
            raise ValueError(f"{info.st_size} bytes; expected a file under {max_bytes} bytes")
        chunks, size = [], 0
        while size <= max_bytes and (chunk := os.read(fd, min(1 << 20, max_bytes + 1 - size))):
            chunks.append(chunk)
            size += len(chunk)
    except BlockingIOError:
        raise ValueError("cannot be read without waiting; expected a regular file") from None
    except OSError as error:
        raise ValueError(f"cannot be read ({error.strerror or error})") from None
    finally:
        os.close(fd)
    if size > max_bytes:  # it grew after fstat
        raise ValueError(f"over {max_bytes} bytes; expected a file under {max_bytes} bytes")
    try:
        return json.loads(b"".join(chunks).decode("utf-8"))
    except RecursionError:
        raise ValueError("its JSON is nested too deeply") from None
    except ValueError as error:  # not UTF-8, not JSON, an integer of more than 4,300 digits
        raise ValueError(f"cannot be read as JSON ({error})") from None
