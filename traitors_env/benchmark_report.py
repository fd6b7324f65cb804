"""What ``traitors-bench``'s figures say (:mod:`traitors_env.benchmark`): the ratios to leduc and to the same game's
``raw_env()``, the targets (each decided on the medians and shown per repetition), and the markdown report.

Targets, per game at 5 players, claims on: ``env()`` ≥ 1.5 × leduc ``env()``; ``raw_env()`` ≥ 4 × leduc ``env()``;
``env()`` ≥ 0.6 × ``raw_env()``; engine ≥ 100,000 decisions/s (also in leduc units); no slowdown of more than 2×
from the game's smallest to its largest table. Reported, never enforced.
"""

from __future__ import annotations

from .benchmark_loops import APIS, LEDUC, LEDUC_APIS
from .core.game import Game

TARGET_PLAYERS = 5
TARGET_ENV_RATIO = 1.5
TARGET_RAW_RATIO = 4.0
#: env() against the same game's raw_env() (issue 26: PettingZoo's wrappers in one cheap layer).
TARGET_ENV_VS_RAW = 0.6
TARGET_ENGINE_RATE = 100_000.0
#: leduc_holdem_v4 env() decisions/s on the machine the issue's targets were set on: the engine target
#: in leduc units is TARGET_ENGINE_RATE / ISSUE_LEDUC_ENV_RATE ≈ 9.1 × leduc env(), a figure any machine can check.
ISSUE_LEDUC_ENV_RATE = 11_000.0
TARGET_MAX_SLOWDOWN = 2.0


def ratios_of(table: dict, leduc: dict | None) -> dict:
    """Per table size: every loop over leduc's ``env()`` and ``raw_env()`` (when leduc ran), and ``env()`` over
    ``raw_env()``."""
    out = {}
    for n, apis in table.items():
        entry = {}
        if leduc:
            for api in APIS:
                for ref in LEDUC_APIS:
                    entry[f"{api}_vs_leduc_{ref}"] = apis[api]["decisions_per_s"] / leduc[ref]["decisions_per_s"]
        entry["env_vs_raw_env"] = apis["env"]["decisions_per_s"] / apis["raw_env"]["decisions_per_s"]
        out[n] = entry
    return out


def _rates(figures: dict) -> list[float]:
    return [run["decisions_per_s"] for run in figures["runs"]]


def _target(name: str, measured: float, per_repetition: list[float], required: float, at_least: bool) -> dict:
    return {
        "name": name,
        "measured": measured,
        # The same figure within each repetition (its loops ran interleaved, so a slow spell cancels).
        "per_repetition": per_repetition,
        "required": f"{'>=' if at_least else '<='} {required:g}",
        "met": measured >= required if at_least else measured <= required,
    }


def _ratio_target(name: str, figures: dict, reference: dict, required: float, at_least: bool = True) -> dict:
    """A target on ``figures`` / ``reference`` (decisions/s): the ratio of the medians, and per repetition."""
    measured = figures["decisions_per_s"] / reference["decisions_per_s"]
    paired = [a / b for a, b in zip(_rates(figures), _rates(reference))]
    return _target(name, measured, paired, required, at_least)


def targets_of(game: Game, table: dict, leduc: dict | None) -> list[dict]:
    """The issue's targets that this run's figures of ``game`` can decide: the medians' figure, and per repetition
    (none for a game that declares ``extras["speed_targets"] = False``: its engine is another library's)."""
    targets = []
    if not game.extras.get("speed_targets", True):
        return targets
    key = str(TARGET_PLAYERS)
    if key in table:
        at = table[key]
        if leduc:
            for api, factor in (("env", TARGET_ENV_RATIO), ("raw_env", TARGET_RAW_RATIO)):
                name = f"{api}() at {TARGET_PLAYERS} players / {LEDUC} env()"
                targets.append(_ratio_target(name, at[api], leduc["env"], factor))
        name = f"engine decisions/s at {TARGET_PLAYERS} players"
        engine = at["engine"]
        targets.append(_target(name, engine["decisions_per_s"], _rates(engine), TARGET_ENGINE_RATE, True))
        if leduc:  # the same target measured against this machine's speed instead of the issue's machine's
            name = f"engine at {TARGET_PLAYERS} players / {LEDUC} env() (the engine target in leduc units)"
            required = round(TARGET_ENGINE_RATE / ISSUE_LEDUC_ENV_RATE, 1)
            targets.append(_ratio_target(name, engine, leduc["env"], required))
        name = f"env() at {TARGET_PLAYERS} players / raw_env()"
        targets.append(_ratio_target(name, at["env"], at["raw_env"], TARGET_ENV_VS_RAW))
    lo, hi = str(game.type.min_players), str(game.type.max_players)
    if lo in table and hi in table and lo != hi:
        for api in APIS:
            name = f"{api} slowdown from {lo} to {hi} players"
            targets.append(_ratio_target(name, table[lo][api], table[hi][api], TARGET_MAX_SLOWDOWN, at_least=False))
    return [{"name": t["name"], "game": game.type.env_id, **t} for t in targets]


def format_report(result: dict) -> str:
    """The figures of :func:`run_benchmark` as markdown tables: one row per game, table size and loop."""
    meta = result["meta"]
    budget = (
        f"{meta['games_per_repeat']} games"
        if meta["games_per_repeat"] is not None
        else f"{meta['seconds_per_repeat']:g} s in {meta['slices']} interleaved parts"
    )
    encoders = ", ".join(f"{game} {encoder}" for game, encoder in meta["observation_encoders"].items())
    load = meta.get("load_average")
    lines = [
        f"Random legal games, claims on; median of {meta['repeats']} repetitions of {budget} each; seed {meta['seed']}; "
        f"timed by {'process CPU time' if meta['clock'] == 'cpu' else 'wall-clock time'}.",
        f"Python {meta['python']}, numpy {meta['numpy']}, pettingzoo {meta['pettingzoo']}, rlcard {meta['rlcard']}; "
        f"{meta['machine']}, {meta['cpu_count']} CPUs"
        + (
            ""
            if load is None
            else f", load average {' '.join(f'{x:.2f}' for x in load)} at the start, "
            f"{' '.join(f'{x:.2f}' for x in meta['load_average_after'])} at the end"
        )
        + f"; observation encoder: {encoders}.",
        "",
        "| game | players | API | decisions/s (median) | min–max | × raw_env() | × leduc env() | × leduc raw_env() "
        "| mean episode length | peak memory (KiB) |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def row(game: str, players: int, api: str, figures: dict, ratios: dict | None, raw_env: dict | None) -> str:
        def ratio(ref: str) -> str:
            key = f"{api}_vs_leduc_{ref}"
            return f"{ratios[key]:.2f}" if ratios and key in ratios else "–"

        own = f"{figures['decisions_per_s'] / raw_env['decisions_per_s']:.2f}" if raw_env else "–"
        peak = figures["peak_memory_kib"]
        return (
            f"| {game} | {players} | {api} | {figures['decisions_per_s']:,.0f} | "
            f"{figures['decisions_per_s_min']:,.0f}–{figures['decisions_per_s_max']:,.0f} | {own} | {ratio('env')} | "
            f"{ratio('raw_env')} | {figures['mean_episode_length']:.1f} | {'–' if peak is None else f'{peak:,.0f}'} |"
        )

    for game in meta["games"]:
        for n, apis in result[game].items():
            for api, figures in apis.items():
                lines.append(row(game, int(n), api, figures, result["ratios"][game].get(n), apis["raw_env"]))
    leduc = result[LEDUC]
    if leduc:
        for api, figures in leduc.items():
            lines.append(row(LEDUC, 2, api, figures, None, None))
    lines.append("")
    rss = meta["max_rss_kib"]
    lines.append(
        f"Peak memory: {meta['memory_method']} ({meta['memory_games']} games); "
        f"process ru_maxrss: {'not reported' if rss is None else f'{rss:,.0f} KiB'}."
    )
    for game, reason in meta["skipped_games"].items():
        lines.append(f"{game} skipped: {reason}.")
    if result["leduc_skipped"]:
        lines.append(f"{LEDUC} skipped: {result['leduc_skipped']}")
    if result["targets"]:
        lines += [
            "",
            "| game | target | measured (medians) | per repetition (min–max) | required | met |",
            "|---|---|---:|---:|---:|---|",
        ]

        def number(value: float) -> str:
            return f"{value:,.0f}" if value >= 1000 else f"{value:.2f}"

        for target in result["targets"]:
            spread = target["per_repetition"]
            lines.append(
                f"| {target.get('game') or '–'} | {target['name']} | {number(target['measured'])} | "
                f"{number(min(spread))}–{number(max(spread))} | {target['required']} | {'yes' if target['met'] else 'NO'} |"
            )
    return "\n".join(lines)
