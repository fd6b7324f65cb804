"""Evaluation of a training run of any game: win rates with 95% Wilson intervals against the heuristic.

``traitors-eval --run runs/quick`` (or ``python -m training.evaluate``) evaluates the newest checkpoint of a run
with the config's games and writes into the run folder ``evaluation.json`` / ``.csv`` / ``.md`` and
``winrates.png`` (the trained sides' win rates against the heuristic across generations, from the run's
per-generation checks, beside the heuristic's and random's own win rates against the heuristic).

Policies: ``trained`` (the run's snapshot of that side), ``heuristic`` and ``random`` (the game's bots). How a
game is evaluated follows from the :class:`~traitors_env.core.Game` (never from its name), as its training does
(:mod:`training.team_env`):

- **a zero-sum team game** (Traitors Aboard): a matrix of every row-side policy against every column-side
  policy (``sides[0]`` against ``sides[1]``), each policy playing every seat of its side, per table size and
  pooled (:func:`evaluate_matrix`, played by the benchmark kit's cross-play, so game ``i`` at table size ``n`` is
  dealt from the same seed in every cell); the learning checks compare each side's three policies against the
  other side's heuristic, also per table size (:func:`size_checks`);
- **a game with individual rewards** (The Traitors): per side and policy, the policy at the one seat an agent
  of that side plays (:meth:`~traitors_env.core.Game.seat_for_agent`), every other seat played by the heuristic,
  per table size and pooled (:func:`evaluate_seats`; game ``g`` is dealt from ``seed + g``, the same deals for
  every policy); the learning check: trained's interval above random's.

An evaluation of another generation (``--generation``) or with another number of games (``--games``) leaves the
default files alone and writes ``evaluation_gen002_games30.json`` / ``.csv`` / ``.md`` instead (generation 2,
30 games per cell); it does not redraw ``winrates.png``.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from traitors_env.agents.checkpoint import PolicyLoadError
from traitors_env.core import Game, load_game
from traitors_env.core.registry import DEFAULT_GAME
from traitors_env.core.stats import wilson_interval
from traitors_env.evaluation.crossplay import play_cells
from traitors_env.evaluation.report import possessive

from .agents import AgentSpec
from .config import ConfigError, RunConfig, load_config
from .run import derive_seed
from .storage import RunFolder, RunFolderError, atomic_write_text

__all__ = [
    "POLICIES",
    "VS_HEURISTIC",
    "Cell",
    "EvaluationError",
    "evaluate_matrix",
    "evaluate_run",
    "evaluate_seats",
    "evaluation_is_current",
    "learning_checks",
    "markdown_report",
    "open_run_folder",
    "plot_generations",
    "play_seat_games",
    "save_figure",
    "size_checks",
    "vs_heuristic",
    "wilson_interval",
]

POLICIES = ("trained", "heuristic", "random")


class EvaluationError(ValueError):
    """An evaluation that cannot run as asked (bad --generation/--games, not a run folder); the message says why."""


# ================================================================ zero-sum team games: the matrix
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


def _side_rate(cell: Cell, side: int) -> dict:
    """Side ``side``'s (0 row, 1 column) win rate in ``cell`` with its 95% Wilson interval and the number of games."""
    wins = cell.row_wins if side == 0 else cell.games - cell.row_wins
    low, high = wilson_interval(wins, cell.games)
    return {"win_rate": wins / cell.games, "ci_low": low, "ci_high": high, "games": cell.games}


def _against_heuristic(side: int, policy: str) -> tuple[str, str]:
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
            cell = pooled.get(_against_heuristic(side, policy))
            if cell is not None:
                rates[policy] = _side_rate(cell, side)
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
                cell = by_key.get((n, *_against_heuristic(side, policy)))
                if cell is None:
                    break
                rates[policy] = _side_rate(cell, side)
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


# ================================================================ games with individual rewards: one seat
def play_seat_games(game: Game | str, agent, opponents, side: int, num_players: int, games: int, seed: int,
                    claims: bool = True) -> int:
    """Play ``games`` games of ``num_players`` with ``agent`` at the seat an agent of ``side`` plays
    (:meth:`~traitors_env.core.Game.seat_for_agent`) and ``opponents`` at every other seat, game ``g`` dealt from
    ``seed + g``; every decision is asked of its player through the AEC loop. Returns the evaluated seat's wins.

    Raises:
        ValueError: for a table size the game does not have (from its env).
    """
    game = load_game(game)
    env = game.raw_env(num_players=num_players, claims=claims)
    seat_of = {name: i for i, name in enumerate(env.possible_agents)}
    wins = 0
    for g in range(games):
        env.reset(seed=seed + g)
        seat = game.seat_for_agent(env.game, side, seed + g)
        for name in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            player = agent if seat_of[name] == seat else opponents
            env.step(player.act(observation["observation"], observation["action_mask"]))
        wins += bool(game.seat_won(env.game, seat))
    return wins


def _rate(wins: int, games: int) -> dict:
    low, high = wilson_interval(wins, games)
    return {"win_rate": wins / games, "ci_low": low, "ci_high": high, "games": games}


def evaluate_seats(config: RunConfig, snapshots: dict[str, str] | None, policies: Sequence[str], games: int,
                   seed: int) -> dict:
    """Per side (training order) and policy: its win rate (95% Wilson) at the side's seat against heuristic opponents.

    ``games`` are spread over the evaluation table sizes (``games // len(sizes)`` each, at least 1); every policy
    meets the same deals (game ``g`` at ``n`` players from ``seed + 1000 n + g``). A policy is built once per
    table size from ``seed`` (the heuristic opponents from ``seed + 1``); ``trained`` plays ``snapshots[side]``.

    Returns:
        ``{side: {policy: {"win_rate", "ci_low", "ci_high", "games", "per_table": {"n": {...}}}}}``.
    """
    game = config.game
    counts = config.eval_player_counts
    per_count = max(1, games // len(counts))
    result: dict = {}
    for side in game.sides_in_training_order:
        key = game.type.sides[side]
        result[key] = {}
        for policy in policies:
            wins = total = 0
            per_table = {}
            for n in counts:
                if policy == "trained":
                    agent = AgentSpec("policy", snapshots[key], config.deterministic(key), game.name).build(seed)
                else:
                    agent = game.make_bot(policy, seed)
                won = play_seat_games(game, agent, game.make_bot("heuristic", seed + 1), side, n, per_count,
                                      seed + 1000 * n, claims=config.env.claims)
                per_table[str(n)] = _rate(won, per_count)
                wins += won
                total += per_count
            result[key][policy] = {**_rate(wins, total), "per_table": per_table}
    return result


def seat_learning_checks(report: dict) -> dict:
    """Per side: does the trained policy beat random against heuristic opponents with the intervals apart?"""
    return {
        side: bool(report[side]["trained"]["ci_low"] > report[side]["random"]["ci_high"])
        for side in report
        if "trained" in report[side] and "random" in report[side]
    }


def seat_markdown_report(report: dict, title: str, game: Game | str = DEFAULT_GAME) -> str:
    """Per side and table size: the win rate of each policy against heuristic opponents, with 95% intervals."""
    game = load_game(game)
    lines = [
        f"# {title}",
        "",
        "Win rate of the policy in the side's seat, every other seat played by the heuristic (95 % Wilson).",
        "",
    ]
    for side, entries in report.items():
        policies = list(entries)
        tables = list(next(iter(entries.values()))["per_table"])
        lines += [
            f"## {game.type.side_labels[game.type.side_index(side)]}",
            "",
            "| players | " + " | ".join(policies) + " |",
            "|---" * (len(policies) + 1) + "|",
        ]
        for n in tables + ["all"]:
            cells = []
            for policy in policies:
                entry = entries[policy] if n == "all" else entries[policy]["per_table"][n]
                cells.append(
                    f"{entry['win_rate']:.3f} ({entry['ci_low']:.3f}–{entry['ci_high']:.3f}, {entry['games']} games)"
                )
            lines.append(f"| {n} | " + " | ".join(cells) + " |")
        lines.append("")
    checks = seat_learning_checks(report)
    if checks:
        lines.append(
            "Learning check (trained's interval above random's): "
            + ", ".join(f"{side}: {'yes' if ok else 'no'}" for side, ok in checks.items())
        )
    return "\n".join(lines) + "\n"


def seat_csv(report: dict) -> str:
    rows = []
    for side, entries in report.items():
        for policy, entry in entries.items():
            for n, values in [*entry["per_table"].items(), ("all", entry)]:
                rows.append({"side": side, "policy": policy, "num_players": n,
                             **{k: values[k] for k in ("games", "win_rate", "ci_low", "ci_high")}})
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


# ================================================================ both kinds
def vs_heuristic(config: RunConfig, snapshots: dict[str, str] | None, baselines: bool) -> dict:
    """Per side: win rate (95% Wilson) of the trained snapshot against heuristic opponents, over
    ``evaluation.games_per_generation`` seeded games spread over the evaluation table sizes; with ``baselines``,
    also the heuristic's and random's win rates on the same deals. The per-generation check of every backend.

    Args:
        snapshots: ``{side key: checkpoint path}``, or ``None`` for the baselines alone.

    Returns:
        ``{side key: {policy: {"win_rate", "ci_low", "ci_high", "games", …}}}``.
    """
    game = config.game
    games = config.evaluation.games_per_generation
    names = (["trained"] if snapshots else []) + (["heuristic", "random"] if baselines else [])
    seed = derive_seed(config.seed, 7_777)
    if not game.team_play:
        return evaluate_seats(config, snapshots, names, games, seed)
    counts = config.eval_player_counts
    specs = {}
    for key in game.type.sides:
        specs[key] = {"heuristic": AgentSpec("heuristic", game=game.name), "random": AgentSpec("random", game=game.name)}
        if snapshots:
            specs[key]["trained"] = AgentSpec("policy", snapshots[key], config.deterministic(key), game.name)
    per_count = max(1, games // len(counts))
    pairs = [(name, "heuristic") for name in names] + [("heuristic", name) for name in names if name != "heuristic"]
    cells = evaluate_matrix(specs, counts, per_count, seed=seed, claims=config.env.claims, workers=1, pairs=pairs,
                            game=game)
    pooled = {(c.row, c.column): c for c in cells if c.num_players == "all"}
    result: dict = {key: {} for key in game.type.sides}
    for name in names:
        for side, key in enumerate(game.type.sides):
            result[key][name] = _side_rate(pooled[_against_heuristic(side, name)], side)
    return result


def versus_heuristic_line(check: dict, game: Game | str = DEFAULT_GAME) -> str:
    """Each trained side's win rate against heuristic opponents beside the heuristic's own in that side."""
    game = load_game(game)
    parts = [
        f"trained {label} win {check[key]['trained']['win_rate']:.2f} "
        f"(heuristic {label} {check[key]['heuristic']['win_rate']:.2f})"
        for key, label in zip(game.type.sides, game.type.side_labels)
        if key in check
    ]
    return "against heuristic opponents, " + ", ".join(parts)


def complete_generation(run: RunFolder, state: dict, record: dict, game: Game | str = DEFAULT_GAME) -> None:
    """Count a trained generation as completed: its ``record`` joins ``state``'s history, ``state.json`` is written
    (last of the state: only then does the generation count, so a kill before it is discarded on resume), then
    ``generations.csv`` and, once a generation was checked against the heuristic, ``winrates.png``."""
    from .run import write_generations_csv

    state["history"].append(record)
    state["completed_generations"] = record["generation"]
    run.write_state(state)
    write_generations_csv(run, state["history"])
    if any(h.get("vs_heuristic") for h in state["history"]):
        plot_generations(state["history"], run.path / "winrates.png", game)


def plot_generations(history: list[dict], path: Path, game: Game | str = DEFAULT_GAME) -> None:
    """``winrates.png``: per side, the trained policy's win rate against the heuristic per generation (95% bars),
    with the heuristic's and random's win rates in the same side against the same opponents as lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    game = load_game(game)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.4), sharey=True)
    games = sorted(
        {p["trained"]["games"] for h in history for p in (h.get("vs_heuristic") or {}).values() if "trained" in p}
    )
    over = f"{games[0]}" if len(games) == 1 else f"{games[0]}–{games[-1]}" if games else "the"
    fig.suptitle(f"Win rate against the heuristic; error bars: 95% Wilson intervals over {over} games per generation")
    sides, labels = game.type.sides, game.type.side_labels
    for side, (ax, team) in enumerate(zip(axes, sides)):
        points = [(h["generation"], h["vs_heuristic"][team]) for h in history if h.get("vs_heuristic")]
        if points:
            gens = [g for g, _ in points]  # 1-based in state.json
            rates = np.array([p["trained"]["win_rate"] for _, p in points])
            lows = np.array([p["trained"]["ci_low"] for _, p in points])
            highs = np.array([p["trained"]["ci_high"] for _, p in points])
            ax.errorbar(
                gens,
                rates,
                yerr=np.clip([rates - lows, highs - rates], 0, None),
                marker="o",
                capsize=3,
                label="trained",
            )
            last = points[-1][1]
            for name, style in (("heuristic", "--"), ("random", ":")):
                if name in last:
                    ax.axhline(
                        last[name]["win_rate"],
                        linestyle=style,
                        color="grey" if name == "heuristic" else "black",
                        label=name,
                    )
            ax.set_xticks(gens)
        ax.set_title(f"{labels[side]} vs heuristic {labels[1 - side]}")
        ax.set_xlabel("generation")
        ax.set_ylim(-0.02, 1.02)  # a rate of exactly 0 or 1 stays visible
        ax.grid(alpha=0.3)
        ax.legend(loc="best")
    axes[0].set_ylabel("win rate")
    save_figure(fig, path)


def save_figure(fig, path: Path) -> None:
    """Lay out, write and close a matplotlib figure as PNG at ``path`` (100 dpi; through a temporary file, so a
    kill never leaves half an image behind the final name). Every backend's ``winrates.png``."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    tmp = path.with_name(path.stem + ".tmp.png")
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    tmp.replace(path)


def evaluation_stem(config: RunConfig, completed: int, generation: int, games: int) -> str:
    """File stem of an evaluation: ``evaluation`` for the default one (newest generation, the config's games per
    cell), else ``evaluation_gen002_games30`` (generation 2, 1-based; 30 games per cell)."""
    if generation == completed - 1 and games == config.evaluation.games:
        return "evaluation"
    return f"evaluation_gen{generation + 1:03d}_games{games}"


def evaluation_is_current(config: RunConfig, run: RunFolder) -> bool:
    """Whether the run's default ``evaluation.json`` evaluates its newest completed generation with the config's
    games per cell, table sizes and ``deterministic`` (so a re-run would reproduce it)."""
    completed = run.completed_generations()
    path = run.path / "evaluation.json"
    if completed == 0 or not path.is_file():
        return False
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        report.get("generation") == completed  # 1-based: the newest completed generation
        and report.get("games_per_cell") == config.evaluation.games
        and report.get("player_counts") == config.eval_player_counts
        and report.get("deterministic") == config.evaluation.deterministic
        and all((run.path / f"evaluation.{ext}").is_file() for ext in ("csv", "md"))
    )


def evaluate_run(
    config: RunConfig,
    run: RunFolder,
    generation: int | None = None,
    games: int | None = None,
    workers: int | None = None,
    progress: bool | None = None,
) -> dict:
    """Evaluate a run's snapshots and write the report files (see the module doc). Any backend's run: of a
    ``backend: rllib`` run the side modules of the iteration (:func:`training.rllib.checkpoints.trained_module_specs`),
    its report with ``"backend": "rllib"``; its ``winrates.png`` (training win rates) is left as it is.

    Args:
        generation: 0-based generation to evaluate; ``None`` = the newest completed one.
        games: games per cell (a game with individual rewards: per side, policy and table size); ``None`` =
            ``evaluation.games`` of the config.
        workers: processes of a zero-sum team game's matrix; ``None`` = ``evaluation.workers`` of the config.
        progress: tqdm bar over the matrix's games; ``None`` = ``training.progress_bar`` of the config.

    Returns:
        the content of the written ``.json`` file, plus ``"files"``: the paths written. Only the default
        evaluation (newest generation, the config's games) writes ``evaluation.*`` and redraws ``winrates.png``;
        any other writes ``evaluation_gen<G>_games<N>.*`` (:func:`evaluation_stem`).

    Raises:
        PolicyLoadError: if the run has no completed generation or the snapshot is missing.
        EvaluationError: if ``generation`` is not a completed generation or ``games``/``workers`` is below 1.
    """
    state = run.read_state()  # once: the generations completed and the history for the plot
    completed = run.completed_generations(state)
    if completed == 0:
        raise PolicyLoadError(f"run {str(run.path)!r} has no completed generation to evaluate (no checkpoint)")
    if generation is None:
        generation = completed - 1
    if not 0 <= generation < completed:
        valid = "1" if completed == 1 else f"1–{completed}"
        raise EvaluationError(
            f"--generation {generation + 1} is out of range: run {str(run.path)!r} has completed "
            f"{completed} generation{'s' if completed != 1 else ''}; expected {valid}"
        )
    games = config.evaluation.games if games is None else games
    if games < 1:
        raise EvaluationError(f"--games {games}: expected at least 1 game per cell")
    workers = config.evaluation.workers if workers is None else workers
    if workers < 1:
        raise EvaluationError(f"--workers {workers}: expected at least 1 worker process")
    game = config.game
    sides = game.type.sides
    det = {key: config.deterministic(key) for key in sides}
    rllib = config.backend == "rllib"
    if rllib:  # an RLlib run (training/rllib/): its side modules; the same cells, checks and files
        from .rllib.checkpoints import trained_module_specs

        snapshots, trained = trained_module_specs(run, generation, det, game)
    else:
        snapshots = {key: run.checkpoint(generation, key) for key in sides}
        for path in snapshots.values():
            if not path.is_file():
                raise PolicyLoadError(f"checkpoint {str(path)!r} does not exist; train first or pick another --generation")
        trained = {key: AgentSpec("policy", str(path), det[key], game.name) for key, path in snapshots.items()}
    stem = evaluation_stem(config, completed, generation, games)
    files = [run.path / f"{stem}.{ext}" for ext in ("json", "csv", "md")]
    step = " (RLlib), iteration" if rllib else ", generation"
    title = f"Evaluation of run {config.name!r}{step} {generation + 1}, {games} games per cell"
    report = {
        "run": config.name,
        **({"backend": "rllib"} if rllib else {}),
        "generation": generation + 1,  # 1-based, as in state.json and the checkpoint folders
        "checkpoints": {key: str(path) for key, path in snapshots.items()},
        "games_per_cell": games,
        "player_counts": config.eval_player_counts,
        "deterministic": config.evaluation.deterministic,
    }
    if game.team_play:
        specs = {
            key: {"trained": trained[key], "heuristic": AgentSpec("heuristic", game=game.name),
                  "random": AgentSpec("random", game=game.name)}
            for key in sides
        }
        cells = evaluate_matrix(
            specs,
            config.eval_player_counts,
            games,
            seed=config.seed + 1_000_003,  # deals apart from the training games
            claims=config.env.claims,
            workers=workers,
            pairs=VS_HEURISTIC if config.evaluation.cells == "vs_heuristic" else None,
            progress=config.training.progress_bar if progress is None else progress,
            game=game,
        )
        checks = learning_checks(cells, game)
        report.update(
            cells=[c.as_row(game) for c in cells],
            learning_checks=checks,
            size_checks={str(n): row for n, row in size_checks(cells, game=game).items()},
        )
        texts = (cells_csv(cells, game), markdown_report(cells, checks, title, game))
    else:
        per_run = games * len(config.eval_player_counts)
        seats = evaluate_seats(config, {key: str(path) for key, path in snapshots.items()}, POLICIES, per_run,
                               derive_seed(config.seed, 31_337))
        report.update(games_per_table=games, report=seats, learning_checks=seat_learning_checks(seats))
        texts = (seat_csv(seats), seat_markdown_report(seats, title, game))
    atomic_write_text(files[0], json.dumps(report, indent=2))
    atomic_write_text(files[1], texts[0])
    atomic_write_text(files[2], texts[1])
    # An RLlib run's history holds no vs_heuristic checks: its own winrates.png (training win rates) stays.
    if stem == "evaluation" and state and any(h.get("vs_heuristic") for h in state.get("history", ())):
        files.append(run.path / "winrates.png")
        plot_generations(state["history"], files[-1], game)
    return {**report, "files": [str(f) for f in files]}


def open_run_folder(path: str | Path) -> RunFolder:
    """A run folder given on the command line, checked to exist and hold ``config.yaml``.

    Raises:
        EvaluationError: naming the folder (and the run folders beside it, if any) when it is missing, is a file,
            or holds no ``config.yaml``.
    """
    run = RunFolder(Path(path))
    if not run.path.exists():
        parent = run.path.parent
        beside = sorted(p.name for p in parent.iterdir() if p.is_dir()) if parent.is_dir() else []
        hint = f"; folders in {str(parent)!r}: {', '.join(beside)}" if beside else ""
        raise EvaluationError(f"run folder {str(run.path)!r} does not exist{hint}")
    if not run.path.is_dir():
        raise EvaluationError(f"--run {str(run.path)!r} is a file; expected a run folder such as runs/quick")
    if not run.config_path.is_file():
        runs = sorted(p.name for p in run.path.iterdir() if (p / "config.yaml").is_file())
        hint = f"; run folders in it: {', '.join(runs)}" if runs else ""
        raise EvaluationError(
            f"folder {str(run.path)!r} has no config.yaml, so it is not a run folder (traitors-train writes "
            f"config.yaml when a run starts){hint}"
        )
    return run


def main(argv: Sequence[str] | None = None) -> int:
    """``traitors-eval``: evaluate a run folder of any game (see module doc); without ``--run``, the benchmark kit
    (``traitors-eval --agents SPEC …``, :mod:`traitors_env.evaluation.cli`)."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if not any(a == "--run" or a.startswith("--run=") for a in arguments):
        from traitors_env.evaluation.cli import main as benchmark_main

        return benchmark_main(arguments)
    parser = argparse.ArgumentParser(
        prog="traitors-eval",
        description="Evaluate a training run's policies. The default evaluation (newest generation, the config's "
        "games) writes evaluation.{json,csv,md} and winrates.png in the run folder; any other writes "
        "evaluation_gen<G>_games<N>.{json,csv,md} beside them.",
    )
    parser.add_argument("--run", required=True, help="the run folder (e.g. runs/quick)")
    parser.add_argument(
        "--generation", type=int, default=None, help="generation to evaluate, 1-based (default: newest)"
    )
    parser.add_argument("--games", type=int, default=None, help="games per cell, >= 1 (default: the run's config)")
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: the run's config)")
    args = parser.parse_args(argv)
    try:
        run = open_run_folder(args.run)
        config = load_config(run.config_path)
        generation = None if args.generation is None else args.generation - 1
        report = evaluate_run(config, run, generation, games=args.games, workers=args.workers)
    except (ConfigError, PolicyLoadError, EvaluationError, RunFolderError) as error:
        print(f"traitors-eval: error: {error}", file=sys.stderr)
        return 2
    files = [Path(f) for f in report["files"]]
    print(files[2].read_text(encoding="utf-8"))
    print(f"written in {run.path}: " + ", ".join(f.name for f in files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
