"""The evaluation of a zero-sum team game's run (:mod:`training.evaluate`): the matrix of every row-side policy
against every column-side policy, the learning checks read from it, and its report.

Each policy plays every seat of its side; the games are played by the benchmark kit's cross-play, so game ``i`` at
table size ``n`` is dealt from the same seed in every cell (:func:`evaluate_matrix`). The learning checks compare each
side's three policies against the other side's heuristic, pooled (:func:`learning_checks`) and per table size
(:func:`size_checks`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass

from traitors_env.core import Game, load_game
from traitors_env.core.registry import DEFAULT_GAME
from traitors_env.core.stats import wilson_interval
from traitors_env.evaluation.crossplay import play_cells
from traitors_env.evaluation.report import possessive

from .agents import AgentSpec

__all__ = ["POLICIES", "SIZE_MARGIN", "VS_HEURISTIC", "Cell", "EvaluationError", "against_heuristic", "cells_csv",
           "evaluate_matrix", "learning_checks", "markdown_report", "side_rate", "size_checks"]

POLICIES = ("trained", "heuristic", "random")


class EvaluationError(ValueError):
    """An evaluation that cannot run as asked (bad --generation/--games, not a run folder); the message says why."""


@dataclass
class Cell:
    """The games of one (table size, row-side policy, column-side policy): ``row_wins`` of ``games`` won by the row
    side (``sides[0]``)."""

    num_players: int | str  # "all" for pooled cells
    row: str
    column: str
    games: int
    row_wins: int

    @property
    def row_win_rate(self) -> float:
        return self.row_wins / self.games if self.games else float("nan")

    def as_row(self, game: Game | str = DEFAULT_GAME) -> dict:
        """The cell as a report row, keyed by the game's side keys: the two policies, games, the row side's wins,
        and each side's win rate with its 95% Wilson interval."""
        first, second = load_game(game).type.sides
        low, high = wilson_interval(self.row_wins, self.games)
        return {
            "num_players": self.num_players,
            first: self.row,
            second: self.column,
            "games": self.games,
            f"{first}_wins": self.row_wins,
            f"{first}_win_rate": round(self.row_win_rate, 4),
            f"{first}_ci_low": round(low, 4),
            f"{first}_ci_high": round(high, 4),
            f"{second}_win_rate": round(1 - self.row_win_rate, 4),
            f"{second}_ci_low": round(1 - high, 4),
            f"{second}_ci_high": round(1 - low, 4),
        }


def evaluate_matrix(
    specs: dict[str, dict[str, AgentSpec]],
    player_counts: Sequence[int],
    games: int,
    seed: int,
    claims: bool = True,
    workers: int = 1,
    pairs: Sequence[tuple[str, str]] | None = None,
    progress: bool = False,
    game: Game | str = DEFAULT_GAME,
) -> list[Cell]:
    """Win counts of row-side policies against column-side policies of a zero-sum team game.

    Args:
        specs: ``{side key: {name: AgentSpec}}`` for both sides (``{"pirates": …, "mutineers": …}``); names from
            :data:`POLICIES`.
        player_counts: table sizes.
        games: seeded games per cell.
        seed: base seed of the deals and agents.
        workers: processes (1 = this process).
        pairs: ``(row name, column name)`` cells to play; default every pair.
        progress: show a tqdm progress bar over the games (on stderr).
        game: the game.

    Returns:
        one :class:`Cell` per table size and pair, then one pooled cell (``num_players="all"``) per pair.

    Raises:
        EvaluationError: naming an agent that failed.
    """
    game = load_game(game)
    first, second = game.type.sides
    if pairs is None:
        pairs = [(p, m) for p in specs[first] for m in specs[second]]
    # The benchmark kit plays the games: each game's deal and agents are seeded from its own index, so
    # the counts are the same for any number of workers (traitors_env.evaluation.crossplay).
    cells_to_play = [
        (n, p_name, specs[first][p_name], m_name, specs[second][m_name])
        for n in player_counts
        for p_name, m_name in pairs
    ]
    played = play_cells(cells_to_play, games, seed=seed, claims=claims, workers=workers, progress=progress,
                        desc="evaluation", game=game.name, beliefs=False)  # win rates only: no belief scoring
    if played.failures:
        failure = played.failures[0]
        raise EvaluationError(f"agent {failure['agent']!r} failed playing the {failure['team']}: {failure['error']}")
    if played.interrupted:
        raise KeyboardInterrupt
    cells = [Cell(n, p, m, cell.games, cell.pirate_wins) for (n, p, m), cell in played.cells.items()]
    cells.sort(key=lambda c: (c.num_players, POLICIES.index(c.row), POLICIES.index(c.column)))
    for p_name, m_name in pairs:
        same = [c for c in cells if c.row == p_name and c.column == m_name]
        cells.append(Cell("all", p_name, m_name, sum(c.games for c in same), sum(c.row_wins for c in same)))
    return cells


def side_rate(cell: Cell, side: int) -> dict:
    """Side ``side``'s (0 row, 1 column) win rate in ``cell`` with its 95% Wilson interval and the number of games."""
    wins = cell.row_wins if side == 0 else cell.games - cell.row_wins
    low, high = wilson_interval(wins, cell.games)
    return {"win_rate": wins / cell.games, "ci_low": low, "ci_high": high, "games": cell.games}


def against_heuristic(side: int, policy: str) -> tuple[str, str]:
    """The (row, column) policies of the cell where ``policy`` plays ``side`` against the other side's heuristic."""
    return (policy, "heuristic") if side == 0 else ("heuristic", policy)


def learning_checks(cells: list[Cell], game: Game | str = DEFAULT_GAME) -> dict:
    """The acceptance checks, pooled over table sizes, for each side against heuristic opponents.

    ``trained_beats_random``: the trained policy's win rate is above the random policy's, with the
    95% intervals apart. ``trained_beats_heuristic``: likewise against the heuristic policy's
    own win rate in the same side and against the same opponents.
    """
    sides = load_game(game).type.sides
    pooled = {(c.row, c.column): c for c in cells if c.num_players == "all"}
    result = {}
    for side, key in enumerate(sides):
        rates = {}
        for policy in POLICIES:
            cell = pooled.get(against_heuristic(side, policy))
            if cell is not None:
                rates[policy] = side_rate(cell, side)
        entry = {"vs": f"heuristic {sides[1 - side]}", "win_rates": rates}
        if "trained" in rates:
            trained = rates["trained"]
            for other in ("random", "heuristic"):
                if other in rates:
                    entry[f"trained_beats_{other}"] = bool(trained["ci_low"] > rates[other]["ci_high"])
        result[key] = entry
    return result


#: the cells that decide the learning checks: each side's three policies against the other side's heuristic
VS_HEURISTIC = (
    ("trained", "heuristic"),
    ("heuristic", "heuristic"),
    ("random", "heuristic"),
    ("heuristic", "trained"),
    ("heuristic", "random"),
)
#: the per-table-size target (issue 13): trained beats the heuristic policy by this much, intervals apart
SIZE_MARGIN = 0.10


def size_checks(cells: list[Cell], margin: float = SIZE_MARGIN, game: Game | str = DEFAULT_GAME) -> dict:
    """Per table size and side, against heuristic opponents: the trained and the heuristic policy's win rates
    in the same side on the same deals (95% Wilson intervals), their difference, and ``passes``: the trained
    policy wins by at least ``margin`` with the intervals apart.

    Returns:
        ``{num_players: {side key: {"trained": {...}, "heuristic": {...}, "difference": float, "passes": bool}}}``,
        sizes that lack one of the cells left out.
    """
    sides = load_game(game).type.sides
    out: dict = {}
    by_key = {(c.num_players, c.row, c.column): c for c in cells if c.num_players != "all"}
    for n in sorted({c.num_players for c in cells if c.num_players != "all"}):
        row = {}
        for side, key in enumerate(sides):
            rates = {}
            for policy in ("trained", "heuristic"):
                cell = by_key.get((n, *against_heuristic(side, policy)))
                if cell is None:
                    break
                rates[policy] = side_rate(cell, side)
            else:
                difference = rates["trained"]["win_rate"] - rates["heuristic"]["win_rate"]
                apart = rates["trained"]["ci_low"] > rates["heuristic"]["ci_high"]
                # a little slack on the margin: the rates are fractions of whole games
                row[key] = {**rates, "difference": difference, "passes": bool(difference >= margin - 1e-9 and apart)}
        if row:
            out[n] = row
    return out


def _pct(rate: float) -> str:
    return f"{100 * rate:.1f}"


def markdown_report(cells: list[Cell], checks: dict, title: str, game: Game | str = DEFAULT_GAME) -> str:
    """The evaluation as markdown: a row-side win-rate matrix per table size, then the learning checks."""
    game = load_game(game)
    sides, (row_label, column_label) = game.type.sides, game.type.side_labels
    out = [
        f"# {title}",
        "",
        f"{possessive(row_label)} win rate in % [95% Wilson interval]; rows: {row_label} policy, columns: {column_label} policy.",
        "",
    ]
    counts = []
    for c in cells:
        if c.num_players not in counts:
            counts.append(c.num_players)
    for n in counts:
        table = {(c.row, c.column): c for c in cells if c.num_players == n}
        columns = [m for m in POLICIES if any(k[1] == m for k in table)]
        rows = [p for p in POLICIES if any(k[0] == p for k in table)]
        games = next(iter(table.values())).games
        heading = "all table sizes pooled" if n == "all" else f"{n} players"
        out += [f"## {heading} ({games} games per cell)", ""]
        out.append(f"| {row_label} \\ {column_label} | " + " | ".join(columns) + " |")
        out.append("|---|" + "---|" * len(columns))
        for p in rows:
            line = []
            for m in columns:
                cell = table.get((p, m))
                if cell is None:
                    line.append("")
                    continue
                low, high = wilson_interval(cell.row_wins, cell.games)
                line.append(f"{_pct(cell.row_win_rate)} [{_pct(low)}, {_pct(high)}]")
            out.append(f"| {p} | " + " | ".join(line) + " |")
        out.append("")
    out += ["## Learning checks (pooled over table sizes, against heuristic opponents)", ""]
    out.append("| team | opponents | trained | heuristic | random | trained > random | trained > heuristic |")
    out.append("|---|---|---|---|---|---|---|")
    for team, entry in checks.items():
        rates = entry["win_rates"]

        def fmt(name: str, rates=rates) -> str:
            r = rates.get(name)
            return "" if r is None else f"{_pct(r['win_rate'])} [{_pct(r['ci_low'])}, {_pct(r['ci_high'])}]"

        def yes(key: str, entry=entry) -> str:
            return "" if key not in entry else ("yes" if entry[key] else "no")

        out.append(
            f"| {team} | {entry['vs']} | {fmt('trained')} | {fmt('heuristic')} | {fmt('random')} | "
            f"{yes('trained_beats_random')} | {yes('trained_beats_heuristic')} |"
        )
    out.append("")
    out.append(
        "yes/no: whether the two win rates' 95% Wilson intervals do not overlap (yes = the trained policy's "
        "interval lies entirely above the other policy's)."
    )
    out.append("")
    sizes = size_checks(cells, game=game)
    if sizes:
        header = " | ".join(f"{label}: trained | {label}: heuristic | passes" for label in game.type.side_labels)
        out += [
            f"## Per table size: trained vs heuristic policy, against heuristic opponents (≥ {100 * SIZE_MARGIN:.0f} "
            "points, intervals apart)",
            "",
            f"| players | {header} |",
            "|---:|---|---|---|---|---|---|",
        ]
        for n, row in sizes.items():
            parts = []
            for key in sides:
                e = row.get(key)
                if e is None:
                    parts += ["", "", ""]
                    continue
                parts += [
                    f"{_pct(e[p]['win_rate'])} [{_pct(e[p]['ci_low'])}, {_pct(e[p]['ci_high'])}]" for p in ("trained", "heuristic")
                ]
                parts.append(f"{'yes' if e['passes'] else 'no'} ({100 * e['difference']:+.1f})")
            out.append(f"| {n} | " + " | ".join(parts) + " |")
        out.append("")
    return "\n".join(out)


def cells_csv(cells: list[Cell], game: Game | str = DEFAULT_GAME) -> str:
    rows = [c.as_row(game) for c in cells]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()
