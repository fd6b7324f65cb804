"""Checkpoints of the JAX training backend (``<team>.msgpack``) and the agents that play them (needs the ``jax`` extra).

A checkpoint is one msgpack file (``flax.serialization``) holding a dict::

    format        "traitors-env-jax-ppo"        version  1
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

``format`` names this package's checkpoint format, not a game; checkpoints written before it was renamed
(``"traitors-aboard-jax-ppo"``, :data:`OLD_FORMATS`) are read as the same format.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..core.game import Game
from ..core.registry import DEFAULT_GAME, load_game
from .policy import PolicyLoadError, cached_loader, checkpoint_file, masked_probabilities, observation_scale_of

__all__ = ["FORMAT", "SUFFIX", "JaxPolicy", "load_jax_policy", "read_checkpoint", "save_checkpoint"]

FORMAT = "traitors-env-jax-ppo"
#: earlier names of :data:`FORMAT` (the same content), still read
OLD_FORMATS = ("traitors-aboard-jax-ppo",)
VERSION = 1
SUFFIX = ".msgpack"
#: What every checkpoint holds besides ``format``/``version`` and the spaces (checked on reading, named when missing).
REQUIRED_KEYS = ("team", "num_timesteps", "net_arch", "activation", "params", "opt_state")
ACTIVATIONS = ("tanh", "relu")


def _keys(tree) -> list:
    return sorted(map(str, tree)) if isinstance(tree, dict) else [type(tree).__name__]


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
    path = checkpoint_file(path, ".msgpack")
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
    if not isinstance(data, dict) or data.get("format") not in (FORMAT, *OLD_FORMATS):
        raise PolicyLoadError(f"checkpoint {str(path)!r} is not a {FORMAT!r} file")
    missing = [key for key in REQUIRED_KEYS if key not in data]
    if missing:
        raise PolicyLoadError(f"checkpoint {str(path)!r} has no {', '.join(map(repr, missing))}; expected a {FORMAT!r} "
                              f"file with the keys {', '.join(REQUIRED_KEYS)} (as traitors-train's JAX backend writes)")
    params = data["params"]
    inner = params.get("params") if isinstance(params, dict) else None
    actor = inner.get("actor") if isinstance(inner, dict) else None
    if not isinstance(actor, dict):
        raise PolicyLoadError(f"checkpoint {str(path)!r} holds params of keys {_keys(params)}; expected "
                              "{'params': {'actor': {...}, 'critic': {...}}}")
    if data["activation"] not in ACTIVATIONS:
        raise PolicyLoadError(f"checkpoint {str(path)!r} names the activation {data['activation']!r}; expected one "
                              f"of {', '.join(ACTIVATIONS)}")
    kind = load_game(game).type
    (obs_size,), num_actions = kind.observation_shape, kind.num_actions
    if data.get("obs_size") != obs_size or data.get("num_actions") != num_actions:
        raise PolicyLoadError(
            f"checkpoint {str(path)!r} was trained on observations of size {data.get('obs_size')} and "
            f"{data.get('num_actions')} actions; {kind.env_id} has {obs_size} and {num_actions}"
        )
    _check_actor(path, data["net_arch"], actor, obs_size, num_actions)
    _check_finite(path, params, "params")
    return data


def _check_actor(path: Path, net_arch, actor: dict, obs_size: int, num_actions: int) -> None:
    """Refuse an actor whose layers are not ``hidden_0 … hidden_{d-1}, out`` (``d = len(net_arch)``), each a 2-D
    numeric kernel and a 1-D bias, chaining from ``obs_size`` through ``net_arch`` to ``num_actions``: a tree of
    another shape would load, then fail every game."""
    def refuse(message: str):
        raise PolicyLoadError(f"checkpoint {str(path)!r} is not a JAX PPO checkpoint: {message}")

    arch = np.asarray(net_arch) if isinstance(net_arch, (list, tuple, np.ndarray)) else None
    if arch is None or arch.ndim != 1 or not (arch.size == 0 or np.issubdtype(arch.dtype, np.integer)) \
            or (arch <= 0).any():
        refuse(f"its net_arch is {net_arch!r}; expected a list of positive hidden sizes")
    sizes = [obs_size, *map(int, arch), num_actions]
    names = [f"hidden_{i}" for i in range(arch.size)] + ["out"]
    for i, name in enumerate(names):
        layer = actor.get(name)
        if not isinstance(layer, dict) or "kernel" not in layer or "bias" not in layer:
            refuse(f"its actor has layers {_keys(actor)}; expected {names}, each with a kernel and a bias")
        kernel, bias = _numeric(layer["kernel"]), _numeric(layer["bias"])
        expected = (sizes[i], sizes[i + 1])
        if kernel is None or bias is None or kernel.shape != expected or bias.shape != expected[1:]:
            shown = [getattr(layer[k], "shape", type(layer[k]).__name__) for k in ("kernel", "bias")]
            refuse(f"actor layer {name!r} has kernel {shown[0]} and bias {shown[1]}; expected numeric arrays of "
                   f"shapes {expected} and {expected[1:]} (net_arch {list(map(int, arch))}, observations of size "
                   f"{obs_size}, {num_actions} actions)")


def _numeric(value) -> np.ndarray | None:
    """``value`` as a real-number array, ``None`` if it is not one (a string, bools, an object array)."""
    if not isinstance(value, np.ndarray) or value.dtype == bool or not np.issubdtype(value.dtype, np.number) \
            or np.issubdtype(value.dtype, np.complexfloating):
        return None
    return value


def _check_finite(path: Path, tree, where: str) -> None:
    """Refuse a NaN or inf anywhere in ``tree`` (a NaN weight makes every game, or a resumed run, fail later)."""
    if isinstance(tree, dict):
        for key, value in tree.items():
            _check_finite(path, value, f"{where}/{key}")
    elif isinstance(tree, np.ndarray) and np.issubdtype(tree.dtype, np.inexact) and not np.isfinite(tree).all():
        raise PolicyLoadError(f"checkpoint {str(path)!r} has non-finite values (NaN or inf) in {where}; expected "
                              "finite weights")


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
            if not isinstance(belief, dict) or not all(isinstance(belief[n], dict) and {"kernel", "bias"} <= set(
                    belief[n]) for n in belief):
                raise PolicyLoadError(f"checkpoint {str(path)!r} has a belief head of {_keys(belief)}; expected "
                                      "layers hidden_0 …, out, each with a kernel and a bias")
            names = [f"hidden_{i}" for i in range(len(belief) - 1)] + ["out"]
            if set(names) != set(belief):
                raise PolicyLoadError(f"checkpoint {str(path)!r} has a belief head with layers {sorted(belief)}; "
                                      f"expected {names}")
            self.belief_head = [(np.asarray(belief[n]["kernel"]), np.asarray(belief[n]["bias"])) for n in names]
            width = self.head[0].shape[0]  # the actor's last hidden width: what the head reads
            for name, (kernel, bias) in zip(names, self.belief_head):
                if _numeric(kernel) is None or _numeric(bias) is None or kernel.ndim != 2 \
                        or kernel.shape[0] != width or bias.shape != kernel.shape[1:]:
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
