"""A language model at the benchmark kit's table (issue 29, "Done when"): ``traitors-eval --agents heuristic
<trained policy> llm=openai:local-test --llm-base-url http://127.0.0.1:PORT/v1 --players 5 --games 20`` against the
scripted stand-in server (tests/llm_server.py), with and without injected faults; the report shows the model's
win rate, hidden-role metrics, invalid-reply rate and tokens; no game is lost; the key is in no file or log."""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest

pytest.importorskip("openai")

from llm_server import ScriptedServer  # noqa: E402

from traitors_env.evaluation.cli import main  # noqa: E402

SECRET = "sk-test-5f1e2d3c4b5a69788796a5b4c3d2e1f0"
FAULTS = {"malformed_json": 0.01, "bad_arguments": 0.01, "illegal": 0.02, "timeout": 0.002, "429": 0.01, "500": 0.01,
          "drop": 0.01}
#: The report's count (``text`` entry: ``api_errors`` kind, or ``invalid_replies``) of each injected fault kind.
COUNTED_AS = {"malformed_json": "bad_response", "bad_arguments": "invalid_replies", "illegal": "invalid_replies",
              "timeout": "timeout", "429": "rate_limited", "500": "server_error", "drop": "connection"}


@pytest.fixture(scope="module")
def policy_folder(tmp_path_factory):
    """A generation folder of the JAX backend (pirates.msgpack + mutineers.msgpack, small random networks): a
    trained-policy spec as runs/jax_quick's newest generation is, without the 15 minutes of training."""
    pytest.importorskip("flax")
    from traitors_env.agents.jax_checkpoint import save_checkpoint
    from traitors_env.core.registry import load_game

    kind = load_game("traitors_aboard").type
    (size,), actions = kind.observation_shape, kind.num_actions
    folder = tmp_path_factory.mktemp("jax_generation")
    for i, team in enumerate(kind.sides):
        rng = np.random.default_rng(i)
        params = {"params": {"actor": {
            "hidden_0": {"kernel": rng.normal(0, 0.05, size=(size, 8)).astype(np.float32), "bias": np.zeros(8, np.float32)},
            "out": {"kernel": rng.normal(0, 0.5, size=(8, actions)).astype(np.float32), "bias": np.zeros(actions, np.float32)},
        }}}
        save_checkpoint(folder / f"{team}.msgpack", params, {}, team=team, net_arch=[8], activation="tanh",
                        num_timesteps=0, game="traitors_aboard")
    return folder


def evaluate(server: ScriptedServer, out, agents: list[str], games: int, *extra: str) -> tuple[int, dict, str]:
    status = main(["--agents", *agents, "--llm-base-url", server.url, "--players", "5", "--games", str(games),
                   "--out", str(out), "--no-plots", "--no-progress", "--llm-timeout", "2.0", *extra])
    return status, json.loads((out / "report.json").read_text()), (out / "report.md").read_text()


def test_a_language_model_beside_a_bot_and_a_trained_policy(policy_folder, tmp_path, monkeypatch, capsys, caplog):
    """The issue's command: every cell played, the model's win rate per cell, its metrics and text counts in both
    files; the key (from --llm-api-key-env) reaches the server and nothing else."""
    monkeypatch.setenv("TRAITORS_TEST_KEY", SECRET)
    caplog.set_level(logging.DEBUG)
    with ScriptedServer(seed=0) as server:
        status, report, md = evaluate(server, tmp_path / "out", ["heuristic", str(policy_folder), "llm=openai:local-test"],
                                      20, "--llm-api-key-env", "TRAITORS_TEST_KEY", "--llm-concurrency", "4",
                                      "--records", "2")
        assert server.headers["authorization"] == f"Bearer {SECRET}"
    assert status == 0 and not report["failures"]
    rows = [r for r in report["matrix"] if r["num_players"] == 5]
    assert len(rows) == 9 and all(r["games"] == 20 for r in rows)
    llm_rows = [r for r in rows if "llm" in (r["pirates"], r["mutineers"])]
    assert len(llm_rows) == 5 and all(r["win_rate"] is not None for r in llm_rows)
    for team in ("pirates", "mutineers"):
        text = report["text"]["llm"][team]
        games = 20 * 3  # llm against each of the 3 agents (itself included) on either side
        assert text["games"] == games and text["decisions"] > games
        assert text["invalid_replies"] == text["fallbacks"] == 0 and text["invalid_reply_rate"] == 0.0
        assert text["prompt_tokens"] > 0 and text["completion_tokens"] >= text["decisions"]
        assert text["prompt_tokens_per_game"] == pytest.approx(text["prompt_tokens"] / games, abs=1e-3)
        assert 0 < text["seconds_per_decision"] < 5
        assert report["metrics"]["llm"][team]["win_rate"]["count"] == games
    assert set(report["text"]) == {"llm"}  # the bot and the policy are no text agents
    assert report["settings"]["llm"]["api_key_env"] == "TRAITORS_TEST_KEY"
    assert report["settings"]["llm"]["concurrency"] == 4
    assert "## Text agents" in md and "| llm | pirates | 60 |" in md and "| llm | mutineers | 60 |" in md
    records = list((tmp_path / "out" / "records").glob("*.json"))
    assert len(records) == 2 * 9 and any("llm" in r.name for r in records)
    captured = capsys.readouterr()
    everything = [captured.out, captured.err, caplog.text] + [p.read_text(errors="replace")
                                                              for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert not any(SECRET in text or SECRET[8:24] in text for text in everything)


def fault_run(tmp_path, games: int, concurrency: int, name: str) -> tuple[int, dict, ScriptedServer]:
    with ScriptedServer(seed=7, faults=FAULTS, timeout_sleep=3.0) as server:
        status, report, _ = evaluate(server, tmp_path / name, ["llm=openai:local-test", "heuristic"], games,
                                     "--anchor", "llm", "--llm-concurrency", str(concurrency),
                                     "--llm-retries", "3")
    return status, report, server


def check_faults_counted(report: dict, server: ScriptedServer, games: int) -> None:
    """No game lost, no failure, every injected fault counted in the report under its kind."""
    assert not report["failures"] and not report["interrupted"]
    assert sum(r["games"] for r in report["matrix"] if r["num_players"] == 5) == 3 * games
    sides = report["text"]["llm"].values()
    assert sum(t["games"] for t in sides) == 4 * games  # llm against llm: both sides of one game
    for kind in server.injected:
        key = COUNTED_AS[kind]
        counted = sum(t["invalid_replies"] if key == "invalid_replies" else t["api_errors"][key] for t in sides)
        expected = sum(server.injected[k] for k, v in COUNTED_AS.items() if v == key)
        assert counted == expected, (kind, counted, expected)
    assert sum(server.injected.values()) > 0 and sum(t["api_retries"] for t in sides) > 0


def test_faults_are_counted_and_no_game_is_lost_whatever_the_concurrency(tmp_path):
    """About 20 games (7 per cell, 3 cells) with every kind of fault injected: each fault in the report, every
    game finished; played one by one or 3 at a time, the same report (the seconds aside)."""
    games = 7
    serial_status, serial, serial_server = fault_run(tmp_path, games, 1, "serial")
    status, threaded, threaded_server = fault_run(tmp_path, games, 3, "threaded")
    assert serial_status == status == 0
    check_faults_counted(serial, serial_server, games)
    check_faults_counted(threaded, threaded_server, games)
    assert serial_server.injected == threaded_server.injected
    for key in ("matrix", "ratings", "metrics", "failures"):
        assert serial[key] == threaded[key], key
    for team, text in serial["text"]["llm"].items():
        other = dict(threaded["text"]["llm"][team])
        assert {**text, "seconds_per_decision": 0} == {**other, "seconds_per_decision": 0}


@pytest.mark.slow
def test_two_hundred_games_with_faults(tmp_path):
    """The issue's bar: with the fault-injecting server, 200 games finish (67 per cell, 3 cells: 201), every
    injected fault is counted and no game is lost or stalls."""
    games = 67
    status, report, server = fault_run(tmp_path, games, 4, "slow")
    assert status == 0
    check_faults_counted(report, server, games)
    assert all(server.injected[kind] > 0 for kind in FAULTS)
