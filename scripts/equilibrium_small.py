"""Exact NashConv over training time of the JAX backend's training methods on a small variant (issue 54, item 2).

    python scripts/equilibrium_small.py --config configs/mini3_jax.yaml --methods ppo league mmd rnad \
        --seeds 0 1 2 --out reports/equilibrium-mini3

Each method trains the variant from the same base config (``--config``: the game, the network, PPO's settings, the
decisions per generation) for the same learner decisions per side; after every generation (a league's iteration) the
exact NashConv of that generation's policies is computed on the variant's whole tree (``traitors_env.solve.exact``:
the tree walked once, each checkpoint read at every information state, the sides' exact team best responses).
Writes ``results.json`` (one row per method, seed and generation), ``results.md`` (the last generation's NashConv
per method: mean and range over the seeds, beside CFR+'s with ``--cfr``) and ``nashconv.png``.

The methods (``METHODS``; ``--set method.section.key=value`` changes one setting, e.g. ``--set mmd.ppo.regularizer.alpha=0.1``):

- ``ppo``: plain self-play PPO: each side trains against the other side's newest policy (5 % random bot);
- ``league``: PPO in the league (``league:``; the fixed members random and heuristic; ``latest`` 0.25);
- ``mmd``: ``ppo`` with magnetic mirror descent's magnet term (``ppo.regularizer.kind: mmd``);
- ``rnad``: ``ppo`` with R-NaD's reward transform (``ppo.regularizer.kind: rnad``).

A league's generation is evaluated by its newest policies (a Nash mixture over a population plays one member per
game: it has no probabilities per information state to read).
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path

import yaml

#: self-play: the other side's newest policy; 5 % random (the first side's first generation meets nothing else)
SELF_PLAY = {"latest": 0.95, "past": 0.0, "heuristic": 0.0, "random": 0.05}
#: each method's changes to the base config (section → settings)
METHODS: dict[str, dict] = {
    "ppo": {"opponents": SELF_PLAY},
    "league": {"league": {"fixed": ["random", "heuristic"], "latest": 0.25, "games": 400}},
    "mmd": {"opponents": SELF_PLAY,
            "ppo": {"regularizer": {"kind": "mmd", "alpha": 0.05, "magnet": "lagged", "update_every": 4}}},
    "rnad": {"opponents": SELF_PLAY,
             "ppo": {"regularizer": {"kind": "rnad", "alpha": 0.2, "magnet": "lagged", "update_every": 4}}},
}


def _merge(base: dict, changes: dict) -> dict:
    out = copy.deepcopy(base)
    for key, value in changes.items():
        out[key] = _merge(out.get(key) or {}, value) if isinstance(value, dict) and key != "opponents" else value
    return out


def _setting(text: str) -> tuple[str, list[str], object]:
    """``method.section.key=value`` → (method, [section, key], value read as YAML)."""
    path, sep, value = text.partition("=")
    parts = path.split(".")
    if not sep or len(parts) < 3 or parts[0] not in METHODS:
        raise SystemExit(f"--set {text!r}: expected METHOD.SECTION.KEY=VALUE with METHOD one of {sorted(METHODS)}")
    return parts[0], parts[1:], yaml.safe_load(value)


def method_config(base: dict, method: str, seed: int, out: Path, generations: int, settings=()) -> dict:
    """The run config of ``method`` with ``seed``: the base config, the method's changes and ``settings``.

    Raises:
        ValueError: a setting's path runs through a value that is not a section (naming the setting)."""
    data = _merge(base, METHODS[method])
    for name, keys, value in settings:
        if name == method:
            node = data
            for key in keys[:-1]:
                node = node.setdefault(key, {})
                if not isinstance(node, dict):
                    raise ValueError(f"--set {name}.{'.'.join(keys)}: {key} is not a section of the config")
            node[keys[-1]] = value
    data.update(name=f"{method}_s{seed}", seed=seed, output_dir=str(out / "runs"))
    data["training"] = {**data["training"], "generations": generations, "progress_bar": False}
    if "league" in data:
        data["league"]["iterations"] = generations
        data.pop("opponents", None)
        data["training"].pop("generations")
    data["evaluation"] = {**data.get("evaluation", {}), "games_per_generation": 0, "games": 1}
    return data


def evaluate_generations(run_path: Path, game: str, tree, sides) -> list[dict]:
    """The exact NashConv of each generation's policies of the run at ``run_path``."""
    from traitors_env.agents.spec import agent_maker
    from traitors_env.solve import exact

    rows = []
    for folder in sorted((run_path / "checkpoints").glob("gen_*")):
        _, make = agent_maker(str(folder), game=game)
        policy, _ = exact.agent_policy(tree, make, samples=1)
        result = exact.evaluate(tree, policy, sides=sides)
        state = json.loads((run_path / "state.json").read_text())
        generation = int(folder.name.split("_")[1])
        record = state["history"][generation - 1]
        conv = result["nash_conv_sides"]
        rows.append({
            "generation": generation,
            "learner_decisions": {side: record["teams"][side]["total_timesteps"] for side in sides},
            "nash_conv": conv["points_lower"], "nash_conv_upper": conv["points_upper"], "exact": conv["exact"],
            "nash_conv_seats": result["nash_conv_seats"],
            "win_rate": {side: result["sides"][side]["win_rate"] for side in sides},
            "team_best_response": {side: result["sides"][side]["win_rate_lower"] for side in sides},
        })
    return rows


def summary(rows: list[dict], cfr: dict | None) -> str:
    import numpy as np

    lines = ["| method | seeds | learner decisions per side | NashConv, last generation: mean [min, max] (points) | "
             "best generation's mean |", "|---|---|---|---|---|"]
    for method in dict.fromkeys(r["method"] for r in rows):
        mine = [r for r in rows if r["method"] == method]
        last = max(r["generation"] for r in mine)
        final = [r["nash_conv"] for r in mine if r["generation"] == last]
        decisions = next(r for r in mine if r["generation"] == last)["learner_decisions"]
        by_gen = {g: np.mean([r["nash_conv"] for r in mine if r["generation"] == g]) for g in {r["generation"] for r in mine}}
        lines.append(f"| {method} | {len(final)} | {', '.join(f'{k} {v:,}' for k, v in decisions.items())} | "
                     f"{np.mean(final):.2f} [{min(final):.2f}, {max(final):.2f}] | "
                     f"{min(by_gen.values()):.2f} (generation {min(by_gen, key=by_gen.get)}) |")
    if cfr:
        lines.append(f"| CFR+ ({cfr['iterations']} iterations) | – | – | {cfr['nash_conv']:.2f} | – |")
    return "\n".join(lines) + "\n"


def plot(rows: list[dict], cfr: dict | None, path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for method in dict.fromkeys(r["method"] for r in rows):
        mine = [r for r in rows if r["method"] == method]
        gens = sorted({r["generation"] for r in mine})
        x = [np.mean([sum(r["learner_decisions"].values()) / 2 for r in mine if r["generation"] == g]) for g in gens]
        values = [[r["nash_conv"] for r in mine if r["generation"] == g] for g in gens]
        line, = ax.plot(x, [np.mean(v) for v in values], marker="o", label=method)
        ax.fill_between(x, [min(v) for v in values], [max(v) for v in values], alpha=0.2, color=line.get_color())
    if cfr:
        ax.axhline(cfr["nash_conv"], color="black", linestyle="--", label=f"CFR+ ({cfr['nash_conv']:.2f})")
    ax.set_xlabel("learner decisions per side")
    ax.set_ylabel("exact NashConv (points)")
    ax.set_ylim(bottom=0)
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", required=True,
                        help="the base config (a path or a shipped name): backend jax, env.name a small variant")
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--generations", type=int, default=8, help="checkpoints per run (default 8)")
    parser.add_argument("--set", action="append", default=[], metavar="METHOD.SECTION.KEY=VALUE")
    parser.add_argument("--cfr", type=int, default=400, help="CFR+ iterations for the reference line (0: none)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.generations < 1 or not args.seeds:
        parser.error("--generations ≥ 1 and at least one seed")
    if args.cfr < 0:
        parser.error(f"--cfr {args.cfr}: expected iterations ≥ 0")
    settings = [_setting(text) for text in args.set]
    unused = sorted({name for name, _, _ in settings} - set(args.methods))
    if unused:
        parser.error(f"--set changes {unused}, not among --methods {args.methods}")

    from training.config import ConfigError, config_from_dict
    from training.config_files import UnknownConfigError, resolve_config
    from training.train import train
    from traitors_env.core import load_game
    from traitors_env.solve import exact, small_variants

    try:
        base = yaml.safe_load(resolve_config(args.config).read_text())
    except (UnknownConfigError, OSError, yaml.YAMLError) as error:
        parser.error(f"--config {args.config}: {error}")
    game_name = (base.get("env") or {}).get("name", "") if isinstance(base, dict) else ""
    game, _, variant = str(game_name).partition(":")
    declared = small_variants(load_game(game)) if variant else {}
    if variant not in declared or base.get("backend") != "jax":
        parser.error(f"--config {args.config}: expected backend: jax and env.name a small variant (<game>:<variant>, "
                     f"e.g. traitors_aboard:mini3); it has backend {base.get('backend')!r}, env.name {game_name!r}")
    registered = load_game(game)
    configs = {}
    for method in args.methods:  # every run's config checked before any work
        for seed in args.seeds:
            try:
                configs[method, seed] = config_from_dict(method_config(base, method, seed, args.out, args.generations,
                                                                       settings))
            except (ConfigError, ValueError) as error:
                parser.error(f"method {method}: {error}")
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    tree = exact.build_tree(declared[variant])
    sides = tuple(registered.type.sides)
    print(f"tree of {game_name}: {tree.size} ({tree.seconds:.1f} s)", flush=True)
    cfr = None
    if args.cfr:
        from traitors_env.solve.cfr import cfr_plus

        policy, _ = cfr_plus(tree, args.cfr)
        result = exact.evaluate(tree, policy, sides=sides)
        cfr = {"iterations": args.cfr, "nash_conv": result["nash_conv_sides"]["points_lower"]}
        print(f"CFR+ {args.cfr}: NashConv {cfr['nash_conv']:.2f}", flush=True)
    rows: list[dict] = []
    for method in args.methods:
        for seed in args.seeds:
            t0 = time.perf_counter()
            run = train(configs[method, seed], force=True)
            seconds = time.perf_counter() - t0
            for row in evaluate_generations(run.path, game_name, tree, sides):
                rows.append({"method": method, "seed": seed, "train_seconds": round(seconds, 1), **row})
                print(f"{method} seed {seed} gen {row['generation']}: NashConv {row['nash_conv']:.2f}", flush=True)
            (args.out / "results.json").write_text(json.dumps({"config": args.config, "settings": args.set,
                                                               "methods": {m: METHODS[m] for m in args.methods},
                                                               "cfr": cfr, "rows": rows}, indent=1))
    (args.out / "results.md").write_text(summary(rows, cfr))
    plot(rows, cfr, args.out / "nashconv.png", f"{game_name}: exact NashConv over training")
    print(summary(rows, cfr))
    print(f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
