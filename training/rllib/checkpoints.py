"""Where an RLlib run keeps its side modules, and the agents that play them (no Ray import at module level).

Below :mod:`.runner` (which writes them) and :mod:`training.evaluate` (which plays them): an algorithm checkpoint
``checkpoints/gen_NNN/`` holds each side's module in ``learner_group/learner/rl_module/<side key>``
(:data:`MODULE_DIR`).
"""

from __future__ import annotations

from pathlib import Path

from traitors_env.agents.checkpoint import PolicyLoadError
from traitors_env.core import Game, load_game

from ..storage import RunFolder

__all__ = ["MODULE_DIR", "RLlibModuleSpec", "kept_when_pruned", "trained_module_specs"]

#: Paths of the side modules inside an algorithm checkpoint.
MODULE_DIR = Path("learner_group") / "learner" / "rl_module"


def kept_when_pruned(sides) -> tuple[Path, ...]:
    """What :func:`training.rllib.runner.prune_checkpoints` leaves of an older iteration's checkpoint: the modules
    of ``sides`` (the game's side keys)."""
    return tuple(MODULE_DIR / team for team in sides)


class RLlibModuleSpec:
    """A picklable recipe for the agent of a saved side module (``build(seed)``, as :class:`training.agents.AgentSpec`)."""

    def __init__(self, path: str, deterministic: bool, game: str) -> None:
        self.path = str(path)
        self.deterministic = deterministic
        self.game = game  # by name (picklable): the module's spaces are checked against this game's

    def build(self, seed=None):
        from traitors_env.agents.checkpoint import PolicyAgent
        from traitors_env.agents.rllib_checkpoint import load_module_policy

        return PolicyAgent(load_module_policy(self.path, self.game), seed=seed, deterministic=self.deterministic)


def trained_module_specs(
    run: RunFolder, generation: int, deterministic: dict[str, bool], game: Game | str
) -> tuple[dict[str, Path], dict]:
    """The side modules of iteration ``generation`` (0-based) of an RLlib run of ``game``, each played greedily where
    ``deterministic[side]``, for :func:`training.evaluate.evaluate_run` (which evaluates RLlib runs as SB3 runs,
    ``backend: rllib`` in the report): ``({side: module folder}, {side: RLlibModuleSpec})``.

    Raises:
        PolicyLoadError: if a module folder is missing.
    """
    game = load_game(game)
    modules = {team: run.generation_dir(generation) / MODULE_DIR / team for team in game.type.sides}
    for path in modules.values():
        if not path.is_dir():
            raise PolicyLoadError(f"RLlib module {str(path)!r} does not exist; train first or pick another --generation")
    return modules, {team: RLlibModuleSpec(path, deterministic[team], game.name) for team, path in modules.items()}
