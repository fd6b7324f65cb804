"""``files.read_json_data`` (``.policy.json``, ``.team.json`` and other downloaded data files) never blocks: a path
that is, or links to, a FIFO with no writer or a file that looks regular but blocks on read (``/proc/kmsg``) is
refused in one line, as is a file whose size does not say what a read gives (``/proc``'s report 0 bytes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from traitors_env.files import read_json_data


def _read_in_a_child(path: Path, max_bytes: int = 1 << 20) -> str:
    """``read_json_data(path)``'s error in a child process that is killed if it blocks (a test that hangs is no
    test): ``"ok"`` where it reads, else the error's text."""
    code = ("import sys\nfrom traitors_env.files import read_json_data\n"
            f"try:\n    read_json_data(sys.argv[1], {max_bytes})\nexcept ValueError as error:\n    print(error)\n"
            "else:\n    print('ok')\n")
    try:
        done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"read_json_data({str(path)!r}) blocked")
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_without_a_writer_is_refused_not_waited_on(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "x.policy.json"
    link.symlink_to(fifo)
    for path in (fifo, link):
        error = _read_in_a_child(path)
        assert "not a regular file" in error and "\n" not in error


@pytest.mark.skipif(not os.access("/proc/kmsg", os.R_OK), reason="/proc/kmsg is not readable here")
def test_a_link_to_a_blocking_proc_file_is_refused_not_waited_on(tmp_path):
    """/proc/kmsg is a "regular file" of 0 bytes whose read waits for the kernel's next message."""
    link = tmp_path / "x.team.json"
    link.symlink_to("/proc/kmsg")
    error = _read_in_a_child(link)
    assert error != "ok" and "\n" not in error


def test_a_file_whose_size_is_not_what_a_read_gives_is_refused(tmp_path):
    """A /proc file says 0 bytes whatever it holds: the size cap could not hold, so it is not read."""
    proc = Path("/proc/self/status")
    if not proc.exists():
        pytest.skip("no /proc here")
    link = tmp_path / "x.policy.json"
    link.symlink_to(proc)
    with pytest.raises(ValueError, match="0 bytes|empty") as error:
        read_json_data(link, 1 << 20)
    assert "\n" not in str(error.value)


def test_regular_files_are_read_and_the_size_cap_holds(tmp_path):
    path = tmp_path / "x.policy.json"
    path.write_text(json.dumps({"a": [1, 2, 3]}))
    assert read_json_data(path, 1 << 10) == {"a": [1, 2, 3]}
    with pytest.raises(ValueError, match="bytes; expected a file under 8 bytes"):
        read_json_data(path, 8)
    for bad in (tmp_path / "missing.json", tmp_path):
        with pytest.raises(ValueError, match="cannot be read|not a regular file"):
            read_json_data(bad, 1 << 10)
