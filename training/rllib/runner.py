"""``traitors-train`` with ``backend: rllib``: both sides of a zero-sum team game trained at once with Ray RLlib's
PPO (new API stack).

One generation = one RLlib training iteration (``rllib.train_batch_size`` game decisions sampled
by ``rllib.num_env_runners`` env runners, then ``ppo.n_epochs`` epochs of minibatches of
``ppo.batch_size``). Policies and opponents: :mod:`training.rllib.modules`; the game master:
:mod:`training.rllib.env`.

Ray: ``rllib.address`` or else ``$RAY_ADDRESS`` joins a running cluster (``ray.init(address=...)``);
with neither, a local Ray starts on this machine (``rllib.num_cpus``, ``rllib.object_store_memory_mb``,
no dashboard) and is shut down at the end. The same command runs on a laptop and on a cluster.

Outputs in the run folder (as the SB3 backend, :mod:`training.storage`): ``config.yaml``;
``state.json`` (completed iterations, per-iteration figures; written last, so ``--resume`` restarts
from the last completed iteration); ``checkpoints/gen_001/`` (RLlib's algorithm checkpoint of
iteration 1, ``Algorithm.save_to_path``; the side modules lie in ``learner_group/learner/rl_module/<side>``
(``pirates``, ``mutineers``), agents by spec; once ``rllib.keep_checkpoints`` newer iterations are saved, only
these side modules stay, :func:`prune_checkpoints`); ``generations.csv``
(one row per iteration); ``tensorboard/rllib/`` (TensorBoard scalars, one event file per iteration); ``winrates.png`` (training
win rates against the heuristic per iteration); the final ``evaluation.{json,csv,md}``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
import threading
import time
from pathlib import Path

import numpy as np

from traitors_env.core import load_game
from traitors_env.core.registry import DEFAULT_GAME

from ..config import RunConfig
from ..run import RLLIB_RESUME_REFUSED, RunError, prepare_run_folder
from ..storage import RunFolder, atomic_write_text
from .checkpoints import MODULE_DIR, kept_when_pruned
from .reseed import reseed_iteration, restore_kl_coefficients, save_kl_coefficients

#: The default game's side keys, for callers that do not name a game.
TEAMS = load_game(DEFAULT_GAME).type.sides


# ---------------------------------------------------------------- Ray and the algorithm
def pin_hash_seed() -> None:
    """Re-run this command with ``PYTHONHASHSEED=0`` unless ``PYTHONHASHSEED`` is set (then it returns).

    Why: RLlib orders the agents of a multi-agent episode by a ``set`` of their ids
    (``MultiAgentEpisode.agent_ids``), so the rows of a team's train batch, hence its minibatches and weights,
    follow Python's string hashing, which is randomised per process. With the hash seed pinned, two runs of
    the same config and seed train the same weights (the local Ray's processes inherit the variable; on a
    cluster, start the nodes with it, docs/backends/rllib.md, "On a cluster"). ``os.execve`` keeps the process id, so
    signals and the terminal reach the new image. For ``traitors-train`` only: a Python caller keeps its own.
    The new image runs the command from its start, so the caller prints nothing before this call (a notice
    would appear twice).
    """
    if "PYTHONHASHSEED" in os.environ:
        return
    sys.stdout.flush()  # what was printed so far would be lost with this image's buffers
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], {**os.environ, "PYTHONHASHSEED": "0"})



def ray_address(config: RunConfig) -> str | None:
    """The cluster to join: ``rllib.address``, else ``$RAY_ADDRESS``, else ``None`` (start a local Ray)."""
    return config.rllib.address or os.environ.get("RAY_ADDRESS") or None


#: Seconds :func:`check_ray_reachable` waits for the Ray head to accept a TCP connection. Ray's own connect
#: retries an unreachable GCS for over 2 minutes before it gives up.
CONNECT_TIMEOUT_S = 5.0
#: The port of a ``ray://`` (Ray Client) address that names none, as Ray defaults it.
RAY_CLIENT_PORT = 10001


def check_ray_reachable(config: RunConfig, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """Fail within ``timeout`` seconds if the cluster to join (:func:`ray_address`) accepts no TCP connection.

    Checked before the run folder is touched, so an unreachable ``rllib.address``/``$RAY_ADDRESS`` loses and
    creates nothing. No check with no address (a local Ray starts), for Ray's ``"local"`` and ``"auto"`` (no
    host to probe) or for an address without a port (Ray rejects it itself at once). A port that accepts
    connections but is no Ray head is left to ``ray.init``.

    Raises:
        training.run.RunError: naming the address, where it came from, the OS error, and what was expected.
    """
    import socket
    from urllib.parse import urlsplit

    address = ray_address(config)
    if address is None or address in ("local", "auto"):
        return
    try:
        parts = urlsplit(address if "://" in address else f"//{address}")
        host, port = parts.hostname, parts.port
    except ValueError:  # a port that is no number: Ray's own error names it
        return
    if port is None and parts.scheme == "ray":
        port = RAY_CLIENT_PORT
    if not host or port is None:
        return
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as error:
        source = "rllib.address in the config" if config.rllib.address else "$RAY_ADDRESS"
        reason = "timed out" if isinstance(error, TimeoutError) else (error.strerror or str(error))
        start = f"--ray-client-server-port={port}" if parts.scheme == "ray" else f"--port={port}"
        raise RunError(
            f"cannot reach the Ray cluster at {address!r} ({source}): {host}:{port} accepted no connection "
            f"within {timeout:g} s ({reason}). Expected a running Ray head there: start one on that machine "
            f"with 'ray start --head {start}', or unset {source} to train on a local Ray. Nothing was written."
        ) from None


def init_ray(config: RunConfig) -> bool:
    """Connect to (or start) Ray unless it is already up; returns whether this call started it."""
    import ray

    if ray.is_initialized():
        return False
    address = ray_address(config)
    # The workers import training/ and traitors_env/ from this checkout (a cluster's nodes need the package
    # installed, or a job submitted with its working directory).
    if address is None:
        ray.init(
            num_cpus=config.rllib.num_cpus,
            object_store_memory=config.rllib.object_store_memory_mb * 2**20,
            include_dashboard=False,
            log_to_driver=False,
        )
    else:
        ray.init(address=address, log_to_driver=False)
    return True


def algorithm_config(config: RunConfig):
    """The ``PPOConfig`` of a run: game-master env, one masked PPO module per side, the game's bots (and, with
    ``opponents.past`` > 0, each side's older snapshot) as fixed modules; seeded by ``config.seed`` (and every
    iteration reseeded, :mod:`.reseed`)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from traitors_env.agents.rllib_module import TeamPPOModule

    from .callbacks import GameCallbacks
    from .env import GameMasterEnv
    from .modules import BOTS, BotModule, PastTeamModule, TeamMapping, past_module

    ppo, rl = config.ppo, config.rllib
    game = config.game
    sides = game.type.sides
    seed = config.seed
    model = {"fcnet_hiddens": list(ppo.net_arch), "fcnet_activation": ppo.activation, "vf_share_layers": False}
    specs = {team: RLModuleSpec(module_class=TeamPPOModule, model_config=model) for team in sides}
    for index, bot in enumerate(BOTS):
        specs[bot] = RLModuleSpec(module_class=BotModule,
                                  model_config={"bot": bot, "seed": seed * 10 + index, "game": game.name})
    if config.opponents.past > 0:  # older snapshots, loaded each iteration by refresh_past_modules
        for team in sides:
            specs[past_module(team)] = RLModuleSpec(module_class=PastTeamModule, model_config=model)
    weights = {kind: getattr(config.opponents, kind) for kind in ("latest", "past", "heuristic", "random")}
    env_config = {
        "game": game.name,
        "player_counts": list(config.env.player_counts),
        "player_count_weights": config.env.player_count_weights,
        "claims": config.env.claims,
        "seed": seed,
    }
    return (
        PPOConfig()
        .environment(GameMasterEnv, env_config=env_config)
        .framework("torch", torch_compile_learner=False)
        .env_runners(
            num_env_runners=rl.num_env_runners,
            num_envs_per_env_runner=rl.num_envs_per_env_runner,
            num_cpus_per_env_runner=1,
            rollout_fragment_length="auto",
        )
        .learners(num_learners=0)
        .training(
            lr=ppo.learning_rate,
            gamma=ppo.gamma,
            lambda_=ppo.gae_lambda,
            clip_param=ppo.clip_range,
            entropy_coeff=ppo.ent_coef,
            vf_loss_coeff=ppo.vf_coef,
            grad_clip=ppo.max_grad_norm,
            train_batch_size_per_learner=rl.train_batch_size,
            minibatch_size=ppo.batch_size,
            num_epochs=ppo.n_epochs,
        )
        .multi_agent(
            policies=list(specs),  # a list: a set of names orders (and so seeds) the modules by the hash seed
            policy_mapping_fn=TeamMapping(weights, seed=seed, sides=sides),
            policies_to_train=list(sides),
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .callbacks(GameCallbacks)
        .debugging(seed=seed, log_level="ERROR")
        .reporting(metrics_num_episodes_for_smoothing=200)
    )


def refresh_past_modules(algo, run: RunFolder, completed: int, config: RunConfig) -> dict[str, int] | None:
    """Before iteration ``completed + 1``: load into each side's past module (``pirates_past``,
    ``mutineers_past``) that side's module saved after an older iteration, drawn uniformly from iterations
    1 … ``completed − 1`` (the newest is the team's current policy, as ``latest``; the SB3 backend's pool draws
    likewise) by a generator seeded by the run seed and ``completed``; then send them to the env runners.

    Returns ``{team: 1-based iteration loaded}``, or ``None`` (nothing loaded) when ``opponents.past`` is 0 or
    fewer than 2 iterations are completed: until then the policy mapping draws no ``past`` matchup.
    """
    if config.opponents.past <= 0 or completed < 2:
        return None
    from .modules import past_module

    sides = config.game.type.sides
    rng = np.random.default_rng([config.seed, 0x9A57, completed])
    chosen = {team: int(rng.integers(completed - 1)) + 1 for team in sides}
    paths = {team: str((run.generation_dir(g - 1) / MODULE_DIR / team).resolve()) for team, g in chosen.items()}

    from traitors_env.agents.rllib_checkpoint import read_module_state

    def load(learner) -> None:
        for team, generation in chosen.items():
            module = learner.module[past_module(team)]
            # the team module's weights, read as data only (RLlib's restore_from_path unpickles); strict=False
            # in set_state keeps `snapshot`
            module.set_state(read_module_state(paths[team]))
            module.snapshot.fill_(generation)

    algo.learner_group.foreach_learner(load)
    # Straight into the env runners' modules: RLlib's sync_weights skips env runners that already hold the
    # learner's current weights_seq_no, which these are (the past modules changed without a training update).
    components = [f"learner/rl_module/{past_module(team)}" for team in sides]
    state = algo.learner_group.get_state(components=components, inference_only=True)["learner"]["rl_module"]
    algo.env_runner_group.foreach_env_runner(lambda runner: runner.module.set_state(state), local_env_runner=True)
    return chosen


def prune_checkpoints(run: RunFolder, completed: int, keep: int | None, sides=TEAMS) -> None:
    """Reduce the checkpoints of all iterations but the newest ``keep`` of ``completed`` to the modules of
    ``sides`` (the game's side keys, :func:`~.checkpoints.kept_when_pruned`); ``keep=None`` keeps everything. Idempotent, so a run killed while pruning is
    pruned on its next iteration.

    Why the team modules of every iteration, not every k-th full checkpoint: ``opponents.past`` draws uniformly
    from every older iteration (as the SB3 backend's pool; the draw and so the trained weights stay the same
    whatever is kept), and ``traitors-eval --generation`` and agents by spec read any ``gen_NNN`` folder; all of
    them load only the two team modules. The rest (the optimizer state, the past and bot modules, the env
    runner's and connectors' state: 67% of a checkpoint at ``net_arch: [128, 128]``, 75% with past modules)
    only serves ``--resume``, which restores the newest iteration.
    """
    if keep is None:
        return
    for generation in range(max(completed - keep, 0)):
        folder = run.generation_dir(generation)
        if folder.is_dir():
            _remove_all_but(folder, Path(), kept_when_pruned(sides))


def _remove_all_but(folder: Path, relative: Path, kept: tuple[Path, ...]) -> None:
    """Delete everything under ``folder`` (``relative`` to the checkpoint) that neither is nor holds a ``kept`` path."""
    for child in folder.iterdir():
        path = relative / child.name
        if path in kept:
            continue
        if child.is_dir() and not child.is_symlink() and any(path in k.parents for k in kept):
            _remove_all_but(child, path, kept)
        elif child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


# ---------------------------------------------------------------- figures of an iteration
def iteration_record(result: dict, generation: int, seconds: float, sides=TEAMS) -> dict:
    """The figures of one ``Algorithm.train()`` result kept in ``state.json`` and ``generations.csv`` (``sides``:
    the game's side keys, the trained modules)."""
    runners = result.get("env_runners", {})
    learners = result.get("learners", {})
    module_steps = runners.get("num_module_steps_sampled", {})
    learner_steps = sum(_count(module_steps.get(team, 0)) for team in sides)
    decisions = _count(runners.get("num_env_steps_sampled", 0))
    record = {
        "generation": generation + 1,  # 1-based, as in state.json everywhere
        "seconds": round(seconds, 2),
        "game_decisions": decisions,
        "learner_steps": learner_steps,
        "learner_steps_per_second": round(learner_steps / seconds, 1) if seconds > 0 else None,
        "game_decisions_per_second": round(decisions / seconds, 1) if seconds > 0 else None,
        "episodes": _count(runners.get("num_episodes", 0)),
        "win_rates": _rounded(runners.get("win_rate", {})),
        # Only nodes that sampled this iteration: a resumed run's restored metrics (or an idle node) hold NaN.
        "episodes_per_node": {
            k: _count(v) for k, v in sorted(runners.get("episodes_per_node", {}).items()) if _count(v) > 0
        },
        # Every seat's terminal reward, the seats RLlib leaves out of its episodes included (callbacks.py).
        "team_returns": _rounded(runners.get("team_return_mean", {})),
        "module_returns": _rounded(runners.get("module_return_mean", {})),
        "seats_without_transition": _count(runners.get("seats_without_transition", 0)),
        "teams": {},
    }
    for team in sides:
        stats = learners.get(team, {})
        record["teams"][team] = {
            key: round(float(stats[key]), 5)
            for key in ("policy_loss", "vf_loss", "entropy", "mean_kl_loss", "vf_explained_var")
            if key in stats
        }
    return record


def _count(value) -> int:
    """A summed RLlib metric as an int; RLlib reports NaN for a sum with nothing logged this iteration."""
    return int(np.nan_to_num(float(value)))


def _rounded(values: dict) -> dict[str, float]:
    """A metric dict rounded, sorted, without NaN (RLlib reports NaN for a key with no game in its window)."""
    return {k: round(float(v), 4) for k, v in sorted(values.items()) if not np.isnan(float(v))}


def _write_generations_csv(run: RunFolder, history: list[dict]) -> None:
    rows = []
    for h in history:
        row = {k: h[k] for k in ("generation", "seconds", "game_decisions", "learner_steps")}
        row["learner_steps_per_second"] = h["learner_steps_per_second"]
        row["game_decisions_per_second"] = h["game_decisions_per_second"]
        row.update({f"win_rate_{k}": v for k, v in h["win_rates"].items()})
        row.update({f"team_return_{k}": v for k, v in h.get("team_returns", {}).items()})
        row.update({f"module_return_{k}": v for k, v in h.get("module_returns", {}).items()})
        row["seats_without_transition"] = h.get("seats_without_transition")
        for team, stats in h["teams"].items():
            row.update({f"{team}_{k}": v for k, v in stats.items()})
        rows.append(row)
    fields = list(dict.fromkeys(k for row in rows for k in row))
    lines = [",".join(fields)] + [",".join("" if row.get(f) is None else str(row.get(f)) for f in fields) for row in rows]
    atomic_write_text(run.path / "generations.csv", "\n".join(lines) + "\n")


def _plot_training_win_rates(history: list[dict], path: Path, game) -> None:
    """``winrates.png``: per side, the training win rate against the heuristic and the random bots per iteration."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..evaluate import save_figure

    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), sharey=True)
    fig.suptitle("Training win rate per iteration (last 200 games of each matchup, RLlib backend)")
    gens = [h["generation"] for h in history]
    for ax, team, label in zip(axes, game.type.sides, game.type.side_labels):
        for opponent, style in (("heuristic", "-o"), ("random", ":s"), ("self-play", "--^"), ("past", "-.v")):
            key = f"{team}_vs_{opponent}"
            rates = [h["win_rates"].get(key, np.nan) for h in history]
            if not all(np.isnan(rates)):
                ax.plot(gens, rates, style, label=f"vs {opponent}")
        ax.set_title(label)
        ax.set_xlabel("iteration")
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
        ax.legend(loc="best")
    axes[0].set_ylabel("win rate")
    save_figure(fig, path)


# ---------------------------------------------------------------- the run
@contextlib.contextmanager
def remembered_interrupt():
    """Ctrl-C raises ``KeyboardInterrupt`` as usual and is also remembered (yields a ``threading.Event``).

    Why: Ray checks for signals inside its own waits, and a ``KeyboardInterrupt`` raised there was seen to be
    lost (a run under load trained on to its end); the runner checks the event after each iteration too.
    A SIGINT that is ignored (``SIG_IGN``, e.g. a background job of a non-interactive shell) stays ignored.
    """
    flag = threading.Event()
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield flag
        return

    def handler(signum, frame):
        flag.set()
        previous(signum, frame)  # Python's default handler raises KeyboardInterrupt

    signal.signal(signal.SIGINT, handler)
    try:
        yield flag
    finally:
        signal.signal(signal.SIGINT, previous)


def train_rllib(config: RunConfig, resume: bool = False, force: bool = False,
                trust_checkpoint: bool = False) -> RunFolder:
    """Run (or resume) ``training.generations`` RLlib iterations of ``config``; returns the run folder.

    ``resume`` restores RLlib's algorithm checkpoint (pickles: it can run code), so it needs ``trust_checkpoint``:
    the caller's word that it trained this run folder itself (``traitors-train --trust-checkpoint``).

    Raises:
        training.run.RunError: ``resume`` without ``trust_checkpoint`` (before anything is read); see
            :func:`training.run.prepare_run_folder`; or the cluster to join is unreachable
            (:func:`check_ray_reachable`, before the run folder is touched).
    """
    if resume and not trust_checkpoint:
        raise RunError(RLLIB_RESUME_REFUSED)
    import ray
    import torch
    from tqdm.auto import tqdm

    from ..resume import discard_incomplete_generations

    # The learner runs in this process; more torch threads than cores fight the env runners (4x slower updates).
    torch.set_num_threads(config.training.torch_threads)
    if not ray.is_initialized():  # before the run folder is touched: an unreachable cluster loses nothing
        check_ray_reachable(config)
    run, state = prepare_run_folder(config, resume, force)
    sides = config.game.type.sides
    start, total = state["completed_generations"], config.training.generations
    if start >= total:
        print(f"run {config.name!r} has completed all {start} iterations; nothing to train")
        return run
    for stale in run.checkpoints.glob(".gen_*.tmp") if run.checkpoints.exists() else ():
        shutil.rmtree(stale)  # a save cut short by a kill
    started_ray = init_ray(config)
    algo = None
    bar = tqdm(
        total=total - start,
        unit="iter",
        disable=not config.training.progress_bar,
        dynamic_ncols=True,
        mininterval=0.5 if sys.stderr.isatty() else 30.0,
    )
    stack = contextlib.ExitStack()
    interrupted = stack.enter_context(remembered_interrupt())
    try:
        algo = algorithm_config(config).build_algo()
        if start > 0:
            algo.restore_from_path(str(run.generation_dir(start - 1).resolve()))
            restore_kl_coefficients(algo, run.generation_dir(start - 1), sides)
            bar.write(f"resuming run {config.name!r} after iteration {start} of {total}")
        for generation in range(start, total):
            past = refresh_past_modules(algo, run, generation, config)
            reseed_iteration(algo, config.seed, generation)  # what the checkpoint lacks, from (seed, iteration)
            began = time.perf_counter()
            result = algo.train()
            seconds = time.perf_counter() - began
            if interrupted.is_set():  # a Ctrl-C that Ray's waits did not let through
                raise KeyboardInterrupt
            final = run.generation_dir(generation)
            tmp = final.with_name(f".{final.name}.tmp")
            algo.save_to_path(str(tmp.resolve()))
            save_kl_coefficients(algo, tmp, sides)
            os.replace(tmp, final)
            _record_iteration(run, state, config, iteration_record(result, generation, seconds, sides), past, bar)
    except KeyboardInterrupt:
        discard_incomplete_generations(run, state["completed_generations"])  # nothing half-written stays
        for stale in run.checkpoints.glob(".gen_*.tmp") if run.checkpoints.exists() else ():
            shutil.rmtree(stale, ignore_errors=True)  # a save cut short by the Ctrl-C
        raise
    finally:
        bar.close()
        if algo is not None:
            algo.stop()
        if started_ray:
            ray.shutdown()
        stack.close()
    return run


def _record_iteration(run: RunFolder, state: dict, config: RunConfig, record: dict, past, bar) -> None:
    """After iteration ``record["generation"]`` is saved: its figures into TensorBoard, ``state.json`` (last but the
    pruning: from then on it counts as completed), ``generations.csv``, ``winrates.png`` and the progress bar."""
    from torch.utils.tensorboard import SummaryWriter

    game, generation = config.game, record["generation"]
    sides, labels = game.type.sides, game.type.side_labels
    if past is not None:
        record["past_snapshots"] = past  # the 1-based iterations the past modules played
    # One event file per iteration, named after it (training/resume.py discards those of a cut iteration).
    with SummaryWriter(str(run.path / "tensorboard" / "rllib"), filename_suffix=f".gen_{generation:03d}") as writer:
        for key, value in _scalars(record).items():
            writer.add_scalar(key, value, generation)
    state["history"].append(record)
    state["completed_generations"] = generation
    run.write_state(state)  # last: the iteration now counts as completed
    # Only now: until state.json names this iteration, --resume restores the one before in full.
    prune_checkpoints(run, generation, config.rllib.keep_checkpoints, sides)
    _write_generations_csv(run, state["history"])
    _plot_training_win_rates(state["history"], run.path / "winrates.png", game)
    rates = record["win_rates"]
    bar.set_description(f"iter {generation}/{config.training.generations}")
    bar.set_postfix(
        learner_sps=f"{record['learner_steps_per_second']:.0f}",
        **{f"{label[0]}_vs_h": f"{rates.get(f'{team}_vs_heuristic', float('nan')):.2f}"
           for team, label in zip(sides, labels)},
        refresh=False,
    )
    bar.update(1)


def _scalars(record: dict) -> dict[str, float]:
    out = {
        "time/learner_steps_per_second": record["learner_steps_per_second"],
        "time/game_decisions_per_second": record["game_decisions_per_second"],
        "rollout/episodes": record["episodes"],
        "rollout/seats_without_transition": record.get("seats_without_transition"),
    }
    out.update({f"win_rate/{k}": v for k, v in record["win_rates"].items()})
    out.update({f"team_return/{k}": v for k, v in record.get("team_returns", {}).items()})
    out.update({f"module_return/{k}": v for k, v in record.get("module_returns", {}).items()})
    for team, stats in record["teams"].items():
        out.update({f"train/{team}/{k}": v for k, v in stats.items()})
    return {k: float(v) for k, v in out.items() if v is not None}


#: ``backend: rllib`` in :data:`training.train.BACKENDS`: every backend module has ``train``.
train = train_rllib
