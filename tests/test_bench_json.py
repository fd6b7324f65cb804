"""``traitors-bench --json PATH`` (issue 49): the path is checked before the measurement (a folder, a missing
folder or an unwritable one is a usage error at once, not after minutes of measuring), and the file is written
atomically (a failure while writing leaves the old file as it was)."""

from __future__ import annotations

import json
import os

import pytest

from traitors_env import benchmark
from traitors_env.files import output_problem


def _never_measure(*args, **kwargs):
    raise AssertionError("measured although --json names a path that cannot be written")


@pytest.mark.parametrize("target", ["folder", "missing/bench.json", "file/bench.json"])
def test_a_json_path_that_cannot_be_written_is_refused_before_measuring(target, tmp_path, monkeypatch, capsys):
    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_text("x", encoding="utf-8")
    monkeypatch.setitem(benchmark.main.__globals__, "run_benchmark", _never_measure)
    with pytest.raises(SystemExit) as exit_:
        benchmark.main(["--quick", "--no-leduc", "--quiet", "--json", str(tmp_path / target)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "--json" in err and str(tmp_path / target) in err


def test_the_training_benchmark_checks_its_json_path_before_measuring(tmp_path, monkeypatch, capsys):
    pytest.importorskip("sb3_contrib")
    from training import bench

    monkeypatch.setattr(bench, "run_training_benchmark", _never_measure)
    with pytest.raises(SystemExit) as exit_:
        bench.main(["--backends", "sb3", "--seconds", "1", "--json", str(tmp_path)])
    assert exit_.value.code == 2 and "is a folder; expected a file" in capsys.readouterr().err


def test_a_failed_write_leaves_the_old_file_as_it_was(tmp_path, monkeypatch):
    path = tmp_path / "bench.json"
    path.write_text('{"old": true}\n', encoding="utf-8")
    # a result that does not serialise half-way through (as a kill in the middle of the write would leave it)
    monkeypatch.setitem(benchmark.main.__globals__, "run_benchmark", lambda **_: {"meta": {}, "bad": object()})
    monkeypatch.setitem(benchmark.main.__globals__, "format_report", lambda result: "")
    with pytest.raises(TypeError):
        benchmark.main(["--quick", "--no-leduc", "--quiet", "--json", str(path)])
    assert json.loads(path.read_text(encoding="utf-8")) == {"old": True}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bench.json"]  # no temporary file left behind


def test_a_folder_that_is_not_writable_is_named(tmp_path, monkeypatch):
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p) == str(tmp_path) else real(p, mode))
    problem = output_problem(tmp_path / "bench.json", folder=False)  # root may write anywhere: os.access stands in
    assert problem == f"{str(tmp_path / 'bench.json')!r} cannot be written: the folder {str(tmp_path)!r} is not writable"
    assert output_problem(tmp_path / "new" / "bench.json", folder=False, make_parents=False).endswith("does not exist")
    assert output_problem(tmp_path / "new" / "bench.json", folder=False) is not None  # it would be made in tmp_path
