"""The benchmark command (issues 4, 26) in its quick mode: figures present and well formed for every registered
game, no timing asserts."""

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import toy_game

from traitors_env import benchmark
from traitors_env.core.registry import register_game, registered_games, unregister_game

#: traitors-bench measures every registered game, and the registry's games depend on the extras installed: CI runs
#: this module in both venvs (conftest.py).
pytestmark = pytest.mark.every_extra

FIGURE_KEYS = {
    "decisions_per_s",
    "decisions_per_s_min",
    "decisions_per_s_max",
    "mean_episode_length",
    "peak_memory_kib",
    "runs",
}


def run_quick(tmp_path, *extra):
    path = tmp_path / "bench.json"
    status = benchmark.main(["--quick", "--quiet", "--json", str(path), *extra])
    assert status == 0
    return json.loads(path.read_text(encoding="utf-8"))


def _graded(env_id: str) -> bool:
    """Whether ``traitors-bench`` grades the game against the package's speed targets (``extras["speed_targets"]``)."""
    return benchmark.load_game(env_id).extras.get("speed_targets", True)


def test_quick_json_has_every_figure(tmp_path, capsys):
    result = run_quick(tmp_path, "--players", "3", "5", "8")
    games = result["meta"]["games"]
    assert games == [benchmark.load_game(name).type.env_id for name in registered_games()]  # every game, in order
    assert set(result) == {"meta", "traitors", "leduc_holdem_v4", "leduc_skipped", "ratios", "targets", *games}
    assert result["traitors"] == result[games[0]]  # the key of the JSON before issue 26: the first game
    assert result["meta"]["players"]["the_traitors_v0"] == [3, 5]  # 8 is no table of The Traitors: left out
    assert result["meta"]["claims"] is True
    assert result["meta"]["observation_encoder"] in ("compiled", "pure Python")
    assert result["meta"]["memory_method"].startswith("tracemalloc")
    assert set(result["traitors"]) == {"3", "5", "8"}
    for apis in result["traitors"].values():
        assert set(apis) == {"env", "raw_env", "engine"}
        for figures in apis.values():
            assert set(figures) == FIGURE_KEYS
            assert len(figures["runs"]) == 2  # --quick: 2 repetitions
            assert figures["decisions_per_s"] > 0
            assert figures["mean_episode_length"] >= 1
            assert figures["peak_memory_kib"] > 0
    for game in games:
        for n, apis in result[game].items():
            assert set(apis) == {"env", "raw_env", "engine"} and all(set(f) == FIGURE_KEYS for f in apis.values())
            ratio = result["ratios"][game][n]["env_vs_raw_env"]
            assert ratio == pytest.approx(apis["env"]["decisions_per_s"] / apis["raw_env"]["decisions_per_s"])
    if result["leduc_skipped"] is None:  # rlcard installed (the extra "bench")
        assert set(result["leduc_holdem_v4"]) == {"env", "raw_env"}
        assert set(result["ratios"]["5"]) >= {"env_vs_leduc_env", "raw_env_vs_leduc_env", "engine_vs_leduc_env"}
        assert result["ratios"]["5"] == result["ratios"][games[0]]["5"]
        for game in games:
            names = [target["name"] for target in result["targets"] if target["game"] == game]
            if not _graded(game):  # a game on another library's engine: measured, not graded
                assert names == []
                continue
            assert "env() at 5 players / leduc_holdem_v4 env()" in names and "env() at 5 players / raw_env()" in names
        names = [target["name"] for target in result["targets"]]
        assert any(name.startswith("env() at 5 players") for name in names)
        assert any(name.startswith("raw_env() at 5 players") for name in names)
        in_leduc_units = next(t for t in result["targets"] if t["name"].startswith("engine at 5 players / leduc"))
        assert in_leduc_units["required"] == ">= 9.1"
        reference = result["leduc_holdem_v4"]["env"]["decisions_per_s"]
        engine = result["traitors"]["5"]["engine"]["decisions_per_s"]
        assert in_leduc_units["measured"] == pytest.approx(engine / reference)
    names = [target["name"] for target in result["targets"] if target["game"] == "traitors_aboard_v0"]
    assert "engine decisions/s at 5 players" in names
    assert {"env slowdown from 3 to 8 players", "engine slowdown from 3 to 8 players"} <= set(names)
    table = capsys.readouterr().out
    assert table.count("| traitors_aboard_v0 |") == 9 + len(names)  # 9 rows of figures, one row per target
    assert table.count("| the_traitors_v0 | 5 |") == 3


def test_env_raw_env_and_engine_play_the_same_games(tmp_path):
    """Same seeds → the three loops of a game play identical games, so their figures are comparable."""
    result = run_quick(tmp_path, "--players", "5", "--games", "4", "--no-leduc", "--memory-games", "0")
    for game in result["meta"]["games"]:
        apis = result[game]["5"]
        for rep in range(2):
            decisions = {api: apis[api]["runs"][rep]["decisions"] for api in ("env", "raw_env", "engine")}
            assert len(set(decisions.values())) == 1, (game, decisions)
            assert all(apis[api]["runs"][rep]["episodes"] == 4 for api in apis)
        assert apis["env"]["peak_memory_kib"] is None  # memory pass skipped


def test_missing_leduc_is_reported_not_fatal(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(benchmark, "load_leduc", lambda: "rlcard is not installed")
    result = run_quick(tmp_path, "--players", "5")
    assert result["leduc_holdem_v4"] is None
    assert result["leduc_skipped"] == "rlcard is not installed"
    for game in result["meta"]["games"]:
        assert result["ratios"][game] == {"5": {"env_vs_raw_env": pytest.approx(
            result[game]["5"]["env"]["decisions_per_s"] / result[game]["5"]["raw_env"]["decisions_per_s"])}}
        names = [target["name"] for target in result["targets"] if target["game"] == game]
        assert names == (["engine decisions/s at 5 players", "env() at 5 players / raw_env()"] if _graded(game) else [])
    assert "leduc_holdem_v4 skipped: rlcard is not installed" in capsys.readouterr().out


def test_bad_arguments_are_rejected():
    no_table = 1 + max(benchmark.load_game(name).type.max_players for name in registered_games())
    with pytest.raises(SystemExit):
        benchmark.main(["--players", str(no_table)])  # a size no game has
    with pytest.raises(SystemExit):
        benchmark.main(["--games", "0"])
    with pytest.raises(ValueError, match="players=2"):
        benchmark.run_benchmark(players=(2,))
    with pytest.raises(SystemExit):
        benchmark.main(["--game", "no_such_game"])
    with pytest.raises(SystemExit):
        benchmark.main(["--game", "the_traitors", "--players", "8"])  # no table of The Traitors
    with pytest.raises(SystemExit):
        benchmark.main(["--game", "the_traitors", "--no-the-traitors"])  # nothing left


def test_a_repetition_is_split_into_interleaved_parts():
    result = benchmark.run_benchmark(
        players=(5,), budget=benchmark.Budget(seconds=0.06), repeats=2, slices=3, memory_games=0, leduc=False
    )
    assert result["meta"]["slices"] == 3
    for figures in result["traitors"]["5"].values():
        assert len(figures["runs"]) == 2  # one total per repetition, over its 3 parts
        for run in figures["runs"]:
            assert run["seconds"] >= 0.06 and run["episodes"] >= 3  # every part ends a game at least
    target = result["targets"][0]
    assert len(target["per_repetition"]) == 2 and target["required"] == ">= 100000"
    with pytest.raises(ValueError, match="slices=0"):
        benchmark.run_benchmark(players=(3,), slices=0)


def test_game_limits_the_run_and_each_game_keeps_its_own_options(tmp_path, capsys):
    """``--game`` limits the games; ``--<game>-players`` and ``--no-<game>`` exist for every registered game
    (``--the-traitors-players``, ``--no-the-traitors`` as before issue 26)."""
    result = run_quick(tmp_path, "--game", "the_traitors_v0", "--the-traitors-players", "4", "--no-leduc",
                       "--memory-games", "0")
    assert result["meta"]["games"] == ["the_traitors_v0"] and set(result["the_traitors_v0"]) == {"4"}
    assert result["traitors"] == result["the_traitors_v0"] and "traitors_aboard_v0" not in result
    assert "| traitors_aboard_v0 |" not in capsys.readouterr().out
    result = run_quick(tmp_path, "--no-the-traitors", "--traitors-aboard-players", "3", "--no-leduc",
                       "--memory-games", "0")
    assert "the_traitors_v0" not in result and set(result["traitors_aboard_v0"]) == {"3"}


def test_a_game_registered_in_tests_is_measured(tmp_path, capsys):
    """The toy game (tests/toy_game.py): registered, it gets its rows, its options and its ratios; it has no JAX
    twin, so ``--jax`` says so instead of measuring it."""
    register_game("toy", toy_game.GAME)
    try:
        result = run_quick(tmp_path, "--game", "toy", "--toy-players", "3", "4", "--no-leduc", "--memory-games", "0")
        assert result["meta"]["games"] == ["toy_v0"] and set(result["toy_v0"]) == {"3", "4"}
        assert result["meta"]["observation_encoders"] == {"toy_v0": "not declared"}
        assert set(result["ratios"]["toy_v0"]["4"]) == {"env_vs_raw_env"}
        assert "| toy_v0 | 4 | env |" in capsys.readouterr().out
        result = run_quick(tmp_path, "--game", "toy", "--players", "5", "--no-leduc", "--memory-games", "0")
        assert set(result["toy_v0"]) == {"5"}
        assert [t["name"] for t in result["targets"]] == ["engine decisions/s at 5 players",
                                                          "env() at 5 players / raw_env()"]
        assert benchmark.default_players(toy_game.GAME) == (3, 5)
        status = benchmark.main(["--quick", "--quiet", "--game", "toy", "--no-leduc", "--memory-games", "0", "--jax"])
        assert status == 0 and "no game measured has a JAX twin" in capsys.readouterr().out
    finally:
        unregister_game("toy")


def test_every_game_has_a_row_per_table_and_loop():
    """(Was the second game's own benchmark; now one run over every game.)"""
    result = benchmark.run_benchmark(players=(3, 6), budget=benchmark.Budget(games=1), repeats=1, memory_games=0,
                                     warmup_games=1, leduc=False, games=["the_traitors"])
    assert set(result["the_traitors_v0"]) == {"3", "6"}
    for apis in result["the_traitors_v0"].values():
        assert set(apis) == {"env", "raw_env", "engine"}
        assert all(f["decisions_per_s"] > 0 and f["mean_episode_length"] > 40 for f in apis.values())
    assert "| the_traitors_v0 | 6 | engine |" in benchmark.format_report(result)
    assert result["meta"]["skipped_games"] == {}
    partial = benchmark.run_benchmark(players=(8,), budget=benchmark.Budget(games=1), repeats=1, memory_games=0,
                                      warmup_games=1, leduc=False)
    assert "the_traitors_v0" in partial["meta"]["skipped_games"] and "8" in partial["traitors_aboard_v0"]


# ------------------------------------------------------------------ scripts/gpu_check.sh (issue 27)
GPU_CHECK = Path(__file__).resolve().parents[1] / "scripts" / "gpu_check.sh"


def _gpu_check_commands(tmp_path, *flags) -> dict[str, tuple[int, list[str]]]:
    """Run the script with --dry-run (nothing heavy runs): step name → (time limit, argv after the interpreter)."""
    env = {**os.environ, "PYTHON": sys.executable}
    done = subprocess.run(["bash", str(GPU_CHECK), "--dry-run", *flags, str(tmp_path)], capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    steps = {}
    for line in (tmp_path / "commands.txt").read_text(encoding="utf-8").splitlines():
        name, limit, command = line.split("|", 2)
        argv = shlex.split(command)
        assert argv[0] == sys.executable
        steps[name] = (int(limit), argv[1:])
    return steps


def test_gpu_check_script_is_valid_bash_and_bounded(tmp_path):
    subprocess.run(["bash", "-n", str(GPU_CHECK)], check=True, timeout=60)
    steps = _gpu_check_commands(tmp_path)
    assert list(steps) == ["devices", "bench_jax", "bench_training", "train"]
    # ≤ 8 minutes in all: every step's limit plus its 10 s kill grace.
    assert sum(limit + 10 for limit, _ in steps.values()) <= 480
    argv = steps["bench_jax"][1]
    batches = argv[argv.index("--jax-batches") + 1 : argv.index("--json")]
    assert max(map(int, batches)) == 65536 and "--jax" in argv  # the JAX twin at batches up to 65,536
    for name in ("bench_jax", "bench_training"):  # the figures land in the one folder given
        argv = steps[name][1]
        assert argv[argv.index("--json") + 1] == str(tmp_path.resolve() / f"{name}.json")
    help_ = subprocess.run(["bash", str(GPU_CHECK), "--help"], capture_output=True, text=True, timeout=60)
    assert help_.returncode == 0 and "--dry-run" in help_.stdout
    bad = subprocess.run(["bash", str(GPU_CHECK), "--bogus"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "unknown option --bogus" in bad.stderr


@pytest.mark.parametrize("flags", [(), ("--small",)])
def test_gpu_check_commands_parse(tmp_path, flags, capsys):
    """Every command the script runs is accepted by its program's own parser (its --help, appended last, ends it
    after the other arguments parsed), and the training config it writes is valid: nothing heavy runs."""
    from training.bench import cli as bench_cli
    from training.config import load_config
    from training.train import main as train_main

    steps = _gpu_check_commands(tmp_path, *flags)
    for name, run in (("bench_jax", bench_cli), ("bench_training", bench_cli), ("train", train_main)):
        argv = steps[name][1]
        assert argv[:1] == ["-m"]
        with pytest.raises(SystemExit) as exit_:
            run([*argv[2:], "--help"])
        assert exit_.value.code == 0, name
    config = load_config(str(tmp_path / "gpu_check_train.yaml"))
    assert config.backend == "jax" and config.training.generations == 2
    assert config.output_dir == str(tmp_path.resolve() / "train")
    assert (config.training.n_envs, config.training.steps_per_team) == ((256, 8192) if flags else (4096, 262144))
    capsys.readouterr()


def test_a_game_with_another_librarys_engine_is_measured_but_not_graded(toy_registered):
    """A game that declares ``extras["speed_targets"] = False`` (the OpenSpiel adapter's games: their engine is
    OpenSpiel's) gets no target rows; the package's own games keep theirs (an attack found OpenSpiel's social
    deduction marked NO against Traitors Aboard's engine target)."""
    import dataclasses

    from traitors_env.benchmark_report import targets_of

    figures = {"decisions_per_s": 1000.0, "runs": [{"decisions_per_s": 1000.0}]}
    table = {str(n): {api: figures for api in ("env", "raw_env", "engine")} for n in (3, 5, 8, 10)}
    leduc = {"env": figures, "raw_env": figures}
    assert targets_of(toy_registered, table, leduc)  # graded by default
    quiet = dataclasses.replace(toy_registered, extras={**toy_registered.extras, "speed_targets": False})
    assert targets_of(quiet, table, leduc) == []
