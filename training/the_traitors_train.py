"""Training for ``the_traitors_v0`` with sb3-contrib ``MaskablePPO``: one policy per role, by self-play against a pool.

``traitors-train --config configs/the_traitors_quick.yaml`` (``env: the_traitors_v0`` in the config)
comes here from :mod:`training.train`. Rewards are individual (T16), so the two "teams" of the
first game become two *roles*, each with its own policy, and a generation is:

1. train the **Faithful** policy for ``training.steps_per_team`` learner decisions, the learner in
   one Faithful seat of each game (:mod:`training.the_traitors_team_env`), every other seat
   played by one opponent drawn from the pool: the newest snapshot pair (Faithful, Traitor)
   (``latest``), an older pair (``past``), the heuristic or random, by ``opponents`` weights;
2. save it, then train the **Traitor** policy the same way, the learner in the Traitor's seat;
   its ``latest`` opponents are this generation's Faithful (generation 1: with the heuristic as
   Traitor, which a Traitor learner never meets: there is one Traitor per game);
3. save it, check both against the heuristic (``evaluation.games_per_generation`` games per role,
   beside the heuristic's and random's own win rates in that role on the same deals) and record
   the generation as completed in ``state.json``.

Outputs in ``<output_dir>/<name>/``: ``config.yaml``, ``state.json``, ``checkpoints/gen_NNN/faithful.zip``
and ``traitor.zip``, ``progress.csv`` (one row per PPO update), ``tensorboard/<role>/`` (one event
file per generation, :func:`training.resume.tensorboard_writer`), ``evaluation.json`` / ``.md``
(the final check: per role and table size, trained vs heuristic vs random, all against heuristic
opponents, with 95 % Wilson intervals). Generations are numbered from 1 everywhere (folders,
``state.json``'s history, ``progress.csv``, ``evaluation.json``); ``state.json`` files written before
(0-based history) are read 1-based (:meth:`traitors_env.agents.run_folder.RunFolder.read_state`).
``--resume`` continues from the last completed generation; Ctrl-C discards the generation cut short
(:func:`training.resume.discard_incomplete_generations`) and ``traitors-train`` prints the resume command.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from traitors_env.agents.the_traitors_checkpoint import PolicyAgent, load_the_traitors_policy
from traitors_env.core.stats import wilson_interval
from traitors_env.evaluation.games import evaluate
from traitors_env.games.the_traitors.bots import TheTraitorsHeuristicAgent, make_the_traitors_agent

from .config import RunConfig
from .storage import RunFolder, atomic_write_text, save_model_atomic
from .the_traitors_team_env import ROLES, RoleEnv, RolePool

POLICIES = ("trained", "heuristic", "random")


def _make_env(config: RunConfig, rank: int):
    from .train import derive_seed

    def build() -> RoleEnv:
        return RoleEnv(
            "faithful",
            RolePool(config.opponents.weights(), (), seed=derive_seed(config.seed, 99, rank)),
            player_counts=config.env.player_counts,
            player_count_weights=config.env.player_count_weights,
            claims=config.env.claims,
        )

    return build


def build_vec_env(config: RunConfig):
    """The learner's vectorized environments (dummy or subproc) with ``VecMonitor`` (``won`` kept)."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    builders = [_make_env(config, rank) for rank in range(config.training.n_envs)]
    venv = (
        SubprocVecEnv(builders, start_method="forkserver")
        if config.training.vec_env == "subproc"
        else DummyVecEnv(builders)
    )
    return VecMonitor(venv, info_keywords=("won",))


def snapshot_pairs(run: RunFolder, generation: int, role: str) -> list[tuple[str | None, str | None]]:
    """The ``(faithful, traitor)`` snapshot pairs the ``role`` learner of ``generation`` meets, oldest first.

    Every completed generation's pair; the Traitor learner also meets this generation's Faithful
    (paired with the previous Traitor, or ``None`` = the heuristic, in generation 0).
    """
    pairs: list[tuple[str | None, str | None]] = [
        (str(run.checkpoint(g, "faithful")), str(run.checkpoint(g, "traitor"))) for g in range(generation)
    ]
    if role == "traitor":
        previous = str(run.checkpoint(generation - 1, "traitor")) if generation else None
        pairs.append((str(run.checkpoint(generation, "faithful")), previous))
    return pairs


def _agent(policy: str, snapshot: str | None, seed: int, deterministic: bool):
    if policy == "trained":
        return PolicyAgent(load_the_traitors_policy(snapshot), seed=seed, deterministic=deterministic)
    return make_the_traitors_agent(policy, seed)


def vs_heuristic(
    config: RunConfig, snapshots: dict[str, str] | None, policies: tuple[str, ...], games: int, seed: int
) -> dict:
    """Per role and policy: win rate (95 % Wilson) in that role against heuristic opponents.

    ``games`` are spread over the evaluation table sizes; every policy meets the same deals. Returns
    ``{role: {policy: {"win_rate", "ci_low", "ci_high", "games", "per_table": {n: {...}}}}}``.
    """
    counts = config.eval_player_counts
    per_count = max(1, games // len(counts))
    result: dict = {}
    for role in ROLES:
        result[role] = {}
        for policy in policies:
            wins = total = 0
            per_table = {}
            for n in counts:
                agent = _agent(policy, snapshots and snapshots[role], seed, config.deterministic(role))
                r = evaluate(
                    agent,
                    TheTraitorsHeuristicAgent(seed + 1),
                    role,
                    n,
                    per_count,
                    seed=seed + 1000 * n,
                    claims=config.env.claims,
                    game="the_traitors",
                )
                low, high = r.interval
                per_table[str(n)] = {"win_rate": r.win_rate, "ci_low": low, "ci_high": high, "games": r.games}
                wins += r.wins
                total += r.games
            low, high = wilson_interval(wins, total)
            result[role][policy] = {
                "win_rate": wins / total,
                "ci_low": low,
                "ci_high": high,
                "games": total,
                "per_table": per_table,
            }
    return result


def learning_checks(report: dict) -> dict:
    """Per role: does the trained policy beat random against heuristic opponents with the intervals apart?"""
    return {
        role: bool(report[role]["trained"]["ci_low"] > report[role]["random"]["ci_high"])
        for role in ROLES
        if "trained" in report[role]
    }


def markdown_report(report: dict, title: str) -> str:
    """Per role and table size: the win rate of each policy against heuristic opponents, with 95 % intervals."""
    lines = [
        f"# {title}",
        "",
        "Win rate of the policy in the role's seat, every other seat played by the heuristic (95 % Wilson).",
        "",
    ]
    for role in ROLES:
        policies = list(report[role])
        tables = list(next(iter(report[role].values()))["per_table"])
        lines += [
            f"## {role.capitalize()}",
            "",
            "| players | " + " | ".join(policies) + " |",
            "|---" * (len(policies) + 1) + "|",
        ]
        for n in tables + ["all"]:
            cells = []
            for policy in policies:
                entry = report[role][policy] if n == "all" else report[role][policy]["per_table"][n]
                cells.append(
                    f"{entry['win_rate']:.3f} ({entry['ci_low']:.3f}–{entry['ci_high']:.3f}, {entry['games']} games)"
                )
            lines.append(f"| {n} | " + " | ".join(cells) + " |")
        lines.append("")
    checks = learning_checks(report)
    if checks:
        lines.append(
            "Learning check (trained's interval above random's): "
            + ", ".join(f"{r}: {'yes' if ok else 'no'}" for r, ok in checks.items())
        )
    return "\n".join(lines) + "\n"


def train_the_traitors(config: RunConfig, resume: bool = False, force: bool = False) -> RunFolder:
    """Run (or resume) the generations of ``config`` for ``the_traitors_v0``; see the module doc.

    Raises:
        training.train.RunError: see :func:`training.train.prepare_run_folder`.
    """
    import torch
    from stable_baselines3.common.logger import Logger
    from tqdm.auto import tqdm

    from .resume import discard_incomplete_generations, load_checkpoint, tensorboard_writer
    from .train import _make_callback, _new_model, _progress_csv, derive_seed, prepare_run_folder

    torch.set_num_threads(config.training.torch_threads)
    run, state = prepare_run_folder(config, resume, force)
    start, total = state["completed_generations"], config.training.generations
    if start >= total:
        print(f"run {config.name!r} has completed all {total} generations; nothing to train")
        return run
    venv = build_vec_env(config)
    if start > 0:
        models = {role: load_checkpoint(run.checkpoint(start - 1, role), venv) for role in ROLES}
    else:
        models = {role: _new_model(config, venv, derive_seed(config.seed, 1, i)) for i, role in enumerate(ROLES)}
    games = config.evaluation.games_per_generation
    if games and state.get("baselines_vs_heuristic") is None:
        state["baselines_vs_heuristic"] = vs_heuristic(
            config, None, ("heuristic", "random"), games, derive_seed(config.seed, 7_777)
        )
    steps = config.training.steps_per_team
    rollout = config.ppo.n_steps * config.training.n_envs
    bar = tqdm(
        total=(total - start) * 2 * (-(-steps // rollout) * rollout),
        unit="step",
        disable=not config.training.progress_bar,
        dynamic_ncols=True,
        mininterval=0.5 if sys.stderr.isatty() else 30.0,
    )
    try:
        for generation in range(start, total):
            began = time.perf_counter()
            record: dict = {"generation": generation + 1, "roles": {}}  # 1-based, as training/train.py
            for index, role in enumerate(ROLES):
                seed = derive_seed(config.seed, generation, index)
                pairs = snapshot_pairs(run, generation, role)
                for rank in range(venv.num_envs):
                    pool = RolePool(config.opponents.weights(), pairs, seed=derive_seed(seed, rank))
                    venv.env_method("configure", role, pool, indices=[rank])
                model = models[role]
                model.set_env(venv, force_reset=True)
                model.set_random_seed(seed)
                venv.seed(seed)
                model.set_logger(Logger(None, [
                    tensorboard_writer(run.path / "tensorboard" / role, generation + 1),
                    _progress_csv(run.path / "progress.csv", generation, role),
                ]))
                callback = _make_callback(
                    bar if config.training.progress_bar else None, f"gen {generation + 1}/{total} {role}", won_key="won"
                )
                t0, before = time.perf_counter(), model.num_timesteps
                model.learn(total_timesteps=steps, callback=callback, reset_num_timesteps=False)
                model.logger.close()  # the generation's event file complete before the generation counts
                seconds = time.perf_counter() - t0
                save_model_atomic(model, run.checkpoint(generation, role))
                record["roles"][role] = {
                    "learner_steps": model.num_timesteps - before,
                    "seconds": round(seconds, 2),
                    "steps_per_second": round((model.num_timesteps - before) / seconds, 1),
                    "train_win_rate": float(np.mean(callback.wins)) if callback.wins else None,
                }
            if games:
                snapshots = {role: str(run.checkpoint(generation, role)) for role in ROLES}
                check = vs_heuristic(config, snapshots, ("trained",), games, derive_seed(config.seed, 7_777))
                for role in ROLES:
                    check[role].update(state["baselines_vs_heuristic"][role])
                record["vs_heuristic"] = check
                bar.write(
                    f"gen {generation + 1}: vs heuristic, Faithful win {check['faithful']['trained']['win_rate']:.2f}, "
                    f"Traitor win {check['traitor']['trained']['win_rate']:.2f}"
                )
            record["seconds"] = round(time.perf_counter() - began, 2)
            state["history"].append(record)
            state["completed_generations"] = generation + 1
            run.write_state(state)  # last: the generation now counts as completed
    except KeyboardInterrupt:  # traitors-train prints what was kept and the --resume command
        discard_incomplete_generations(run, state["completed_generations"])  # nothing half-written stays
        raise
    finally:
        bar.close()
        try:
            venv.close()
        except (EOFError, OSError):  # SubprocVecEnv workers end on the same Ctrl-C
            pass
    return run


def evaluate_the_traitors_run(config: RunConfig, run: RunFolder, games: int | None = None) -> dict:
    """The final check of the newest generation: ``evaluation.games`` games per role and table size for each
    of trained, heuristic and random, against heuristic opponents; writes ``evaluation.json`` and ``.md``."""
    from .train import derive_seed

    generation = run.completed_generations() - 1
    snapshots = {role: str(run.checkpoint(generation, role)) for role in ROLES}
    games = games or config.evaluation.games
    per_run = games * len(config.eval_player_counts)
    report = vs_heuristic(config, snapshots, POLICIES, per_run, derive_seed(config.seed, 31_337))
    payload = {
        "generation": generation + 1,  # 1-based, as the checkpoint folders
        "games_per_table": games,
        "report": report,
        "learning_checks": learning_checks(report),
    }
    atomic_write_text(run.path / "evaluation.json", json.dumps(payload, indent=2))
    title = f"the_traitors_v0 run {config.name!r}, generation {generation + 1}"
    atomic_write_text(run.path / "evaluation.md", markdown_report(report, title))
    return payload


def run_the_traitors(config: RunConfig, resume: bool, force: bool, evaluate: bool = True) -> int:
    """``traitors-train`` for ``env: the_traitors_v0``: train, evaluate, print the report; the exit status."""
    from .train import RunError

    began = time.perf_counter()
    try:
        run = train_the_traitors(config, resume=resume, force=force)
    except RunError as error:
        print(f"traitors-train: error: {error}", file=sys.stderr)
        return 2
    if not evaluate:
        return 0
    print(f"training done in {time.perf_counter() - began:.0f} s; evaluating…", flush=True)
    evaluate_the_traitors_run(config, run)
    print(Path(run.path / "evaluation.md").read_text(encoding="utf-8"))
    print(f"run folder: {run.path} (total {time.perf_counter() - began:.0f} s)")
    return 0


def main(argv=None) -> int:
    """``python -m training.the_traitors_train --run RUN_FOLDER [--games N]``: evaluate a run's newest generation again."""
    import argparse

    from .config import ConfigError, load_config

    parser = argparse.ArgumentParser(prog="python -m training.the_traitors_train", description=main.__doc__)
    parser.add_argument("--run", required=True, help="a run folder of a the_traitors_v0 training run")
    parser.add_argument("--games", type=int, default=None, help="games per role, table size and policy")
    args = parser.parse_args(argv)
    run = RunFolder(Path(args.run))
    try:
        config = load_config(run.config_path)
    except ConfigError as error:
        parser.error(str(error))
    if config.env.name != "the_traitors_v0":
        parser.error(f"{args.run!r} is a run of {config.env.name}; use traitors-eval for it")
    if run.completed_generations() == 0:
        parser.error(f"{args.run!r} has no completed generation yet")
    if args.games is not None and args.games < 1:
        parser.error(f"--games {args.games}: expected a positive number")
    evaluate_the_traitors_run(config, run, args.games)
    print((run.path / "evaluation.md").read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
