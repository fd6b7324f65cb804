"""A league's Nash mixture as one agent (``traitors_env/agents/league.py``; issue 27): PSRO's solution by spec, one
member per side drawn per game from the game's seed."""

from __future__ import annotations

import json

import numpy as np
import pytest

from traitors_env.agents.policy import AgentSpecError
from traitors_env.agents.spec import agent_maker
from traitors_env.core.agent import RandomAgent
from traitors_env.games.traitors_aboard.bots import HeuristicAgent


def league_file(tmp_path, pirates, mutineers, game="traitors_aboard"):
    bots = [{"name": n, "kind": n, "iteration": 0, "checkpoint": None} for n in ("random", "heuristic")]
    data = {"schema": 1, "game": game, "sides": ["pirates", "mutineers"],
            "members": {"pirates": [*bots, {"name": "plank", "kind": "probe", "iteration": 0, "checkpoint": None}],
                        "mutineers": bots},
            "iterations": [{"iteration": 0, "nash": {"pirates": {"random": 1.0}, "mutineers": {"random": 1.0}}},
                           {"iteration": 1, "nash": {"pirates": pirates, "mutineers": mutineers}}]}
    path = tmp_path / "league.json"
    path.write_text(json.dumps(data))
    return path


def test_each_game_draws_one_member_per_side_by_the_last_nash_weights(tmp_path):
    pytest.importorskip("jax")  # the plank probe runs in the JAX twin
    path = league_file(tmp_path, {"random": 0.0, "heuristic": 0.75, "plank": 0.25}, {"random": 1.0, "heuristic": 0.0})
    label, make = agent_maker(str(path))
    assert label == f"league:{path}"
    drawn = [make(seed) for seed in range(400)]
    heuristic = np.mean([isinstance(agent.agents[0], HeuristicAgent) for agent in drawn])
    assert 0.68 < heuristic < 0.82  # 0.75 by weight (±3.5 standard errors); the rest the probe
    assert all(type(agent.agents[1]) is RandomAgent for agent in drawn)  # weight 1; weight-0 members never
    assert [type(make(7).agents[0]) for _ in range(3)] == [type(drawn[7].agents[0])] * 3  # seeded by the game


def test_the_probe_member_plays_legal_moves_in_a_real_game(tmp_path):
    pytest.importorskip("jax")
    from traitors_env.agents.league import ProbeAgent
    from traitors_env.games.traitors_aboard.env import raw_env

    _, make = agent_maker(str(league_file(tmp_path, {"plank": 1.0}, {"heuristic": 1.0})))
    agent = make(0)
    assert isinstance(agent.agents[0], ProbeAgent)
    env = raw_env(num_players=5)
    env.reset(seed=0)
    moves = 0
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = agent.act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][action]
        env.step(action)
        moves += 1
    assert moves > 10


def test_a_league_of_another_game_or_without_weights_is_refused(tmp_path):
    with pytest.raises(AgentSpecError, match="a league of 'the_traitors', not of 'traitors_aboard'; use --game"):
        agent_maker(str(league_file(tmp_path, {"random": 1.0}, {"random": 1.0}, game="the_traitors")))
    with pytest.raises(AgentSpecError, match="Nash mixture of side 'mutineers' gives no member a positive weight"):
        agent_maker(str(league_file(tmp_path, {"random": 1.0}, {"random": 0.0})))
    (tmp_path / "league.json").write_text("{")
    with pytest.raises(AgentSpecError, match="cannot read the league file"):
        agent_maker(str(tmp_path / "league.json"))
