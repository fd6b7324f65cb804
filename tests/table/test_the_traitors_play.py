"""The terminal game (``traitors-play --game the_traitors``) (issue 15, item 5; its benchmark rows: tests/test_benchmark.py)."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from traitors_env.table.play import main as play_main


def run(argv, answers: str):
    out = io.StringIO()
    console = Console(file=out, width=120, highlight=False)
    status = play_main(["--game", "the_traitors", *argv], console=console, stdin=io.StringIO(answers))
    return status, out.getvalue()


@pytest.mark.parametrize("players", [3, 6])
def test_a_human_plays_a_whole_game(players):
    status, text = run(["--players", str(players), "--seat", "1", "--seed", "4"], "1\n" * 300)
    assert status == 0
    assert "game over" in text and "You are player_1" in text and "Seed 4." in text
    assert "Your choice (1–" in text


def test_the_same_seed_and_answers_replay_the_same_game():
    assert run(["--seed", "8", "--bots", "random"], "2\n" * 300) == run(
        ["--seed", "8", "--bots", "random"], "2\n" * 300
    )


def test_quit_and_bad_answers():
    status, text = run(["--seed", "1"], "x\n9\nq\n")
    assert status == 1 and "is not one of the choices: enter a number" in text
    assert run(["--seed", "1"], "")[0] == 1  # input ended
    assert "Game abandoned (quit at the prompt)" in text and "--seed 1" in text  # how to deal it again


def test_question_mark_shows_the_rules_then_asks_again():
    status, text = run(["--seed", "1"], "?\nq\n")
    assert status == 1
    assert "THE RULES IN SHORT" in text and "T09" in text and "One secret Traitor" in text
    assert text.count("Your choice (1–") == 2  # asked again after the rules, nothing played for the human


@pytest.mark.parametrize(
    "argv,match",
    [
        (["--players", "7"], "3–6"),
        (["--seat", "5"], "seat"),
        (["--bots", "clever"], "clever"),
        (["--bot", "0=random"], "not another seat"),
        (["--seed", "-1"], "seed"),
    ],
)
def test_bad_arguments(argv, match, capsys):
    with pytest.raises(SystemExit) as exit_:
        run(argv, "")
    assert exit_.value.code == 2 and match in capsys.readouterr().err


def test_show_beliefs_in_the_traitors():
    """--show-beliefs is generic: The Traitors' heuristic shows P(Traitor) per other seat from the human's observation."""
    out = io.StringIO()
    status = play_main(["--game", "the_traitors", "--players", "4", "--seed", "1", "--show-beliefs"],
                       console=Console(file=out, width=140, color_system=None), stdin=io.StringIO("1\n" * 400))
    assert status == 0 and "P(Traitor) per seat" in out.getvalue()
