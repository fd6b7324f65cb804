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

A module is loaded as data only (docs/security.md): RLlib's own ``RLModule.from_checkpoint`` unpickles the folder's
``class_and_ctor_args.pkl`` and ``module_state.pkl`` (a crafted folder would run code). Here the module is built
from this package's own spec (:class:`~traitors_env.agents.rllib_module.TeamPPOModule` on the game's spaces, the
hidden sizes read from the weights' shapes, the activation read from the constructor file's opcodes, never
executed), and the weights are read by :class:`_ArraysOnly`, an unpickler that builds numpy arrays and dicts only.
"""

from __future__ import annotations

import functools
import io
import os
import pickle
import pickletools
import re
from pathlib import Path

import numpy as np

from ..core.game import Game
from ..core.registry import DEFAULT_GAME, load_game
from .policy import AgentSpecError, PolicyAgent, generator, masked_probabilities, observation_scale_of
from .run_folder import RunFolder
from .side import SideAgent

__all__ = ["ModulePolicy", "build_module", "is_rllib_checkpoint", "load_module_policy", "load_rllib_agent",
           "read_module_state"]

#: Where an algorithm checkpoint keeps its modules.
MODULE_DIR = Path("learner_group") / "learner" / "rl_module"
_MODULE_FILE = "class_and_ctor_args.pkl"  # written by RLlib's Checkpointable beside every saved module
_STATE_FILE = "module_state.pkl"  # the module's weights (RLlib's Checkpointable, a pickle of numpy arrays)
#: The activations of ``model_config["fcnet_activation"]`` a module may name (the configs' ``ppo.activation``).
_ACTIVATIONS = ("tanh", "relu")


class _ArraysOnly(pickle.Unpickler):
    """An unpickler of RLlib's module state that builds nothing but dicts and numpy arrays: any other global a
    pickle names (a function to call, a class to build) is refused before it is looked up, so no code runs."""

    ALLOWED = frozenset({
        ("collections", "OrderedDict"),
        ("numpy", "dtype"), ("numpy", "ndarray"),
        ("numpy._core.numeric", "_frombuffer"), ("numpy.core.numeric", "_frombuffer"),
        ("numpy._core.multiarray", "_reconstruct"), ("numpy.core.multiarray", "_reconstruct"),
        ("numpy._core.multiarray", "scalar"), ("numpy.core.multiarray", "scalar"),
    })

    def find_class(self, module: str, name: str):
        if (module, name) not in self.ALLOWED:
            raise pickle.UnpicklingError(f"it names {module}.{name}; a module state holds numpy arrays only")
        return super().find_class(module, name)


def read_module_state(path: str | Path) -> dict[str, np.ndarray]:
    """The weights of the RLlib module folder ``path`` (``module_state.pkl``), read as data only (:class:`_ArraysOnly`).

    Raises:
        ValueError: naming the file, if it is missing or holds anything but a dict of numpy arrays.
    """
    file = Path(path) / _STATE_FILE
    if not file.is_file():
        raise ValueError(f"{str(path)!r} holds no RLlib module weights ({_STATE_FILE} is missing)")
    try:
        state = _ArraysOnly(io.BytesIO(file.read_bytes())).load()
    except Exception as error:  # a refused global, a truncated file, …
        raise ValueError(f"{str(file)!r} is not an RLlib module state read as data: {type(error).__name__}: {error}") from None
    if not isinstance(state, dict) or not all(isinstance(v, np.ndarray) for v in state.values()):
        raise ValueError(f"{str(file)!r} is not an RLlib module state: expected a dict of numpy arrays")
    return dict(state)


def _named_activation(path: Path) -> str:
    """``model_config["fcnet_activation"]`` of the module folder ``path``, read from the opcodes of its constructor
    file (``pickletools``: decoded, never executed); RLlib's default ``"tanh"`` where it names none."""
    try:
        ops = [arg for _, arg, _ in pickletools.genops((path / _MODULE_FILE).read_bytes())]
    except Exception as error:
        raise ValueError(f"{str(path / _MODULE_FILE)!r} is not a pickle file: {error}") from None
    for key, _, value in zip(ops, ops[1:], ops[2:]):
        if key == "fcnet_activation" and isinstance(value, str):
            if value not in _ACTIVATIONS:
                raise ValueError(f"RLlib module {str(path)!r} names the activation {value!r}; expected one of "
                                 f"{', '.join(_ACTIVATIONS)}")
            return value
    return "tanh"


def _hidden_sizes(state: dict, encoder: str) -> list[int]:
    pattern = re.compile(rf"encoder\.{encoder}\.net\.mlp\.(\d+)\.weight")
    layers = sorted((int(m.group(1)), v) for k, v in state.items() if (m := pattern.fullmatch(k)))
    return [int(v.shape[0]) for _, v in layers]


def build_module(path: str | Path, game: str | Game = DEFAULT_GAME):
    """The :class:`~traitors_env.agents.rllib_module.TeamPPOModule` saved in the module folder ``path``, rebuilt for
    ``game``'s spaces from its weights (data only: see the module doc), torch's global generator left as it was.

    Raises:
        ValueError: naming the folder, for missing or unreadable weights, or weights of other spaces than ``game``'s.
    """
    import torch
    from gymnasium import spaces

    from .rllib_module import TeamPPOModule

    path = Path(path)
    state = read_module_state(path)
    activation = _named_activation(path)
    loaded = load_game(game)
    kind = loaded.type
    (obs_size,), num_actions = kind.observation_shape, kind.num_actions
    first, head = state.get("encoder.actor_encoder.net.mlp.0.weight"), state.get("pi.net.mlp.0.weight")
    if first is None or head is None or first.ndim != 2 or head.ndim != 2:
        raise ValueError(f"RLlib module {str(path)!r} has no actor encoder and policy head weights "
                         "(expected encoder.actor_encoder.net.mlp.0.weight and pi.net.mlp.0.weight)")
    if first.shape[1] != obs_size or head.shape[0] != num_actions:
        raise ValueError(f"RLlib module {str(path)!r} was trained on observations ({first.shape[1]},) and "
                         f"{head.shape[0]} actions; {kind.env_id} has observations ({obs_size},) and {num_actions} actions")
    hidden = _hidden_sizes(state, "actor_encoder")
    observation = spaces.Dict({
        "observations": spaces.Box(loaded.layout.low, loaded.layout.high, kind.observation_shape, np.float32),
        "action_mask": spaces.Box(0.0, 1.0, (num_actions,), np.float32),
    })
    model = {"fcnet_hiddens": hidden, "fcnet_activation": activation,
             "vf_share_layers": not any(k.startswith("encoder.critic_encoder.") for k in state)}
    with torch.random.fork_rng(devices=[]):  # the initial weights, replaced below, from a forked generator
        module = TeamPPOModule(observation_space=observation, action_space=spaces.Discrete(num_actions),
                               model_config=model, inference_only=False)
    try:
        module.load_state_dict({k: torch.as_tensor(v) for k, v in state.items()}, strict=True)
    except RuntimeError as error:
        raise ValueError(f"RLlib module {str(path)!r}: its weights do not fit a module of hidden sizes {hidden}: "
                         f"{str(error).splitlines()[0]}") from None
    return module


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
        module = build_module(path, game)
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
