"""The benchmark kit on ``the_traitors_v0`` (issue 15): ``traitors-eval --game the_traitors``.

Every agent as the Traitor against every agent as the Faithful; results identical for any number of
workers; ratings and the meta-game order a dominated population; trained run folders as agents; bad
input named.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from traitors_env.agents.spec import AgentSpecError, agent_maker
from traitors_env.evaluation.cli import main as eval_main
from traitors_env.evaluation.cli import run_benchmark
from traitors_env.evaluation.crossplay import play_cells
from traitors_env.evaluation.metagame import solve_zero_sum
from traitors_env.evaluation.population import parse_population
from traitors_env.evaluation.ratings import rate_games

SELF = "test_the_traitors_kit"


def first_legal(seed=None):
    """A factory agent: always the first legal action (a weak, deterministic player)."""

    class First:
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[0])

    return First()


def illegal(seed=None):
    class Illegal:
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask == 0)[0])

    return Illegal()


def test_crossplay_is_identical_for_one_and_two_workers():
    cells = [(n, p, p, m, m) for n in (3, 5) for p in ("random", "heuristic") for m in ("random", "heuristic")]
    runs = [play_cells(cells, 30, seed=4, workers=w, game="the_traitors") for w in (1, 2)]
    for key, cell in runs[0].cells.items():
        other = runs[1].cells[key]
        assert cell.games == 30 and cell.outcomes == other.outcomes
        assert (cell.column_wins, cell.column_seats, cell.end_conditions) == (
            other.column_wins, other.column_seats, other.end_conditions)
        assert cell.column_seats == 30 * (key[0] - 1)  # every Faithful seat of every game (T02: one Traitor)


def test_report_every_agent_in_both_roles(tmp_path):
    population = parse_population(["random", "heuristic"])
    report = run_benchmark(population, [3, 4], 12, tmp_path, seed=1, plots=True, game="the_traitors")
    assert report["settings"]["game"] == "the_traitors"
    rows = [r for r in report["matrix"] if r["num_players"] != "all"]
    assert {(r["num_players"], r["traitor"], r["faithful"]) for r in rows} == {
        (n, t, f) for n in (3, 4) for t in ("random", "heuristic") for f in ("random", "heuristic")}
    for r in rows:
        assert r["games"] == 12 and 0 <= r["traitor_wins"] <= 12
        assert r["faithful_seats"] == 12 * (r["num_players"] - 1)
        assert r["interval"][0] <= r["win_rate"] <= r["interval"][1]
        assert r["faithful_interval"][0] <= r["faithful_win_rate"] <= r["faithful_interval"][1]
        assert sum(r["end_conditions"].values()) == 12  # the Final's outcomes (T15)
    assert set(report["ratings"]["heuristic"]) == {"traitor", "faithful"}
    assert set(report["nash"]["all"]) == {"value", "traitor", "faithful"}
    assert report["metrics"] == {"random": {}, "heuristic": {}}
    text = (tmp_path / "report.md").read_text()
    assert "| Traitor \\ Faithful |" in text and "mixed-motive" in text and "Not computed" in text
    assert (tmp_path / "crossplay.png").is_file() and (tmp_path / "ratings.png").is_file()
    assert not (tmp_path / "metrics.png").exists()


def test_dominated_population_is_ordered():
    """'strong' wins every game against 'weak' in both roles; self-play is even."""
    games = []
    for index in range(60):
        for n in (3, 5, 6):
            games += [(n, "strong", "weak", True), (n, "weak", "strong", False),
                      (n, "strong", "strong", index % 2 == 0), (n, "weak", "weak", index % 2 == 1)]
    ratings = rate_games(games, game="the_traitors")
    for role in ("traitor", "faithful"):
        assert ratings["strong"][role]["mu"] > ratings["weak"][role]["mu"] + 2 * ratings["strong"][role]["sigma"]
    nash = solve_zero_sum([[0.5, 1.0], [0.0, 0.5]], ["strong", "weak"], ["strong", "weak"], sides=("traitor", "faithful"))
    assert nash["traitor"]["mixture"] == {"strong": 1.0, "weak": 0.0}
    assert nash["faithful"]["unused"] == ["weak"]


def test_played_population_orders_heuristic_over_a_weak_bot(tmp_path):
    """In real games the heuristic Traitor wins more than an always-first-choice Traitor against the same Faithful."""
    population = parse_population(["heuristic", f"first={SELF}:first_legal"])
    report = run_benchmark(population, [4], 40, tmp_path, seed=0, plots=False, game="the_traitors")
    table = {(r["traitor"], r["faithful"]): r["win_rate"] for r in report["matrix"] if r["num_players"] == 4}
    assert table[("heuristic", "heuristic")] > table[("first", "heuristic")]
    assert report["ratings"]["heuristic"]["traitor"]["mu"] > report["ratings"]["first"]["traitor"]["mu"]
    assert report["nash"]["4"]["traitor"]["mixture"]["heuristic"] > 0.5


# ---------------------------------------------------------------- trained run folders
@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    """A run folder as traitors-train leaves one of this game (untrained policies, one completed generation)."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from training.team_env import TeamEnv
    from traitors_env.agents.run_folder import RunFolder

    root = tmp_path_factory.mktemp("tt_run") / "run"
    for role in ("faithful", "traitor"):
        env = TeamEnv(role, _heuristic_pool(), player_counts=(5,), game="the_traitors")
        model = MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [8]}, n_steps=32, batch_size=32, seed=0)
        path = RunFolder(root).checkpoint(0, role)
        path.parent.mkdir(parents=True, exist_ok=True)
        model.save(path)
    RunFolder(root).write_state({"completed_generations": 1, "history": [{"generation": 1}]})
    return root


def _heuristic_pool():
    from traitors_env.agents import make_agent

    class Pool:
        def draw(self, rng):
            return "heuristic", make_agent("heuristic", 0, game="the_traitors")

    return Pool()


def test_trained_run_folder_is_an_agent(run_folder, tmp_path):
    label, make = agent_maker(str(run_folder), game="the_traitors")
    assert label.endswith("gen_001")
    code = eval_main(["--game", "the_traitors", "--agents", "random", f"trained={run_folder}", "--players", "3", "5",
                      "--games", "3", "--out", str(tmp_path / "o"), "--no-plots", "--no-progress"])
    assert code == 0
    report = json.loads((tmp_path / "o" / "report.json").read_text())
    assert report["agents"]["trained"] == str(run_folder)
    assert all(r["games"] == (6 if r["num_players"] == "all" else 3) for r in report["matrix"]) and not report["failures"]
    # the same folder's single checkpoint plays too
    agent_maker(str(run_folder / "checkpoints" / "gen_001" / "traitor.zip"), game="the_traitors")[1](0)


def test_bad_input_is_named(run_folder, tmp_path, capsys):
    out = str(tmp_path / "o")
    assert eval_main(["--game", "the_traitors", "--agents", "random", "nobody", "--players", "3", "--games", "2",
                      "--out", out]) == 2
    assert "'nobody'" in capsys.readouterr().err
    # a Traitors Aboard run folder (pirates.zip) given to The Traitors, and the reverse
    other = tmp_path / "aboard" / "checkpoints" / "gen_001"
    other.mkdir(parents=True)
    for team in ("pirates", "mutineers"):
        (other / f"{team}.zip").write_bytes(b"")
    (tmp_path / "aboard" / "state.json").write_text(json.dumps({"completed_generations": 1}))
    with pytest.raises(AgentSpecError, match=r"aboard.*traitors_aboard_v0"):
        agent_maker(str(tmp_path / "aboard"), game="the_traitors")
    with pytest.raises(AgentSpecError, match="the_traitors_v0; use --game the_traitors"):
        agent_maker(str(run_folder), game="traitors_aboard")
    # a checkpoint trained on other spaces: named with what was expected
    pytest.importorskip("sb3_contrib")
    import gymnasium
    from sb3_contrib import MaskablePPO

    MaskablePPO("MlpPolicy", gymnasium.make("CartPole-v1"), n_steps=32, batch_size=32).save(tmp_path / "cartpole.zip")
    assert eval_main(["--game", "the_traitors", "--agents", "random", str(tmp_path / "cartpole.zip"), "--players", "3",
                      "--games", "2", "--out", out]) == 2
    err = capsys.readouterr().err
    assert "cartpole.zip" in err and "the_traitors_v0 has" in err
    # table sizes outside 3–6, an agent that breaks the rules mid-run
    assert eval_main(["--game", "the_traitors", "--agents", "random", "--players", "7", "--games", "2", "--out", out]) == 2
    assert "3–6" in capsys.readouterr().err
    code = eval_main(["--game", "the_traitors", "--agents", "random", f"bad={SELF}:illegal", "--players", "3",
                      "--games", "3", "--out", out, "--no-plots", "--no-progress"])
    assert code == 1
    report = json.loads((tmp_path / "o" / "report.json").read_text())
    assert {f["agent"] for f in report["failures"]} == {"bad"}
    assert {f["team"] for f in report["failures"]} <= {"traitor", "faithful"}
    with pytest.raises(ValueError, match="--records"):
        run_benchmark(parse_population(["random"]), [3], 2, tmp_path / "r", records=1, game="the_traitors")


def test_traitors_eval_run_on_a_the_traitors_run_names_the_game(tmp_path, capsys):
    """``traitors-eval --run`` evaluates a run of either game; a the_traitors_v0 run without a generation says so."""
    pytest.importorskip("sb3_contrib")
    from training.config import config_from_dict, dump_config
    from training.evaluate import main as run_eval_main

    run = tmp_path / "tt"
    run.mkdir()
    (run / "config.yaml").write_text(dump_config(config_from_dict({"name": "tt", "env": "the_traitors_v0"})))
    assert run_eval_main(["--run", str(run)]) == 2
    error = capsys.readouterr().err
    assert "has no completed generation" in error and "Traceback" not in error
