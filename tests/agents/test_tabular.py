"""Tabular policy files (issue 50, item 6: a solver's policy shipped as an agent spec; issue 49: data only)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from traitors_env.agents.policy import AgentSpecError
from traitors_env.agents.spec import agent_maker
from traitors_env.agents.tabular import (
    FORMAT,
    TabularAgent,
    TabularPolicy,
    TabularPolicyError,
    load_tabular_policy,
    observation_key,
    save_tabular_policy,
)
from traitors_env.core import load_game

GAME = load_game("traitors_aboard:mini3")


def _first_decision(seed=0):
    env = GAME.raw_env()
    env.reset(seed=seed)
    observation = env.observe(env.agent_selection)
    return observation["observation"], observation["action_mask"]


def _policy(observation, mask, favourite=None):
    legal = np.flatnonzero(mask).tolist()
    favourite = legal[-1] if favourite is None else favourite
    row = tuple((a, 1.0 if a == favourite else 0.0) for a in legal)
    return TabularPolicy(GAME.type.env_id, observation.size, GAME.type.num_actions, {observation_key(observation): row})


def test_round_trip_and_the_agent_plays_the_table(tmp_path):
    observation, mask = _first_decision()
    policy = _policy(observation, mask)
    path = save_tabular_policy(tmp_path / "p.policy.json", policy)
    loaded = load_tabular_policy(path, GAME)
    assert loaded.table == policy.table
    favourite = np.flatnonzero(mask)[-1]
    assert TabularAgent(loaded, seed=3).act(observation, mask) == favourite
    label, make = agent_maker(str(path), game=GAME)
    assert label == f"tabular:{path}"
    agent = make(0)
    assert agent.act(observation, mask) == favourite
    assert agent.policy.probabilities(observation, mask)[favourite] == 1.0  # exact, for traitors-exact


def test_an_observation_the_table_does_not_hold_is_an_error_naming_the_game():
    observation, mask = _first_decision()
    policy = _policy(observation, mask)
    other = observation.copy()
    other[0] += 1
    with pytest.raises(ValueError, match="traitors_aboard_v0:mini3 has no entry for this observation"):
        TabularAgent(policy).act(other, mask)


def _write(tmp_path, data, name="bad.policy.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def _valid(observation, mask):
    legal = np.flatnonzero(mask).tolist()
    return {"format": FORMAT, "version": 1, "game": "traitors_aboard_v0:mini3", "observation_size": observation.size,
            "num_actions": GAME.type.num_actions, "policy": {observation_key(observation): [[legal[0], 1.0]]}}


@pytest.mark.parametrize(("change", "words"), [
    (lambda d: "not json {", "cannot be read as JSON"),
    (lambda d: [1, 2], "format is 'list'"),
    (lambda d: {**d, "format": "pickle"}, "format is 'pickle'"),
    (lambda d: {**d, "version": 2}, "version 2; expected 1"),
    (lambda d: {**d, "game": "avalon_v0"}, "game 'avalon_v0'; expected a policy of traitors_aboard_v0:mini3"),
    (lambda d: {**d, "game": 7}, "game 7"),
    (lambda d: {**d, "num_actions": 5}, "num_actions 5"),
    (lambda d: {**d, "policy": {}}, "policy is empty"),
    (lambda d: {**d, "policy": {"zz": [[0, 1.0]]}}, "key 'zz'; expected 16 hex digits"),
    (lambda d: {**d, "policy": {"0" * 16: [[0, 0.5]]}}, "summing to 1"),
    (lambda d: {**d, "policy": {"0" * 16: [[999, 1.0]]}}, "expected distinct actions 0–195"),
    (lambda d: {**d, "policy": {"0" * 16: [[True, 1.0]]}}, "expected distinct actions"),
    (lambda d: {**d, "policy": {"0" * 16: [[0, float("nan")]]}}, "cannot be read as JSON|expected distinct"),
    (lambda d: {**d, "policy": {"0" * 16: [[0, 0.5], [0, 0.5]]}}, "expected distinct actions"),
])
def test_a_bad_file_is_refused_naming_the_field(tmp_path, change, words):
    observation, mask = _first_decision()
    path = _write(tmp_path, change(_valid(observation, mask)))
    with pytest.raises(TabularPolicyError, match=words):
        load_tabular_policy(path, GAME)
    with pytest.raises(AgentSpecError, match=words):
        agent_maker(str(path), game=GAME)


def test_a_missing_file_is_an_agent_spec_error(tmp_path):
    with pytest.raises(AgentSpecError, match="no such tabular policy file"):
        agent_maker(str(tmp_path / "none.policy.json"), game=GAME)


def test_a_mask_that_forbids_the_tables_action_is_an_error():
    observation, mask = _first_decision()
    policy = _policy(observation, mask)
    forbid = mask.copy()
    forbid[np.flatnonzero(mask)[-1]] = 0
    with pytest.raises(ValueError, match="where the mask forbids it"):
        policy.probabilities(observation, forbid)


@pytest.mark.parametrize(("text", "words"), [
    ('{"a":' * 100_000 + "1" + "}" * 100_000, "nested too deeply"),
    ('{"format": "traitors_env.tabular_policy", "version": ' + "9" * 5000 + "}", "cannot be read as JSON"),
])
def test_hostile_json_is_refused_in_one_line(tmp_path, text, words):
    path = _write(tmp_path, text)
    with pytest.raises(TabularPolicyError, match=words):
        load_tabular_policy(path, GAME)


def test_a_policy_plays_only_the_variant_it_was_solved_for(tmp_path):
    observation, mask = _first_decision()
    path = save_tabular_policy(tmp_path / "p.policy.json", _policy(observation, mask))
    for other in ("traitors_aboard", "traitors_aboard:micro3"):
        with pytest.raises(TabularPolicyError, match="expected a policy of"):
            load_tabular_policy(path, load_game(other))
    bad = _valid(observation, mask)
    bad["version"] = True
    with pytest.raises(TabularPolicyError, match="version True"):
        load_tabular_policy(_write(tmp_path, bad), GAME)
    (tmp_path / "dir.policy.json").mkdir()
    with pytest.raises(TabularPolicyError, match="not a regular file"):
        load_tabular_policy(tmp_path / "dir.policy.json", GAME)
