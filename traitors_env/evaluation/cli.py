"""``traitors-eval --agents SPEC … [--game NAME]``: the benchmark kit's command (cross-play, ratings, meta-game, metrics).

For any registered game (``--game``, default :data:`~traitors_env.core.registry.DEFAULT_GAME`): every agent
plays the game's row side (``type.sides[0]``: Traitors Aboard's Pirates, The Traitors' Traitor) against every
agent at the other side's seats, at each table size; see :mod:`.crossplay` (games), :mod:`.report`
(report.json, report.md), :mod:`.plots` (PNG files).
Exit status: 0 done; 1 an agent failed mid-run or the run was interrupted (the report holds every
finished game and names the failure); 2 bad input (nothing played).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from ..agents.llm import add_llm_arguments, llm_options_from_args
from ..cli_args import GameOption
from ..cli_args import seed as seed_argument
from ..core.game import Game, add_claims_arguments, claims_from_args, sizes_text
from ..core.registry import DEFAULT_GAME, load_game
from ..files import atomic_write_text, output_problem
from .crossplay import play_cells
from .population import Population, PopulationError, load_population_file, parse_population

__all__ = ["main", "run_benchmark"]


def run_benchmark(
    population: Population,
    players: Sequence[int],
    games: int,
    out: str | Path,
    seed: int = 0,
    claims: bool | None = None,
    workers: int = 1,
    anchor: Sequence[str] = (),
    records: int = 0,
    plots: bool = True,
    progress: bool = False,
    game: str | Game = DEFAULT_GAME,
    beliefs: bool = True,
    llm=None,
    llm_concurrency: int = 1,
    exploitability: Sequence[str] = (),
    reference: str | None = None,
) -> dict:
    """Check every spec, play the cross-play, write ``report.json``, ``report.md`` and the plots into ``out``.

    Args:
        population: the agents (:mod:`.population`).
        players: table sizes (the game's ``min_players``–``max_players``); games: per cell; seed: base seed;
            claims: the game's claims option (``None``: the game's default, :attr:`Game.default_claims`).
        workers: processes (results are identical for any number).
        anchor: if given, only the cells in which one side is one of these agents.
        records: keep the game records of the first ``records`` games of each cell in ``out/records/``
            (a game with the ``records`` capability only).
        game: a registry name (default :data:`~traitors_env.core.registry.DEFAULT_GAME`) or a :class:`Game`.
        beliefs: score the role beliefs of the agents that have them (the report's ``deduction``, ``beliefs.png``).
        llm: the :class:`~traitors_env.agents.llm.LLMOptions` of the ``openai:MODEL`` agents (default:
            ``LLMOptions()``); written into the report's settings without secrets (the key variable's name only).
        llm_concurrency: games with a language-model seat played at once, in threads (results do not depend on it).
        exploitability: ``traitors-exploit`` reports (``[NAME=]PATH``) attached to the agents under the report's
            ``exploitability`` key (:mod:`.exploitability`; read before any game is played).
        reference: the agent the summary's margins are taken over (:mod:`.summary`, ``margin``; with ``anchor``
            one of the anchors); default: the first agent whose spec is ``heuristic`` (among the anchors, if any),
            else no margins.

    Returns:
        the report (see :mod:`.report`) plus ``"files"``: the paths written.

    Raises:
        AgentSpecError: naming the first spec that names no agent (before any game is played).
        ValueError: for an unknown game (``UnknownGameError``), bad table sizes, games, workers, anchors or
            reference, or
            ``records`` for a game without records (``MissingCapabilityError``), or an ``exploitability`` entry
            that cannot be read or attached (``ExploitabilityError``).
    """
    from ..agents.llm import LLMOptions, LLMSpec, is_llm_spec
    from ..agents.spec import agent_maker
    from .exploitability import load_exploitability, nash_conv, note_settings
    from .report import build_report
    from .summary import default_reference, summarize_agents

    game = load_game(game)
    claims = game.default_claims if claims is None else bool(claims)
    players = list(dict.fromkeys(int(n) for n in players))  # a size given twice is played once
    _check_arguments(game, population.names, players, games, workers, records, llm_concurrency, out, anchor, reference)
    names = population.names
    reference = reference or default_reference(population.specs, anchor)

    exploits = load_exploitability(exploitability, population, game)
    note_settings(exploits, players, claims)

    llm = llm or LLMOptions()
    specs = {}
    for name, spec in population.specs.items():
        agent_maker(spec, game=game.name, llm=llm)  # raises AgentSpecError naming the spec, before anything is played
        specs[name] = LLMSpec(spec, game.name, llm) if is_llm_spec(spec) else spec
    cells = [
        (n, p, specs[p], m, specs[m])
        for n in players
        for p in names
        for m in names
        if not anchor or p in anchor or m in anchor
    ]
    started = time.perf_counter()
    crossplay = play_cells(cells, games, seed=seed, claims=claims, workers=workers, progress=progress,
                           records_per_cell=records, game=game, beliefs=beliefs, threads=llm_concurrency)
    settings = {"game": game.name, "players": players, "games": games, "seed": seed, "claims": claims, "anchor": list(anchor),
                "reference": reference, "seconds": round(time.perf_counter() - started, 1)}
    if any(is_llm_spec(spec) for spec in population.specs.values()):
        settings["llm"] = {**llm.public(), "concurrency": llm_concurrency}
    report = build_report(population, crossplay, settings)
    if exploits:
        report["exploitability"] = exploits
        conv = nash_conv(exploits, game)
        if conv:
            report["nash_conv"] = conv
    report["summary"] = summarize_agents(report, game)  # with whatever was added after build_report (exploitability)
    files = _write_outputs(report, crossplay.records, Path(out), plots, game)
    return {**report, "files": [str(f) for f in files]}


def _check_arguments(game: Game, names: Sequence[str], players: list[int], games: int, workers: int, records: int,
                     llm_concurrency: int, out: str | Path, anchor: Sequence[str], reference: str | None) -> None:
    """:func:`run_benchmark`'s ``ValueError`` (or ``MissingCapabilityError``) for the first argument it cannot take,
    before anything is read or played."""
    from ..core.game import MissingCapabilityError

    bad = [n for n in players if n not in game.type.player_counts]
    if bad or not players:
        raise ValueError(f"--players {bad or players}: expected table sizes in {sizes_text(game.type)} ({game.type.env_id})")
    if records and game.records is None:
        raise MissingCapabilityError(f"--records {records}: {game.type.env_id} has no game records")
    limits = (("--games", games, 1), ("--workers", workers, 1), ("--records", records, 0),
              ("--llm-concurrency", llm_concurrency, 1))
    bad_limits = [f"{flag} {value}: expected at least {least}" for flag, value, least in limits if value < least]
    if bad_limits:
        raise ValueError("; ".join(bad_limits))
    problem = output_problem(out)
    if problem:
        raise ValueError(f"--out {problem}")
    if not names:
        raise ValueError("no agents given; expected at least one spec (e.g. --agents random heuristic)")
    unknown = [a for a in anchor if a not in names]
    if unknown:
        raise ValueError(f"--anchor {unknown}: not agents of the population ({', '.join(names)})")
    if reference is not None and reference not in names:
        raise ValueError(f"--reference {reference!r}: not an agent of the population ({', '.join(names)})")
    if reference is not None and anchor and reference not in anchor:
        raise ValueError(f"--reference {reference!r}: not among --anchor {list(anchor)}; its own cell (the margins' "
                         "baseline) is played only for an anchor")


def _write_outputs(report: dict, records: list, out: Path, plots: bool, game: Game) -> list[Path]:
    """Write ``report.json``, ``report.md``, the plots (with ``plots``) and the game ``records`` into ``out``, removing
    the kit's outputs of an earlier report there that this one does not rewrite; returns the paths written."""
    from .plots import plot_beliefs, plot_calibration, plot_crossplay, plot_metrics, plot_ratings
    from .report import markdown

    out.mkdir(parents=True, exist_ok=True)
    files = [out / "report.json", out / "report.md"]
    text = markdown(report)  # before either file is written: one that fails leaves the earlier pair as it was
    atomic_write_text(files[0], json.dumps(report, indent=1))
    atomic_write_text(files[1], text)
    # A reused --out folder: the kit's own outputs of an earlier report that this one does not rewrite would
    # stand beside it as if they were its (plots after --no-plots, another population's game records).
    for name in ("crossplay.png", "ratings.png", "metrics.png", "beliefs.png", "calibration.png"):
        (out / name).unlink(missing_ok=True)
    for old in (out / "records").glob("*p_*_vs_*_game*.json"):
        old.unlink()
    if plots:
        for name, plot in (("crossplay.png", plot_crossplay), ("ratings.png", plot_ratings),
                           ("metrics.png", plot_metrics))[:3 if game.metrics is not None else 2]:
            files.append(out / name)
            plot(report, files[-1])
        if report["deduction"].get("agents"):
            files.append(out / "beliefs.png")
            plot_beliefs(report, files[-1])
            try:
                plot_calibration(report, out / "calibration.png")
                files.append(out / "calibration.png")
            except ValueError:  # every believer knows every seat (nothing to calibrate)
                pass
    if records:
        (out / "records").mkdir(exist_ok=True)
        for name, text in records:
            atomic_write_text(out / "records" / name, text + "\n")
    return files


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="traitors-eval",
        description="Benchmark agents: every agent at the game's row side (Traitors Aboard: the Pirates) against "
        "every agent at the other side, at each table size; writes report.json, report.md, crossplay.png, "
        "ratings.png, for a game with hidden-role metrics metrics.png, and for agents with role beliefs beliefs.png "
        "and calibration.png into --out. "
        "(traitors-eval --run RUN evaluates one training run instead.)",
        epilog="One training run instead: traitors-eval --run RUN [--generation G] [--games N] [--workers W] "
        "evaluates generation G (1-based, default the newest) of the run folder RUN against the heuristic and "
        "writes the report into RUN (needs the train extra; traitors-eval --run RUN --help for more). "
        "traitors-eval --league-plot RUN/league.json [--out FILE.png] draws a league's Nash weights over iterations "
        "(default RUN/league.png).",
    )
    parser.add_argument("--game", action=GameOption, default=DEFAULT_GAME,
                        help=f"the game (a registered name; default {DEFAULT_GAME})")
    parser.add_argument("--agents", nargs="+", default=[], metavar="SPEC",
                        help="agents: random, heuristic, a checkpoint (.zip, generation or run folder), "
                        "openai:MODEL (a language model, see --llm-*), "
                        "package.module:function; NAME=SPEC names one, NAME=SPEC1,SPEC2 groups training seeds")
    parser.add_argument("--agents-file", default=None,
                        help="YAML file with a list 'agents' of the same entries; read as data: an entry naming code "
                        "(package.module:function, file.py:function) is refused without --allow-code-specs")
    parser.add_argument("--allow-code-specs", action="store_true",
                        help="let the --agents-file name code (package.module:function, file.py:function), which is "
                        "imported and run: only for a file you trust as you would a Python script")
    parser.add_argument("--played", nargs="+", default=[], metavar="RECORD_OR_FOLDER",
                        help="instead of playing: win rates per player (seat label: human, human:NAME, a bot's spec) "
                             "and side from saved game records, e.g. traitors-play's (writes played.json, played.md "
                             "into --out, default reports/played)")
    parser.add_argument("--league-plot", default=None, metavar="LEAGUE_JSON",
                        help="draw the league's Nash weights over iterations from a league.json (plots.league_weights) "
                        "into --out (default: league.png beside it) and exit; no games are played")
    parser.add_argument("--players", type=int, nargs="+", default=None,
                        help="table sizes (default: every size the game allows)")
    parser.add_argument("--games", type=int, default=100, help="seeded games per cell (default 100)")
    parser.add_argument("--out", default=None,
                        help="output folder (default reports/benchmark); with --league-plot the PNG file")
    parser.add_argument("--seed", type=seed_argument, default=0, help="base seed of the deals and agents (default 0)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (results do not depend on it)")
    add_claims_arguments(parser)
    parser.add_argument("--anchor", nargs="+", default=[], metavar="NAME",
                        help="only the cells in which one side is one of these agents (no meta-game then)")
    parser.add_argument("--reference", default=None, metavar="NAME",
                        help="the agent the summary's per-size margins are taken over (default: the first agent "
                        "whose spec is heuristic)")
    parser.add_argument("--records", type=int, default=0, help="keep the records of the first N games of each cell")
    parser.add_argument("--no-plots", action="store_true", help="write no PNG files")
    parser.add_argument("--no-beliefs", action="store_true",
                        help="do not score the role beliefs of agents that have them (the report's deduction section)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--exploitability", nargs="+", default=[], metavar="[NAME=]PATH",
                        help="traitors-exploit reports (exploit.json or its folder) to append under the report's "
                        "'exploitability' key: NAME=PATH for agent NAME, PATH alone for the agent whose spec is the "
                        "report's target")
    add_llm_arguments(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """``traitors-eval --agents …``; returns the exit status (see the module doc)."""
    from ..agents.spec import AgentSpecError

    args = build_parser().parse_args(argv)
    if args.league_plot:
        from .plots import plot_league

        target = Path(args.out) if args.out else Path(args.league_plot).with_name("league.png")
        try:
            problem = output_problem(target, folder=False)
            if problem:
                raise ValueError(f"--out {problem}" + (f" (e.g. {str(target / 'league.png')!r})" if target.is_dir()
                                                      else ""))
            target.parent.mkdir(parents=True, exist_ok=True)
            plot_league(args.league_plot, target)
        except ValueError as error:
            message = str(error) if str(error).startswith("--out") else f"--league-plot {error}"
            print(f"traitors-eval: error: {message}", file=sys.stderr)
            return 2
        print(f"written: {target}")
        return 0
    if args.played:
        return _played(args, list(sys.argv[1:] if argv is None else argv))
    args.out = args.out or "reports/benchmark"
    try:
        population = parse_population(args.agents)
        if args.agents_file:
            population.extend(load_population_file(args.agents_file, allow_code_specs=args.allow_code_specs))
        game = load_game(args.game)
        players = args.players or list(game.type.player_counts)
        report = run_benchmark(
            population, players, args.games, args.out, seed=args.seed, claims=claims_from_args(args, game),
            workers=args.workers, anchor=args.anchor, records=args.records, plots=not args.no_plots,
            progress=not args.no_progress, game=game, beliefs=not args.no_beliefs, llm=llm_options_from_args(args),
            llm_concurrency=args.llm_concurrency, exploitability=args.exploitability, reference=args.reference,
        )
    except (AgentSpecError, PopulationError, ValueError) as error:
        print(f"traitors-eval: error: {error}", file=sys.stderr)
        return 2
    print(Path(report["files"][1]).read_text(encoding="utf-8"))
    print(f"written: {', '.join(report['files'])}")
    if report["failures"] or report["interrupted"]:
        agents = sorted({f"{f['agent']} ({f['team']})" for f in report["failures"]})
        what = f"agent failures: {', '.join(agents)} (named in the report)" if agents else "interrupted"
        print(f"traitors-eval: {what}; the report keeps every finished game", file=sys.stderr)
        return 1
    return 0


def _played(args: argparse.Namespace, argv: list[str]) -> int:
    """``--played``: the report of :mod:`.played` from saved records; nothing is played."""
    from .played import PlayedError, played_markdown, played_report

    if args.agents or args.agents_file:
        print("traitors-eval: error: --played reads saved games; give it without --agents (which plays new ones)",
              file=sys.stderr)
        return 2
    out = Path(args.out or "reports/played")
    try:
        problem = output_problem(out) or next(
            (p for p in (output_problem(out / name, folder=False) for name in ("played.json", "played.md")) if p), None)
        if problem:
            raise ValueError(f"--out {problem}")
        explicit = any(a == "--game" or a.startswith("--game=") for a in argv)
        report = played_report(args.played, args.game if explicit else None)
    except (PlayedError, ValueError) as error:
        print(f"traitors-eval: error: {error}", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    markdown = played_markdown(report)
    atomic_write_text(out / "played.json", json.dumps(report, indent=2) + "\n")
    atomic_write_text(out / "played.md", markdown)
    print(markdown)
    print(f"written: {out / 'played.json'}, {out / 'played.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
