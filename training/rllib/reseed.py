"""What RLlib's algorithm checkpoint lacks, so a resumed run repeats an uninterrupted one exactly (issue 49): every
random stream of an iteration drawn from (run seed, iteration) alone, and PPO's adaptive KL coefficients.

RLlib's algorithm checkpoint holds the modules, the optimizer and the metrics, but not the PPO learner's KL
coefficients (``curr_kl_coeffs_per_module``, adapted after every update; a restored learner starts again from
``kl_coeff``): :func:`save_kl_coefficients` writes them beside the checkpoint as JSON, and
:func:`restore_kl_coefficients` sets them back. Nor does it hold any of the env runners'
random state: the deals of the game master, the matchup draws (:class:`~training.rllib.callbacks.GameCallbacks`),
the bots' generators, torch's generator that samples the policies' actions, nor the games under way. A run
restored from iteration ``k`` therefore cannot continue the stream an uninterrupted run was drawing. Instead, both
runs start every iteration afresh: :func:`reseed_iteration` is called before each ``Algorithm.train()`` and

- reseeds every env runner (the one in this process and every remote one) from (seed, iteration, its index):
  its sub-envs are reset on its next ``sample()`` with a seed of the iteration (the games under way at the end of
  the previous iteration, already sent to the learner as truncated fragments, are dropped), torch, numpy and
  ``random`` (action sampling), the matchup generators and the bots;
- reseeds this process's torch and numpy generators, which the learner (``num_learners: 0``, in this process)
  uses to shuffle the minibatches of every epoch.

What an iteration learns then depends only on the checkpoint it starts from and on (seed, iteration).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np

from ..run import derive_seed

#: Mixed into every iteration's seed, so these streams differ from the others derived from the run seed.
STREAM = 0x4E5D


def iteration_seed(seed: int, iteration: int) -> int:
    """The seed of 0-based iteration ``iteration`` of a run seeded ``seed``."""
    return derive_seed(seed, STREAM, iteration)


def _seed_globals(seed: int) -> None:
    import torch

    torch.manual_seed(seed)
    np.random.seed(seed)
    random.seed(seed)


def reseed_env_runner(runner, seed: int) -> None:
    """Reseed one env runner for an iteration whose seed is ``seed`` (runs in the env runner's process)."""
    from .callbacks import GameCallbacks

    index = int(runner.worker_index or 0)
    own = derive_seed(seed, index)
    _seed_globals(own)
    # RLlib resets the sub-envs with `_seed` (sub-env i: `_seed + i`) on the reset it does while
    # `_needs_initial_reset` holds; the game master mixes in the env runner's index.
    runner._seed = seed
    runner._needs_initial_reset = True
    for callback in getattr(runner, "_callbacks", None) or ():
        if isinstance(callback, GameCallbacks):
            callback.reseed(own)
    module = getattr(runner, "module", None)
    for module_id in sorted(module.keys()) if module is not None else ():
        reseed = getattr(module[module_id], "reseed", None)
        if reseed is not None:
            reseed(derive_seed(own, int.from_bytes(module_id.encode()[:8], "little")))


def reseed_iteration(algo, seed: int, iteration: int) -> None:
    """Before ``algo.train()`` of 0-based iteration ``iteration``: reseed every env runner and this process's
    learner (module docstring)."""
    value = iteration_seed(seed, iteration)
    algo.env_runner_group.foreach_env_runner(lambda runner: reseed_env_runner(runner, value), local_env_runner=True)
    _seed_globals(derive_seed(value, 0x1EA2))


#: The file in an algorithm checkpoint folder that holds each trained module's KL coefficient.
KL_FILE = "kl_coefficients.json"


def save_kl_coefficients(algo, folder: Path, sides) -> None:
    """Write the PPO learner's current KL coefficient of each of ``sides`` into ``folder`` (a checkpoint)."""

    def read(learner) -> dict[str, float]:
        return {team: float(learner.curr_kl_coeffs_per_module[team]) for team in sides}

    coefficients = next(iter(algo.learner_group.foreach_learner(read))).get()  # one learner: num_learners 0
    Path(folder, KL_FILE).write_text(json.dumps(coefficients, sort_keys=True) + "\n")


def restore_kl_coefficients(algo, folder: Path, sides) -> None:
    """Set the learner's KL coefficients from ``folder``'s :data:`KL_FILE` (a checkpoint saved without one, by an
    older version, leaves RLlib's restored ``kl_coeff``).

    Raises:
        ValueError: naming the file, for one that is not a JSON object of a finite number per side.
    """
    path = Path(folder, KL_FILE)
    if not path.exists():
        return
    try:
        coefficients = json.loads(path.read_text())
        values = {team: float(coefficients[team]) for team in sides}
    except (ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path}: expected a JSON object of one KL coefficient per side {list(sides)} ({error})") from None
    if not all(np.isfinite(v) and v >= 0 for v in values.values()):
        raise ValueError(f"{path}: expected finite, non-negative KL coefficients, got {values}")

    def write(learner) -> None:
        for team, value in values.items():
            learner.curr_kl_coeffs_per_module[team].data.fill_(value)

    algo.learner_group.foreach_learner(write)
