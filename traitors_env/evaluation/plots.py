"""The report's plots (matplotlib, Agg): cross-play heatmaps, ratings with error bars, metrics per agent, the role
beliefs' reliability diagrams (pooled and per agent), the league's Nash weights over iterations (any game)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from .metrics import plotted_metrics
from .report import possessive, report_game

__all__ = ["league_weights", "plot_beliefs", "plot_calibration", "plot_crossplay", "plot_league", "plot_metrics", "plot_ratings",
           "reliability_points"]


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: Path) -> None:
    path = Path(path)
    tmp = path.with_name(path.stem + ".tmp.png")
    fig.savefig(tmp, dpi=100)
    _pyplot().close(fig)
    tmp.replace(path)


def plot_crossplay(report: dict, path: Path) -> None:
    """``crossplay.png``: one heatmap of the row side's (Pirates', Traitor's) win rate per table size (and pooled), in %."""
    plt = _pyplot()
    game = report_game(report)
    (row_team, column_team), (row_label, column_label) = game.type.sides, game.type.side_labels
    names = list(report["agents"])
    keys = ["all", *report["settings"]["players"]]
    cols = min(4, len(keys))
    rows = -(-len(keys) // cols)
    size = max(2.6, 0.75 * len(names) + 1.2)
    fig, axes = plt.subplots(rows, cols, figsize=(cols * size + 1.2, rows * size + 0.6), squeeze=False,
                             layout="constrained")
    image = None
    for number, (ax, key) in enumerate(zip(axes.flat, keys)):
        table = {(r[row_team], r[column_team]): r for r in report["matrix"] if r["num_players"] == key}
        grid = np.full((len(names), len(names)), np.nan)
        for (p, m), r in table.items():
            if r["games"]:
                grid[names.index(p), names.index(m)] = r["win_rate"]
        image = ax.imshow(grid, vmin=0, vmax=1, cmap="RdBu_r")
        for i in range(len(names)):
            for j in range(len(names)):
                if not np.isnan(grid[i, j]):
                    ax.text(j, i, f"{100 * grid[i, j]:.0f}", ha="center", va="center", fontsize=8,
                            color="white" if abs(grid[i, j] - 0.5) > 0.3 else "black")
        ax.set_title("pooled" if key == "all" else f"{key} players", fontsize=10)
        ax.set_xticks(range(len(names)), names, rotation=45, ha="right", fontsize=8)
        ax.set_yticks(range(len(names)), names, fontsize=8)
        ax.set_xlabel(f"{column_label} agent", fontsize=8)
        if number % cols == 0:
            ax.set_ylabel(f"{row_label} agent", fontsize=8)
    for ax in list(axes.flat)[len(keys):]:
        ax.axis("off")
    fig.suptitle(f"{possessive(row_label)} win rate (%), {report['settings']['games']} games per cell", fontsize=11)
    fig.colorbar(image, ax=axes.ravel().tolist(), shrink=0.6, label=f"{possessive(row_label)} win rate")
    _save(fig, path)


def plot_ratings(report: dict, path: Path) -> None:
    """``ratings.png``: openskill μ per agent and team, error bars ± 2σ."""
    plt = _pyplot()
    names = list(report["agents"])
    teams = report_game(report).type.sides
    fig, axes = plt.subplots(1, 2, figsize=(10, 0.45 * len(names) + 1.8), sharey=True)
    for ax, team, color in zip(axes, teams, ("tab:red", "tab:blue")):
        mus = [report["ratings"].get(n, {}).get(team, {}).get("mu", np.nan) for n in names]
        sigmas = [report["ratings"].get(n, {}).get(team, {}).get("sigma", np.nan) for n in names]
        ax.errorbar(mus, range(len(names)), xerr=2 * np.asarray(sigmas), fmt="o", color=color, capsize=3)
        ax.set_yticks(range(len(names)), names)
        ax.invert_yaxis()
        ax.set_title(f"as the {team}")
        ax.set_xlabel("openskill μ (bars: ± 2σ)")
        ax.grid(alpha=0.3)
    fig.suptitle("Team ratings (Plackett–Luce, every game of the cross-play)")
    fig.tight_layout()
    _save(fig, path)


def plot_metrics(report: dict, path: Path) -> None:
    """``metrics.png``: the game's plotted rate metrics (:func:`.metrics.plotted_metrics`) per agent, one panel each,
    bars per side, 95 % bars.

    Raises:
        MissingCapabilityError: for a game without hidden-role metrics.
    """
    plt = _pyplot()
    names = list(report["agents"])
    game = report_game(report)
    metrics = plotted_metrics(game.require("metrics"))
    cols = 4
    rows = -(-len(metrics) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(cols * max(3.2, 0.5 * len(names) + 1.5), rows * 3.4), squeeze=False)
    x = np.arange(len(names))
    for ax, metric in zip(axes.flat, metrics):
        for k, (team, color) in enumerate(zip(game.type.sides, ("tab:red", "tab:blue"))):
            values, low, high = [], [], []
            for n in names:
                e = report["metrics"].get(n, {}).get(team, {}).get(metric.name)
                ok = e is not None and e["value"] is not None
                values.append(e["value"] if ok else np.nan)
                low.append(e["value"] - e["interval"][0] if ok else 0)
                high.append(e["interval"][1] - e["value"] if ok else 0)
            ax.bar(x + (k - 0.5) * 0.38, values, 0.38, yerr=[low, high], color=color, alpha=0.8, capsize=2,
                   label=team)
        ax.set_title(metric.name, fontsize=9)
        ax.set_xticks(x, names, rotation=45, ha="right", fontsize=8)
        ax.set_ylim(0, 1.02)
        ax.grid(axis="y", alpha=0.3)
    for ax in list(axes.flat)[len(metrics):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=8)
    # The title of the figures the docs show (unchanged, so a rerun redraws the same image).
    fig.suptitle("Hidden-role metrics per agent and team (95 % intervals; docs/benchmark, \"Hidden-role metrics\")")
    fig.tight_layout()
    _save(fig, path)


def plot_beliefs(report: dict, path: Path) -> None:
    """``beliefs.png``: the reliability diagram of the agents' role beliefs (``report["deduction"]``), one panel per
    observer side: per bin of the belief, the share of those seats truly on the hidden side against the mean belief
    (a calibrated agent lies on the diagonal; marker area ∝ predictions in the bin).

    Raises:
        ValueError: for a report without scored beliefs.
    """
    plt = _pyplot()
    game = report_game(report)
    agents = (report.get("deduction") or {}).get("agents") or {}
    teams = [t for t in game.type.sides if any(t in sides for sides in agents.values())]
    if not teams:
        raise ValueError("the report has no scored role beliefs (report['deduction']['agents'] is empty)")
    hidden = game.type.side_labels[game.type.side_index(report["deduction"]["hidden_side"])]
    fig, axes = plt.subplots(1, len(teams), figsize=(4.6 * len(teams), 4.4), squeeze=False)
    for ax, team in zip(axes.flat, teams):
        ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1, label="calibrated")
        for name, sides in agents.items():
            bins = [b for b in sides.get(team, {}).get("reliability", []) if b["count"]]
            if not bins:
                continue
            total = sum(b["count"] for b in bins)
            x = [b["mean_belief"] for b in bins]
            y = [b["frequency"] for b in bins]
            line = ax.plot(x, y, marker=None, linewidth=1.2, label=name)[0]
            ax.scatter(x, y, s=[10 + 400 * b["count"] / total for b in bins], color=line.get_color(), alpha=0.7)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_xlabel(f"belief P({hidden})")
        ax.set_ylabel(f"share truly {hidden}")
        ax.set_title(f"as the {team}", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Role beliefs: reliability diagram (every decision, all table sizes)")
    fig.tight_layout()
    _save(fig, path)


def reliability_points(entry: dict) -> list[dict]:
    """The reliability diagram's points of one agent in one side (``report["deduction"]["agents"][a][side]``): per
    bin of the belief with predictions (:data:`.deduction.BINS` equal bins of [0, 1]; a belief of exactly 1 falls in
    the last), ``low``, ``high``, ``count``, ``mean_belief`` (x) and ``frequency`` (y: the share of those seats truly
    on the hidden side); empty bins are left out."""
    return [dict(b) for b in entry.get("reliability", []) if b["count"]]


def plot_calibration(report: dict, path: Path) -> None:
    """``calibration.png``: one reliability diagram per agent with beliefs and side (rows: agents, columns: sides):
    the observed frequency of the hidden side per belief bin as bars over the bin, the mean belief in the bin as a
    dot at that frequency, the diagonal (calibrated), and the predictions per bin (grey, right axis). Sides where
    the agent knows every seat (base rate 0 everywhere) are left out.

    Raises:
        ValueError: for a report without scored beliefs.
    """
    plt = _pyplot()
    game = report_game(report)
    agents = (report.get("deduction") or {}).get("agents") or {}
    panels = [(name, team, entry) for name, sides in agents.items() for team, entry in sides.items()
              if reliability_points(entry) and any(r["base_brier"] or r["brier"] for r in entry["rows"])]
    if not panels:
        raise ValueError("the report has no scored role beliefs to calibrate (report['deduction']['agents'])")
    hidden = game.type.side_labels[game.type.side_index(report["deduction"]["hidden_side"])]
    names = list(dict.fromkeys(p[0] for p in panels))
    teams = [t for t in game.type.sides if any(p[1] == t for p in panels)]
    fig, axes = plt.subplots(len(names), len(teams), figsize=(4.4 * len(teams), 3.9 * len(names)), squeeze=False)
    for ax in axes.flat:
        ax.axis("off")
    for name, team, entry in panels:
        ax = axes[names.index(name)][teams.index(team)]
        ax.axis("on")
        points = reliability_points(entry)
        width = points[0]["high"] - points[0]["low"]
        counts = ax.twinx()
        counts.bar([b["low"] + width / 2 for b in points], [b["count"] for b in points], width * 0.9, color="lightgrey",
                   alpha=0.5, zorder=0)
        counts.set_ylabel("predictions", fontsize=8, color="grey")
        counts.tick_params(labelsize=7, colors="grey")
        ax.set_zorder(counts.get_zorder() + 1)
        ax.patch.set_visible(False)
        ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1, label="calibrated")
        ax.bar([b["low"] for b in points], [b["frequency"] for b in points], width, align="edge", fill=False,
               edgecolor="tab:blue", label="observed")
        ax.plot([b["mean_belief"] for b in points], [b["frequency"] for b in points], "o", color="tab:red", markersize=4,
                label="mean belief in bin")
        pooled = [r for r in entry["rows"] if r["phase"] == "all"][-1]
        ax.set_title(f"{name} as the {team}: Brier {pooled['brier']:.3f} (base {pooled['base_brier']:.3f})", fontsize=9)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_xlabel(f"belief P({hidden})", fontsize=8)
        ax.set_ylabel(f"share truly {hidden}", fontsize=8)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper left")
    fig.suptitle("Role beliefs: reliability diagram per agent (every decision, all table sizes)")
    fig.tight_layout()
    _save(fig, path)


# ------------------------------------------------------------------ the league's Nash weights
def league_weights(source) -> dict:
    """The league's Nash weights over iterations, from ``league.json`` (a path) or its parsed content: the schema
    the league's training loop writes (``training/jax_backend/league.py``, module doc), of which this reads::

        {"sides": ["pirates", "mutineers"],
         "iterations": [{"iteration": 0, "nash": {"pirates": {"heuristic": 1.0, ...}, "mutineers": {...}}}, ...]}

    A member absent from an iteration's equilibrium (it joined later) has weight 0 there.

    Returns:
        ``{"sides": [side keys], "iterations": [numbers], "members": {side: [members, first seen first]},
        "weights": {side: {member: [weight per iteration]}}}``.

    Raises:
        ValueError: naming the file (or "league data") and the first key or value that does not fit the schema.
    """
    import json

    where = "league data"
    if isinstance(source, (str, Path)):
        where = str(source)
        try:
            source = json.loads(Path(source).read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:  # ValueError: JSONDecodeError, UnicodeDecodeError
            raise ValueError(f"{where}: cannot read the league file ({error})") from None
    expected = ("expected {'sides': [row, column], 'iterations': [{'iteration': k, 'nash': {side: {member: weight}}}]} "
                "with finite weights >= 0")
    if not isinstance(source, dict) or not isinstance(source.get("iterations"), list) or not source["iterations"]:
        raise ValueError(f"{where}: no 'iterations' list; {expected}")
    sides = source.get("sides")
    if not (isinstance(sides, list) and len(sides) == 2 and all(isinstance(s, str) for s in sides)):
        raise ValueError(f"{where}: 'sides' is {sides!r}; {expected}")
    numbers, nash = [], []
    for position, it in enumerate(source["iterations"]):
        weights = it.get("nash") if isinstance(it, dict) else None
        if not (isinstance(weights, dict) and isinstance(it.get("iteration"), int)
                and not isinstance(it["iteration"], bool)
                and all(isinstance(weights.get(side), dict) for side in sides)
                and all(isinstance(w, (int, float)) and not isinstance(w, bool) and math.isfinite(w) and w >= 0
                        for side in sides for w in weights[side].values())):
            raise ValueError(f"{where}: iterations[{position}] is {str(it)[:120]}; {expected}")
        numbers.append(it["iteration"])
        nash.append(weights)
    members = {side: list(dict.fromkeys(m for it in nash for m in it[side])) for side in sides}
    table = {side: {m: [float(it[side].get(m, 0.0)) for it in nash] for m in members[side]} for side in sides}
    return {"sides": list(sides), "iterations": numbers, "members": members, "weights": table}


def plot_league(source, path: Path) -> Path:
    """``league.png``: the league's Nash weights per side over iterations (stacked bars, a colour per member), from
    ``league.json`` or its content (:func:`league_weights`). Returns ``path``.

    Raises:
        ValueError: from :func:`league_weights`.
    """
    plt = _pyplot()
    league = league_weights(source)
    sides = league["sides"]
    x = np.arange(len(league["iterations"]))
    fig, axes = plt.subplots(len(sides), 1, figsize=(max(7.0, 0.45 * len(x) + 5.0), 3.2 * len(sides)), squeeze=False)
    cmap = plt.get_cmap("tab20")
    everyone = list(dict.fromkeys(m for side in sides for m in league["members"][side]))  # one colour per member
    for ax, side in zip(axes.flat, sides):
        bottom = np.zeros(len(x))
        for member, weights in league["weights"][side].items():
            w = np.asarray(weights, dtype=float)
            ax.bar(x, w, 0.8, bottom=bottom, color=cmap(everyone.index(member) % 20), label=member)
            bottom += w
        ax.set_title(f"{side}: Nash weight per member", fontsize=10)
        ax.set_xticks(x, [str(i) for i in league["iterations"]], fontsize=8)
        ax.set_xlabel("league iteration", fontsize=8)
        ax.set_ylim(0, 1.02)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.suptitle("League: each side's Nash mixture over its population")
    fig.tight_layout()
    _save(fig, Path(path))
    return Path(path)
