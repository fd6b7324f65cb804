"""The baselines of ``the_traitors_v0``: random and the heuristic (issue 15, item 3)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from the_traitors_helpers import TABLE_SIZES, after_phase, play, position

from traitors_env import the_traitors_v0
from traitors_env.agents import SideAgent, make_agent
from traitors_env.evaluation.games import agent_seats, evaluate, play_game
from traitors_env.games.the_traitors import actions as A
from traitors_env.games.the_traitors.bots import TheTraitorsHeuristicAgent
from traitors_env.games.the_traitors.engine import Phase
from traitors_env.games.the_traitors.observation import encode


def play_the_traitors_game(env, agents, seed):
    """Every seat's final ``info`` of one game (the kit's one play loop)."""
    return play_game(env, agents, seed)["infos"]


def evaluate_role(agent, opponents, role, num_players, games, seed):
    return evaluate(agent, opponents, role, num_players, games, seed, game="the_traitors")


def learner_seat(traitor, num_players, role, seed):
    """The seat an agent evaluated (or trained) in ``role`` plays at a table whose Traitor sits at ``traitor``."""
    (seat,) = agent_seats("the_traitors", SimpleNamespace(num_players=num_players, traitor=traitor), role, seed)
    return seat


@pytest.mark.parametrize("num_players", TABLE_SIZES)
@pytest.mark.parametrize("claims", [True, False])
def test_heuristic_plays_legal_moves_at_every_table(num_players, claims):
    env = the_traitors_v0.env(num_players=num_players, claims=claims)  # the wrapper ends a game on an illegal move
    agent = TheTraitorsHeuristicAgent(seed=0)
    for seed in range(10):
        infos = play_the_traitors_game(env, [agent] * num_players, seed)
        assert sum(info["reward"] for info in infos.values()) >= 1  # a real end, not an illegal move's −1


def test_heuristic_beats_random_in_both_roles():
    for role in ("faithful", "traitor"):
        heuristic = evaluate_role(TheTraitorsHeuristicAgent(1), TheTraitorsHeuristicAgent(2), role, 5, 120, seed=7)
        random = evaluate_role(make_agent("random", 1, game="the_traitors"), TheTraitorsHeuristicAgent(2), role, 5, 120, seed=7)
        assert heuristic.win_rate > random.win_rate + 0.08, (role, heuristic, random)


def test_heuristic_is_deterministic_given_its_seed():
    env = the_traitors_v0.raw_env(num_players=4)
    a = play_the_traitors_game(env, [TheTraitorsHeuristicAgent(3)] * 4, seed=9)
    b = play_the_traitors_game(env, [TheTraitorsHeuristicAgent(3)] * 4, seed=9)
    assert [a[k]["won"] for k in sorted(a)] == [b[k]["won"] for k in sorted(b)]


def test_heuristic_traitor_murders_the_richest_rival_without_a_secret_card():
    state = position(5, traitor=4, gold=[8, 12, 10, 8, 8], hands=[(0, 0), (1, 0), (0, 0), (0, 0), (0, 0)], deck=[])
    agent = TheTraitorsHeuristicAgent(0)

    def choose(s):
        return agent.act(encode(s, s.current_player), s.legal_mask())

    play(state, choose, until=lambda s: s.phase is Phase.NIGHT and s.current_player == 4)
    assert A.murder_action(1) in state.legal_actions()
    # player_1 is richest but holds a secret card (maybe a Shield): player_2 is the target
    assert state.gold[1] > state.gold[2] > max(state.gold[0], state.gold[3]) and state.gold[1] - 3 < state.gold[2]
    assert choose(state) == A.murder_action((2 - 4) % 5)


def test_heuristic_final_rule():
    agent = TheTraitorsHeuristicAgent(0)
    for statement, expected in ((A.STATEMENT_TRAITOR, True), (A.STATEMENT_FAITHFUL, False)):
        state = position(4, traitor=0, round=5, gold=[3, 10, 6, 8])
        state.apply_action(A.statement_action(statement))  # player_1
        assert agent.act(encode(state, 3), state.legal_mask()) == A.statement_action(A.STATEMENT_FAITHFUL)
        state.apply_action(A.statement_action(A.STATEMENT_FAITHFUL))  # player_3
        play(state, until=after_phase(Phase.FINAL))
        state.apply_action(A.write_action(False))
        assert agent.act(encode(state, 3), state.legal_mask()) == A.write_action(expected)


def test_role_agent_hands_each_decision_to_the_role_shown():
    class Fixed:
        def __init__(self, name):
            self.name, self.seen = name, []

        def act(self, observation, mask):
            self.seen.append(observation)
            return int(np.flatnonzero(mask)[0])

    faithful, traitor = Fixed("f"), Fixed("t")
    env = the_traitors_v0.raw_env(num_players=4)
    play_the_traitors_game(env, [SideAgent(traitor, faithful, game="the_traitors")] * 4, seed=0)
    assert faithful.seen and traitor.seen
    assert all(o[1] == 1 for o in traitor.seen) and all(o[0] == 1 for o in faithful.seen)


def test_learner_seat_has_the_role():
    for seed in range(50):
        seat = learner_seat(traitor=2, num_players=5, role="faithful", seed=seed)
        assert seat != 2 and 0 <= seat < 5
    assert learner_seat(2, 5, "traitor", 0) == 2
    with pytest.raises(ValueError, match="side 'pirate'"):  # not a side (role) of the_traitors_v0
        learner_seat(2, 5, "pirate", 0)
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("clever", game="the_traitors")


# ------------------------------------------------------------------ role beliefs (issue 27, item 2)
@pytest.mark.parametrize("n", TABLE_SIZES)
def test_heuristic_beliefs_shape_range_and_count(n):
    """P(Traitor) per relative seat: float32 (6,), NaN at me and beyond the table, in [0, 1]; a Faithful's beliefs
    about the others sum to the one Traitor (T02), the Traitor's are all 0 (it knows the others are Faithful)."""
    from traitors_env.core.registry import load_game

    game = load_game("the_traitors")
    env = game.raw_env(num_players=n)
    found = []

    def hook(seat, observation, mask, values, state, agent):
        found.append((seat == state.traitor, values))

    for seed in range(2):
        play_game(env, [TheTraitorsHeuristicAgent(s) for s in range(n)], seed, beliefs=hook)
    assert {traitor for traitor, _ in found} == {True, False}
    for traitor, values in found:
        assert values.dtype == np.float32 and values.shape == (6,)
        assert np.isnan(values[0]) and np.all(np.isnan(values[n:]))
        others = values[1:n]
        assert others.min() >= 0.0 and others.max() <= 1.0
        assert others.sum() == pytest.approx(0.0 if traitor else 1.0, abs=1e-5)


def test_heuristic_beliefs_are_a_softmax_of_suspicion():
    """A Faithful's beliefs are the softmax of its suspicion over the other seats (the one Traitor, T02): the most
    suspected seat has the highest belief."""
    agent = TheTraitorsHeuristicAgent(0)
    env = the_traitors_v0.raw_env(num_players=5)
    env.reset(seed=1)
    checked = 0
    for _name in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        obs = observation["observation"]
        score = agent._suspicion(obs, 5)[1:5]
        b = agent.beliefs(obs)[1:5]
        if np.isfinite(score).all() and not np.allclose(b, 0.0):  # a Faithful (the Traitor's are all 0)
            odds = np.exp(score - score.max())
            assert b == pytest.approx(odds / odds.sum(), abs=1e-6)
            assert int(np.argmax(b)) == int(np.argmax(score))
            checked += 1
        env.step(agent.act(obs, observation["action_mask"]))
    assert checked > 10


def test_asking_for_beliefs_changes_no_game():
    """The kit asks every heuristic for beliefs before it acts: the same seeds must give the same games."""
    env = the_traitors_v0.raw_env(num_players=5)
    for seed in range(3):
        plain = play_game(env, [TheTraitorsHeuristicAgent(seed + s) for s in range(5)], seed)
        asked = play_game(env, [TheTraitorsHeuristicAgent(seed + s) for s in range(5)], seed, beliefs=lambda *a: None)
        assert asked["rewards"] == plain["rewards"] and asked["result"] == plain["result"]
