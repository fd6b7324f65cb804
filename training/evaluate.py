"""Evaluation: win rates with 95% Wilson intervals of every policy as Pirates against every policy as Mutineers.

``traitors-eval --run runs/quick`` (or ``python -m training.evaluate``) evaluates the newest
checkpoint of a run with the config's games per cell and writes into the run folder:

- ``evaluation.json``: every cell (table size × Pirates policy × Mutineers policy): games,
  Pirates' wins, win rates and 95% Wilson intervals; pooled cells over all table sizes; the
  learning checks.
- ``evaluation.csv``: the same cells, one row each.
- ``evaluation.md``: per table size a matrix of the Pirates' win rate, rows = Pirates
  policy, columns = Mutineers policy; then the learning checks.
- ``winrates.png``: the trained teams' win rates against the heuristic across generations
  (from the run's per-generation checks), beside the heuristic's and random's own win
  rates against the heuristic.

An evaluation of another generation (``--generation``) or with another number of games
(``--games``) leaves these files alone and writes ``evaluation_gen002_games30.json`` / ``.csv``
/ ``.md`` instead (generation 2, 30 games per cell); it does not redraw ``winrates.png``.

Policies: ``trained`` (the run's snapshot of that team), ``heuristic`` and ``random``
(:mod:`traitors_env.agents`). Games are seeded: game ``i`` at table size ``n`` is dealt from
the same seed in every cell, so cells compare policies on the same deals.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from traitors_env.evaluation import wilson_interval
from traitors_env.evaluation.crossplay import game_seed, play_cells  # noqa: F401  (game_seed re-exported)

from .agents import AgentSpec, PolicyLoadError
from .config import ConfigError, RunConfig, load_config
from .storage import RunFolder, RunFolderError, atomic_write_text

POLICIES = ("trained", "heuristic", "random")


class EvaluationError(ValueError):
    """An evaluation that cannot run as asked (bad --generation/--games, not a run folder); the message says why."""


@dataclass
class Cell:
    """The games of one (table size, Pirates policy, Mutineers policy)."""

    num_players: int | str  # "all" for pooled cells
    pirates: str
    mutineers: str
    games: int
    pirate_wins: int

    @property
    def pirates_win_rate(self) -> float:
        return self.pirate_wins / self.games if self.games else float("nan")

    def as_row(self) -> dict:
        low, high = wilson_interval(self.pirate_wins, self.games)
        m_low, m_high = 1 - high, 1 - low
        return {
            **asdict(self),
            "pirates_win_rate": round(self.pirates_win_rate, 4),
            "pirates_ci_low": round(low, 4),
            "pirates_ci_high": round(high, 4),
            "mutineers_win_rate": round(1 - self.pirates_win_rate, 4),
            "mutineers_ci_low": round(m_low, 4),
            "mutineers_ci_high": round(m_high, 4),
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
) -> list[Cell]:
    """Win counts of Pirates policies against Mutineers policies.

    Args:
        specs: ``{"pirates": {name: AgentSpec}, "mutineers": {name: AgentSpec}}``; names from :data:`POLICIES`.
        player_counts: table sizes.
        games: seeded games per cell.
        seed: base seed of the deals and agents.
        workers: processes (1 = this process).
        pairs: ``(pirates name, mutineers name)`` cells to play; default every pair.
        progress: show a tqdm progress bar over the games (on stderr).

    Returns:
        one :class:`Cell` per table size and pair, then one pooled cell (``num_players="all"``) per pair.
    """
    if pairs is None:
        pairs = [(p, m) for p in specs["pirates"] for m in specs["mutineers"]]
    # The benchmark kit plays the games: each game's deal and agents are seeded from its own index, so
    # the counts are the same for any number of workers (traitors_env.evaluation.crossplay).
    cells_to_play = [
        (n, p_name, specs["pirates"][p_name], m_name, specs["mutineers"][m_name])
        for n in player_counts
        for p_name, m_name in pairs
    ]
    played = play_cells(cells_to_play, games, seed=seed, claims=claims, workers=workers, progress=progress,
                        desc="evaluation")
    if played.failures:
        first = played.failures[0]
        raise EvaluationError(f"agent {first['agent']!r} failed playing the {first['team']}: {first['error']}")
    if played.interrupted:
        raise KeyboardInterrupt
    totals = {key: (cell.games, cell.pirate_wins) for key, cell in played.cells.items()}
    cells = [Cell(n, p, m, g, w) for (n, p, m), (g, w) in totals.items()]
    cells.sort(key=lambda c: (c.num_players, POLICIES.index(c.pirates), POLICIES.index(c.mutineers)))
    for p_name, m_name in pairs:
        same = [c for c in cells if c.pirates == p_name and c.mutineers == m_name]
        cells.append(Cell("all", p_name, m_name, sum(c.games for c in same), sum(c.pirate_wins for c in same)))
    return cells


def _team_rate(cell: Cell, team: str) -> dict:
    """``team``'s win rate in ``cell`` with its 95% Wilson interval and the number of games."""
    wins = cell.pirate_wins if team == "pirates" else cell.games - cell.pirate_wins
    low, high = wilson_interval(wins, cell.games)
    return {"win_rate": wins / cell.games, "ci_low": low, "ci_high": high, "games": cell.games}


def learning_checks(cells: list[Cell]) -> dict:
    """The acceptance checks, pooled over table sizes, for each team against heuristic opponents.

    ``trained_beats_random``: the trained policy's win rate is above the random policy's, with the
    95% intervals apart. ``trained_beats_heuristic``: likewise against the heuristic policy's
    own win rate in the same role and against the same opponents.
    """
    pooled = {(c.pirates, c.mutineers): c for c in cells if c.num_players == "all"}
    result = {}
    for team, key in (("pirates", lambda p: (p, "heuristic")), ("mutineers", lambda p: ("heuristic", p))):
        rates = {}
        for policy in POLICIES:
            cell = pooled.get(key(policy))
            if cell is None:
                continue
            rates[policy] = _team_rate(cell, team)
        entry = {"vs": "heuristic " + ("mutineers" if team == "pirates" else "pirates"), "win_rates": rates}
        if "trained" in rates:
            trained = rates["trained"]
            for other in ("random", "heuristic"):
                if other in rates:
                    entry[f"trained_beats_{other}"] = bool(trained["ci_low"] > rates[other]["ci_high"])
        result[team] = entry
    return result


#: the cells that decide the learning checks: each team's three policies against the other team's heuristic
VS_HEURISTIC = (
    ("trained", "heuristic"),
    ("heuristic", "heuristic"),
    ("random", "heuristic"),
    ("heuristic", "trained"),
    ("heuristic", "random"),
)
#: the per-table-size target (issue 13): trained beats the heuristic policy by this much, intervals apart
SIZE_MARGIN = 0.10


def size_checks(cells: list[Cell], margin: float = SIZE_MARGIN) -> dict:
    """Per table size and team, against heuristic opponents: the trained and the heuristic policy's win rates
    in the same role on the same deals (95% Wilson intervals), their difference, and ``passes``: the trained
    policy wins by at least ``margin`` with the intervals apart.

    Returns:
        ``{num_players: {team: {"trained": {...}, "heuristic": {...}, "difference": float, "passes": bool}}}``,
        sizes that lack one of the cells left out.
    """
    out: dict = {}
    by_key = {(c.num_players, c.pirates, c.mutineers): c for c in cells if c.num_players != "all"}
    for n in sorted({c.num_players for c in cells if c.num_players != "all"}):
        row = {}
        for team in ("pirates", "mutineers"):
            rates = {}
            for policy in ("trained", "heuristic"):
                cell = by_key.get((n, policy, "heuristic") if team == "pirates" else (n, "heuristic", policy))
                if cell is None:
                    break
                rates[policy] = _team_rate(cell, team)
            else:
                difference = rates["trained"]["win_rate"] - rates["heuristic"]["win_rate"]
                apart = rates["trained"]["ci_low"] > rates["heuristic"]["ci_high"]
                # a little slack on the margin: the rates are fractions of whole games
                row[team] = {**rates, "difference": difference, "passes": bool(difference >= margin - 1e-9 and apart)}
        if row:
            out[n] = row
    return out


def _pct(rate: float) -> str:
    return f"{100 * rate:.1f}"


def markdown_report(cells: list[Cell], checks: dict, title: str) -> str:
    """The evaluation as markdown: a Pirates-win-rate matrix per table size, then the learning checks."""
    out = [
        f"# {title}",
        "",
        "Pirates' win rate in % [95% Wilson interval]; rows: Pirates policy, columns: Mutineers policy.",
        "",
    ]
    counts = []
    for c in cells:
        if c.num_players not in counts:
            counts.append(c.num_players)
    for n in counts:
        table = {(c.pirates, c.mutineers): c for c in cells if c.num_players == n}
        mutineers = [m for m in POLICIES if any(k[1] == m for k in table)]
        pirates = [p for p in POLICIES if any(k[0] == p for k in table)]
        games = next(iter(table.values())).games
        heading = "all table sizes pooled" if n == "all" else f"{n} players"
        out += [f"## {heading} ({games} games per cell)", ""]
        out.append("| Pirates \\ Mutineers | " + " | ".join(mutineers) + " |")
        out.append("|---|" + "---|" * len(mutineers))
        for p in pirates:
            row = []
            for m in mutineers:
                cell = table.get((p, m))
                if cell is None:
                    row.append("")
                    continue
                low, high = wilson_interval(cell.pirate_wins, cell.games)
                row.append(f"{_pct(cell.pirates_win_rate)} [{_pct(low)}, {_pct(high)}]")
            out.append(f"| {p} | " + " | ".join(row) + " |")
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
    sizes = size_checks(cells)
    if sizes:
        out += [
            f"## Per table size: trained vs heuristic policy, against heuristic opponents (≥ {100 * SIZE_MARGIN:.0f} "
            "points, intervals apart)",
            "",
            "| players | Pirates: trained | Pirates: heuristic | passes | Mutineers: trained | Mutineers: heuristic | passes |",
            "|---:|---|---|---|---|---|---|",
        ]
        for n, row in sizes.items():
            parts = []
            for team in ("pirates", "mutineers"):
                e = row.get(team)
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


def cells_csv(cells: list[Cell]) -> str:
    rows = [c.as_row() for c in cells]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def plot_generations(history: list[dict], path: Path) -> None:
    """``winrates.png``: per team, the trained policy's win rate against the heuristic per generation (95% bars),
    with the heuristic's and random's win rates in the same role against the same opponents as lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4.4), sharey=True)
    games = sorted(
        {p["trained"]["games"] for h in history for p in (h.get("vs_heuristic") or {}).values() if "trained" in p}
    )
    over = f"{games[0]}" if len(games) == 1 else f"{games[0]}–{games[-1]}" if games else "the"
    fig.suptitle(f"Win rate against the heuristic; error bars: 95% Wilson intervals over {over} games per generation")
    for ax, team in zip(axes, ("pirates", "mutineers")):
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
        opponents = "Mutineers" if team == "pirates" else "Pirates"
        ax.set_title(f"{team.capitalize()} vs heuristic {opponents}")
        ax.set_xlabel("generation")
        ax.set_ylim(-0.02, 1.02)  # a rate of exactly 0 or 1 stays visible
        ax.grid(alpha=0.3)
        ax.legend(loc="best")
    axes[0].set_ylabel("win rate")
    save_figure(fig, path)


def save_figure(fig, path: Path) -> None:
    """Lay out, write and close a matplotlib figure as PNG at ``path`` (100 dpi; through a temporary file, so a
    kill never leaves half an image behind the final name). Both backends' ``winrates.png``."""
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
    """Evaluate a run's snapshots and write the report files (see the module doc). Either backend's run: of a
    ``backend: rllib`` run the team modules of the iteration (:func:`training.rllib.runner.trained_module_specs`),
    its report with ``"backend": "rllib"``; its ``winrates.png`` (training win rates) is left as it is.

    Args:
        generation: 0-based generation to evaluate; ``None`` = the newest completed one.
        games: games per cell; ``None`` = ``evaluation.games`` of the config.
        workers: processes; ``None`` = ``evaluation.workers`` of the config.
        progress: tqdm bar over the games; ``None`` = ``training.progress_bar`` of the config.

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
    det = {team: config.deterministic(team) for team in config.teams}
    rllib = config.backend == "rllib"
    if rllib:  # an RLlib run (training/rllib/): its team modules; the same cells, checks and files
        from .rllib.runner import trained_module_specs

        snapshots, trained = trained_module_specs(run, generation, det)
    else:
        snapshots = {team: run.checkpoint(generation, team) for team in ("pirates", "mutineers")}
        for path in snapshots.values():
            if not path.is_file():
                raise PolicyLoadError(f"checkpoint {str(path)!r} does not exist; train first or pick another --generation")
        trained = {team: AgentSpec("policy", str(path), det[team]) for team, path in snapshots.items()}
    specs = {
        team: {"trained": trained[team], "heuristic": AgentSpec("heuristic"), "random": AgentSpec("random")}
        for team in ("pirates", "mutineers")
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
    )
    checks = learning_checks(cells)
    report = {
        "run": config.name,
        **({"backend": "rllib"} if rllib else {}),
        "generation": generation + 1,  # 1-based, as in state.json and the checkpoint folders
        "checkpoints": {team: str(path) for team, path in snapshots.items()},
        "games_per_cell": games,
        "player_counts": config.eval_player_counts,
        "deterministic": config.evaluation.deterministic,
        "cells": [c.as_row() for c in cells],
        "learning_checks": checks,
        "size_checks": {str(n): row for n, row in size_checks(cells).items()},
    }
    stem = evaluation_stem(config, completed, generation, games)
    files = [run.path / f"{stem}.{ext}" for ext in ("json", "csv", "md")]
    atomic_write_text(files[0], json.dumps(report, indent=2))
    atomic_write_text(files[1], cells_csv(cells))
    step = " (RLlib), iteration" if rllib else ", generation"
    title = f"Evaluation of run {config.name!r}{step} {generation + 1}, {games} games per cell"
    atomic_write_text(files[2], markdown_report(cells, checks, title))
    # An RLlib run's history holds no vs_heuristic checks: its own winrates.png (training win rates) stays.
    if stem == "evaluation" and state and any(h.get("vs_heuristic") for h in state.get("history", ())):
        files.append(run.path / "winrates.png")
        plot_generations(state["history"], files[-1])
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
    """``traitors-eval``: evaluate a run folder (see module doc); without ``--run``, the benchmark kit
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
        if config.env.name == "the_traitors_v0":  # one policy per role: its own evaluation
            raise EvaluationError(
                f"run {args.run!r} trained the_traitors_v0; evaluate it with "
                f"'python -m training.the_traitors_train --run {args.run}' or benchmark it with "
                f"'traitors-eval --game the_traitors --agents heuristic {args.run}'"
            )
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
