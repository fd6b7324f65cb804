"""Atomic writes give their files the process's usual mode without touching the process-wide umask (issue 49):
``os.umask`` can only be read by setting it, and the old ``_umask()`` set it to 0 for a moment, so that a thread
writing at the same time got a file with the wrong mode."""

from __future__ import annotations

import os
import stat
import threading
import time

import pytest

from traitors_env import files


@pytest.fixture
def umask_027():
    old = os.umask(0o027)  # not the usual 022, so that a mode from a wrong mask shows
    yield 0o027
    os.umask(old)


def test_concurrent_atomic_writes_all_get_the_mode_of_the_process_umask(tmp_path, monkeypatch, umask_027):
    real_umask = os.umask

    def slow_umask(mask):  # widen the moment a changed umask lasts, so that a race shows every time
        old = real_umask(mask)
        time.sleep(0.002)
        return old

    monkeypatch.setattr(os, "umask", slow_umask)
    errors = []

    def writer(index):
        try:
            for j in range(15):
                files.atomic_write_text(tmp_path / f"atomic_{index}_{j}.txt", "x")
                with open(tmp_path / f"plain_{index}_{j}.txt", "w", encoding="utf-8") as handle:  # another thread's
                    handle.write("x")  # ordinary file, made while the writers run
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    monkeypatch.undo()
    assert not errors
    modes = {path.name: stat.S_IMODE(path.stat().st_mode) for path in tmp_path.iterdir()}
    assert len(modes) == 6 * 15 * 2
    wrong = {name: oct(mode) for name, mode in modes.items() if mode != 0o666 & ~umask_027}
    assert not wrong, f"{len(wrong)} files with a mode other than {oct(0o666 & ~umask_027)}, e.g. {sorted(wrong.items())[:4]}"
    assert real_umask(0o027) == umask_027  # the process's umask is as it was


def test_the_umask_is_read_without_setting_it_where_proc_has_it(monkeypatch, umask_027):
    if not os.path.exists("/proc/self/status"):
        pytest.skip("no /proc: the umask is read once, under a lock, and kept")
    calls = []
    monkeypatch.setattr(os, "umask", lambda mask: calls.append(mask) or 0)
    assert files._umask() == umask_027 and calls == []
