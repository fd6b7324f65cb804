"""The report's per-agent summary: who plays the game better, in one table per report, for any registered game.

One entry per agent and side it played (``report["summary"]["agents"][agent][side key]``), read from the report's
other sections, so every figure here is one a section below states in full:

- ``vs_nash``: the agent's win rate (pooled over table sizes) against the population's **Nash mixture of the other
  side** (``report["nash"]["all"]``): ``Σ_m w_m · rate(agent, m)`` over the other side's agents ``m`` with the
  equilibrium weights ``w_m``, each ``rate`` from the pooled ``matrix`` row (for the column side ``1 −`` the row
  side's win rate: the meta-game's zero-sum reading, also in a mixed-motive game). ``interval``: 95 %, normal, of a
  weighted sum of independent binomial proportions, each cell's variance from its Agresti–Coull estimate
  ``(wins + 2) / (games + 4)`` (so a cell won 0 or every time still has some), the weights taken as fixed,
  clipped to [0, 1]. ``games``: the games against agents of positive weight. ``{"skipped": reason}`` where the
  meta-game was not solved (``--anchor``, an empty cell) or the agent is not in it.
- ``worst_case``: the other side's agent against which the agent's pooled win rate is lowest (``opponent``,
  ``win_rate``, ``interval``: the matrix row's Wilson interval, flipped for the column side, ``games``).
- ``best_response_gain``: from the report's ``exploitability`` key where present (``traitors-eval
  --exploitability``; ``None`` otherwise; :func:`exploitability_entry` for the shapes read): ``gain`` (a fraction:
  a best response's win rate against the frozen agent minus the agent's own other side's), ``interval`` where
  given, ``vs_heuristic`` (minus the heuristic's instead) where given, and the entry's other plain fields
  (``learner_steps``, ``backend`` …).
- ``beliefs``: the agent's role beliefs scored by :mod:`.deduction` (``None`` for an agent without beliefs):
  the pooled row's ``brier``, ``base_brier``, ``heuristic_brier``, ``brier_over_base``, ``predictions`` and
  ``brier_over_base_ci`` (95 %, deals as clusters), ``deals`` and ``by_size``: table size → phase → the same
  (``brier_over_base`` ``None``: nothing to deduce, base rate 0).
- ``margin``: the agent's win rate minus the **reference agent**'s in the same side, both against the reference
  in the other side (``report["settings"]["reference"]``, ``traitors-eval --reference``; by default the first agent
  whose spec is ``heuristic``, :func:`default_reference`; ``None`` for the reference itself or a report without one):
  ``reference`` and per table size (``by_size``: ``str(n)`` →) and pooled (``all``) ``margin`` (a fraction),
  ``interval`` (95 %, Newcombe's hybrid score interval of a difference of two proportions,
  :func:`~traitors_env.core.stats.difference_interval`: conservative here, since every cell plays the same deals),
  ``win_rate``, ``reference_win_rate``, ``games`` (the agent's) and ``failed`` (either cell had an agent failure,
  so fewer games); a size without both cells is left out. E.g.
  issue 27's "beat the heuristic by ≥ 10 points at every table size" reads ``by_size`` (and is met beyond doubt
  where ``interval[0] ≥ 0.10``). Both rates read the matrix as the rest of the summary does (the column side's
  win rate is ``1 −`` the row side's).
- ``metrics``: per metric of the game's summary list (:func:`.metrics.summary_metrics`: the capability's
  ``SUMMARY``, e.g. Traitors Aboard's ``plank_precision`` and claim truths, Avalon's ``team_precision`` and
  ``assassin_hit_rate``) the pooled entry of ``report["metrics"]`` (``value``, ``interval``, ``count``, and for a
  metric with a per-decision chance ``chance`` and ``over_chance``) plus ``by_size``: table size → the same entry
  from that size's games alone (``report["metrics_by_size"]``).

``report["summary"]`` also holds ``metrics`` (the summary's metric names, in column order) and ``chance_metrics``
(those with a chance). :func:`summarize_agents` recomputes it from a report dict, e.g. after a tool adds
``exploitability``; ``report.md`` always shows the recomputed table.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from ..core.game import Game
from ..core.registry import DEFAULT_GAME, load_game
from ..core.stats import difference_interval
from .metrics import summarize, summary_metrics

__all__ = ["PHASE_SHOWN", "default_reference", "exploitability_entry", "metrics_by_size", "reference_agent",
           "summarize_agents", "summary_markdown"]

_Z = 1.959963984540054
#: The deduction phase the per-size belief table shows (the last third of the game, where the evidence is).
PHASE_SHOWN = "late"
_DASH = "—"


def _game(report: dict) -> Game:
    """The report's game (``settings["game"]``; the default game for a report written before it was recorded)."""
    return load_game(report["settings"].get("game", DEFAULT_GAME))


def metrics_by_size(size_tallies: dict[tuple[str, str, int], Counter], names: Sequence[str], game: Game) -> dict:
    """``report["metrics_by_size"]``: agent → side key → ``str(table size)`` → metric → entry (:func:`summarize`),
    for the game's summary metrics only; ``{}`` for a game without metrics."""
    if game.metrics is None:
        return {}
    metric_list = summary_metrics(game.metrics)
    out: dict = {}
    for (name, team, n), tally in sorted(size_tallies.items(), key=lambda kv: (names.index(kv[0][0]), kv[0][1], kv[0][2])):
        out.setdefault(name, {}).setdefault(team, {})[str(n)] = summarize(tally, metric_list)
    return out


def _interval(value: float, variance: float) -> list[float]:
    half = _Z * math.sqrt(max(0.0, variance))
    return [round(max(0.0, value - half), 6), round(min(1.0, value + half), 6)]


def _rates(report: dict, game: Game, name: str, side: int) -> dict[str, tuple[float, int, int, list]]:
    """Opponent → (the agent's pooled win rate, its wins, games, Wilson interval) in side ``side``."""
    row_team, column_team = game.type.sides
    wins_key = f"{row_team}_wins"
    out = {}
    for r in report["matrix"]:
        if r["num_players"] != "all" or not r["games"]:
            continue
        if side == 0 and r[row_team] == name:
            out[r[column_team]] = (r["win_rate"], r[wins_key], r["games"], list(r["interval"]))
        elif side == 1 and r[column_team] == name:
            lo, hi = r["interval"]
            out[r[row_team]] = (round(1.0 - r["win_rate"], 6), r["games"] - r[wins_key], r["games"],
                                [round(1.0 - hi, 6), round(1.0 - lo, 6)])
    return out


def default_reference(specs: dict[str, str], anchor: Sequence[str] = ()) -> str | None:
    """The default reference agent of the margins: the first agent whose spec is the ``heuristic`` bot (whatever its
    name), among the anchors where there are any (the reference's own cell must be played); ``None`` if there is none."""
    return next((name for name, spec in specs.items() if spec == "heuristic" and (not anchor or name in anchor)), None)


def reference_agent(report: dict) -> str | None:
    """The report's reference agent for the margins: ``settings["reference"]`` where the key is set (``None``: no
    margins), else (a report written before the key) :func:`default_reference` of its agents and anchors."""
    settings = report["settings"]
    if "reference" in settings:
        return settings["reference"]
    return default_reference(report["agents"], settings.get("anchor") or ())


def _side_wins(row: dict, game: Game, side: int) -> tuple[int, int]:
    wins = row[f"{game.type.sides[0]}_wins"]
    return (wins if side == 0 else row["games"] - wins), row["games"]


def _margin(report: dict, game: Game, name: str, side: int, reference: str | None) -> dict | None:
    if reference is None or name == reference:
        return None
    row_team, column_team = game.type.sides
    cells: dict = {}
    failed: dict = {}
    for r in report["matrix"]:
        if not r["games"]:
            continue
        against = r[column_team] if side == 0 else r[row_team]
        player = r[row_team] if side == 0 else r[column_team]
        if against == reference and player in (name, reference):
            cells.setdefault(str(r["num_players"]), {})[player] = _side_wins(r, game, side)
            failed[str(r["num_players"])] = failed.get(str(r["num_players"]), False) or bool(r.get("failed"))
    out: dict = {"reference": reference, "by_size": {}, "all": None}
    for size, pair in cells.items():
        if name not in pair or reference not in pair:
            continue
        (wins, games), (ref_wins, ref_games) = pair[name], pair[reference]
        low, high = difference_interval(wins, games, ref_wins, ref_games)
        entry = {"margin": round(wins / games - ref_wins / ref_games, 6), "interval": [round(low, 6), round(high, 6)], "win_rate": round(wins / games, 6),
                 "reference_win_rate": round(ref_wins / ref_games, 6), "games": games,
                 "failed": failed[size]}
        if size == "all":
            out["all"] = entry
        else:
            out["by_size"][size] = entry
    return out if out["all"] or out["by_size"] else None


def _vs_nash(report: dict, game: Game, name: str, side: int, rates: dict) -> dict:
    nash = (report.get("nash") or {}).get("all")
    if not nash or "skipped" in nash:
        return {"skipped": (nash or {}).get("skipped", "no pooled meta-game in the report")}
    other = game.type.sides[1 - side]
    mixture = nash[other]["mixture"]
    if name not in nash[game.type.sides[side]]["mixture"]:
        return {"skipped": f"{name!r} is not in the {game.type.sides[side]} meta-game"}
    missing = [m for m, w in mixture.items() if w > 0 and m not in rates]
    if missing:
        return {"skipped": f"no games against {', '.join(missing)}"}
    value = variance = 0.0
    games = 0
    for m, w in mixture.items():
        if w <= 0:
            continue
        rate, wins, n, _ = rates[m]
        value += w * rate
        adjusted = (wins + 2) / (n + 4)
        variance += w * w * adjusted * (1 - adjusted) / (n + 4)
        games += n
    return {"win_rate": round(value, 6), "interval": _interval(value, variance), "games": games,
            "opponents": {m: w for m, w in mixture.items() if w > 0}}


def _worst_case(rates: dict) -> dict | None:
    if not rates:
        return None
    opponent = min(rates, key=lambda m: rates[m][0])  # the first of equals, in the matrix's order
    rate, _, games, interval = rates[opponent]
    return {"opponent": opponent, "win_rate": rate, "interval": interval, "games": games}


def _gain_value(value) -> tuple[float | None, list | None]:
    if isinstance(value, dict):
        inner = next((value[k] for k in ("points", "gain", "value", "mean") if isinstance(value.get(k), (int, float))),
                     None)
        return inner, value.get("interval")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value), None
    return None, None


def exploitability_entry(report: dict, name: str, side: str) -> dict | None:
    """The best-response gain against agent ``name`` frozen in side key ``side``, from ``report["exploitability"]``.

    The section written by ``traitors-eval --exploitability`` (:mod:`.exploitability` where present) is
    ``{agent: {side key: entry}}`` with ``entry["gain"] = {"vs_self_play": {"points", "interval"}, "vs_heuristic":
    {…} | None}``: ``gain`` here is the one against self-play (the agent's own other side), ``vs_heuristic`` the
    other. Read tolerantly too: ``{agent: entry}`` with the side under ``target_team``/``team``/``side``; a list of
    entries naming the agent under ``agent``/``target``/``name``; a gain under ``gain``, ``best_response_gain`` or
    ``gap``, each a number or ``{"points"|"gain"|"value"|"mean", "interval"}``.

    Returns:
        ``{"gain", "interval", "vs_heuristic", "vs_heuristic_interval", …the entry's other numbers and strings
        (``learner_steps``, ``backend``, ``source`` …)}``, or ``None`` where the report has no gain for that agent
        and side.
    """
    data = report.get("exploitability")
    if not data:
        return None
    side_keys = ("target_team", "team", "side")
    entry = None
    if isinstance(data, dict):
        found = data.get(name)
        if isinstance(found, dict):
            if isinstance(found.get(side), dict):
                entry = found[side]
            elif any(found.get(k) == side for k in side_keys):
                entry = found
    if entry is None:
        entries = data if isinstance(data, list) else data.get("entries", []) if isinstance(data, dict) else []
        for e in entries:
            if isinstance(e, dict) and name in (e.get("agent"), e.get("target"), e.get("name")) and any(
                    e.get(k) == side for k in side_keys):
                entry = e
                break
    if entry is None:
        return None
    gain, interval, heuristic, heuristic_interval = None, None, None, None
    raw = entry.get("gain")
    if isinstance(raw, dict) and ("vs_self_play" in raw or "vs_heuristic" in raw):
        gain, interval = _gain_value(raw.get("vs_self_play"))
        heuristic, heuristic_interval = _gain_value(raw.get("vs_heuristic"))
    else:
        for key in ("gain", "best_response_gain", "gap"):
            gain, interval = _gain_value(entry.get(key))
            if gain is not None:
                break
    if gain is None:
        return None
    interval = interval or entry.get("gain_interval") or (entry.get("interval") if "gain" in entry else None)
    out = {"gain": round(float(gain), 6), "interval": list(interval) if interval else None}
    if heuristic is not None:
        out["vs_heuristic"] = round(float(heuristic), 6)
        out["vs_heuristic_interval"] = list(heuristic_interval) if heuristic_interval else None
    for key, value in entry.items():
        if key not in out and isinstance(value, (str, int, float)) and not isinstance(value, bool):
            out[key] = value
    return out


def _beliefs(report: dict, name: str, side: str) -> dict | None:
    deduction = report.get("deduction") or {}
    entry = (deduction.get("agents") or {}).get(name, {}).get(side)
    if not entry or not entry.get("rows"):
        return None
    fields = ("brier", "base_brier", "heuristic_brier", "brier_over_base", "predictions", "brier_over_base_ci",
              "deals")
    pooled = [r for r in entry["rows"] if r["phase"] == "all"][-1]  # sizes then "all", phases then "all"
    by_size: dict = {}
    for r in entry["rows"]:
        if r["num_players"] != "all":
            by_size.setdefault(str(r["num_players"]), {})[r["phase"]] = {k: r.get(k) for k in fields}
    return {**{k: pooled.get(k) for k in fields}, "by_size": by_size}


def summarize_agents(report: dict, game: Game | None = None) -> dict:
    """``report["summary"]`` (see the module doc) from the report's sections.

    Args:
        report: a report dict (:func:`.report.build_report`; ``metrics_by_size`` and ``exploitability`` optional).
        game: the report's game (default: the one its ``settings`` name).
    """
    game = game or _game(report)
    metric_list = summary_metrics(game.metrics) if game.metrics is not None else []
    names = list(report["agents"])
    reference = reference_agent(report)
    agents: dict = {}
    for name in names:
        for side, team in enumerate(game.type.sides):
            rates = _rates(report, game, name, side)
            if not rates:
                continue
            metrics = {}
            pooled = report.get("metrics", {}).get(name, {}).get(team, {})
            by_size = report.get("metrics_by_size", {}).get(name, {}).get(team, {})
            for metric in metric_list:
                if metric.name in pooled:
                    metrics[metric.name] = {**pooled[metric.name],
                                            "by_size": {n: e[metric.name] for n, e in by_size.items() if metric.name in e}}
            agents.setdefault(name, {})[team] = {
                "vs_nash": _vs_nash(report, game, name, side, rates),
                "worst_case": _worst_case(rates),
                "best_response_gain": exploitability_entry(report, name, team),
                "beliefs": _beliefs(report, name, team),
                "margin": _margin(report, game, name, side, reference),
                "metrics": metrics,
            }
    return {"metrics": [m.name for m in metric_list],
            "chance_metrics": [m.name for m in metric_list if getattr(m, "chance", None)],
            "agents": agents}


# ------------------------------------------------------------------ markdown
def _pct(x) -> str:
    return _DASH if x is None else f"{100 * x:.1f}"


def _rate_cell(entry: dict | None) -> str:
    if not entry or entry.get("win_rate") is None:
        return _DASH
    lo, hi = entry["interval"]
    return f"{_pct(entry['win_rate'])} [{_pct(lo)}, {_pct(hi)}]"


def _metric_cell(entry: dict | None) -> str:
    if not entry or entry.get("value") is None:
        return _DASH
    text = f"{_pct(entry['value'])} (n={entry['count']})"
    if "chance" in entry:
        ratio = entry.get("over_chance")
        text = f"{_pct(entry['value'])} vs {_pct(entry['chance'])}" + (f" (×{ratio:.2f})" if ratio is not None else "") \
            + f" n={entry['count']}"
    return text


def _brier_cell(row: dict | None) -> str:
    if not row or row.get("brier") is None:
        return _DASH
    if row.get("brier_over_base") is None:
        return f"{row['brier']:.3f} (base 0: nothing to deduce)"
    ci = row.get("brier_over_base_ci")
    spread = f" [{ci[0]:.2f}, {ci[1]:.2f}], {row['deals']} deals" if ci else ""
    return f"{row['brier']:.3f} vs {row['base_brier']:.3f} (×{row['brier_over_base']:.2f}{spread})"


def summary_markdown(report: dict, game: Game | None = None) -> list[str]:
    """``report.md``'s "Summary" section: the table of :func:`summarize_agents` (recomputed from the report) and the
    per-table-size tables of the metrics with a chance and of the beliefs' Brier / base rate."""
    game = game or _game(report)
    summary = summarize_agents(report, game)
    if not summary["agents"]:
        return []
    players = [str(n) for n in report["settings"]["players"]]
    row_label, column_label = game.type.side_labels
    out = ["## Summary: who plays the game better", "",
           "Per agent and side, pooled over table sizes. *vs Nash*: win rate in % against the population's Nash mixture "
           "of the other side (the meta-game below) [95 %]; *worst case*: the lowest win rate against any single agent "
           "of the other side; *best-response gain*: a best response's win rate against the agent minus the agent's own "
           "other side's, in points (where the report holds an `exploitability` entry); *beliefs*: Brier score of the "
           "role beliefs vs the base rate's (× the ratio; below 1 is deduction beyond the prior); then the game's "
           "summary metrics in % (n = count), those with a per-decision chance as value vs chance (× value / chance). "
           f"{_DASH}: not measured.", ""]
    columns = summary["metrics"]
    # one cell per column: a game without summary metrics gets no empty trailing column
    out.append("| " + " | ".join(["agent", "side", "vs Nash (%)", "worst case (%)", "best-response gain",
                                   "beliefs: Brier vs base", *(f"`{c}`" for c in columns)]) + " |")
    out.append("|---|---|---|---|---|---|" + "---|" * len(columns))
    for name, sides in summary["agents"].items():
        for team, e in sides.items():
            nash = e["vs_nash"]
            worst = e["worst_case"]
            worst_text = f"{_rate_cell(worst)} vs {worst['opponent']}" if worst else _DASH
            gain = e["best_response_gain"]
            gain_text = _DASH if gain is None else f"{100 * gain['gain']:+.1f}" + (
                f" [{100 * gain['interval'][0]:+.1f}, {100 * gain['interval'][1]:+.1f}]" if gain.get("interval") else "")
            if gain is not None and gain.get("vs_heuristic") is not None:
                gain_text += f" (vs heuristic {100 * gain['vs_heuristic']:+.1f})"
            beliefs = _brier_cell(e["beliefs"])
            cells = [_metric_cell(e["metrics"].get(c)) for c in columns]
            out.append("| " + " | ".join([name, team, _rate_cell(nash) if "skipped" not in nash else _DASH, worst_text,
                                           gain_text, beliefs, *cells]) + " |")
    skipped = {e["vs_nash"]["skipped"] for sides in summary["agents"].values() for e in sides.values()
               if "skipped" in e["vs_nash"]}
    if skipped:
        out += ["", "vs Nash not computed: " + "; ".join(sorted(skipped)) + "."]
    out.append("")
    out += _margin_markdown(summary, players)
    for metric in summary["chance_metrics"]:
        rows = [(name, team, e["metrics"][metric]) for name, sides in summary["agents"].items()
                for team, e in sides.items() if e["metrics"].get(metric, {}).get("count")]
        if not rows:
            continue
        out += [f"### `{metric}` against chance, per table size", "",
                "Value vs chance in % (× value / chance; n = count). Chance: the mean over the agent's own decisions of "
                "the probability that a uniformly random legal choice succeeds at that decision (the game's metrics "
                "declare it).", "", "| agent | side | " + " | ".join(f"{n} players" for n in players) + " |",
                "|---|---|" + "---|" * len(players)]
        for name, team, entry in rows:
            out.append(f"| {name} | {team} | " + " | ".join(_metric_cell(entry["by_size"].get(n)) for n in players) + " |")
        out.append("")
    believers = [(name, team, e["beliefs"]) for name, sides in summary["agents"].items() for team, e in sides.items()
                 if e["beliefs"]]
    if believers and len(players) > 1:
        out += [f"### Beliefs per table size: Brier vs base rate, {PHASE_SHOWN} phase (all phases)", "",
                f"Brier score of the beliefs vs the base rate's (× the ratio [95 %, deals as clusters], the deals "
                f"that reached the {PHASE_SHOWN} phase) in the {PHASE_SHOWN} phase, then in brackets the ratio over all "
                "phases (the deduction section below has every row).", "",
                "| agent | side | " + " | ".join(f"{n} players" for n in players) + " |",
                "|---|---|" + "---|" * len(players)]
        for name, team, beliefs in believers:
            cells = []
            for n in players:
                size = beliefs["by_size"].get(n, {})
                shown = size.get(PHASE_SHOWN)
                pooled = size.get("all", {}).get("brier_over_base")
                text = _brier_cell(shown) if shown else _DASH
                if pooled is not None:
                    text += f" ({pooled:.2f})"
                cells.append(text)
            out.append(f"| {name} | {team} | " + " | ".join(cells) + " |")
        out.append("")
    return out


def _margin_cell(entry: dict | None) -> str:
    if not entry:
        return _DASH
    lo, hi = entry["interval"]
    return f"{100 * entry['margin']:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]" + (" †" if entry.get("failed") else "")


def _margin_markdown(summary: dict, players: list[str]) -> list[str]:
    rows = [(name, team, e["margin"]) for name, sides in summary["agents"].items() for team, e in sides.items()
            if e.get("margin")]
    if not rows:
        return []
    reference = rows[0][2]["reference"]
    out = [f"### Margin over `{reference}`, per table size", "",
           f"The agent's win rate minus `{reference}`'s in the same side, both against `{reference}` in the other "
           "side, in points [95 %: Newcombe's interval of a difference of proportions, the two cells taken as "
           "independent, which is conservative: they play the same deals]. The column side's win rate is 1 − the row "
           "side's, as in the meta-game. A threshold on a margin is met beyond doubt where the interval's lower end "
           "clears it. †: a cell with an agent failure (fewer games; the failures section names them).", "",
           "| agent | side | " + " | ".join(f"{n} players" for n in players) + " | all sizes |",
           "|---|---|" + "---|" * (len(players) + 1)]
    for name, team, entry in rows:
        out.append(f"| {name} | {team} | " + " | ".join(_margin_cell(entry["by_size"].get(n)) for n in players)
                   + f" | {_margin_cell(entry['all'])} |")
    out.append("")
    return out
