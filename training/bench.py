"""The training benchmark (``traitors-bench --training``): learner decisions per second of both backends.

In one run, for each team, trains for ``--seconds`` (default 60) with

- the SB3 backend on ``configs/quick.yaml`` (sb3-contrib ``MaskablePPO`` over ``TeamEnv``), and
- the JAX backend on ``configs/jax_quick.yaml`` (:mod:`training.jax_backend`), timed after its
  compilation (one warm-up iteration, reported as ``compile_s``),

both with the quick config's network, epochs and opponent mix (:func:`comparable_jax_config`): the
other team's latest and past snapshots (two untrained snapshots, so every kind of the mix is drawn), the heuristic and the
random bot. A learner decision is one transition (one step of the learner's team; see
:mod:`training.team_env`). Reports learner decisions/s, game decisions/s (opponents' too) and
the JAX/SB3 ratio per team, and learner decisions per CPU-second of the process (all its threads; less
disturbed by other load on a shared machine than wall time); ``--json PATH`` writes them under the key ``training``.

The benchmark lives here, not in :mod:`traitors_env.benchmark`, because the environment package
never imports ``training/``; ``traitors-bench --training`` hands its arguments to :func:`main`.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from traitors_env.core.game import Game
from traitors_env.core.registry import load_game
from traitors_env.files import atomic_write_text, output_problem

from .config import RunConfig, load_config


def bench_sb3(config: RunConfig, team: str, seconds: float) -> dict:
    """Learner decisions/s of ``MaskablePPO.learn`` on ``config`` for ``team`` over ``seconds`` of wall time."""
    import torch
    from stable_baselines3.common.callbacks import BaseCallback

    from .train import _new_model, build_vec_env, configure_team, save_model_atomic

    torch.set_num_threads(config.training.torch_threads)
    venv = build_vec_env(config)
    try:
        model = _new_model(config, venv, seed=0)
        with tempfile.TemporaryDirectory() as folder:
            snapshots = [str(Path(folder) / f"snapshot_{i}.zip") for i in range(2)]
            for path in snapshots:
                save_model_atomic(model, Path(path))
            configure_team(venv, config, team, snapshots, seed=1)
            model.set_env(venv, force_reset=True)

            class Clock(BaseCallback):
                def _on_training_start(self) -> None:
                    self.start = time.perf_counter()
                    self.cpu = time.process_time()
                    self.steps = 0
                    self.decisions = 0

                def _on_step(self) -> bool:
                    self.steps += self.training_env.num_envs
                    for info, done in zip(self.locals["infos"], self.locals["dones"]):
                        if done:
                            self.decisions += int(info.get("game_decisions", 0))
                    return time.perf_counter() - self.start < seconds

            clock = Clock()
            model.learn(total_timesteps=10**12, callback=clock)
            elapsed = time.perf_counter() - clock.start
            cpu = time.process_time() - clock.cpu
    finally:
        venv.close()
    return {
        "learner_decisions": clock.steps,
        "seconds": round(elapsed, 2),
        "learner_decisions_per_s": round(clock.steps / elapsed, 1),
        "game_decisions_per_s": round(clock.decisions / elapsed, 1),  # of finished games
        "learner_decisions_per_cpu_s": round(clock.steps / cpu, 1),
    }


def bench_jax(config: RunConfig, team: str, seconds: float, engine=None) -> dict:
    """Learner decisions/s of the JAX backend on ``config`` for ``team``: ``seconds`` of PPO iterations after a
    warm-up iteration that compiles the rollout and the update."""
    import jax

    from .jax_backend.train import Trainer, resolve_engine

    game = load_game(config.env.name)
    trainer = Trainer(config, resolve_engine(engine, config.env.claims))
    index = game.type.side_index(team)
    params, opt_state = trainer.init_params(0)
    snapshots = [trainer.init_params(i + 1)[0] for i in range(2)]
    began = time.perf_counter()
    params, opt_state, _ = trainer.train_team(index, params, opt_state, snapshots, 1, 1, lambda m: True)
    jax.block_until_ready(params)
    compile_s = time.perf_counter() - began
    totals = {"learner_decisions": 0, "game_decisions": 0}

    def count(metrics) -> bool:
        totals["learner_decisions"] += metrics["learner_decisions"]
        totals["game_decisions"] += metrics["decisions"]
        return time.perf_counter() - start >= seconds

    start, cpu = time.perf_counter(), time.process_time()
    trainer.train_team(index, params, opt_state, snapshots, 2, 10**15, count)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    update = update_seconds(trainer, team, game)
    return {
        **update,
        # the learner decisions/s the update alone would allow with a rollout that cost nothing
        "update_only_learner_decisions_per_s": round(1e6 / update["update_us_per_learner_decision"]),
        "learner_decisions": totals["learner_decisions"],
        "seconds": round(elapsed, 2),
        "learner_decisions_per_s": round(totals["learner_decisions"] / elapsed, 1),
        "game_decisions_per_s": round(totals["game_decisions"] / elapsed, 1),
        "learner_decisions_per_cpu_s": round(totals["learner_decisions"] / cpu, 1),  # all threads' CPU time
        "compile_s": round(compile_s, 1),
        "compilation_cache_dir": jax.config.jax_compilation_cache_dir,  # a warm persistent cache: compile_s small
        "engine": trainer.engine.name,
        "devices": [str(d) for d in jax.devices()],
    }


def learner_flops(net_arch, n_epochs: int, obs_size: int, n_actions: int) -> dict:
    """Floating-point operations per learner decision of masked PPO with separate actor and critic MLPs.

    The dense layers only (activations, softmax and Adam are a few percent more): one forward pass of actor
    and critic in the rollout, then per epoch a forward pass and a backward pass (weight gradients of every
    layer, input gradients of every layer but the first: the observation needs none). A multiply-add is 2
    operations. Returns ``{"forward", "update", "total"}`` in FLOPs per learner decision.
    """
    def layers(out):
        sizes = [obs_size, *net_arch, out]
        return list(zip(sizes[:-1], sizes[1:]))

    macs = [a * b for head in (n_actions, 1) for a, b in layers(head)]
    first = sum(a * b for head in (n_actions, 1) for a, b in layers(head)[:1])
    forward = 2 * sum(macs)
    backward = 2 * (sum(macs) + sum(macs) - first)
    return {"forward": forward, "update": n_epochs * (forward + backward), "total": forward + n_epochs * (forward + backward)}


def matmul_gflops(obs_size: int, seconds: float = 2.0) -> float:
    """This machine's float32 matrix-multiply rate under XLA (GFLOP/s, wall, all cores), on the shape that
    dominates PPO here: a minibatch of 2,048 observations (``obs_size`` floats each) times the first layers of
    actor and critic."""
    import jax
    import jax.numpy as jnp

    x = jax.random.normal(jax.random.key(0), (2048, obs_size), jnp.float32)
    w = jax.random.normal(jax.random.key(1), (obs_size, 256), jnp.float32)
    step = jax.jit(lambda x, w: jnp.tanh(x @ w).sum())  # the sum keeps the output small
    step(x, w).block_until_ready()
    best = 0.0
    for _ in range(3):
        count, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds / 3:
            step(x, w).block_until_ready()
            count += 1
        best = max(best, count * 2 * 2048 * obs_size * 256 / (time.perf_counter() - start) / 1e9)
    return round(best, 1)


def update_seconds(trainer, team: str, game: Game, repeats: int = 3) -> dict:
    """Wall and CPU seconds of the JAX backend's PPO update alone (``Trainer.learn``, compiled), per learner
    decision, on a batch of the size the team's training used (``trainer.capacity[team]``; random observations of
    ``game``'s size: the dense math costs the same whatever the values)."""
    import jax
    import jax.numpy as jnp

    from .jax_backend.ppo import Batch

    num_actions, obs_size = game.type.num_actions, _obs_size(game)

    capacity = trainer.capacity[team]
    params, opt_state = trainer.init_params(0)
    key = jax.random.key(0)
    rows = (1, capacity)
    grid = Batch(
        jax.random.uniform(key, rows + (obs_size,)),
        jnp.ones(rows + (num_actions,), bool),
        jnp.zeros(rows, jnp.int32),
        jnp.full(rows, -5.0),
        jnp.zeros(rows),
        jax.random.normal(key, rows),
        jax.random.normal(key, rows),
        jnp.ones(rows, bool),
    )
    valid = jnp.ones(rows, bool)
    jax.block_until_ready(trainer._learn(params, opt_state, grid, valid, key, capacity=capacity))
    wall, cpu = [], []
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        jax.block_until_ready(trainer._learn(params, opt_state, grid, valid, key, capacity=capacity))
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    return {"update_us_per_learner_decision": round(1e6 * min(wall) / capacity, 1),
            "update_cpu_us_per_learner_decision": round(1e6 * min(cpu) / capacity, 1)}


def ceiling(result: dict, jax_config: RunConfig) -> dict:
    """What the dense math allows: the learner's FLOPs per decision, this machine's matmul rate, and the learner
    decisions/s that rate gives at most (the rollout's engine, opponents and bookkeeping cost extra)."""
    game = load_game(jax_config.env.name)
    p = jax_config.ppo
    flops = learner_flops(tuple(p.net_arch), p.n_epochs, _obs_size(game), game.type.num_actions)
    gflops = matmul_gflops(_obs_size(game))
    out = {
        "learner_mflop_per_decision": round(flops["total"] / 1e6, 2),
        "matmul_gflops": gflops,
        "max_learner_decisions_per_s": round(gflops * 1e9 / flops["total"]),
        "teams": {},
    }
    for team, entry in result["teams"].items():
        if "sb3" in entry:
            needed = 10 * entry["sb3"]["learner_decisions_per_s"]
            out["teams"][team] = {"ten_times_sb3": round(needed),
                                  "gflops_needed_for_ten_times_sb3": round(needed * flops["total"] / 1e9, 1)}
    return out


def _obs_size(game: Game) -> int:
    """The length of ``game``'s flat observation."""
    return int(np.prod(game.type.observation_shape))


def comparable_jax_config(sb3_config: RunConfig, jax_config: RunConfig) -> RunConfig:
    """``jax_config`` with the SB3 config's opponent mix, network and passes over each transition
    (``ppo.net_arch``, ``ppo.activation``, ``ppo.n_epochs``), whatever the JAX config trains with: the two
    backends then do the same work per learner decision. The JAX config keeps its batch of games, rollout
    length and minibatch size (how it lays that work out)."""
    ppo = jax_config.ppo.model_copy(
        update={k: getattr(sb3_config.ppo, k) for k in ("net_arch", "activation", "n_epochs")}
    )
    return jax_config.model_copy(update={"opponents": sb3_config.opponents, "ppo": ppo})


def run_training_benchmark(
    sb3_config: RunConfig, jax_config: RunConfig, seconds: float, backends=("sb3", "jax"), progress=None, engine=None
) -> dict:
    """Both backends, both teams; the figures :func:`main` prints (see the module doc). ``engine``: the JAX
    backend's game (default: the real one, :func:`training.jax_backend.train.resolve_engine`)."""
    result: dict = {
        "seconds_per_measurement": seconds,
        "sb3_config": sb3_config.name,
        "jax_config": jax_config.name,
        "net_arch": list(sb3_config.ppo.net_arch),
        "opponents": sb3_config.opponents.weights(),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "load_average": _load()},
        "teams": {},
    }
    for team in load_game(sb3_config.env.name).type.sides:
        entry = {}
        for backend in backends:
            if progress:
                progress(f"training benchmark: {backend} {team}, {seconds:g} s …")
            if backend == "sb3":
                entry[backend] = bench_sb3(sb3_config, team, seconds)
            else:
                entry[backend] = bench_jax(comparable_jax_config(sb3_config, jax_config), team, seconds, engine)
        if "sb3" in entry and "jax" in entry:
            entry["jax_over_sb3"] = round(
                entry["jax"]["learner_decisions_per_s"] / entry["sb3"]["learner_decisions_per_s"], 2
            )
        result["teams"][team] = entry
    if "jax" in backends:
        if progress:
            progress("training benchmark: the dense-math ceiling …")
        result["ceiling"] = ceiling(result, comparable_jax_config(sb3_config, jax_config))
    result["machine"]["load_average_after"] = _load()
    return result


def _load():
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def format_report(result: dict) -> str:
    lines = [
        f"Training throughput, {result['seconds_per_measurement']:g} s per backend and team "
        f"(network {result['net_arch']}, opponents {result['opponents']}; load average "
        f"{result['machine']['load_average']} → {result['machine']['load_average_after']}):",
        "",
        "| team | backend | learner decisions/s | learner decisions per CPU-second | game decisions/s | compile s |",
        "|---|---|---|---|---|---|",
    ]
    for team, entry in result["teams"].items():
        for backend in ("sb3", "jax"):
            if backend in entry:
                e = entry[backend]
                lines.append(
                    f"| {team} | {backend} | {e['learner_decisions_per_s']:,.0f} | "
                    f"{e['learner_decisions_per_cpu_s']:,.0f} | {e['game_decisions_per_s']:,.0f} | {e.get('compile_s', '')} |"
                )
        if "jax_over_sb3" in entry:
            lines.append(f"| {team} | **JAX / SB3** | **{entry['jax_over_sb3']}×** | | | |")
    for team, entry in result["teams"].items():
        if "jax" in entry and "update_us_per_learner_decision" in entry["jax"]:
            e = entry["jax"]
            lines.append(
                f"\n{team}: the JAX PPO update alone takes {e['update_us_per_learner_decision']} µs per learner decision "
                f"({e['update_cpu_us_per_learner_decision']} µs of CPU): at most {e['update_only_learner_decisions_per_s']:,} "
                "learner decisions/s even with a rollout that cost nothing."
            )
    c = result.get("ceiling")
    if c:
        lines.append(
            f"\nDense math: {c['learner_mflop_per_decision']} MFLOP per learner decision (the rollout's forward pass and "
            f"the update's epochs); float32 matmul here {c['matmul_gflops']} GFLOP/s → at most "
            f"{c['max_learner_decisions_per_s']:,} learner decisions/s."
        )
        for team, t in c["teams"].items():
            lines.append(
                f"{team}: 10× SB3 = {t['ten_times_sb3']:,} learner decisions/s needs "
                f"{t['gflops_needed_for_ten_times_sb3']} GFLOP/s for the learner alone."
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``traitors-bench --training`` (the ``--training`` flag already removed by the caller)."""
    parser = argparse.ArgumentParser(
        prog="traitors-bench --training",
        description="Learner decisions per second of the SB3 and JAX training backends, both teams.",
    )
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds per backend and team (default 60)")
    parser.add_argument("--sb3-config", default="quick", help="SB3 config: name or path (default quick)")
    parser.add_argument("--jax-config", default="jax_quick", help="JAX config: name or path (default jax_quick)")
    parser.add_argument("--backends", nargs="+", choices=("sb3", "jax"), default=["sb3", "jax"])
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON to PATH, under 'training'")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error(f"--seconds={args.seconds!r}; expected a positive number")
    if args.json and (problem := output_problem(args.json, folder=False, make_parents=False)):
        parser.error(f"--json {problem}")  # before the measurement, not after it
    progress = None if args.quiet else (lambda message: print(message, file=sys.stderr, flush=True))
    jax_config = load_config(args.jax_config)
    if "jax" in args.backends:
        from .train import RunError, check_backend_extra

        try:
            check_backend_extra(jax_config)
        except RunError as error:  # was a ModuleNotFoundError traceback
            parser.error(f"{error}; or measure the SB3 backend alone: --backends sb3")
    result = run_training_benchmark(
        load_config(args.sb3_config), jax_config, args.seconds, tuple(args.backends), progress
    )
    print(format_report(result))
    if args.json:
        atomic_write_text(args.json, json.dumps({"training": result}, indent=2) + "\n")
    return 0


def cli(argv: list[str] | None = None) -> int:
    """The ``traitors-bench`` command: ``--training`` runs this training benchmark, anything else the
    environment benchmark (:func:`traitors_env.benchmark.main`). The dispatch lives here, on top, so the
    environment package never refers to ``training/``.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    if "--training" in argv:
        return main([a for a in argv if a != "--training"])
    from traitors_env.benchmark import main as environment_benchmark

    return environment_benchmark(argv)


if __name__ == "__main__":  # python -m training.bench: the traitors-bench command, as the console script
    sys.exit(cli())
