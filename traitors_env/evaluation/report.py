"""The benchmark report: ``report.json`` and ``report.md`` from a cross-play.

``report.json`` top-level keys:

- ``agents``: agent name → spec; ``groups``: seed group → member agents;
- ``settings``: table sizes, games per cell, seed, claims, anchors;
- ``matrix``: one row per (table size, Pirates agent, Mutineers agent), then the rows pooled over table
  sizes (``num_players: "all"``): ``games``, ``pirate_wins``, ``win_rate``, ``interval`` (95 % Wilson),
  ``end_conditions``, ``failed``;
- ``ratings``: agent → team → ``mu``, ``sigma``, ``ordinal``, ``games`` (:mod:`.ratings`);
- ``nash``: ``"all"`` and per table size: ``value`` and per team ``mixture`` and ``unused`` (:mod:`.metagame`),
  or ``{"skipped": reason}`` when the matrix is not full (``--anchor``) or a cell has no game;
- ``metrics``: agent → team → metric → ``value``, ``interval``, ``count`` (:mod:`.metrics`);
- ``seed_groups``: group → ``seeds`` and per team per metric the mean over seeds with a bootstrap 95 %
  interval (``scipy.stats.bootstrap``, percentile) and the per-seed values;
- ``failures``: agents that failed mid-run (agent, team, table size, game, error); ``interrupted``.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from .crossplay import CrossPlay
from .metagame import solve_zero_sum
from .metrics import METRICS, summarize
from .population import Population
from .ratings import rate_games
from .stats import wilson_interval

__all__ = ["bootstrap_over_seeds", "build_report", "markdown"]

TEAM_KEYS = ("pirates", "mutineers")


def bootstrap_over_seeds(values: list[float], seed: int = 0) -> dict:
    """Mean over seeds with a 95 % bootstrap interval (``scipy.stats.bootstrap``, percentile method).

    ``interval`` is ``None`` with fewer than 2 values, and the single point when all values are equal.
    """
    values = [v for v in values if v is not None]
    if not values:
        return {"mean": None, "interval": None, "seeds": 0, "values": []}
    mean = float(np.mean(values))
    if len(values) < 2:
        interval = None
    elif max(values) == min(values):
        interval = [mean, mean]
    else:
        from scipy.stats import bootstrap

        res = bootstrap((np.asarray(values),), np.mean, confidence_level=0.95, n_resamples=9999, method="percentile",
                        rng=np.random.default_rng(seed))
        interval = [round(float(res.confidence_interval.low), 6), round(float(res.confidence_interval.high), 6)]
    return {"mean": round(mean, 6), "interval": interval, "seeds": len(values), "values": [round(v, 6) for v in values]}


def _matrix_rows(crossplay: CrossPlay, names: list[str]) -> list[dict]:
    failed_cells = {(f["num_players"], f["agent"], f["team"]) for f in crossplay.failures}

    def row(n, p, m, games, wins, ends) -> dict:
        low, high = wilson_interval(wins, games)
        return {
            "num_players": n, "pirates": p, "mutineers": m, "games": games, "pirate_wins": wins,
            "win_rate": round(wins / games, 6) if games else None, "interval": [round(low, 6), round(high, 6)],
            "end_conditions": dict(sorted(ends.items())),
            "failed": (n, p, "pirates") in failed_cells or (n, m, "mutineers") in failed_cells,
        }

    rows, pooled = [], {}
    for (n, p, m), cell in sorted(crossplay.cells.items(), key=lambda kv: (kv[0][0], names.index(kv[0][1]), names.index(kv[0][2]))):
        rows.append(row(n, p, m, cell.games, cell.pirate_wins, cell.end_conditions))
        entry = pooled.setdefault((p, m), [0, 0, Counter()])
        entry[0] += cell.games
        entry[1] += cell.pirate_wins
        entry[2].update(cell.end_conditions)
    for (p, m), (games, wins, ends) in pooled.items():
        r = row("all", p, m, games, wins, ends)
        r["failed"] = any(x["failed"] for x in rows if x["pirates"] == p and x["mutineers"] == m)
        rows.append(r)
    return rows


def _nash(rows: list[dict], names: list[str], counts: list) -> dict:
    out = {}
    for n in ["all", *counts]:
        table = {(r["pirates"], r["mutineers"]): r for r in rows if r["num_players"] == n}
        pirates = [a for a in names if any(k[0] == a for k in table)]
        mutineers = [a for a in names if any(k[1] == a for k in table)]
        missing = [(p, m) for p in pirates for m in mutineers if (p, m) not in table or not table[(p, m)]["games"]]
        key = str(n)
        if not pirates or missing:
            out[key] = {"skipped": f"the matrix is not full ({len(missing)} cells without games); "
                                   "the meta-game needs every Pirates agent against every Mutineers agent"}
            continue
        matrix = [[table[(p, m)]["win_rate"] for m in mutineers] for p in pirates]
        out[key] = solve_zero_sum(matrix, pirates, mutineers)
    return out


def build_report(population: Population, crossplay: CrossPlay, settings: dict) -> dict:
    """The report dict (see the module doc) of a finished (or partly finished) cross-play."""
    names = population.names
    counts = list(settings["players"])
    rows = _matrix_rows(crossplay, names)
    # Ratings: games in a fixed order (game index, table size, cell), whatever order workers finished in.
    order = sorted(crossplay.cells.items(), key=lambda kv: (kv[0][0], names.index(kv[0][1]), names.index(kv[0][2])))
    games = []
    for index in range(settings["games"]):
        for (n, p, m), cell in order:
            if index in cell.outcomes:
                games.append((n, p, m, cell.outcomes[index]))
    ratings = rate_games(games)
    metrics = {
        name: {team: summarize(crossplay.tallies[(name, team)]) for team in TEAM_KEYS if (name, team) in crossplay.tallies}
        for name in names
    }
    seed_groups = {}
    for group, members in population.groups.items():
        entry: dict = {"seeds": len(members), "members": members}
        for team in TEAM_KEYS:
            per_metric = {}
            for metric in METRICS:
                values = [metrics.get(m, {}).get(team, {}).get(metric.name, {}).get("value") for m in members]
                per_metric[metric.name] = bootstrap_over_seeds(values, seed=settings.get("seed", 0))
            per_metric["rating_mu"] = bootstrap_over_seeds(
                [ratings.get(m, {}).get(team, {}).get("mu") for m in members], seed=settings.get("seed", 0)
            )
            entry[team] = per_metric
        seed_groups[group] = entry
    return {
        "agents": dict(population.specs),
        "groups": dict(population.groups),
        "settings": settings,
        "matrix": rows,
        "ratings": ratings,
        "nash": _nash(rows, names, counts),
        "metrics": metrics,
        "seed_groups": seed_groups,
        "failures": crossplay.failures,
        "interrupted": crossplay.interrupted,
    }


# ------------------------------------------------------------------ markdown
def _pct(x) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}"


def _value(entry: dict | None, percent: bool) -> str:
    if not entry or entry.get("value") is None:
        return "–"
    v, (lo, hi) = entry["value"], entry["interval"]
    if percent:
        return f"{_pct(v)} [{_pct(lo)}, {_pct(hi)}] (n={entry['count']})"
    return f"{v:+.2f} [{lo:+.2f}, {hi:+.2f}] (n={entry['count']})"


def _seed_value(entry: dict, percent: bool) -> str:
    if entry["mean"] is None:
        return "–"
    fmt = _pct if percent else (lambda x: f"{x:+.2f}")
    text = fmt(entry["mean"])
    if entry["interval"]:
        text += f" [{fmt(entry['interval'][0])}, {fmt(entry['interval'][1])}]"
    return text


def markdown(report: dict, title: str = "Benchmark report") -> str:
    """``report.md``: settings, failures, cross-play matrices, ratings, meta-game, metrics, seed groups."""
    s = report["settings"]
    names = list(report["agents"])
    out = [f"# {title}", ""]
    out.append(
        f"{s['games']} seeded games per cell (table size × Pirates agent × Mutineers agent), seed {s['seed']}, "
        f"claims {'on' if s['claims'] else 'off'}, table sizes {', '.join(map(str, s['players']))}"
        + (f", only cells against {', '.join(s['anchor'])}" if s.get("anchor") else "") + "."
    )
    out += ["", "| agent | spec |", "|---|---|"] + [f"| {n} | `{spec}` |" for n, spec in report["agents"].items()]
    out.append("")
    if report["failures"] or report["interrupted"]:
        out += ["## Failures", ""]
        if report["interrupted"]:
            out.append("**Interrupted**: the report holds the games finished before the interruption.")
        seen = set()
        for f in report["failures"]:
            key = (f["agent"], f["team"], f["error"].split(" for player_")[0])
            if key in seen:
                continue
            seen.add(key)
            out.append(f"- **{f['agent']}** as the {f['team']} failed (first at {f['num_players']} players, game "
                       f"{f['game']}): {f['error']}")
        out += ["", "Cells marked † lost games to a failure; their finished games are kept.", ""]
    out += ["## Cross-play", "", "Pirates' win rate in % [95 % Wilson interval]; rows: Pirates agent, columns: "
            "Mutineers agent.", ""]
    for n in ["all", *s["players"]]:
        table = {(r["pirates"], r["mutineers"]): r for r in report["matrix"] if r["num_players"] == n}
        if not table:
            continue
        cols = [m for m in names if any(k[1] == m for k in table)]
        out += [f"### {'all table sizes pooled' if n == 'all' else f'{n} players'}", ""]
        out.append("| Pirates \\ Mutineers | " + " | ".join(cols) + " |")
        out.append("|---|" + "---|" * len(cols))
        for p in [a for a in names if any(k[0] == a for k in table)]:
            cells = []
            for m in cols:
                r = table.get((p, m))
                if r is None or not r["games"]:
                    cells.append("")
                    continue
                mark = " †" if r["failed"] else ""
                cells.append(f"{_pct(r['win_rate'])} [{_pct(r['interval'][0])}, {_pct(r['interval'][1])}]{mark}")
            out.append(f"| {p} | " + " | ".join(cells) + " |")
        out.append("")
    out += ["## Ratings", "", "openskill Plackett–Luce team ratings over all games (each seat a team member); "
            "ordinal = μ − 3σ.", "", "| agent | Pirates μ ± σ | Pirates ordinal | Mutineers μ ± σ | Mutineers ordinal |",
            "|---|---|---|---|---|"]
    for name in names:
        r = report["ratings"].get(name, {})
        cells = []
        for team in TEAM_KEYS:
            t = r.get(team)
            cells += ["–", "–"] if t is None else [f"{t['mu']:.2f} ± {t['sigma']:.2f}", f"{t['ordinal']:.2f}"]
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    out += ["", "## Meta-game (Nash equilibrium)", "",
            "The cross-play matrix as a zero-sum game (Pirates maximise their win rate); equilibrium mixtures and "
            "the value. *unused*: no equilibrium gives the agent weight.", ""]
    for key, nash in report["nash"].items():
        label = "all table sizes pooled" if key == "all" else f"{key} players"
        if "skipped" in nash:
            out.append(f"- {label}: skipped ({nash['skipped']})")
            continue
        parts = []
        for team in TEAM_KEYS:
            mix = ", ".join(f"{a} {w:.2f}" for a, w in nash[team]["mixture"].items() if w > 1e-6)
            unused = nash[team]["unused"]
            parts.append(f"{team}: {mix}" + (f" (unused: {', '.join(unused)})" if unused else ""))
        out.append(f"- {label}: value (Pirates' win rate) {_pct(nash['value'])} %; " + "; ".join(parts))
    out += ["", "## Hidden-role metrics", "",
            "Per agent and team, pooled over opponents and table sizes; value [95 % interval] (n = count). "
            "Definitions: README, \"Hidden-role metrics\".", ""]
    for team in TEAM_KEYS:
        present = [n for n in names if team in report["metrics"].get(n, {})]
        if not present:
            continue
        out += [f"### As the {team}", "", "| metric | " + " | ".join(present) + " |", "|---|" + "---|" * len(present)]
        for metric in METRICS:
            values = [report["metrics"][n][team][metric.name] for n in present]
            if all(v["count"] == 0 for v in values):
                continue
            cells = [_value(v, metric.kind == "rate") for v in values]
            unit = " (%)" if metric.kind == "rate" else ""
            out.append(f"| {metric.name}{unit} | " + " | ".join(cells) + " |")
        out.append("")
    if report["seed_groups"]:
        out += ["## Over training seeds", "",
                "Mean over seeds [95 % bootstrap interval over seeds, scipy.stats.bootstrap percentile].", ""]
        groups = list(report["seed_groups"])
        for team in TEAM_KEYS:
            out += [f"### As the {team}", "",
                    "| metric | " + " | ".join(f"{g} ({report['seed_groups'][g]['seeds']} seeds)" for g in groups) + " |",
                    "|---|" + "---|" * len(groups)]
            for metric in [*METRICS, None]:
                name = "rating_mu" if metric is None else metric.name
                percent = metric is not None and metric.kind == "rate"
                cells = [_seed_value(report["seed_groups"][g][team][name], percent) for g in groups]
                if all(c == "–" for c in cells):
                    continue
                out.append(f"| {name}{' (%)' if percent else ''} | " + " | ".join(cells) + " |")
            out.append("")
    return "\n".join(out) + "\n"
