"""The loops ``traitors-bench`` times (:mod:`traitors_env.benchmark`): random legal games through an AEC
environment or a game's engine alone, the budget of one repetition and what it measured.

:func:`play_aec` is the standard AEC loop (``env.last()``, ``env.step(action)``) with one random-choice code for every
environment measured, leduc's included; :func:`play_engine` plays the very same games on the engine, without
observations; :func:`runner_for` builds a fresh environment per part of a repetition; :func:`peak_kib` measures the
``tracemalloc`` peak of one in an untimed pass.
"""

from __future__ import annotations

import os
import random
import statistics
import time
import tracemalloc
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .core.game import Game

#: The loops measured for each game and table size, in table order.
APIS = ("env", "raw_env", "engine")
#: The leduc_holdem_v4 loops measured as the reference.
LEDUC = "leduc_holdem_v4"
LEDUC_APIS = ("env", "raw_env")

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


def play_engine(game: Game, num_players: int, seed: int, budget: Budget) -> Run:
    """Random legal games of ``game``'s engine alone: legal actions and transitions, no observation.

    The games are the ones :func:`play_aec` plays on ``game.raw_env`` with the same seed: the same
    episode seeds (``raw_env.reset`` deals ``game.new_initial_state(n, episode_seed)``), the same chooser, and
    ``legal_actions()`` is sorted like the indices of the mask.
    """
    chooser = random.Random(seed)
    rng = np.random.default_rng(seed)  # draws the later episodes' seeds, as raw_env.reset() does
    episode_seed = seed
    new_game = game.new_initial_state
    decisions = episodes = 0
    clock = CLOCKS[budget.clock]
    start = clock()
    while True:
        state = new_game(num_players, episode_seed, True)
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


def runner_for(section: Section, game: Game | None, leduc) -> Callable[[int, Budget], Run]:
    """A function ``(seed, budget) -> Run`` that builds a fresh environment and plays it."""
    if game is None:  # leduc_holdem_v4
        make = leduc.env if section.api == "env" else leduc.raw_env
        return lambda seed, budget: play_aec(make(), seed, budget)
    n = section.players
    if section.api == "engine":
        return lambda seed, budget: play_engine(game, n, seed, budget)
    make = game.env if section.api == "env" else game.raw_env
    return lambda seed, budget: play_aec(make(num_players=n, claims=True), seed, budget)


def peak_kib(runner: Callable[[int, Budget], Run], seed: int, games: int) -> float:
    """tracemalloc peak, in KiB above the traced memory at the start, of building an env and playing ``games``."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        runner(seed, Budget(games=games, clock="wall"))
        return (tracemalloc.get_traced_memory()[1] - base) / 1024
    finally:
        tracemalloc.stop()
