"""CPU time per decision of the JAX heuristic bot (``jax.vmap(heuristic_act)``), a measuring script, not a test.

Collects observations and masks of real positions (JAX games, table sizes 3–8, random legal actions),
then times a jitted ``vmap(heuristic_act)`` over batches of them after compilation: CPU µs (process
time, all threads) and wall µs per decision, best of several repeats. ``--hlo PATH`` writes the
optimized HLO and prints its op counts (fusions, sorts, gathers …).

    nice -n 19 python docs/notes/lab/time_jax_heuristic.py [--batch 1024] [--repeats 7] [--hlo /tmp/h.txt]
"""

from __future__ import annotations

import argparse
import collections
import importlib
import re
import time

import jax
import jax.numpy as jnp
import numpy as np

from traitors_env.games.traitors_aboard import jax as tj
from traitors_env.games.traitors_aboard.jax import heuristic as jh


def positions(games: int, steps: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Observations (float32) and masks of every running game at every step of ``steps`` random moves."""

    def play(key):
        state = jax.vmap(tj.init)(jax.random.split(key, games), jnp.arange(games) % 6 + 3)

        def decide(state, key):
            k_act, k_step = jax.random.split(key)
            action = jax.random.categorical(k_act, jnp.where(state.legal_action_mask, 0.0, -jnp.inf))
            seen = (state.observation, state.legal_action_mask, ~state.terminated)
            return jax.vmap(tj.step)(state, action, jax.random.split(k_step, games)), seen

        return jax.lax.scan(decide, state, jax.random.split(key, steps))[1]

    observation, mask, running = jax.device_get(jax.jit(play)(jax.random.PRNGKey(seed)))
    keep = running.reshape(-1)
    return observation.reshape(-1, observation.shape[-1])[keep], mask.reshape(-1, mask.shape[-1])[keep]


def hlo_counts(text: str) -> collections.Counter:
    """Op counts of an optimized HLO module's entry and fused computations."""
    ops = collections.Counter()
    for line in text.splitlines():
        match = re.match(r"\s*(?:ROOT )?%?[\w.\-]+ = [^ ]+ ([a-z\-]+)\(", line)
        if match:
            ops[match.group(1)] += 1
    return ops


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--calls", type=int, default=10, help="calls per repeat")
    parser.add_argument("--hlo", help="write the optimized HLO here and print op counts")
    parser.add_argument(
        "--module",
        action="append",
        help="time heuristic_act of this module instead (repeatable: the modules take turns, for A/B runs under load)",
    )
    args = parser.parse_args()

    observation, mask = positions(games=256, steps=40)
    rng = np.random.default_rng(0)
    batches = []
    for _ in range(4):
        rows = rng.choice(len(observation), args.batch, replace=len(observation) < args.batch)
        batches.append((jnp.asarray(observation[rows]), jnp.asarray(mask[rows])))
    print(f"{len(observation)} positions collected; batch {args.batch}")

    memory = jh.init_memory(args.batch)
    keys = jax.random.split(jax.random.key(0), args.batch)
    names = args.module or [jh.__name__]
    compiled = {}
    for name in names:
        module = importlib.import_module(name)
        act = jax.jit(jax.vmap(lambda o, m, memory, k, module=module: module.heuristic_act(o, m, module.Memory(*memory), k)))
        wall, cpu = time.perf_counter(), time.process_time()
        compiled[name] = act.lower(batches[0][0], batches[0][1], memory, keys).compile()
        print(f"{name}: compile {time.perf_counter() - wall:.1f} s wall, {time.process_time() - cpu:.1f} s CPU")
        if args.hlo:
            text = compiled[name].as_text()
            with open(args.hlo if len(names) == 1 else f"{args.hlo}.{name}", "w", encoding="utf-8") as handle:
                handle.write(text)
            counts = hlo_counts(text)
            print("HLO ops:", ", ".join(f"{k} {v}" for k, v in counts.most_common(25)))
        jax.block_until_ready(compiled[name](*batches[0], memory, keys))
    best = {name: [float("inf"), float("inf")] for name in names}
    for _ in range(args.repeats):
        for name in names:
            wall, cpu = time.perf_counter(), time.process_time()
            for i in range(args.calls):
                observation_b, mask_b = batches[i % len(batches)]
                out = compiled[name](observation_b, mask_b, memory, keys)
            jax.block_until_ready(out)
            decisions = args.calls * args.batch
            best[name][0] = min(best[name][0], (time.process_time() - cpu) / decisions * 1e6)
            best[name][1] = min(best[name][1], (time.perf_counter() - wall) / decisions * 1e6)
    for name, (cpu_us, wall_us) in best.items():
        print(f"{name}: {cpu_us:.2f} µs CPU per decision, {wall_us:.2f} µs wall (best of {args.repeats})")


if __name__ == "__main__":
    main()
