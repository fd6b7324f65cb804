"""Stopping a run and resuming it so that its folder reads like an uninterrupted run's.

A generation counts as completed once ``state.json`` says so (:mod:`training.storage`); whatever a
generation cut short by Ctrl-C or a kill wrote before that is discarded, on Ctrl-C at once and on
``--resume`` again (a kill gives no chance earlier): its checkpoint folder, its TensorBoard event
files and its ``progress.csv`` rows. Its steps are then trained and logged once more from the last
completed snapshot, so every step appears in the logs exactly once, as if the run had never stopped.

Each generation's TensorBoard events go into files of their own, named after the generation
(``events.out.tfevents.<time>.<host>.<pid>.<n>.gen_003``, torch's ``filename_suffix``), in the
same folder per team, so TensorBoard still draws one curve per team and a resume can delete
exactly the files of the generations cut short. (Event files of runs started before this naming
cannot be told apart and are left alone.)
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import shlex
import shutil
from pathlib import Path

from .storage import EPISODES_ENTRY, RunFolder

__all__ = [
    "EPISODES_ENTRY",
    "RESTORED_COUNTERS",
    "discard_incomplete_generations",
    "load_checkpoint",
    "evaluate_command",
    "interrupted_message",
    "resume_command",
    "tensorboard_writer",
]

PROGRESS_CSV = "progress.csv"
#: A generation's checkpoint folder (``gen_003``) and the suffix of its TensorBoard event files (``….gen_003``).
GENERATION_FOLDER = re.compile(r"gen_(\d+)")
GENERATION_EVENTS = re.compile(r"\.gen_(\d+)$")


#: The counters of a ``MaskablePPO`` restored from a snapshot's ``data`` (plain JSON numbers in SB3's zip; the
#: hyperparameters and schedules come from the run's config, never from the file).
RESTORED_COUNTERS = ("num_timesteps", "_total_timesteps", "_num_timesteps_at_start", "_episode_num", "_n_updates",
                     "_current_progress_remaining")
#: the one counter that is a fraction (of training left, 1 → 0), not a count
_FRACTIONS = ("_current_progress_remaining",)
#: the largest count accepted: SB3 keeps its counters in int64 arithmetic (numpy) in places
_MAX_COUNT = 2**63 - 1


def _counter_error(key: str, value) -> str | None:
    """Why ``value`` cannot be the counter ``key`` (a crafted 1e300 or NaN trains 0 steps and reports success),
    or ``None``."""
    if key in _FRACTIONS:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1
        return None if ok else "a number from 0 to 1"
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= _MAX_COUNT
    return None if ok else "a non-negative integer"


def load_checkpoint(path: Path, model) -> None:
    """Restore the snapshot at ``path`` into ``model``, a fresh ``MaskablePPO`` built from the run's config
    (:func:`training.sb3.new_model`, the same arguments as when the run started), to train on from a resumed
    generation: its policy and optimizer state, its counters (:data:`RESTORED_COUNTERS`) and the episodes of its
    ``rollout/ep_*`` logs. Data only: SB3's own ``MaskablePPO.load`` would unpickle the zip's ``:serialized:``
    entries (code, in a crafted file); here they are never read (docs/security.md).

    Raises:
        PolicyLoadError: if ``path`` is missing or is not a readable MaskablePPO zip of this run's architecture (a
            truncated or damaged file), or a counter is not a non-negative integer (``_current_progress_remaining``:
            a number from 0 to 1), naming the file (and the counter); nothing in the run folder is changed.
    """
    from traitors_env.agents.checkpoint import PolicyLoadError, one_line, read_snapshot, snapshot_activation

    if not Path(path).is_file():
        raise PolicyLoadError(f"cannot resume: checkpoint {str(path)!r} is missing")
    try:
        data, params = read_snapshot(path)
        snapshot_activation(path, data)  # another policy class is refused
        model.policy.load_state_dict(params["policy"], strict=True)
        model.policy.optimizer.load_state_dict(params["policy.optimizer"])
        episodes = _saved_episodes(path)
    except Exception as error:  # PolicyLoadError, a missing optimizer, weights of another net_arch, …
        raise PolicyLoadError(
            f"cannot resume: checkpoint {str(path)!r} is not a readable MaskablePPO zip ({type(error).__name__}: "
            f"{one_line(error)}); restore it, or start over with --force"
        ) from None
    for key in RESTORED_COUNTERS:  # all checked before any is set
        if key in data and (expected := _counter_error(key, data[key])):
            raise PolicyLoadError(f"cannot resume: checkpoint {str(path)!r} has {key} = {data[key]!r} in its data; "
                                  f"expected {expected}; restore it, or start over with --force")
    for key in RESTORED_COUNTERS:
        if key in data:
            setattr(model, key, data[key])
    if episodes is not None:
        from collections import deque

        model.ep_info_buffer = deque(episodes, maxlen=model._stats_window_size)
        model.ep_success_buffer = deque(maxlen=model._stats_window_size)  # SB3 makes both or neither


def _saved_episodes(path: Path) -> list[dict] | None:
    """The episodes of :data:`EPISODES_ENTRY` with VecMonitor's types (``r`` float32, ``l`` int32: SB3 averages
    them as such), ``None`` for a snapshot without the entry (written before it existed)."""
    import zipfile

    import numpy as np

    from traitors_env.agents.checkpoint import MAX_DATA_BYTES

    with zipfile.ZipFile(path) as archive:
        if EPISODES_ENTRY not in archive.namelist():
            return None
        size = archive.getinfo(EPISODES_ENTRY).file_size
        if size > MAX_DATA_BYTES:  # checked before reading: a zip bomb is refused, not inflated
            raise ValueError(f"{EPISODES_ENTRY} holds {size} bytes uncompressed; expected at most {MAX_DATA_BYTES}")
        episodes = json.loads(archive.read(EPISODES_ENTRY).decode("utf-8"))
    if not isinstance(episodes, list) or not all(isinstance(e, dict) and {"r", "l"} <= set(e) for e in episodes):
        raise ValueError(f"{EPISODES_ENTRY} is not a list of episodes (objects with 'r' and 'l')")
    return [{**e, "r": np.float32(e["r"]), "l": np.int32(e["l"])} for e in episodes]


def _event_suffix(generation: int) -> str:
    return f".gen_{generation:03d}"


def tensorboard_writer(folder: Path, generation: int):
    """SB3's TensorBoard output for one generation (1-based), its event file named after it.

    Returns a ``stable_baselines3.common.logger.TensorBoardOutputFormat``.
    """
    from stable_baselines3.common.logger import TensorBoardOutputFormat
    from torch.utils.tensorboard import SummaryWriter

    class GenerationTensorBoard(TensorBoardOutputFormat):
        def __init__(self) -> None:  # SB3's own __init__ opens a writer without a suffix
            self.writer = SummaryWriter(log_dir=str(folder), filename_suffix=_event_suffix(generation))
            self._is_closed = False

    return GenerationTensorBoard()


def discard_incomplete_generations(run: RunFolder, completed: int) -> None:
    """Remove what generations after ``completed`` (a count: 1-based generations ``> completed``) left behind."""
    if run.checkpoints.is_dir():
        for folder in run.checkpoints.iterdir():
            found = GENERATION_FOLDER.fullmatch(folder.name)
            # only gen_NNN itself: a folder of another name (gen_001_best, a user's copy) is not the run's to delete
            if found and folder.is_dir() and not folder.is_symlink() and int(found.group(1)) > completed:
                shutil.rmtree(folder)
    for events in (run.path / "tensorboard").glob("*/events.out.tfevents.*.gen_*"):
        found = GENERATION_EVENTS.search(events.name)
        if found and int(found.group(1)) > completed:
            events.unlink()
    _truncate_progress(run.path / PROGRESS_CSV, completed)


def _truncate_progress(path: Path, completed: int) -> None:
    """Keep the ``progress.csv`` rows of generations ``<= completed`` (its column ``generation`` is 1-based)."""
    if not path.exists():
        return
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        fields = reader.fieldnames
        rows = [row for row in reader if int(row["generation"]) <= completed] if fields else []
    if not fields:  # killed before the header was written: the next write starts the file again
        path.unlink()
        return
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def resume_command(args: argparse.Namespace, rllib: bool = False) -> str:
    """The ``traitors-train`` command line that resumes the run ``args`` (parsed ``traitors-train`` arguments)
    started: the same config file and overrides, plus ``--resume`` (and, for an RLlib run, ``rllib``, which this
    user trained: ``--trust-checkpoint``)."""
    words = ["traitors-train", "--config", args.config, "--resume"] + (["--trust-checkpoint"] if rllib else [])
    for flag in ("name", "output_dir", "seed", "generations"):
        value = getattr(args, flag, None)
        if value is not None:
            words += ["--" + flag.replace("_", "-"), str(value)]
    return shlex.join(words)


def evaluate_command(run_path: Path) -> str:
    """The command line that evaluates the run folder ``run_path`` of any game: ``traitors-eval --run``."""
    return shlex.join(["traitors-eval", "--run", str(run_path)])


def interrupted_message(args: argparse.Namespace, config) -> str:
    """What Ctrl-C left of the run ``args`` asked for (``config``: its :class:`RunConfig`, ``None`` if it was
    interrupted before the config was read) and the command that goes on from there."""
    if config is None:
        return "interrupted before the run started; nothing was written"
    run = RunFolder(config.run_dir)
    completed = run.completed_generations()
    total = config.training.generations
    if completed >= total:
        return (
            f"interrupted after training: all {total} generations are saved in {run.path}. Evaluate them with\n"
            f"  {evaluate_command(run.path)}\nor resume the run (training is done, it evaluates) with\n  {resume_command(args, config.backend == 'rllib')}"
        )
    if not run.config_path.is_file():
        return "interrupted before the run folder was written; nothing was saved"
    saved = f"generations 1–{completed} are" if completed > 1 else "generation 1 is" if completed else "no generation is"
    return (
        f"interrupted during generation {completed + 1} of {total}: {saved} saved in {run.path}, "
        f"generation {completed + 1} was discarded. Resume (from generation {completed + 1}) with\n"
        f"  {resume_command(args, config.backend == 'rllib')}"
    )
