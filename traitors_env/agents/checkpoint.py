"""Agents that play a trained ``MaskablePPO`` checkpoint (needs the ``train`` extra: torch, sb3-contrib).

A trained snapshot is a ``MaskablePPO`` zip file. It is read as data only (:func:`read_snapshot`): SB3's own
loader (``MaskablePPO.load``) unpickles the ``:serialized:`` entries of the zip's ``data`` with cloudpickle, so a
crafted zip would run code; here those entries are never unpickled, the policy is rebuilt from its architecture
(the game's spaces, the hidden sizes read from the weights' shapes, the activation named in ``policy_kwargs``) and
the weights are read with ``torch.load(..., weights_only=True)`` (docs/security.md). :class:`FrozenPolicy` loads a
snapshot once (cached per file version and game) and runs its torch modules directly;
``tests/training/test_training.py`` checks that its action probabilities equal those of the policy's own masked
distribution. sb3-contrib and torch are imported only when a checkpoint is loaded, so the environment and the
baselines need neither.

Every function takes the ``game`` the checkpoint was trained on (a registered name, an environment id or a
:class:`~traitors_env.core.Game`; default :data:`~traitors_env.core.registry.DEFAULT_GAME`): its observation shape
and number of actions are checked, and its declared observation bounds give the scale
(:func:`~.policy.observation_scale_of`).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import zipfile
from collections import Counter
from pathlib import Path

import numpy as np

from ..core.game import Game
from ..core.registry import DEFAULT_GAME, load_game
from .policy import (
    PolicyAgent,
    PolicyLoadError,
    cached_loader,
    checkpoint_file,
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
    "one_line",
    "read_snapshot",
    "scale_observation",
    "snapshot_policy",
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
        data, params = read_snapshot(path)
        self.path = str(path)
        self.policy = snapshot_policy(path, data, params, self.obs_size, self.num_actions, self.env_name).eval()

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
    """Restore Python's, numpy's and torch's global generators on exit. Building a policy draws its initial weights
    from torch's (and SB3's constructors reseed all three): a training run that loads an opponent's snapshot (once
    per process: cached) must not move its own streams, or a resumed run, which loads at other moments, trains
    other weights than an uninterrupted one (tests/training/test_resume_exact.py)."""
    import random

    import torch

    python_state, numpy_state = random.getstate(), np.random.get_state()
    try:
        with torch.random.fork_rng(devices=[]):
            yield
    finally:
        random.setstate(python_state)
        np.random.set_state(numpy_state)


#: The ``MaskableActorCriticPolicy`` of sb3-contrib: the only policy class a snapshot may name.
_POLICY_MODULE = "sb3_contrib.common.maskable.policies"
#: The activations a snapshot's ``policy_kwargs`` may name (the configs' ``ppo.activation``); read from the
#: descriptor SB3 writes beside the pickled value, e.g. ``"<class 'torch.nn.modules.activation.Tanh'>"``.
_ACTIVATIONS = ("Tanh", "ReLU")


#: Caps on the uncompressed size of a snapshot's entries, checked on the zip's declared sizes before anything is
#: read: a zip bomb (a few MB inflating to GBs) is refused instead of filling memory. ``data`` is a few kB in SB3's
#: snapshots; a ``.pth`` holds a policy's weights or its optimizer state (tens of MB for the largest nets here).
MAX_DATA_BYTES = 16 * 2**20
MAX_WEIGHTS_BYTES = 2**30


def one_line(error: BaseException) -> str:
    """``error``'s message on one line (torch's ``load_state_dict`` errors span several)."""
    return "; ".join(line.strip() for line in str(error).splitlines() if line.strip()) or type(error).__name__


def read_snapshot(path: str | Path) -> tuple[dict, dict]:
    """The ``data`` and the state dicts of the SB3 zip ``path``, read as data only.

    ``data`` is the zip's JSON with every ``:serialized:`` entry (a cloudpickle payload, which SB3's own loader
    unpickles: it could run code) replaced by its readable descriptor, the payload dropped unread; the state dicts
    (``{"policy": …, "policy.optimizer": …, "pytorch_variables": …}``, one per ``.pth`` file) are read by
    ``torch.load(..., weights_only=True)``, which builds tensors and plain containers only.

    Raises:
        PolicyLoadError: naming the file, if it is missing or a folder, not a zip, has no JSON ``data`` or
            ``policy.pth``, an entry larger than :data:`MAX_DATA_BYTES` / :data:`MAX_WEIGHTS_BYTES`, a ``.pth``
            holding anything but tensors and plain containers, a policy state dict of anything but tensors, or
            a weight that is not finite (NaN, inf).
    """
    path = checkpoint_file(path, ".zip")
    try:
        data, params = _read_entries(path)
    except PolicyLoadError:
        raise
    except Exception as error:  # not a zip, truncated, bad JSON, …
        raise PolicyLoadError(
            f"checkpoint {str(path)!r} is not a MaskablePPO snapshot: {type(error).__name__}: {one_line(error)}"
        ) from None
    if not isinstance(data, dict) or not isinstance(params.get("policy"), dict):
        raise PolicyLoadError(f"checkpoint {str(path)!r} is not a MaskablePPO snapshot: its data is not a JSON "
                              "object or its policy.pth not a state dict")
    _check_weights(path, params)
    data = {key: _descriptor(value) for key, value in data.items()}
    return data, params


def _read_entries(path: Path) -> tuple[object, dict]:
    """The zip's ``data`` (parsed JSON) and its ``.pth`` entries (``torch.load(weights_only=True)``), each entry's
    declared size checked against its cap before it is read."""
    import pickle
    import warnings

    import torch

    def refuse(message: str):
        raise PolicyLoadError(f"checkpoint {str(path)!r} is not a MaskablePPO snapshot: {message}")

    with zipfile.ZipFile(path) as archive:
        infos = archive.infolist()
        names = [info.filename for info in infos]
        twice = sorted(name for name, count in Counter(names).items() if count > 1)
        if twice:  # which copy a reader takes is up to it: refuse the ambiguity
            refuse(f"it has the entries {', '.join(twice)} twice")
        missing = [name for name in ("data", "policy.pth") if name not in names]
        if missing:
            refuse(f"it has no {' or '.join(missing)} (expected SB3's zip: data, policy.pth, …)")
        for info in infos:
            cap = MAX_DATA_BYTES if info.filename == "data" else MAX_WEIGHTS_BYTES
            if (info.filename == "data" or info.filename.endswith(".pth")) and info.file_size > cap:
                refuse(f"its entry {info.filename!r} holds {info.file_size} bytes uncompressed; expected at most "
                       f"{cap}")
        data = json.loads(archive.read("data").decode("utf-8"))
        params = {}
        for name in names:
            if not name.endswith(".pth"):
                continue
            content = archive.read(name)
            try:
                with warnings.catch_warnings():  # torch warns about some pickle protocols before refusing them
                    warnings.simplefilter("ignore", UserWarning)
                    state = torch.load(io.BytesIO(content), map_location="cpu", weights_only=True)
                params[name[: -len(".pth")]] = state
            except pickle.UnpicklingError:  # torch's text advises weights_only=False: wrong for a hostile file
                refuse(f"its entry {name!r} holds something other than tensors (refused: weights only)")
    return data, params


def _check_weights(path: Path, params: dict) -> None:
    """Refuse a policy state dict holding anything but tensors, and any non-finite floating tensor in any state
    dict (a NaN weight makes every game fail later, far from the file)."""
    import torch

    for key, value in params["policy"].items():
        if not isinstance(value, torch.Tensor):
            raise PolicyLoadError(f"checkpoint {str(path)!r} is not a MaskablePPO snapshot: its policy.pth entry "
                                  f"{str(key)!r} is a {type(value).__name__}; expected tensors only")

    def walk(tree, where: str) -> None:
        if isinstance(tree, dict):
            for key, value in tree.items():
                walk(value, f"{where}[{key!r}]")
        elif isinstance(tree, (list, tuple)):
            for i, value in enumerate(tree):
                walk(value, f"{where}[{i}]")
        elif isinstance(tree, torch.Tensor) and tree.is_floating_point() and not bool(torch.isfinite(tree).all()):
            raise PolicyLoadError(f"checkpoint {str(path)!r} has non-finite values (NaN or inf) in {where}; "
                                  "expected finite weights")

    for name, state in params.items():
        walk(state, f"{name}.pth")


def _descriptor(value):
    """A ``data`` entry without its pickled payload: SB3 writes ``{":type:", ":serialized:", <readable fields>}``
    for what JSON cannot hold; the readable fields are kept, the payload is never decoded."""
    if isinstance(value, dict) and ":serialized:" in value:
        return {key: item for key, item in value.items() if key != ":serialized:"}
    return value


def _hidden_sizes(path: str | Path, state: dict, net: str) -> list[int]:
    """The hidden layer widths of ``mlp_extractor.<net>`` (``policy_net``/``value_net``) from its weights' shapes.

    Raises:
        PolicyLoadError: for a layer weight that is not a matrix.
    """
    pattern = re.compile(rf"mlp_extractor\.{net}\.(\d+)\.weight")
    layers = sorted((int(m.group(1)), key, tensor) for key, tensor in state.items() if (m := pattern.fullmatch(key)))
    for _, key, tensor in layers:
        if getattr(tensor, "ndim", None) != 2 or 0 in tensor.shape:
            raise PolicyLoadError(f"checkpoint {str(path)!r} is not a MaskablePPO snapshot: its policy.pth entry "
                                  f"{key!r} is {type(tensor).__name__} of shape {tuple(getattr(tensor, 'shape', ()))}"
                                  "; expected a non-empty weight matrix")
    return [int(tensor.shape[0]) for _, _, tensor in layers]


def snapshot_activation(path: str | Path, data: dict):
    """The torch activation class named in a snapshot's ``policy_kwargs`` (SB3's default ``Tanh`` if none).

    Raises:
        PolicyLoadError: for another policy class than sb3-contrib's maskable one, or an activation other than
            :data:`_ACTIVATIONS`, naming it.
    """
    import torch

    policy_class = data.get("policy_class")
    module = policy_class.get("__module__") if isinstance(policy_class, dict) else None
    if module is not None and module != _POLICY_MODULE:
        raise PolicyLoadError(f"checkpoint {str(path)!r} is not a MaskablePPO snapshot: its policy class is from "
                              f"{module!r}; expected {_POLICY_MODULE!r}")
    kwargs = data.get("policy_kwargs")
    named = kwargs.get("activation_fn") if isinstance(kwargs, dict) else None
    if named is None:
        return torch.nn.Tanh
    found = re.fullmatch(r"<class 'torch\.nn\.modules\.activation\.(\w+)'>", str(named))
    if found is None or found.group(1) not in _ACTIVATIONS:
        raise PolicyLoadError(f"checkpoint {str(path)!r} names the activation {named!r}; expected torch's "
                              f"{' or '.join(_ACTIVATIONS)}")
    return getattr(torch.nn, found.group(1))


def snapshot_policy(path: str | Path, data: dict, params: dict, obs_size: int, num_actions: int, env_name: str):
    """The ``MaskableActorCriticPolicy`` of a snapshot read by :func:`read_snapshot`, rebuilt from its architecture
    (the game's spaces, the hidden sizes of its weights, its activation) with its weights loaded; torch's global
    generator is left as it was (the initial weights are drawn from a forked one and then replaced).

    Raises:
        PolicyLoadError: if the snapshot was trained on other spaces than ``obs_size`` and ``num_actions``, or its
            weights do not fit the rebuilt policy.
    """
    import torch
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    state = params["policy"]
    activation = snapshot_activation(path, data)
    head = state.get("action_net.weight")
    arch = {"pi": _hidden_sizes(path, state, "policy_net"), "vf": _hidden_sizes(path, state, "value_net")}
    first = state.get("mlp_extractor.policy_net.0.weight") if arch["pi"] else head
    if not isinstance(head, torch.Tensor) or head.ndim != 2 or not isinstance(first, torch.Tensor) or first.ndim != 2:
        raise PolicyLoadError(f"checkpoint {str(path)!r} is not a MaskablePPO snapshot: its policy.pth has no "
                              "action_net.weight matrix")
    shape, actions = (int(first.shape[1]),), int(head.shape[0])
    if shape != (obs_size,) or actions != num_actions:  # e.g. a policy of another environment
        raise PolicyLoadError(
            f"checkpoint {str(path)!r} was trained on observations of shape {shape} and {actions} actions; "
            f"{env_name} has ({obs_size},) and {num_actions}"
        )
    observation_space = spaces.Box(low=-1.0, high=1.0, shape=(obs_size,), dtype=np.float32)
    with _global_generators_kept():
        policy = MaskableActorCriticPolicy(observation_space, spaces.Discrete(num_actions), _constant_zero,
                                           net_arch=arch, activation_fn=activation, ortho_init=False)
    try:
        policy.load_state_dict(state, strict=True)
    except Exception as error:  # names or shapes that are not this architecture's
        raise PolicyLoadError(f"checkpoint {str(path)!r} is not a MaskablePPO snapshot: its weights do not fit "
                              f"a policy of hidden sizes {arch}: {one_line(error)}") from None
    return policy


def _constant_zero(_progress: float) -> float:
    """The learning-rate schedule of a policy that is never trained (a function, so that the policy pickles)."""
    return 0.0


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
