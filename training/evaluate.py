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
  other side's heuristic, also per table size (:func:`size_checks`; :mod:`training.evaluation_matrix`);
- **a game with individual rewards** (The Traitors): per side and policy, the policy at the one seat an agent
  of that side plays (:meth:`~traitors_env.core.Game.seat_for_agent`), every other seat played by the heuristic,
  per table size and pooled (:func:`evaluate_seats`; game ``g`` is dealt from ``seed + g``, the same deals for
  every policy); the learning check: trained's interval above random's (:mod:`training.evaluation_seats`).

An evaluation of another generation (``--generation``) or with another number of games (``--games``) leaves the
default files alone and writes ``evaluation_gen002_games30.json`` / ``.csv`` / ``.md`` instead (generation 2,
30 games per cell); it does not redraw ``winrates.png``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from traitors_env.agents.checkpoint import PolicyLoadError
from traitors_env.core import Game, load_game
from traitors_env.core.registry import DEFAULT_GAME
from traitors_env.core.stats import wilson_interval

from .agents import AgentSpec
from .config import ConfigError, RunConfig, load_config
from .evaluation_matrix import (
    POLICIES,
    SIZE_MARGIN,
    VS_HEURISTIC,
    Cell,
    EvaluationError,
    against_heuristic,
    cells_csv,
    evaluate_matrix,
    learning_checks,
    markdown_report,
    side_rate,
    size_checks,
)
from .evaluation_seats import evaluate_seats, play_seat_games, seat_csv, seat_learning_checks, seat_markdown_report
from .run import derive_seed
from .storage import RunFolder, RunFolderError, atomic_write_text

__all__ = [
    "POLICIES",
    "SIZE_MARGIN",
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
            result[key][name] = side_rate(pooled[against_heuristic(side, name)], side)
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
