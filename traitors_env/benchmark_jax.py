"""Speed of the batched JAX engine (``traitors-bench --jax``): decisions per second per batch size.

For each batch size (default 1, 64, 1024 and 4096 games, table sizes 3–8 mixed in every batch,
claims on) it times a jitted ``lax.scan`` of random legal games:

* ``engine_decisions_per_s``: the engine alone: the legal-action mask, a uniformly random legal
  action chosen from it (one uniform number per game), ``engine.step``;
* ``env_decisions_per_s``: the pgx environment's ``step``, which also builds the acting player's
  full observation (1228 floats) and handles illegal actions and finished games as pgx does;
* ``compile_s``: the time to trace and compile each of the two loops (once per batch size).

Each step's randomness (a key per game for ``step``, a uniform per game for the action) comes from
one threefry call over the batch (:func:`_draws`), as cheap a draw as the engine's own loops allow
an RL loop to make; the figures count the same decisions either way.

A finished game waits until an eighth of the batch has finished; then one reset deals new games
to an eighth of the batch, the first finished slots (a batch-level ``lax.cond`` around a deal of
``batch / 8`` games scattered into place, so each game is dealt once rather than the whole batch at
every step, as a ``jnp.where`` auto-reset under ``vmap`` would). Only decisions of running games
are counted; the waiting steps are part of the time.
Time is wall-clock (JAX runs on several threads); the machine's load average is reported with the
figures since a shared machine slows every loop.

Also reported: the bytes of one game state (:class:`~traitors_env.games.traitors_aboard.jax.state.Game`
and the pgx ``State`` with its observation) and the process's peak resident memory.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable

import jax
import jax.numpy as jnp

from .games.traitors_aboard.cards import MAX_PLAYERS, MIN_PLAYERS
from .games.traitors_aboard.jax import engine as E
from .games.traitors_aboard.jax import env as jax_env

BATCH_SIZES = (1, 64, 1024, 4096)
SCAN_STEPS = 64  # decisions per game per compiled call
RESET_FRACTION = 1 / 8

TARGET_BATCH = 4096
TARGET_ENGINE_RATE = 1_000_000.0
TARGET_ENV_RATE = 300_000.0
TARGET_ENV_VS_RAW = 10.0
TARGET_COMPILE_S = 60.0


def random_legal_actions(key: jax.Array, masks: jax.Array, uniforms: jax.Array | None = None) -> jax.Array:
    """One uniformly random legal action per row of ``masks`` (bool ``(B, A)``), int32 ``(B,)``.

    One uniform number per game (``uniforms``, float32 ``(B,)`` in [0, 1), drawn from ``key`` when
    not given) picks the k-th legal action, found in two steps over a square of
    blocks (which block, then where in it) with compares and sums: a ``cumsum`` over all actions is a
    slow reduce-window on a CPU, and a categorical draw needs a random number per action.
    """
    batch, actions = masks.shape
    side = math.isqrt(actions - 1) + 1
    grid = jnp.zeros((batch, side * side), jnp.int32).at[:, :actions].set(masks).reshape(batch, side, side)
    tri = jnp.arange(side)[:, None] >= jnp.arange(side)  # tri[i, j]: j <= i
    block = grid.sum(2)
    upto = jnp.sum(jnp.where(tri, block[:, None, :], 0), 2)  # legal actions in blocks 0 … i
    if uniforms is None:
        uniforms = jax.random.uniform(key, (batch,))
    pick = jnp.floor(uniforms * upto[:, -1]).astype(jnp.int32)
    which = jnp.sum(upto <= pick[:, None], 1)  # the block holding the pick-th legal action
    before = jnp.sum(jnp.where(jnp.arange(side) < which[:, None], block, 0), 1)
    row = jnp.sum(jnp.where((jnp.arange(side) == which[:, None])[:, :, None], grid, 0), 1)
    within = jnp.sum(jnp.where(tri, row[:, None, :], 0), 2)
    return (which * side + jnp.sum(within <= (pick - before)[:, None], 1)).astype(jnp.int32)


def _reset_finished(done: jax.Array, key: jax.Array, sizes: jax.Array, batched, deal: Callable):
    """New games dealt into the first ``len(done) / 8`` finished slots, once that many have finished."""
    batch = done.shape[0]
    wave = max(1, int(batch * RESET_FRACTION))

    def reset():
        slots = jnp.nonzero(done, size=wave, fill_value=batch)[0]  # batch: no slot (dropped below)
        fresh = deal(jax.random.split(key, wave), sizes[jnp.minimum(slots, batch - 1)])
        return jax.tree_util.tree_map(lambda x, f: x.at[slots].set(f, mode="drop"), batched, fresh)

    return jax.lax.cond(jnp.sum(done) >= wave, reset, lambda: batched)


def _draws(key: jax.Array, batch: int) -> tuple[jax.Array, jax.Array]:
    """A step's randomness from one threefry call: a key per game (for ``step``) and a uniform per game.

    The same bits as ``jax.random.split(key, batch)`` would give the keys (raw ``uint32[2]`` keys), and
    the uniform is made from 23 random bits as ``jax.random.uniform`` makes it; drawing them together
    saves one threefry pass over the batch per step.
    """
    bits = jax.random.bits(key, (batch, 3), jnp.uint32)
    uniforms = jax.lax.bitcast_convert_type((bits[:, 2] >> 9) | jnp.uint32(0x3F800000), jnp.float32) - 1.0
    return bits[:, :2], uniforms


def _table_sizes(batch: int) -> jax.Array:
    return MIN_PLAYERS + jnp.arange(batch, dtype=jnp.int32) % (MAX_PLAYERS - MIN_PLAYERS + 1)


def engine_rollout(batch: int, steps: int = SCAN_STEPS) -> tuple[Callable, tuple]:
    """A jitted ``(games, key) -> (games, key, decisions)`` playing ``steps`` decisions per game, and its first arguments."""
    sizes = _table_sizes(batch)
    init = jax.vmap(E.init)

    def body(carry, _):
        games, key = carry
        key, k_step, k_reset = jax.random.split(key, 3)
        running = games.phase != E.GAME_OVER
        masks = jax.vmap(E.legal_action_mask)(games)
        step_keys, uniforms = _draws(k_step, batch)
        actions = random_legal_actions(k_step, masks, uniforms)
        games = jax.vmap(E.step)(games, actions, step_keys)
        games = _reset_finished(games.phase == E.GAME_OVER, k_reset, sizes, games, init)
        return (games, key), jnp.sum(running)

    def rollout(games, key):
        (games, key), decisions = jax.lax.scan(body, (games, key), None, length=steps)
        return games, key, jnp.sum(decisions)

    games = init(jax.random.split(jax.random.PRNGKey(0), batch), sizes)
    return jax.jit(rollout), (games, jax.random.PRNGKey(1))


def env_rollout(batch: int, steps: int = SCAN_STEPS) -> tuple[Callable, tuple]:
    """As :func:`engine_rollout` through the pgx env's ``step`` (with the acting player's observation)."""
    sizes = _table_sizes(batch)
    init = jax.vmap(jax_env.init)
    step = jax.vmap(jax_env.step)

    def body(carry, _):
        states, key = carry
        key, k_step, k_reset = jax.random.split(key, 3)
        running = ~states.terminated
        step_keys, uniforms = _draws(k_step, batch)
        actions = random_legal_actions(k_step, states.legal_action_mask, uniforms)
        states = step(states, actions, step_keys)
        states = _reset_finished(states.terminated, k_reset, sizes, states, init)
        return (states, key), jnp.sum(running)

    def rollout(states, key):
        (states, key), decisions = jax.lax.scan(body, (states, key), None, length=steps)
        return states, key, jnp.sum(decisions)

    states = init(jax.random.split(jax.random.PRNGKey(0), batch), sizes)
    return jax.jit(rollout), (states, jax.random.PRNGKey(1))


def _measure(make: Callable, batch: int, seconds: float, repeats: int) -> dict:
    """Compile time and median decisions/s of the rollout ``make(batch)``, by wall-clock and by CPU time."""
    rollout, args = make(batch)
    wall, cpu = time.perf_counter(), time.process_time()
    compiled = rollout.lower(*args).compile()
    compile_s, compile_cpu_s = time.perf_counter() - wall, time.process_time() - cpu
    state, key, _ = compiled(*args)  # warm-up
    jax.block_until_ready(state)
    rates, cpu_rates = [], []
    for _ in range(repeats):
        decisions = 0
        wall, cpu = time.perf_counter(), time.process_time()
        while True:
            state, key, count = compiled(state, key)
            decisions += int(count)  # blocks on the result
            elapsed = time.perf_counter() - wall
            if elapsed >= seconds:
                break
        rates.append(decisions / elapsed)
        cpu_rates.append(decisions / max(time.process_time() - cpu, 1e-9))
    rates.sort()
    cpu_rates.sort()
    return {
        "decisions_per_s": rates[len(rates) // 2],
        "min": rates[0],
        "max": rates[-1],
        "decisions_per_cpu_s": cpu_rates[len(cpu_rates) // 2],
        "compile_s": compile_s,
        "compile_cpu_s": compile_cpu_s,
    }


def state_bytes() -> dict:
    """Bytes of one game: the bare :class:`Game` and the pgx ``State`` (observation, mask, rewards included)."""
    game = E.init(jax.random.PRNGKey(0), 5)
    state = jax_env.init(jax.random.PRNGKey(0), 5)

    def size(tree) -> int:
        return sum(leaf.nbytes for leaf in jax.tree_util.tree_leaves(tree))

    return {"game_bytes": size(game), "state_bytes": size(state)}


def run_jax_benchmark(
    batch_sizes: tuple[int, ...] = BATCH_SIZES,
    seconds: float = 1.0,
    repeats: int = 3,
    progress: Callable[[str], None] | None = None,
) -> dict:
    """Measure the JAX engine and env at each batch size; a JSON-ready dict (see the module doc).

    Keys: ``meta`` (jax version, backend, devices, CPU count, load average before and after),
    ``batches`` (``{"4096": {"engine_decisions_per_s", "env_decisions_per_s", "compile_s", …}}``),
    ``memory`` (``game_bytes``, ``state_bytes``).

    Raises:
        ValueError: for a batch size below 1.
    """
    for batch in batch_sizes:
        if batch < 1:
            raise ValueError(f"batch size {batch!r}; expected at least 1")
    say = progress or (lambda message: None)
    load_before = os.getloadavg() if hasattr(os, "getloadavg") else None
    batches = {}
    for batch in batch_sizes:
        say(f"jax batch {batch}: engine")
        engine = _measure(engine_rollout, batch, seconds, repeats)
        say(f"jax batch {batch}: env")
        env = _measure(env_rollout, batch, seconds, repeats)
        batches[str(batch)] = {
            "engine_decisions_per_s": engine["decisions_per_s"],
            "engine_decisions_per_s_min": engine["min"],
            "engine_decisions_per_s_max": engine["max"],
            "env_decisions_per_s": env["decisions_per_s"],
            "env_decisions_per_s_min": env["min"],
            "env_decisions_per_s_max": env["max"],
            "engine_decisions_per_cpu_s": engine["decisions_per_cpu_s"],
            "env_decisions_per_cpu_s": env["decisions_per_cpu_s"],
            "compile_s": max(engine["compile_s"], env["compile_s"]),
            "engine_compile_s": engine["compile_s"],
            "env_compile_s": env["compile_s"],
            "engine_compile_cpu_s": engine["compile_cpu_s"],
            "env_compile_cpu_s": env["compile_cpu_s"],
        }
    return {
        "meta": {
            "jax": jax.__version__,
            "backend": jax.default_backend(),
            "devices": [str(d) for d in jax.devices()],
            "cpu_count": os.cpu_count(),
            "table_sizes": "3–8 mixed in every batch",
            "claims": True,
            "scan_steps": SCAN_STEPS,
            "seconds": seconds,
            "repeats": repeats,
            "clock": "wall",
            "load_average_before": load_before,
            "load_average_after": os.getloadavg() if hasattr(os, "getloadavg") else None,
            # JAX's persistent compilation cache (``JAX_COMPILATION_CACHE_DIR``): a warm one makes compile_s small
            "compilation_cache_dir": jax.config.jax_compilation_cache_dir,
        },
        "batches": batches,
        "memory": state_bytes(),
    }


def jax_targets(result: dict, raw_env_rate: float | None) -> list[dict]:
    """The issue's targets decided by this run (batch 4096; the env against ``raw_env`` of the same run)."""
    figures = result["batches"].get(str(TARGET_BATCH))
    if figures is None:
        return []
    targets = [
        (
            f"JAX engine decisions/s at batch {TARGET_BATCH}",
            figures["engine_decisions_per_s"],
            TARGET_ENGINE_RATE,
            True,
        ),
        (f"JAX env decisions/s at batch {TARGET_BATCH}", figures["env_decisions_per_s"], TARGET_ENV_RATE, True),
        (
            f"JAX compile time at batch {TARGET_BATCH} (s, the slower loop)",
            figures["compile_s"],
            TARGET_COMPILE_S,
            False,
        ),
    ]
    if raw_env_rate:
        # Like for like: raw_env's figure is per second of process CPU time.
        ratio = figures["env_decisions_per_cpu_s"] / raw_env_rate
        name = f"JAX env at batch {TARGET_BATCH} / raw_env(), both per CPU second"
        targets.append((name, ratio, TARGET_ENV_VS_RAW, True))
    return [
        {
            "name": name,
            "measured": measured,
            "per_repetition": [measured],
            "required": f"{'>=' if at_least else '<='} {required:g}",
            "met": measured >= required if at_least else measured <= required,
        }
        for name, measured, required, at_least in targets
    ]


def format_jax_report(result: dict, raw_env_rate: float | None) -> str:
    """The JAX figures as a markdown table."""
    meta = result["meta"]
    load = meta["load_average_before"]
    lines = [
        f"JAX engine: jax {meta['jax']} on {meta['backend']} ({meta['cpu_count']} CPUs); table sizes 3–8 mixed, "
        f"claims on; median of {meta['repeats']} runs of {meta['seconds']:g} s; load average before: "
        f"{'–' if load is None else ', '.join(f'{x:.1f}' for x in load)}. Decisions per second of wall-clock time "
        "(min–max) and per second of this process's CPU time (all its threads; the clock of the raw_env() figure)."
        + (
            f" Persistent compilation cache on ({meta['compilation_cache_dir']}): compile times may be of a warm cache."
            if meta.get("compilation_cache_dir")
            else ""
        ),
        "",
        "| batch | engine decisions/s, wall (min–max) | engine per CPU s | env decisions/s with observation, wall "
        "(min–max) | env per CPU s | env / raw_env(), per CPU s | compile s, engine / env (CPU s) |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for batch, f in result["batches"].items():
        ratio = f"{f['env_decisions_per_cpu_s'] / raw_env_rate:.1f}" if raw_env_rate else "–"
        lines.append(
            f"| {batch} | {f['engine_decisions_per_s']:,.0f} ({f['engine_decisions_per_s_min']:,.0f}–"
            f"{f['engine_decisions_per_s_max']:,.0f}) | {f['engine_decisions_per_cpu_s']:,.0f} | "
            f"{f['env_decisions_per_s']:,.0f} ({f['env_decisions_per_s_min']:,.0f}–{f['env_decisions_per_s_max']:,.0f})"
            f" | {f['env_decisions_per_cpu_s']:,.0f} | {ratio} | {f['engine_compile_s']:.1f} / {f['env_compile_s']:.1f} "
            f"({f['engine_compile_cpu_s']:.1f} / {f['env_compile_cpu_s']:.1f}) |"
        )
    memory = result["memory"]
    lines += [
        "",
        f"Memory per game state: {memory['game_bytes']:,} bytes (engine Game), {memory['state_bytes']:,} bytes "
        "(pgx State with observation and mask).",
    ]
    return "\n".join(lines)
