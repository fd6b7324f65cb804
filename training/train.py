"""``traitors-train``: train both sides of any registered game, then evaluate the newest generation.

``traitors-train --config configs/quick.yaml`` (or ``python -m training.train``) reads the config, trains with the
backend it names and prints the final evaluation (:mod:`training.evaluate`). The config's ``backend:`` picks the
backend module (:data:`BACKENDS`), each with ``train(config, resume=False, force=False) -> RunFolder``:

- ``sb3`` (the default): :mod:`training.sb3`, sb3-contrib ``MaskablePPO``, any game;
- ``jax``: :mod:`training.jax_backend.train`, the whole rollout and update jitted (a game with a JAX twin);
- ``rllib``: :mod:`training.rllib.runner`, Ray RLlib's PPO (a zero-sum team game).

Which backends a game supports is read from the game (:func:`training.config.backend_problem`); the run folder,
seeds and errors every backend shares are in :mod:`training.run`, below all of them.

``--resume`` continues a killed or interrupted run from its last completed generation; it also extends a finished
run when the config (or ``--generations``) asks for more generations. Ctrl-C keeps the completed generations,
discards the one cut short and prints the ``--resume`` command. Everything else in the config must match the saved
run. ``--generations N`` is saved into the run's ``config.yaml``, and a later ``--resume`` never lowers it to a
smaller value from the ``--config`` file. Resuming a finished run whose evaluation is up to date only says where
the results are.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Sequence

from traitors_env.agents.checkpoint import PolicyLoadError
from traitors_env.agents.spec import AgentSpecError
from traitors_env.core import load_game
from traitors_env.core.registry import DEFAULT_GAME

from .config import ConfigError, RunConfig, config_from_dict, load_config
from .evaluate import EvaluationError, evaluate_run, evaluation_is_current
from .resume import evaluate_command, interrupted_message
from .run import (  # noqa: F401
    RLLIB_RESUME_REFUSED,
    RunError,
    check_backend_extra,
    derive_seed,
    prepare_run_folder,
    saved_generations,
)
from .sb3 import build_vec_env, configure_team  # noqa: F401
from .sb3 import new_model as _new_model  # noqa: F401
from .storage import RunFolder, RunFolderError, save_model_atomic  # noqa: F401

__all__ = ["BACKENDS", "backend_module", "main", "train"]


#: The default game's side keys. This module once held the SB3 backend; its names that other callers import from
#: here (training/bench.py: ``TEAMS``, ``configure_team``, ``_new_model``, ``build_vec_env``, ``save_model_atomic``,
#: ``derive_seed``, ``RunError``, ``check_backend_extra``) stay importable.
TEAMS = load_game(DEFAULT_GAME).type.sides
#: ``backend:`` → the module that trains it (imported only when a config asks for it).
BACKENDS = {"sb3": "training.sb3", "jax": "training.jax_backend.train", "rllib": "training.rllib.runner"}


def backend_module(backend: str):
    """The module of ``backend`` (:data:`BACKENDS`), imported now.

    Raises:
        RunError: for a backend that is not one of :data:`BACKENDS`.
    """
    if backend not in BACKENDS:
        raise RunError(f"backend {backend!r} is not known; expected one of {', '.join(BACKENDS)}")
    return importlib.import_module(BACKENDS[backend])


def train(config: RunConfig, resume: bool = False, force: bool = False, trust_checkpoint: bool = False) -> RunFolder:
    """Run (or resume) the generations of ``config`` with its backend; returns the run folder.

    ``trust_checkpoint``: resuming an RLlib run restores RLlib's own checkpoint, pickles that can run code; it is
    refused without (:data:`RLLIB_RESUME_REFUSED`). The other backends read their checkpoints as data.

    Raises:
        RunError: see :func:`training.run.prepare_run_folder`; an RLlib ``resume`` without ``trust_checkpoint``.
    """
    if config.league is not None:  # population training (backend: jax only, checked by the config)
        from .jax_backend.league import train_league

        return train_league(config, resume=resume, force=force)
    if config.backend == "rllib":
        return backend_module("rllib").train(config, resume=resume, force=force, trust_checkpoint=trust_checkpoint)
    return backend_module(config.backend).train(config, resume=resume, force=force)


def print_config_list() -> int:
    """``traitors-train --list-configs``: each shipped config's name and summary on one line; returns the exit status."""
    from .config_files import UnknownConfigError, list_configs

    try:
        configs = list_configs()
    except UnknownConfigError as error:
        print(f"traitors-train: error: {error}", file=sys.stderr)
        return 2
    width = max(map(len, configs), default=0)
    for name, summary in configs.items():
        print(f"{name:<{width}}  {summary}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``traitors-train``: train, evaluate and print the final table; returns the exit status (0, 2 for an error,
    130 for Ctrl-C)."""
    parser = argparse.ArgumentParser(
        prog="traitors-train",
        description="Train both sides of a game (env.name of the config) with PPO, then evaluate the newest "
        "generation.",
        epilog="Progress bar: 'gen G/T side' is the side being trained; learner_sps = the learner's decisions "
        "(environment steps) per second; train_win = the learner side's win rate over its last 200 training "
        "games against its opponent pool.",
    )
    parser.add_argument("--config", help="a shipped config's name (quick, tiny, …: --list-configs) or a YAML file's path")
    parser.add_argument("--list-configs", action="store_true", help="print the shipped configs, one line each, and exit")
    parser.add_argument("--resume", action="store_true", help="continue the run from its last completed generation")
    parser.add_argument("--trust-checkpoint", action="store_true",
                        help="needed to --resume an RLlib run: its checkpoint is a pickle, which can run code; resume "
                        "only a run folder you trained yourself")
    parser.add_argument("--force", action="store_true", help="delete an existing run folder of the same name first")
    parser.add_argument("--name", default=None, help="override name of the config (the run folder <output-dir>/<name>)")
    parser.add_argument("--output-dir", default=None, help="override output_dir of the config")
    parser.add_argument("--seed", type=int, default=None, help="override seed of the config")
    parser.add_argument(
        "--generations",
        type=int,
        default=None,
        help="override training.generations; with --resume, saved in the run's config.yaml",
    )
    parser.add_argument("--no-eval", action="store_true", help="skip the final evaluation")
    args = parser.parse_args(argv)
    if args.list_configs:  # the configs shipped inside the package (training/config_files.py)
        return print_config_list()
    if args.config is None:
        parser.error("--config is required: a shipped config's name (e.g. quick; --list-configs lists them) or a YAML path")
    config = None
    try:
        config = load_config(args.config)
        overrides = {}
        if args.name is not None:
            overrides["name"] = args.name
        if args.output_dir is not None:
            overrides["output_dir"] = args.output_dir
        if args.seed is not None:
            overrides["seed"] = args.seed
        data = config.model_dump(mode="json") | overrides
        if args.generations is not None:
            data["training"]["generations"] = args.generations
            if data.get("league"):  # a league's iterations are its generations
                data["league"]["iterations"] = args.generations
        config = config_from_dict(data, "command line")
        if args.resume and config.backend == "rllib" and config.league is None and not args.trust_checkpoint:
            raise RunError(RLLIB_RESUME_REFUSED)  # before anything of the run folder is read
        check_backend_extra(config)
        if config.backend == "rllib" and argv is None:  # the command itself, not a call from Python
            from .rllib.runner import pin_hash_seed

            # Before anything is printed: the process re-executes itself here, and the new image runs all of
            # main() again, so a notice printed earlier would appear twice.
            pin_hash_seed()
        if args.resume and args.generations is None:
            # The run may have been extended with --generations: the --config file must not shrink it back.
            saved = saved_generations(config)
            if saved is not None and saved > config.training.generations:
                print(
                    f"keeping training.generations = {saved} from the run's config.yaml ({args.config} says "
                    f"{config.training.generations}; pass --generations to change it)"
                )
                data["training"]["generations"] = saved
                if data.get("league"):
                    data["league"]["iterations"] = saved
                config = config_from_dict(data, "command line")
        began = time.perf_counter()
        run = train(config, resume=args.resume, force=args.force, trust_checkpoint=args.trust_checkpoint)
        trained = time.perf_counter() - began
        if args.no_eval:
            print(f"run folder: {run.path} (not evaluated: --no-eval); evaluate it with: {evaluate_command(run.path)}")
            return 0
        if evaluation_is_current(config, run):
            names = [n for n in ("evaluation.json", "evaluation.csv", "winrates.png") if (run.path / n).is_file()]
            print(
                f"run {config.name!r} is complete and its evaluation is up to date, not evaluated again: "
                f"{run.path / 'evaluation.md'} (also {', '.join(names)} in {run.path})"
            )
            return 0
        print(f"training done in {trained:.0f} s; evaluating ({config.evaluation.games} games per cell)…", flush=True)
        evaluate_run(config, run)  # any backend's run, any game
    except (ConfigError, RunError, PolicyLoadError, RunFolderError, EvaluationError, AgentSpecError) as error:
        print(f"traitors-train: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\ntraitors-train: {interrupted_message(args, config)}", file=sys.stderr)
        return 130
    print((run.path / "evaluation.md").read_text(encoding="utf-8"))
    print(f"run folder: {run.path} (total {time.perf_counter() - began:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
