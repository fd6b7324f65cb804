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
    """A league file of two bots a side, and the Pirates' plank probe where the weights name it: a probe member needs
    the JAX twin (the ``jax`` extra), and the tests of the file's other checks run without it (issue 49)."""
    bots = [{"name": n, "kind": n, "iteration": 0, "checkpoint": None} for n in ("random", "heuristic")]
    probe = [{"name": "plank", "kind": "probe", "iteration": 0, "checkpoint": None}] if "plank" in pirates else []
    data = {"schema": 1, "game": game, "sides": ["pirates", "mutineers"],
            "members": {"pirates": [*bots, *probe], "mutineers": bots},
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
    assert {type(agent.agents[0]).__name__ for agent in drawn} == {"HeuristicAgent", "ProbeAgent"}


def test_the_probe_member_plays_legal_moves_in_a_real_game(tmp_path):
    pytest.importorskip("jax")
    from traitors_env.agents.league import ProbeAgent

    _, make = agent_maker(str(league_file(tmp_path, {"plank": 1.0}, {"heuristic": 1.0})))
    agent = make(0)
    assert isinstance(agent.agents[0], ProbeAgent)
    moves = play_game(agent, 5)
    assert moves > 10


def test_policy_members_load_from_the_league_files_folder_and_play_as_the_league_did(tmp_path, monkeypatch):
    """A policy member's checkpoint is relative to the league file (not to the working directory); a league whose
    cross-play was deterministic gives deterministic policies."""
    pytest.importorskip("flax")
    import jax

    from training.jax_backend import ppo
    from traitors_env.agents.jax_checkpoint import save_checkpoint
    from traitors_env.core import load_game

    game = load_game("traitors_aboard")
    model = ppo.ActorCritic((8,), game.type.num_actions, "relu")
    params = model.init(jax.random.key(0), jax.numpy.zeros((1, *game.type.observation_shape)))
    save_checkpoint(tmp_path / "run" / "checkpoints" / "gen_001" / "pirates.msgpack", params,
                    ppo.make_optimizer(1e-3, 0.5).init(params), team="pirates", net_arch=(8,), activation="relu",
                    num_timesteps=0)
    (tmp_path / "run").mkdir(exist_ok=True)
    path = league_file(tmp_path / "run", {"league_1": 1.0}, {"heuristic": 1.0})
    data = json.loads(path.read_text())
    data["members"]["pirates"].append({"name": "league_1", "kind": "policy", "iteration": 1,
                                       "checkpoint": "checkpoints/gen_001/pirates.msgpack"})
    path.write_text(json.dumps(data))
    monkeypatch.chdir(tmp_path)  # elsewhere than the run folder
    _, make = agent_maker("run/league.json")
    assert type(make(0).agents[0]).__name__ in ("PolicyAgent", "BeliefPolicyAgent")
    assert make(0).agents[0].deterministic is False
    path.write_text(json.dumps({**data, "deterministic": True}))
    assert agent_maker("run/league.json")[1](0).agents[0].deterministic is True
    path.write_text(json.dumps({**data, "deterministic": "false"}))  # bool("false") is True: refused, not misread
    with pytest.raises(AgentSpecError, match="deterministic is 'false'; expected true or false"):
        agent_maker("run/league.json")


def test_a_league_of_another_game_or_without_weights_is_refused(tmp_path):
    with pytest.raises(AgentSpecError, match="a league of 'the_traitors', not of 'traitors_aboard'; use --game"):
        agent_maker(str(league_file(tmp_path, {"random": 1.0}, {"random": 1.0}, game="the_traitors")))
    with pytest.raises(AgentSpecError, match="Nash mixture of side 'mutineers' gives no member a positive weight"):
        agent_maker(str(league_file(tmp_path, {"random": 1.0}, {"random": 0.0})))
    (tmp_path / "league.json").write_text("{")
    with pytest.raises(AgentSpecError, match="cannot read the league file"):
        agent_maker(str(tmp_path / "league.json"))


def _broken(data, change):
    if change == "list":
        return [1, 2]
    if change == "no game":
        return {k: v for k, v in data.items() if k != "game"}
    nash, pirates = data["iterations"][-1]["nash"], data["members"]["pirates"]
    if change == "typo":
        nash["pirates"] = {"heuristc": 0.9, "random": 0.1}
    elif change == "nan":
        nash["pirates"]["heuristic"] = float("nan")
    elif change == "negative":
        nash["pirates"]["heuristic"] = -0.5
    elif change == "text weight":
        nash["pirates"]["heuristic"] = "abc"
    elif change == "nash list":
        nash["pirates"] = [0.5, 0.5]
    elif change == "no name":
        del pirates[0]["name"]
    elif change == "not a dict":
        pirates[0] = 5
    elif change == "twice":
        pirates.append(dict(pirates[0]))
    elif change == "no kind":
        del pirates[1]["kind"]
    elif change == "no checkpoint":
        pirates.append({"name": "league_1", "kind": "policy", "iteration": 1, "checkpoint": None})
    elif change == "probe on the wrong side":
        data["members"]["mutineers"].append({"name": "plank", "kind": "probe", "iteration": 0})
        data["iterations"][-1]["nash"]["mutineers"] = {"plank": 1.0}
    return data


@pytest.mark.parametrize("change, message", [
    ("list", "the league file holds a list; expected the JSON object a league writes"),
    ("no game", "a league of None, not of 'traitors_aboard'$"),
    ("typo", "the Nash weights of side 'pirates' name 'heuristc', not a member"),
    ("nan", "the Nash weight of pirates member 'heuristic' is nan; expected a finite number >= 0"),
    ("negative", "the Nash weight of pirates member 'heuristic' is -0.5"),
    ("text weight", "the Nash weight of pirates member 'heuristic' is 'abc'"),
    ("nash list", "no members or Nash weights for side 'pirates'"),
    ("no name", "side 'pirates' has a member .* without a name"),
    ("not a dict", "side 'pirates' has a member 5 without a name"),
    ("twice", "side 'pirates' names member 'random' twice"),
    ("no kind", "member 'heuristic' has kind None; expected one of policy, heuristic, random, probe"),
    ("no checkpoint", "policy member 'league_1' has no checkpoint"),
    ("probe on the wrong side", "probe 'plank' plays the pirates, not the mutineers"),
])
def test_a_malformed_league_file_is_refused_naming_what_is_wrong(tmp_path, change, message):
    pytest.importorskip("jax")  # the probe's side is the JAX twin's declaration
    path = league_file(tmp_path, {"heuristic": 0.5, "plank": 0.5}, {"random": 1.0})
    path.write_text(json.dumps(_broken(json.loads(path.read_text()), change)))
    with pytest.raises(AgentSpecError, match=f"agent '{path}': {message}"):
        agent_maker(str(path))


def test_an_agent_that_drew_a_probe_pickles():
    pytest.importorskip("jax")
    import pickle

    from traitors_env.agents.league import ProbeAgent

    agent = pickle.loads(pickle.dumps(ProbeAgent("traitors_aboard", "plank", 3)))
    mask = np.zeros(agent_mask_size(), bool)
    mask[:2] = True
    assert agent.act(np.zeros(observation_size(), np.float32), mask) in (0, 1)


def agent_mask_size():
    from traitors_env.core import load_game

    return load_game("traitors_aboard").type.num_actions


def observation_size():
    from traitors_env.core import load_game

    return load_game("traitors_aboard").type.observation_shape[0]


def per_size_league_file(tmp_path, by_size, pooled=None):
    """A league file whose last meta-game was also solved per table size (``league.meta_game: per_size``)."""
    path = league_file(tmp_path, *(pooled or ({"random": 0.5, "heuristic": 0.5}, {"random": 0.5, "heuristic": 0.5})))
    data = json.loads(path.read_text())
    data["iterations"][-1]["nash_by_size"] = by_size
    path.write_text(json.dumps(data))
    return path


def play_game(agent, num_players, seed=0) -> int:
    """Plays one game of ``num_players`` with ``agent`` at every seat, checking each action against the mask; returns
    the number of moves."""
    from traitors_env.games.traitors_aboard.env import raw_env

    env = raw_env(num_players=num_players)
    env.reset(seed=seed)
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
    return moves


def drawn_members(agent, num_players, seed=0):
    """Plays one game of ``num_players`` with ``agent`` at every seat; the types of the members it drew per side."""
    play_game(agent, num_players, seed)
    return [type(member).__name__ if member is not None else None for member in agent.agents]


def test_a_per_size_league_plays_the_nash_mixture_of_the_table_size_it_is_dealt(tmp_path):
    """A per-size league's solution is one mixture per table size (the size is public, dealt by nature): the file
    plays the mixture of the size the observation shows, and the pooled one at a size the league did not solve."""
    from traitors_env.agents.league import PerSizeLeagueAgent

    path = per_size_league_file(tmp_path, {
        "3": {"pirates": {"heuristic": 1.0}, "mutineers": {"random": 1.0, "heuristic": 0.0}},
        "5": {"pirates": {"random": 1.0}, "mutineers": {"heuristic": 1.0}}})
    label, make = agent_maker(str(path))
    assert label == f"league:{path}:per_size"
    assert isinstance(make(0), PerSizeLeagueAgent) and make(0).agents == [None, None]  # drawn at first decision
    for size, expected in ((3, ["HeuristicAgent", "RandomAgent"]), (5, ["RandomAgent", "HeuristicAgent"])):
        games = [drawn_members(make(seed), size, seed) for seed in range(8)]
        for side in (0, 1):  # a side that never decided (a short game) drew no member
            assert {members[side] for members in games} in ({expected[side]}, {expected[side], None})
            assert sum(members[side] == expected[side] for members in games) >= 4
    at_four = [drawn_members(make(seed), 4, seed) for seed in range(40)]  # not solved at 4: the pooled 50/50
    assert {pirate for pirate, _ in at_four} == {"RandomAgent", "HeuristicAgent"}
    first = [drawn_members(make(seed), 4, seed) for seed in range(40)]
    assert first == at_four  # seeded by the game
    agent = make(1)
    drawn_members(agent, 3)
    with pytest.raises(ValueError, match="a 5-player table in a game of 3 players; build one agent per game"):
        drawn_members(agent, 5)


def test_the_pooled_suffix_plays_the_pooled_mixture_and_per_size_needs_a_per_size_league(tmp_path):
    by_size = {"3": {"pirates": {"heuristic": 1.0}, "mutineers": {"heuristic": 1.0}}}
    path = per_size_league_file(tmp_path, by_size, ({"random": 1.0}, {"random": 1.0}))
    label, make = agent_maker(f"{path}:pooled")
    assert label == f"league:{path}"  # the label of a pooled league: its reports keep their keys
    assert [type(a).__name__ for a in make(0).agents] == ["RandomAgent", "RandomAgent"]
    assert drawn_members(agent_maker(f"{path}:per_size")[1](0), 3) == ["HeuristicAgent", "HeuristicAgent"]
    pooled = league_file(tmp_path / "pooled_run", {"random": 1.0}, {"random": 1.0}) if (tmp_path / "pooled_run").mkdir() \
        is None else None
    with pytest.raises(AgentSpecError, match="has no per-size meta-game .*drop ':per_size'"):
        agent_maker(f"{pooled}:per_size")
    with pytest.raises(AgentSpecError, match="suffix is ':perSize'; expected one of :pooled, :per_size"):
        agent_maker(f"{pooled}:perSize")
    with pytest.raises(AgentSpecError, match="no league file 'nowhere/league.json'"):
        agent_maker("nowhere/league.json:pooled")


def test_a_per_size_agent_draws_each_sides_member_from_its_own_stream(tmp_path):
    """One agent at every seat (both sides): a side's member is fixed by the game's seed, not by the deal (which seat,
    hence which side, acts first), so the secret seating cannot show through the members drawn."""
    half = {"random": 0.5, "heuristic": 0.5}
    path = per_size_league_file(tmp_path, {"5": {"pirates": half, "mutineers": half}})
    _, make = agent_maker(str(path))
    for seed in range(6):
        members = [drawn_members(make(seed), 5, deal) for deal in range(12)]
        for side in (0, 1):
            assert len({m[side] for m in members} - {None}) == 1  # the same member whatever the deal


@pytest.mark.parametrize("by_size, message", [
    ({"9": {"pirates": {"random": 1.0}, "mutineers": {"random": 1.0}}},
     "nash_by_size has table size '9'; expected one of '3', '4', '5', '6', '7', '8'"),
    ({"03": {"pirates": {"random": 1.0}, "mutineers": {"random": 1.0}}}, "nash_by_size has table size '03'"),
    ({"\u00b3": {"pirates": {"random": 1.0}, "mutineers": {"random": 1.0}}}, "nash_by_size has table size '\u00b3'"),
    ({"3": {"pirates": {"random": 1.0}, "mutineers": {"random": 1.0}, "pirate": {"random": 1.0}}},
     "nash_by_size\\['3'\\] is .*; expected \\{side: weights\\} for sides pirates, mutineers"),
    ({"3": {"pirates": {"random": 1.0}, "mutineers": {"random": 0.0}}},
     "the Nash mixture of side 'mutineers' at 3 players gives no member a positive weight"),
    ({"4": {"pirates": {"randm": 1.0}, "mutineers": {"random": 1.0}}},
     "the Nash weights of side 'pirates' at 4 players name 'randm', not a member"),
    ({"4": {"pirates": {"random": 1.0}}}, "no Nash weights for side 'mutineers' at 4 players"),
    ([1], "the last meta-game's nash_by_size is \\[1\\]; expected"),
    ([], "the last meta-game's nash_by_size is \\[\\]; expected"),
    (0, "the last meta-game's nash_by_size is 0; expected"),
])
def test_a_malformed_per_size_mixture_is_refused_naming_the_table_size(tmp_path, by_size, message):
    path = per_size_league_file(tmp_path, by_size)
    with pytest.raises(AgentSpecError, match=message):
        agent_maker(str(path))
