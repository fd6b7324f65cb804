"""Agents that play a trained ``MaskablePPO`` checkpoint (needs the ``train`` extra: torch, sb3-contrib).

A trained snapshot is a ``MaskablePPO`` zip file. :class:`FrozenPolicy` loads it once
(``MaskablePPO.load(path, device="cpu")``, cached per file version and game) and runs its torch
modules directly; ``tests/training/test_training.py`` checks that its action probabilities equal
those of the policy's own masked distribution. sb3-contrib and torch are imported only when
a checkpoint is loaded, so the environment and the baselines need neither.

Every function takes the ``game`` the checkpoint was trained on (a registered name, an environment id or a
:class:`~traitors_env.core.Game`; default :data:`~traitors_env.core.registry.DEFAULT_GAME`): its observation shape
and number of actions are checked, and its declared observation bounds give the scale
(:func:`~.policy.observation_scale_of`).
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np

from ..core.game import Game
from ..core.registry import DEFAULT_GAME, load_game
from .policy import (
    PolicyAgent,
    PolicyLoadError,
    cached_loader,
    masked_probabilities,
    observation_scale,
    observation_scale_of,
)

__all__ = [
    "FrozenPolicy",
    "PolicyAgent",
    "PolicyLoadError",
    "cached_loader",
    "load_frozen_policy",
    "masked_probabilities",
    "observation_scale",
    "scale_observation",
]


def __getattr__(name: str):
    # OBS_SCALE: the default game's observation scale, for callers of the one-game API (training/).
    if name == "OBS_SCALE":
        return observation_scale_of(DEFAULT_GAME)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def scale_observation(observation: np.ndarray, game: str | Game = DEFAULT_GAME) -> np.ndarray:
    """The network input for a raw observation of ``game``: ``observation / observation_scale_of(game)``
    (``float32``, same shape)."""
    return observation / observation_scale_of(game)


class FrozenPolicy:
    """The actor of a saved ``MaskablePPO`` snapshot, for acting as an opponent or in evaluation.

    Runs the snapshot's own torch modules (features extractor, actor MLP, action head) under
    ``torch.no_grad()`` and masks the logits in numpy; this skips the distribution objects of
    ``MaskablePPO.predict`` (~1 ms a call here) at ~0.15 ms, with the same probabilities.
    Picklable, so it can be sent to worker processes (it keeps the game's facts it needs, not the game).

    Args:
        path: a ``.zip`` written by ``MaskablePPO.save``.
        game: the game whose spaces the snapshot must have (name, environment id or ``Game``).

    Attributes:
        env_name, obs_size, num_actions: the game's environment id, observation length and number of actions.
        obs_scale: ``float32 (obs_size,)``, what observations are divided by.

    Raises:
        PolicyLoadError: if ``path`` does not exist, cannot be loaded as a ``MaskablePPO``, or was
            trained on other observation or action spaces than ``game``'s.
    """

    def __init__(self, path: str | Path, game: str | Game = DEFAULT_GAME) -> None:
        game = load_game(game)
        self.env_name = game.type.env_id
        (self.obs_size,) = game.type.observation_shape
        self.num_actions = game.type.num_actions
        self.obs_scale = observation_scale_of(game)
        path = Path(path)
        if not path.is_file():
            raise PolicyLoadError(f"checkpoint {str(path)!r} does not exist")
        from sb3_contrib import MaskablePPO  # torch is imported only where a snapshot is loaded

        try:
            with _global_generators_kept():
                model = MaskablePPO.load(path, device="cpu")
        except Exception as error:  # corrupt zip, wrong algorithm, …
            raise PolicyLoadError(f"checkpoint {str(path)!r} is not a MaskablePPO snapshot: {error}") from error
        shape, actions = getattr(model.observation_space, "shape", None), getattr(model.action_space, "n", None)
        if shape != (self.obs_size,) or actions != self.num_actions:  # e.g. a policy of another environment
            raise PolicyLoadError(
                f"checkpoint {str(path)!r} was trained on observations of shape {shape} and {actions} actions; "
                f"{self.env_name} has ({self.obs_size},) and {self.num_actions}"
            )
        self.path = str(path)
        self.policy = model.policy.eval()

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """Action probabilities, shape ``(num_actions,)`` ``float64``, zero outside ``action_mask``."""
        import torch

        policy = self.policy
        with torch.no_grad():
            x = torch.as_tensor((np.asarray(observation, dtype=np.float32) / self.obs_scale)[None])
            latent = policy.mlp_extractor.forward_actor(policy.extract_features(x, policy.pi_features_extractor))
            logits = policy.action_net(latent)[0].numpy()
        return masked_probabilities(logits, action_mask)


@contextlib.contextmanager
def _global_generators_kept():
    """Restore Python's, numpy's and torch's global generators on exit. ``MaskablePPO.load`` reseeds all three
    with the snapshot's saved seed and draws initial weights from torch's: a training run that loads an opponent's
    snapshot (once per process: cached) must not move its own streams, or a resumed run, which loads at other
    moments, trains other weights than an uninterrupted one (tests/training/test_same_parameters.py)."""
    import random

    import torch

    python_state, numpy_state = random.getstate(), np.random.get_state()
    try:
        with torch.random.fork_rng(devices=[]):
            yield
    finally:
        random.setstate(python_state)
        np.random.set_state(numpy_state)


def load_frozen_policy(path: str | Path, game: str | Game = DEFAULT_GAME):
    """:class:`FrozenPolicy` of ``path`` for ``game``, cached per process, file version and game (a rewritten file is
    reloaded); a ``.msgpack`` checkpoint of the JAX backend gives a :class:`~traitors_env.agents.jax_checkpoint.JaxPolicy`.

    Raises:
        PolicyLoadError: if ``path`` does not exist, is not a checkpoint of its backend, or is of another game.
    """
    name = load_game(game).name
    if str(path).endswith(".msgpack"):  # a checkpoint of the JAX backend: same interface, numpy forward pass
        from .jax_checkpoint import load_jax_policy

        return load_jax_policy(path, name)
    return _load_sb3(path, name)


_load_sb3 = cached_loader(FrozenPolicy)
