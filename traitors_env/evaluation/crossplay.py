"""Cross-play: seeded games of row agents against column agents, over worker processes, for any registered game.

A *cell* is one (table size, row agent, column agent): the row agent plays the seats of the game's row
side (``game.type.sides[0]``: Traitors Aboard's Pirates, The Traitors' Traitor) and the column agent every
seat of the other side (the deal read as a game master, ``game.side_of_seat``). Game ``i`` of a cell at
table size ``n`` is dealt from :func:`game_seed` ``(seed, n, i)`` (the same deal in every cell, so cells
compare agents on the same deals) and its two agents are built fresh from :func:`agent_seeds`
``(seed, n, i)``: every game depends only on its own index, never on which worker played it or what
that worker played before, so results are identical for any number of workers (issue 10).

An agent is given as a spec: a string for :func:`traitors_env.agents.spec.agent_maker` (bots,
checkpoints, ``package.module:function``), or any picklable object with ``build(seed) -> Agent``.
Each worker resolves a spec once and builds one agent per game.

Role beliefs: where the game declares a hidden side (``Game.hidden_side``), every agent with ``beliefs`` is asked
for them at each of its decisions and scored against the deal (:mod:`.deduction`); ``CrossPlay.deduction`` holds
the tallies per (agent, side key).

An agent that raises or returns an action its mask forbids stops its chunk of games: the games
finished before it are kept and the failure is reported (:class:`AgentFailure`), never lost.

The workers load the game by its registry name: a game registered at run time in this process only (not
built in, not an entry point) plays with ``workers=1``.
"""

from __future__ import annotations

import multiprocessing
import re
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

import numpy as np

from ..core.game import Game
from ..core.registry import DEFAULT_GAME, UnknownGameError, load_game
from .deduction import Deduction, close_game
from .games import AgentError, play_game, seat_seed

__all__ = ["AgentFailure", "CellResult", "CrossPlay", "agent_seeds", "game_seed", "play_cells"]

#: Games per task sent to a worker (results do not depend on it; it only balances the load).
CHUNK = 25


def game_seed(base_seed: int, num_players: int, index: int) -> int:
    """The deal seed of game ``index`` at ``num_players`` (the same in every cell of a cross-play)."""
    return int(np.random.SeedSequence([base_seed, num_players, index]).generate_state(1, dtype=np.uint64)[0])


def agent_seeds(base_seed: int, num_players: int, index: int) -> tuple[int, int]:
    """The seeds of game ``index``'s row agent and column agent (from the game's own index only)."""
    state = np.random.SeedSequence([base_seed, num_players, index, 7]).generate_state(2, dtype=np.uint64)
    return int(state[0]), int(state[1])


class AgentFailure(RuntimeError):
    """An agent that could not be built, raised, or chose an illegal action; names the agent, its side and the game."""

    def __init__(self, agent: str, team: str, num_players: int, game: int, reason: str) -> None:
        super().__init__(f"agent {agent!r} playing the {team} (game {game}, {num_players} players): {reason}")
        self.info = {"agent": agent, "team": team, "num_players": num_players, "game": game, "error": reason}


@dataclass
class CellResult:
    """The finished games of one cell: per game index, whether the row side won (a row seat won); counts per
    end condition; the column side's seats that won (``column_wins`` of ``column_seats``: in a general-sum
    game, not simply the games the row side lost).

    Attributes:
        num_players; row, column: the row and column agents' names.
    """

    num_players: int
    row: str
    column: str
    outcomes: dict[int, bool] = field(default_factory=dict)
    end_conditions: Counter = field(default_factory=Counter)
    column_wins: int = 0
    column_seats: int = 0

    @property
    def games(self) -> int:
        return len(self.outcomes)

    @property
    def row_wins(self) -> int:
        """Games the row side won."""
        return sum(self.outcomes.values())

    # Traitors Aboard's names of the row and column sides, as training/ reads them.
    pirates = property(lambda self: self.row)
    mutineers = property(lambda self: self.column)
    pirate_wins = property(lambda self: self.row_wins)


@dataclass
class CrossPlay:
    """Everything the games produced: cells, per (agent, side key) metric tallies and text agents' counts
    (``text``: ``games`` plus the sums of the agents' ``stats``), records, failures."""

    cells: dict[tuple[int, str, str], CellResult]
    tallies: dict[tuple[str, str], Counter]
    failures: list[dict]
    records: list[tuple[str, str]]  # (file name, record JSON)
    interrupted: bool = False
    text: dict[tuple[str, str], Counter] = field(default_factory=dict)
    #: (agent, side key) → deduction tally (:class:`.deduction.Deduction`), for agents with beliefs.
    deduction: dict[tuple[str, str], Counter] = field(default_factory=dict)
    #: (agent, side key, table size) → the metric tally of that table size alone (``tallies`` pools the sizes).
    size_tallies: dict[tuple[str, str, int], Counter] = field(default_factory=dict)


def outcome(game: Game, state, deal: int) -> dict:
    """A finished game's outcome as the kit counts it.

    Returns:
        ``row``: per seat, whether the row side plays it; ``row_won``: a row seat won (``game.seat_won``);
        ``end_condition``; ``column_wins`` of ``column_seats``: the column seats that won; ``tallies``: side key →
        ``Counter`` of the game's hidden-role metric counts (``game.metrics.tally_state``; empty without metrics).
    """
    n = state.num_players
    row = [game.side_of_seat(state, s) == 0 for s in range(n)]
    column = [s for s in range(n) if not row[s]]
    return {
        "row": row,
        "row_won": any(game.seat_won(state, s) for s in range(n) if row[s]),
        "end_condition": game.end_condition(state),
        "column_wins": sum(bool(game.seat_won(state, s)) for s in column),
        "column_seats": len(column),
        "tallies": game.metrics.tally_state(state, deal) if game.metrics is not None else {},
    }


def text_counts(agent: object) -> Mapping | None:
    """A text agent's counts of one game (its ``stats`` dict, which has ``decisions``), else ``None``."""
    stats = getattr(agent, "stats", None)
    return stats if isinstance(stats, Mapping) and "decisions" in stats else None


# ------------------------------------------------------------------ worker side
_MAKERS: dict = {}  # (game, spec) -> make(seed), once per process
_MAKERS_LOCK = threading.Lock()
_LOCAL = threading.local()  # each thread's envs (one per game, table size and claims)


def _envs() -> dict:
    envs = getattr(_LOCAL, "envs", None)
    if envs is None:
        envs = _LOCAL.envs = {}
    return envs


def _maker(spec, game: Game):
    key = (game.type.env_id, spec) if isinstance(spec, str) else ("object", repr(spec))
    with _MAKERS_LOCK:  # threads resolve a spec once too
        if key not in _MAKERS:
            _MAKERS[key] = _resolve(spec, game)
        return _MAKERS[key]


def _resolve(spec, game: Game):
    if isinstance(spec, str):
        from ..agents.spec import agent_maker

        return agent_maker(spec, game=game.name)[1]
    if callable(getattr(spec, "build", None)):
        return spec.build
    raise TypeError(f"agent spec {spec!r} is neither a spec string nor an object with build(seed)")


def _play(env, game: Game, agents: dict[bool, tuple], seed: int, num_players: int, index: int,
          deduction=None) -> list:
    """Play one game to its end (``agents[True]`` at the row side's seats), scoring beliefs into ``deduction``
    (a :class:`.deduction.Deduction`) if given; returns the agent of each seat; raises :class:`AgentFailure`.

    ``agents[row]`` is ``(label, team, agent, make, agent seed)``. The agent plays every seat of its side, except
    a text agent (:class:`~traitors_env.core.text.TextAgent`: it keeps one seat's conversation), which plays the
    side's first seat while each other seat of the side gets its own, ``make(seat_seed(agent seed, seat))``.
    """
    from ..core.text import TextAgent

    sides: list[tuple[str, str]] = []
    seats: list = []

    def seated(state):
        used: set[int] = set()
        for s in range(num_players):
            label, team, agent, make, agent_seed = agents[game.side_of_seat(state, s) == 0]
            sides.append((label, team))
            if isinstance(agent, TextAgent) and id(agent) in used:
                try:
                    agent = make(seat_seed(agent_seed, s))
                except Exception as error:
                    raise AgentFailure(label, team, num_players, index, f"cannot be built: {error}") from None
            used.add(id(agent))
            seats.append(agent)
        return seats

    def beliefs(seat, observation, mask, values, state, agent):
        deduction.observe(sides[seat][0], state, seat, observation, values, mask, agent)

    try:
        play_game(env, seated, seed, check=True, beliefs=beliefs if deduction is not None else None)
    except AgentError as error:
        label, team = sides[error.seat]
        raise AgentFailure(label, team, num_players, index, error.reason) from None
    return seats


def _run_chunk(task: tuple) -> dict:
    """Worker: play games ``first … first+count-1`` of one cell; returns what finished (and a failure)."""
    n, p_name, p_spec, m_name, m_spec, base_seed, first, count, claims, record_below, game_name, beliefs = task
    game = load_game(game_name)
    scorer = Deduction(game) if beliefs and game.hidden_side is not None else None
    row_team, column_team = game.type.sides
    out = {"key": (n, p_name, m_name), "outcomes": {}, "ends": Counter(), "failure": None, "records": [],
           "tallies": {row_team: Counter(), column_team: Counter()}, "column_wins": 0, "column_seats": 0,
           "text": {row_team: Counter(), column_team: Counter()}, "deduction": {}}
    envs = _envs()
    env = envs.get((game.type.env_id, n, claims))
    if env is None:
        env = envs[(game.type.env_id, n, claims)] = game.raw_env(num_players=n, claims=claims)
    for index in range(first, first + count):
        p_seed, m_seed = agent_seeds(base_seed, n, index)
        try:
            agents = {}
            for row, label, team, spec, seed in ((True, p_name, row_team, p_spec, p_seed),
                                                 (False, m_name, column_team, m_spec, m_seed)):
                try:
                    make = _maker(spec, game)
                    agents[row] = (label, team, make(seed), make, seed)
                except Exception as error:
                    raise AgentFailure(label, team, n, index, f"cannot be built: {error}") from None
            deal = game_seed(base_seed, n, index)
            deduction = scorer.fresh() if scorer is not None else None  # a failed game's beliefs are not kept
            seats = _play(env, game, agents, deal, n, index, deduction)
        except AgentFailure as failure:
            out["failure"] = failure.info
            break
        result = outcome(game, env.game, deal)
        out["outcomes"][index] = result["row_won"]
        out["ends"][result["end_condition"]] += 1
        out["column_wins"] += result["column_wins"]
        out["column_seats"] += result["column_seats"]
        for team, counts in result["tallies"].items():
            out["tallies"][team].update(counts)
        played: dict[str, dict[int, object]] = {row_team: {}, column_team: {}}
        for s, agent in enumerate(seats):
            played[row_team if result["row"][s] else column_team][id(agent)] = agent
        for team, side_agents in played.items():
            texts = [c for c in map(text_counts, side_agents.values()) if c is not None]
            for counts in texts:
                out["text"][team].update({k: v for k, v in counts.items() if isinstance(v, (int, float))
                                          and not isinstance(v, bool)})
            if texts:
                out["text"][team]["games"] += 1
        for key, counts in (deduction.tallies.items() if deduction is not None else ()):
            out["deduction"].setdefault(key, Counter()).update(close_game(counts, index))  # + its deal's sums
        if index < record_below and game.records is not None:
            record = game.records.record_game(env.game, deal, seats=[p_name if r else m_name for r in result["row"]])
            name = f"{n}p_{_file_part(p_name)}_vs_{_file_part(m_name)}_game{index:04d}.json"
            out["records"].append((name, record.to_json()))
    return out


def _file_part(name: str) -> str:
    """An agent name as part of a file name (``runs/quick`` → ``runs-quick``)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.") or "agent"


# ------------------------------------------------------------------ main side
def play_cells(
    cells: Sequence[tuple[int, str, object, str, object]],
    games: int,
    seed: int = 0,
    claims: bool = True,
    workers: int = 1,
    progress: bool = False,
    records_per_cell: int = 0,
    desc: str = "cross-play",
    game: str | Game = DEFAULT_GAME,
    threads: int = 1,
    beliefs: bool = True,
) -> CrossPlay:
    """Play ``games`` seeded games in every cell.

    Args:
        cells: ``(num_players, row name, row spec, column name, column spec)`` each.
        games: games per cell (indices ``0 … games-1``).
        seed: base seed of deals and agents.
        claims: the game's claims option (``raw_env(claims=...)``).
        workers: processes (1 = this process); results are the same for any value.
        progress: a tqdm bar over the games (stderr).
        records_per_cell: keep the game record of the first this many games of each cell.
        desc: the progress bar's label.
        game: the game: a registry name (default :data:`~traitors_env.core.registry.DEFAULT_GAME`) or a :class:`Game`.
        threads: the games of cells with a ``threaded`` spec (a language model's) are played in this many threads
            of this process (after the other cells); results are the same for any value.
        beliefs: score the role beliefs of agents that have them (:mod:`.deduction`; a game with ``hidden_side``).

    Returns:
        a :class:`CrossPlay`. A chunk whose agent failed keeps its finished games and adds one entry to
        ``failures``; Ctrl-C stops the games and returns the finished ones with ``interrupted=True``.

    Raises:
        UnknownGameError: with ``workers`` > 1, for a game that the worker processes cannot load by name (one
            registered with ``register_game`` in this process only), naming it.
    """
    from tqdm.auto import tqdm

    game = load_game(game)
    tasks = [
        (n, p_name, p_spec, m_name, m_spec, seed, first, min(CHUNK, games - first), claims, records_per_cell, game.name,
         beliefs)
        for n, p_name, p_spec, m_name, m_spec in cells
        for first in range(0, games, CHUNK)
    ]
    result = CrossPlay(
        cells={(n, p, m): CellResult(n, p, m) for n, p, _, m, _ in cells},
        tallies={},
        failures=[],
        records=[],
    )
    bar = tqdm(total=len(tasks) and games * len(cells), unit="game", desc=desc, disable=not progress)

    def collect(out: dict, count: bool = True) -> None:
        cell = result.cells[out["key"]]
        cell.outcomes.update(out["outcomes"])
        cell.end_conditions.update(out["ends"])
        cell.column_wins += out["column_wins"]
        cell.column_seats += out["column_seats"]
        n, p_name, m_name = out["key"]
        for team, name in zip(game.type.sides, (p_name, m_name)):
            if game.metrics is not None:
                result.tallies.setdefault((name, team), Counter()).update(out["tallies"][team])
                result.size_tallies.setdefault((name, team, n), Counter()).update(out["tallies"][team])
            if out["text"][team]:
                result.text.setdefault((name, team), Counter()).update(out["text"][team])
        if out["failure"]:
            result.failures.append(out["failure"])
        result.records.extend(out["records"])
        for key, tally in out["deduction"].items():
            result.deduction.setdefault(key, Counter()).update(tally)
        if count:
            bar.update(len(out["outcomes"]))

    threaded = [t for t in tasks if threads > 1 and (getattr(t[2], "threaded", False) or getattr(t[4], "threaded", False))]
    tasks = [t for t in tasks if t not in threaded]
    try:
        if workers <= 1 or len(tasks) <= 1:
            for task in tasks:
                collect(_run_chunk(task))
        else:
            context = multiprocessing.get_context("forkserver")
            with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
                pending = {pool.submit(_run_chunk, task) for task in tasks}
                try:
                    while pending:
                        done, pending = wait(pending, return_when=FIRST_COMPLETED)
                        for future in done:
                            collect(future.result())
                except UnknownGameError as error:  # a worker's fresh registry lacks a game registered here only
                    raise UnknownGameError(
                        f"a worker process cannot load game {game.name!r} ({error}): workers load games by name from "
                        "a fresh registry, so a game registered with register_game() in this process only is unknown "
                        "there; register it through the entry-point group 'traitors_env.games', or play with workers=1"
                    ) from error
                except KeyboardInterrupt:
                    for future in pending:
                        future.cancel()
                    raise
        if threaded:
            _play_threaded(threaded, threads, collect, bar)
    except KeyboardInterrupt:
        result.interrupted = True
    finally:
        bar.close()
    # Failures and records in a fixed order, whatever order the workers finished in.
    result.failures.sort(key=lambda f: (f["num_players"], f["agent"], f["team"], f["game"]))
    result.records.sort()
    return result


def _merge(outs: list[dict]) -> dict:
    """One chunk's result from its games' results in game order, as :func:`_run_chunk` would have returned it:
    up to and including the first failure (the games after it are not played one by one)."""
    merged = {**outs[0], "outcomes": {}, "ends": Counter(), "failure": None, "records": [], "column_wins": 0,
              "column_seats": 0, "tallies": {k: Counter() for k in outs[0]["tallies"]},
              "text": {k: Counter() for k in outs[0]["text"]}, "deduction": {}}
    for out in outs:
        merged["outcomes"].update(out["outcomes"])
        merged["ends"].update(out["ends"])
        merged["records"].extend(out["records"])
        merged["column_wins"] += out["column_wins"]
        merged["column_seats"] += out["column_seats"]
        for key in ("tallies", "text"):
            for team, counts in out[key].items():
                merged[key][team].update(counts)
        for key, counts in out["deduction"].items():
            merged["deduction"].setdefault(key, Counter()).update(counts)
        if out["failure"]:
            merged["failure"] = out["failure"]
            break
    return merged


def _play_threaded(tasks: list[tuple], threads: int, collect, bar) -> None:
    """Play the games of ``tasks`` (chunks) one game per thread task; collect each chunk merged in game order.
    On Ctrl-C the games not started are cancelled, those running finish, and every finished game is collected."""
    games = {task: [task[:6] + (first, 1) + task[8:] for first in range(task[6], task[6] + task[7])] for task in tasks}
    pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="traitors-game")
    futures = {task: [pool.submit(_run_chunk, game) for game in chunk] for task, chunk in games.items()}
    try:
        pending = {future for chunk in futures.values() for future in chunk}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                bar.update(len(future.result()["outcomes"]))
    except KeyboardInterrupt:
        pool.shutdown(wait=True, cancel_futures=True)
        for chunk in futures.values():  # every finished game, failures and all
            finished = [f.result() for f in chunk if f.done() and not f.cancelled() and f.exception() is None]
            if finished:
                collect(_merge(finished), count=False)
        raise
    pool.shutdown(wait=True)
    for chunk in futures.values():
        collect(_merge([f.result() for f in chunk]), count=False)
