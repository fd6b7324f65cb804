"""The SB3 backend of ``traitors-train`` (``backend: sb3``, the default): sb3-contrib ``MaskablePPO``, any game.

One policy per side of the game (its key names the checkpoint: ``pirates.zip``, ``traitor.zip``), trained in
alternating generations by the one game master (:class:`training.team_env.TeamEnv`). Each generation, for each
side in the game's training order (:attr:`~traitors_env.core.Game.sides_in_training_order`):

1. trains the side for ``training.steps_per_team`` learner decisions (:meth:`TrainingSection.steps_for`) against
   the opponent pool (:class:`training.agents.OpponentPool`): the newest snapshot pair of the sides (``latest``),
   an older pair (``past``), the heuristic or random, by the configured weights; the side trained second also
   meets the pair holding this generation's snapshot of the side trained first (:func:`snapshot_pairs`);
2. saves the side's snapshot;

then checks both sides against the heuristic (``evaluation.games_per_generation`` games each,
:func:`training.evaluate.vs_heuristic`) and records the generation as completed in ``state.json``.

``--resume`` continues a killed or interrupted run from its last completed generation (a generation cut short is
trained again from the previous snapshots, and what it had logged is removed first, :mod:`training.resume`); it
also extends a finished run when the config (or ``--generations``) asks for more. Ctrl-C keeps the completed
generations and discards the one cut short. Outputs: see :mod:`training.storage`.

One learner step = one learner decision (see :mod:`training.team_env`); throughput is reported as learner steps
per second (SB3's ``time/fps``) and as game decisions per second (every seat's decisions together).
"""

from __future__ import annotations

import csv
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .agents import OpponentPool, opponent_snapshots
from .config import RunConfig
from .evaluate import complete_generation, versus_heuristic_line, vs_heuristic
from .resume import PROGRESS_CSV, discard_incomplete_generations, load_checkpoint, tensorboard_writer
from .run import PROGRESS_COLUMNS, all_trained, derive_seed, prepare_run_folder
from .storage import RunFolder, save_model_atomic
from .team_env import TeamEnv

__all__ = ["build_vec_env", "configure_team", "new_model", "snapshot_pairs", "train"]


# ---------------------------------------------------------------- environments
def _make_env(config: RunConfig, rank: int):
    def build() -> TeamEnv:
        game = config.game
        return TeamEnv(
            game.sides_in_training_order[0],
            OpponentPool(config.opponents.weights(), (), seed=derive_seed(config.seed, 99, rank), game=game),
            player_counts=config.env.player_counts,
            player_count_weights=config.env.player_count_weights,
            claims=config.env.claims,
            game=game,
            hindsight=bool(config.hindsight.sides),
        )

    return build


def build_vec_env(config: RunConfig):
    """The learner's vectorized environments (``training.vec_env``: dummy or subproc), with ``VecMonitor``.

    Raises:
        RuntimeError: with ``subproc``, a worker process that cannot build its environment (a game registered in this
            process only, say), naming the game.
    """
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    builders = [_make_env(config, rank) for rank in range(config.training.n_envs)]
    if config.training.vec_env == "subproc":
        try:
            venv = SubprocVecEnv(builders, start_method="forkserver")
        except (EOFError, ConnectionError) as error:  # a worker died building its environment: SB3 says no more
            raise RuntimeError(
                f"training.vec_env: subproc: a worker process could not build an environment of game "
                f"{config.env.name!r} (its traceback is above, on stderr). Worker processes load the game by name "
                "from a fresh registry, so a game registered with register_game() in this process only is unknown "
                "there; register it through the entry-point group 'traitors_env.games', or use training.vec_env: dummy"
            ) from error
    else:
        venv = DummyVecEnv(builders)
    return VecMonitor(venv, info_keywords=("won",))


def configure_team(venv, config: RunConfig, team: str, snapshots: Sequence, seed: int) -> None:
    """Point every environment at side ``team`` (its key) as learner, with its own seeded opponent pool over
    ``snapshots`` (paths or pairs of paths, see :class:`~training.agents.OpponentPool`) and the side's table-size
    weights."""
    for rank in range(venv.num_envs):
        pool = OpponentPool(config.opponents.weights(), snapshots, seed=derive_seed(seed, rank), game=config.game)
        venv.env_method("configure", team, pool, config.env.count_weights_for(team), indices=[rank])
    # The next reset (a seeded one) keeps each pool's stream as seeded here instead of restarting it from the env's
    # seed: seeded runs train the weights, and the docs' figures, of before issue 49 (TeamEnv.reset's opponent_seed).
    venv.set_options([{"opponent_seed": derive_seed(seed, rank)} for rank in range(venv.num_envs)])


def snapshot_pairs(run: RunFolder, generation: int, team: str, config: RunConfig) -> list[tuple[str | None, str | None]]:
    """The snapshot pairs ``(side 0's path, side 1's path)`` the learner of side ``team`` meets in ``generation``
    (0-based), oldest first: every completed generation's pair; the side trained second also meets this
    generation's snapshot of the side trained first, paired with its own previous snapshot (``None``, played by
    the heuristic, in generation 0). A zero-sum team game's opponents play the other side's seats only: its pool
    holds the other side's half of each pair (:func:`training.agents.opponent_snapshots`)."""
    game = config.game
    sides = game.type.sides
    first, second = (sides[s] for s in game.sides_in_training_order)
    pairs: list[tuple[str | None, str | None]] = [
        (str(run.checkpoint(g, sides[0])), str(run.checkpoint(g, sides[1]))) for g in range(generation)
    ]
    if team == second:
        paths = {first: str(run.checkpoint(generation, first)),
                 second: str(run.checkpoint(generation - 1, second)) if generation else None}
        pairs.append((paths[sides[0]], paths[sides[1]]))
    return pairs


# ---------------------------------------------------------------- logging
def _progress_csv(path: Path, generation: int, team: str):
    """An SB3 ``KVWriter`` appending one row per PPO update to ``progress.csv`` (fixed columns, resumable:
    SB3's own CSV writer truncates the file when it opens it)."""
    from stable_baselines3.common.logger import KVWriter

    class ProgressCSV(KVWriter):
        def write(self, key_values: dict, key_excluded: dict, step: int = 0) -> None:
            new = not path.exists()
            with path.open("a", newline="", encoding="utf-8") as handle:
                writer = csv.DictWriter(handle, fieldnames=PROGRESS_COLUMNS, extrasaction="ignore")
                if new:
                    writer.writeheader()
                writer.writerow({"generation": generation + 1, "team": team, **key_values})

        def close(self) -> None:
            pass

    return ProgressCSV()


def _make_callback(bar, label: str, hindsight: list | None = None):
    """The SB3 callback of one side's training: counts learner steps for the progress bar ``bar`` (``None``: none)
    and logs the learner's win rate (games whose final info says ``won``) and game decisions per second. With a list
    ``hindsight``, appends to it ``(observation, action mask, answer)`` for every learner decision whose step info
    holds a ``hindsight_action`` (:class:`training.team_env.TeamEnv`)."""
    from stable_baselines3.common.callbacks import BaseCallback

    class TeamCallback(BaseCallback):
        """Counts learner steps for the progress bar; logs win rate and game decisions per second."""

        def _on_training_start(self) -> None:
            self.start = time.perf_counter()
            self.steps = 0
            self.decisions = 0
            self.wins: list[bool] = []
            if bar is not None:
                bar.set_description(label)

        def _on_step(self) -> bool:
            self.steps += self.training_env.num_envs
            for info, done in zip(self.locals["infos"], self.locals["dones"]):
                if done and "won" in info:
                    self.wins.append(bool(info["won"]))
                    self.decisions += int(info.get("game_decisions", 0))
            if hindsight is not None:
                # obs_tensor and action_masks are what the policy acted on (MaskablePPO.collect_rollouts' locals)
                for i, info in enumerate(self.locals["infos"]):
                    if "hindsight_action" in info:
                        hindsight.append((self.locals["obs_tensor"][i].numpy().copy(),
                                          np.asarray(self.locals["action_masks"][i], dtype=bool).copy(),
                                          int(info["hindsight_action"])))
            if bar is not None:
                bar.update(self.training_env.num_envs)
            return True

        def _on_rollout_end(self) -> None:
            elapsed = time.perf_counter() - self.start
            if self.wins:
                recent = self.wins[-200:]
                self.logger.record("rollout/win_rate", float(np.mean(recent)))
                if bar is not None:
                    bar.set_postfix(
                        learner_sps=f"{self.steps / elapsed:.0f}", train_win=f"{np.mean(recent):.2f}", refresh=False
                    )
            self.logger.record("rollout/game_decisions_per_s", self.decisions / max(elapsed, 1e-9))

    return TeamCallback()


def new_model(config: RunConfig, venv, seed: int):
    """A fresh ``MaskablePPO`` of ``config.ppo`` on ``venv`` (CPU), seeded with ``seed``."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger

    ppo = config.ppo
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[ppo.activation]
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        learning_rate=ppo.learning_rate,
        n_steps=ppo.n_steps,
        batch_size=ppo.batch_size,
        n_epochs=ppo.n_epochs,
        gamma=ppo.gamma,
        gae_lambda=ppo.gae_lambda,
        clip_range=ppo.clip_range,
        ent_coef=ppo.ent_coef,
        vf_coef=ppo.vf_coef,
        max_grad_norm=ppo.max_grad_norm,
        policy_kwargs={"net_arch": list(ppo.net_arch), "activation_fn": activation},
        seed=seed,
        device="cpu",
        verbose=0,
    )
    # A silent logger of our own: without one, every learn() makes an empty /tmp/SB3-<date> folder (SB3's default).
    model.set_logger(Logger(None, []))
    return model


# ---------------------------------------------------------------- the run
def train(config: RunConfig, resume: bool = False, force: bool = False) -> RunFolder:
    """Run (or resume) the generations of ``config``; returns the run folder. See the module doc.

    Raises:
        training.run.RunError: see :func:`training.run.prepare_run_folder`.
    """
    import torch
    from stable_baselines3.common.logger import Logger
    from tqdm.auto import tqdm

    game = config.game
    order = config.teams  # the side keys in training order
    torch.set_num_threads(config.training.torch_threads)
    run, state = prepare_run_folder(config, resume, force)
    start = state["completed_generations"]
    total_generations = config.training.generations
    if all_trained(config, start):
        return run
    if resume:
        done = f"generations 1–{start}" if start > 1 else "generation 1" if start else "no generation"
        print(f"resuming run {config.name!r} at generation {start + 1} of {total_generations} ({done} completed)")

    venv = build_vec_env(config)
    # Built from the config as at the start of the run, a resumed run's too (its weights are then read as data
    # only, training.resume.load_checkpoint): the same constructions move the global generators the same way.
    models = {team: new_model(config, venv, derive_seed(config.seed, 1, index)) for index, team in enumerate(order)}
    if start > 0:
        for team in order:
            load_checkpoint(run.checkpoint(start - 1, team), models[team])
    else:
        warm = config.warm_start
        for index, team in enumerate(order):
            if team in warm.sides:  # behaviour cloning before generation 1 (training.clone; off by default)
                from .clone import clone_into, collect

                t0, seed = time.perf_counter(), derive_seed(config.seed, 2, index)
                configure_team(venv, config, team, opponent_snapshots(game, game.type.side_index(team), []), seed)
                data = collect(venv, game, warm.bot, warm.sides[team], config.ppo.gamma, seed)
                stats = clone_into(models[team], data, warm.epochs, warm.batch_size, warm.learning_rate, seed)
                state.setdefault("warm_start", {})[team] = {**stats, "seconds": round(time.perf_counter() - t0, 2)}
                print(f"warm start {team}: cloned {warm.bot!r} ({state['warm_start'][team]})", flush=True)

    if config.evaluation.games_per_generation and state.get("baselines_vs_heuristic") is None:
        state["baselines_vs_heuristic"] = vs_heuristic(config, None, baselines=True)

    # SB3 collects whole rollouts: each learn() call runs a multiple of n_steps * n_envs steps.
    rollout = config.ppo.n_steps * config.training.n_envs
    remaining = (total_generations - start) * sum(-(-config.training.steps_for(t) // rollout) * rollout for t in order)
    bar = tqdm(
        total=remaining,
        unit="step",
        disable=not config.training.progress_bar,
        dynamic_ncols=True,
        mininterval=0.5 if sys.stderr.isatty() else 30.0,  # a log file gets a line every 30 s, not thousands
    )
    try:
        for generation in range(start, total_generations):
            began = time.perf_counter()
            record = {"generation": generation + 1, "teams": {}}  # 1-based, as everywhere
            for index, team in enumerate(order):
                seed = derive_seed(config.seed, generation, index)
                pairs = snapshot_pairs(run, generation, team, config)
                side = game.type.side_index(team)
                configure_team(venv, config, team, opponent_snapshots(game, side, pairs), seed)
                model = models[team]
                model.set_env(venv, force_reset=True)  # the learner's side changed: start new games
                model.set_random_seed(seed)
                venv.seed(seed)
                model.set_logger(
                    Logger(
                        None,
                        [
                            tensorboard_writer(run.path / "tensorboard" / team, generation + 1),
                            _progress_csv(run.path / PROGRESS_CSV, generation, team),
                        ],
                    )
                )
                label = f"gen {generation + 1}/{total_generations} {team}"
                samples = [] if team in config.hindsight.sides else None
                callback = _make_callback(bar if config.training.progress_bar else None, label, samples)
                t0, before = time.perf_counter(), model.num_timesteps
                model.learn(total_timesteps=config.training.steps_for(team), callback=callback,
                            reset_num_timesteps=False)
                model.logger.close()  # the generation's event file complete before the generation counts
                seconds = time.perf_counter() - t0
                hindsight = None
                if samples is not None:  # the hindsight fit (training.clone; off by default)
                    from .clone import fit_hindsight

                    h, t1 = config.hindsight, time.perf_counter()
                    hindsight = fit_hindsight(model, samples, h.epochs, h.batch_size, h.learning_rate, seed, h.sharpen)
                    hindsight["seconds"] = round(time.perf_counter() - t1, 2)
                    bar.write(f"gen {generation + 1} {team}: hindsight fit {hindsight}")
                save_model_atomic(model, run.checkpoint(generation, team))
                learner_steps = model.num_timesteps - before
                record["teams"][team] = {
                    "learner_steps": learner_steps,
                    "seconds": round(seconds, 2),
                    "steps_per_second": round(learner_steps / seconds, 1),
                    "game_decisions_per_second": round(callback.decisions / seconds, 1),
                    "train_win_rate": float(np.mean(callback.wins)) if callback.wins else None,
                    "total_timesteps": model.num_timesteps,
                    **({"hindsight": hindsight} if hindsight is not None else {}),
                }
            if config.evaluation.games_per_generation:
                snapshots = {team: str(run.checkpoint(generation, team)) for team in order}
                check = vs_heuristic(config, snapshots, baselines=False)
                for team in check:
                    check[team].update(state["baselines_vs_heuristic"][team])
                record["vs_heuristic"] = check
                bar.write(f"gen {generation + 1}: {versus_heuristic_line(check, game)}")
            record["seconds"] = round(time.perf_counter() - began, 2)
            complete_generation(run, state, record, game)
    except KeyboardInterrupt:
        discard_incomplete_generations(run, state["completed_generations"])  # nothing half-written stays
        raise
    finally:
        bar.close()
        try:
            venv.close()
        except (EOFError, OSError):  # SubprocVecEnv workers end on the same Ctrl-C (SB3's worker catches it)
            pass
    return run
