"""Speed of a game's batched JAX twin (``traitors-bench --jax``): decisions per second per batch size.

For every game measured whose :attr:`Game.jax` is not ``None``, and each batch size (default 1, 64, 1024
and 4096 games, every table size of the game mixed in every batch, claims on), it times a jitted
``lax.scan`` of random legal games:

* ``engine_decisions_per_s``: the engine alone: the legal-action mask, a uniformly random legal
  action chosen from it (one uniform number per game), ``engine.step``;
* ``env_decisions_per_s``: the pgx environment's ``step``, which also builds the acting player's
  full observation and handles illegal actions and finished games as pgx does;
* ``compile_s``: the time to trace and compile each of the two loops (once per batch size).

What it reads of the twin (the module ``game.jax()`` returns): pgx's ``init(key, num_players) -> State`` and
``step(state, action, key) -> State``, the ``State`` with ``legal_action_mask`` and ``terminated``; and, for
the engine row, its ``engine`` (a module with ``init(key, num_players)``, ``step(game, action, key)``,
``legal_action_mask(game)`` and ``terminated(game)``). A twin without ``engine`` gets the env row only
(the engine figures are ``None``).

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

Also reported: the bytes of one game state (the engine's game and the pgx ``State`` with its
observation) at the game's default table size, and the process's peak resident memory.
"""

from __future__ import annotations

import functools
import math
import os
import time
from collections.abc import Callable

import jax
import jax.numpy as jnp

from .core.game import Game

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


def _table_sizes(batch: int, game: Game) -> jax.Array:
    """Table sizes of a batch: every size of ``game`` in turn (so each batch mixes them all)."""
    lo, hi = game.type.min_players, game.type.max_players
    return lo + jnp.arange(batch, dtype=jnp.int32) % (hi - lo + 1)


def engine_rollout(twin, game: Game, batch: int, steps: int = SCAN_STEPS) -> tuple[Callable, tuple]:
    """A jitted ``(games, key) -> (games, key, decisions)`` playing ``steps`` decisions per game on ``twin.engine``,
    and its first arguments."""
    engine = twin.engine
    sizes = _table_sizes(batch, game)
    init = jax.vmap(engine.init)
    over = jax.vmap(engine.terminated)

    def body(carry, _):
        games, key = carry
        key, k_step, k_reset = jax.random.split(key, 3)
        running = ~over(games)
        masks = jax.vmap(engine.legal_action_mask)(games)
        step_keys, uniforms = _draws(k_step, batch)
        actions = random_legal_actions(k_step, masks, uniforms)
        games = jax.vmap(engine.step)(games, actions, step_keys)
        games = _reset_finished(over(games), k_reset, sizes, games, init)
        return (games, key), jnp.sum(running)

    def rollout(games, key):
        (games, key), decisions = jax.lax.scan(body, (games, key), None, length=steps)
        return games, key, jnp.sum(decisions)

    games = init(jax.random.split(jax.random.PRNGKey(0), batch), sizes)
    return jax.jit(rollout), (games, jax.random.PRNGKey(1))


def env_rollout(twin, game: Game, batch: int, steps: int = SCAN_STEPS) -> tuple[Callable, tuple]:
    """As :func:`engine_rollout` through the twin's pgx ``step`` (with the acting player's observation)."""
    sizes = _table_sizes(batch, game)
    init = jax.vmap(twin.init)
    step = jax.vmap(twin.step)

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
    rollout, args = make(batch=batch)
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


def state_bytes(twin, game: Game) -> dict:
    """Bytes of one game at ``game``'s default table size: the engine's bare game (``None`` without ``twin.engine``)
    and the pgx ``State`` (observation, mask, rewards included)."""
    n = game.type.default_players
    engine = getattr(twin, "engine", None)

    def size(tree) -> int:
        return sum(leaf.nbytes for leaf in jax.tree_util.tree_leaves(tree))

    return {
        "game_bytes": None if engine is None else size(engine.init(jax.random.PRNGKey(0), n)),
        "state_bytes": size(twin.init(jax.random.PRNGKey(0), n)),
    }


def run_jax_benchmark(
    game: Game,
    batch_sizes: tuple[int, ...] = BATCH_SIZES,
    seconds: float = 1.0,
    repeats: int = 3,
    progress: Callable[[str], None] | None = None,
) -> dict:
    """Measure ``game``'s JAX twin (engine and env) at each batch size; a JSON-ready dict (see the module doc).

    Keys: ``game`` (its env id), ``meta`` (jax version, backend, devices, CPU count, load average before and
    after), ``batches`` (``{"4096": {"engine_decisions_per_s", "env_decisions_per_s", "compile_s", …}}``; the
    ``engine_*`` figures ``None`` for a twin without ``engine``), ``memory`` (``game_bytes``, ``state_bytes``).

    Raises:
        ValueError: for a batch size below 1.
        traitors_env.core.game.MissingCapabilityError: for a game without a JAX twin.
    """
    for batch in batch_sizes:
        if batch < 1:
            raise ValueError(f"batch size {batch!r}; expected at least 1")
    twin = game.require("jax")()
    has_engine = getattr(twin, "engine", None) is not None
    say = progress or (lambda message: None)
    load_before = os.getloadavg() if hasattr(os, "getloadavg") else None
    batches = {}
    none = {"decisions_per_s": None, "min": None, "max": None, "decisions_per_cpu_s": None, "compile_s": None,
            "compile_cpu_s": None}
    for batch in batch_sizes:
        say(f"jax {game.type.env_id} batch {batch}: engine")
        engine = _measure(functools.partial(engine_rollout, twin, game), batch, seconds, repeats) if has_engine else none
        say(f"jax {game.type.env_id} batch {batch}: env")
        env = _measure(functools.partial(env_rollout, twin, game), batch, seconds, repeats)
        batches[str(batch)] = {
            "engine_decisions_per_s": engine["decisions_per_s"],
            "engine_decisions_per_s_min": engine["min"],
            "engine_decisions_per_s_max": engine["max"],
            "env_decisions_per_s": env["decisions_per_s"],
            "env_decisions_per_s_min": env["min"],
            "env_decisions_per_s_max": env["max"],
            "engine_decisions_per_cpu_s": engine["decisions_per_cpu_s"],
            "env_decisions_per_cpu_s": env["decisions_per_cpu_s"],
            "compile_s": max(c for c in (engine["compile_s"], env["compile_s"]) if c is not None),
            "engine_compile_s": engine["compile_s"],
            "env_compile_s": env["compile_s"],
            "engine_compile_cpu_s": engine["compile_cpu_s"],
            "env_compile_cpu_s": env["compile_cpu_s"],
        }
    return {
        "game": game.type.env_id,
        "meta": {
            "jax": jax.__version__,
            "backend": jax.default_backend(),
            "devices": [str(d) for d in jax.devices()],
            "cpu_count": os.cpu_count(),
            "table_sizes": f"{game.type.min_players}–{game.type.max_players} mixed in every batch",
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
        "memory": state_bytes(twin, game),
    }


def jax_targets(result: dict, raw_env_rate: float | None) -> list[dict]:
    """The issue's targets decided by this run (batch 4096; the env against ``raw_env`` of the same game and run).
    Each target names its game (``game``, the env id) where ``result`` does."""
    figures = result["batches"].get(str(TARGET_BATCH))
    if figures is None:
        return []
    targets = [
        (f"JAX engine decisions/s at batch {TARGET_BATCH}", figures["engine_decisions_per_s"], TARGET_ENGINE_RATE, True),
        (f"JAX env decisions/s at batch {TARGET_BATCH}", figures["env_decisions_per_s"], TARGET_ENV_RATE, True),
        (f"JAX compile time at batch {TARGET_BATCH} (s, the slower loop)", figures["compile_s"], TARGET_COMPILE_S, False),
    ]
    if raw_env_rate:
        # Like for like: raw_env's figure is per second of process CPU time.
        ratio = figures["env_decisions_per_cpu_s"] / raw_env_rate
        name = f"JAX env at batch {TARGET_BATCH} / raw_env(), both per CPU second"
        targets.append((name, ratio, TARGET_ENV_VS_RAW, True))
    return [
        {
            "name": name,
            "game": result.get("game"),
            "measured": measured,
            "per_repetition": [measured],
            "required": f"{'>=' if at_least else '<='} {required:g}",
            "met": measured >= required if at_least else measured <= required,
        }
        for name, measured, required, at_least in targets
        if measured is not None  # a twin without an engine: no engine target
    ]


def _number(value: float | None, digits: int = 0) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def format_jax_report(result: dict, raw_env_rate: float | None) -> str:
    """The JAX figures of one game as a markdown table."""
    meta = result["meta"]
    load = meta["load_average_before"]
    game = f" ({result['game']})" if result.get("game") else ""
    sizes = meta.get("table_sizes", "every table size mixed in every batch")
    lines = [
        f"JAX engine{game}: jax {meta['jax']} on {meta['backend']} ({meta['cpu_count']} CPUs); table sizes {sizes}, "
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
            f"| {batch} | {_number(f['engine_decisions_per_s'])} ({_number(f['engine_decisions_per_s_min'])}–"
            f"{_number(f['engine_decisions_per_s_max'])}) | {_number(f['engine_decisions_per_cpu_s'])} | "
            f"{_number(f['env_decisions_per_s'])} ({_number(f['env_decisions_per_s_min'])}–"
            f"{_number(f['env_decisions_per_s_max'])}) | {_number(f['env_decisions_per_cpu_s'])} | {ratio} | "
            f"{_number(f['engine_compile_s'], 1)} / {_number(f['env_compile_s'], 1)} "
            f"({_number(f['engine_compile_cpu_s'], 1)} / {_number(f['env_compile_cpu_s'], 1)}) |"
        )
    memory = result["memory"]
    lines += [
        "",
        f"Memory per game state: {_number(memory['game_bytes'])} bytes (engine game), {_number(memory['state_bytes'])} "
        "bytes (pgx State with observation and mask).",
    ]
    return "\n".join(lines)
