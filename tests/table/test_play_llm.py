"""``traitors-play`` with language models at the table (issue 29: a human beside LLMs and policies): ``--bot
SEAT=openai:MODEL`` with the ``--llm-*`` options, against the stand-in server of tests/llm_server.py."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

pytest.importorskip("openai")

from llm_server import ScriptedServer  # noqa: E402

from traitors_env.games.traitors_aboard.records import load_record  # noqa: E402
from traitors_env.table import play  # noqa: E402


def test_a_human_beside_two_language_models_and_a_bot(tmp_path, monkeypatch):
    monkeypatch.setenv("TRAITORS_TEST_KEY", "sk-play-secret-42")
    path = tmp_path / "game.json"
    out = io.StringIO()
    with ScriptedServer(seed=5) as server:
        status = play.main(
            ["--players", "4", "--seed", "3", "--bots", "openai:local-test", "--bot", "2=heuristic", "--record", str(path),
             "--llm-base-url", server.url, "--llm-api-key-env", "TRAITORS_TEST_KEY", "--llm-temperature", "0.5"],
            console=Console(file=out, width=120, force_terminal=False, color_system=None),
            stdin=io.StringIO("1\ny\n" * 400),
        )
        requests = server.requests
    assert status == 0 and requests >= 2
    record = load_record(path)
    assert record.finished and record.seats == ["human", "openai:local-test", "heuristic", "openai:local-test"]
    assert "sk-play-secret" not in out.getvalue() + path.read_text()


def test_bad_llm_options_are_refused_before_the_game(capsys):
    with pytest.raises(SystemExit) as exit_:
        play.main(["--players", "4", "--bots", "openai:local-test", "--llm-base-url", "http://127.0.0.1:9/v1",
                   "--llm-timeout", "0"], stdin=io.StringIO(""))
    assert exit_.value.code == 2 and "--llm-timeout" in capsys.readouterr().err
