"""Issue 27, part 4: the report's per-agent summary (who plays the game better), the per-decision chance of a
target (R10, R11), the per-agent reliability diagram and the league's Nash weights plot.

The summary must restate the report's own sections (a summary that drifts from them is a defect), so the checks
recompute every figure from ``matrix``, ``nash``, ``metrics`` and ``deduction`` by hand."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from traitors_env.core.registry import load_game
from traitors_env.core.stats import difference_interval
from traitors_env.evaluation.cli import main as eval_main
from traitors_env.evaluation.cli import run_benchmark
from traitors_env.evaluation.deduction import Deduction, summarize_deduction
from traitors_env.evaluation.metrics import summarize, summary_metrics
from traitors_env.evaluation.plots import league_weights, plot_calibration, plot_league, reliability_points
from traitors_env.evaluation.population import parse_population
from traitors_env.evaluation.report import markdown
from traitors_env.evaluation.summary import exploitability_entry, summarize_agents
from traitors_env.games.traitors_aboard import actions as A
from traitors_env.games.traitors_aboard.cards import CardKind, Role
from traitors_env.games.traitors_aboard.engine import GameConfig, GameState, Phase
from traitors_env.games.traitors_aboard.metrics import METRICS, SUMMARY, tally_game, target_chance

P, M = Role.PIRATE, Role.MUTINEER
PL, LOOT = CardKind.PLANK, (CardKind.LOOT_PLUS_1, CardKind.LOOT_ZERO, CardKind.LOOT_MINUS_2)


# ------------------------------------------------------------------ chance per decision (R10, R11)
def test_plank_chance_is_the_share_of_mutineers_among_the_other_seats_still_aboard():
    """R11 (and R10): the target is "another player still aboard", so a uniformly random Plank at 6 players with one
    Pirate overboard hits a Mutineer with 2/4, not the table's 2/5; a Mutineer's random Plank hits its fellow with 1/4."""
    roles = [P, M, P, M, P, P]
    hands = [(PL, *LOOT[:2]), LOOT, (), LOOT, LOOT, LOOT]
    state = GameState.from_position(6, roles, hands, (PL,) * 10, overboard=(2,), current_player=0)
    assert target_chance(state, 0) == Fraction(2, 4)
    assert target_chance(state, 1) == Fraction(1, 4)
    # The legal Plank targets are exactly the seats counted (R11): the random agent's expected precision.
    targets = [(0 + a - A.PLANK_BASE) % 6 for a in state.legal_actions() if A.PLANK_BASE < a <= A.EYP_BASE]
    assert sorted(targets) == [1, 3, 4, 5]
    assert Fraction(sum(roles[t] == M for t in targets), len(targets)) == target_chance(state, 0)
    everyone = GameState.from_position(6, roles, [LOOT] * 6, (PL,) * 10)
    assert target_chance(everyone, 0) == Fraction(2, 5)


def test_tally_adds_the_chance_of_every_plank_and_pockets_decision_exactly():
    """A seeded 6-player game played at random: ``plank_chance`` / ``eyp_chance`` equal the sums of the share of
    Mutineers among the other seats aboard, read at each such decision here (R10, R11), as exact fractions; the
    kit's summary divides by the count."""
    rng = np.random.default_rng(3)
    for seed in range(40):
        state = GameState.new(GameConfig(num_players=6), seed=seed)
        expected = {"plank": Fraction(0), "eyp": Fraction(0)}
        while not state.is_terminal:
            action = int(rng.choice(state.legal_actions()))
            if state.phase is Phase.MAIN and A.PLANK_BASE < action < A.GOOD_RIDDANCE:
                seat = state.current_player
                others = [s for s in range(6) if s != seat and state.aboard[s]]
                share = Fraction(sum(state.roles[s] == M for s in others), len(others))
                expected["plank" if action <= A.EYP_BASE else "eyp"] += share
            state.apply_action(action)
        tallies = tally_game(6, True, seed, state.history)
        total = {k: tallies["pirates"][f"{k}_chance"] + tallies["mutineers"][f"{k}_chance"] for k in expected}
        assert total == expected, seed
        if tallies["pirates"]["plank"] and not all(state.aboard):  # Planks before and after an overboard
            break
    assert tallies["pirates"]["plank"] and not all(state.aboard)
    pirates = tallies["pirates"]
    entry = summarize(pirates, METRICS)["plank_precision"]
    assert entry["chance"] == pytest.approx(float(pirates["plank_chance"]) / pirates["plank"])
    assert entry["over_chance"] == pytest.approx(entry["value"] / entry["chance"], rel=1e-3)


# ------------------------------------------------------------------ the summary on a small report
@pytest.fixture(scope="module")
def small_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("summary")
    report = run_benchmark(parse_population(["random", "heuristic"]), [4, 6], 6, out, seed=1, plots=True)
    return report, out


def test_summary_restates_the_matrix_nash_metrics_and_deduction(small_report):
    report, out = small_report
    game = load_game("traitors_aboard")
    summary = report["summary"]
    assert summary["metrics"] == list(SUMMARY) and summary["chance_metrics"] == ["plank_precision"]
    pooled = {(r["pirates"], r["mutineers"]): r for r in report["matrix"] if r["num_players"] == "all"}
    nash = report["nash"]["all"]
    for name in ("random", "heuristic"):
        for side, other in (("pirates", "mutineers"), ("mutineers", "pirates")):
            entry = summary["agents"][name][side]
            mixture = nash[other]["mixture"]

            def rate(opponent, name=name, side=side):
                row = pooled[(name, opponent) if side == "pirates" else (opponent, name)]
                return row["win_rate"] if side == "pirates" else 1 - row["win_rate"]

            vs = sum(w * rate(m) for m, w in mixture.items())
            assert entry["vs_nash"]["win_rate"] == pytest.approx(vs, abs=1e-6)
            lo, hi = entry["vs_nash"]["interval"]
            assert 0 <= lo <= entry["vs_nash"]["win_rate"] <= hi <= 1
            worst = min(("random", "heuristic"), key=rate)
            assert entry["worst_case"]["opponent"] == worst
            assert entry["worst_case"]["win_rate"] == pytest.approx(rate(worst), abs=1e-6)
            assert entry["best_response_gain"] is None
            for metric in SUMMARY:
                got, section = entry["metrics"][metric], report["metrics"][name][side][metric]
                assert {k: got[k] for k in section} == section
                sizes = got["by_size"]
                assert set(sizes) == {"4", "6"}
                assert sum(s["count"] for s in sizes.values()) == section["count"]
                if section["count"]:
                    mean = sum(s["value"] * s["count"] for s in sizes.values() if s["count"]) / section["count"]
                    assert mean == pytest.approx(section["value"], abs=1e-5)
            chance = entry["metrics"]["plank_precision"]
            if chance["count"]:
                by_size = sum(s["chance"] * s["count"] for s in chance["by_size"].values() if s["count"])
                assert by_size / chance["count"] == pytest.approx(chance["chance"], abs=1e-5)
    # Beliefs: the heuristic's pooled deduction row; random has none.
    rows = report["deduction"]["agents"]["heuristic"]["pirates"]["rows"]
    pooled_row = next(r for r in rows if r["num_players"] == "all" and r["phase"] == "all")
    beliefs = summary["agents"]["heuristic"]["pirates"]["beliefs"]
    assert beliefs["brier"] == pooled_row["brier"] and beliefs["brier_over_base"] == pooled_row["brier_over_base"]
    late6 = next(r for r in rows if r["num_players"] == 6 and r["phase"] == "late")
    assert beliefs["by_size"]["6"]["late"]["brier_over_base"] == late6["brier_over_base"]
    assert summary["agents"]["random"]["pirates"]["beliefs"] is None
    # A pure function of the report's sections: the JSON on disk recomputes to itself.
    on_disk = json.loads((out / "report.json").read_text())
    assert summarize_agents(on_disk) == on_disk["summary"]
    text = (out / "report.md").read_text()
    assert "## Summary: who plays the game better" in text and "`plank_precision` against chance" in text
    assert all(f"`{m}`" in text for m in SUMMARY) and game.type.env_id in text


def test_best_response_gain_is_read_from_the_exploitability_key_and_shown(small_report):
    report, _ = small_report
    report = {k: v for k, v in report.items() if k != "files"}
    report["exploitability"] = {"heuristic": {"mutineers": {"gain": 0.125, "interval": [0.05, 0.2],
                                                            "learner_decisions": 5_000_000}}}
    gain = summarize_agents(report)["agents"]["heuristic"]["mutineers"]["best_response_gain"]
    assert gain == {"gain": 0.125, "interval": [0.05, 0.2], "learner_decisions": 5_000_000}
    assert summarize_agents(report)["agents"]["heuristic"]["pirates"]["best_response_gain"] is None
    row = next(line for line in markdown(report).splitlines() if line.startswith("| heuristic | mutineers |"))
    assert "+12.5 [+5.0, +20.0]" in row
    row = next(line for line in markdown(report).splitlines() if line.startswith("| heuristic | pirates |"))
    assert row.split(" | ")[4] == "—"
    # exploit.json's own shape, in a list: the target, its team, and the gap.
    report["exploitability"] = [{"target": "random", "target_team": "pirates", "gap": -0.03,
                                 "learning_curve": [{"steps": 1}]}]
    assert exploitability_entry(report, "random", "pirates") == {"gain": -0.03, "interval": None, "target": "random",
                                                                 "target_team": "pirates", "gap": -0.03}
    assert exploitability_entry(report, "random", "mutineers") is None
    # traitors-eval --exploitability's section: {agent: {side: entry}} with gains against self-play and the heuristic.
    report["exploitability"] = {"random": {"pirates": {
        "source": "runs/x/exploit.json", "backend": "jax", "learner_steps": 5_000_000, "players": [5],
        "best_response_vs_target": {"win_rate": 0.5, "interval": [0.4, 0.6], "games": 100},
        "gain": {"vs_self_play": {"points": 0.21, "interval": [0.1, 0.3]},
                 "vs_heuristic": {"points": 0.05, "interval": [-0.05, 0.15]}}}}}
    gain = summarize_agents(report)["agents"]["random"]["pirates"]["best_response_gain"]
    assert gain == {"gain": 0.21, "interval": [0.1, 0.3], "vs_heuristic": 0.05, "vs_heuristic_interval": [-0.05, 0.15],
                    "source": "runs/x/exploit.json", "backend": "jax", "learner_steps": 5_000_000}
    row = next(line for line in markdown(report).splitlines() if line.startswith("| random | pirates |"))
    assert "+21.0 [+10.0, +30.0] (vs heuristic +5.0)" in row


def test_margins_over_the_heuristic_restate_the_matrix_per_table_size(small_report):
    """The margin of an agent in a side: its win rate against the heuristic in the other side, minus the heuristic's
    own in that side (issue 27: "beat the heuristic by >= 10 points at every table size"), per size and pooled."""
    report, out = small_report
    assert report["settings"]["reference"] == "heuristic"
    cells = {(str(r["num_players"]), r["pirates"], r["mutineers"]): r for r in report["matrix"]}
    for side in ("pirates", "mutineers"):
        margin = report["summary"]["agents"]["random"][side]["margin"]
        assert margin["reference"] == "heuristic" and set(margin["by_size"]) == {"4", "6"}
        assert report["summary"]["agents"]["heuristic"][side]["margin"] is None
        for size in ("4", "6", "all"):
            entry = margin["all"] if size == "all" else margin["by_size"][size]
            mine = cells[(size, "random", "heuristic") if side == "pirates" else (size, "heuristic", "random")]
            ref = cells[(size, "heuristic", "heuristic")]

            def wins(row, side=side):
                return row["pirates_wins"] if side == "pirates" else row["games"] - row["pirates_wins"]

            expected = wins(mine) / mine["games"] - wins(ref) / ref["games"]
            assert entry["margin"] == pytest.approx(expected, abs=1e-6)
            low, high = difference_interval(wins(mine), mine["games"], wins(ref), ref["games"])
            assert entry["interval"] == [round(low, 6), round(high, 6)]
    text = (out / "report.md").read_text()
    assert "### Margin over `heuristic`, per table size" in text
    section = text.split("### Margin over")[1]
    assert section.splitlines()[4].startswith("| agent | side | 4 players | 6 players | all sizes |")
    for side in ("pirates", "mutineers"):
        row = next(line for line in section.splitlines() if line.startswith(f"| random | {side} |"))
        margin = report["summary"]["agents"]["random"][side]["margin"]
        cells = [f"{100 * e['margin']:+.1f} [{100 * e['interval'][0]:+.1f}, {100 * e['interval'][1]:+.1f}]"
                 for e in (margin["by_size"]["4"], margin["by_size"]["6"], margin["all"])]
        assert row == f"| random | {side} | " + " | ".join(cells) + " |"  # the sizes in order, then the pooled


def test_the_reference_is_chosen_or_refused_by_name(tmp_path):
    report = run_benchmark(parse_population(["random", "heuristic"]), [3], 2, tmp_path / "r", plots=False,
                           reference="random")
    assert report["summary"]["agents"]["heuristic"]["pirates"]["margin"]["reference"] == "random"
    assert report["summary"]["agents"]["random"]["pirates"]["margin"] is None
    report = run_benchmark(parse_population(["random"]), [3], 2, tmp_path / "n", plots=False)
    assert report["settings"]["reference"] is None and report["summary"]["agents"]["random"]["pirates"]["margin"] is None
    assert "### Margin over" not in (tmp_path / "n" / "report.md").read_text()
    with pytest.raises(ValueError, match=r"--reference 'nobody': not an agent of the population \(random, heuristic\)"):
        run_benchmark(parse_population(["random", "heuristic"]), [3], 2, tmp_path / "x", plots=False,
                      reference="nobody")
    assert not (tmp_path / "x").exists()  # refused before anything is played or written
    # The default is the heuristic bot by its spec, whatever its name; with --anchor, an anchored one only.
    report = run_benchmark(parse_population(["h=heuristic", "heuristic=random"]), [3], 2, tmp_path / "s", plots=False)
    assert report["settings"]["reference"] == "h"
    report = run_benchmark(parse_population(["r=random", "heuristic"]), [3], 2, tmp_path / "a", plots=False,
                           anchor=["r"])
    assert report["settings"]["reference"] is None  # the heuristic's own cell was not played
    with pytest.raises(ValueError, match=r"--reference 'heuristic': not among --anchor \['r'\]"):
        run_benchmark(parse_population(["r=random", "heuristic"]), [3], 2, tmp_path / "b", plots=False,
                      anchor=["r"], reference="heuristic")


def test_a_margin_over_a_failed_cell_is_flagged(small_report):
    report, _ = small_report
    report = json.loads(json.dumps({k: v for k, v in report.items() if k != "files"}))
    for row in report["matrix"]:
        if row["num_players"] in (4, "all") and row["pirates"] == "random" and row["mutineers"] == "heuristic":
            row["failed"] = True
    margin = summarize_agents(report)["agents"]["random"]["pirates"]["margin"]
    assert margin["by_size"]["4"]["failed"] and margin["all"]["failed"] and not margin["by_size"]["6"]["failed"]
    row = next(line for line in markdown(report).split("### Margin over")[1].splitlines()
               if line.startswith("| random | pirates |"))
    assert row.count(" †") == 2


def test_avalon_assassin_chance_is_one_over_the_other_seats():
    """A14: any seat other than the Assassin is a legal target, so a random assassination names Merlin with 1/(n − 1)."""
    from traitors_env.games.avalon.engine import AvalonConfig
    from traitors_env.games.avalon.engine import GameState as AvalonState
    from traitors_env.games.avalon.engine import Phase as AvalonPhase

    rng = np.random.default_rng(0)
    for seed in range(200):
        state = AvalonState.new(AvalonConfig(num_players=7), seed=seed)
        legal = None
        while not state.is_terminal:
            if state.phase is AvalonPhase.ASSASSINATE:
                legal = state.legal_actions()
            state.apply_action(int(rng.choice(state.legal_actions())))
        if legal is not None:
            break
    assert len(legal) == 6  # every seat but the Assassin's
    evil = load_game("avalon").metrics.tally_state(state, seed)["evil"]
    assert evil["assassinations"] == 1 and evil["assassin_chance"] == Fraction(1, 6)
    entry = summarize(evil, load_game("avalon").metrics.METRICS)["assassin_hit_rate"]
    assert entry["chance"] == pytest.approx(1 / 6, abs=1e-6) and entry["over_chance"] == pytest.approx(entry["value"] * 6, abs=1e-3)


def test_other_games_show_their_own_summary_metrics(tmp_path):
    """Generic: Avalon's summary columns are its own metrics (team precision, the Assassin's hit rate), named in
    report.md without the kit naming the game."""
    avalon = load_game("avalon")
    names = [m.name for m in summary_metrics(avalon.metrics)]
    assert "team_precision" in names and "assassin_hit_rate" in names
    report = run_benchmark(parse_population(["heuristic"]), [5], 6, tmp_path, plots=False, game="avalon")
    assert report["summary"]["metrics"] == names and report["summary"]["chance_metrics"] == ["assassin_hit_rate"]
    header = next(line for line in (tmp_path / "report.md").read_text().splitlines() if line.startswith("| agent | side |"))
    assert all(f"`{n}`" in header for n in names) and "plank" not in header


def test_a_game_without_metrics_gets_a_summary_of_win_rates(tmp_path):
    report = run_benchmark(parse_population(["random", "heuristic"]), [5], 4, tmp_path, plots=False,
                           game="the_traitors")
    summary = report["summary"]
    assert summary["metrics"] == [] and set(summary["agents"]) == {"random", "heuristic"}
    assert all(e["metrics"] == {} and "win_rate" in e["vs_nash"] for sides in summary["agents"].values()
               for e in sides.values())
    text = (tmp_path / "report.md").read_text()
    assert "## Summary" in text
    # every row of the summary table has as many cells as its header (a tester's find: an empty extra column)
    table = text.split("## Summary", 1)[1].split("\n\n| agent | side | vs Nash", 1)[1].split("\n\n", 1)[0]
    rows = ("| agent | side | vs Nash" + table).splitlines()
    assert len({row.count("|") for row in rows}) == 1, rows[:3]


# ------------------------------------------------------------------ the reliability diagram
def test_reliability_bins_on_a_hand_made_example(tmp_path):
    """Beliefs scored at a 5-player table (one Mutineer): each finite belief falls in bin floor(10 p) (1.0 in the
    last); per bin, the mean belief and the share of those seats that are the Mutineer."""
    game = load_game("traitors_aboard")
    state = GameState.from_position(5, [P, P, M, P, P], [LOOT] * 5, (PL,) * 10, current_player=0)
    scorer = Deduction(game)
    scorer.heuristic = None  # the agent's own beliefs only
    nan = float("nan")
    # Relative seats 1–4 of seat 0 are seats 1, 2 (the Mutineer), 3, 4; 5–7 are padding.
    for beliefs in ([nan, 0.05, 0.95, 0.15, 0.19, nan, nan, nan], [nan, 0.0, 1.0, 0.12, 0.95, nan, nan, nan]):
        scorer.observe("agent", state, 0, np.zeros(1), np.array(beliefs, dtype=np.float32))
    entry = summarize_deduction(scorer.tallies[("agent", "pirates")], [5])
    points = reliability_points(entry)
    got = {(round(b["low"], 1), b["count"], round(b["mean_belief"], 4), b["frequency"]) for b in points}
    assert got == {
        (0.0, 2, 0.025, 0.0),  # 0.05, 0.0: Pirates
        (0.1, 3, round((0.15 + 0.19 + 0.12) / 3, 4), 0.0),  # float32 beliefs, within rounding
        (0.9, 3, round((0.95 + 1.0 + 0.95) / 3, 4), round(2 / 3, 6)),  # the Mutineer twice, seat 4 once
    }
    assert sum(b["count"] for b in entry["reliability"]) == 8 and len(entry["reliability"]) == 10
    report = {"settings": {"game": "traitors_aboard"},
              "deduction": {"hidden_side": "mutineers", "agents": {"agent": {"pirates": entry}}}}
    plot_calibration(report, tmp_path / "calibration.png")
    assert (tmp_path / "calibration.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_calibration_png_is_written_for_agents_with_beliefs(small_report):
    report, out = small_report
    assert str(out / "calibration.png") in report["files"] and (out / "calibration.png").stat().st_size > 1000


# ------------------------------------------------------------------ the league's Nash weights
LEAGUE = {"sides": ["pirates", "mutineers"], "members": {}, "matrix": {}, "iterations": [
    {"iteration": 0, "nash": {"pirates": {"heuristic": 1.0}, "mutineers": {"heuristic": 0.7, "random": 0.3}}},
    {"iteration": 1, "nash": {"pirates": {"heuristic": 0.4, "league_1": 0.6},
                              "mutineers": {"heuristic": 0.5, "random": 0.0, "league_1": 0.5}}, "unused": {}},
    {"iteration": 2, "nash": {"pirates": {"heuristic": 0.0, "league_1": 0.25, "league_2": 0.75},
                              "mutineers": {"league_2": 1.0}}},
]}


def test_league_weights_are_read_per_side_and_iteration():
    league = league_weights(LEAGUE)
    assert league["sides"] == ["pirates", "mutineers"] and league["iterations"] == [0, 1, 2]
    # a member has weight 0 in the iterations before it joined
    assert league["weights"]["pirates"] == {"heuristic": [1.0, 0.4, 0.0], "league_1": [0.0, 0.6, 0.25],
                                            "league_2": [0.0, 0.0, 0.75]}
    assert league["weights"]["mutineers"] == {"heuristic": [0.7, 0.5, 0.0], "random": [0.3, 0.0, 0.0],
                                              "league_1": [0.0, 0.5, 0.0], "league_2": [0.0, 0.0, 1.0]}
    # anything but the league's own schema is refused, naming the entry
    with pytest.raises(ValueError, match=r"iterations\[0\] is .*loss"):
        league_weights({"sides": ["pirates", "mutineers"], "iterations": [{"iteration": 1, "loss": 0.2}]})
    with pytest.raises(ValueError, match=r"iterations\[0\].*expected \{'sides'"):
        league_weights({"sides": ["pirates", "mutineers"],
                        "iterations": [{"iteration": 1, "nash": {"pirates": [0.5, 0.5], "mutineers": {}}}]})
    with pytest.raises(ValueError, match="'sides' is None"):
        league_weights({"iterations": LEAGUE["iterations"]})
    with pytest.raises(ValueError, match="no 'iterations' list"):
        league_weights(LEAGUE["iterations"])


def test_league_plot_command_writes_the_png_beside_league_json(tmp_path, capsys):
    path = tmp_path / "league.json"
    path.write_text(json.dumps(LEAGUE))
    assert eval_main(["--league-plot", str(path)]) == 0
    assert (tmp_path / "league.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert plot_league(path, tmp_path / "other.png").is_file()
    (tmp_path / "bad.json").write_text("{not json")
    assert eval_main(["--league-plot", str(tmp_path / "bad.json")]) == 2
    assert "cannot read the league file" in capsys.readouterr().err
    # --out: a new nested file is made with its folders; a folder is refused, naming a file to give instead
    assert eval_main(["--league-plot", str(path), "--out", str(tmp_path / "new" / "deeper" / "x.png")]) == 0
    assert (tmp_path / "new" / "deeper" / "x.png").is_file()
    assert eval_main(["--league-plot", str(path), "--out", str(tmp_path / "new")]) == 2
    assert "is a folder; expected a file to write" in capsys.readouterr().err
    (tmp_path / "afile").write_text("x")
    assert eval_main(["--league-plot", str(path), "--out", str(tmp_path / "afile" / "x.png")]) == 2
    assert "cannot be made: " in capsys.readouterr().err
    assert not list((tmp_path / "new").glob("*.tmp.png"))


def test_league_weights_refuse_a_binary_file_and_non_finite_weights_naming_file_and_entry(tmp_path):
    binary = tmp_path / "league.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ValueError, match=rf"{binary}: cannot read the league file"):
        league_weights(binary)
    for bad in (float("nan"), float("inf"), -0.25):  # json.dumps writes NaN / Infinity, json.loads reads them back
        path = tmp_path / "bad.json"
        iterations = [LEAGUE["iterations"][0], {"iteration": 1, "nash": {"pirates": {"heuristic": bad},
                                                                          "mutineers": {"heuristic": 1.0}}}]
        path.write_text(json.dumps({"sides": LEAGUE["sides"], "iterations": iterations}))
        with pytest.raises(ValueError, match=rf"{path}: iterations\[1\] is"):
            league_weights(path)
    with pytest.raises(ValueError, match=r"iterations\[0\] is"):  # a bool is no iteration number
        league_weights({"sides": LEAGUE["sides"], "iterations": [{**LEAGUE["iterations"][0], "iteration": True}]})
