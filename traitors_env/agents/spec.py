"""Agents by spec: one string names any agent of any registered game.

A spec, for a game (a registered name or environment id, or a :class:`~traitors_env.core.Game`; default
:data:`~traitors_env.core.registry.DEFAULT_GAME`), is one of:

- a bot name of the game (``game.bots``: ``random``, ``heuristic``, …; :func:`traitors_env.agents.make_agent`);
- a path to a trained checkpoint of one of the three backends:

  - a ``MaskablePPO`` ``.zip`` (SB3; needs the ``train`` extra) or a ``.msgpack`` (JAX; needs the ``jax`` extra)
    plays every seat it is given (:mod:`.checkpoint`, :mod:`.jax_checkpoint`);
  - a generation folder (``<side>.zip`` or ``<side>.msgpack`` for both of the game's sides, e.g. ``pirates.zip`` +
    ``mutineers.zip``) plays each decision with the policy of the side the observation shows (:class:`SideAgent`);
  - a run folder: its newest completed generation (the last one ``state.json`` calls completed);
  - an RLlib module folder, algorithm checkpoint or run folder (:mod:`.rllib_checkpoint`; needs the ``rllib`` extra);
  - a league's ``league.json`` (in a league's run folder): the league's meta-game Nash mixture, one member per side
    drawn per game (:mod:`.league`), per table size for a league trained with ``league.meta_game: per_size``;
    ``PATH/league.json:pooled`` plays the pooled mixture of any league, ``:per_size`` insists on the per-size one;

  a checkpoint of another game (other spaces, or another game's side files) is refused with a clear error;
- a tabular policy ``PATH.policy.json`` (an exact solver's, e.g. ``traitors-exact --cfr``'s CFR+ average policy of a
  small variant): JSON data, an action distribution per observation (:mod:`.tabular`);
- a team equilibrium ``PATH.team.json`` (``python -m traitors_env.solve.team_equilibrium --out``): the Pirates' joint
  plans, one drawn per game and followed by every Pirate seat, and the Mutineer's strategy (:mod:`.team_plan`); or
  (``python -m traitors_env.solve.team_lp --out``) the team's flows over its belief DAG, the plan drawn lazily per
  game (:mod:`.team_dag`);
- ``openai:MODEL``: a language model behind an OpenAI-compatible chat server (:mod:`.llm`; needs the ``llm`` extra),
  with the server, sampling and retry options of an :class:`~.llm.LLMOptions` (``agent_maker(..., llm=...)``;
  the ``--llm-*`` options of ``traitors-eval`` and ``traitors-play``);
- ``package.module:function`` or ``path/to/file.py:function``: a user's factory, called as ``function(seed=seed)``
  (or ``function()`` if it takes no ``seed``), returning an object with ``act(observation, action_mask) -> int``
  (:class:`traitors_env.agents.Agent`).

Checkpoints are loaded through :mod:`.checkpoint`, which imports sb3-contrib only then, so the environment
package never imports ``training/``.
"""

from __future__ import annotations

import difflib
import functools
import importlib
import importlib.util
import inspect
import os
import stat
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..core.agent import Agent
from ..core.game import Game
from ..core.registry import DEFAULT_GAME, UnknownGameError, load_game, registered_games
from . import make_agent, tabular, team_dag, team_plan
from .league import league_maker, league_spec
from .policy import AgentSpecError, PolicyLoadError, generator, policy_agent
from .run_folder import RunFolder
from .side import SideAgent

__all__ = ["AgentSpecError", "agent_maker", "is_code_spec", "load_agent"]

#: The checkpoint file suffixes of the SB3 and JAX backends, in the order a generation folder is searched.
_SUFFIXES = (".msgpack", ".zip")


def load_agent(spec: str, seed: int | np.random.Generator | None = None,
               game: str | Game = DEFAULT_GAME, llm=None) -> tuple[str, Agent]:
    """The agent a ``spec`` names (see the module docstring); returns ``(label, agent)``.

    Args:
        spec: a bot name, a checkpoint or run folder path, or ``package.module:function``.
        seed: seeds the agent's own randomness (an int, ``None`` or a ``numpy.random.Generator``).
        game: the game the agent plays: a registered name or environment id, or a ``Game``.
        llm: the :class:`~.llm.LLMOptions` of an ``openai:MODEL`` spec (default: ``LLMOptions()``).

    Returns:
        ``label`` names the agent in records and reports (``"heuristic"``, ``"policy:runs/quick/..."``,
        ``"factory:pkg.mod:fn"``, ``"rllib:..."``).

    Raises:
        AgentSpecError: naming the spec and what was expected.
    """
    label, make = agent_maker(spec, game=game, llm=llm)
    return label, make(seed)


def agent_maker(spec: str, game: str | Game = DEFAULT_GAME,
                llm=None) -> tuple[str, Callable[[int | np.random.Generator | None], Agent]]:
    """Resolve ``spec`` for ``game`` once; returns ``(label, make)`` where ``make(seed)`` builds a fresh agent.

    The benchmark kit resolves a spec once per process and builds one agent per game from that game's
    seed (so results do not depend on how games are split over workers). Checkpoints are loaded once
    (the loaders cache them per file version); a factory is imported once and called for every agent,
    and is checked here by building one agent with seed 0. An ``openai:MODEL`` spec takes its server options from
    ``llm`` (an :class:`~.llm.LLMOptions`; nothing is sent to the server here).

    Raises:
        AgentSpecError: naming the spec and what was expected (an unknown game or name, a missing path, a module
            that cannot be imported, a factory that raises or returns no agent, a checkpoint of another game).
    """
    if not isinstance(spec, str) or not spec:
        raise AgentSpecError(f"agent spec {spec!r} is not a non-empty string")
    try:
        game = load_game(game)
    except UnknownGameError as error:
        raise AgentSpecError(f"agent {spec!r}: {error}") from None
    if spec in game.bots:
        return spec, functools.partial(make_agent, spec, game=game)
    from .llm import is_llm_spec, llm_maker

    if is_llm_spec(spec):
        return llm_maker(spec, game, llm)
    league = league_spec(spec)
    if league:
        path, mixture = league
        return league_maker(spec, path, game, mixture)
    path = Path(spec)
    if spec.endswith(tabular.SUFFIX):  # a solver's tabular policy: JSON data (.tabular)
        if not path.is_file():
            raise AgentSpecError(f"agent {spec!r}: {_not_a_file(path, 'tabular policy')}")
        try:
            policy = tabular.load_tabular_policy(path, game)
        except tabular.TabularPolicyError as error:
            raise AgentSpecError(f"agent {spec!r}: {error}") from None
        return f"tabular:{path}", lambda seed: tabular.TabularAgent(policy, seed=seed)
    if spec.endswith(team_plan.SUFFIX):  # a team equilibrium (the Pirates' joint plans drawn per game): JSON data
        if not path.is_file():
            raise AgentSpecError(f"agent {spec!r}: {_not_a_file(path, 'team equilibrium')}")
        try:
            if team_dag.is_team_dag(path):  # the team's flows over its belief DAG (solve/team_lp.py)
                dag_policy = team_dag.load_team_dag(path, game)
                return f"team:{path}", lambda seed: team_dag.TeamDagAgent(dag_policy, seed=seed)
            solution = team_plan.load_solution(path, game)
        except (OSError, ValueError) as error:  # TeamPolicyError is a ValueError
            raise AgentSpecError(f"agent {spec!r}: {error}") from None
        return f"team:{path}", lambda seed: team_plan.TeamEquilibriumAgent(solution, seed=seed)
    if path.exists():
        return _checkpoint_maker(spec, path, game)
    if _factory_form(spec):
        make = _factory_maker(spec)
        make(0)  # a factory that fails or returns no agent is refused before any game
        return f"factory:{spec}", make
    close = difflib.get_close_matches(spec, list(game.bots), n=1)  # a misspelled bot is the commonest slip
    raise AgentSpecError(
        f"agent {spec!r} is neither a bot name of {game.type.env_id} ({', '.join(game.bots)}), an existing checkpoint "
        "file or folder, a language model openai:MODEL, nor a factory 'package.module:function' or 'path/to/file.py:function'"
        + (f"; did you mean {close[0]!r}?" if close else "")
    )


def _not_a_file(path: Path, kind: str) -> str:
    """Why ``path`` (not a regular file) cannot be a ``kind`` file, in words: missing, or what it is instead (a
    link to a FIFO, a directory, a device...). ``os.stat`` only: nothing is opened, so nothing can block."""
    link = "a symbolic link to " if path.is_symlink() else ""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return f"a symbolic link to a missing file; expected a {kind} file" if link else f"no such {kind} file"
    except OSError as error:
        return f"cannot be read ({error.strerror or error}); expected a {kind} file"
    what = ("a directory" if stat.S_ISDIR(mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(mode)
            else "a character device" if stat.S_ISCHR(mode) else "a block device" if stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    return f"{link}{what}, not a regular file; expected a {kind} file (JSON)"


def _factory_form(spec: str) -> bool:
    """Whether ``spec`` has a factory's form, ``package.module:function`` or ``path/to/file.py:function`` (what
    :func:`agent_maker` imports once no other kind of spec matched)."""
    module_part = spec.rpartition(":")[0]
    return bool(module_part) and (module_part.endswith(".py") or not spec.startswith((".", "/")))


def is_code_spec(spec: object) -> bool:
    """Whether :func:`agent_maker` would import and run code for ``spec``: a factory ``package.module:function`` or
    ``path/to/file.py:function``, not a bot name, an ``openai:MODEL``, a league file or an existing path (checked
    without importing anything, for specs read from a file someone may have sent: docs/security.md)."""
    from .llm import is_llm_spec

    if not isinstance(spec, str) or ":" not in spec or is_llm_spec(spec):
        return False  # a bot name has no colon
    try:
        if league_spec(spec) or Path(spec).exists():
            return False
    except (AgentSpecError, OSError, ValueError):  # a bad league suffix, a name too long for a path: no code either
        return False
    return _factory_form(spec)


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


def _side_files(folder: Path, game: Game) -> tuple[Path, Path] | None:
    """Both sides' checkpoints of ``game`` in a generation folder (``<side>.msgpack``, else ``<side>.zip``), or ``None``."""
    for suffix in _SUFFIXES:
        files = tuple(folder / f"{side}{suffix}" for side in game.type.sides)
        if all(file.is_file() for file in files):
            return files
    return None


def _other_game(folder: Path, game: Game) -> str:
    """`` (it holds <file>: a checkpoint of <env id>; use --game <name>)`` for a folder of another registered game's
    side checkpoints, else ``""`` (for the error that names what a folder holds)."""
    for name in registered_games():
        try:
            other = load_game(name)
        except Exception:  # noqa: BLE001 - a broken plug-in must not hide the error being reported
            continue
        if other.type == game.type:
            continue
        for side in other.type.sides:
            for suffix in _SUFFIXES:
                if (folder / f"{side}{suffix}").is_file() and side not in game.type.sides:
                    return f" (it holds {side}{suffix}: a checkpoint of {other.type.env_id}; use --game {other.name})"
    return ""


def _checkpoint_maker(spec: str, path: Path, game: Game) -> tuple[str, Callable]:
    from . import rllib_checkpoint  # reads files only; ray is imported when a module loads
    from .checkpoint import load_frozen_policy

    if rllib_checkpoint.is_rllib_checkpoint(path):  # an RLlib module, algorithm checkpoint or run folder
        label, _ = rllib_checkpoint.load_rllib_agent(spec, path, 0, game)  # loads (and caches) now: errors before any game
        return label, lambda seed: rllib_checkpoint.load_rllib_agent(spec, path, seed, game)[1]
    if not _is_jax_checkpoint(path, game):
        try:
            import sb3_contrib  # noqa: F401  (checked here so the error names the missing extra)
        except ImportError as error:
            raise AgentSpecError(
                f"agent {spec!r}: trained checkpoints need the training extra (pip install -e '.[train]'): {error}"
            ) from None

    def policy(file: Path):
        try:
            return load_frozen_policy(file, game)
        except PolicyLoadError as error:
            raise AgentSpecError(f"agent {spec!r}: {error}") from None

    if path.is_file():
        frozen = policy(path)
        return f"policy:{path}", lambda seed: policy_agent(frozen, seed=generator(seed))
    folder = path
    if _side_files(path, game) is None and (path / "checkpoints").is_dir():
        # A run folder: its newest generation is the last one state.json calls completed (a generation
        # killed while saving is not).
        run = RunFolder(path)
        folder = run.newest_generation_dir()
        if folder is None:
            raise AgentSpecError(f"run folder {spec!r} has no generation completed yet ({run.why_none_completed()})")
    files = _side_files(folder, game)
    if files is None:
        first, second = game.type.sides
        raise AgentSpecError(
            f"agent {spec!r}: folder {str(folder)!r} holds no {first}.zip and {second}.zip (nor .msgpack)"
            f"{_other_game(folder, game)}; expected a checkpoint .zip or .msgpack, a generation folder or a run folder "
            f"of {game.type.env_id}"
        )
    frozen = tuple(policy(file) for file in files)

    def make(seed) -> Agent:
        rng = generator(seed)  # one stream for both sides' policies, as before
        return SideAgent(*(policy_agent(side, seed=rng) for side in frozen), game=game)

    return f"policy:{folder}", make


def _is_jax_checkpoint(path: Path, game: Game) -> bool:
    """A ``.msgpack`` checkpoint of the JAX backend, or a generation/run folder of one (of ``game``'s sides)."""
    if path.is_file():
        return path.suffix == ".msgpack"
    first = game.type.sides[0]
    return (path / f"{first}.msgpack").is_file() or any(path.glob(f"checkpoints/gen_*/{first}.msgpack"))

