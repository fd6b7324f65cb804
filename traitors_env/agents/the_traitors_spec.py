"""Agents of ``the_traitors_v0`` by spec (issue 15): the benchmark kit's and ``traitors-play``'s one resolver.

A spec is ``random``, ``heuristic`` (:func:`~traitors_env.games.the_traitors.bots.make_the_traitors_agent`), a run
folder of ``training/the_traitors_train.py`` (its newest completed generation, as ``state.json`` says),
a generation folder (``faithful.zip`` + ``traitor.zip``, played by role through
:class:`~traitors_env.games.the_traitors.bots.TheTraitorsRoleAgent`), a single ``MaskablePPO`` ``.zip`` of
``the_traitors_v0`` (plays every seat it is given), or ``package.module:function`` as for the first game.
Checkpoints need the ``train`` extra and are loaded once per process
(:func:`~.the_traitors_checkpoint.load_the_traitors_policy`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..games.the_traitors.bots import THE_TRAITORS_AGENT_NAMES, TheTraitorsRoleAgent, make_the_traitors_agent
from .run_folder import RunFolder

__all__ = ["the_traitors_agent_maker"]


def the_traitors_agent_maker(spec: str, error: type[Exception] = ValueError) -> tuple[str, Callable]:
    """Resolve ``spec`` once; returns ``(label, make)`` where ``make(seed)`` builds a fresh agent.

    Args:
        error: the exception class raised (``AgentSpecError`` for the kit, ``BotSpecError`` for play).

    Raises:
        error: naming the spec and what was expected: an unknown name, a missing path, a run without a
            completed generation, a folder of another game (``pirates.zip``: a Traitors Aboard run), a
            checkpoint trained on another environment's spaces.
    """
    if spec in THE_TRAITORS_AGENT_NAMES:
        return spec, lambda seed: make_the_traitors_agent(spec, seed)
    path = Path(spec)
    if not path.exists():
        module_part = spec.rpartition(":")[0]
        if module_part and (module_part.endswith(".py") or not spec.startswith((".", "/"))):
            from .spec import _factory_maker

            make = _factory_maker(spec)
            make(0)
            return f"factory:{spec}", make
        raise error(
            f"agent {spec!r} is neither a bot name of the_traitors_v0 ({', '.join(THE_TRAITORS_AGENT_NAMES)}), "
            "an existing checkpoint file or folder, nor a factory 'package.module:function'"
        )
    try:
        from .the_traitors_checkpoint import PolicyAgent, PolicyLoadError, load_the_traitors_policy
    except ImportError as missing:  # pragma: no cover - the train extra is missing
        raise error(f"agent {spec!r}: trained policies need the train extra (pip install -e '.[train]'): {missing}") from None

    def policy(file: Path):
        try:
            return load_the_traitors_policy(file)
        except PolicyLoadError as failure:
            raise error(f"agent {spec!r}: {failure}") from None

    def generator(seed) -> np.random.Generator:
        return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)

    if path.is_file():
        frozen = policy(path)
        return f"policy:{path}", lambda seed: PolicyAgent(frozen, seed=generator(seed))
    folder = path
    if (path / "checkpoints").is_dir():
        completed = RunFolder(path).completed_generations()
        if not completed:
            raise error(f"run folder {spec!r} has no generation completed yet (its state.json names none)")
        folder = RunFolder(path).generation_dir(completed - 1)
    faithful, traitor = folder / "faithful.zip", folder / "traitor.zip"
    if not (faithful.is_file() and traitor.is_file()):
        other = " (it holds pirates.zip: a checkpoint of traitors_aboard_v0, not the_traitors_v0)" if (
            folder / "pirates.zip").is_file() else ""
        raise error(f"agent {spec!r}: no faithful.zip and traitor.zip in {str(folder)!r}{other}; expected a "
                    "the_traitors_v0 run folder, generation folder or checkpoint .zip")
    frozen_faithful, frozen_traitor = policy(faithful), policy(traitor)

    def make(seed):
        rng = generator(seed)  # one stream for both roles' policies
        return TheTraitorsRoleAgent(PolicyAgent(frozen_faithful, seed=rng), PolicyAgent(frozen_traitor, seed=rng))

    return f"policy:{folder}", make
