"""The benchmark report: ``report.json`` and ``report.md`` from a cross-play, for any registered game.

The game is ``settings["game"]`` (a registry name); ``ROW`` and ``COLUMN`` below are its side keys
(``game.type.sides``: ``pirates``/``mutineers`` in Traitors Aboard, ``traitor``/``faithful`` in The Traitors).
``report.json`` top-level keys:

- ``agents``: agent name → spec; ``groups``: seed group → member agents;
- ``settings``: game, table sizes, games per cell, seed, claims, anchors;
- ``matrix``: one row per (table size, ROW agent, COLUMN agent), then the rows pooled over table
  sizes (``num_players: "all"``): ``ROW``, ``COLUMN`` (the agents), ``games``, ``ROW_wins`` (games the row
  side won), ``win_rate``, ``interval`` (95 % Wilson), ``end_conditions``, ``failed``; in a general-sum
  game (``type.mixed_motive``) also ``COLUMN_seat_wins`` of ``COLUMN_seats`` with ``COLUMN_win_rate`` and
  ``COLUMN_interval`` (rewards are individual: the two rates need not sum to 1);
- ``ratings``: agent → side key → ``mu``, ``sigma``, ``ordinal``, ``games`` (:mod:`.ratings`);
- ``nash``: ``"all"`` and per table size: ``value`` and per side ``mixture`` and ``unused`` (:mod:`.metagame`),
  or ``{"skipped": reason}`` when the matrix is not full (``--anchor``) or a cell has no game;
- ``metrics``: agent → side key → metric → ``value``, ``interval``, ``count`` (:mod:`.metrics`; empty per agent
  for a game without hidden-role metrics, which ``report.md`` says); a metric with a per-decision chance also
  ``chance`` and ``over_chance``;
- ``metrics_by_size``: agent → side key → table size (a string) → the same entries from that size's games alone,
  for the game's summary metrics (``SUMMARY``; :func:`.summary.metrics_by_size`);
- ``summary``: per agent and side, who plays the game better (:mod:`.summary`): win rate against the other side's
  Nash mixture and the worst case, the best-response gain (from ``exploitability``, where present), the beliefs'
  Brier vs the base rate, the game's summary metrics pooled and per table size (against chance where declared);
- ``seed_groups``: group → ``seeds`` and per side per metric the mean over seeds with a bootstrap 95 %
  interval (``scipy.stats.bootstrap``, percentile) and the per-seed values;
- ``deduction``: role beliefs scored against the true roles (:mod:`.deduction`): ``hidden_side`` (the side key
  beliefs are about), ``phases`` (how the phases are cut), ``agents``: agent → side key → ``rows`` (per table size
  and phase, and pooled: Brier, log loss, the base rate's and the heuristic's on the same predictions,
  ``brier_over_base``) and ``reliability`` (bins); only agents with ``beliefs``. ``{"skipped": reason}`` for a
  game without ``hidden_side``;
- ``text``: per text agent (a language model, any :class:`~traitors_env.core.text.TextAgent`) and side key, over
  its finished games: ``games``, ``decisions``, ``replies`` (the model's replies received: ``invalid_replies`` +
  ``decisions`` − ``fallbacks``), ``invalid_replies``, ``invalid_reply_rate`` (of the replies, with its 95 %
  Wilson ``invalid_reply_interval``), ``retries`` (invalid replies answered with the legal list), ``fallbacks``
  (decisions played by a uniformly random legal action) and ``fallback_rate`` (of the decisions); for a language
  model also ``requests``, ``api_retries``, ``api_failures``, ``api_errors`` (per fault kind: ``rate_limited``,
  ``server_error``, ``timeout``, ``connection``, ``bad_response``), ``prompt_tokens``, ``completion_tokens``, their
  means ``prompt_tokens_per_game`` and ``completion_tokens_per_game``, ``seconds_per_decision`` and, with prices,
  ``cost`` and ``cost_per_game`` (:mod:`traitors_env.agents.llm`);
- ``failures``: agents that failed mid-run (agent, side key as ``team``, table size, game, error); ``interrupted``;
- ``exploitability`` (only with ``traitors-eval --exploitability``): agent → side key → the best-response gain of a
  ``traitors-exploit`` report (:mod:`.exploitability`).
- ``nash_conv`` (only with ``traitors-eval --exploitability`` reports for both sides of an agent): agent → its
  NashConv, the two best responses' win rates summed minus 1, with a 95 % interval (:func:`.exploitability.nash_conv`).
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from ..core.game import Game
from ..core.registry import DEFAULT_GAME, load_game
from ..core.stats import wilson_interval
from .crossplay import CrossPlay
from .deduction import summarize_deduction
from .exploitability import exploitability_markdown, nash_conv_markdown
from .metagame import solve_zero_sum
from .metrics import summarize
from .population import Population
from .ratings import rate_games
from .summary import metrics_by_size, summarize_agents, summary_markdown

__all__ = ["bootstrap_over_seeds", "build_report", "markdown", "report_game", "summarize_text", "wins_key"]


def report_game(report_or_settings: dict) -> Game:
    """The game a report (or its ``settings``) is of; reports written before ``settings["game"]`` existed are
    of the default game."""
    settings = report_or_settings.get("settings", report_or_settings)
    return load_game(settings.get("game", DEFAULT_GAME))


def wins_key(game: Game) -> str:
    """``report.json``'s key of the row side's wins in a matrix row: ``f"{row side key}_wins"``."""
    return f"{game.type.sides[0]}_wins"


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


def summarize_text(counts: Counter) -> dict:
    """A text agent's summed counts (``CrossPlay.text``) as the report's ``text`` entry (see the module doc)."""
    counts = Counter(counts)
    games, decisions = int(counts["games"]), int(counts["decisions"])
    invalid, fallbacks = int(counts["invalid_replies"]), int(counts["fallbacks"])
    replies = invalid + decisions - fallbacks
    low, high = wilson_interval(invalid, replies)
    out = {
        "games": games, "decisions": decisions, "replies": replies, "invalid_replies": invalid,
        "invalid_reply_rate": round(invalid / replies, 6) if replies else None,
        "invalid_reply_interval": [round(low, 6), round(high, 6)] if replies else None,
        "retries": int(counts["retries"]), "fallbacks": fallbacks,
        "fallback_rate": round(fallbacks / decisions, 6) if decisions else None,
    }
    if "requests" in counts:  # a language model's
        out.update({
            "requests": int(counts["requests"]), "api_retries": int(counts["api_retries"]),
            "api_failures": int(counts["api_failures"]),
            "api_errors": {key[4:]: int(value) for key, value in sorted(counts.items())
                           if key.startswith("api_") and key not in ("api_retries", "api_failures")},
            "prompt_tokens": int(counts["prompt_tokens"]), "completion_tokens": int(counts["completion_tokens"]),
            "prompt_tokens_per_game": round(counts["prompt_tokens"] / games, 3) if games else None,
            "completion_tokens_per_game": round(counts["completion_tokens"] / games, 3) if games else None,
        })
    if "seconds" in counts:
        out["seconds_per_decision"] = round(counts["seconds"] / decisions, 6) if decisions else None
    if "cost" in counts:
        out["cost"] = round(counts["cost"], 6)
        out["cost_per_game"] = round(counts["cost"] / games, 6) if games else None
    return out


def _matrix_rows(crossplay: CrossPlay, names: list[str], game: Game) -> list[dict]:
    failed_cells = {(f["num_players"], f["agent"], f["team"]) for f in crossplay.failures}
    row_team, column_team = game.type.sides
    row_wins = wins_key(game)

    def row(n, p, m, games, wins, ends, column_wins, column_seats) -> dict:
        low, high = wilson_interval(wins, games)
        out = {
            "num_players": n, row_team: p, column_team: m, "games": games, row_wins: wins,
            "win_rate": round(wins / games, 6) if games else None, "interval": [round(low, 6), round(high, 6)],
            "end_conditions": dict(sorted(ends.items())),
            "failed": (n, p, row_team) in failed_cells or (n, m, column_team) in failed_cells,
        }
        if game.type.mixed_motive:  # the column side's own wins: individual rewards, not 1 − the row's
            c_low, c_high = wilson_interval(column_wins, column_seats)
            out.update({
                f"{column_team}_seat_wins": column_wins, f"{column_team}_seats": column_seats,
                f"{column_team}_win_rate": round(column_wins / column_seats, 6) if column_seats else None,
                f"{column_team}_interval": [round(c_low, 6), round(c_high, 6)],
            })
        return out

    rows, pooled = [], {}
    for (n, p, m), cell in sorted(crossplay.cells.items(), key=lambda kv: (kv[0][0], names.index(kv[0][1]), names.index(kv[0][2]))):
        rows.append(row(n, p, m, cell.games, cell.row_wins, cell.end_conditions, cell.column_wins, cell.column_seats))
        entry = pooled.setdefault((p, m), [0, 0, Counter(), 0, 0])
        entry[0] += cell.games
        entry[1] += cell.row_wins
        entry[2].update(cell.end_conditions)
        entry[3] += cell.column_wins
        entry[4] += cell.column_seats
    for (p, m), values in pooled.items():
        r = row("all", p, m, *values)
        r["failed"] = any(x["failed"] for x in rows if x[row_team] == p and x[column_team] == m)
        rows.append(r)
    return rows


def _nash(rows: list[dict], names: list[str], counts: list, game: Game) -> dict:
    out = {}
    row_team, column_team = game.type.sides
    rows_label, columns_label = game.type.side_labels
    for n in ["all", *counts]:
        table = {(r[row_team], r[column_team]): r for r in rows if r["num_players"] == n}
        row_agents = [a for a in names if any(k[0] == a for k in table)]
        column_agents = [a for a in names if any(k[1] == a for k in table)]
        missing = [(p, m) for p in row_agents for m in column_agents if (p, m) not in table or not table[(p, m)]["games"]]
        key = str(n)
        if not row_agents or missing:
            out[key] = {"skipped": f"the matrix is not full ({len(missing)} cells without games); "
                                   f"the meta-game needs every {rows_label} agent against every {columns_label} agent"}
            continue
        matrix = [[table[(p, m)]["win_rate"] for m in column_agents] for p in row_agents]
        out[key] = solve_zero_sum(matrix, row_agents, column_agents, sides=game.type.sides)
    return out


def _deduction(crossplay: CrossPlay, names: list[str], counts: list, game: Game) -> dict:
    if game.hidden_side is None:
        return {"skipped": f"{game.type.env_id} declares no hidden side (Game.hidden_side): beliefs are not scored"}
    tallies = getattr(crossplay, "deduction", {}) or {}
    agents = {}
    for name in names:
        entry = {team: summarize_deduction(tallies[(name, team)], counts) for team in game.type.sides
                 if (name, team) in tallies}
        if entry:
            agents[name] = entry
    return {
        "hidden_side": game.type.sides[game.hidden_side],
        "phases": ("thirds of the game's progress (Game.progress): early < 1/3 ≤ mid < 2/3 ≤ late"
                   if game.progress is not None else "one phase: the game declares no progress measure"),
        "agents": agents,
    }


def build_report(population: Population, crossplay: CrossPlay, settings: dict) -> dict:
    """The report dict (see the module doc) of a finished (or partly finished) cross-play."""
    names = population.names
    counts = list(settings["players"])
    game = report_game(settings)
    team_keys = game.type.sides
    metric_list = game.metrics.METRICS if game.metrics is not None else ()
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
        name: {team: summarize(crossplay.tallies[(name, team)], metric_list) for team in team_keys
               if (name, team) in crossplay.tallies}
        for name in names
    }
    seed_groups = {}
    for group, members in population.groups.items():
        entry: dict = {"seeds": len(members), "members": members}
        for team in team_keys:
            per_metric = {}
            for metric in metric_list:
                values = [metrics.get(m, {}).get(team, {}).get(metric.name, {}).get("value") for m in members]
                per_metric[metric.name] = bootstrap_over_seeds(values, seed=settings.get("seed", 0))
            per_metric["rating_mu"] = bootstrap_over_seeds(
                [ratings.get(m, {}).get(team, {}).get("mu") for m in members], seed=settings.get("seed", 0)
            )
            entry[team] = per_metric
        seed_groups[group] = entry
    report = {
        "agents": dict(population.specs),
        "groups": dict(population.groups),
        "settings": settings,
        "matrix": rows,
        "ratings": ratings,
        "nash": _nash(rows, names, counts, game),
        "metrics": metrics,
        "metrics_by_size": metrics_by_size(getattr(crossplay, "size_tallies", {}) or {}, names, game),
        "seed_groups": seed_groups,
        "deduction": _deduction(crossplay, names, counts, game),
        "text": {name: {team: summarize_text(crossplay.text[(name, team)]) for team in team_keys
                        if (name, team) in crossplay.text}
                 for name in names if any((name, team) in crossplay.text for team in team_keys)},
        "failures": crossplay.failures,
        "interrupted": crossplay.interrupted,
    }
    report["summary"] = summarize_agents(report, game)
    return report


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


def _number(x, digits: int = 3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _deduction_markdown(deduction: dict | None, game: Game) -> list[str]:
    """The report's "Deduction (role beliefs)" section (nothing for a report written before it existed)."""
    if deduction is None:
        return []
    out = ["## Deduction (role beliefs)", ""]
    if "skipped" in deduction:
        return out + [f"Not computed: {deduction['skipped']}.", ""]
    hidden = game.type.side_labels[game.type.side_index(deduction["hidden_side"])]
    if not deduction["agents"]:
        return out + [f"No agent exposes role beliefs (`beliefs(observation)`: P({hidden}) per seat), so none is "
                      "scored.", ""]
    out += [f"Each agent's beliefs P({hidden}) about every other seat, at each of its decisions, against the true "
            "roles: mean Brier score and log loss (nats) per prediction, next to the base rate's (the prior of the table "
            "size and the observer's own side) and the game heuristic's on the same observations; Brier / base < 1 "
            "is deduction beyond the prior, its 95 % interval taking each deal as one draw (one game's predictions "
            "are correlated, and game i at a table size is dealt alike in every cell; deals: those that scored the "
            f"row). Phases: {deduction['phases']}. Reliability diagram: beliefs.png.", ""]
    for name, sides in deduction["agents"].items():
        for team, entry in sides.items():
            if all(r["base_brier"] == 0 and r["brier"] == 0 for r in entry["rows"]):
                decisions = max(r["decisions"] for r in entry["rows"])  # the pooled row's
                out += [f"### {name} as the {team}", "",
                        f"Nothing to deduce: as the {team}, the agent knows every other seat's side at these tables "
                        f"(base rate 0), and its beliefs say so at all {decisions} decisions (Brier 0).", ""]
                continue
            out += [f"### {name} as the {team}", "",
                    "| players | phase | deals | decisions | Brier | base rate | heuristic | Brier / base [95 %] | log loss "
                    "| base rate | heuristic |", "|---|---|---|---|---|---|---|---|---|---|---|"]
            for r in entry["rows"]:
                ci = r.get("brier_over_base_ci")
                ratio = _number(r["brier_over_base"], 2) + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "")
                out.append(
                    f"| {r['num_players']} | {r['phase']} | {r.get('deals') or '–'} | {r['decisions']} | "
                    f"{_number(r['brier'])} | {_number(r['base_brier'])} | {_number(r['heuristic_brier'])} | {ratio} | "
                    f"{_number(r['log_loss'])} | {_number(r['base_log_loss'])} | {_number(r['heuristic_log_loss'])} |")
            out.append("")
    return out


def markdown(report: dict, title: str = "Benchmark report") -> str:
    """``report.md``: settings, failures, the per-agent summary (:func:`.summary.summary_markdown`, recomputed from
    the report), cross-play matrices, ratings, meta-game, metrics, deduction, text agents, seed groups."""
    game = report_game(report["settings"])
    team_keys = game.type.sides
    out = _settings_markdown(report, game, title)
    out += _failures_markdown(report)
    out += summary_markdown(report, game)
    out += _crossplay_markdown(report, game)
    out += _ratings_markdown(report, game)
    out += _nash_markdown(report, game)
    out += _metrics_markdown(report, game)
    out += _deduction_markdown(report.get("deduction"), game)
    out += exploitability_markdown(report.get("exploitability"))
    out += nash_conv_markdown(report.get("nash_conv"))
    out += _text_markdown(report, team_keys)
    out += _seed_groups_markdown(report, game)
    return "\n".join(out) + "\n"


def _settings_markdown(report: dict, game, title: str) -> list[str]:
    """The title, the game, the settings and the agents' specs (with the language models' options)."""
    s = report["settings"]
    row_label, column_label = game.type.side_labels
    out = [f"# {title}", "", f"Game: `{game.type.env_id}` ({game.type.long_name}).", ""]
    out.append(
        f"{s['games']} seeded games per cell (table size × {row_label} agent × {column_label} agent), seed {s['seed']}, "
        f"claims {'on' if s['claims'] else 'off'}, table sizes {', '.join(map(str, s['players']))}"
        + (f", only cells against {', '.join(s['anchor'])}" if s.get("anchor") else "") + "."
    )
    out += ["", "| agent | spec |", "|---|---|"] + [f"| {n} | `{spec}` |" for n, spec in report["agents"].items()]
    out.append("")
    if s.get("llm"):
        llm = s["llm"]
        out += [f"Language models: server {llm['base_url'] or 'the default (OPENAI_BASE_URL or OpenAI)'}, temperature "
                f"{llm['temperature'] if llm['temperature'] is not None else 'the server default'}, max tokens "
                f"{llm['max_tokens']}, timeout {llm['timeout']} s, {llm['retries']} retries per request, "
                f"{llm['reply_retries']} retries per invalid reply, tools {'on' if llm['tools'] else 'off'}, "
                f"{llm['concurrency']} game{'s' if llm['concurrency'] != 1 else ''} at once; key from ${llm['api_key_env']}.", ""]
    return out


def _failures_markdown(report: dict) -> list[str]:
    """The agents that failed, each failure once, and whether the run was interrupted."""
    out = []
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
    return out


def _crossplay_markdown(report: dict, game) -> list[str]:
    """The cross-play matrices: pooled, then per table size."""
    s, names = report["settings"], list(report["agents"])
    row_team, column_team = game.type.sides
    row_label, column_label = game.type.side_labels
    mixed = game.type.mixed_motive
    out = ["## Cross-play", "", f"{possessive(row_label)} win rate in % [95 % Wilson interval]; rows: {row_label} agent, "
            f"columns: {column_label} agent."
            + (f" Below it, the {column_label} seats' own win rate (per seat and game; individual rewards)."
               if mixed else ""), ""]
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
                if mixed:
                    rate, (lo, hi) = r[f"{column_team}_win_rate"], r[f"{column_team}_interval"]
                    text += f"<br>{column_label} {_pct(rate)} [{_pct(lo)}, {_pct(hi)}]"
                cells.append(text)
            out.append(f"| {p} | " + " | ".join(cells) + " |")
        out.append("")
    return out


def _ratings_markdown(report: dict, game) -> list[str]:
    """The openskill team ratings per agent and side."""
    names = list(report["agents"])
    row_label, column_label = game.type.side_labels
    mixed = game.type.mixed_motive
    out = ["## Ratings", "", "openskill Plackett–Luce team ratings over all games (each seat a team member); "
            "ordinal = μ − 3σ."
            + (f" A game counts as won by the {column_label} when the {row_label} did not win." if mixed else ""),
            "", f"| agent | {row_label} μ ± σ | {row_label} ordinal | {column_label} μ ± σ | {column_label} ordinal |",
            "|---|---|---|---|---|"]
    for name in names:
        r = report["ratings"].get(name, {})
        cells = []
        for team in game.type.sides:
            t = r.get(team)
            cells += ["–", "–"] if t is None else [f"{t['mu']:.2f} ± {t['sigma']:.2f}", f"{t['ordinal']:.2f}"]
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return out


def _nash_markdown(report: dict, game) -> list[str]:
    """The meta-game's equilibrium mixtures and value, pooled and per table size."""
    row_label, column_label = game.type.side_labels
    mixed = game.type.mixed_motive
    out = ["", "## Meta-game (Nash equilibrium)", "",
            f"The cross-play matrix as a zero-sum game (the {row_label} agent maximises its win rate, the "
            f"{column_label} agent minimises it); equilibrium mixtures and the value. *unused*: no equilibrium gives "
            "the agent weight."
            + (f" The game is mixed-motive (individual rewards): the zero-sum reading asks which {column_label} agent "
               f"best stops the {row_label}, not which maximises the {possessive(column_label)} own wins." if mixed else ""),
            ""]
    for key, nash in report["nash"].items():
        label = "all table sizes pooled" if key == "all" else f"{key} players"
        if "skipped" in nash:
            out.append(f"- {label}: skipped ({nash['skipped']})")
            continue
        parts = []
        for team in game.type.sides:
            mix = ", ".join(f"{a} {w:.2f}" for a, w in nash[team]["mixture"].items() if w > 1e-6)
            unused = nash[team]["unused"]
            parts.append(f"{team}: {mix}" + (f" (unused: {', '.join(unused)})" if unused else ""))
        out.append(f"- {label}: value ({possessive(row_label)} win rate) {_pct(nash['value'])} %; " + "; ".join(parts))
    return out


def _metrics_markdown(report: dict, game) -> list[str]:
    """The hidden-role metrics per agent and side (or why there are none)."""
    names = list(report["agents"])
    metric_list = game.metrics.METRICS if game.metrics is not None else ()
    out = []
    if game.metrics is None:
        out += ["", "## Hidden-role metrics", "", f"Not computed: `{game.type.env_id}` has no hidden-role metrics.", ""]
    else:
        out += ["", "## Hidden-role metrics", "",
                "Per agent and side, pooled over opponents and table sizes; value [95 % interval] (n = count). "
                f"Definitions: the game's metrics (`{getattr(game.metrics, '__name__', type(game.metrics).__name__)}`).",
                ""]
    for team in game.type.sides if game.metrics is not None else ():
        present = [n for n in names if team in report["metrics"].get(n, {})]
        if not present:
            continue
        out += [f"### As the {team}", "", "| metric | " + " | ".join(present) + " |", "|---|" + "---|" * len(present)]
        for metric in metric_list:
            values = [report["metrics"][n][team][metric.name] for n in present]
            if all(v["count"] == 0 for v in values):
                continue
            cells = [_value(v, metric.kind == "rate") for v in values]
            unit = " (%)" if metric.kind == "rate" else ""
            out.append(f"| {metric.name}{unit} | " + " | ".join(cells) + " |")
        out.append("")
    return out


def _seed_groups_markdown(report: dict, game) -> list[str]:
    """The means over training seeds of the agents given as seed groups."""
    metric_list = game.metrics.METRICS if game.metrics is not None else ()
    out = []
    if report["seed_groups"]:
        out += ["## Over training seeds", "",
                "Mean over seeds [95 % bootstrap interval over seeds, scipy.stats.bootstrap percentile].", ""]
        groups = list(report["seed_groups"])
        for team in game.type.sides:
            out += [f"### As the {team}", "",
                    "| metric | " + " | ".join(f"{g} ({report['seed_groups'][g]['seeds']} seeds)" for g in groups) + " |",
                    "|---|" + "---|" * len(groups)]
            for metric in [*metric_list, None]:
                name = "rating_mu" if metric is None else metric.name
                percent = metric is not None and metric.kind == "rate"
                cells = [_seed_value(report["seed_groups"][g][team][name], percent) for g in groups]
                if all(c == "–" for c in cells):
                    continue
                out.append(f"| {name}{' (%)' if percent else ''} | " + " | ".join(cells) + " |")
            out.append("")
    return out


def _text_markdown(report: dict, team_keys) -> list[str]:
    """``report.md``'s section on text agents (language models): replies, fallbacks, tokens, time."""
    text = report.get("text") or {}
    if not text:
        return []
    out = ["## Text agents", "",
           "Per text agent and side, over its finished games. Invalid: replies that named no legal action, in % of "
           "the replies [95 % Wilson interval]; retries: invalid replies answered with the legal list; fallbacks: "
           "decisions played by a uniformly random legal action (after the retries, or when the server stayed "
           "unreachable); API errors: failed requests by kind (each retried with backoff); tokens per game: "
           "prompt / completion.", "",
           "| agent | side | games | decisions | invalid (%) | retries | fallbacks | API errors | tokens per game | "
           "s per decision | cost |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, sides in text.items():
        for team in team_keys:
            t = sides.get(team)
            if t is None:
                continue
            rate = t["invalid_reply_rate"]
            invalid = (f"{t['invalid_replies']} of {t['replies']}: {_pct(rate)} [{_pct(t['invalid_reply_interval'][0])}, "
                       f"{_pct(t['invalid_reply_interval'][1])}]") if rate is not None else "–"
            errors = ", ".join(f"{kind} {count}" for kind, count in t.get("api_errors", {}).items() if count) or (
                "none" if "api_errors" in t else "–")
            if t.get("api_failures"):
                errors += f" ({t['api_failures']} requests given up)"
            tokens = (f"{t['prompt_tokens_per_game']:.0f} / {t['completion_tokens_per_game']:.0f}"
                      if t.get("prompt_tokens_per_game") is not None else "–")
            seconds = f"{t['seconds_per_decision']:.3f}" if t.get("seconds_per_decision") is not None else "–"
            cost = f"{t['cost']:.4f}" if "cost" in t else "–"
            out.append(f"| {name} | {team} | {t['games']} | {t['decisions']} | {invalid} | {t['retries']} | "
                       f"{t['fallbacks']} | {errors} | {tokens} | {seconds} | {cost} |")
    out.append("")
    return out
