"""Avalon's game records (``GAME.records``, A18): a record replays to the same game bit for bit at every table size
and role set; a record that does not fit the engine is refused with the step that fails and why; ``traitors-replay``
and the kit's ``--records`` read them."""

from __future__ import annotations

import json

import numpy as np
import pytest
from avalon_helpers import DEAL5, new, round_

from traitors_env.core.registry import load_game
from traitors_env.games.avalon.engine import GameState
from traitors_env.games.avalon.records import (
    FORMAT,
    VERSION,
    RecordError,
    load_record,
    record_game,
    replay,
    replay_steps,
)
from traitors_env.games.avalon.roles import ROLE_NAMES
from traitors_env.table import replay as replay_cli

GAME = load_game("avalon")
FLAGS = {5: {}, 6: {"claims": True}, 7: {"percival": True, "morgana": True, "claims": True},
         8: {"percival": True, "morgana": True, "mordred": True}, 9: {"merlin": False, "claims": True},
         10: {"percival": True, "morgana": True, "mordred": True, "oberon": True, "claims": True}}


def played(n: int, seed: int, **flags):
    """A random game of ``n`` seats from ``seed`` (the env's deal), and its env."""
    env = GAME.raw_env(num_players=n, **{**FLAGS[n], **flags})
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        env.step(None if termination or truncation else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return env


def record_dict(n: int = 5, seed: int = 3) -> dict:
    env = played(n, seed)
    return json.loads(record_game(env.game, env.episode_seed, seats=["bot"] * n).to_json())


def refusal(data: dict) -> str:
    with pytest.raises(RecordError) as error:
        replay(load_record(data))
    return str(error.value)


@pytest.mark.parametrize("n", range(5, 11))
def test_a_record_round_trips_through_json_and_replays_bit_for_bit(n, tmp_path):
    """A18: the seed and the actions are the game; every step's fingerprint (hidden state and generator included)
    and the result are the same after a JSON round trip, for each table size and role set."""
    for seed in (n, 100 + n):
        env = played(n, seed)
        state = env.game
        record = record_game(state, env.episode_seed, seats=[f"bot{i}" for i in range(n)])
        assert record.format == FORMAT and record.version == VERSION and record.finished
        assert [(int(d.agent.removeprefix("player_")), d.action) for d in record.decisions] == state.history
        loaded = load_record(record.save(tmp_path / f"game{seed}.json"))
        assert loaded == record
        assert sum(1 for _ in replay_steps(loaded)) == len(state.history) + 1
        final = replay(loaded)
        assert final.fingerprint() == state.fingerprint() and final.result() == state.result()
        assert loaded.result == json.loads(json.dumps(state.result()))


def test_every_step_is_checked_against_the_game():
    """Each decision's check is the fingerprint after it: the replay's states are the game's, step by step."""
    env = played(7, 11)
    record = record_game(env.game, env.episode_seed)
    game = GameState.new(env.game.config, seed=env.episode_seed)
    steps = replay_steps(record)
    assert next(steps)[1].fingerprint() == game.fingerprint() == record.start
    for (decision, state), (_, action) in zip(steps, env.game.history, strict=True):
        game.apply_action(action)
        assert decision.check == game.fingerprint() == state.fingerprint()


def test_an_unfinished_game_records_and_replays():
    env = GAME.raw_env(num_players=6)
    env.reset(seed=4)
    for _ in range(9):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    record = record_game(env.game, env.episode_seed)
    assert not record.finished and len(record.decisions) == 9
    assert replay(load_record(record.to_json())).fingerprint() == env.game.fingerprint()


def test_the_meaning_is_in_words():
    record = record_dict()
    assert record["decisions"][0]["meaning"].startswith("pick ")
    assert record["options"] == {"claims": False, "merlin": True, "percival": False, "morgana": False,
                                 "mordred": False, "oberon": False, "first_leader": None}


def test_another_legal_action_is_caught_at_its_step():
    """A vote flipped (still legal) changes the game: the replay stops at that step (its fingerprint differs)."""
    data = record_dict()
    step = next(i for i, d in enumerate(data["decisions"]) if d["meaning"] in ("vote approve", "vote reject"))
    data["decisions"][step]["action"] = 21 - data["decisions"][step]["action"]
    assert f"step {step + 1} " in refusal(data)


def test_an_illegal_action_is_refused_naming_the_step():
    data = record_dict()
    data["decisions"][0]["action"] = 13  # FAIL while the leader picks
    message = refusal(data)
    assert message.startswith("step 1 ") and "is not legal here" in message and "phase propose" in message


def test_a_wrong_agent_a_truncated_record_and_an_edited_result_are_refused():
    data = record_dict()
    wrong = json.loads(json.dumps(data))
    wrong["decisions"][0]["agent"] = "player_9"
    assert "not player_9" in refusal(wrong)
    truncated = json.loads(json.dumps(data))
    truncated["decisions"].pop()
    assert "truncated" in refusal(truncated)
    edited = json.loads(json.dumps(data))
    edited["result"]["winning_side"] = "evil" if data["result"]["winning_side"] == "good" else "good"
    assert "winning_side" in refusal(edited)
    bad_outcome = json.loads(json.dumps(data))
    bad_outcome["result"]["outcome"] = "chest_opened"
    with pytest.raises(RecordError, match="chest_opened"):
        load_record(bad_outcome)


def test_another_seed_deals_another_game():
    data = record_dict()
    data["seed"] += 1
    assert refusal(data).startswith("step 0 (the deal)")


def test_other_formats_and_role_sets_the_table_cannot_hold_are_refused():
    data = record_dict()
    with pytest.raises(RecordError, match="avalon-record"):
        load_record({**data, "format": "traitors-aboard-record"})
    with pytest.raises(RecordError, match="A02"):  # Percival, Morgana, Mordred, Oberon need 4 Evil: not at 5
        load_record({**data, "options": {**data["options"], "morgana": True, "mordred": True, "oberon": True}}).config()


def test_record_game_refuses_a_state_of_another_seed():
    env = played(5, 3)
    with pytest.raises(RecordError, match="seed 4"):
        record_game(env.game, 4)
    state = new(5, roles=DEAL5)  # an explicit deal: no seed deals it
    round_(state, [0, 1])
    with pytest.raises(RecordError):
        record_game(state, 0)


def test_traitors_replay_and_the_kits_records_read_avalon_records(tmp_path, capsys):
    """traitors-replay --game avalon shows every step of a record; the kit's --records writes records that replay."""
    env = played(8, 5)
    path = record_game(env.game, env.episode_seed).save(tmp_path / "game.json")
    assert replay_cli.main([str(path), "--game", "avalon", "--no-pause"]) == 0
    assert f"step {len(env.game.history)}/{len(env.game.history)}" in capsys.readouterr().out
    # Without --game, the record's own format names the game.
    assert replay_cli.main([str(path), "--no-pause"]) == 0
    assert f"step {len(env.game.history)}/{len(env.game.history)}" in capsys.readouterr().out
    from traitors_env.evaluation.cli import main as kit

    assert kit(["--game", "avalon", "--agents", "random", "heuristic", "--players", "5", "--games", "2",
                "--records", "1", "--out", str(tmp_path / "kit"), "--no-plots", "--no-progress"]) in (0, None)
    files = sorted((tmp_path / "kit" / "records").glob("*.json"))
    assert len(files) == 4  # one per cell of 2 × 2 agents
    for file in files:
        assert replay(load_record(file)).is_terminal


def test_traitors_replay_shows_a_seat_its_own_knowledge_and_reveal_shows_every_role(tmp_path, capsys):
    """--seat K: the public table and seat K's own A03 knowledge; --reveal: every role (A03, A15)."""
    env = played(8, 5)
    path = record_game(env.game, env.episode_seed).save(tmp_path / "game.json")
    roles = env.game.roles
    for seat in (0, 3):
        assert replay_cli.main([str(path), "--seat", str(seat), "--no-pause"]) == 0
        out = capsys.readouterr().out
        assert f"You are player_{seat}, {ROLE_NAMES[roles[seat]]}" in out
        assert f"You are player_{(seat + 1) % 5}," not in out
    assert replay_cli.main([str(path), "--reveal", "--no-pause"]) == 0
    assert "player_0 observes" not in capsys.readouterr().out  # Avalon's own revealed view, not the generic one
