"""Cross-play: seeded games of row agents against column agents, over worker processes.

A *cell* is one (table size, row agent, column agent): in Traitors Aboard the row agent plays the
Pirates and the column agent the Mutineers; in The Traitors the row agent plays the Traitor's seat and
the column agent every Faithful seat (:mod:`.kit_games`; the names ``pirates``/``mutineers`` of
:class:`CellResult` and of the tasks are the row and column sides of either game). Game ``i`` of a cell at table size
``n`` is dealt from :func:`game_seed` ``(seed, n, i)`` (the same deal in every cell, so cells compare
agents on the same deals) and its two agents are built fresh from :func:`agent_seeds`
``(seed, n, i)``: every game depends only on its own index, never on which worker played it or what
that worker played before, so results are identical for any number of workers (issue 10).

An agent is given as a spec: a string for :func:`traitors_env.agents.spec.agent_maker` (bots,
checkpoints, ``package.module:function``), or any picklable object with ``build(seed) -> Agent``.
Each worker resolves a spec once and builds one agent per game.

An agent that raises or returns an action its mask forbids stops its chunk of games: the games
finished before it are kept and the failure is reported (:class:`AgentFailure`), never lost.
"""

from __future__ import annotations

import multiprocessing
import re
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field

import numpy as np

from .kit_games import KitGame, kit_game

__all__ = ["AgentFailure", "CellResult", "CrossPlay", "agent_seeds", "game_seed", "play_cells"]

#: Games per task sent to a worker (results do not depend on it; it only balances the load).
CHUNK = 25


def game_seed(base_seed: int, num_players: int, index: int) -> int:
    """The deal seed of game ``index`` at ``num_players`` (the same in every cell of a cross-play)."""
    return int(np.random.SeedSequence([base_seed, num_players, index]).generate_state(1, dtype=np.uint64)[0])


def agent_seeds(base_seed: int, num_players: int, index: int) -> tuple[int, int]:
    """The seeds of game ``index``'s Pirates agent and Mutineers agent (from the game's own index only)."""
    state = np.random.SeedSequence([base_seed, num_players, index, 7]).generate_state(2, dtype=np.uint64)
    return int(state[0]), int(state[1])


class AgentFailure(RuntimeError):
    """An agent that could not be built, raised, or chose an illegal action; names the agent and the game."""

    def __init__(self, agent: str, team: str, num_players: int, game: int, reason: str) -> None:
        super().__init__(f"agent {agent!r} playing the {team} (game {game}, {num_players} players): {reason}")
        self.info = {"agent": agent, "team": team, "num_players": num_players, "game": game, "error": reason}


@dataclass
class CellResult:
    """The finished games of one cell: per game index, whether the row side (Pirates, Traitor) won; counts
    per end condition; the column side's seats that won (``column_wins`` of ``column_seats``)."""

    num_players: int
    pirates: str
    mutineers: str
    outcomes: dict[int, bool] = field(default_factory=dict)
    end_conditions: Counter = field(default_factory=Counter)
    column_wins: int = 0
    column_seats: int = 0

    @property
    def games(self) -> int:
        return len(self.outcomes)

    @property
    def pirate_wins(self) -> int:
        return sum(self.outcomes.values())


@dataclass
class CrossPlay:
    """Everything the games produced: cells, per (agent, team) metric tallies, records, failures."""

    cells: dict[tuple[int, str, str], CellResult]
    tallies: dict[tuple[str, str], Counter]
    failures: list[dict]
    records: list[tuple[str, str]]  # (file name, record JSON)
    interrupted: bool = False


# ------------------------------------------------------------------ worker side
_MAKERS: dict = {}  # spec -> make(seed), once per process
_ENVS: dict = {}


def _maker(spec, game: KitGame):
    key = (game.name, spec) if isinstance(spec, str) else ("object", repr(spec))
    make = _MAKERS.get(key)
    if make is None:
        if isinstance(spec, str):
            make = game.agent_maker(spec)[1]
        elif callable(getattr(spec, "build", None)):
            make = spec.build
        else:
            raise TypeError(f"agent spec {spec!r} is neither a spec string nor an object with build(seed)")
        _MAKERS[key] = make
    return make


def _play(env, game: KitGame, agents: dict[bool, tuple[str, str, object]], seed: int, num_players: int,
          index: int) -> None:
    """Play one game to its end (``agents[True]`` at the row side's seats); raises :class:`AgentFailure`."""
    env.reset(seed=seed)
    row = game.row_seats(env)
    for name in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        label, team, agent = agents[row[env.game.current_player]]
        mask = observation["action_mask"]
        try:
            action = agent.act(observation["observation"], mask)
        except Exception as error:  # the agent's own failure: named, and the finished games are kept
            raise AgentFailure(label, team, num_players, index, f"act raised {type(error).__name__}: {error}") from None
        if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
            action = action.item()
        if not (isinstance(action, (int, np.integer)) and not isinstance(action, bool) and 0 <= action < mask.size and mask[action]):
            raise AgentFailure(
                label, team, num_players, index,
                f"act returned {action!r} for {name}, which its action mask forbids; expected an int with "
                f"action_mask[action] == 1 (legal: {np.flatnonzero(mask).tolist()})",
            )
        env.step(int(action))


def _run_chunk(task: tuple) -> dict:
    """Worker: play games ``first … first+count-1`` of one cell; returns what finished (and a failure)."""
    n, p_name, p_spec, m_name, m_spec, base_seed, first, count, claims, record_below, *rest = task
    game = kit_game(rest[0] if rest else "traitors_aboard")
    row_team, column_team = game.teams
    out = {"key": (n, p_name, m_name), "outcomes": {}, "ends": Counter(), "failure": None, "records": [],
           "tallies": {row_team: Counter(), column_team: Counter()}, "column_wins": 0, "column_seats": 0}
    env = _ENVS.get((game.name, n, claims))
    if env is None:
        env = _ENVS[(game.name, n, claims)] = game.make_env(n, claims)
    for index in range(first, first + count):
        p_seed, m_seed = agent_seeds(base_seed, n, index)
        try:
            agents = {}
            for row, label, team, spec, seed in ((True, p_name, row_team, p_spec, p_seed),
                                                 (False, m_name, column_team, m_spec, m_seed)):
                try:
                    agents[row] = (label, team, _maker(spec, game)(seed))
                except Exception as error:
                    raise AgentFailure(label, team, n, index, f"cannot be built: {error}") from None
            deal = game_seed(base_seed, n, index)
            _play(env, game, agents, deal, n, index)
        except AgentFailure as failure:
            out["failure"] = failure.info
            break
        result = game.outcome(env, n, claims, deal)
        out["outcomes"][index] = result["row_won"]
        out["ends"][result["end_condition"]] += 1
        out["column_wins"] += result["column_wins"]
        out["column_seats"] += result["column_seats"]
        for team, counts in result["tallies"].items():
            out["tallies"][team].update(counts)
        if index < record_below and hasattr(env, "record"):
            record = env.record(seats=[p_name if r else m_name for r in game.row_seats(env)])
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
    game: str | KitGame = "traitors_aboard",
) -> CrossPlay:
    """Play ``games`` seeded games in every cell.

    Args:
        cells: ``(num_players, Pirates name, Pirates spec, Mutineers name, Mutineers spec)`` each.
        games: games per cell (indices ``0 … games-1``).
        seed: base seed of deals and agents.
        claims: the claim step (R14).
        workers: processes (1 = this process); results are the same for any value.
        progress: a tqdm bar over the games (stderr).
        records_per_cell: keep the game record of the first this many games of each cell.
        desc: the progress bar's label.
        game: the game (:func:`.kit_games.kit_game`): ``traitors_aboard`` (default) or ``the_traitors``.

    Returns:
        a :class:`CrossPlay`. A chunk whose agent failed keeps its finished games and adds one entry to
        ``failures``; Ctrl-C stops the games and returns the finished ones with ``interrupted=True``.
    """
    from tqdm.auto import tqdm

    game = kit_game(game)
    tasks = [
        (n, p_name, p_spec, m_name, m_spec, seed, first, min(CHUNK, games - first), claims, records_per_cell, game.name)
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

    def collect(out: dict) -> None:
        cell = result.cells[out["key"]]
        cell.outcomes.update(out["outcomes"])
        cell.end_conditions.update(out["ends"])
        cell.column_wins += out["column_wins"]
        cell.column_seats += out["column_seats"]
        n, p_name, m_name = out["key"]
        for team, name in zip(game.teams, (p_name, m_name)):
            if game.has_metrics:
                result.tallies.setdefault((name, team), Counter()).update(out["tallies"][team])
        if out["failure"]:
            result.failures.append(out["failure"])
        result.records.extend(out["records"])
        bar.update(len(out["outcomes"]))

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
                except KeyboardInterrupt:
                    for future in pending:
                        future.cancel()
                    raise
    except KeyboardInterrupt:
        result.interrupted = True
    finally:
        bar.close()
    # Failures and records in a fixed order, whatever order the workers finished in.
    result.failures.sort(key=lambda f: (f["num_players"], f["agent"], f["team"], f["game"]))
    result.records.sort()
    return result
