"""Speed of the batched JAX engine (``traitors-bench --jax``): decisions per second per batch size.

For each batch size (default 1, 64, 1024 and 4096 games, table sizes 3–8 mixed in every batch,
claims on) it times a jitted ``lax.scan`` of random legal games:

* ``engine_decisions_per_s``: the engine alone: the legal-action mask, a uniformly random legal
  action chosen from it (one uniform number per game), ``engine.step``;
* ``env_decisions_per_s``: the pgx environment's ``step``, which also builds the acting player's
  full observation (1228 floats) and handles illegal actions and finished games as pgx does;
* ``compile_s``: the time to trace and compile each of the two loops (once per batch size).

A finished game waits until an eighth of the batch has finished; then one reset deals new games
to every finished slot (a batch-level ``lax.cond``, so dealing is paid once per wave rather than at
every step). Only decisions of running games are counted; the waiting steps are part of the time.
Time is wall-clock (JAX runs on several threads); the machine's load average is reported with the
figures since a shared machine slows every loop.

Also reported: the bytes of one game state (:class:`~traitors_env.traitors_aboard.jax.state.Game`
and the pgx ``State`` with its observation) and the process's peak resident memory.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import jax
import jax.numpy as jnp

from .traitors_aboard.cards import MAX_PLAYERS, MIN_PLAYERS
from .traitors_aboard.jax import engine as E
from .traitors_aboard.jax import env as jax_env

BATCH_SIZES = (1, 64, 1024, 4096)
SCAN_STEPS = 64  # decisions per game per compiled call
RESET_FRACTION = 1 / 8

TARGET_BATCH = 4096
TARGET_ENGINE_RATE = 1_000_000.0
TARGET_ENV_RATE = 300_000.0
TARGET_ENV_VS_RAW = 10.0
TARGET_COMPILE_S = 60.0


def random_legal_actions(key: jax.Array, masks: jax.Array) -> jax.Array:
    """One uniformly random legal action per row of ``masks`` (bool ``(B, A)``), int32 ``(B,)``.

    One uniform number per game picks the k-th legal action: far cheaper than a categorical draw.
    """
    counts = jnp.sum(masks, axis=1)
    pick = jnp.floor(jax.random.uniform(key, counts.shape) * counts).astype(jnp.int32)
    return jnp.argmax(jnp.cumsum(masks, axis=1) > pick[:, None], axis=1).astype(jnp.int32)


def _where_done(done: jax.Array, fresh, current):
    return jax.tree_util.tree_map(
        lambda f, x: jnp.where(done.reshape(done.shape + (1,) * (x.ndim - 1)), f, x), fresh, current
    )


def _table_sizes(batch: int) -> jax.Array:
    return MIN_PLAYERS + jnp.arange(batch, dtype=jnp.int32) % (MAX_PLAYERS - MIN_PLAYERS + 1)


def engine_rollout(batch: int, steps: int = SCAN_STEPS) -> tuple[Callable, tuple]:
    """A jitted ``(games, key) -> (games, key, decisions)`` playing ``steps`` decisions per game, and its first arguments."""
    sizes = _table_sizes(batch)
    init = jax.vmap(E.init)

    def body(carry, _):
        games, key = carry
        key, k_act, k_step, k_reset = jax.random.split(key, 4)
        running = games.phase != E.GAME_OVER
        masks = jax.vmap(E.legal_action_mask)(games)
        actions = random_legal_actions(k_act, masks)
        games = jax.vmap(E.step)(games, actions, jax.random.split(k_step, batch))
        done = games.phase == E.GAME_OVER
        games = jax.lax.cond(
            jnp.mean(done) >= RESET_FRACTION,
            lambda: _where_done(done, init(jax.random.split(k_reset, batch), sizes), games),
            lambda: games,
        )
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
        key, k_act, k_step, k_reset = jax.random.split(key, 4)
        running = ~states.terminated
        actions = random_legal_actions(k_act, states.legal_action_mask)
        states = step(states, actions, jax.random.split(k_step, batch))
        done = states.terminated
        states = jax.lax.cond(
            jnp.mean(done) >= RESET_FRACTION,
            lambda: _where_done(done, init(jax.random.split(k_reset, batch), sizes), states),
            lambda: states,
        )
        return (states, key), jnp.sum(running)

    def rollout(states, key):
        (states, key), decisions = jax.lax.scan(body, (states, key), None, length=steps)
        return states, key, jnp.sum(decisions)

    states = init(jax.random.split(jax.random.PRNGKey(0), batch), sizes)
    return jax.jit(rollout), (states, jax.random.PRNGKey(1))


def _measure(make: Callable, batch: int, seconds: float, repeats: int) -> dict:
    """Compile time and median decisions/s of the rollout ``make(batch)``."""
    rollout, args = make(batch)
    start = time.perf_counter()
    compiled = rollout.lower(*args).compile()
    compile_s = time.perf_counter() - start
    state, key, _ = compiled(*args)  # warm-up
    jax.block_until_ready(state)
    rates = []
    for _ in range(repeats):
        decisions = 0
        start = time.perf_counter()
        while True:
            state, key, count = compiled(state, key)
            decisions += int(count)  # blocks on the result
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        rates.append(decisions / elapsed)
    rates.sort()
    return {"decisions_per_s": rates[len(rates) // 2], "min": rates[0], "max": rates[-1], "compile_s": compile_s}


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
            "compile_s": engine["compile_s"] + env["compile_s"],
            "engine_compile_s": engine["compile_s"],
            "env_compile_s": env["compile_s"],
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
        (f"JAX compile time at batch {TARGET_BATCH} (s, both loops)", figures["compile_s"], TARGET_COMPILE_S, False),
    ]
    if raw_env_rate:
        ratio = figures["env_decisions_per_s"] / raw_env_rate
        targets.append((f"JAX env at batch {TARGET_BATCH} / raw_env() (5 players)", ratio, TARGET_ENV_VS_RAW, True))
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
        f"claims on; median of {meta['repeats']} runs of {meta['seconds']:g} s, wall-clock; load average before: "
        f"{'–' if load is None else ', '.join(f'{x:.1f}' for x in load)}.",
        "",
        "| batch | engine decisions/s (min–max) | env decisions/s, with observation (min–max) | env × raw_env() | compile s (engine + env) |",
        "|---:|---:|---:|---:|---:|",
    ]
    for batch, f in result["batches"].items():
        ratio = f"{f['env_decisions_per_s'] / raw_env_rate:.1f}" if raw_env_rate else "–"
        lines.append(
            f"| {batch} | {f['engine_decisions_per_s']:,.0f} ({f['engine_decisions_per_s_min']:,.0f}–"
            f"{f['engine_decisions_per_s_max']:,.0f}) | {f['env_decisions_per_s']:,.0f} "
            f"({f['env_decisions_per_s_min']:,.0f}–{f['env_decisions_per_s_max']:,.0f}) | {ratio} | "
            f"{f['engine_compile_s']:.1f} + {f['env_compile_s']:.1f} |"
        )
    memory = result["memory"]
    lines += [
        "",
        f"Memory per game state: {memory['game_bytes']:,} bytes (engine Game), {memory['state_bytes']:,} bytes "
        "(pgx State with observation and mask).",
    ]
    return "\n".join(lines)
