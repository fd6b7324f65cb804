"""Agents by spec: one string names any agent the package can play.

A spec is one of:

- ``random`` or ``heuristic``: a scripted baseline (:func:`traitors_env.agents.make_agent`);
- a path to a trained checkpoint: a ``MaskablePPO`` ``.zip`` (plays every seat it is given), a
  generation folder (``pirates.zip`` + ``mutineers.zip``, played by role through :class:`TeamAgent`)
  or a run folder (its newest completed generation); needs the ``train`` extra; the same with the
  JAX backend's ``.msgpack`` checkpoints (:mod:`traitors_env.agents.jax_checkpoint`; needs the ``jax`` extra);
- ``package.module:function``: a user's factory, called as ``function(seed=seed)`` (or ``function()``
  if it takes no ``seed``), returning an object with ``act(observation, action_mask) -> int``
  (:class:`traitors_env.agents.Agent`).

Checkpoints are loaded through :mod:`traitors_env.agents.checkpoint`, which imports sb3-contrib only
then, so the environment package never imports ``training/``.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import numpy as np

from . import AGENT_NAMES, Agent, TeamAgent, make_agent
from .run_folder import RunFolder

__all__ = ["AgentSpecError", "load_agent"]


class AgentSpecError(ValueError):
    """A spec that names no agent that can be built (unknown name, missing checkpoint, broken factory)."""


def load_agent(spec: str, seed: int | np.random.Generator | None = None) -> tuple[str, Agent]:
    """The agent a ``spec`` names (see the module docstring); returns ``(label, agent)``.

    Args:
        spec: a baseline name, a checkpoint path, or ``package.module:function``.
        seed: seeds the agent's own randomness (an int, ``None`` or a ``numpy.random.Generator``).

    Returns:
        ``label`` names the agent in records and reports (``"heuristic"``, ``"policy:runs/quick/..."``,
        ``"factory:pkg.mod:fn"``).

    Raises:
        AgentSpecError: naming the spec and what was expected.
    """
    if not isinstance(spec, str) or not spec:
        raise AgentSpecError(f"agent spec {spec!r} is not a non-empty string")
    if spec in AGENT_NAMES:
        return spec, make_agent(spec, seed=seed)
    path = Path(spec)
    if path.exists():
        return _load_checkpoint(spec, path, seed)
    if ":" in spec and not spec.startswith((".", "/")):
        return f"factory:{spec}", _load_factory(spec, seed)
    raise AgentSpecError(
        f"agent {spec!r} is neither a bot name ({', '.join(AGENT_NAMES)}), an existing checkpoint file or folder, "
        "nor a factory 'package.module:function'"
    )


def _load_factory(spec: str, seed) -> Agent:
    module_name, _, attribute = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # ImportError, or the module's own failure at import
        raise AgentSpecError(f"agent {spec!r}: module {module_name!r} cannot be imported: {error}") from None
    factory = getattr(module, attribute, None)
    if not callable(factory):
        raise AgentSpecError(f"agent {spec!r}: module {module_name!r} has no callable {attribute!r}")
    try:
        takes_seed = "seed" in inspect.signature(factory).parameters
    except (TypeError, ValueError):  # builtins without a signature
        takes_seed = False
    try:
        agent = factory(seed=seed) if takes_seed else factory()
    except Exception as error:
        raise AgentSpecError(f"agent {spec!r}: the factory raised {type(error).__name__}: {error}") from None
    if not callable(getattr(agent, "act", None)):
        raise AgentSpecError(
            f"agent {spec!r}: the factory returned {type(agent).__name__}, which has no act(observation, action_mask)"
        )
    return agent


def _load_checkpoint(spec: str, path: Path, seed) -> tuple[str, Agent]:
    from . import rllib_checkpoint  # reads files only; ray is imported when a module loads
    from .checkpoint import PolicyAgent, PolicyLoadError, load_frozen_policy

    if rllib_checkpoint.is_rllib_checkpoint(path):  # an RLlib module, algorithm checkpoint or run folder
        return rllib_checkpoint.load_rllib_agent(spec, path, seed)
    if not _is_jax_checkpoint(path):
        try:
            import sb3_contrib  # noqa: F401  (checked here so the error names the missing extra)
        except ImportError as error:
            raise AgentSpecError(
                f"agent {spec!r}: trained checkpoints need the training extra (pip install -e '.[train]'): {error}"
            ) from None
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)

    def policy(file: Path) -> Agent:
        try:
            return PolicyAgent(load_frozen_policy(file), seed=rng)
        except PolicyLoadError as error:
            raise AgentSpecError(f"agent {spec!r}: {error}") from None

    if path.is_file():
        return f"policy:{path}", policy(path)
    folder = path
    if not (path / "pirates.zip").is_file() and (path / "checkpoints").is_dir():
        # A run folder: its newest generation is the last one state.json calls completed (a generation
        # killed while saving is not).
        run = RunFolder(path)
        completed = run.completed_generations()
        if not completed:
            raise AgentSpecError(f"run folder {spec!r} has no generation completed yet (its state.json names none)")
        folder = run.generation_dir(completed - 1)
    suffix = ".msgpack" if (folder / "pirates.msgpack").is_file() else ".zip"  # JAX or SB3 backend
    pirates, mutineers = folder / f"pirates{suffix}", folder / f"mutineers{suffix}"
    if not (pirates.is_file() and mutineers.is_file()):
        raise AgentSpecError(
            f"agent {spec!r}: folder holds no pirates.zip and mutineers.zip (nor .msgpack); expected a checkpoint "
            ".zip or .msgpack, a generation folder or a run folder"
        )
    return f"policy:{folder}", TeamAgent(policy(pirates), policy(mutineers))


def _is_jax_checkpoint(path: Path) -> bool:
    """A ``.msgpack`` checkpoint of the JAX backend, or a generation/run folder of one."""
    if path.is_file():
        return path.suffix == ".msgpack"
    return (path / "pirates.msgpack").is_file() or any(path.glob("checkpoints/gen_*/pirates.msgpack"))
