"""What every backend of ``traitors-train`` shares, below all of them: the run folder, seeds, errors, logs.

A leaf of :mod:`training`: the command (:mod:`training.train`) and every backend (:mod:`training.sb3`,
:mod:`training.jax_backend.train`, :mod:`training.rllib.runner`) import it; it imports none of them.

- :class:`RunError` and :func:`prepare_run_folder`: create or reopen ``<output_dir>/<name>/`` (``--resume``,
  ``--force``), refusing a resumed config that changes what was trained (:data:`RESUMABLE_CHANGES`);
- :func:`derive_seed`: every seed of a run from the run seed and indices;
- :data:`PROGRESS_COLUMNS`: the columns of ``progress.csv`` (one row per PPO update, SB3 and JAX);
- :func:`write_generations_csv`: ``generations.csv`` (one row per generation, SB3 and JAX);
- :func:`check_backend_extra`: the extra a backend needs, checked before the run folder is touched.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import numpy as np

from .config import RunConfig, dump_config, load_config
from .resume import discard_incomplete_generations
from .storage import RunFolder, atomic_write_text

__all__ = [
    "BACKEND_EXTRAS",
    "PROGRESS_COLUMNS",
    "RESUMABLE_CHANGES",
    "RLLIB_RESUME_REFUSED",
    "RunError",
    "check_backend_extra",
    "derive_seed",
    "plural",
    "all_trained",
    "prepare_run_folder",
    "saved_generations",
    "write_generations_csv",
]

#: Config keys that may differ between a run and its --resume (they do not change what was trained).
RESUMABLE_CHANGES = {
    ("training", "generations"),
    ("league", "iterations"),  # a league's generations (training.generations follows them)
    ("training", "n_envs"),
    ("training", "vec_env"),
    ("training", "torch_threads"),
    ("training", "progress_bar"),
    ("evaluation",),
    ("rllib", "address"),  # where and how widely an RLlib run samples does not change what it trains
    ("rllib", "num_env_runners"),
    ("rllib", "num_cpus"),
    ("rllib", "object_store_memory_mb"),
    ("rllib", "keep_checkpoints"),  # what is kept on disk, not what is trained
}
#: The columns of ``progress.csv``: one row per PPO update of a side (its key in ``team``).
PROGRESS_COLUMNS = (
    "generation",
    "team",
    "time/total_timesteps",
    "time/fps",
    "rollout/ep_len_mean",
    "rollout/ep_rew_mean",
    "rollout/win_rate",
    "rollout/game_decisions_per_s",
    "train/approx_kl",
    "train/clip_fraction",
    "train/entropy_loss",
    "train/explained_variance",
    "train/loss",
    "train/policy_gradient_loss",
    "train/value_loss",
    "train/learning_rate",
)
#: The modules of each optional backend's extra (pyproject.toml), checked before the run folder is touched.
BACKEND_EXTRAS = {"jax": ("jax", ("jax", "flax", "optax", "pgx")), "rllib": ("rllib", ("ray",)),
                  "sb3": ("train", ("torch", "stable_baselines3", "sb3_contrib"))}  # sb3: a wheel installed without [train]


#: Why ``--resume`` of an RLlib run needs ``--trust-checkpoint`` (docs/security.md): RLlib restores its algorithm
#: checkpoint by unpickling, so a run folder from someone else could run code.
RLLIB_RESUME_REFUSED = ("--resume of an RLlib run restores RLlib's checkpoint, which is a pickle and can run code: "
                        "resume only a run folder you trained yourself, and say so with --trust-checkpoint")


class RunError(RuntimeError):
    """A run folder that cannot be started or resumed as asked (the message says why and what to do)."""


def derive_seed(*parts: int) -> int:
    """A 32-bit seed (``int``) from the run seed and indices (generation, side…), by ``numpy.random.SeedSequence``."""
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1)[0])


def plural(count: int, noun: str) -> str:
    """``"1 generation"``, ``"2 generations"``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def check_backend_extra(config: RunConfig) -> None:
    """Raises :class:`RunError` naming the extra to install when ``config.backend`` needs one that is missing."""
    if config.backend not in BACKEND_EXTRAS:
        return
    extra, modules = BACKEND_EXTRAS[config.backend]
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        raise RunError(
            f"backend: {config.backend} needs the {extra} extra (pip install -e '.[{extra}]' in the checkout, "
            f"pip install 'traitors-aboard-rl[{extra}]' from a wheel or an index); "
            f"not installed: {', '.join(map(repr, missing))}"
        )


def _config_differences(old: dict, new: dict, prefix: tuple = ()) -> list[tuple]:
    diffs = []
    for key in sorted(set(old) | set(new)):
        path = prefix + (key,)
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            diffs += _config_differences(a, b, path)
        elif a != b:
            diffs.append(path)
    return diffs


def all_trained(config: RunConfig, completed: int) -> bool:
    """Whether ``completed`` generations are all the config asks for; if so, says so and how to train further."""
    if completed < config.training.generations:
        return False
    print(
        f"run {config.name!r} has completed all {plural(completed, 'generation')}; nothing to train "
        f"(pass --resume --generations {completed + 1} or more to train further)"
    )
    return True


def prepare_run_folder(config: RunConfig, resume: bool, force: bool = False) -> tuple[RunFolder, dict]:
    """Create or reopen the run folder; returns it and the state to continue from (``state.json``'s content, or a
    fresh one: ``{"completed_generations": 0, "history": [], "baselines_vs_heuristic": None}``).

    Raises:
        RunError: a folder that already holds a run without ``resume``/``force``; ``resume``
            with nothing to resume; a resumed config that changes what was trained.
    """
    run = RunFolder(config.run_dir)
    exists = run.config_path.exists()
    if exists and not resume:
        if not force:
            raise RunError(
                f"run folder {str(run.path)!r} already holds a run; pass --resume to continue it, --force to "
                f"start it over, or --name to start another run beside it (e.g. --name {_free_name(run.path)})"
            )
        shutil.rmtree(run.path)
        exists = False
    if resume:
        if not exists:
            raise RunError(
                f"nothing to resume: {str(run.path)!r} holds no run (no config.yaml); start it without --resume"
            )
        saved = load_config(run.config_path)
        changed = [
            d
            for d in _config_differences(saved.model_dump(mode="json"), config.model_dump(mode="json"))
            if not any(d[: len(allowed)] == allowed for allowed in RESUMABLE_CHANGES)
        ]
        if changed:
            keys = ", ".join(".".join(d) for d in changed)
            raise RunError(
                f"cannot resume {str(run.path)!r}: the config changes {keys}, which the saved run was trained with"
            )
    state = run.read_state() or {"completed_generations": 0, "history": [], "baselines_vs_heuristic": None}
    run.path.mkdir(parents=True, exist_ok=True)
    atomic_write_text(run.config_path, dump_config(config))
    # A generation cut short by a kill: its folder and logs go, it is trained and logged again.
    discard_incomplete_generations(run, state["completed_generations"])
    return run, state


def _free_name(path: Path) -> str:
    """``<name>-2`` (or -3, …): the first name beside ``path`` that holds no run folder yet."""
    return next(f"{path.name}-{i}" for i in range(2, 10_000) if not path.with_name(f"{path.name}-{i}").exists())


def saved_generations(config: RunConfig) -> int | None:
    """``training.generations`` of the run folder's saved ``config.yaml``, or ``None`` if there is none."""
    run = RunFolder(config.run_dir)
    if not run.config_path.is_file():
        return None
    return load_config(run.config_path).training.generations


def write_generations_csv(run: RunFolder, history: list[dict]) -> None:
    """``generations.csv``: one row per generation of ``history`` (``state.json``'s): seconds, and per side its
    learner steps, steps/s, game decisions/s, training win rate and win rates against the heuristic."""
    rows = []
    for h in history:
        row = {"generation": h["generation"], "seconds": h["seconds"]}
        # "roles": the history of a run of a general-sum game written before the SB3 loops became one
        for team, values in (h.get("teams") or h.get("roles") or {}).items():
            for key in ("learner_steps", "steps_per_second", "game_decisions_per_second", "train_win_rate"):
                row[f"{team}_{key}"] = values.get(key)
        for team, values in (h.get("vs_heuristic") or {}).items():
            for name, rate in values.items():
                row[f"{team}_{name}_vs_heuristic"] = round(rate["win_rate"], 4)
        rows.append(row)
    fields = list(dict.fromkeys(k for row in rows for k in row))
    lines = [",".join(fields)] + [
        ",".join("" if row.get(f) is None else str(row.get(f)) for f in fields) for row in rows
    ]
    atomic_write_text(run.path / "generations.csv", "\n".join(lines) + "\n")
