"""Agents that play team modules trained with Ray RLlib (``backend: rllib``; needs the ``rllib`` extra).

An RLlib run saves one algorithm checkpoint per iteration (``checkpoints/gen_001/``; of older iterations only
the team modules are kept, ``rllib.keep_checkpoints``); the team
modules lie in ``learner_group/learner/rl_module/pirates`` and ``.../mutineers``
(:class:`~traitors_env.agents.rllib_module.TeamPPOModule`). As agents by spec
(:func:`traitors_env.agents.spec.load_agent`) a spec may name:

- one module folder: plays every seat it is given;
- an algorithm checkpoint folder: its Pirates and Mutineers modules, by role (:class:`TeamAgent`);
- an RLlib run folder: its newest completed iteration.

Ray and torch are imported only when a module is loaded; :func:`is_rllib_checkpoint` only looks at files.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np

from ..games.traitors_aboard.actions import NUM_ACTIONS
from ..games.traitors_aboard.observation import OBS_SIZE
from .run_folder import RunFolder

__all__ = ["ModulePolicy", "is_rllib_checkpoint", "load_module_policy", "load_rllib_agent"]

#: Where an algorithm checkpoint keeps its modules.
MODULE_DIR = Path("learner_group") / "learner" / "rl_module"
TEAMS = ("pirates", "mutineers")
_MODULE_FILE = "class_and_ctor_args.pkl"  # written by RLlib's Checkpointable beside every saved module


def _newest_generation(path: Path) -> Path | None:
    if not (path / "checkpoints").is_dir():
        return None
    completed = RunFolder(path).completed_generations()
    return RunFolder(path).generation_dir(completed - 1) if completed else None


def is_rllib_checkpoint(path: str | Path) -> bool:
    """Whether ``path`` is an RLlib module folder, algorithm checkpoint or run folder (by its files only)."""
    path = Path(path)
    if not path.is_dir():
        return False
    if (path / _MODULE_FILE).is_file() or (path / MODULE_DIR).is_dir():
        return True
    newest = _newest_generation(path)
    return newest is not None and (newest / MODULE_DIR).is_dir()


class ModulePolicy:
    """The masked action probabilities of a saved :class:`~traitors_env.agents.rllib_module.TeamPPOModule`.

    Args:
        path: a module folder (``.../rl_module/pirates``).

    Raises:
        ValueError: if ``path`` holds no RLlib module, or one for other spaces than ``traitors_aboard_v0``'s.
    """

    def __init__(self, path: str | Path) -> None:
        path = Path(path)
        if not (path / _MODULE_FILE).is_file():
            raise ValueError(f"{str(path)!r} holds no RLlib module ({_MODULE_FILE} is missing)")
        import torch  # noqa: F401  (ray and torch only where a module is loaded)
        from ray.rllib.core.rl_module.rl_module import RLModule

        module = RLModule.from_checkpoint(str(path.resolve()))
        space = getattr(module, "observation_space", None)
        inner = getattr(space, "spaces", {}).get("observations")
        if getattr(inner, "shape", None) != (OBS_SIZE,) or getattr(module.action_space, "n", None) != NUM_ACTIONS:
            raise ValueError(
                f"RLlib module {str(path)!r} was trained on other spaces ({space}, {module.action_space}); "
                f"traitors_aboard_v0 has observations ({OBS_SIZE},) and {NUM_ACTIONS} actions"
            )
        self.path = str(path)
        self.module = module.eval()
        # The actor alone (its MLP encoder, then the policy head): ~5x faster than forward_inference, which also
        # runs the value network and RLlib's batch checks; the same logits (tests/test_rllib.py).
        encoder = getattr(getattr(module, "encoder", None), "actor_encoder", None)
        head = getattr(module, "pi", None)
        self._actor = (encoder.net, head.net) if hasattr(encoder, "net") and hasattr(head, "net") else None

    def logits(self, observation: np.ndarray, action_mask: np.ndarray, fast: bool = True) -> np.ndarray:
        """The module's unmasked action logits, shape ``(NUM_ACTIONS,)`` ``float64`` (``fast=False``: through
        RLlib's ``forward_inference``, whose masked entries are ``FLOAT_MIN``)."""
        import torch
        from ray.rllib.core.columns import Columns

        from .checkpoint import scale_observation

        observation = np.asarray(observation, dtype=np.float32)
        with torch.no_grad():
            if fast and self._actor is not None:
                encoder, head = self._actor
                out = head(encoder(torch.as_tensor(scale_observation(observation)[None])))
            else:
                batch = {
                    Columns.OBS: {
                        "observations": torch.as_tensor(observation[None]),
                        "action_mask": torch.as_tensor(np.asarray(action_mask, dtype=np.float32)[None]),
                    }
                }
                out = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
        return out[0].numpy().astype(np.float64)

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """Action probabilities, shape ``(NUM_ACTIONS,)`` ``float64``, zero outside ``action_mask``."""
        mask = np.asarray(action_mask)
        logits = np.where(mask > 0, self.logits(observation, mask), -np.inf)
        logits -= logits.max()
        weights = np.exp(logits)
        return weights / weights.sum()


def load_module_policy(path: str | Path) -> ModulePolicy:
    """:class:`ModulePolicy` of ``path``, cached per process and folder version."""
    state = Path(path) / _MODULE_FILE
    stamp = os.stat(state).st_mtime_ns if state.is_file() else 0
    return _cached(str(path), stamp)


@functools.lru_cache(maxsize=16)
def _cached(path: str, stamp: int) -> ModulePolicy:
    return ModulePolicy(path)


def load_rllib_agent(spec: str, path: Path, seed=None):
    """``(label, agent)`` for a module folder, algorithm checkpoint or run folder (see the module doc).

    Raises:
        traitors_env.agents.spec.AgentSpecError: naming the spec, for a folder without modules, a run
            without a completed iteration, or a missing extra.
    """
    from .checkpoint import PolicyAgent
    from .spec import AgentSpecError
    from .team import TeamAgent

    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)

    def agent(folder: Path):
        try:
            return PolicyAgent(load_module_policy(folder), seed=rng)
        except ImportError as error:
            raise AgentSpecError(f"agent {spec!r}: RLlib modules need the rllib extra (pip install -e '.[rllib]'): {error}") from None
        except ValueError as error:
            raise AgentSpecError(f"agent {spec!r}: {error}") from None

    if (path / _MODULE_FILE).is_file() and not (path / MODULE_DIR).is_dir():
        return f"rllib:{path}", agent(path)
    folder = path if (path / MODULE_DIR).is_dir() else _newest_generation(path)
    if folder is None:
        raise AgentSpecError(f"RLlib run folder {spec!r} has no iteration completed yet (its state.json names none)")
    modules = folder / MODULE_DIR
    return f"rllib:{folder}", TeamAgent(agent(modules / "pirates"), agent(modules / "mutineers"))
