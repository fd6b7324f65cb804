"""Game records (issue 5): a record replays to the same game bit for bit; a record that does not fit
the engine is refused with the step that fails and why."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from game_helpers import TABLE_SIZES, default_roles, position

from traitors_env import traitors_aboard_v0
from traitors_env.agents import make_agent
from traitors_env.evaluation import play_game
from traitors_env.games.traitors_aboard.engine import GameConfig, GameState
from traitors_env.games.traitors_aboard.observation import encode
from traitors_env.games.traitors_aboard.records import (
    FORMAT,
    VERSION,
    RecordError,
    load_record,
    record_game,
    replay,
    replay_steps,
)


def played_env(num_players: int, seed: int | None, claims: bool = True):
    env = traitors_aboard_v0.raw_env(num_players=num_players, claims=claims)
    agents = [make_agent("heuristic" if i % 2 else "random", seed=100 + i) for i in range(num_players)]
    play_game(env, agents, seed=seed)
    return env


def record_dict(num_players: int = 5, seed: int = 3) -> dict:
    return json.loads(played_env(num_players, seed).record(seats=["bot"] * num_players).to_json())


def refusal(data: dict) -> str:
    with pytest.raises(RecordError) as error:
        replay(load_record(data))
    return str(error.value)


# ---------------------------------------------------------------- round trip
@pytest.mark.parametrize("num_players", TABLE_SIZES)
@pytest.mark.parametrize("claims", [True, False])
def test_record_round_trips_through_json_and_replays_bit_for_bit(num_players, claims, tmp_path):
    env = played_env(num_players, seed=num_players * 7 + claims, claims=claims)
    original = env.game
    labels = ["heuristic" if i % 2 else "random" for i in range(num_players)]
    record = env.record(seats=labels)
    path = record.save(tmp_path / "game.json")
    loaded = load_record(path)
    assert loaded == record and loaded.seats == labels
    assert loaded.finished and loaded.result == original.result()
    assert len(loaded.decisions) == len(original.history)
    assert loaded.decisions[0].step == 1 and loaded.decisions[-1].step == len(original.history)

    # Step by step the replay is the original game: the same observations for every seat, and the
    # same state (hidden parts and RNG included) at the end.
    fresh = GameState.new(GameConfig(num_players=num_players, claims=claims), seed=env.episode_seed)
    steps = replay_steps(loaded)
    _, state = next(steps)
    for (seat, action), (decision, state) in zip(original.history, steps, strict=True):
        fresh.apply_action(action)
        assert decision.agent == f"player_{seat}" and decision.action == action
        for observer in range(num_players):
            np.testing.assert_array_equal(encode(state, observer), encode(fresh, observer))
    assert state.fingerprint() == original.fingerprint()
    assert state.history == original.history and state.chest_value() == original.chest_value()


def test_every_episode_has_a_seed_and_records_continued_episodes():
    # reset() without a seed draws the episode's seed from the env's RNG (seeded by the first reset).
    env = played_env(4, seed=21)
    seeds = [env.episode_seed]
    agents = [make_agent("random", seed=i) for i in range(4)]
    for _ in range(3):
        play_game(env, agents, seed=None)
        seeds.append(env.episode_seed)
        assert replay(env.record()).fingerprint() == env.game.fingerprint()
    assert seeds[0] == 21 and len(set(seeds)) == 4
    other = played_env(4, seed=21)
    for _ in range(3):
        play_game(other, agents, seed=None)
    assert other.episode_seed == seeds[-1]  # the same seed sequence: reproducible


def test_unfinished_game_records_and_replays():
    env = traitors_aboard_v0.raw_env(num_players=6)
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(9):
        legal = [a for a in env.game.legal_actions() if a != 0]  # never open the chest: the game goes on
        env.step(int(legal[rng.integers(len(legal))]))
    record = env.record()
    assert not record.finished and record.result is None and len(record.decisions) == 9
    assert replay(load_record(record.to_json())).fingerprint() == env.game.fingerprint()


def test_record_meaning_is_readable():
    record = played_env(5, 1).record()
    for decision in record.decisions:
        assert decision.meaning and not decision.meaning.isdigit()
    assert record.format == FORMAT and record.version == VERSION and record.engine.startswith("traitors-aboard-rl")


# ---------------------------------------------------------------- refusals
def test_illegal_action_is_refused_naming_the_step():
    data = record_dict()
    data["decisions"][4]["action"] = 195  # a chest-top claim, legal only after Spyglass
    message = refusal(data)
    assert message.startswith("step 5 (") and "not legal" in message


def test_another_legal_action_is_caught_at_its_step():
    data = record_dict(seed=8)
    record = load_record(data)
    states = [copy.deepcopy(s) for _, s in replay_steps(record)]
    # Find a decision with another legal action and swap it in (keeping the recorded meaning).
    for index, decision in enumerate(record.decisions):
        alternatives = [a for a in states[index].legal_actions() if a != decision.action]
        if alternatives:
            data["decisions"][index]["action"] = alternatives[0]
            break
    message = refusal(data)
    assert message.startswith(f"step {index + 1} (")


def test_edited_state_check_is_caught_at_its_step():
    data = record_dict()
    data["decisions"][6]["check"] = "0" * 16
    assert refusal(data).startswith("step 7 (") and "departs" in refusal(data)


def test_wrong_agent_is_refused():
    data = record_dict(num_players=3)
    actual = data["decisions"][0]["agent"]
    data["decisions"][0]["agent"] = "player_1" if actual != "player_1" else "player_2"
    message = refusal(data)
    assert message.startswith("step 1 (") and f"asks {actual}" in message


def test_truncated_record_is_refused():
    data = record_dict()
    total = len(data["decisions"])
    del data["decisions"][-3:]
    message = refusal(data)
    assert message.startswith(f"step {total - 2}:") and "truncated" in message


def test_missing_decision_in_the_middle_is_refused():
    data = record_dict()
    del data["decisions"][3]
    assert refusal(data).startswith("step 4 (") and "numbered 5" in refusal(data)


def test_decision_after_the_end_is_refused():
    data = record_dict()
    extra = dict(data["decisions"][-1], step=len(data["decisions"]) + 1)
    data["decisions"].append(extra)
    message = refusal(data)
    assert message.startswith(f"step {extra['step']} (") and "already ended" in message


def test_other_seed_or_engine_deal_is_refused_at_the_deal():
    data = record_dict()
    data["seed"] += 1
    assert refusal(data).startswith("step 0 (the deal)")
    data = record_dict()
    data["start"] = "f" * 16  # as if written by an engine that deals differently
    assert refusal(data).startswith("step 0 (the deal)")


def test_edited_result_is_refused_naming_the_key():
    data = record_dict()
    data["result"]["winner"] = "Pirate" if data["result"]["winner"] == "Mutineer" else "Mutineer"
    message = refusal(data)
    assert message.startswith("the result differs") and "winner: the record says" in message
    assert "roles" not in message  # only what differs


def test_edited_meaning_is_refused():
    data = record_dict()
    data["decisions"][2]["meaning"] = "open the chest"
    message = refusal(data)
    assert message.startswith("step 3 (") and "open the chest" in message


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda d: d.update(version=2), "version 2 is not supported"),
        (lambda d: d.update(format="something-else"), "format='something-else'"),
        (lambda d: d.pop("seed"), "seed"),
        (lambda d: d.update(seed="abc"), "seed"),
        (lambda d: d.update(num_players=9), "num_players: Input should be less than or equal to 8"),
        (lambda d: d.update(colour="red"), "colour"),
        (lambda d: d["decisions"][1].update(action="x"), "decisions.1.action"),
        (lambda d: d["decisions"][1].pop("agent"), "decisions.1.agent"),
        # Another JSON type is an edit, not a value to convert.
        (lambda d: d["decisions"][1].update(action=str(d["decisions"][1]["action"])), "decisions.1.action"),
        (lambda d: d["decisions"][1].update(action=float(d["decisions"][1]["action"])), "decisions.1.action"),
        (lambda d: d["decisions"][1].update(step="2"), "decisions.1.step"),
        (lambda d: d.update(seed=float(d["seed"])), "seed"),
        (lambda d: d.update(num_players="5"), "num_players"),
        (lambda d: d["options"].update(claims="yes"), "options.claims"),
        (lambda d: d["options"].update(claims=1), "options.claims"),
        (lambda d: d.update(version=1.0), "version 1.0 is not supported"),
        (lambda d: d.update(version=True), "version True is not supported"),
        (lambda d: d.pop("options"), "options"),
        (lambda d: d.pop("decisions"), "decisions"),
        (lambda d: d.pop("result"), "result"),
        (lambda d: d.update(seats=["human"] * 2), "seats names 2 seats"),
        (lambda d: d["result"].update(turns=float(d["result"]["turns"])), "result: Value error, turns: Input should be"),
        (lambda d: d["result"].update(turns=[[[[1]]]]), "turns: Input should be a valid integer"),
        (lambda d: d["result"]["chest"].append({"value": 1}), ".announced: Field required"),
        (lambda d: d.update(seats=["\x1b[2Jevil"] + d["seats"][1:]), "seats.0: String should match pattern"),
        (lambda d: d.update(engine="x" * 300), "engine: String should have at most 200 characters"),
        (lambda d: d["result"]["chest"][0].update(placer=d["result"]["chest"][0]["placer"] + 1), "chest: the record says"),
    ],
)
def test_malformed_records_are_refused_naming_the_field(edit, expected):
    data = record_dict()
    edit(data)
    with pytest.raises(RecordError, match=None) as error:
        replay(load_record(data))
    assert expected in str(error.value)


def test_unreadable_files_are_refused(tmp_path):
    with pytest.raises(RecordError, match="does not exist"):
        load_record(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "traitors-aboard-record", "version": 1,', encoding="utf-8")
    with pytest.raises(RecordError, match="not valid JSON"):
        load_record(broken)
    listing = tmp_path / "list.json"
    listing.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(RecordError, match="expected an object"):
        load_record(listing)
    garbage = tmp_path / "garbage.json"
    garbage.write_bytes(bytes(range(256)))
    with pytest.raises(RecordError, match="not UTF-8 text"):
        load_record(garbage)
    utf16 = tmp_path / "utf16.json"
    utf16.write_text(json.dumps(record_dict()), encoding="utf-16")
    with pytest.raises(RecordError, match="not UTF-8 text"):
        load_record(utf16)
    nested = tmp_path / "nested.json"
    nested.write_text('{"a":' * 100_000 + "1" + "}" * 100_000, encoding="utf-8")
    with pytest.raises(RecordError, match="nested too deeply"):
        load_record(nested)
    with pytest.raises(RecordError, match="is a folder"):
        load_record(tmp_path)
    with pytest.raises(RecordError, match="JSON list; expected an object"):
        load_record([1, 2])  # type: ignore[arg-type]
    with pytest.raises(RecordError, match="does not exist"):
        load_record("x" * 5000)
    with pytest.raises(RecordError, match="no record given"):
        load_record("")


def test_a_file_whose_name_starts_with_a_brace_is_read_as_a_file(tmp_path):
    path = played_env(3, seed=2).record().save(tmp_path / "{game}.json")
    assert load_record(path) == load_record(str(path))


def test_record_game_refuses_a_state_of_another_seed():
    state = played_env(5, seed=4).game
    with pytest.raises(RecordError, match="seed 5"):
        record_game(state, 5)
    assert replay(record_game(state, 4)).fingerprint() == state.fingerprint()


def test_position_games_have_no_seed_to_record():
    env = traitors_aboard_v0.raw_env(num_players=3)
    env.reset_to_position(position(3, roles=default_roles(3)))
    with pytest.raises(RecordError, match="explicit position"):
        env.record()
    with pytest.raises(RecordError, match="before reset"):
        traitors_aboard_v0.raw_env(num_players=3).record()


def test_saving_replaces_the_file_whole(tmp_path):
    path = tmp_path / "sub" / "game.json"
    first = played_env(3, seed=1).record()
    first.save(path)
    second = played_env(8, seed=2).record()
    second.save(path)
    assert load_record(path) == second
    assert [p.name for p in path.parent.iterdir()] == ["game.json"]  # no temporary file left behind


def test_a_record_can_come_through_a_pipe():
    import os
    import threading

    text = played_env(4, seed=6).record().to_json()
    read_end, write_end = os.pipe()

    def write() -> None:
        with os.fdopen(write_end, "w", encoding="utf-8") as handle:
            handle.write(text)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        record = load_record(f"/dev/fd/{read_end}")
    finally:
        writer.join()
        os.close(read_end)
    assert record == load_record(text)
