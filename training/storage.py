"""The run folder and its atomic writes (a kill never leaves a half-written file behind a final name).

Layout of ``<output_dir>/<name>/``::

    config.yaml                      the validated config of the run
    state.json                       completed generations (a count) and per-generation results, 1-based (for --resume)
    checkpoints/gen_001/pirates.zip  MaskablePPO snapshots, one folder per generation (1-based names)
    checkpoints/gen_001/mutineers.zip
    progress.csv                     one row per PPO update: generation, team, SB3's rollout/train values
    generations.csv                  one row per generation: steps, steps/s, win rates against the heuristic
    tensorboard/<team>/              SB3 TensorBoard events, one file per generation (``….gen_002``)
    evaluation.json / .csv / .md     the final (default) evaluation: newest generation, the config's games
    evaluation_gen002_games30.*      any other traitors-eval run (here generation 2, 30 games per cell)
    winrates.png                     trained teams against the heuristic across generations

A generation counts as completed once ``state.json`` says so; that file is replaced last.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

from traitors_env.agents.run_folder import RunFolder, RunFolderError
from traitors_env.files import atomic_write_text

__all__ = ["EPISODES_ENTRY", "RunFolder", "RunFolderError", "atomic_write_text", "save_model_atomic"]

#: The zip entry :func:`save_model_atomic` adds: the episodes SB3 averages its ``rollout/ep_*`` logs over, as JSON
#: (SB3 itself pickles them into ``data``, which a resume never unpickles: :func:`training.resume.load_checkpoint`).
EPISODES_ENTRY = "ep_info_buffer.json"


def save_model_atomic(model, path: Path) -> None:
    """``model.save`` to a temporary ``.zip`` beside ``path``, then ``os.replace`` (SB3 appends ``.zip`` otherwise).

    The zip also gets ``ep_info_buffer.json`` (:data:`EPISODES_ENTRY`): the episodes SB3's
    ``rollout/ep_*`` logs average over, as JSON, so that a resumed run, which never unpickles SB3's own copy in
    ``data``, logs what the uninterrupted run logs. SB3's loader ignores the entry.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.tmp.zip")
    model.save(tmp)
    episodes = [{key: _plain(value) for key, value in episode.items()} for episode in model.ep_info_buffer or ()]
    with zipfile.ZipFile(tmp, "a") as archive:
        archive.writestr(EPISODES_ENTRY, json.dumps(episodes))
    os.replace(tmp, path)


def _plain(value):
    """A numpy scalar of VecMonitor's episode info as the JSON number or bool it holds (exactly: float32 in a double)."""
    return value.item() if hasattr(value, "item") else value
