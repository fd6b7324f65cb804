"""Speed benchmark: random legal games through ``env()``, ``raw_env()`` and the engine alone.

``traitors-bench`` (or ``python -m traitors_env.benchmark``) plays random legal games with
claims on and prints, per table size (default 3, 5 and 8 players):

* **decisions per second** (median over ``--repeats`` repetitions) of

  - ``env()``: the standard AEC loop ``for agent in env.agent_iter(): obs, … = env.last();
    env.step(action)``, so the acting agent's full observation and action mask are built
    at every decision, with PettingZoo's classic wrappers;
  - ``raw_env()``: the same loop without the wrappers;
  - the **engine** alone: :meth:`GameState.new`, :meth:`GameState.legal_actions` and
    :meth:`GameState.apply_action`, no observation;

* the **mean episode length** (decisions per game);
* the **peak memory** of each loop: the ``tracemalloc`` peak (Python objects and numpy
  buffers) while building the environment and playing ``--memory-games`` games, measured
  in a separate pass that is not timed (tracing slows everything down). The process's
  ``ru_maxrss`` is given as well.

In the same run it measures PettingZoo's ``leduc_holdem_v4`` ``env()`` and ``raw_env()`` with
the very same loop and the same random-choice code, and gives our figures as ratios to
``leduc_holdem_v4`` ``env()`` (leduc needs the optional extra ``bench``: rlcard, pygame;
without it leduc is skipped and said so).

A *decision* is a ``step`` with an action (not ``None``); the ``None`` steps of agents that are
done after the game ends are part of the loop's cost but are not counted. Every episode is
timed from ``reset()`` to the end of its last ``step``. A repetition gives every loop its
``--seconds`` in ``--slices`` parts (default 5 of 0.2 s), played round-robin over all loops, the
order reversed every other round, so that a slow spell of a shared machine falls on every loop
alike. Each part builds a fresh environment (not timed, nor is its first ``reset(seed=…)``; for
leduc that rebuilds the rlcard env). Seeds are fixed: part ``j`` of repetition ``r`` resets with
``seed + r·slices + j`` and chooses actions with ``random.Random`` of the same seed, so the
``env()``, ``raw_env()`` and engine loops play the very same games.

Time is the process's CPU time by default (``--clock cpu``): on an idle machine it equals
wall-clock time for this single-threaded loop, and on a shared one it is far less disturbed
by other processes; ``--clock wall`` uses ``time.perf_counter``.

The header names the observation encoder in use: ``compiled`` (``traitors_env.games.traitors_aboard._encoder``, built at
install where a C compiler is present) or ``pure Python`` (the fallback, same observations, slower).

Targets (issue 4, 5 players, claims on): ``env()`` ≥ 1.5 × leduc ``env()``; ``raw_env()`` ≥ 4 ×
leduc ``env()``; engine ≥ 100,000 decisions/s; no slowdown of more than 2× from 3 to 8 players.
The engine target is an absolute rate, set on a machine where leduc ``env()`` ran at about 11,000
decisions/s; the table also gives it in leduc units (100,000 / 11,000 ≈ 9.1 × leduc ``env()``),
which reads the same on a slower or faster machine.
They are reported, never enforced: the exit status is 0 whether they are met or not.

``--json PATH`` writes the same figures machine-readably (see :func:`run_benchmark`).

The second game, ``the_traitors_v0`` (issue 15), gets its own table after the first: decisions per
second of ``env()``, ``raw_env()`` and its engine alone per table size (``--the-traitors-players``,
default 3, 5 and 6; ``--no-the-traitors`` skips it), the same loops, seeds, budget and clock, no
targets (see :func:`run_the_traitors_benchmark`).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
import tracemalloc
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .games.traitors_aboard.cards import MAX_PLAYERS, MIN_PLAYERS
from .games.traitors_aboard.engine import GameConfig, GameState
from .games.traitors_aboard.observation import COMPILED_ENCODER

#: The loops measured for each table size, in table order.
TRAITORS_APIS = ("env", "raw_env", "engine")
#: The leduc_holdem_v4 loops measured as the reference.
LEDUC_APIS = ("env", "raw_env")

TARGET_PLAYERS = 5
TARGET_ENV_RATIO = 1.5
TARGET_RAW_RATIO = 4.0
TARGET_ENGINE_RATE = 100_000.0
#: leduc_holdem_v4 env() decisions/s on the machine the issue's targets were set on: the engine target
#: in leduc units is TARGET_ENGINE_RATE / ISSUE_LEDUC_ENV_RATE ≈ 9.1 × leduc env(), a figure any machine can check.
ISSUE_LEDUC_ENV_RATE = 11_000.0
TARGET_MAX_SLOWDOWN = 2.0

MEMORY_METHOD = (
    "tracemalloc peak (Python objects and numpy buffers) while building the environment and playing "
    "the memory games, in a separate untimed pass"
)


#: The clocks a run can be timed with (``--clock``).
CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}


@dataclass
class Budget:
    """How long one repetition runs: ``games`` episodes if given, else at least ``seconds`` of play.

    ``clock`` names the clock of :data:`CLOCKS` that times it: ``"cpu"`` (this process's CPU time,
    the default: less disturbed by other processes on a shared machine) or ``"wall"``.
    """

    seconds: float = 1.0
    games: int | None = None
    clock: str = "cpu"

    def done(self, episodes: int, elapsed: float) -> bool:
        if self.games is not None:
            return episodes >= self.games
        return elapsed >= self.seconds


@dataclass
class Run:
    """One measured repetition: decisions, finished episodes, seconds."""

    decisions: int
    episodes: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.decisions / self.seconds if self.seconds > 0 else float("nan")


@dataclass
class Section:
    """All repetitions of one loop (one game, table size and API)."""

    game: str
    players: int
    api: str
    runs: list[Run] = field(default_factory=list)
    peak_kib: float | None = None

    @property
    def median_rate(self) -> float:
        return statistics.median(run.rate for run in self.runs)

    @property
    def mean_episode_length(self) -> float:
        episodes = sum(run.episodes for run in self.runs)
        return sum(run.decisions for run in self.runs) / episodes if episodes else float("nan")

    def as_dict(self) -> dict:
        rates = [run.rate for run in self.runs]
        return {
            "decisions_per_s": self.median_rate,
            "decisions_per_s_min": min(rates),
            "decisions_per_s_max": max(rates),
            "mean_episode_length": self.mean_episode_length,
            "peak_memory_kib": self.peak_kib,
            "runs": [
                {
                    "decisions": run.decisions,
                    "episodes": run.episodes,
                    "seconds": run.seconds,
                    "decisions_per_s": run.rate,
                }
                for run in self.runs
            ],
        }


# ------------------------------------------------------------------ the loops
def random_legal_action(chooser: random.Random, action_mask: np.ndarray) -> int:
    """A uniformly random legal action from a 1-D ``action_mask`` (the same code for every env measured).

    ``int(random() * k)`` rather than ``randrange(k)``: the same choice up to a bias below 2**-45,
    at a fraction of the cost, so the loop measures the environment rather than the chooser.
    """
    legal = action_mask.nonzero()[0]
    return int(legal[int(chooser.random() * len(legal))])


def play_aec(env, seed: int, budget: Budget) -> Run:
    """The standard AEC loop over ``env`` with random legal actions, until ``budget`` is spent.

    ``env.reset(seed=seed)`` before timing; every later episode starts with ``env.reset()``
    (continuing the env's RNG), inside the timing.
    """
    chooser = random.Random(seed)
    env.reset(seed=seed)
    decisions = episodes = 0
    clock = CLOCKS[budget.clock]
    start = clock()
    while True:
        for _agent in env.agent_iter():
            observation, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                action = random_legal_action(chooser, observation["action_mask"])
                decisions += 1
            env.step(action)
        episodes += 1
        elapsed = clock() - start
        if budget.done(episodes, elapsed):
            return Run(decisions, episodes, elapsed)
        env.reset()


def play_engine(config: GameConfig, seed: int, budget: Budget) -> Run:
    """Random legal games on the engine alone: legal actions and transitions, no observation.

    The games are the ones :func:`play_aec` plays on ``raw_env`` with the same seed: the same
    episode seeds, the same chooser, and ``legal_actions()`` is sorted like the indices of the mask.
    """
    chooser = random.Random(seed)
    rng = np.random.default_rng(seed)  # draws the later episodes' seeds, as raw_env.reset() does
    episode_seed = seed
    new_game = GameState.new
    decisions = episodes = 0
    clock = CLOCKS[budget.clock]
    start = clock()
    while True:
        state = new_game(config, seed=episode_seed)
        episode_seed = int(rng.integers(2**63))
        while not state.is_terminal:
            legal = state.legal_actions()
            state.apply_action(legal[int(chooser.random() * len(legal))])
            decisions += 1
        episodes += 1
        elapsed = clock() - start
        if budget.done(episodes, elapsed):
            return Run(decisions, episodes, elapsed)


def load_leduc():
    """PettingZoo's ``leduc_holdem_v4`` module, or the reason it cannot be loaded (a ``str``)."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "create env without registry" DeprecationWarning
            from pettingzoo.classic import leduc_holdem_v4
    except Exception as error:  # ImportError, gymnasium's DependencyNotInstalled, …
        return f"leduc_holdem_v4 could not be imported ({type(error).__name__}: {error}); install the extra: pip install -e '.[bench]'"
    return leduc_holdem_v4


def _runner(game: str, players: int, api: str, leduc) -> Callable[[int, Budget], Run]:
    """A function ``(seed, budget) -> Run`` that builds a fresh environment and plays it."""
    if game == "leduc_holdem_v4":
        make = leduc.env if api == "env" else leduc.raw_env
        return lambda seed, budget: play_aec(make(), seed, budget)
    from . import traitors_aboard_v0

    if api == "engine":
        config = GameConfig(num_players=players, claims=True)
        return lambda seed, budget: play_engine(config, seed, budget)
    make = traitors_aboard_v0.env if api == "env" else traitors_aboard_v0.raw_env
    return lambda seed, budget: play_aec(make(num_players=players, claims=True), seed, budget)


def _peak_kib(runner: Callable[[int, Budget], Run], seed: int, games: int) -> float:
    """tracemalloc peak, in KiB above the traced memory at the start, of building an env and playing ``games``."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        runner(seed, Budget(games=games, clock="wall"))
        return (tracemalloc.get_traced_memory()[1] - base) / 1024
    finally:
        tracemalloc.stop()


# ------------------------------------------------------------------ the benchmark
def run_benchmark(
    players: tuple[int, ...] = (3, 5, 8),
    budget: Budget | None = None,
    repeats: int = 5,
    seed: int = 0,
    slices: int = 5,
    warmup_games: int = 10,
    memory_games: int = 20,
    leduc: bool = True,
    progress: Callable[[str], None] | None = None,
) -> dict:
    """Measure every loop and return the figures as a JSON-ready dict.

    Keys: ``meta`` (versions, settings, ``memory_method``, ``max_rss_kib``); ``traitors``
    (``{"3": {"env": …, "raw_env": …, "engine": …}, …}``, each with ``decisions_per_s``
    (median), ``decisions_per_s_min``/``_max``, ``mean_episode_length``, ``peak_memory_kib``
    and the ``runs``); ``leduc_holdem_v4`` (``{"env": …, "raw_env": …}`` or ``None``);
    ``leduc_skipped`` (``None`` or the reason); ``ratios`` (per table size, our median
    decisions/s over leduc's ``env()`` and ``raw_env()``); ``targets`` (the issue's targets,
    each with ``measured``, ``required`` and ``met``).

    Each repetition gives every loop ``budget`` of play in ``slices`` interleaved parts (one part
    when the budget is a number of games); part ``j`` of repetition ``r`` plays from seed
    ``seed + r·slices + j``, the same for every loop.

    Raises:
        ValueError: for a table size outside 3–8, or ``repeats`` or ``slices`` below 1.
    """
    budget = budget or Budget()
    for n in players:
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise ValueError(f"players={n!r}; Traitors Aboard is played by {MIN_PLAYERS} to {MAX_PLAYERS} players")
    if repeats < 1:
        raise ValueError(f"repeats={repeats!r}; expected at least 1")
    if slices < 1:
        raise ValueError(f"slices={slices!r}; expected at least 1")
    say = progress or (lambda message: None)

    leduc_module = load_leduc() if leduc else "leduc disabled (--no-leduc)"
    skipped = leduc_module if isinstance(leduc_module, str) else None
    sections = [Section("traitors_aboard_v0", n, api) for n in players for api in TRAITORS_APIS]
    if skipped is None:
        sections += [Section("leduc_holdem_v4", 2, api) for api in LEDUC_APIS]
    runners = [_runner(s.game, s.players, s.api, leduc_module) for s in sections]

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
            section.peak_kib = _peak_kib(runner, seed, memory_games)

    ours = {
        str(n): {s.api: s.as_dict() for s in sections if s.game == "traitors_aboard_v0" and s.players == n}
        for n in players
    }
    leduc_figures = {s.api: s.as_dict() for s in sections if s.game == "leduc_holdem_v4"} or None
    ratios = {}
    if leduc_figures:
        leduc_env = leduc_figures["env"]["decisions_per_s"]
        leduc_raw = leduc_figures["raw_env"]["decisions_per_s"]
        for n, apis in ours.items():
            ratios[n] = {
                f"{api}_vs_leduc_{ref}": apis[api]["decisions_per_s"] / rate
                for api in TRAITORS_APIS
                for ref, rate in (("env", leduc_env), ("raw_env", leduc_raw))
            }
    return {
        "meta": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "pettingzoo": _version("pettingzoo"),
            "rlcard": _version("rlcard"),
            "machine": platform.platform(),
            "cpu_count": os.cpu_count(),
            "observation_encoder": "compiled" if COMPILED_ENCODER else "pure Python",
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
        "traitors": ours,
        "leduc_holdem_v4": leduc_figures,
        "leduc_skipped": skipped,
        "ratios": ratios,
        "targets": _targets(ours, leduc_figures),
    }


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


def _targets(ours: dict, leduc: dict | None) -> list[dict]:
    """The issue's targets that this run's figures can decide: the medians' figure, and per repetition."""
    targets = []
    key = str(TARGET_PLAYERS)
    if key in ours:
        at = ours[key]
        if leduc:
            for api, factor in (("env", TARGET_ENV_RATIO), ("raw_env", TARGET_RAW_RATIO)):
                name = f"{api}() at {TARGET_PLAYERS} players / leduc_holdem_v4 env()"
                targets.append(_ratio_target(name, at[api], leduc["env"], factor))
        name = f"engine decisions/s at {TARGET_PLAYERS} players"
        engine = at["engine"]
        targets.append(_target(name, engine["decisions_per_s"], _rates(engine), TARGET_ENGINE_RATE, True))
        if leduc:  # the same target measured against this machine's speed instead of the issue's machine's
            name = f"engine at {TARGET_PLAYERS} players / leduc_holdem_v4 env() (the engine target in leduc units)"
            required = round(TARGET_ENGINE_RATE / ISSUE_LEDUC_ENV_RATE, 1)
            targets.append(_ratio_target(name, engine, leduc["env"], required))
    if "3" in ours and "8" in ours:
        for api in TRAITORS_APIS:
            name = f"{api} slowdown from 3 to 8 players"
            targets.append(_ratio_target(name, ours["3"][api], ours["8"][api], TARGET_MAX_SLOWDOWN, at_least=False))
    return targets


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


# ------------------------------------------------------------------ report
def format_report(result: dict) -> str:
    """The figures of :func:`run_benchmark` as markdown tables."""
    meta = result["meta"]
    budget = (
        f"{meta['games_per_repeat']} games"
        if meta["games_per_repeat"] is not None
        else f"{meta['seconds_per_repeat']:g} s in {meta['slices']} interleaved parts"
    )
    lines = [
        f"Random legal games, claims on; median of {meta['repeats']} repetitions of {budget} each; seed {meta['seed']}; "
        f"timed by {'process CPU time' if meta['clock'] == 'cpu' else 'wall-clock time'}.",
        f"Python {meta['python']}, numpy {meta['numpy']}, pettingzoo {meta['pettingzoo']}, rlcard {meta['rlcard']}; "
        f"{meta['machine']}, {meta['cpu_count']} CPUs; observation encoder: {meta['observation_encoder']}.",
        "",
        "| game | players | API | decisions/s (median) | min–max | × leduc env() | × leduc raw_env() "
        "| mean episode length | peak memory (KiB) |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|",
    ]

    def row(game: str, players: int, api: str, figures: dict, ratios: dict | None) -> str:
        def ratio(ref: str) -> str:
            return f"{ratios[f'{api}_vs_leduc_{ref}']:.2f}" if ratios else "–"

        peak = figures["peak_memory_kib"]
        return (
            f"| {game} | {players} | {api} | {figures['decisions_per_s']:,.0f} | "
            f"{figures['decisions_per_s_min']:,.0f}–{figures['decisions_per_s_max']:,.0f} | {ratio('env')} | "
            f"{ratio('raw_env')} | {figures['mean_episode_length']:.1f} | {'–' if peak is None else f'{peak:,.0f}'} |"
        )

    for n, apis in result["traitors"].items():
        for api, figures in apis.items():
            lines.append(row("traitors_aboard_v0", int(n), api, figures, result["ratios"].get(n)))
    leduc = result["leduc_holdem_v4"]
    if leduc:
        for api, figures in leduc.items():
            lines.append(row("leduc_holdem_v4", 2, api, figures, None))
    lines.append("")
    rss = meta["max_rss_kib"]
    lines.append(
        f"Peak memory: {meta['memory_method']} ({meta['memory_games']} games); "
        f"process ru_maxrss: {'not reported' if rss is None else f'{rss:,.0f} KiB'}."
    )
    if result["leduc_skipped"]:
        lines.append(f"leduc_holdem_v4 skipped: {result['leduc_skipped']}")
    if result["targets"]:
        lines += [
            "",
            "| target | measured (medians) | per repetition (min–max) | required | met |",
            "|---|---:|---:|---:|---|",
        ]

        def number(value: float) -> str:
            return f"{value:,.0f}" if value >= 1000 else f"{value:.2f}"

        for target in result["targets"]:
            spread = target["per_repetition"]
            lines.append(
                f"| {target['name']} | {number(target['measured'])} | {number(min(spread))}–{number(max(spread))} "
                f"| {target['required']} | {'yes' if target['met'] else 'NO'} |"
            )
    return "\n".join(lines)


# ------------------------------------------------------------------ the second game (issue 15)
def play_the_traitors_engine(num_players: int, seed: int, budget: Budget) -> Run:
    """Random legal games of ``the_traitors_v0``'s engine alone (legal actions and transitions, no observation),
    the games :func:`play_aec` plays on its ``raw_env`` with the same seed."""
    from .games.the_traitors.engine import GameConfig as TheTraitorsConfig
    from .games.the_traitors.engine import GameState as TheTraitorsState

    config = TheTraitorsConfig(num_players=num_players)
    chooser = random.Random(seed)
    rng = np.random.default_rng(seed)
    episode_seed = seed
    decisions = episodes = 0
    clock = CLOCKS[budget.clock]
    start = clock()
    while True:
        state = TheTraitorsState.new(config, seed=episode_seed)
        episode_seed = int(rng.integers(2**63))
        while not state.is_terminal:
            legal = state.legal_actions()
            state.apply_action(legal[int(chooser.random() * len(legal))])
            decisions += 1
        episodes += 1
        elapsed = clock() - start
        if budget.done(episodes, elapsed):
            return Run(decisions, episodes, elapsed)


def run_the_traitors_benchmark(
    players=(3, 5, 6), budget: Budget | None = None, repeats: int = 5, seed: int = 0
) -> dict:
    """Decisions per second of ``the_traitors_v0`` ``env()``, ``raw_env()`` and engine, per table size.

    Returns ``{str(players): {api: {"decisions_per_s": median, "decisions_per_s_min", "decisions_per_s_max",
    "mean_episode_length"}}}``; repetition ``r`` of every loop uses seed ``seed + r``.
    """
    from . import the_traitors_v0

    budget = budget or Budget()
    result: dict = {}
    for n in players:
        loops = {
            "env": lambda s, b, n=n: play_aec(the_traitors_v0.env(num_players=n), s, b),
            "raw_env": lambda s, b, n=n: play_aec(the_traitors_v0.raw_env(num_players=n), s, b),
            "engine": lambda s, b, n=n: play_the_traitors_engine(n, s, b),
        }
        result[str(n)] = {}
        for api, loop in loops.items():
            runs = [loop(seed + r, budget) for r in range(repeats)]
            rates = [run.rate for run in runs]
            result[str(n)][api] = {
                "decisions_per_s": statistics.median(rates),
                "decisions_per_s_min": min(rates),
                "decisions_per_s_max": max(rates),
                "mean_episode_length": sum(run.decisions for run in runs) / sum(run.episodes for run in runs),
            }
    return result


def format_the_traitors_report(result: dict) -> str:
    """The figures of :func:`run_the_traitors_benchmark` as a markdown table."""
    lines = [
        "the_traitors_v0 (random legal games, claims on):",
        "",
        "| game | players | API | decisions/s (median) | min–max | mean episode length |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for n, apis in result.items():
        for api, f in apis.items():
            lines.append(
                f"| the_traitors_v0 | {n} | {api} | {f['decisions_per_s']:,.0f} | "
                f"{f['decisions_per_s_min']:,.0f}–{f['decisions_per_s_max']:,.0f} | {f['mean_episode_length']:.1f} |"
            )
    return "\n".join(lines)


# ------------------------------------------------------------------ command line
def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="traitors-bench",
        description="Decisions per second of traitors_aboard_v0 (env(), raw_env(), engine alone) against "
        "PettingZoo's leduc_holdem_v4, with random legal games and claims on.",
    )
    parser.add_argument(
        "--players",
        type=int,
        nargs="+",
        default=[3, 5, 8],
        choices=range(MIN_PLAYERS, MAX_PLAYERS + 1),
        metavar="N",
        help="table sizes to measure, 3–8 (default: 3 5 8)",
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
        help="also measure the batched JAX engine and env (needs the extra jax: pip install -e '.[jax]')",
    )
    parser.add_argument(
        "--jax-batches",
        type=int,
        nargs="+",
        default=None,
        metavar="B",
        help="batch sizes of the JAX measurement (default 1 64 1024 4096)",
    )
    parser.add_argument(
        "--the-traitors-players",
        type=int,
        nargs="+",
        default=[3, 5, 6],
        choices=range(3, 7),
        metavar="N",
        help="table sizes of the_traitors_v0 to measure, 3–6 (default: 3 5 6)",
    )
    parser.add_argument("--no-the-traitors", action="store_true", help="do not measure the_traitors_v0")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON to PATH")
    parser.add_argument("--quick", action="store_true", help="a few games only (a smoke test; the figures mean little)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``traitors-bench``; returns the exit status (0; targets are reported, not enforced)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = _parser()
    args = parser.parse_args(argv)
    for name in ("seconds", "games", "repeats", "slices", "memory_games"):
        value = getattr(args, name)
        if value is not None and (value < 0 or (value == 0 and name != "memory_games")):
            parser.error(f"--{name.replace('_', '-')}={value!r}; expected a positive number")
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
    result = run_benchmark(
        players=tuple(dict.fromkeys(args.players)),
        budget=budget,
        repeats=repeats,
        seed=args.seed,
        slices=args.slices or 5,
        warmup_games=warmup,
        memory_games=memory,
        leduc=not args.no_leduc,
        progress=progress,
    )
    print(format_report(result))
    if not args.no_the_traitors:
        if progress:
            progress("the_traitors_v0 …")
        result["the_traitors_v0"] = run_the_traitors_benchmark(
            tuple(dict.fromkeys(args.the_traitors_players)), budget, repeats, args.seed
        )
        print()
        print(format_the_traitors_report(result["the_traitors_v0"]))
    if args.jax:
        print()
        print(_run_jax(args, result, quick, progress))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(result, handle, indent=2)
            handle.write("\n")
    return 0


def _run_jax(args, result: dict, quick: bool, progress) -> str:
    """``--jax``: the JAX figures into ``result["jax"]`` (and its targets), as a report section."""
    try:
        from . import benchmark_jax
    except ImportError as error:
        result["jax"] = None
        return f"JAX engine skipped: {error}; install the extra: pip install -e '.[jax]'"
    batches = tuple(args.jax_batches or ((1, 64) if quick else benchmark_jax.BATCH_SIZES))
    figures = benchmark_jax.run_jax_benchmark(
        batch_sizes=batches, seconds=0.2 if quick else 1.0, repeats=1 if quick else 3, progress=progress
    )
    result["jax"] = figures
    ours = result["traitors"]
    key = str(TARGET_PLAYERS) if str(TARGET_PLAYERS) in ours else next(iter(ours))
    raw_env_rate = ours[key]["raw_env"]["decisions_per_s"]
    figures["raw_env_players"] = int(key)
    figures["raw_env_decisions_per_s"] = raw_env_rate
    targets = benchmark_jax.jax_targets(figures, raw_env_rate)
    result["targets"] += targets
    lines = [benchmark_jax.format_jax_report(figures, raw_env_rate)]
    lines.append(f"raw_env() at {key} players in this run: {raw_env_rate:,.0f} decisions/s.")
    if targets:
        lines += ["", "| target | measured | required | met |", "|---|---:|---:|---|"]
        for target in targets:
            value = target["measured"]
            lines.append(
                f"| {target['name']} | {value:,.0f} | {target['required']} | {'yes' if target['met'] else 'NO'} |"
                if value >= 1000
                else f"| {target['name']} | {value:.2f} | {target['required']} | {'yes' if target['met'] else 'NO'} |"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
