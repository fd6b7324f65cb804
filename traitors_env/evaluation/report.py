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

For The Traitors (``settings["game"] == "the_traitors"``, :mod:`.kit_games`) the sides are ``traitor``
(rows) and ``faithful`` (columns) instead: a matrix row has ``traitor``, ``faithful``, ``traitor_wins``,
``win_rate`` (the Traitor's), and also ``faithful_seat_wins`` of ``faithful_seats`` with
``faithful_win_rate`` and ``faithful_interval`` (rewards are individual, T16: the two rates need not sum
to 1); ``end_conditions`` counts the Final's outcomes; ``metrics`` and ``seed_groups``' metrics are empty
(the hidden-role metrics are Traitors Aboard's).
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from ..core.stats import wilson_interval
from ..games.traitors_aboard.metrics import METRICS, summarize
from .crossplay import CrossPlay
from .kit_games import KitGame, kit_game
from .metagame import solve_zero_sum
from .population import Population
from .ratings import rate_games

__all__ = ["bootstrap_over_seeds", "build_report", "markdown"]

TEAM_KEYS = ("pirates", "mutineers")


def possessive(label: str) -> str:
    """``"Pirates"`` → ``"Pirates'"``, ``"Traitor"`` → ``"Traitor's"``."""
    return label + ("'" if label.endswith("s") else "'s")


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


def _matrix_rows(crossplay: CrossPlay, names: list[str], game: KitGame) -> list[dict]:
    failed_cells = {(f["num_players"], f["agent"], f["team"]) for f in crossplay.failures}
    row_team, column_team = game.teams

    def row(n, p, m, games, wins, ends, column_wins, column_seats) -> dict:
        low, high = wilson_interval(wins, games)
        out = {
            "num_players": n, row_team: p, column_team: m, "games": games, game.wins_key: wins,
            "win_rate": round(wins / games, 6) if games else None, "interval": [round(low, 6), round(high, 6)],
            "end_conditions": dict(sorted(ends.items())),
            "failed": (n, p, row_team) in failed_cells or (n, m, column_team) in failed_cells,
        }
        if game.mixed_motive:  # the column side's own wins: individual rewards, not 1 − the row's
            c_low, c_high = wilson_interval(column_wins, column_seats)
            out.update({
                f"{column_team}_seat_wins": column_wins, f"{column_team}_seats": column_seats,
                f"{column_team}_win_rate": round(column_wins / column_seats, 6) if column_seats else None,
                f"{column_team}_interval": [round(c_low, 6), round(c_high, 6)],
            })
        return out

    rows, pooled = [], {}
    for (n, p, m), cell in sorted(crossplay.cells.items(), key=lambda kv: (kv[0][0], names.index(kv[0][1]), names.index(kv[0][2]))):
        rows.append(row(n, p, m, cell.games, cell.pirate_wins, cell.end_conditions, cell.column_wins, cell.column_seats))
        entry = pooled.setdefault((p, m), [0, 0, Counter(), 0, 0])
        entry[0] += cell.games
        entry[1] += cell.pirate_wins
        entry[2].update(cell.end_conditions)
        entry[3] += cell.column_wins
        entry[4] += cell.column_seats
    for (p, m), values in pooled.items():
        r = row("all", p, m, *values)
        r["failed"] = any(x["failed"] for x in rows if x[row_team] == p and x[column_team] == m)
        rows.append(r)
    return rows


def _nash(rows: list[dict], names: list[str], counts: list, game: KitGame) -> dict:
    out = {}
    row_team, column_team = game.teams
    rows_label, columns_label = game.labels
    for n in ["all", *counts]:
        table = {(r[row_team], r[column_team]): r for r in rows if r["num_players"] == n}
        pirates = [a for a in names if any(k[0] == a for k in table)]
        mutineers = [a for a in names if any(k[1] == a for k in table)]
        missing = [(p, m) for p in pirates for m in mutineers if (p, m) not in table or not table[(p, m)]["games"]]
        key = str(n)
        if not pirates or missing:
            out[key] = {"skipped": f"the matrix is not full ({len(missing)} cells without games); "
                                   f"the meta-game needs every {rows_label} agent against every {columns_label} agent"}
            continue
        matrix = [[table[(p, m)]["win_rate"] for m in mutineers] for p in pirates]
        out[key] = solve_zero_sum(matrix, pirates, mutineers, sides=game.teams)
    return out


def build_report(population: Population, crossplay: CrossPlay, settings: dict) -> dict:
    """The report dict (see the module doc) of a finished (or partly finished) cross-play."""
    names = population.names
    counts = list(settings["players"])
    game = kit_game(settings.get("game", "traitors_aboard"))
    team_keys = game.teams
    rows = _matrix_rows(crossplay, names, game)
    # Ratings: games in a fixed order (game index, table size, cell), whatever order workers finished in.
    order = sorted(crossplay.cells.items(), key=lambda kv: (kv[0][0], names.index(kv[0][1]), names.index(kv[0][2])))
    games = []
    for index in range(settings["games"]):
        for (n, p, m), cell in order:
            if index in cell.outcomes:
                games.append((n, p, m, cell.outcomes[index]))
    ratings = rate_games(games, game=game)
    metrics = {
        name: {team: summarize(crossplay.tallies[(name, team)]) for team in team_keys if (name, team) in crossplay.tallies}
        for name in names
    }
    seed_groups = {}
    for group, members in population.groups.items():
        entry: dict = {"seeds": len(members), "members": members}
        for team in team_keys:
            per_metric = {}
            for metric in METRICS if game.has_metrics else ():
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
        "nash": _nash(rows, names, counts, game),
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
    game = kit_game(s.get("game", "traitors_aboard"))
    row_team, column_team = team_keys = game.teams
    row_label, column_label = game.labels
    out = [f"# {title}", ""]
    if game.name != "traitors_aboard":
        out += [f"Game: `{game.env_name}`.", ""]
    out.append(
        f"{s['games']} seeded games per cell (table size × {row_label} agent × {column_label} agent), seed {s['seed']}, "
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
    out += ["## Cross-play", "", f"{possessive(row_label)} win rate in % [95 % Wilson interval]; rows: {row_label} agent, "
            f"columns: {column_label} agent."
            + (f" Below it, the {column_label} seats' own win rate (per seat and game; individual rewards, T16)."
               if game.mixed_motive else ""), ""]
    for n in ["all", *s["players"]]:
        table = {(r[row_team], r[column_team]): r for r in report["matrix"] if r["num_players"] == n}
        if not table:
            continue
        cols = [m for m in names if any(k[1] == m for k in table)]
        out += [f"### {'all table sizes pooled' if n == 'all' else f'{n} players'}", ""]
        out.append(f"| {row_label} \\ {column_label} | " + " | ".join(cols) + " |")
        out.append("|---|" + "---|" * len(cols))
        for p in [a for a in names if any(k[0] == a for k in table)]:
            cells = []
            for m in cols:
                r = table.get((p, m))
                if r is None or not r["games"]:
                    cells.append("")
                    continue
                mark = " †" if r["failed"] else ""
                text = f"{_pct(r['win_rate'])} [{_pct(r['interval'][0])}, {_pct(r['interval'][1])}]{mark}"
                if game.mixed_motive:
                    rate, (lo, hi) = r[f"{column_team}_win_rate"], r[f"{column_team}_interval"]
                    text += f"<br>{column_label} {_pct(rate)} [{_pct(lo)}, {_pct(hi)}]"
                cells.append(text)
            out.append(f"| {p} | " + " | ".join(cells) + " |")
        out.append("")
    out += ["## Ratings", "", "openskill Plackett–Luce team ratings over all games (each seat a team member); "
            "ordinal = μ − 3σ."
            + (f" A game counts as won by the {column_label} when the {row_label} did not win." if game.mixed_motive else ""),
            "", f"| agent | {row_label} μ ± σ | {row_label} ordinal | {column_label} μ ± σ | {column_label} ordinal |",
            "|---|---|---|---|---|"]
    for name in names:
        r = report["ratings"].get(name, {})
        cells = []
        for team in team_keys:
            t = r.get(team)
            cells += ["–", "–"] if t is None else [f"{t['mu']:.2f} ± {t['sigma']:.2f}", f"{t['ordinal']:.2f}"]
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    out += ["", "## Meta-game (Nash equilibrium)", "",
            (f"The cross-play matrix as a zero-sum game (the {row_label} agent maximises its win rate, the "
             f"{column_label} agent minimises it); equilibrium mixtures and the value." if game.mixed_motive else
             "The cross-play matrix as a zero-sum game (Pirates maximise their win rate); equilibrium mixtures and "
             "the value.") + " *unused*: no equilibrium gives the agent weight."
            + (" The game is mixed-motive (T16): the zero-sum reading asks which Faithful agent best stops the "
               "Traitor, not which maximises the Faithful's own wins (README)." if game.mixed_motive else ""), ""]
    for key, nash in report["nash"].items():
        label = "all table sizes pooled" if key == "all" else f"{key} players"
        if "skipped" in nash:
            out.append(f"- {label}: skipped ({nash['skipped']})")
            continue
        parts = []
        for team in team_keys:
            mix = ", ".join(f"{a} {w:.2f}" for a, w in nash[team]["mixture"].items() if w > 1e-6)
            unused = nash[team]["unused"]
            parts.append(f"{team}: {mix}" + (f" (unused: {', '.join(unused)})" if unused else ""))
        out.append(f"- {label}: value ({possessive(row_label)} win rate) {_pct(nash['value'])} %; " + "; ".join(parts))
    if not game.has_metrics:
        out += ["", "## Hidden-role metrics", "", f"Not computed: the hidden-role metrics are Traitors Aboard's; "
                f"`{game.env_name}` has none yet.", ""]
    else:
        out += ["", "## Hidden-role metrics", "",
                "Per agent and team, pooled over opponents and table sizes; value [95 % interval] (n = count). "
                "Definitions: README, \"Hidden-role metrics\".", ""]
    for team in team_keys if game.has_metrics else ():
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
        for team in team_keys:
            out += [f"### As the {team}", "",
                    "| metric | " + " | ".join(f"{g} ({report['seed_groups'][g]['seeds']} seeds)" for g in groups) + " |",
                    "|---|" + "---|" * len(groups)]
            for metric in [*(METRICS if game.has_metrics else ()), None]:
                name = "rating_mu" if metric is None else metric.name
                percent = metric is not None and metric.kind == "rate"
                cells = [_seed_value(report["seed_groups"][g][team][name], percent) for g in groups]
                if all(c == "–" for c in cells):
                    continue
                out.append(f"| {name}{' (%)' if percent else ''} | " + " | ".join(cells) + " |")
            out.append("")
    return "\n".join(out) + "\n"
