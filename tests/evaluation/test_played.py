"""``traitors-eval --played`` (issue 53): win rates per player and side from saved records, people beside bots.

The records here are played by bots with seats labelled as ``traitors-play`` labels people's (``human``,
``human:NAME``); the browser tests (tests/table/test_web_play.py) feed the report records that scripted people played
through the page.
"""

from __future__ import annotations

import json

import pytest

from traitors_env.agents import make_agent
from traitors_env.core.registry import load_game
from traitors_env.core.stats import wilson_interval
from traitors_env.evaluation.cli import main
from traitors_env.evaluation.played import ALL_HUMANS, PlayedError, played_markdown, played_report

ABOARD = load_game("traitors_aboard")
AVALON = load_game("avalon")


def save_game(game, folder, seed: int, labels: list[str], finish: bool = True):
    """A game of heuristic bots from ``seed``, saved with ``labels``; returns its final state."""
    env = game.raw_env(num_players=len(labels))
    env.reset(seed=seed)
    bots = [make_agent("heuristic", seed=seed + s, game=game) for s in range(len(labels))]
    for number, agent in enumerate(env.agent_iter()):
        if not finish and number == 10:
            break
        observation, _, termination, truncation, _ = env.last()
        seat = int(agent.removeprefix("player_"))
        env.step(None if termination or truncation
                 else bots[seat].act(observation["observation"], observation["action_mask"]))
    record = game.records.record_game(env.game, env.episode_seed, seats=labels)
    folder.mkdir(parents=True, exist_ok=True)
    record.save(folder / f"game-{seed}.json")
    return env.game


def test_win_rates_per_player_and_side_count_one_player_per_game(tmp_path):
    labels = ["human:ada", "heuristic", "human", "heuristic", "heuristic"]
    expected: dict[str, list[list[int]]] = {}
    for seed in range(12):
        state = save_game(ABOARD, tmp_path, seed, labels)
        seen = set()
        for seat, label in enumerate(labels):
            side, won = ABOARD.side_of_seat(state, seat), ABOARD.seat_won(state, seat)
            for key in (label, ALL_HUMANS) if label.startswith("human") else (label,):
                if (key, side) not in seen:  # a label's seats of one side share the game's result: once
                    seen.add((key, side))
                    counts = expected.setdefault(key, [[0, 0], [0, 0]])
                    counts[side][0] += 1
                    counts[side][1] += won
    save_game(ABOARD, tmp_path, 99, labels, finish=False)  # abandoned: counted, left out of the rates
    report = played_report([tmp_path])
    assert report["records"] == 13 and report["counted"] == 12 and report["skipped"] == {"unfinished": 1}
    rows = {row["player"]: row for row in report["rows"]}
    assert set(rows) == set(expected) and [r["player"] for r in report["rows"]][:1] == [ALL_HUMANS]
    for label, counts in expected.items():
        for side in (0, 1):
            games, wins = counts[side]
            cell = rows[label]["sides"][side]
            assert (cell["games"], cell["wins"]) == (games, wins)
            if games:
                assert cell["interval"] == [round(x, 4) for x in wilson_interval(wins, games)]
    assert rows["human:ada"]["human"] and rows[ALL_HUMANS]["human"] and not rows["heuristic"]["human"]
    # The heuristic holds 3 seats in every game but is one player per side per game.
    assert rows["heuristic"]["all"]["games"] <= 2 * 12
    text = played_markdown(report)
    assert "| player | as Pirates | as Mutineers | overall |" in text and "1 unfinished" in text


def test_avalon_records_and_the_command(tmp_path, capsys):
    for seed in range(3):
        save_game(AVALON, tmp_path / "records", seed, ["human:bo"] + ["heuristic"] * 4)
    assert main(["--played", str(tmp_path / "records"), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "| human:bo |" in out and f"| player | as {AVALON.type.side_labels[0]} |" in out
    report = json.loads((tmp_path / "out" / "played.json").read_text())
    assert report["game"] == "avalon" and report["rows"][0]["player"] == "human:bo"
    assert report["rows"][0]["all"]["games"] == 3
    assert (tmp_path / "out" / "played.md").read_text().startswith("# Played games: avalon")


def test_bad_input_is_refused_naming_it(tmp_path, capsys):
    save_game(ABOARD, tmp_path / "mixed", 1, ["human"] + ["heuristic"] * 4)
    save_game(AVALON, tmp_path / "mixed", 2, ["human"] + ["heuristic"] * 4)
    with pytest.raises(PlayedError, match="game-2.json"):
        played_report([tmp_path / "mixed"])
    with pytest.raises(PlayedError, match="does not exist"):
        played_report([tmp_path / "nowhere"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(PlayedError, match="no game record"):
        played_report([tmp_path / "empty"])
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "a.json").write_text("{not json")
    with pytest.raises(PlayedError, match="a.json"):
        played_report([broken])
    # A record whose decisions were tampered with does not replay: refused, naming it.
    save_game(ABOARD, tmp_path / "tampered", 3, ["human"] + ["heuristic"] * 4)
    path = next((tmp_path / "tampered").iterdir())
    data = json.loads(path.read_text())
    data["decisions"][3]["action"] = (data["decisions"][3]["action"] + 1) % 50
    path.write_text(json.dumps(data))
    with pytest.raises(PlayedError, match=path.name):
        played_report([path])
    assert main(["--played", str(tmp_path / "nowhere")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["--played", str(tmp_path / "mixed"), "--agents", "random"]) == 2
    assert "without --agents" in capsys.readouterr().err


def test_a_label_with_a_bar_keeps_the_table_whole(tmp_path):
    save_game(ABOARD, tmp_path, 4, ["human:a|b"] + ["heuristic"] * 4)
    text = played_markdown(played_report([tmp_path]))
    row = next(line for line in text.splitlines() if line.startswith("| human:a"))
    assert row.startswith("| human:a\\|b |") and row.count(" | ") == 3


def test_a_record_reached_twice_counts_once_and_odd_labels_stay_plain_text(tmp_path):
    folder = tmp_path / "records"
    save_game(ABOARD, folder, 5, ["human:<img src=x onerror=alert(1)>", "human (all)", "human:", "[x](javascript:1)",
                                  "human:ada"])
    (folder / "again.json").symlink_to(folder / "game-5.json")
    report = played_report([folder, folder / ".." / "records" / "game-5.json"])
    assert report["records"] == 1 and report["counted"] == 1
    rows = {(row["player"], row["pooled"]): row for row in report["rows"]}
    # A seat labelled like the pooled row stays its own row (a bot's), apart from the people's pool.
    assert not rows[("human (all)", False)]["human"] and rows[("human (all)", True)]["human"]
    assert not rows[("human:", False)]["human"], "a blank name is no person"
    pooled = rows[("human (all)", True)]
    people = [row for (name, is_pooled), row in rows.items() if row["human"] and not is_pooled]
    assert len(people) == 2 and pooled["all"]["games"] <= 2
    text = played_markdown(report)
    assert "<img" not in text and "](" not in text and "&lt;img" in text
    assert "| *human (all)* |" in text and "| human \\(all\\) |" in text


def test_an_output_file_name_taken_by_a_folder_is_refused_before_writing(tmp_path, capsys):
    save_game(ABOARD, tmp_path / "records", 6, ["human"] + ["heuristic"] * 4)
    (tmp_path / "out" / "played.md").mkdir(parents=True)
    assert main(["--played", str(tmp_path / "records"), "--out", str(tmp_path / "out")]) == 2
    assert "played.md" in capsys.readouterr().err and not (tmp_path / "out" / "played.json").exists()
