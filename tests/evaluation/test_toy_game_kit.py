"""The benchmark kit plays a game defined only in ``tests/toy_game.py`` (issue 26): ``traitors-eval --game toy``.

Registered here and unregistered after; nothing outside ``tests/`` knows the toy game. It has no hidden-role
metrics and no records: the report and the command say so in words.
"""

from __future__ import annotations

import json

import pytest
from toy_game import GAME

from traitors_env.core.agent import RandomAgent
from traitors_env.core.registry import unregister_game
from traitors_env.evaluation import agent_seats, evaluate, play_game
from traitors_env.evaluation.cli import main as eval_main
from traitors_env.evaluation.compare import compare
from traitors_env.evaluation.crossplay import play_cells

pytestmark = pytest.mark.usefixtures("toy_registered")


def test_play_game_and_evaluate_a_game_the_package_does_not_know():
    out = play_game({"num_players": 4}, [RandomAgent(s) for s in range(4)], seed=3, game="toy")
    assert sorted(out["rewards"]) in ([-1.0, -1.0, -1.0, 1.0], [-1.0, 1.0, 1.0, 1.0])
    assert set(out["infos"]) == {f"player_{s}" for s in range(4)}
    runs = [evaluate(RandomAgent(1), RandomAgent(2), "spy", 4, 30, seed=5, game="toy") for _ in range(2)]
    assert runs[0] == runs[1] and runs[0].games == 30 and runs[0].side == "spy"
    assert sum(runs[0].end_conditions.values()) == 30
    assert all(key.endswith(("(Spy)", "(Others)")) for key in runs[0].end_conditions)  # the winning side, in words
    state = GAME.new_initial_state(5, 0)
    assert agent_seats("toy", state, 0, 0) == [state.spy]
    assert agent_seats("toy", state, "others", 0) == [s for s in range(5) if s != state.spy]  # a team game: every seat


def test_crossplay_of_objects_with_build():
    class Bot:
        def build(self, seed):
            return RandomAgent(seed)

    cells = [(n, "a", Bot(), "b", Bot()) for n in (3, 5)]
    result = play_cells(cells, 8, seed=2, game="toy")
    assert {key: cell.games for key, cell in result.cells.items()} == {(3, "a", "b"): 8, (5, "a", "b"): 8}
    assert result.tallies == {} and result.records == [] and not result.failures


def test_traitors_eval_game_toy(tmp_path, capsys):
    out = tmp_path / "bench"
    code = eval_main(["--game", "toy", "--agents", "random", "heuristic", "--players", "3", "5", "--games", "6",
                      "--out", str(out), "--no-progress"])
    assert code == 0, capsys.readouterr().err
    report = json.loads((out / "report.json").read_text())
    assert report["settings"]["game"] == "toy" and report["settings"]["players"] == [3, 5]
    rows = [r for r in report["matrix"] if r["num_players"] != "all"]
    assert {(r["num_players"], r["spy"], r["others"]) for r in rows} == {
        (n, a, b) for n in (3, 5) for a in ("random", "heuristic") for b in ("random", "heuristic")}
    assert all(r["games"] == 6 and 0 <= r["spy_wins"] <= 6 for r in rows)
    assert set(report["ratings"]["random"]) == {"spy", "others"}
    assert set(report["nash"]["all"]) == {"value", "spy", "others"}
    assert report["metrics"] == {"random": {}, "heuristic": {}} and not report["failures"]
    text = (out / "report.md").read_text()
    assert "Game: `toy_v0` (Odd One Out)" in text and "| Spy \\ Others |" in text
    assert "Not computed: `toy_v0` has no hidden-role metrics." in text
    assert (out / "crossplay.png").is_file() and (out / "ratings.png").is_file() and not (out / "metrics.png").exists()
    assert "no hidden-role metrics" in compare([report], ["random"], ["bench"])


def test_traitors_eval_game_toy_refuses_what_the_game_lacks(tmp_path, capsys):
    out = str(tmp_path / "o")
    assert eval_main(["--game", "toy", "--agents", "random", "--players", "3", "--games", "2", "--records", "1",
                      "--out", out, "--no-progress"]) == 2
    assert "toy_v0 has no game records" in capsys.readouterr().err
    assert eval_main(["--game", "toy", "--agents", "random", "--players", "6", "--games", "2", "--out", out]) == 2
    assert "3–5" in capsys.readouterr().err


def test_an_unregistered_game_is_not_offered(capsys):
    unregister_game("toy")
    with pytest.raises(SystemExit):
        eval_main(["--game", "toy", "--agents", "random"])
    assert "invalid choice: 'toy'" in capsys.readouterr().err


def test_worker_processes_that_do_not_know_a_game_registered_here_only_say_why(toy_registered):
    from traitors_env.core.registry import UnknownGameError
    from traitors_env.evaluation.crossplay import play_cells

    cells = [(4, "random", "random", "random", "random")]
    assert len(play_cells(cells, games=4, workers=1, game="toy").cells[(4, "random", "random")].outcomes) == 4
    # forkserver workers start from a fresh registry: the game is refused by name, with the way out
    with pytest.raises(UnknownGameError, match=r"worker process.*'toy'.*register_game.*workers=1"):
        play_cells(cells, games=60, workers=2, game="toy")
