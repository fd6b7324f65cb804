"""Team training with sb3-contrib ``MaskablePPO``: alternating generations of Pirates and Mutineers.

``traitors-train --config configs/quick.yaml`` (or ``python -m training.train``) trains, evaluates
and prints the final table. Each generation:

1. trains the Pirates for ``training.steps_per_team`` learner decisions against the opponent
   pool (the Mutineers' newest and older snapshots, the heuristic and random bots, by the
   configured weights; see :class:`training.agents.OpponentPool`);
2. saves the Pirates' snapshot, then trains the Mutineers the same way (their pool now
   holds this generation's Pirates);
3. saves the Mutineers' snapshot, checks both teams against the heuristic
   (``evaluation.games_per_generation`` games each) and records the generation as completed
   in ``state.json``.

``--resume`` continues a killed or interrupted run from its last completed generation (a
generation cut short is trained again from the previous snapshots, and what it had logged is
removed first, :mod:`training.resume`); it also extends a finished run when the config (or
``--generations``) asks for more generations. Ctrl-C keeps the completed generations, discards the
one cut short and prints the ``--resume`` command. Everything else in the config
must match the saved run. ``--generations N`` is saved into the run's ``config.yaml``, and a
later ``--resume`` never lowers it to a smaller value from the ``--config`` file. Resuming a
finished run whose evaluation is up to date only says where the results are.
Outputs: see :mod:`training.storage`.

One learner step = one learner decision (see :mod:`training.team_env`); throughput is
reported as learner steps per second (SB3's ``time/fps``) and as game decisions per
second (learner and opponent decisions together).
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .agents import AgentSpec, OpponentPool, PolicyLoadError
from .config import ConfigError, RunConfig, config_from_dict, dump_config, load_config
from .evaluate import evaluate_matrix, evaluate_run, evaluation_is_current, plot_generations, wilson_interval
from .resume import (
    PROGRESS_CSV,
    discard_incomplete_generations,
    evaluate_command,
    interrupted_message,
    load_checkpoint,
    tensorboard_writer,
)
from .storage import RunFolder, RunFolderError, atomic_write_text, save_model_atomic
from .team_env import TeamEnv

TEAMS = ("pirates", "mutineers")
#: Config keys that may differ between a run and its --resume (they do not change what was trained).
RESUMABLE_CHANGES = {
    ("training", "generations"),
    ("training", "n_envs"),
    ("training", "vec_env"),
    ("training", "torch_threads"),
    ("training", "progress_bar"),
    ("evaluation",),
    ("rllib", "address"),  # where and how widely an RLlib run samples does not change what it trains
    ("rllib", "num_env_runners"),
    ("rllib", "num_cpus"),
    ("rllib", "object_store_memory_mb"),
    ("rllib", "keep_checkpoints"),  # what is kept on disk, not what is trained
}
PROGRESS_COLUMNS = (
    "generation",
    "team",
    "time/total_timesteps",
    "time/fps",
    "rollout/ep_len_mean",
    "rollout/ep_rew_mean",
    "rollout/win_rate",
    "rollout/game_decisions_per_s",
    "train/approx_kl",
    "train/clip_fraction",
    "train/entropy_loss",
    "train/explained_variance",
    "train/loss",
    "train/policy_gradient_loss",
    "train/value_loss",
    "train/learning_rate",
)


class RunError(RuntimeError):
    """A run folder that cannot be started or resumed as asked (the message says why and what to do)."""


def derive_seed(*parts: int) -> int:
    """A 32-bit seed from the run seed and indices (generation, team…)."""
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1)[0])


# ---------------------------------------------------------------- environments
def _make_env(config: RunConfig, rank: int):
    def build() -> TeamEnv:
        weights = config.opponents.weights()
        return TeamEnv(
            "pirates",
            OpponentPool(weights, (), seed=derive_seed(config.seed, 99, rank)),
            player_counts=config.env.player_counts,
            player_count_weights=config.env.player_count_weights,
            claims=config.env.claims,
        )

    return build


def build_vec_env(config: RunConfig):
    """The learner's vectorized environments (``training.vec_env``: dummy or subproc), with ``VecMonitor``."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    builders = [_make_env(config, rank) for rank in range(config.training.n_envs)]
    if config.training.vec_env == "subproc":
        venv = SubprocVecEnv(builders, start_method="forkserver")
    else:
        venv = DummyVecEnv(builders)
    return VecMonitor(venv, info_keywords=("team_won",))


def configure_team(venv, config: RunConfig, team: str, snapshots: Sequence[str], seed: int) -> None:
    """Point every environment at ``team`` as learner with its own seeded opponent pool over ``snapshots``."""
    for rank in range(venv.num_envs):
        pool = OpponentPool(config.opponents.weights(), snapshots, seed=derive_seed(seed, rank))
        venv.env_method("configure", team, pool, config.env.count_weights_for(team), indices=[rank])


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


def _make_callback(bar, team_label: str, won_key: str = "team_won"):
    """The SB3 callback of one team's (or role's) training: counts learner steps for the progress bar ``bar``
    (``None``: none) and logs the learner's win rate (games whose final info has ``won_key`` true) and game
    decisions per second. Both games' SB3 loops use it."""
    from stable_baselines3.common.callbacks import BaseCallback

    class TeamCallback(BaseCallback):
        """Counts learner steps for the progress bar; logs win rate and game decisions per second."""

        def _on_training_start(self) -> None:
            self.start = time.perf_counter()
            self.steps = 0
            self.decisions = 0
            self.wins: list[bool] = []
            if bar is not None:
                bar.set_description(team_label)

        def _on_step(self) -> bool:
            self.steps += self.training_env.num_envs
            for info, done in zip(self.locals["infos"], self.locals["dones"]):
                if done and won_key in info:
                    self.wins.append(bool(info[won_key]))
                    self.decisions += int(info.get("game_decisions", 0))
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


# ---------------------------------------------------------------- the run
def _config_differences(old: dict, new: dict, prefix: tuple = ()) -> list[tuple]:
    diffs = []
    for key in sorted(set(old) | set(new)):
        path = prefix + (key,)
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            diffs += _config_differences(a, b, path)
        elif a != b:
            diffs.append(path)
    return diffs


def prepare_run_folder(config: RunConfig, resume: bool, force: bool = False) -> tuple[RunFolder, dict]:
    """Create or reopen the run folder; returns it and the state to continue from.

    Raises:
        RunError: a folder that already holds a run without ``resume``/``force``; ``resume``
            with nothing to resume; a resumed config that changes what was trained.
    """
    run = RunFolder(config.run_dir)
    exists = run.config_path.exists()
    if exists and not resume:
        if not force:
            raise RunError(
                f"run folder {str(run.path)!r} already holds a run; pass --resume to continue it, --force to "
                f"start it over, or --name to start another run beside it (e.g. --name {_free_name(run.path)})"
            )
        shutil.rmtree(run.path)
        exists = False
    if resume:
        if not exists:
            raise RunError(
                f"nothing to resume: {str(run.path)!r} holds no run (no config.yaml); start it without --resume"
            )
        saved = load_config(run.config_path)
        changed = [
            d
            for d in _config_differences(saved.model_dump(mode="json"), config.model_dump(mode="json"))
            if not any(d[: len(allowed)] == allowed for allowed in RESUMABLE_CHANGES)
        ]
        if changed:
            keys = ", ".join(".".join(d) for d in changed)
            raise RunError(
                f"cannot resume {str(run.path)!r}: the config changes {keys}, which the saved run was trained with"
            )
    state = run.read_state() or {"completed_generations": 0, "history": [], "baselines_vs_heuristic": None}
    run.path.mkdir(parents=True, exist_ok=True)
    atomic_write_text(run.config_path, dump_config(config))
    # A generation cut short by a kill: its folder and logs go, it is trained and logged again.
    discard_incomplete_generations(run, state["completed_generations"])
    return run, state


def _free_name(path: Path) -> str:
    """``<name>-2`` (or -3, …): the first name beside ``path`` that holds no run folder yet."""
    return next(f"{path.name}-{i}" for i in range(2, 10_000) if not path.with_name(f"{path.name}-{i}").exists())


def _new_model(config: RunConfig, venv, seed: int):
    import torch
    from sb3_contrib import MaskablePPO

    ppo = config.ppo
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[ppo.activation]
    return MaskablePPO(
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


def vs_heuristic(config: RunConfig, snapshots: dict[str, str] | None, baselines: bool) -> dict:
    """Per team: win rate (95% Wilson) of the trained snapshot against heuristic opponents, over
    ``evaluation.games_per_generation`` seeded games spread over the evaluation table sizes; with
    ``baselines``, also the heuristic's and random's win rates on the same deals."""
    games = config.evaluation.games_per_generation
    counts = config.eval_player_counts
    names = (["trained"] if snapshots else []) + (["heuristic", "random"] if baselines else [])
    specs = {}
    for team in TEAMS:
        specs[team] = {"heuristic": AgentSpec("heuristic"), "random": AgentSpec("random")}
        if snapshots:
            specs[team]["trained"] = AgentSpec("policy", snapshots[team], config.deterministic(team))
    per_count = max(1, games // len(counts))
    pairs = [(name, "heuristic") for name in names] + [("heuristic", name) for name in names if name != "heuristic"]
    cells = evaluate_matrix(
        specs, counts, per_count, seed=derive_seed(config.seed, 7_777), claims=config.env.claims, workers=1, pairs=pairs
    )
    pooled = {(c.pirates, c.mutineers): c for c in cells if c.num_players == "all"}
    result: dict = {"pirates": {}, "mutineers": {}}
    for name in names:
        p = pooled[(name, "heuristic")]
        m = pooled[("heuristic", name)]
        for team, wins, total in (("pirates", p.pirate_wins, p.games), ("mutineers", m.games - m.pirate_wins, m.games)):
            low, high = wilson_interval(wins, total)
            result[team][name] = {"win_rate": wins / total, "ci_low": low, "ci_high": high, "games": total}
    return result


#: The modules of each optional backend's extra (pyproject.toml), checked before the run folder is touched.
BACKEND_EXTRAS = {"jax": ("jax", ("jax", "flax", "optax", "pgx")), "rllib": ("rllib", ("ray",)),
                  "sb3": ("train", ("torch", "stable_baselines3", "sb3_contrib"))}  # sb3: a wheel installed without [train]


def check_backend_extra(config: RunConfig) -> None:
    """Raises :class:`RunError` naming the extra to install when ``config.backend`` needs one that is missing."""
    if config.backend not in BACKEND_EXTRAS:
        return
    extra, modules = BACKEND_EXTRAS[config.backend]
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        raise RunError(
            f"backend: {config.backend} needs the {extra} extra (pip install -e '.[{extra}]' in the checkout, "
            f"pip install 'traitors-aboard-rl[{extra}]' from a wheel or an index); "
            f"not installed: {', '.join(map(repr, missing))}"
        )


def train(config: RunConfig, resume: bool = False, force: bool = False) -> RunFolder:
    """Run (or resume) the generations of ``config``; returns the run folder. See the module doc.

    Raises:
        RunError: see :func:`prepare_run_folder`.
    """
    if config.backend == "jax":
        from .jax_backend.train import train as train_jax

        return train_jax(config, resume=resume, force=force)
    import torch
    from stable_baselines3.common.logger import Logger
    from tqdm.auto import tqdm

    if config.env.name == "the_traitors_v0":
        from .the_traitors_train import train_the_traitors

        return train_the_traitors(config, resume=resume, force=force)
    torch.set_num_threads(config.training.torch_threads)
    run, state = prepare_run_folder(config, resume, force)
    start = state["completed_generations"]
    total_generations = config.training.generations
    if start >= total_generations:
        print(
            f"run {config.name!r} has completed all {_plural(start, 'generation')}; nothing to train "
            f"(pass --resume --generations {start + 1} or more to train further)"
        )
        return run
    if resume:
        done = f"generations 1–{start}" if start > 1 else "generation 1" if start else "no generation"
        print(f"resuming run {config.name!r} at generation {start + 1} of {total_generations} ({done} completed)")

    venv = build_vec_env(config)
    models = {}
    if start > 0:
        for team in TEAMS:
            models[team] = load_checkpoint(run.checkpoint(start - 1, team), venv)
    else:
        for index, team in enumerate(TEAMS):
            models[team] = _new_model(config, venv, derive_seed(config.seed, 1, index))

    if config.evaluation.games_per_generation and state.get("baselines_vs_heuristic") is None:
        state["baselines_vs_heuristic"] = vs_heuristic(config, None, baselines=True)

    # SB3 collects whole rollouts: each learn() call runs a multiple of n_steps * n_envs steps.
    rollout = config.ppo.n_steps * config.training.n_envs
    remaining = (total_generations - start) * sum(-(-config.training.steps_for(t) // rollout) * rollout for t in TEAMS)
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
            for index, team in enumerate(TEAMS):
                other = TEAMS[1 - index]
                # The other team's snapshots, oldest first; the Mutineers also meet this generation's Pirates.
                last = generation if team == "mutineers" else generation - 1
                snapshots = [str(run.checkpoint(g, other)) for g in range(last + 1)]
                seed = derive_seed(config.seed, generation, index)
                configure_team(venv, config, team, snapshots, seed)
                model = models[team]
                model.set_env(venv, force_reset=True)  # the learner's role changed: start new games
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
                callback = _make_callback(bar if config.training.progress_bar else None, label)
                t0, before = time.perf_counter(), model.num_timesteps
                steps = config.training.steps_for(team)
                model.learn(total_timesteps=steps, callback=callback, reset_num_timesteps=False)
                model.logger.close()  # the generation's event file complete before the generation counts
                seconds = time.perf_counter() - t0
                save_model_atomic(model, run.checkpoint(generation, team))
                learner_steps = model.num_timesteps - before
                record["teams"][team] = {
                    "learner_steps": learner_steps,
                    "seconds": round(seconds, 2),
                    "steps_per_second": round(learner_steps / seconds, 1),
                    "game_decisions_per_second": round(callback.decisions / seconds, 1),
                    "train_win_rate": float(np.mean(callback.wins)) if callback.wins else None,
                    "total_timesteps": model.num_timesteps,
                }
            if config.evaluation.games_per_generation:
                snapshots = {team: str(run.checkpoint(generation, team)) for team in TEAMS}
                check = vs_heuristic(config, snapshots, baselines=False)
                for team in TEAMS:
                    check[team].update(state["baselines_vs_heuristic"][team])
                record["vs_heuristic"] = check
                bar.write(f"gen {generation + 1}: {_versus_heuristic_line(check)}")
            record["seconds"] = round(time.perf_counter() - began, 2)
            state["history"].append(record)
            state["completed_generations"] = generation + 1
            run.write_state(state)  # last: the generation now counts as completed
            _write_generations_csv(run, state["history"])
            if state["history"] and any(h.get("vs_heuristic") for h in state["history"]):
                plot_generations(state["history"], run.path / "winrates.png")
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


def _versus_heuristic_line(check: dict) -> str:
    """Each trained team's win rate against heuristic opponents beside the heuristic's own in that seat."""
    parts = [
        f"trained {team.capitalize()} win {check[team]['trained']['win_rate']:.2f} "
        f"(heuristic {team.capitalize()} {check[team]['heuristic']['win_rate']:.2f})"
        for team in TEAMS
    ]
    return "against heuristic opponents, " + ", ".join(parts)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _saved_generations(config: RunConfig) -> int | None:
    """``training.generations`` of the run folder's saved ``config.yaml``, or ``None`` if there is none."""
    run = RunFolder(config.run_dir)
    if not run.config_path.is_file():
        return None
    return load_config(run.config_path).training.generations


def _write_generations_csv(run: RunFolder, history: list[dict]) -> None:
    rows = []
    for h in history:
        row = {"generation": h["generation"], "seconds": h["seconds"]}
        for team, values in h["teams"].items():
            for key in ("learner_steps", "steps_per_second", "game_decisions_per_second", "train_win_rate"):
                row[f"{team}_{key}"] = values[key]
        for team, values in (h.get("vs_heuristic") or {}).items():
            for name, rate in values.items():
                row[f"{team}_{name}_vs_heuristic"] = round(rate["win_rate"], 4)
        rows.append(row)
    fields = list(dict.fromkeys(k for row in rows for k in row))
    lines = [",".join(fields)] + [
        ",".join("" if row.get(f) is None else str(row.get(f)) for f in fields) for row in rows
    ]
    atomic_write_text(run.path / "generations.csv", "\n".join(lines) + "\n")


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
    """``traitors-train``: train, evaluate and print the final table."""
    parser = argparse.ArgumentParser(
        prog="traitors-train",
        description="Train Pirates and Mutineers with MaskablePPO, then evaluate the newest generation.",
        epilog="Progress bar: 'gen G/T team' is the team being trained; learner_sps = the learner's decisions "
        "(environment steps) per second; train_win = the learner team's win rate over its last 200 training "
        "games against its opponent pool.",
    )
    parser.add_argument("--config", help="a shipped config's name (quick, tiny, …: --list-configs) or a YAML file's path")
    parser.add_argument("--list-configs", action="store_true", help="print the shipped configs, one line each, and exit")
    parser.add_argument("--resume", action="store_true", help="continue the run from its last completed generation")
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
        config = config_from_dict(data, "command line")
        check_backend_extra(config)
        if config.backend == "rllib" and argv is None:  # the command itself, not a call from Python
            from .rllib.runner import pin_hash_seed

            # Before anything is printed: the process re-executes itself here, and the new image runs all of
            # main() again, so a notice printed earlier would appear twice.
            pin_hash_seed()
        if args.resume and args.generations is None:
            # The run may have been extended with --generations: the --config file must not shrink it back.
            saved = _saved_generations(config)
            if saved is not None and saved > config.training.generations:
                print(
                    f"keeping training.generations = {saved} from the run's config.yaml ({args.config} says "
                    f"{config.training.generations}; pass --generations to change it)"
                )
                data["training"]["generations"] = saved
                config = config_from_dict(data, "command line")
        if config.env.name == "the_traitors_v0":  # one policy per role: training/the_traitors_train.py
            from .the_traitors_train import run_the_traitors

            return run_the_traitors(config, resume=args.resume, force=args.force, evaluate=not args.no_eval)
        began = time.perf_counter()
        train_fn = train
        if config.backend == "rllib":  # Ray RLlib (training/rllib/), imported only here
            from .rllib.runner import train_rllib as train_fn
        run = train_fn(config, resume=args.resume, force=args.force)
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
        evaluate_run(config, run)  # either backend's run
    except (ConfigError, RunError, PolicyLoadError, RunFolderError) as error:
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
