"""The ``heuristic`` bot of Avalon (``AvalonLogicBot``, a DeepRole-style LogicBot): consistent worlds (A03, A11),
proposals and votes (A06–A09), Evil's Fails (A10, A11, A13), the assassination (A14), beliefs."""

from __future__ import annotations

import numpy as np
import pytest
from avalon_helpers import AS, MD, MO, OB, M, P, S, new, propose, quest, vote

from traitors_env.core.registry import load_game
from traitors_env.games.avalon import actions as A
from traitors_env.games.avalon.bots import AvalonLogicBot, ObservationView, evil_marginals, worlds
from traitors_env.games.avalon.engine import AvalonConfig, GameState, Phase
from traitors_env.games.avalon.hidden import hidden_variant
from traitors_env.games.avalon.observation import encode


def rel(seat: int, other: int, n: int = 5) -> int:
    return (other - seat) % n


def act(bot: AvalonLogicBot, state: GameState) -> int:
    seat = state.current_player
    return bot.act(encode(state, seat), state.legal_mask())


def bot_proposal(state: GameState, bot: AvalonLogicBot) -> tuple[int, ...]:
    """Let ``bot`` (the leader) pick the whole team (A06); return it."""
    while state.phase is Phase.PROPOSE:
        state.apply_action(act(bot, state))
    return state.proposals[-1].team


def two_fail_position() -> GameState:
    """A11: quest 1 of 5 players, team {3, 4} (Assassin, Minion) approved, both play Fail: 2 Fails."""
    state = new(5, leader=0)
    propose(state, [3, 4])
    vote(state, True)
    quest(state, fails={3, 4})
    assert state.quests[-1].fails == 2 and state.leader == 1
    return state


def test_A11_two_fails_force_both_members_evil_in_every_consistent_world():
    state = two_fail_position()
    view = ObservationView(encode(state, 1))  # a Servant: A03 tells it nothing
    w, weights = worlds(view)
    assert len(w) == 1 and w[0, rel(1, 3)] and w[0, rel(1, 4)] and w[0].sum() == 2
    beliefs = AvalonLogicBot(seed=0).beliefs(encode(state, 1))
    assert beliefs[rel(1, 3)] == 1.0 and beliefs[rel(1, 4)] == 1.0
    assert beliefs[rel(1, 0)] == 0.0 and beliefs[rel(1, 2)] == 0.0
    assert np.isnan(beliefs[0]) and np.all(np.isnan(beliefs[5:]))


def test_A11_one_fail_leaves_either_member_evil():
    state = new(5, leader=0)
    propose(state, [1, 3])
    vote(state, True)
    quest(state, fails={3})
    view = ObservationView(encode(state, 2))  # a Servant off the team
    w, _ = worlds(view)
    assert w[:, [rel(2, 1), rel(2, 3)]].any(axis=1).all()  # at least one of 1, 3 Evil in every world
    assert not w[:, 0].any()  # never me (A03: I know I am Good)
    p = evil_marginals(worlds(view, success_weight=1.0))
    assert 0.0 < p[rel(2, 1)] < 1.0 and 0.0 < p[rel(2, 3)] < 1.0


@pytest.mark.parametrize("seed", range(5))
def test_A06_good_never_proposes_a_seat_that_must_be_evil(seed):
    state = two_fail_position()  # Servant 1 leads quest 2 (size 3): 3 and 4 must be Evil
    team = bot_proposal(state, AvalonLogicBot(seed=seed))
    assert set(team) == {0, 1, 2}


def test_A06_good_leader_puts_itself_on_the_team():
    """A06: a Servant leading quest 1 rates a team of two with itself 1/2 likely to hold Evil, one without 5/6."""
    for seed in range(5):
        state = new(5, leader=1, seed=seed)
        assert 1 in bot_proposal(state, AvalonLogicBot(seed=seed))


def test_A07_good_rejects_a_team_with_a_seat_that_must_be_evil_until_the_fifth_proposal():
    state = two_fail_position()
    propose(state, [1, 2, 3])  # 3 must be Evil
    bot = AvalonLogicBot(seed=0)
    assert state.current_player == 1
    assert act(bot, state) == A.REJECT
    state.apply_action(A.REJECT)
    assert act(bot, state) == A.REJECT  # Servant 2, not the leader
    # A09: on the fifth proposal Good approves whatever is proposed (a fifth rejection loses).
    state = two_fail_position()
    for _ in range(4):
        propose(state, [2, 3, 4])
        vote(state, False)
    assert state.rejections == 4
    propose(state, [2, 3, 4])
    while state.current_player != 2:
        state.apply_action(A.REJECT)
    assert act(bot, state) == A.APPROVE


def test_A07_good_approves_a_clean_team():
    state = two_fail_position()
    propose(state, [0, 1, 2])
    state.apply_action(A.APPROVE)  # leader 1
    assert state.current_player == 2 and act(AvalonLogicBot(seed=0), state) == A.APPROVE


def test_A07_evil_approves_teams_with_evil_and_rejects_clean_ones():
    state = new(5, leader=0)
    propose(state, [0, 4])  # Minion 4 on it
    bot = AvalonLogicBot(seed=0)
    for _ in range(3):
        state.apply_action(A.APPROVE)
    assert state.current_player == 3 and act(bot, state) == A.APPROVE  # the Assassin sees the Minion (A03)
    state = new(5, leader=0)
    propose(state, [0, 1])
    for _ in range(3):
        state.apply_action(A.APPROVE)
    assert act(bot, state) == A.REJECT


def test_A03_merlin_beliefs_are_zero_or_one():
    bot = AvalonLogicBot(seed=0)
    for seed in range(10):
        state = GameState.new(AvalonConfig(num_players=5), seed=seed)
        merlin = state.merlin
        beliefs = bot.beliefs(encode(state, merlin))
        for r in range(1, 5):
            assert beliefs[r] == float(state.is_evil((merlin + r) % 5))


def test_A03_evil_beliefs_are_known_without_oberon_and_spread_with_him():
    state = new(5)  # DEAL5: the Assassin 3 sees the Minion 4
    beliefs = AvalonLogicBot(seed=0).beliefs(encode(state, 3))
    assert beliefs[rel(3, 4)] == 1.0 and all(beliefs[rel(3, s)] == 0.0 for s in (0, 1, 2))
    # 10 players, every role (A02): Evil but Oberon sees Evil but Oberon; Oberon is one of the 6 unseen others.
    roles = (M, P, S, S, S, S, AS, MO, MD, OB)
    state = GameState.new(AvalonConfig(num_players=10, percival=True, morgana=True, mordred=True, oberon=True,
                                       first_leader=0), seed=0, roles=roles)
    beliefs = AvalonLogicBot(seed=0).beliefs(encode(state, 6))
    for other in (7, 8):
        assert beliefs[rel(6, other, 10)] == 1.0
    unseen = [beliefs[rel(6, s, 10)] for s in range(6)] + [beliefs[rel(6, 9, 10)]]
    assert np.allclose(unseen, 1 / 7) and np.isclose(np.nansum(beliefs), 3.0)


def test_A03_percival_with_morgana_splits_his_two_candidates():
    roles = (M, P, S, AS, MO)
    state = GameState.new(AvalonConfig(num_players=5, percival=True, morgana=True, first_leader=0), seed=0, roles=roles)
    beliefs = AvalonLogicBot(seed=0).beliefs(encode(state, 1))
    assert beliefs[rel(1, 0)] == pytest.approx(0.5) and beliefs[rel(1, 4)] == pytest.approx(0.5)
    assert np.isclose(np.nansum(beliefs), 2.0)


def test_A11_two_evil_members_play_one_fail():
    """Of the known Evil on a team only as many as the quest needs fail, so two Fails never expose both."""
    for seed in range(10):
        state = new(5, leader=0, seed=seed)
        propose(state, [0, 1])
        vote(state, True)
        quest(state)  # quest 1 succeeds
        propose(state, [2, 3, 4])  # leader 1; both Evil on it
        vote(state, True)
        bots = {3: AvalonLogicBot(seed=seed), 4: AvalonLogicBot(seed=seed + 100)}
        cards = []
        while state.phase is Phase.QUEST:
            seat = state.current_player
            action = act(bots[seat], state) if seat in bots else A.SUCCESS
            cards.append(action)
            state.apply_action(action)
        assert cards.count(A.FAIL) == 1


def test_A13_evil_always_plays_the_third_fail():
    for seed in range(10):
        state = new(5, leader=0, seed=seed)
        for team in ([3, 0], [4, 0, 1]):
            propose(state, team)
            vote(state, True)
            quest(state, fails=set(team) & {3, 4})
        assert state.failures == 2
        propose(state, [3, 1])
        vote(state, True)
        assert state.current_player == 1
        state.apply_action(A.SUCCESS)
        assert act(AvalonLogicBot(seed=seed), state) == A.FAIL


def test_A10_evil_sometimes_passes_quest_one_of_two():
    """Quest 1 with two members: a Fail exposes the Evil member to its Good partner; EARLY_FAIL = 0.5 (seeded)."""
    actions = set()
    for seed in range(20):
        state = new(5, leader=0)
        propose(state, [0, 3])
        vote(state, True)
        state.apply_action(A.SUCCESS)
        actions.add(act(AvalonLogicBot(seed=seed), state))
    assert actions == {A.FAIL, A.SUCCESS}


def test_A14_assassin_names_the_seat_whose_votes_matched_the_truth():
    """Merlin (0) rejects the teams with Evil and approves the clean one; the Servants approve everything."""
    state = new(5, leader=1)
    propose(state, [1, 3])
    vote(state, {1, 2, 3, 4})
    quest(state)
    propose(state, [1, 2, 4])
    vote(state, {1, 2, 3, 4})
    quest(state)
    propose(state, [0, 1])
    vote(state, True)
    quest(state)
    assert state.phase is Phase.ASSASSINATE and state.current_player == 3
    assert act(AvalonLogicBot(seed=0), state) == A.assassinate_action(rel(3, 0))


def test_the_heuristic_reads_only_its_observation():
    """Like the conformance secrets test: redrawn secrets (roles beyond A03, who played a Fail) give the same
    observation, and the same bot (same seed) then takes the same action."""
    rng = np.random.default_rng(0)
    checked = 0
    for seed in range(6):
        state = GameState.new(AvalonConfig(num_players=5), seed=seed)
        bots = [AvalonLogicBot(seed=seed * 10 + i) for i in range(5)]
        while not state.is_terminal:
            seat = state.current_player
            other = hidden_variant(state, seat, rng)
            obs, obs_other = encode(state, seat), encode(other, seat)
            assert np.array_equal(obs, obs_other)
            twin = AvalonLogicBot(seed=0)
            twin._rng.bit_generator.state = bots[seat]._rng.bit_generator.state
            action = bots[seat].act(obs, state.legal_mask())
            assert twin.act(obs_other, other.legal_mask()) == action
            state.apply_action(action)
            checked += 1
    assert checked > 50


def test_same_seed_same_game():
    def play(seed):
        state = GameState.new(AvalonConfig(num_players=7), seed=seed)
        bots = [AvalonLogicBot(seed=seed * 10 + i) for i in range(7)]
        while not state.is_terminal:
            state.apply_action(act(bots[state.current_player], state))
        return state.fingerprint()

    assert play(3) == play(3)


def test_beliefs_do_not_draw_from_the_generator():
    state = new(5)
    bot = AvalonLogicBot(seed=0)
    before = bot._rng.bit_generator.state
    bot.beliefs(encode(state, 1))
    assert bot._rng.bit_generator.state == before


def test_game_declares_hidden_side_progress_and_the_heuristic():
    game = load_game("avalon")
    assert game.hidden_side == 1 and game.belief_size == 10  # Evil (A03)
    assert game.bots["heuristic"] is AvalonLogicBot
    state = new(5)
    assert game.progress(state) == 0.0
    propose(state, [0, 1])
    vote(state, False)  # A09: one rejection
    mid = game.progress(state)
    assert 0.0 < mid < 0.2
    propose(state, [1, 2])
    vote(state, True)
    quest(state)
    assert game.progress(state) == pytest.approx(0.2)
