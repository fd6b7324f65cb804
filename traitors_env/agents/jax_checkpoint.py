"""Checkpoints of the JAX training backend (``<team>.msgpack``) and the agents that play them (needs the ``jax`` extra).

A checkpoint is one msgpack file (``flax.serialization``) holding a dict::

    format        "traitors-aboard-jax-ppo"     version  1
    team          a side of the game ("pirates")  num_timesteps  learner decisions trained so far
    net_arch      int array (hidden sizes)       activation  "tanh" | "relu"
    obs_size      the game's observation length  num_actions  the game's number of actions
    params        {"params": {"actor": {"hidden_0": {"kernel", "bias"}, …, "out": …}, "critic": {…}}}
                  and, for a policy trained with ``ppo.belief_coef > 0``, "belief": {"hidden_0": …, "out":
                  {"kernel", "bias"}} (its own hidden layers only with ``ppo.belief_net_arch``)
    opt_state     the optax state (for --resume)

:class:`JaxPolicy` plays the actor with numpy (one observation at a time, no ``jit``), with the
same masked softmax as training, and, where the checkpoint has a belief head, its role beliefs
(:meth:`JaxPolicy.beliefs`); :func:`load_jax_policy` caches it per file version. Written by
``training/jax_backend`` through :func:`save_checkpoint`; read here so that agents by spec and
evaluation play JAX checkpoints without importing ``training/``. Every function takes the ``game``
(name, environment id or :class:`~traitors_env.core.Game`; default
:data:`~traitors_env.core.registry.DEFAULT_GAME`) whose spaces the checkpoint has.

``format`` names this project's checkpoint format (``traitors-aboard-rl``), not a game.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..core.game import Game
from ..core.registry import DEFAULT_GAME, load_game
from .policy import PolicyLoadError, cached_loader, masked_probabilities, observation_scale_of

__all__ = ["FORMAT", "SUFFIX", "JaxPolicy", "load_jax_policy", "read_checkpoint", "save_checkpoint"]

FORMAT = "traitors-aboard-jax-ppo"
VERSION = 1
SUFFIX = ".msgpack"


def save_checkpoint(path: str | Path, params, opt_state, *, team: str, net_arch, activation: str, num_timesteps: int,
                    game: str | Game = DEFAULT_GAME):
    """Write a checkpoint of ``game`` atomically (a temporary file beside ``path``, then ``os.replace``)."""
    from flax import serialization

    kind = load_game(game).type
    (obs_size,), num_actions = kind.observation_shape, kind.num_actions

    payload = {
        "format": FORMAT,
        "version": VERSION,
        "team": team,
        "num_timesteps": int(num_timesteps),
        "net_arch": np.asarray(list(net_arch), dtype=np.int64),
        "activation": activation,
        "obs_size": obs_size,
        "num_actions": num_actions,
        "params": serialization.to_state_dict(params),
        "opt_state": serialization.to_state_dict(opt_state),
    }
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(serialization.msgpack_serialize(_to_numpy(payload)))
    os.replace(tmp, path)


def _to_numpy(tree):
    if isinstance(tree, dict):
        return {k: _to_numpy(v) for k, v in tree.items()}
    if hasattr(tree, "__array__") and not isinstance(tree, np.ndarray):
        return np.asarray(tree)
    return tree


def read_checkpoint(path: str | Path, game: str | Game = DEFAULT_GAME) -> dict:
    """The checkpoint's dict (arrays as numpy), checked to be this format for ``game``'s spaces.

    Raises:
        PolicyLoadError: if the file is missing, not msgpack, not this format, or for other spaces.
    """
    path = Path(path)
    if not path.is_file():
        raise PolicyLoadError(f"checkpoint {str(path)!r} does not exist")
    try:
        from flax import serialization
    except ImportError as error:
        raise PolicyLoadError(
            f"checkpoint {str(path)!r} is a JAX checkpoint; it needs the jax extra (pip install -e '.[jax]'): {error}"
        ) from None
    try:
        data = serialization.msgpack_restore(path.read_bytes())
    except Exception as error:  # truncated or foreign file
        raise PolicyLoadError(f"checkpoint {str(path)!r} is not a JAX PPO checkpoint: {error}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise PolicyLoadError(f"checkpoint {str(path)!r} is not a {FORMAT!r} file")
    kind = load_game(game).type
    (obs_size,), num_actions = kind.observation_shape, kind.num_actions
    if data.get("obs_size") != obs_size or data.get("num_actions") != num_actions:
        raise PolicyLoadError(
            f"checkpoint {str(path)!r} was trained on observations of size {data.get('obs_size')} and "
            f"{data.get('num_actions')} actions; {kind.env_id} has {obs_size} and {num_actions}"
        )
    return data


class JaxPolicy:
    """The actor of a JAX checkpoint of ``game``, in numpy: ``probabilities(observation, action_mask)`` like
    ``FrozenPolicy``. Raises :class:`PolicyLoadError` (see :func:`read_checkpoint`)."""

    def __init__(self, path: str | Path, game: str | Game = DEFAULT_GAME) -> None:
        data = read_checkpoint(path, game)
        self.path = str(path)
        self.obs_scale = observation_scale_of(game)
        actor = data["params"]["params"]["actor"]
        depth = len(data["net_arch"])
        self.layers = [
            (np.asarray(actor[f"hidden_{i}"]["kernel"]), np.asarray(actor[f"hidden_{i}"]["bias"])) for i in range(depth)
        ]
        self.head = (np.asarray(actor["out"]["kernel"]), np.asarray(actor["out"]["bias"]))
        self.activation = {"tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0)}[data["activation"]]
        kind = load_game(game)
        self.game = kind.name
        belief = data["params"]["params"].get("belief")
        #: the belief head's layers, ``(kernel, bias)`` pairs: its own hidden layers (``ppo.belief_net_arch``),
        #: then ``out`` ``(kernel (width, belief_size), bias)``; ``None``: a checkpoint without a head
        self.belief_head = None
        if belief is not None and kind.hidden_side is not None:
            names = [f"hidden_{i}" for i in range(len(belief) - 1)] + ["out"]
            if set(names) != set(belief):
                raise PolicyLoadError(f"checkpoint {str(path)!r} has a belief head with layers {sorted(belief)}; "
                                      f"expected {names}")
            self.belief_head = [(np.asarray(belief[n]["kernel"]), np.asarray(belief[n]["bias"])) for n in names]
            width = self.head[0].shape[0]  # the actor's last hidden width: what the head reads
            for name, (kernel, bias) in zip(names, self.belief_head):
                if kernel.shape[0] != width or bias.shape != kernel.shape[1:]:
                    raise PolicyLoadError(f"checkpoint {str(path)!r}: belief layer {name!r} has kernel "
                                          f"{kernel.shape} and bias {bias.shape}; expected a kernel ({width}, k) "
                                          "and a bias (k,)")
                width = kernel.shape[1]
            if self.belief_head[-1][1].shape != (kind.belief_size,):
                raise PolicyLoadError(f"checkpoint {str(path)!r} has a belief head of "
                                      f"{self.belief_head[-1][1].shape[0]} seats; {kind.type.env_id} has "
                                      f"{kind.belief_size}")

    @property
    def has_beliefs(self) -> bool:
        """Whether the checkpoint has a belief head (trained with ``ppo.belief_coef > 0``)."""
        return self.belief_head is not None

    def _features(self, observation: np.ndarray) -> np.ndarray:
        x = np.asarray(observation, dtype=np.float32) / self.obs_scale
        for kernel, bias in self.layers:
            x = self.activation(x @ kernel + bias)
        return x

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """Actor logits, ``float32 (num_actions,)``, of one raw observation ``(obs_size,)``."""
        return self._features(observation) @ self.head[0] + self.head[1]

    def beliefs(self, observation: np.ndarray) -> np.ndarray | None:
        """The belief head's P(hidden side) per relative seat (:class:`traitors_env.core.agent.BeliefAgent`):
        ``float32 (game.belief_size,)``, ``NaN`` at index 0 (the observer) and at seats beyond the table the
        observation shows (``Game.observation_players``); ``None`` for a checkpoint without a belief head."""
        if self.belief_head is None:
            return None
        game = load_game(self.game)
        x = self._features(observation)
        for kernel, bias in self.belief_head[:-1]:
            x = self.activation(x @ kernel + bias)
        kernel, bias = self.belief_head[-1]
        z = (x @ kernel + bias).astype(np.float64)
        p = (1.0 / (1.0 + np.exp(-z))).astype(np.float32)
        n = game.observation_players(observation)
        p[0] = np.nan
        p[n:] = np.nan
        return p

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """Action probabilities, shape ``(num_actions,)`` ``float64``, zero outside ``action_mask``."""
        return masked_probabilities(self.logits(observation), action_mask)


def load_jax_policy(path: str | Path, game: str | Game = DEFAULT_GAME) -> JaxPolicy:
    """:class:`JaxPolicy` of ``path`` for ``game``, cached per process, file version and game.

    Raises:
        PolicyLoadError: see :func:`read_checkpoint`.
    """
    return _load(path, load_game(game).name)


_load = cached_loader(JaxPolicy)
