"""Two benchmark reports side by side: ``python -m traitors_env.evaluation.compare DIR_A DIR_B --group A B``.

For each named agent or seed group (one per report), every metric per side of the reports' game: a seed
group's mean over seeds with its bootstrap interval, or a single agent's value with its interval. Used by the claims
ablation (``scripts/claims-ablation.sh``) to put the claims-on and claims-off arms next to each other.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from .report import report_game

__all__ = ["compare", "main"]


def _cell(report: dict, name: str, team: str, metric: str, percent: bool) -> str:
    fmt = (lambda x: f"{100 * x:.1f}") if percent else (lambda x: f"{x:+.2f}")
    group = report.get("seed_groups", {}).get(name)
    if group is not None:
        entry = group[team][metric]
        if entry["mean"] is None:
            return "–"
        interval = f" [{fmt(entry['interval'][0])}, {fmt(entry['interval'][1])}]" if entry["interval"] else ""
        return f"{fmt(entry['mean'])}{interval}"
    entry = report["metrics"].get(name, {}).get(team, {}).get(metric)
    if entry is None:
        raise KeyError(f"{name!r} is neither an agent nor a seed group of the report")
    if entry["value"] is None:
        return "–"
    return f"{fmt(entry['value'])} [{fmt(entry['interval'][0])}, {fmt(entry['interval'][1])}]"


def compare(reports: Sequence[dict], names: Sequence[str], labels: Sequence[str]) -> str:
    """Markdown: per side, one row per metric, one column per (report, agent or group).

    Raises:
        ValueError: for reports of different games.
    """
    games = {report_game(r).name for r in reports}
    if len(games) > 1:
        raise ValueError(f"the reports are of different games ({', '.join(sorted(games))}); compare reports of one game")
    game = report_game(reports[0])
    if game.metrics is None:
        return f"Nothing to compare: `{game.type.env_id}` has no hidden-role metrics.\n"
    metrics = list(game.metrics.METRICS)
    heads = []
    for report, name, label in zip(reports, names, labels):
        group = report.get("seed_groups", {}).get(name)
        seeds = f", {group['seeds']} seeds" if group else ""
        claims = "claims on" if report["settings"]["claims"] else "claims off"
        heads.append(f"{name} ({label}: {claims}{seeds})")
    out = []
    for team in game.type.sides:
        out += [f"### As the {team}", "", "| metric | " + " | ".join(heads) + " |", "|---|" + "---|" * len(heads)]
        for metric in metrics:
            cells = [_cell(r, n, team, metric.name, metric.kind == "rate") for r, n in zip(reports, names)]
            if all(c == "–" for c in cells):
                continue
            out.append(f"| {metric.name}{' (%)' if metric.kind == 'rate' else ''} | " + " | ".join(cells) + " |")
        out.append("")
    out.append("Seed groups: mean over seeds [95 % bootstrap interval over seeds]; single agents: value [95 % interval].")
    return "\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m traitors_env.evaluation.compare", description=__doc__.split("\n\n")[0])
    parser.add_argument("reports", nargs="+", help="report folders (or report.json files)")
    parser.add_argument("--group", nargs="+", required=True, help="the agent or seed group to show from each report")
    args = parser.parse_args(argv)
    if len(args.group) != len(args.reports):
        print("compare: error: give one --group name per report", file=sys.stderr)
        return 2
    reports = []
    for path in args.reports:
        path = Path(path)
        file = path / "report.json" if path.is_dir() else path
        try:
            reports.append(json.loads(file.read_text(encoding="utf-8")))
        except (OSError, ValueError) as error:
            print(f"compare: error: {file} cannot be read as a report: {error}", file=sys.stderr)
            return 2
    try:
        print(compare(reports, args.group, [Path(p).name for p in args.reports]))
    except KeyError as error:
        print(f"compare: error: {error.args[0]}", file=sys.stderr)
        return 2
    except ValueError as error:
        print(f"compare: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
