"""Speed benchmark: random legal games of every registered game through ``env()``, ``raw_env()`` and its engine.

``traitors-bench`` (or ``python -m traitors_env.benchmark``) plays random legal games with claims on, for every
game of the registry (:func:`traitors_env.core.registry.registered_games`; ``--game NAME`` limits it), and prints
per game and table size (default: the game's smallest, 5 and its largest):

* **decisions per second** (median over ``--repeats`` repetitions) of

  - ``env()``: the standard AEC loop ``for agent in env.agent_iter(): obs, … = env.last();
    env.step(action)``, so the acting agent's full observation and action mask are built
    at every decision, with PettingZoo's classic wrappers;
  - ``raw_env()``: the same loop without the wrappers;
  - the **engine** alone: ``game.new_initial_state``, the state's ``legal_actions()`` and
    ``apply_action()``, no observation;

* the **mean episode length** (decisions per game);
* the **peak memory** of each loop: the ``tracemalloc`` peak (Python objects and numpy
  buffers) while building the environment and playing ``--memory-games`` games, measured
  in a separate pass that is not timed (tracing slows everything down). The process's
  ``ru_maxrss`` is given as well.

In the same run it measures PettingZoo's ``leduc_holdem_v4`` ``env()`` and ``raw_env()`` with
the very same loop and the same random-choice code, and gives every game's figures as ratios to
``leduc_holdem_v4`` ``env()`` and ``raw_env()`` (leduc needs the optional extra ``bench``: rlcard, pygame;
without it leduc is skipped and said so), and ``env()`` as a ratio to the same game's ``raw_env()``.

A *decision* is a ``step`` with an action (not ``None``); the ``None`` steps of agents that are
done after the game ends are part of the loop's cost but are not counted. Every episode is
timed from ``reset()`` to the end of its last ``step``. A repetition gives every loop its
``--seconds`` in ``--slices`` parts (default 5 of 0.2 s), played round-robin over all loops of all games,
the order reversed every other round, so that a slow spell of a shared machine falls on every loop
alike. Each part builds a fresh environment (not timed, nor is its first ``reset(seed=…)``; for
leduc that rebuilds the rlcard env). Seeds are fixed: part ``j`` of repetition ``r`` resets with
``seed + r·slices + j`` and chooses actions with ``random.Random`` of the same seed, so the
``env()``, ``raw_env()`` and engine loops of a game play the very same games.

Time is the process's CPU time by default (``--clock cpu``): on an idle machine it equals
wall-clock time for this single-threaded loop, and on a shared one it is far less disturbed
by other processes; ``--clock wall`` uses ``time.perf_counter``.

The header names each game's observation encoder where the game declares it
(``game.extras["observation_encoder"]``: ``compiled``, or ``pure Python``, the slower fallback).

Targets, per game at 5 players, claims on (issue 4, and issue 26 for ``env()`` against ``raw_env()``):
``env()`` ≥ 1.5 × leduc ``env()``; ``raw_env()`` ≥ 4 × leduc ``env()``; ``env()`` ≥ 0.6 × ``raw_env()``;
engine ≥ 100,000 decisions/s; no slowdown of more than 2× from the game's smallest to its largest table.
The engine target is an absolute rate, set on a machine where leduc ``env()`` ran at about 11,000
decisions/s; the table also gives it in leduc units (100,000 / 11,000 ≈ 9.1 × leduc ``env()``),
which reads the same on a slower or faster machine.
They are reported, never enforced: the exit status is 0 whether they are met or not.

``--json PATH`` writes the same figures machine-readably (see :func:`run_benchmark`); ``--jax`` adds the
batched JAX twin of every game that has one (:mod:`traitors_env.benchmark_jax`).

This module chooses the games and tables, runs the measurement and holds the command line; the loops it times are in
:mod:`traitors_env.benchmark_loops`, the ratios, targets and report in :mod:`traitors_env.benchmark_report`.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from collections.abc import Callable, Iterable, Mapping

import numpy as np

from .benchmark_loops import (
    APIS,
    CLOCKS,
    LEDUC,
    LEDUC_APIS,
    MEMORY_METHOD,
    Budget,
    Run,
    Section,
    load_leduc,
    peak_kib,
    play_aec,
    play_engine,
    random_legal_action,
    runner_for,
)
from .benchmark_report import (
    ISSUE_LEDUC_ENV_RATE,
    TARGET_ENGINE_RATE,
    TARGET_ENV_RATIO,
    TARGET_ENV_VS_RAW,
    TARGET_MAX_SLOWDOWN,
    TARGET_PLAYERS,
    TARGET_RAW_RATIO,
    format_report,
    ratios_of,
    targets_of,
)
from .core.game import Game
from .core.registry import GameLoadError, load_game, registered_games
from .files import atomic_write_text, output_problem

__all__ = [
    "APIS", "CLOCKS", "ISSUE_LEDUC_ENV_RATE", "LEDUC", "LEDUC_APIS", "MEMORY_METHOD", "TARGET_ENGINE_RATE",
    "TARGET_ENV_RATIO", "TARGET_ENV_VS_RAW", "TARGET_MAX_SLOWDOWN", "TARGET_PLAYERS", "TARGET_RAW_RATIO", "Budget",
    "Run", "Section", "default_players", "format_report", "load_leduc", "main", "plan_tables", "play_aec",
    "play_engine", "random_legal_action", "run_benchmark", "select_games",
]

# ------------------------------------------------------------------ which games, which tables
def default_players(game: Game) -> tuple[int, ...]:
    """The table sizes measured when none are given: the game's smallest, 5 (where it has it) and its largest."""
    lo, hi = game.type.min_players, game.type.max_players
    return tuple(sorted({lo, hi} | ({TARGET_PLAYERS} if lo <= TARGET_PLAYERS <= hi else set())))


def select_games(names: Iterable[str | Game] | None = None) -> list[Game]:
    """The games to measure: ``names`` (registry names or env ids) in order, once each; every registered game
    when ``None``.

    Raises:
        traitors_env.core.registry.UnknownGameError: naming an unknown game and the registered ones.
        traitors_env.core.registry.GameLoadError: for a game named in ``names`` that cannot be loaded (with
            ``names=None`` such a game is left out, with a line on stderr).
    """
    games: dict[str, Game] = {}
    for name in registered_games() if names is None else names:
        try:
            game = load_game(name)
        except GameLoadError as error:  # a broken plug-in does not stop the others' measurement; named, it does
            if names is not None:
                raise
            print(f"traitors-bench: left out: {error}", file=sys.stderr)
            continue
        games.setdefault(game.type.short_name, game)
    return list(games.values())


def plan_tables(
    games: list[Game], players: Iterable[int] | None = None, game_players: Mapping[str, Iterable[int]] | None = None
) -> tuple[dict[str, tuple[int, ...]], dict[str, str]]:
    """The table sizes per game (by env id) and the games left out for want of one (env id → reason).

    ``game_players[name]`` (a registry name or env id) gives a game its own sizes; else ``players`` the sizes each
    game has among them; else :func:`default_players`.

    Raises:
        ValueError: for a size in ``players`` that no game of ``games`` has, or a size of ``game_players`` outside
            its game's range.
    """
    own = {load_game(name).type.env_id: tuple(dict.fromkeys(sizes)) for name, sizes in (game_players or {}).items()}
    shared = None if players is None else tuple(dict.fromkeys(players))
    if shared is not None:
        for n in shared:
            if not any(g.type.min_players <= n <= g.type.max_players for g in games):
                ranges = ", ".join(f"{g.type.env_id} {g.type.min_players}–{g.type.max_players}" for g in games)
                raise ValueError(f"players={n!r}; no game measured has a table of {n} players ({ranges})")
    tables, skipped = {}, {}
    for game in games:
        env_id, lo, hi = game.type.env_id, game.type.min_players, game.type.max_players
        if env_id in own:
            sizes = tuple(game.check_players(n) for n in own[env_id])
        elif shared is not None:
            sizes = tuple(n for n in shared if lo <= n <= hi)
        else:
            sizes = default_players(game)
        if sizes:
            tables[env_id] = sizes
        else:
            skipped[env_id] = f"none of the table sizes {list(shared or ())} ({env_id} is played by {lo}–{hi})"
    return tables, skipped


# ------------------------------------------------------------------ the benchmark
def run_benchmark(
    players: Iterable[int] | None = None,
    budget: Budget | None = None,
    repeats: int = 5,
    seed: int = 0,
    slices: int = 5,
    warmup_games: int = 10,
    memory_games: int = 20,
    leduc: bool = True,
    progress: Callable[[str], None] | None = None,
    games: Iterable[str | Game] | None = None,
    game_players: Mapping[str, Iterable[int]] | None = None,
) -> dict:
    """Measure every loop of every game in ``games`` (default: every registered game) and return the figures as a
    JSON-ready dict. ``players`` and ``game_players``: the table sizes, as :func:`plan_tables` says.

    Keys:

    * ``meta``: versions, settings, ``load_average`` and ``load_average_after`` (1, 5, 15 minutes), ``games`` (the env ids measured, in order), ``players`` (env id → sizes),
      ``skipped_games`` (env id → why), ``observation_encoders`` (env id → what the game declares),
      ``observation_encoder`` (the first game's), ``memory_method``, ``max_rss_kib``;
    * one key per game measured, its env id (``"<name>_v0"``): ``{"3": {"env": …, "raw_env": …,
      "engine": …}, …}``, each with ``decisions_per_s`` (median), ``decisions_per_s_min``/``_max``,
      ``mean_episode_length``, ``peak_memory_kib`` and the ``runs``;
    * ``traitors``: the first game's figures again (the key readers of this JSON used before issue 26);
    * ``leduc_holdem_v4`` (``{"env": …, "raw_env": …}`` or ``None``) and ``leduc_skipped`` (``None`` or the reason);
    * ``ratios``: per game (env id) and table size, ``{api}_vs_leduc_{env|raw_env}`` (median decisions/s over
      leduc's, when leduc ran) and ``env_vs_raw_env``; the first game's per-size entries also directly under
      ``ratios`` (``ratios["5"]``, as before issue 26);
    * ``targets``: the issue's targets, each with ``name``, ``game`` (env id), ``measured``,
      ``per_repetition``, ``required`` and ``met``.

    Each repetition gives every loop ``budget`` of play in ``slices`` interleaved parts (one part
    when the budget is a number of games); part ``j`` of repetition ``r`` plays from seed
    ``seed + r·slices + j``, the same for every loop.

    Raises:
        ValueError: for a table size no game measured has (:func:`plan_tables`), no game left to measure, or
            ``repeats`` or ``slices`` below 1.
        traitors_env.core.registry.UnknownGameError: for an unknown game.
    """
    budget = budget or Budget()
    chosen = select_games(games)
    tables, skipped_games = plan_tables(chosen, players, game_players)
    if not tables:
        raise ValueError(f"no game left to measure: {skipped_games or 'no game given'}")
    if repeats < 1:
        raise ValueError(f"repeats={repeats!r}; expected at least 1")
    if slices < 1:
        raise ValueError(f"slices={slices!r}; expected at least 1")
    say = progress or (lambda message: None)
    load_before = _load_average()
    by_id = {game.type.env_id: game for game in chosen if game.type.env_id in tables}

    leduc_module = load_leduc() if leduc else "leduc disabled (--no-leduc)"
    skipped = leduc_module if isinstance(leduc_module, str) else None
    sections = [Section(env_id, n, api) for env_id, sizes in tables.items() for n in sizes for api in APIS]
    if skipped is None:
        sections += [Section(LEDUC, 2, api) for api in LEDUC_APIS]
    runners = [runner_for(s, by_id.get(s.game), leduc_module) for s in sections]

    _measure(sections, runners, budget, repeats, seed, slices, warmup_games, memory_games, say)

    figures = {
        env_id: {str(n): {s.api: s.as_dict() for s in sections if s.game == env_id and s.players == n} for n in sizes}
        for env_id, sizes in tables.items()
    }
    leduc_figures = {s.api: s.as_dict() for s in sections if s.game == LEDUC} or None
    ratios: dict = {env_id: ratios_of(table, leduc_figures) for env_id, table in figures.items()}
    first = next(iter(figures))
    ratios.update(ratios[first])  # the first game's per-size ratios where they were before issue 26
    targets = [t for env_id, table in figures.items() for t in targets_of(by_id[env_id], table, leduc_figures)]
    encoders = {env_id: str(game.extras.get("observation_encoder", "not declared")) for env_id, game in by_id.items()}
    return {
        "meta": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "pettingzoo": _version("pettingzoo"),
            "rlcard": _version("rlcard"),
            "machine": platform.platform(),
            "cpu_count": os.cpu_count(),
            "load_average": load_before,  # at the start; other processes slow every loop
            "load_average_after": _load_average(),
            "games": list(figures),
            "players": {env_id: list(sizes) for env_id, sizes in tables.items()},
            "skipped_games": skipped_games,
            "observation_encoder": encoders[first],
            "observation_encoders": encoders,
            "claims": True,
            "seed": seed,
            "repeats": repeats,
            "slices": slices if budget.games is None else 1,
            "clock": budget.clock,
            "seconds_per_repeat": None if budget.games is not None else budget.seconds,
            "games_per_repeat": budget.games,
            "warmup_games": warmup_games,
            "memory_games": memory_games,
            "memory_method": MEMORY_METHOD,
            "max_rss_kib": _max_rss_kib(),
        },
        "traitors": figures[first],
        **figures,
        LEDUC: leduc_figures,
        "leduc_skipped": skipped,
        "ratios": ratios,
        "targets": targets,
    }


def _measure(sections: list[Section], runners: list, budget: Budget, repeats: int, seed: int, slices: int,
             warmup_games: int, memory_games: int, say: Callable[[str], None]) -> None:
    """Play every section's loop: the warm-up, then ``repeats`` repetitions into ``section.runs``, then the memory
    pass into ``section.peak_kib`` (see :func:`run_benchmark`)."""
    for section, runner in zip(sections, runners):  # fill caches, import lazily-loaded code
        say(f"warm-up {section.game} {section.players}p {section.api}")
        runner(seed + 10_000, Budget(games=warmup_games, clock=budget.clock))
    # A repetition is ``slices`` rounds in which every loop plays budget/slices, the order reversed
    # every other round: a slow spell of a shared machine (seconds long) then falls on every loop
    # alike, instead of on whichever loop ran during it.
    slices = 1 if budget.games is not None else slices
    part = Budget(seconds=budget.seconds / slices, games=budget.games, clock=budget.clock)
    order = list(range(len(sections)))
    for rep in range(repeats):
        say(f"repetition {rep + 1}/{repeats}")
        totals = [Run(0, 0, 0.0) for _ in sections]
        for round_ in range(slices):
            for i in order if round_ % 2 == 0 else reversed(order):
                run = runners[i](seed + rep * slices + round_, part)
                totals[i] = Run(
                    totals[i].decisions + run.decisions,
                    totals[i].episodes + run.episodes,
                    totals[i].seconds + run.seconds,
                )
        for section, total in zip(sections, totals):
            section.runs.append(total)
    if memory_games > 0:
        say("memory pass (tracemalloc)")
        for section, runner in zip(sections, runners):
            section.peak_kib = peak_kib(runner, seed, memory_games)


def _version(distribution: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _max_rss_kib() -> float | None:
    """The process's peak resident set size in KiB (``ru_maxrss``), where the OS reports it."""
    try:
        import resource
    except ImportError:  # Windows
        return None
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / 1024 if sys.platform == "darwin" else float(rss)  # bytes on macOS, KiB on Linux


def _load_average() -> list[float] | None:
    """The machine's 1, 5 and 15-minute load averages (other processes slow every loop), where the OS has them."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


# ------------------------------------------------------------------ command line
def _dashed(game: Game) -> str:
    return game.type.short_name.replace("_", "-")


def _parser(games: list[Game]) -> argparse.ArgumentParser:
    """The command line; ``games``: the registered games, each with its own ``--<name>-players`` and ``--no-<name>``."""
    lo = min(game.type.min_players for game in games)
    hi = max(game.type.max_players for game in games)
    parser = argparse.ArgumentParser(
        prog="traitors-bench",
        description="Decisions per second of every registered game (env(), raw_env(), engine alone) against "
        "PettingZoo's leduc_holdem_v4, with random legal games and claims on.",
    )
    parser.add_argument(
        "--game",
        dest="game_names",
        nargs="+",
        default=None,
        metavar="NAME",
        help=f"measure only these games (registry name or env id; registered: {', '.join(g.name for g in games)})",
    )
    parser.add_argument(
        "--players",
        type=int,
        nargs="+",
        default=None,
        choices=range(lo, hi + 1),
        metavar="N",
        help=f"table sizes of every game measured, {lo}–{hi}; a size a game does not have is left out for it "
        "(default per game: its smallest, 5 and its largest)",
    )
    length = parser.add_mutually_exclusive_group()
    length.add_argument(
        "--seconds", type=float, default=None, help="seconds of play per repetition and loop (default 1)"
    )
    length.add_argument("--games", type=int, default=None, help="games per repetition and loop, instead of --seconds")
    parser.add_argument("--repeats", type=int, default=None, help="repetitions; medians are reported (default 5)")
    parser.add_argument(
        "--slices",
        type=int,
        default=None,
        help="parts each repetition's seconds are split into, interleaved across the loops (default 5)",
    )
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="cpu",
        help="time by this process's CPU time (default; less disturbed on a shared machine) or by wall-clock time",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="base seed: part j of repetition r uses seed + r·slices + j (default 0)"
    )
    parser.add_argument(
        "--memory-games", type=int, default=None, help="games of the tracemalloc pass (default 20; 0 skips it)"
    )
    parser.add_argument("--no-leduc", action="store_true", help="do not measure leduc_holdem_v4")
    parser.add_argument(
        "--training",
        action="store_true",
        help="instead, the training benchmark: learner decisions/s of the SB3 and JAX backends "
        "(training/bench.py, reached through the traitors-bench command; 'traitors-bench --training --help')",
    )
    parser.add_argument(
        "--jax",
        action="store_true",
        help="also measure the batched JAX twin of every game measured that has one "
        "(needs the extra jax: pip install -e '.[jax]')",
    )
    parser.add_argument(
        "--jax-batches",
        type=int,
        nargs="+",
        default=None,
        metavar="B",
        help="batch sizes of the JAX measurement (default 1 64 1024 4096)",
    )
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON to PATH")
    parser.add_argument("--quick", action="store_true", help="a few games only (a smoke test; the figures mean little)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    per_game = parser.add_argument_group("per game (one pair of options for every registered game)")
    for game in games:
        t = game.type
        try:
            per_game.add_argument(
                f"--{_dashed(game)}-players",
                dest=f"players_of_{t.short_name}",
                type=int,
                nargs="+",
                default=None,
                choices=t.player_counts,
                metavar="N",
                help=f"table sizes of {t.env_id}, {t.min_players}–{t.max_players} (default: --players, else "
                f"{' '.join(map(str, default_players(game)))})",
            )
            per_game.add_argument(
                f"--no-{_dashed(game)}", dest=f"skip_{t.short_name}", action="store_true", help=f"do not measure {t.env_id}"
            )
        except argparse.ArgumentError:  # a game whose options would clash with the command's own: --game only
            continue
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``traitors-bench``; returns the exit status (0; targets are reported, not enforced)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    registered = select_games()
    parser = _parser(registered)
    args = parser.parse_args(argv)
    for name in ("seconds", "games", "repeats", "slices", "memory_games"):
        value = getattr(args, name)
        if value is not None and (value < 0 or (value == 0 and name != "memory_games")):
            parser.error(f"--{name.replace('_', '-')}={value!r}; expected a positive number")
    if args.json and (problem := output_problem(args.json, folder=False, make_parents=False)):
        parser.error(f"--json {problem}")  # before the measurement, not after it
    try:
        chosen = select_games(args.game_names)
    except ValueError as error:  # UnknownGameError
        parser.error(str(error))
    chosen = [g for g in chosen if not getattr(args, f"skip_{g.type.short_name}", False)]
    if not chosen:
        parser.error("no game left to measure (every game given was also left out with --no-<game>)")
    own = {
        g.type.short_name: sizes
        for g in chosen
        if (sizes := getattr(args, f"players_of_{g.type.short_name}", None)) is not None
    }
    # --quick: 3 games per repetition, 2 repetitions, 1 warm-up game, 2 memory games (unless given).
    quick = args.quick
    if args.seconds is not None:
        budget = Budget(seconds=args.seconds, clock=args.clock)
    else:
        budget = Budget(games=args.games or (3 if quick else None), clock=args.clock)
    repeats = args.repeats or (2 if quick else 5)
    warmup = 1 if quick else 10
    memory = args.memory_games if args.memory_games is not None else (2 if quick else 20)
    progress = None if args.quiet else (lambda message: print(message, file=sys.stderr, flush=True))
    try:
        result = run_benchmark(
            players=args.players,
            budget=budget,
            repeats=repeats,
            seed=args.seed,
            slices=args.slices or 5,
            warmup_games=warmup,
            memory_games=memory,
            leduc=not args.no_leduc,
            progress=progress,
            games=chosen,
            game_players=own,
        )
    except ValueError as error:  # a table size no game measured has
        parser.error(str(error))
    print(format_report(result))
    if args.jax:
        print()
        print(_run_jax(args, result, quick, progress))
    if args.json:
        atomic_write_text(args.json, json.dumps(result, indent=2) + "\n")
    return 0


def _run_jax(args, result: dict, quick: bool, progress) -> str:
    """``--jax``: the JAX figures of every game measured that has a twin into ``result["jax_games"]`` (env id →
    figures; the first also under ``result["jax"]``, where it was before issue 26) and their targets, as report
    sections."""
    twins = [load_game(env_id) for env_id in result["meta"]["games"]]
    twins = [game for game in twins if game.has("jax")]
    result["jax"] = None
    if not twins:
        return f"JAX: no game measured has a JAX twin ({', '.join(result['meta']['games'])})."
    try:
        from . import benchmark_jax
    except ImportError as error:
        return f"JAX engine skipped: {error}; install the extra: pip install -e '.[jax]'"
    batches = tuple(args.jax_batches or ((1, 64) if quick else benchmark_jax.BATCH_SIZES))
    sections = []
    result["jax_games"] = {}
    for game in twins:
        env_id = game.type.env_id
        try:
            figures = benchmark_jax.run_jax_benchmark(
                game, batch_sizes=batches, seconds=0.2 if quick else 1.0, repeats=1 if quick else 3, progress=progress
            )
        except ImportError as error:  # the twin itself needs what is not installed (pgx …)
            sections.append(f"JAX twin of {env_id} skipped: {error}; install the extra: pip install -e '.[jax]'")
            continue
        ours = result[env_id]
        key = str(TARGET_PLAYERS) if str(TARGET_PLAYERS) in ours else next(iter(ours))
        raw_env_rate = ours[key]["raw_env"]["decisions_per_s"]
        figures["raw_env_players"] = int(key)
        figures["raw_env_decisions_per_s"] = raw_env_rate
        result["jax_games"][env_id] = figures
        if result["jax"] is None:
            result["jax"] = figures
        targets = benchmark_jax.jax_targets(figures, raw_env_rate)
        result["targets"] += targets
        lines = [benchmark_jax.format_jax_report(figures, raw_env_rate)]
        lines.append(f"{env_id} raw_env() at {key} players in this run: {raw_env_rate:,.0f} decisions/s.")
        if targets:
            lines += ["", "| game | target | measured | required | met |", "|---|---|---:|---:|---|"]
            for target in targets:
                value = target["measured"]
                shown = f"{value:,.0f}" if value >= 1000 else f"{value:.2f}"
                lines.append(
                    f"| {env_id} | {target['name']} | {shown} | {target['required']} | {'yes' if target['met'] else 'NO'} |"
                )
        sections.append("\n".join(lines))
    return "\n\n".join(sections)


if __name__ == "__main__":
    sys.exit(main())
