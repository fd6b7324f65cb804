"""The run folder and its atomic writes (a kill never leaves a half-written file behind a final name).

Layout of ``<output_dir>/<name>/``::

    config.yaml                      the validated config of the run
    state.json                       completed generations and per-generation results (for --resume)
    checkpoints/gen_001/pirates.zip  MaskablePPO snapshots, one folder per generation (1-based names)
    checkpoints/gen_001/mutineers.zip
    progress.csv                     one row per PPO update: generation, team, SB3's rollout/train values
    generations.csv                  one row per generation: steps, steps/s, win rates against the heuristic
    tensorboard/<team>/              SB3 TensorBoard events
    evaluation.json / .csv / .md     the final (default) evaluation: newest generation, the config's games
    evaluation_gen002_games30.*      any other traitors-eval run (here generation 2, 30 games per cell)
    winrates.png                     trained teams against the heuristic across generations

A generation counts as completed once ``state.json`` says so; that file is replaced last.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from traitors_env.files import atomic_write_text

__all__ = ["RunFolder", "atomic_write_text", "save_model_atomic"]


class RunFolder:
    """Paths and state of one run folder."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    @property
    def config_path(self) -> Path:
        return self.path / "config.yaml"

    @property
    def state_path(self) -> Path:
        return self.path / "state.json"

    @property
    def checkpoints(self) -> Path:
        return self.path / "checkpoints"

    def generation_dir(self, generation: int) -> Path:
        """Folder of generation ``generation`` (0-based index; the folder name is 1-based)."""
        return self.checkpoints / f"gen_{generation + 1:03d}"

    def checkpoint(self, generation: int, team: str) -> Path:
        return self.generation_dir(generation) / f"{team}.zip"

    def read_state(self) -> dict | None:
        """The saved state, or ``None`` for a run that has not completed a generation."""
        if not self.state_path.is_file():
            return None
        return json.loads(self.state_path.read_text(encoding="utf-8"))

    def completed_generations(self, state: dict | None = None) -> int:
        """Generations the run has completed (0 before the first): what ``state.json`` says, not the folders.

        ``state``: the content of ``state.json`` if the caller has already read it (else it is read).
        """
        state = state or self.read_state()
        return state["completed_generations"] if state else 0

    def write_state(self, state: dict) -> None:
        atomic_write_text(self.state_path, json.dumps(state, indent=2))


def save_model_atomic(model, path: Path) -> None:
    """``model.save`` to a temporary ``.zip`` beside ``path``, then ``os.replace`` (SB3 appends ``.zip`` otherwise)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.tmp.zip")
    model.save(tmp)
    os.replace(tmp, path)
