"""Reading a training run folder: which generations are completed, where their checkpoints lie.

Training (``training/storage.py``) writes run folders; agents by spec read them (a run folder plays
its newest completed generation). A generation counts as completed once ``state.json`` says so.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..files import atomic_write_text

__all__ = ["RunFolder", "RunFolderError"]


class RunFolderError(ValueError):
    """A run folder whose ``state.json`` cannot be read (the message names the file and what to do)."""


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
        """``<team>.zip`` (SB3 backend), or ``<team>.msgpack`` where the JAX backend wrote one."""
        folder = self.generation_dir(generation)
        jax_checkpoint = folder / f"{team}.msgpack"
        return jax_checkpoint if jax_checkpoint.is_file() else folder / f"{team}.zip"

    def read_state(self) -> dict | None:
        """The saved state, or ``None`` for a run that has not completed a generation.

        ``completed_generations`` is a count; each ``history`` entry's ``generation`` is 1-based, like the
        checkpoint folders and every log. A ``state.json`` written before (0-based history) is read 1-based.

        Raises:
            RunFolderError: if ``state.json`` is not a JSON object with a whole number ≥ 0 as ``completed_generations``
                and a list of objects (or nothing) as ``history``.
        """
        if not self.state_path.is_file():
            return None
        try:
            state = json.loads(self.state_path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            state = error
        count = state.get("completed_generations") if isinstance(state, dict) else None
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            detail = f": {state}" if isinstance(state, Exception) else ""
            raise RunFolderError(
                f"{str(self.state_path)!r} is not a run state (expected a JSON object with a whole number >= 0 as "
                f"'completed_generations'){detail}; restore it, or train the run again with traitors-train --force (which deletes it)"
            )
        history = state.get("history") or []
        bad = next((i for i, entry in enumerate(history) if not isinstance(entry, dict)), None) \
            if isinstance(history, list) else "history"
        if bad is not None:
            what = f"entry {bad} is {history[bad]!r:.80}" if isinstance(bad, int) else f"it is {history!r:.80}"
            raise RunFolderError(
                f"{str(self.state_path)!r} is not a run state: its 'history' must be a list of JSON objects, one per "
                f"completed generation; {what}. Restore it, or train the run again with traitors-train --force"
            )
        if history and history[0].get("generation") == 0:  # the old 0-based numbering: generation 1 was 0
            for entry in history:
                entry["generation"] += 1
        return state

    def completed_generations(self, state: dict | None = None) -> int:
        """Generations the run has completed (0 before the first): what ``state.json`` says, not the folders.

        ``state``: the content of ``state.json`` if the caller has already read it (else it is read).
        """
        state = state or self.read_state()
        return state["completed_generations"] if state else 0

    def newest_generation_dir(self) -> Path | None:
        """The folder of the newest completed generation (what the run folder plays as an agent), ``None`` before
        the first. Raises RunFolderError for a ``state.json`` that cannot be read."""
        completed = self.completed_generations()
        return self.generation_dir(completed - 1) if completed else None

    def why_none_completed(self) -> str:
        """Why a run folder has no completed generation, for an error message: no ``state.json`` yet, or one that
        names none."""
        if not self.state_path.is_file():
            return "it has no state.json: its training has not finished a generation, or it is not a run folder"
        return "its state.json names none"

    def write_state(self, state: dict) -> None:
        atomic_write_text(self.state_path, json.dumps(state, indent=2))
