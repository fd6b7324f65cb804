"""The terminal game plays a game defined only in ``tests/toy_game.py`` (issue 26): ``traitors-play --game toy``.

The toy game declares no terminal view and no records: it is played through the table's generic view (its
rules summary on ``?``, the seat's observation summary, the legal actions in the game's words), and
``--record`` and ``traitors-replay`` say in words that it has no records.
"""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from traitors_env.core.agent import RandomAgent
from traitors_env.table.play import GameAbandoned, PlaySession
from traitors_env.table.play import main as play_main
from traitors_env.table.replay import main as replay_main

pytestmark = pytest.mark.usefixtures("toy_registered")


def console() -> Console:
    return Console(file=io.StringIO(), width=120, color_system=None, highlight=False)



def scripted(answers):
    answers = iter(answers)
    prompts = []

    def read_line(prompt):
        prompts.append(prompt)
        return next(answers, "1")

    return read_line, prompts


def test_a_session_through_the_generic_view():
    read_line, prompts = scripted(["x", "?", "2"])
    session = PlaySession(4, 1, [RandomAgent(0), None, RandomAgent(2), RandomAgent(3)], 7, console(), read_line,
                          game="toy")
    assert session.run() is None and session.record is None  # no records: nothing to save
    out = session.console.file.getvalue()
    assert out.splitlines()[0].strip("─ ") == "Odd One Out · 4 players"
    assert "You play player_1. Enter ? at any prompt for the rules." in out
    assert "You are player_1. Your observation:" in out and "role: " in out
    assert "  1. pass" in out and "  2. accuse the player 1 seat(s) to the left" in out
    assert "'x' is not one of the choices: enter a number from 1 to 4" in out
    assert "A toy hidden-role game defined only here" in out  # the rules summary, on ?
    assert "You (player_1): accuse the player 1 seat(s) to the left" in out  # the human's own decision in full
    assert "player_2 made a decision" in out  # another's, without what the game does not declare public
    assert "game over" in out and "Seed 7." in out and ("You win!" in out or "You do not win this time." in out)
    assert len(prompts) == 3 + 1  # two rounds: a bad answer, the rules and a choice, then one choice
    with pytest.raises(GameAbandoned):
        PlaySession(4, 0, [None, *map(RandomAgent, (1, 2, 3))], 7, console(), lambda prompt: "q", game="toy").run()


def test_traitors_play_game_toy():
    def run(answers):
        c = console()
        status = play_main(["--game", "toy", "--players", "3", "--seat", "2", "--seed", "4", "--bots", "random"],
                           console=c, stdin=io.StringIO(answers))
        return status, c.file.getvalue()

    status, out = run("9\n2\n1\n")
    assert status == 0 and "Odd One Out · 3 players" in out and "Seed 4." in out
    assert run("9\n2\n1\n") == (status, out)  # a seed and the answers replay the game
    status, out = run("q\n")
    assert status == 1 and "Game abandoned (quit at the prompt)" in out and "--seed 4" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["--players", "6"], "--players 6: expected 3–5"),
    (["--record", "game.json"], "--record game.json: toy_v0 has no game records"),
    (["--bot", "0=random"], "seat 0 is yours"),
])
def test_bad_command_lines_for_the_toy_game(argv, message, capsys):
    with pytest.raises(SystemExit):
        play_main(["--game", "toy", *argv], console=console(), stdin=io.StringIO(""))
    assert message in capsys.readouterr().err


def test_replay_of_a_game_without_records_is_refused_in_words(tmp_path):
    c = console()
    assert replay_main([str(tmp_path / "game.json"), "--game", "toy"], console=c) == 2
    assert "toy_v0 has no game records" in c.file.getvalue()
