"""Ctrl-C during an RLlib run (issue 14): ``traitors-train`` in a subprocess, SIGINT to its whole process group (what a
terminal's Ctrl-C does, Ray's own processes included) once an iteration is saved. The run must end with status 130,
keep only completed iterations (no cut checkpoint, no temporary folder, no TensorBoard file of the cut iteration),
stop every process Ray started, and print the exact ``traitors-train ... --resume`` command, as the SB3 backend does.
Skipped without the ``rllib`` extra.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

pytest.importorskip("ray.rllib")
pytest.importorskip("PIL")

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "configs" / "rllib_tiny.yaml"


def _processes() -> dict[int, tuple[int, str, str]]:
    """pid → (parent pid, state, name) of every process, from /proc."""
    table = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            name, rest = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") + 2 :].split()
            table[int(entry.name)] = (int(rest[1]), rest[0], name)
    return table


def _descendants(pid: int) -> dict[int, str]:
    table, found = _processes(), {pid}
    grown = True
    while grown:
        grown = False
        for child, (parent, _, _) in table.items():
            if parent in found and child not in found:
                found.add(child)
                grown = True
    return {p: table[p][2] for p in found - {pid}}


def _alive(pids) -> dict[int, str]:
    table = _processes()
    return {p: table[p][2] for p in pids if p in table and table[p][1] != "Z"}


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")
@pytest.mark.skipif(
    os.environ.get("TRAITORS_INTERRUPT_TESTS") != "1",
    reason="timing-dependent under load (a SIGINT run once outlived its 120 s wait on a busy 2-core CI machine); "
    "run with TRAITORS_INTERRUPT_TESTS=1",
)
def test_ctrl_c_keeps_completed_iterations_stops_ray_and_prints_the_resume_command(tmp_path):
    """configs/rllib_tiny.yaml with two remote env runners (Ray actors), as configs/rllib_quick.yaml (~20 s)."""
    config = yaml.safe_load(TINY.read_text())
    config["training"]["generations"] = 1000  # cannot end before the Ctrl-C
    config["rllib"]["num_env_runners"] = 2
    path = tmp_path / "rllib_ctrl_c.yaml"
    path.write_text(yaml.safe_dump(config))
    output = tmp_path / "runs"
    command = [sys.executable, "-m", "training.train", "--config", str(path), "--output-dir", str(output), "--no-eval"]
    # Loopback only: a local Ray otherwise binds the machine's outward address.
    env = dict(os.environ, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0", PYTHONUNBUFFERED="1")
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    state_path = output / config["name"] / "state.json"
    try:
        deadline = time.monotonic() + 240
        while not (state_path.is_file() and json.loads(state_path.read_text())["completed_generations"] >= 1):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "no iteration completed in 240 s"
            time.sleep(0.2)
        ray_processes = _descendants(process.pid)
        assert "raylet" in ray_processes.values()  # the run started its own local Ray
        os.killpg(process.pid, signal.SIGINT)  # Ctrl-C: the driver and Ray's processes alike
        stdout, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    assert process.returncode == 130, (stdout[-2000:], stderr[-3000:])
    resume = shlex.join(["traitors-train", "--config", str(path), "--resume", "--trust-checkpoint", "--output-dir",
                         str(output)])
    assert f"\n  {resume}\n" in stderr, stderr[-3000:]

    state = json.loads(state_path.read_text())
    completed = state["completed_generations"]
    assert completed >= 1 and len(state["history"]) == completed
    run = state_path.parent
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == [f"gen_{g:03d}" for g in range(1, completed + 1)]
    events = sorted((run / "tensorboard" / "rllib").glob("events.out.tfevents.*"))
    assert [int(e.name.rsplit(".gen_", 1)[1]) for e in events] == list(range(1, completed + 1))
    deadline = time.monotonic() + 20
    while _alive(ray_processes) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not _alive(ray_processes), "processes of the run's Ray outlived it"


def test_iteration_record_keeps_only_nodes_that_sampled():
    """A resumed run's restored metrics name the old Ray node with NaN episodes (review finding): no crash, no entry."""
    from training.rllib.runner import iteration_record

    result = {"env_runners": {"episodes_per_node": {"old-node": float("nan"), "new-node": 7.0, "idle": 0}}}
    assert iteration_record(result, 0, 1.0)["episodes_per_node"] == {"new-node": 7}


@pytest.mark.slow
def test_resume_in_a_new_process_trains_on(tmp_path):
    """traitors-train, then traitors-train --resume from another process (a new local Ray, new node ids)."""
    output = tmp_path / "runs"
    env = dict(os.environ, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0")
    base = [sys.executable, "-m", "training.train", "--config", str(TINY), "--output-dir", str(output), "--no-eval"]
    first = subprocess.run(base, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr[-2000:]
    generations = yaml.safe_load(TINY.read_text())["training"]["generations"]
    resumed = subprocess.run(
        base + ["--resume", "--trust-checkpoint", "--generations", str(generations + 1)], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=600,
    )
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    import json

    state = json.loads((output / yaml.safe_load(TINY.read_text())["name"] / "state.json").read_text())
    assert state["completed_generations"] == generations + 1
