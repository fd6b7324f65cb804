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
import shlex
import shutil
from pathlib import Path

from .storage import RunFolder

__all__ = [
    "discard_incomplete_generations",
    "load_checkpoint",
    "evaluate_command",
    "interrupted_message",
    "resume_command",
    "tensorboard_writer",
]

PROGRESS_CSV = "progress.csv"


def load_checkpoint(path: Path, venv):
    """The ``MaskablePPO`` model saved at ``path``, attached to ``venv``, to train on from a resumed generation.

    Raises:
        PolicyLoadError: if ``path`` is missing or is not a readable MaskablePPO zip (a truncated or damaged
            file), naming the file; nothing in the run folder is changed.
    """
    from sb3_contrib import MaskablePPO

    from traitors_env.agents.checkpoint import PolicyLoadError

    if not Path(path).is_file():
        raise PolicyLoadError(f"cannot resume: checkpoint {str(path)!r} is missing")
    try:
        return MaskablePPO.load(path, env=venv, device="cpu")
    except Exception as error:  # zipfile.BadZipFile, EOFError, KeyError, pickle errors … from a damaged file
        raise PolicyLoadError(
            f"cannot resume: checkpoint {str(path)!r} is not a readable MaskablePPO zip ({type(error).__name__}: "
            f"{error}); restore it, or start over with --force"
        ) from None


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
            if folder.is_dir() and folder.name.startswith("gen_") and int(folder.name[4:]) > completed:
                shutil.rmtree(folder)
    for events in (run.path / "tensorboard").glob("*/events.out.tfevents.*.gen_*"):
        if int(events.name.rsplit(".gen_", 1)[1]) > completed:
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


def resume_command(args: argparse.Namespace) -> str:
    """The ``traitors-train`` command line that resumes the run ``args`` (parsed ``traitors-train`` arguments)
    started: the same config file and overrides, plus ``--resume``."""
    words = ["traitors-train", "--config", args.config, "--resume"]
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
            f"  {evaluate_command(run.path)}\nor resume the run (training is done, it evaluates) with\n  {resume_command(args)}"
        )
    if not run.config_path.is_file():
        return "interrupted before the run folder was written; nothing was saved"
    saved = f"generations 1–{completed} are" if completed > 1 else "generation 1 is" if completed else "no generation is"
    return (
        f"interrupted during generation {completed + 1} of {total}: {saved} saved in {run.path}, "
        f"generation {completed + 1} was discarded. Resume (from generation {completed + 1}) with\n"
        f"  {resume_command(args)}"
    )
