"""The benchmark command (issue 4) in its quick mode: figures present and well formed, no timing asserts."""

import json

import pytest

from traitors_env import benchmark

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


def test_quick_json_has_every_figure(tmp_path, capsys):
    result = run_quick(tmp_path, "--players", "3", "5", "8")
    assert set(result) == {"meta", "traitors", "leduc_holdem_v4", "leduc_skipped", "ratios", "targets", "the_traitors_v0"}
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
    if result["leduc_skipped"] is None:  # rlcard installed (the extra "bench")
        assert set(result["leduc_holdem_v4"]) == {"env", "raw_env"}
        assert set(result["ratios"]["5"]) >= {"env_vs_leduc_env", "raw_env_vs_leduc_env", "engine_vs_leduc_env"}
        names = [target["name"] for target in result["targets"]]
        assert any(name.startswith("env() at 5 players") for name in names)
        assert any(name.startswith("raw_env() at 5 players") for name in names)
        in_leduc_units = next(t for t in result["targets"] if t["name"].startswith("engine at 5 players / leduc"))
        assert in_leduc_units["required"] == ">= 9.1"
        reference = result["leduc_holdem_v4"]["env"]["decisions_per_s"]
        engine = result["traitors"]["5"]["engine"]["decisions_per_s"]
        assert in_leduc_units["measured"] == pytest.approx(engine / reference)
    names = [target["name"] for target in result["targets"]]
    assert "engine decisions/s at 5 players" in names
    assert {"env slowdown from 3 to 8 players", "engine slowdown from 3 to 8 players"} <= set(names)
    table = capsys.readouterr().out
    assert table.count("| traitors_aboard_v0 |") == 9


def test_env_raw_env_and_engine_play_the_same_games(tmp_path):
    """Same seeds → the three loops play identical games, so their figures are comparable."""
    result = run_quick(tmp_path, "--players", "5", "--games", "4", "--no-leduc", "--memory-games", "0")
    apis = result["traitors"]["5"]
    for rep in range(2):
        decisions = {api: apis[api]["runs"][rep]["decisions"] for api in ("env", "raw_env", "engine")}
        assert len(set(decisions.values())) == 1, decisions
        assert all(apis[api]["runs"][rep]["episodes"] == 4 for api in apis)
    assert apis["env"]["peak_memory_kib"] is None  # memory pass skipped


def test_missing_leduc_is_reported_not_fatal(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(benchmark, "load_leduc", lambda: "rlcard is not installed")
    result = run_quick(tmp_path, "--players", "5")
    assert result["leduc_holdem_v4"] is None
    assert result["leduc_skipped"] == "rlcard is not installed"
    assert result["ratios"] == {}
    assert [target["name"] for target in result["targets"]] == ["engine decisions/s at 5 players"]
    assert "leduc_holdem_v4 skipped: rlcard is not installed" in capsys.readouterr().out


def test_bad_arguments_are_rejected():
    with pytest.raises(SystemExit):
        benchmark.main(["--players", "9"])
    with pytest.raises(SystemExit):
        benchmark.main(["--games", "0"])
    with pytest.raises(ValueError, match="players=2"):
        benchmark.run_benchmark(players=(2,))


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
