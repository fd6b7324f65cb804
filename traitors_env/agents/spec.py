"""Agents by spec: one string names any agent the package can play.

A spec is one of:

- ``random`` or ``heuristic``: a scripted baseline (:func:`traitors_env.agents.make_agent`);
- a path to a trained checkpoint: a ``MaskablePPO`` ``.zip`` (plays every seat it is given), a
  generation folder (``pirates.zip`` + ``mutineers.zip``, played by role through :class:`TeamAgent`)
  or a run folder (its newest completed generation); needs the ``train`` extra; the same with the
  JAX backend's ``.msgpack`` checkpoints (:mod:`traitors_env.agents.jax_checkpoint`; needs the ``jax`` extra);
- ``package.module:function`` or ``path/to/file.py:function``: a user's factory, called as ``function(seed=seed)`` (or ``function()``
  if it takes no ``seed``), returning an object with ``act(observation, action_mask) -> int``
  (:class:`traitors_env.agents.Agent`).

Those are agents of ``traitors_aboard_v0``; ``game="the_traitors"`` resolves a spec for
``the_traitors_v0`` instead (:mod:`traitors_env.agents.the_traitors_spec`: its bots, run folders,
generation folders and checkpoints; a checkpoint of the other game is refused with a clear error).

Checkpoints are loaded through :mod:`traitors_env.agents.checkpoint`, which imports sb3-contrib only
then, so the environment package never imports ``training/``.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import inspect
from collections.abc import Callable
from pathlib import Path

import numpy as np

from . import AGENT_NAMES, Agent, TeamAgent, make_agent
from .run_folder import RunFolder

__all__ = ["AgentSpecError", "agent_maker", "load_agent"]


class AgentSpecError(ValueError):
    """A spec that names no agent that can be built (unknown name, missing checkpoint, broken factory)."""


def load_agent(spec: str, seed: int | np.random.Generator | None = None,
               game: str = "traitors_aboard") -> tuple[str, Agent]:
    """The agent a ``spec`` names (see the module docstring); returns ``(label, agent)``.

    Args:
        spec: a baseline name, a checkpoint path, or ``package.module:function``.
        seed: seeds the agent's own randomness (an int, ``None`` or a ``numpy.random.Generator``).
        game: ``traitors_aboard`` (default) or ``the_traitors`` (:mod:`.the_traitors_spec`).

    Returns:
        ``label`` names the agent in records and reports (``"heuristic"``, ``"policy:runs/quick/..."``,
        ``"factory:pkg.mod:fn"``).

    Raises:
        AgentSpecError: naming the spec and what was expected.
    """
    label, make = agent_maker(spec, game=game)
    return label, make(seed)


def agent_maker(spec: str, game: str = "traitors_aboard") -> tuple[str, Callable[[int | np.random.Generator | None], Agent]]:
    """Resolve ``spec`` once; returns ``(label, make)`` where ``make(seed)`` builds a fresh agent.

    The benchmark kit resolves a spec once per process and builds one agent per game from that game's
    seed (so results do not depend on how games are split over workers). Checkpoints are loaded once
    (:func:`traitors_env.agents.checkpoint.load_frozen_policy` caches them); a factory is imported once
    and called for every agent, and is checked here by building one agent with seed 0.

    Raises:
        AgentSpecError: naming the spec and what was expected (unknown name, missing path, a module
            that cannot be imported, a factory that raises or returns no agent, a checkpoint of
            another environment).
    """
    if not isinstance(spec, str) or not spec:
        raise AgentSpecError(f"agent spec {spec!r} is not a non-empty string")
    if game in ("the_traitors", "the_traitors_v0"):
        from .the_traitors_spec import the_traitors_agent_maker

        return the_traitors_agent_maker(spec, error=AgentSpecError)
    if game not in ("traitors_aboard", "traitors_aboard_v0"):
        raise AgentSpecError(f"agent {spec!r}: game {game!r} is not known; expected traitors_aboard or the_traitors")
    if spec in AGENT_NAMES:
        return spec, functools.partial(make_agent, spec)
    path = Path(spec)
    if path.exists():
        return _checkpoint_maker(spec, path)
    module_part = spec.rpartition(":")[0]
    if module_part and (module_part.endswith(".py") or not spec.startswith((".", "/"))):
        make = _factory_maker(spec)
        make(0)  # a factory that fails or returns no agent is refused before any game
        return f"factory:{spec}", make
    raise AgentSpecError(
        f"agent {spec!r} is neither a bot name ({', '.join(AGENT_NAMES)}), an existing checkpoint file or folder, "
        "nor a factory 'package.module:function' or 'path/to/file.py:function'"
    )


def _factory_maker(spec: str) -> Callable:
    module_name, _, attribute = spec.rpartition(":")
    try:
        if module_name.endswith(".py"):  # a file: works wherever the command runs, as traitors-eval or in a worker
            if not Path(module_name).is_file():
                raise FileNotFoundError(f"no file {module_name!r}")
            source = importlib.util.spec_from_file_location(f"_agent_{Path(module_name).stem}", module_name)
            module = importlib.util.module_from_spec(source)
            source.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except Exception as error:  # ImportError, or the module's own failure at import
        raise AgentSpecError(
            f"agent {spec!r}: module {module_name!r} cannot be imported: {error} (it must be installed or on "
            "PYTHONPATH, e.g. PYTHONPATH=. for a module in the current folder; or name the file: path/to/file.py:function)"
        ) from None
    factory = getattr(module, attribute, None)
    if not callable(factory):
        raise AgentSpecError(f"agent {spec!r}: module {module_name!r} has no callable {attribute!r}")
    try:
        takes_seed = "seed" in inspect.signature(factory).parameters
    except (TypeError, ValueError):  # builtins without a signature
        takes_seed = False

    def make(seed) -> Agent:
        try:
            agent = factory(seed=seed) if takes_seed else factory()
        except Exception as error:
            raise AgentSpecError(f"agent {spec!r}: the factory raised {type(error).__name__}: {error}") from None
        if not callable(getattr(agent, "act", None)):
            raise AgentSpecError(
                f"agent {spec!r}: the factory returned {type(agent).__name__}, which has no "
                "act(observation, action_mask) -> int; expected an Agent (traitors_env.agents.Agent)"
            )
        return agent

    return make


def _checkpoint_maker(spec: str, path: Path) -> tuple[str, Callable]:
    from . import rllib_checkpoint  # reads files only; ray is imported when a module loads
    from .checkpoint import PolicyAgent, PolicyLoadError, load_frozen_policy

    if rllib_checkpoint.is_rllib_checkpoint(path):  # an RLlib module, algorithm checkpoint or run folder
        label, _ = rllib_checkpoint.load_rllib_agent(spec, path, 0)  # loads (and caches) now: errors before any game
        return label, lambda seed: rllib_checkpoint.load_rllib_agent(spec, path, seed)[1]
    if not _is_jax_checkpoint(path):
        try:
            import sb3_contrib  # noqa: F401  (checked here so the error names the missing extra)
        except ImportError as error:
            raise AgentSpecError(
                f"agent {spec!r}: trained checkpoints need the training extra (pip install -e '.[train]'): {error}"
            ) from None

    def policy(file: Path):
        try:
            return load_frozen_policy(file)
        except PolicyLoadError as error:
            raise AgentSpecError(f"agent {spec!r}: {error}") from None

    def generator(seed) -> np.random.Generator:
        return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)

    if path.is_file():
        frozen = policy(path)
        return f"policy:{path}", lambda seed: PolicyAgent(frozen, seed=generator(seed))
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
        other = " (it holds faithful.zip: a checkpoint of the_traitors_v0; use --game the_traitors)" if (
            folder / "faithful.zip").is_file() else ""
        raise AgentSpecError(
            f"agent {spec!r}: folder holds no pirates.zip and mutineers.zip (nor .msgpack){other}; expected a "
            "checkpoint .zip or .msgpack, a generation folder or a run folder"
        )
    frozen_pirates, frozen_mutineers = policy(pirates), policy(mutineers)

    def make(seed) -> Agent:
        rng = generator(seed)  # one stream for both teams' policies, as before
        return TeamAgent(PolicyAgent(frozen_pirates, seed=rng), PolicyAgent(frozen_mutineers, seed=rng))

    return f"policy:{folder}", make


def _is_jax_checkpoint(path: Path) -> bool:
    """A ``.msgpack`` checkpoint of the JAX backend, or a generation/run folder of one."""
    if path.is_file():
        return path.suffix == ".msgpack"
    return (path / "pirates.msgpack").is_file() or any(path.glob("checkpoints/gen_*/pirates.msgpack"))
