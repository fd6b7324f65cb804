"""Agents that play side modules trained with Ray RLlib (``backend: rllib``; needs the ``rllib`` extra).

An RLlib run saves one algorithm checkpoint per iteration (``checkpoints/gen_001/``; of older iterations only
the side modules are kept, ``rllib.keep_checkpoints``); the modules lie in
``learner_group/learner/rl_module/<side>``, one per side of the game (``game.type.sides``, e.g. ``pirates`` and
``mutineers``; :class:`~traitors_env.agents.rllib_module.TeamPPOModule`). As agents by spec
(:func:`traitors_env.agents.spec.load_agent`) a spec may name:

- one module folder: plays every seat it is given;
- an algorithm checkpoint folder: its two sides' modules, by the side each observation shows (:class:`SideAgent`);
- an RLlib run folder: its newest completed iteration.

Ray and torch are imported only when a module is loaded; :func:`is_rllib_checkpoint` only looks at files.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np

from ..core.game import Game
from ..core.registry import DEFAULT_GAME, load_game
from .policy import AgentSpecError, PolicyAgent, generator, masked_probabilities, observation_scale_of
from .run_folder import RunFolder
from .side import SideAgent

__all__ = ["ModulePolicy", "is_rllib_checkpoint", "load_module_policy", "load_rllib_agent"]

#: Where an algorithm checkpoint keeps its modules.
MODULE_DIR = Path("learner_group") / "learner" / "rl_module"
_MODULE_FILE = "class_and_ctor_args.pkl"  # written by RLlib's Checkpointable beside every saved module


def _newest_generation(path: Path) -> Path | None:
    if not (path / "checkpoints").is_dir():
        return None
    return RunFolder(path).newest_generation_dir()


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
        game: the game whose spaces the module must have (name, environment id or ``Game``).

    Raises:
        ValueError: if ``path`` holds no RLlib module, or one for other spaces than ``game``'s.
    """

    def __init__(self, path: str | Path, game: str | Game = DEFAULT_GAME) -> None:
        path = Path(path)
        if not (path / _MODULE_FILE).is_file():
            raise ValueError(f"{str(path)!r} holds no RLlib module ({_MODULE_FILE} is missing)")
        import torch  # noqa: F401  (ray and torch only where a module is loaded)
        from ray.rllib.core.rl_module.rl_module import RLModule

        kind = load_game(game).type
        (obs_size,), num_actions = kind.observation_shape, kind.num_actions
        module = RLModule.from_checkpoint(str(path.resolve()))
        space = getattr(module, "observation_space", None)
        inner = getattr(space, "spaces", {}).get("observations")
        if getattr(inner, "shape", None) != (obs_size,) or getattr(module.action_space, "n", None) != num_actions:
            raise ValueError(
                f"RLlib module {str(path)!r} was trained on other spaces ({space}, {module.action_space}); "
                f"{kind.env_id} has observations ({obs_size},) and {num_actions} actions"
            )
        self.path = str(path)
        self.obs_scale = observation_scale_of(game)
        self.module = module.eval()
        # The actor alone (its MLP encoder, then the policy head): ~5x faster than forward_inference, which also
        # runs the value network and RLlib's batch checks; the same logits (tests/training/test_rllib.py).
        encoder = getattr(getattr(module, "encoder", None), "actor_encoder", None)
        head = getattr(module, "pi", None)
        self._actor = (encoder.net, head.net) if hasattr(encoder, "net") and hasattr(head, "net") else None

    def logits(self, observation: np.ndarray, action_mask: np.ndarray, fast: bool = True) -> np.ndarray:
        """The module's unmasked action logits, shape ``(num_actions,)`` ``float64`` (``fast=False``: through
        RLlib's ``forward_inference``, whose masked entries are ``FLOAT_MIN``)."""
        import torch
        from ray.rllib.core.columns import Columns

        observation = np.asarray(observation, dtype=np.float32)
        with torch.no_grad():
            if fast and self._actor is not None:
                encoder, head = self._actor
                out = head(encoder(torch.as_tensor((observation / self.obs_scale)[None])))
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
        """Action probabilities, shape ``(num_actions,)`` ``float64``, zero outside ``action_mask``."""
        mask = np.asarray(action_mask)
        return masked_probabilities(self.logits(observation, mask), mask > 0)


def load_module_policy(path: str | Path, game: str | Game = DEFAULT_GAME) -> ModulePolicy:
    """:class:`ModulePolicy` of ``path`` for ``game``, cached per process, folder version and game."""
    state = Path(path) / _MODULE_FILE
    stamp = os.stat(state).st_mtime_ns if state.is_file() else 0
    return _cached(str(path), stamp, load_game(game).name)


@functools.lru_cache(maxsize=16)
def _cached(path: str, stamp: int, game: str) -> ModulePolicy:
    return ModulePolicy(path, game)


def load_rllib_agent(spec: str, path: Path, seed=None, game: str | Game = DEFAULT_GAME):
    """``(label, agent)`` for a module folder, algorithm checkpoint or run folder of ``game`` (see the module doc).

    Raises:
        traitors_env.agents.spec.AgentSpecError: naming the spec, for a folder without modules, a run
            without a completed iteration, a module of other spaces, or a missing extra.
    """
    game = load_game(game)
    rng = generator(seed)

    def agent(folder: Path):
        try:
            return PolicyAgent(load_module_policy(folder, game), seed=rng)
        except ImportError as error:
            raise AgentSpecError(f"agent {spec!r}: RLlib modules need the rllib extra (pip install -e '.[rllib]'): {error}") from None
        except ValueError as error:
            raise AgentSpecError(f"agent {spec!r}: {error}") from None

    if (path / _MODULE_FILE).is_file() and not (path / MODULE_DIR).is_dir():
        return f"rllib:{path}", agent(path)
    folder = path if (path / MODULE_DIR).is_dir() else _newest_generation(path)
    if folder is None:
        raise AgentSpecError(f"RLlib run folder {spec!r} has no iteration completed yet "
                             f"({RunFolder(path).why_none_completed()})")
    modules = folder / MODULE_DIR
    return f"rllib:{folder}", SideAgent(*(agent(modules / side) for side in game.type.sides), game=game)
