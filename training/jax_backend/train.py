"""The generation loop of the JAX backend: the sides trained in turn, as in :mod:`training.sb3`.

``traitors-train --config configs/jax_quick.yaml`` runs it (``backend: jax``; a zero-sum team game with a JAX
twin, :mod:`.engine`). Each generation trains the sides in the game's training order (Traitors Aboard: the
Pirates, then the Mutineers, whose opponents then include this generation's Pirates), for
``training.steps_per_team`` learner decisions each; saves both sides' checkpoints
(``checkpoints/gen_001/pirates.msgpack``, :mod:`traitors_env.agents.jax_checkpoint`: parameters and optimizer
state); checks both against the heuristic (the same ``vs_heuristic`` as the SB3 backend, on the reference
engine); and records the generation in ``state.json``. ``--resume``, ``progress.csv``, ``generations.csv``, ``winrates.png`` and the
final evaluation are those of the SB3 backend (the run folder layout of :mod:`training.storage`);
TensorBoard events go to ``tensorboard/<team>/``.

One PPO iteration = one jitted rollout of ``ppo.n_steps`` game decisions in each of
``training.n_envs`` games (:mod:`.rollout`), then one jitted update over the learner's
transitions of it (``ppo.n_epochs`` passes in minibatches of ``ppo.batch_size``).
"""

from __future__ import annotations

import csv
import functools
import math
import os
import sys
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from traitors_env.core import load_game
from traitors_env.core.registry import DEFAULT_GAME

from ..config import RunConfig
from ..evaluate import complete_generation, vs_heuristic
from ..run import PROGRESS_COLUMNS, all_trained, derive_seed, prepare_run_folder
from ..storage import RunFolder
from ..table_sizes import table_size_probabilities
from .engine import Engine, make_engine

#: the engine :func:`train` drives unless given one (:func:`.engine.make_engine`'s names): by default the run's game;
#: ``standin`` (for development only)
ENGINE_VARIABLE = "TRAITORS_JAX_ENGINE"


@functools.lru_cache(maxsize=8)
def compiled(
    engine: Engine,
    settings,
    net_arch: tuple,
    num_actions: int,
    activation: str,
    learning_rate: float,
    max_grad_norm: float,
    update_config,
    batch: int,
    belief_size: int = 0,
    belief_hidden: tuple[int, ...] = (),
):
    """The jitted functions of one configuration, built once per process (tests and resumed runs reuse them).

    Returns:
        ``(model, optimizer, new_slots, rollouts, learn)``: ``new_slots[team](key, opponents)``,
        ``rollouts[team](params, opponents, slots, key)`` (:func:`.rollout.rollout`; ``settings`` holds one
        :class:`~.rollout.Settings` per team, whose player capacities and table-size weights differ) and
        ``learn(params, opt_state, grid, valid, key, capacity=…)`` (compact + :func:`.ppo.update`).
    """
    import jax
    import jax.numpy as jnp

    from . import ppo
    from .rollout import new_slots, rollout

    model = ppo.ActorCritic(net_arch, num_actions, activation, belief_size, belief_hidden)
    apply = model.apply
    optimizer = ppo.make_optimizer(learning_rate, max_grad_norm)

    def actor(params, obs):
        return model.apply(params, obs, method=ppo.ActorCritic.logits)

    def learn(params, opt_state, grid, valid, key, capacity: int, magnet=None):
        k_compact, k_update = jax.random.split(key)
        batch = ppo.compact(k_compact, grid, valid, capacity)
        if update_config.magnet_coef:  # the magnet's logits, fixed for the update's epochs (None: uniform)
            logits = jnp.zeros(batch.mask.shape, jnp.float32) if magnet is None else actor(magnet, batch.obs)
            batch = batch._replace(magnet=logits)
        params, opt_state, stats = ppo.update(params, opt_state, optimizer, apply, batch, k_update, update_config)
        stats["train/explained_variance"] = ppo.explained_variance(batch.value, batch.ret, batch.weight)
        return params, opt_state, stats

    def team_rollout(team_settings, team):
        def run(params, opponents, slots, key, reg_params=None):
            return rollout(engine, team_settings, apply, actor, params, team, opponents, slots, key, reg_params)

        return jax.jit(run, donate_argnums=(2,))

    return (
        model,
        optimizer,
        tuple(jax.jit(lambda key, opponents, s=s: new_slots(engine, s, key, batch, opponents)) for s in settings),
        tuple(team_rollout(team_settings, team) for team, team_settings in enumerate(settings)),
        jax.jit(learn, static_argnames="capacity"),
    )


#: at most this share of a rollout's transitions is left out of the update to keep it to whole minibatches
UPDATE_DROP = 0.05


def update_capacity(learner_decisions: int, minibatch: int) -> int:
    """Rows of the PPO update's batch for a rollout of ``learner_decisions`` transitions: whole minibatches, the
    fewest that leave out at most :data:`UPDATE_DROP` of the transitions (at least one minibatch).

    Why: a padding row costs a gradient step's compute like a real one, so rounding up to whole minibatches
    cost the Mutineers a quarter of their update (8,200 transitions in 10,240 rows); leaving out a random 0.1%
    of them costs almost nothing.
    """
    whole = max(1, math.ceil(learner_decisions / minibatch))
    if whole > 1 and (whole - 1) * minibatch >= (1 - UPDATE_DROP) * learner_decisions:
        whole -= 1
    return whole * minibatch


class Trainer:
    """The compiled pieces of one config: network, optimizer, rollout and update (see :func:`compiled`).

    Args:
        config: the run configuration (``ppo`` and ``training`` sections; ``env.player_counts`` and each team's
            table-size weights, :meth:`~training.config.EnvSection.count_weights_for`).
        engine: the game's JAX twin (:func:`~training.jax_backend.engine.twin_engine`) or the stand-in.
        mix: the per-game opponent probabilities over (latest, past, heuristic, random) that the players'
            sub-batches are sized for (:func:`~.rollout.capacities`); default: the config's opponents once both
            teams have snapshots. A caller that draws its own opponents (``traitors-exploit --backend jax``: a
            frozen target in every game; a league, :mod:`.league`: ``(4 + probes,)``) passes its mix here.
        past_pool: the static number of stacked ``past`` snapshots; ``None``: from ``training.generations``.
    """

    def __init__(self, config: RunConfig, engine: Engine, mix=None, past_pool: int | None = None) -> None:
        from . import ppo
        from .rollout import PAST_POOL, Settings, capacities, opponent_probabilities

        self.config = config
        self.engine = engine
        self.sides = config.game.type.sides
        p = config.ppo
        counts = tuple(config.env.player_counts)

        self.batch = config.training.n_envs
        # Each player is computed only on the games where it acts (see rollout.capacities), sized for the
        # configured opponent mix once both teams have snapshots.
        steady = opponent_probabilities(config.opponents.weights(), 2) if mix is None else tuple(mix)
        settings = tuple(
            Settings(
                counts,
                tuple(table_size_probabilities(config.env.count_weights_for(self.sides[team]), counts).tolist()),
                p.n_steps,
                p.gamma,
                p.gae_lambda,
                True,
                capacities(self.batch, team, steady),
                belief_labels=p.belief_coef > 0,
                rnad_eta=p.regularizer.alpha if p.regularizer.kind == "rnad" else 0.0,
            )
            for team in range(len(self.sides))
        )
        update_config = ppo.UpdateConfig(p.n_epochs, p.batch_size, p.clip_range, p.ent_coef, p.vf_coef, p.belief_coef,
                                         p.regularizer.alpha if p.regularizer.kind == "mmd" else 0.0)
        self.model, self.optimizer, self.new_slots, self.rollouts, self._learn = compiled(
            engine,
            settings,
            tuple(p.net_arch),
            load_game(engine.game).type.num_actions,
            p.activation,
            p.learning_rate,
            p.max_grad_norm,
            update_config,
            self.batch,
            config.game.belief_size if p.belief_coef > 0 else 0,
            tuple(p.belief_net_arch),
        )
        self.capacity: dict[str, int] = {}
        #: snapshots stacked for ``past`` (static: one compilation); the last generation's Mutineers meet the most
        self.past_pool = past_pool or min(PAST_POOL, max(1, config.training.generations - 1))

    def init_params(self, seed: int):
        import jax
        import jax.numpy as jnp

        shape = load_game(self.engine.game).type.observation_shape
        params = self.model.init(jax.random.key(seed), jnp.zeros((1, *shape), jnp.float32))
        return params, self.optimizer.init(params)

    def learn(self, team: str, params, opt_state, grid, valid, key, learner_decisions: int, magnet=None):
        """The PPO update over the rollout's learner transitions.

        The update's batch has a fixed size per team (one compilation): :func:`update_capacity` of the first
        rollout's learner decisions, reset when a rollout falls outside [85%, 105%] of it. Padding rows weigh
        nothing (but cost a gradient step's compute); a rollout with more transitions than the batch holds
        gives a uniform random subset.

        Warns:
            UserWarning: once per team, when its first rollout has fewer learner decisions than
                ``ppo.batch_size`` (each update is then one mostly padded minibatch).
        """
        capacity = self.capacity.get(team)
        if capacity is None or not 0.85 * capacity <= learner_decisions <= 1.05 * capacity:
            batch_size = self.config.ppo.batch_size
            if learner_decisions < batch_size and team not in self.capacity:
                warnings.warn(
                    f"ppo.batch_size={batch_size} is more than the {learner_decisions} {team} decisions of a rollout "
                    f"(n_steps x n_envs = {self.config.ppo.n_steps * self.batch} game decisions, the team's share of "
                    "them): each update is one minibatch, mostly padding; lower ppo.batch_size or raise "
                    "ppo.n_steps or training.n_envs",
                    stacklevel=2,
                )
            capacity = update_capacity(learner_decisions, batch_size)
            self.capacity[team] = capacity
        return self._learn(params, opt_state, grid, valid, key, capacity=capacity, magnet=magnet)

    def opponents(self, params, snapshots: list, seed: int):
        """The :class:`~.rollout.Opponents` of a team's turn: the configured weights, the other team's newest
        snapshot (``params`` itself while there is none) and the ``past`` pool (every older snapshot, or a seeded
        sample of :data:`~.rollout.PAST_POOL`, fixed for the turn: each game draws its own)."""
        import jax
        import jax.numpy as jnp

        from .rollout import Opponents, opponent_probabilities, past_pool

        probabilities = opponent_probabilities(self.config.opponents.weights(), len(snapshots))
        latest = snapshots[-1] if snapshots else params
        pool, count = past_pool(snapshots[:-1], self.past_pool, np.random.default_rng(derive_seed(seed, 5)))
        if not count:  # past cannot be drawn (probability 0); the pool still needs its static shape
            pool, count = [latest] * self.past_pool, 1
        past = jax.tree_util.tree_map(lambda *leaves: jnp.stack(leaves), *pool)
        return Opponents(jnp.asarray(probabilities), latest, past, jnp.int32(count))

    def warm_up(self, team_index: int, params, opt_state, stop: threading.Event | None = None) -> None:
        """Compile side ``team_index``'s rollout and update by running each once on throwaway inputs.

        Why: each team's loop is its own XLA program (tens of seconds to compile, on one core). :func:`train`
        runs this for the Mutineers in a thread while the Pirates' first iteration compiles, so the two
        compilations share the wall time. Nothing of it reaches training: the results are dropped, and the
        update's batch size is still chosen by the first real rollout (:meth:`learn`); where that choice differs
        from this one's, the update compiles once more.

        ``stop``, once set, ends it before its next step (deal, rollout, update): a compilation cannot be
        interrupted, and the interpreter waits for this thread when it exits, so a run stopped by Ctrl-C or an
        error waits for the current step only.
        """
        for _ in self._warm_up_steps(team_index, params, opt_state):
            if stop is not None and stop.is_set():
                return

    def _warm_up_steps(self, team_index: int, params, opt_state):
        """:meth:`warm_up`'s steps (deal, rollout, update), yielding before each so that a stop is seen between."""
        import jax

        yield
        opponents = self.opponents(params, [], 0)
        key = jax.random.key(0)
        slots = self.new_slots[team_index](key, opponents)
        yield
        magnet = self.magnet(params)
        _, grid, valid, metrics = self.rollouts[team_index](params, opponents, slots, key, magnet)
        capacity = update_capacity(int(metrics["learner_decisions"]), self.config.ppo.batch_size)
        yield
        jax.block_until_ready(self._learn(params, opt_state, grid, valid, key, capacity=capacity, magnet=magnet))

    def magnet(self, params):
        """The magnet / regularisation policy's parameters given the side's current ``params``
        (``ppo.regularizer``): ``params`` for a lagged magnet, ``None`` for none or a uniform one."""
        regularizer = self.config.ppo.regularizer
        return params if regularizer.kind != "none" and regularizer.magnet == "lagged" else None

    # ------------------------------------------------------------ one team's training
    def train_team(self, team_index: int, params, opt_state, snapshots: list, seed: int, steps: int, on_iteration,
                   opponents=None):
        """Train side ``team_index`` for at least ``steps`` learner decisions against ``snapshots`` (the
        other team's parameters, oldest first), or against ``opponents`` (an :class:`~.rollout.Opponents`, a
        league's) if given. ``on_iteration(metrics)`` is called after each PPO iteration; returning ``True`` stops
        early.

        Returns:
            ``(params, opt_state, summary)`` with ``summary`` = learner steps, seconds, wins and games.
        """
        import jax

        team = self.sides[team_index]
        if opponents is None:
            opponents = self.opponents(params, snapshots, seed)
        key = jax.random.key(seed)
        key, deal = jax.random.split(key)
        slots = self.new_slots[team_index](deal, opponents)
        rollout = self.rollouts[team_index]
        collected = 0
        wins = games = 0
        decisions = 0
        # The magnet (MMD) / regularisation policy (R-NaD): the side's policy at the turn's start, renewed every
        # ``update_every`` iterations (RegularizerSection); fixed by the checkpoints, so a resumed run repeats.
        magnet = self.magnet(params)
        every = self.config.ppo.regularizer.update_every
        iteration = 0
        began = time.perf_counter()
        while collected < steps:
            key, k_roll, k_learn = jax.random.split(key, 3)
            t0 = time.perf_counter()
            slots, grid, valid, metrics = rollout(params, opponents, slots, k_roll, magnet)
            metrics = {k: int(v) for k, v in jax.device_get(metrics).items()}
            params, opt_state, stats = self.learn(
                team, params, opt_state, grid, valid, k_learn, metrics["learner_decisions"], magnet
            )
            iteration += 1
            if magnet is not None and every and iteration % every == 0:
                magnet = params
            stats = {k: float(v) for k, v in jax.device_get(stats).items()}
            del grid, valid
            seconds = time.perf_counter() - t0
            collected += metrics["learner_decisions"]
            wins += metrics["wins"]
            games += metrics["games"]
            decisions += metrics["decisions"]
            if on_iteration({**metrics, **stats, "seconds": seconds, "capacity": self.capacity[team]}) is True:
                break  # the caller's stop (the training benchmark's clock)
        return (
            params,
            opt_state,
            {
                "learner_steps": collected,
                "seconds": time.perf_counter() - began,
                "game_decisions": decisions,
                "wins": wins,
                "games": games,
            },
        )


# ---------------------------------------------------------------- logging
class _Logs:
    """``progress.csv`` rows (the SB3 backend's columns) and TensorBoard scalars, one per PPO iteration."""

    def __init__(self, run: RunFolder, beliefs: bool = False) -> None:
        self.path = run.path / "progress.csv"
        #: with a belief head (``ppo.belief_coef > 0``) the belief loss and Brier score follow the usual columns
        self.columns = PROGRESS_COLUMNS + (("train/belief_loss", "train/belief_brier") if beliefs else ())
        self.writers: dict = {}
        try:
            from torch.utils.tensorboard import SummaryWriter  # the train extra's writer, as the SB3 backend's
        except ImportError:  # TensorBoard is optional here: the CSV holds the same values
            SummaryWriter = None
        self._writer_class = SummaryWriter
        self.run = run

    def write(self, generation: int, team: str, row: dict, step: int) -> None:
        new = not self.path.exists()
        with self.path.open("a", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=self.columns, extrasaction="ignore")
            if new:
                writer.writeheader()
            writer.writerow({"generation": generation + 1, "team": team, **row})
        if self._writer_class is not None:
            if team not in self.writers:
                self.writers[team] = self._writer_class(str(self.run.path / "tensorboard" / team))
            for key, value in row.items():
                if isinstance(value, (int, float)) and math.isfinite(value):
                    self.writers[team].add_scalar(key, value, step)

    def close(self) -> None:
        for writer in self.writers.values():
            writer.close()


def _row(metrics: dict, total: int, team_seconds: float, team_steps: int, learning_rate: float) -> dict:
    games = metrics["games"]
    return {
        "time/total_timesteps": total,
        "time/fps": round(team_steps / max(team_seconds, 1e-9), 1),
        "rollout/ep_len_mean": metrics["game_learner_decisions"] / games if games else None,
        "rollout/ep_rew_mean": (2 * metrics["wins"] - games) / games if games else None,
        "rollout/win_rate": metrics["wins"] / games if games else None,
        "rollout/game_decisions_per_s": round(metrics["game_decisions_total"] / max(metrics["seconds"], 1e-9), 1),
        **{k: v for k, v in metrics.items() if k.startswith("train/")},
        "train/learning_rate": learning_rate,
    }


# ---------------------------------------------------------------- the run
def team_record(summary: dict, total_timesteps: int) -> dict:
    """One side's entry in a generation's ``record["teams"]`` (``state.json``) from :meth:`Trainer.train_team`'s
    summary: steps, seconds, throughput, the training games' win rate."""
    seconds = summary["seconds"]
    return {
        "learner_steps": summary["learner_steps"],
        "seconds": round(seconds, 2),
        "steps_per_second": round(summary["learner_steps"] / seconds, 1),
        "game_decisions_per_second": round(summary["game_decisions"] / seconds, 1),
        "train_win_rate": summary["wins"] / summary["games"] if summary["games"] else None,
        "total_timesteps": total_timesteps,
    }


def progress_bar(config: RunConfig, total: int):
    """The run's tqdm bar over learner decisions (a line every 30 s where stderr is a file, not a terminal)."""
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="step", disable=not config.training.progress_bar, dynamic_ncols=True,
                mininterval=0.5 if sys.stderr.isatty() else 30.0)


def iteration_logger(config: RunConfig, logs: _Logs, bar, entry: dict, team: str, generation: int, steps: int):
    """The ``on_iteration`` callback of one side's training (:meth:`Trainer.train_team`) from now on: adds each PPO
    iteration's learner decisions to ``entry["timesteps"]``, writes its ``progress.csv`` row and TensorBoard
    scalars, and advances ``bar`` by at most ``steps`` in all."""
    team_start, counted = time.perf_counter(), 0

    def on_iteration(metrics: dict) -> None:
        nonlocal counted
        entry["timesteps"] += metrics["learner_decisions"]
        counted += metrics["learner_decisions"]
        metrics["game_decisions_total"] = metrics["decisions"]
        row = _row(metrics, entry["timesteps"], time.perf_counter() - team_start, counted, config.ppo.learning_rate)
        logs.write(generation, team, row, entry["timesteps"])
        before = counted - metrics["learner_decisions"]
        bar.update(max(0, min(metrics["learner_decisions"], steps - before)))  # the bar's total is steps
        if row["rollout/win_rate"] is not None:
            bar.set_postfix(learner_sps=f"{row['time/fps']:.0f}", train_win=f"{row['rollout/win_rate']:.2f}",
                            refresh=False)

    return on_iteration


def save_team(config: RunConfig, run: RunFolder, generation: int, team: str, params, opt_state,
              timesteps: int, file: str | None = None) -> Path:
    """Write one side's checkpoint of ``generation`` (``checkpoints/gen_NNN/<file or team>.msgpack``); returns its
    path."""
    from traitors_env.agents.jax_checkpoint import save_checkpoint

    path = run.generation_dir(generation) / f"{file or team}.msgpack"
    save_checkpoint(path, params, opt_state, team=team, net_arch=config.ppo.net_arch,
                    activation=config.ppo.activation, num_timesteps=timesteps, game=config.game.name)
    return path


def generation_check(config: RunConfig, run: RunFolder, generation: int, sides, state: dict) -> dict | None:
    """The generation's check against the heuristic (``vs_heuristic`` on its checkpoints, with the run's baselines),
    or None where ``evaluation.games_per_generation`` is 0."""
    if not config.evaluation.games_per_generation:
        return None
    paths = {team: str(run.generation_dir(generation) / f"{team}.msgpack") for team in sides}
    check = vs_heuristic(config, paths, baselines=False)
    for team in check:
        check[team].update(state["baselines_vs_heuristic"][team])
    return check


def plain_ppo(config: RunConfig) -> RunConfig:
    """``config`` without ``ppo.regularizer``: an exploiter (a best response, a league's exploiter) learns to exploit
    with plain PPO, whatever the policies it attacks were trained with."""
    from ..config import RegularizerSection

    return config.model_copy(update={"ppo": config.ppo.model_copy(update={"regularizer": RegularizerSection()})})


def resolve_engine(engine: Engine | None, claims: bool = True, game: str | None = None) -> Engine:
    """``engine``, else the one ``$TRAITORS_JAX_ENGINE`` names, else the JAX twin of ``game`` (the registry's
    default game if ``None``)."""
    return engine or make_engine(os.environ.get(ENGINE_VARIABLE, load_game(game or DEFAULT_GAME).name), claims)


def _load(path: Path, target_params, target_opt):
    """Parameters, optimizer state and learner decisions of a checkpoint, restored into the targets' structure."""
    from flax import serialization

    from traitors_env.agents.jax_checkpoint import read_checkpoint

    data = read_checkpoint(path)
    params = serialization.from_state_dict(target_params, data["params"])
    opt_state = serialization.from_state_dict(target_opt, data["opt_state"])
    return params, opt_state, int(data["num_timesteps"])


def train(config: RunConfig, resume: bool = False, force: bool = False, engine: Engine | None = None) -> RunFolder:
    """Run (or resume) the generations of ``config`` with the JAX backend; returns the run folder.

    Raises:
        training.train.RunError: see :func:`training.train.prepare_run_folder`.
        training.jax_backend.engine.EngineUnavailableError: without the JAX engine.
        traitors_env.agents.checkpoint.PolicyLoadError: a checkpoint to resume from is missing or broken.
    """
    engine = resolve_engine(engine, config.env.claims, config.game.name)
    if config.league is not None:  # population training has its own loop; training.train.train picks it
        raise ValueError("this config has a league: section; train it with training.jax_backend.league.train_league")
    game = config.game
    order = game.sides_in_training_order  # side indices, in the order each generation trains them
    sides = game.type.sides
    run, state = prepare_run_folder(config, resume, force)
    start = state["completed_generations"]
    total_generations = config.training.generations
    if all_trained(config, start):
        return run

    trainer = Trainer(config, engine)
    teams: dict[str, dict] = {}
    for index, side in enumerate(order):
        params, opt_state = trainer.init_params(derive_seed(config.seed, 1, index))
        teams[sides[side]] = {"params": params, "opt_state": opt_state, "timesteps": 0, "snapshots": []}
    if start > 0:
        for team, entry in teams.items():
            for generation in range(start):
                params, opt_state, steps = _load(
                    run.generation_dir(generation) / f"{team}.msgpack", entry["params"], entry["opt_state"]
                )
                entry["snapshots"].append(params)
            entry.update(params=params, opt_state=opt_state, timesteps=steps)

    # The second side's loop compiles in a thread while the first side's compiles and trains (Trainer.warm_up).
    # Set when train() leaves (done, error, Ctrl-C): the exit then waits for the warm-up's current step only.
    stop = threading.Event()
    warming = ThreadPoolExecutor(1, thread_name_prefix="warm-up")
    second = teams[sides[order[1]]]
    warm = warming.submit(trainer.warm_up, order[1], second["params"], second["opt_state"], stop)
    warming.shutdown(wait=False)

    if config.evaluation.games_per_generation and state.get("baselines_vs_heuristic") is None:
        try:
            state["baselines_vs_heuristic"] = vs_heuristic(config, None, baselines=True)
        except BaseException:
            stop.set()
            raise

    bar = progress_bar(config, (total_generations - start) * sum(config.training.steps_for(t) for t in sides))
    logs = _Logs(run, beliefs=config.ppo.belief_coef > 0)
    try:
        for generation in range(start, total_generations):
            began = time.perf_counter()
            record = {"generation": generation + 1, "teams": {}}  # 1-based, as in the SB3 backend
            for index, side in enumerate(order):
                team, other = sides[side], sides[1 - side]
                entry = teams[team]
                # The other side's snapshots, oldest first; the side trained second also meets this generation's
                # snapshot of the first.
                snapshots = list(teams[other]["snapshots"])
                bar.set_description(f"gen {generation + 1}/{total_generations} {team}")
                steps = config.training.steps_for(team)
                on_iteration = iteration_logger(config, logs, bar, entry, team, generation, steps)
                if index == 1:
                    warm.result()  # its compilation done (or its error raised here)
                params, opt_state, summary = trainer.train_team(
                    side,
                    entry["params"],
                    entry["opt_state"],
                    snapshots,
                    derive_seed(config.seed, generation, index),
                    steps,
                    on_iteration,
                )
                entry.update(params=params, opt_state=opt_state)
                save_team(config, run, generation, team, params, opt_state, entry["timesteps"])
                entry["snapshots"].append(params)
                record["teams"][team] = team_record(summary, entry["timesteps"])
            check = generation_check(config, run, generation, sides, state)
            if check is not None:
                record["vs_heuristic"] = check
                bar.write(
                    f"gen {generation + 1}: vs heuristic, "
                    + ", ".join(f"{label} win {check[key]['trained']['win_rate']:.2f}"
                                for key, label in zip(sides, game.type.side_labels))
                )
            record["seconds"] = round(time.perf_counter() - began, 2)
            complete_generation(run, state, record, game)
    finally:
        stop.set()
        bar.close()
        logs.close()
    return run
