"""Every ruling T01–T16 of The Traitors (``docs/rules/the-traitors-RULINGS.md``), from explicit positions.

Each test names the ruling it checks. Chance is fixed by :data:`the_traitors_helpers.CERTAIN`
unless the ruling is about chance; then the test checks the distribution over seeds.
"""

from __future__ import annotations

import numpy as np
import pytest
from the_traitors_helpers import (
    TABLE_SIZES,
    after_phase,
    murder_by,
    play,
    position,
    votes_by,
)

from traitors_env import the_traitors_v0
from traitors_env.games.the_traitors import actions as A
from traitors_env.games.the_traitors.cards import FinalOutcome, RewardCard, Role
from traitors_env.games.the_traitors.engine import GameConfig, GameState, Phase, PositionError
from traitors_env.games.the_traitors.observation import encode, piece

SHIELD, DAGGER, GOLD_1, GOLD_2 = RewardCard.SHIELD, RewardCard.DAGGER, RewardCard.GOLD_1, RewardCard.GOLD_2


# ---------------------------------------------------------------- setup
@pytest.mark.parametrize("num_players", TABLE_SIZES)
def test_T01_three_to_six_players(num_players):
    env = the_traitors_v0.raw_env(num_players=num_players)
    env.reset(seed=0)
    assert env.possible_agents == [f"player_{i}" for i in range(num_players)]


@pytest.mark.parametrize("bad", [2, 7, 0, True, 5.0, "5", None])
def test_T01_other_table_sizes_are_refused(bad):
    with pytest.raises(ValueError, match="3 to 6 players"):
        GameConfig(num_players=bad)


def test_T01_default_is_five_players():
    assert the_traitors_v0.raw_env().possible_agents == [f"player_{i}" for i in range(5)]


@pytest.mark.parametrize("num_players", TABLE_SIZES)
def test_T02_exactly_one_traitor_dealt_uniformly(num_players):
    seats = [GameState.new(GameConfig(num_players=num_players), seed=seed).traitor for seed in range(600)]
    for seed in range(5):
        roles = GameState.new(GameConfig(num_players=num_players), seed=seed).roles
        assert roles.count(Role.TRAITOR) == 1
    counts = np.bincount(seats, minlength=num_players)
    assert counts.min() > 600 / num_players * 0.6, counts  # every seat is Traitor about 1/n of the time


def test_T02_a_player_knows_only_their_own_role():
    state = position(5, traitor=2)
    for seat in range(5):
        role = piece(encode(state, seat), "role")
        assert role.tolist() == ([0, 1] if seat == 2 else [1, 0])


def test_T03_everyone_starts_with_8_gold_and_an_empty_pot():
    state = GameState.new(GameConfig(num_players=4, mission_gold=(0, 0)), seed=3)
    assert state.gold == [8] * 4 and state.pot == 0


def test_T03_a_banished_player_loses_only_what_they_hold():
    state = position(4, traitor=3, gold=[1, 8, 8, 8])
    play(state, votes_by({1: 0, 2: 0, 3: 0}), until=after_phase(Phase.NIGHT))
    assert state.gold[0] == 0 and state.banished[0] == {0: 1}


def test_T03_gold_never_goes_below_zero():
    state = position(4, traitor=3, gold=[0, 8, 8, 8])
    play(state, votes_by({1: 0, 2: 0, 3: 0}), until=after_phase(Phase.NIGHT))
    assert state.gold[0] == 0 and state.banished[0] == {0: 0}  # banished, but nothing to lose


def test_T03_a_murdered_player_with_one_gold_loses_one():
    state = position(4, traitor=3, gold=[8, 1, 8, 8], deck=[GOLD_1] * 3)
    play(state, murder_by(1), until=after_phase(Phase.MISSION, 2))
    assert state.night[0] == (1, False)
    # round 1's Round Table: everyone named their next seat (a tie), so seat 1 lost 1 there too
    assert state.gold[1] == 0


def test_T04_reward_deck_of_twelve_shuffled():
    decks = {tuple(GameState.new(seed=seed).deck) for seed in range(20)}
    for deck in decks:
        assert sorted(deck) == [SHIELD] * 3 + [DAGGER] * 3 + [GOLD_1] * 3 + [GOLD_2] * 3
    assert len(decks) > 15  # shuffled differently per seed


# ---------------------------------------------------------------- a round
def test_T05_mission_gold_uniform_in_range_and_public():
    draws = [GameState.new(seed=seed).mission_gold[0] for seed in range(700)]
    counts = np.bincount(draws, minlength=7)
    assert len(counts) == 7 and counts.min() > 60, counts  # 0–6, each about 100 of 700
    state = GameState.new(GameConfig(num_players=5, mission_gold=(3, 3)), seed=0)
    assert state.pot == 3
    for seat in range(5):
        observation = encode(state, seat)
        assert piece(observation, "mission_gold")[0] == 3 and piece(observation, "prize_pot")[0] == 3
    play(state, until=after_phase(Phase.MISSION, 2))
    assert state.pot == 6


def test_T06_only_the_traitor_may_attempt():
    state = position(5, traitor=2)
    while state.phase is Phase.MISSION:
        expected = [A.NO_ATTEMPT, A.ATTEMPT] if state.current_player == 2 else [A.NO_ATTEMPT]
        assert state.legal_actions() == expected
        state.apply_action(A.NO_ATTEMPT)


def test_T06_an_attempt_succeeds_with_its_probability():
    successes = 0
    for seed in range(400):
        state = GameState.from_position(4, 0, config=GameConfig(num_players=4, claims=False), seed=seed)
        play(state, murder_by(None), until=after_phase(Phase.VOTE))
        successes += state.succeeded[0]
    assert 0.68 < successes / 400 < 0.82  # 0.75 (T06)


def test_T06_only_the_traitor_learns_the_result():
    state = position(5, traitor=2)
    play(state, murder_by(None), until=after_phase(Phase.VOTE))
    assert state.succeeded[0]
    assert piece(encode(state, 2), "own_assignment").tolist() == [1, 1]
    for seat in (0, 1, 3, 4):
        assert piece(encode(state, seat), "own_assignment").tolist() == [0, 0]


def test_T07_signals_follow_role_and_attempt():
    # CERTAIN: Faithful never suspicious, the Traitor suspicious exactly when attempting
    for attempt in (True, False):
        state = position(5, traitor=1)
        play(state, murder_by(None, attempt=attempt), until=after_phase(Phase.VOTE))
        assert state.signals[0] == [False, attempt, False, False, False]


def test_T07_signal_probabilities():
    faithful, idle, attempting = [], [], []
    for seed in range(500):
        for attempt in (True, False):
            state = GameState.from_position(5, 0, config=GameConfig(num_players=5, claims=False), seed=seed)
            play(state, murder_by(None, attempt=attempt), until=after_phase(Phase.VOTE))
            faithful += state.signals[0][1:]
            (attempting if attempt else idle).append(state.signals[0][0])
    assert 0.17 < np.mean(faithful) < 0.23
    assert 0.15 < np.mean(idle) < 0.25
    assert 0.44 < np.mean(attempting) < 0.56


def test_T07_signals_are_public():
    state = position(5, traitor=1)
    play(state, murder_by(None), until=after_phase(Phase.VOTE))
    for seat in range(5):
        signals = piece(encode(state, seat), "signals")[0]
        suspicious_rel = int(np.flatnonzero(signals[:, 0])[0])
        assert (seat + suspicious_rel) % 5 == 1


@pytest.mark.parametrize("num_players", TABLE_SIZES)
def test_T08_claims_in_seat_order_from_the_rounds_first_seat(num_players):
    state = position(num_players, traitor=0, claims=True)
    for r in range(1, 5):
        play(state, until=after_phase(Phase.CLAIM, r))
        order = []
        while state.phase is Phase.CLAIM:
            order.append(state.current_player)
            state.apply_action(A.CLAIM_NONE)
        first = (r - 1) % num_players
        assert order == [(first + i) % num_players for i in range(num_players)]


def test_T08_claim_choices_and_publicity():
    state = position(4, traitor=3, claims=True)
    play(state, until=after_phase(Phase.CLAIM))
    assert state.legal_actions() == [A.CLAIM_NONE, 3, 4, 5, 8, 9, 10, 11]
    state.apply_action(A.claim_suspect_action(2))  # seat 0: "I suspect player_2"
    state.apply_action(A.claim_faithful_action(0))  # seat 1: "I am Faithful"
    for seat in range(4):
        claims = piece(encode(state, seat), "claims")[0]
        assert claims[(0 - seat) % 4, 1 + (2 - seat) % 4] == 1  # suspect column of player_2
        assert claims[(1 - seat) % 4, 7 + (1 - seat) % 4] == 1  # faithful column of player_1


def test_T08_claims_off_goes_straight_to_the_vote():
    state = position(4, traitor=3, claims=False)
    play(state, until=lambda s: s.phase is not Phase.MISSION)
    assert state.phase is Phase.VOTE


def test_T09_most_votes_lose_two():
    state = position(5, traitor=4)
    play(state, votes_by({0: 1, 1: 2, 2: 1, 3: 1, 4: 0}), until=after_phase(Phase.NIGHT))
    assert state.banished[0] == {1: 2} and state.gold == [8, 6, 8, 8, 8]


def test_T09_a_tie_for_most_votes_loses_one_each():
    state = position(5, traitor=4)
    play(state, votes_by({0: 1, 1: 2, 2: 1, 3: 2, 4: 0}), until=after_phase(Phase.NIGHT))
    assert state.banished[0] == {1: 1, 2: 1} and state.gold == [8, 7, 7, 8, 8]


def test_T09_a_dagger_vote_counts_twice_and_is_used_up():
    state = position(5, traitor=4, hands=[(0, 1), (0, 0), (0, 0), (0, 0), (0, 0)])
    play(state, until=after_phase(Phase.VOTE))
    assert A.vote_action(1, dagger=True) in state.legal_actions()  # seat 0 holds a Dagger
    play(state, votes_by({0: (3, True), 1: 2, 2: 1, 3: 2, 4: 1}), until=after_phase(Phase.NIGHT))
    # player_3: 2 (Dagger); player_2: 2; player_1: 2 -> a three-way tie
    assert state.banished[0] == {1: 1, 2: 1, 3: 1}
    assert state.hands[0] == [0, 0] and state.daggers_shown[0] == 1
    assert state.votes[0][0] == (3, True)


def test_T09_a_dagger_vote_alone_beats_a_single_vote():
    state = position(3, traitor=2, hands=[(0, 1), (0, 0), (0, 0)])
    play(state, votes_by({0: (1, True), 1: 2, 2: 0}), until=after_phase(Phase.NIGHT))
    assert state.banished[0] == {1: 2}


def test_T09_dagger_only_with_a_dagger_and_no_vote_for_oneself():
    state = position(4, traitor=3)
    play(state, until=after_phase(Phase.VOTE))
    assert state.legal_actions() == [A.vote_action(o) for o in (1, 2, 3)]


def test_T09_votes_are_revealed_together():
    state = position(5, traitor=4)
    play(state, until=after_phase(Phase.VOTE))
    while state.phase is Phase.VOTE:
        for seat in range(5):
            assert not piece(encode(state, seat), "votes").any()  # before the last vote, no vote shows
        state.apply_action(A.vote_action(2))
    for seat in range(5):
        votes = piece(encode(state, seat), "votes")[0]
        assert votes.sum() == 5 and all(votes[rel, (rel + 2) % 5] == 1 for rel in range(5))


def test_T10_a_murdered_player_sits_out_the_next_round_table():
    state = position(5, traitor=4, claims=True)
    play(state, murder_by(2), until=after_phase(Phase.CLAIM, 2))
    assert not state.takes_part(2)
    claimers = []
    while state.phase is Phase.CLAIM:
        claimers.append(state.current_player)
        state.apply_action(A.CLAIM_NONE)
    voters = []
    while state.phase is Phase.VOTE:
        voters.append(state.current_player)
        state.apply_action(A.vote_action((2 - state.current_player) % 5))  # everyone names player_2
    assert claimers == voters == [1, 3, 4, 0]
    assert 2 in state.banished[1]  # can still be voted for
    assert state.takes_part(2)  # only the next Round Table
    # still asked at the Night (blindfold: everyone is asked)
    night = []
    while state.phase is Phase.NIGHT:
        night.append(state.current_player)
        state.apply_action(A.NO_MURDER)
    assert sorted(night) == [0, 1, 2, 3, 4]


def test_T11_one_armoury_winner_draws_the_top_card():
    winners = []
    for seed in range(300):
        state = position(5, traitor=4, seed=seed, deck=[GOLD_2, SHIELD, DAGGER])
        play(state, until=after_phase(Phase.NIGHT))
        assert len(state.armoury[0]) == 1
        seat, card = state.armoury[0][0]
        assert card == GOLD_2 and state.deck == [DAGGER, SHIELD]
        winners.append(seat)
    assert np.bincount(winners, minlength=5).min() > 35  # uniform over 5 seats


def test_T11_a_gold_card_is_applied_at_once_a_shield_is_kept_secretly():
    state = position(5, traitor=4, deck=[GOLD_1, SHIELD])
    play(state, until=after_phase(Phase.NIGHT))
    seat = state.armoury[0][0][0]
    assert state.gold[seat] == 8 + 1 - state.banished[0].get(seat, 0)
    play(state, until=after_phase(Phase.NIGHT, 2))
    seat2 = state.armoury[1][0][0]
    assert state.hands[seat2] == [1, 0]
    for observer in range(5):
        row = piece(encode(state, observer), "armoury")[1, (seat2 - observer) % 5]
        assert row.tolist() == [1, 0, 0, 0]  # public: "a secret card", not which


def test_T11_with_the_deck_empty_nothing_is_drawn():
    state = position(5, traitor=4, deck=[])
    play(state, until=after_phase(Phase.NIGHT))
    assert state.armoury[0][0][1] == -1 and state.hands == [[0, 0]] * 5


def test_T11_independent_armoury_every_winner_draws():
    counts = []
    for seed in range(300):
        state = position(4, traitor=3, seed=seed, options=dict(armoury="independent"))
        play(state, until=after_phase(Phase.NIGHT))
        counts.append(len(state.armoury[0]))
        assert len(state.deck) == 12 - len(state.armoury[0])
    assert 0.85 < np.mean(counts) < 1.15 and max(counts) >= 2 and min(counts) == 0


def test_T12_murder_only_after_a_successful_assignment():
    state = position(5, traitor=4, options=dict(assignment_success=0.0))
    play(state, murder_by(None), until=after_phase(Phase.NIGHT))
    while state.phase is Phase.NIGHT:
        assert state.legal_actions() == [A.NO_MURDER]
        state.apply_action(A.NO_MURDER)
    state = position(5, traitor=4)
    play(state, murder_by(None), until=lambda s: s.phase is Phase.NIGHT and s.current_player == 4)
    assert state.legal_actions() == [A.NO_MURDER] + [A.murder_action(o) for o in range(5)]


def test_T12_the_victim_loses_two_and_the_murder_is_public():
    state = position(5, traitor=4, deck=[GOLD_1] * 3)
    play(state, murder_by(0), until=after_phase(Phase.MISSION, 2))
    assert state.night[0] == (0, False) and state.murders == 1
    assert state.gold[0] == 8 - state.banished[0].get(0, 0) + (state.armoury[0][0][0] == 0) - 2
    for seat in range(5):
        night = piece(encode(state, seat), "night")[0]
        assert night[(0 - seat) % 5] == 1 and night[6] == 0


def test_T12_a_shield_saves_the_victim():
    state = position(5, traitor=4, hands=[(1, 0), (0, 0), (0, 0), (0, 0), (0, 0)], deck=[])
    gold_before_night = None

    def until(s):
        nonlocal gold_before_night
        if s.phase is Phase.NIGHT and gold_before_night is None:
            gold_before_night = list(s.gold)
        return s.phase is Phase.MISSION and s.round == 2

    play(state, murder_by(0), until=until)
    assert state.night[0] == (0, True) and state.murders == 0
    assert state.hands[0] == [0, 0] and state.shields_shown[0] == 1
    assert state.gold == gold_before_night
    assert state.takes_part(0)


def test_T12_the_traitor_may_murder_themselves_for_nothing():
    state = position(5, traitor=4, deck=[])
    play(state, murder_by(4), until=after_phase(Phase.MISSION, 2))
    assert state.night[0] == (4, False) and state.murders == 0 and not state.takes_part(4)


def test_T12_the_murderer_is_not_shown():
    # The Night's public record names the victim only; observations of a Faithful are the same
    # whichever other player is the Traitor who murdered (see also the secrets tests).
    a = position(5, traitor=3, deck=[])
    b = position(5, traitor=4, deck=[])
    play(a, murder_by(1), until=after_phase(Phase.MISSION, 2))
    play(b, murder_by(1), until=after_phase(Phase.MISSION, 2))
    a.signals = list(b.signals)  # the signals are chance, drawn by role: make them alike
    assert np.array_equal(encode(a, 0), encode(b, 0))


# ---------------------------------------------------------------- End Game and Final
def test_T13_faithful_score_two_per_vote_for_the_traitor_four_with_a_dagger():
    votes = [(1, 0, 4, False), (2, 0, 4, True), (1, 1, 4, False), (1, 2, 3, False), (3, 4, 0, False)]
    state = position(5, traitor=4, round=5, votes=votes)
    assert state.end_game_gold == [6, 2, 0, 0, 0]
    assert state.gold == [14, 10, 8, 8, 8]
    assert state.from_bank == 8


def test_T13_traitor_scores_two_per_unprevented_murder():
    state = position(5, traitor=4, round=5, murders=2)
    assert state.end_game_gold == [0, 0, 0, 0, 4] and state.gold[4] == 12


def test_T13_murders_counted_by_play():
    # murder of another (counts), self-murder (does not), shielded murder (does not)
    state = position(5, traitor=4, hands=[(0, 0), (1, 0), (0, 0), (0, 0), (0, 0)], deck=[])
    victims = iter([0, 4, 1, None])

    def choose(s):
        if s.phase is Phase.MISSION and s.current_player == 4:
            return A.ATTEMPT
        if s.phase is Phase.NIGHT and s.current_player == 4:
            victim = next(victims)
            return A.NO_MURDER if victim is None else A.murder_action((victim - 4) % 5)
        return None

    play(state, choose, until=after_phase(Phase.STATEMENT))
    assert [n for n in state.night] == [(0, False), (4, False), (1, True), (-1, False)]
    assert state.murders == 1 and state.end_game_gold[4] == 2


def test_T14_the_two_richest_are_finalists():
    state = position(5, traitor=0, round=5, gold=[3, 9, 4, 12, 5])
    assert state.finalists == (3, 1) and state.third == 4


def test_T14_ties_are_broken_by_the_seeded_spinning_dagger():
    seen_second, seen_third = set(), set()
    for seed in range(200):
        state = position(5, traitor=0, round=5, gold=[3, 9, 9, 12, 9], seed=seed)
        assert state.finalists[0] == 3 and state.finalists[1] in (1, 2, 4)
        assert state.third in (1, 2, 4) and state.third != state.finalists[1]
        seen_second.add(state.finalists[1])
        seen_third.add(state.third)
        again = position(5, traitor=0, round=5, gold=[3, 9, 9, 12, 9], seed=seed)
        assert (again.finalists, again.third) == (state.finalists, state.third)  # seeded
    assert seen_second == seen_third == {1, 2, 4}


def final(choices, statements=(A.STATEMENT_NONE, A.STATEMENT_NONE), **kwargs):
    state = position(4, traitor=0, round=5, gold=[3, 10, 6, 8], pot=12, **kwargs)
    assert state.finalists == (1, 3) and state.third == 2
    answers = iter(list(statements) + list(choices))

    def choose(s):
        if s.phase is Phase.STATEMENT:
            return A.statement_action(next(answers))
        return A.write_action(bool(next(answers)))

    return play(state, choose)


def test_T15_both_faithful_share_the_pot():
    state = final((0, 0))
    assert state.outcome is FinalOutcome.BOTH_FAITHFUL
    assert state.winners == [False, True, False, True] and state.scores == [0.0, 15.0, 0.0, 15.0]


def test_T15_one_traitor_takes_the_pot():
    state = final((0, 1))
    assert state.outcome is FinalOutcome.ONE_TRAITOR
    assert state.winners == [False, False, False, True] and state.scores[3] == 20.0
    state = final((1, 0))
    assert state.winners == [False, True, False, False] and state.scores[1] == 22.0


def test_T15_both_traitor_the_third_wins():
    state = final((1, 1))
    assert state.outcome is FinalOutcome.BOTH_TRAITOR
    assert state.winners == [False, False, True, False] and state.scores[2] == 18.0


def test_T15_statements_are_public_choices_secret_until_both_are_made():
    state = position(4, traitor=0, round=5, gold=[3, 10, 6, 8], pot=12)
    assert state.current_player == 1 and state.legal_actions() == [31, 32, 33]
    state.apply_action(A.statement_action(A.STATEMENT_TRAITOR))
    for seat in range(4):
        row = piece(encode(state, seat), "seats")[(1 - seat) % 4]
        assert row[13] == 1  # 'statement: "I will write Traitor"'
    state.apply_action(A.statement_action(A.STATEMENT_FAITHFUL))
    assert state.phase is Phase.FINAL and state.legal_actions() == [34, 35]
    before = [encode(state, seat) for seat in range(4)]
    other = position(4, traitor=0, round=5, gold=[3, 10, 6, 8], pot=12)
    play(other, lambda s: A.statement_action(2 if s.current_player == 1 else 1), until=after_phase(Phase.FINAL))
    state.apply_action(A.write_action(True))
    other.apply_action(A.write_action(False))
    for seat in range(4):  # the first finalist's choice shows nowhere before the second makes theirs
        assert np.array_equal(encode(state, seat), encode(other, seat))
    assert np.array_equal(before[0], encode(state, 0))
    state.apply_action(A.write_action(True))
    for seat in range(4):
        row = piece(encode(state, seat), "seats")[(1 - seat) % 4]
        assert row[15] == 1  # revealed at the end: player_1 wrote Traitor


def test_T16_rewards_plus_one_to_each_winner_at_the_end_only():
    env = the_traitors_v0.raw_env(num_players=4)
    env.reset(seed=5)
    while not env.game.is_terminal:
        assert all(r == 0 for r in env.rewards.values())
        env.step(env.game.legal_actions()[0])
    rewards = [env.rewards[a] for a in env.possible_agents]
    assert rewards == [1.0 if w else 0.0 for w in env.game.winners] and sum(rewards) >= 1


def test_T16_score_rewards_are_configurable():
    state = final((0, 1), options=dict(reward="score"))
    assert state.returns() == [0.0, 0.0, 0.0, 20.0]
    assert final((0, 1)).returns() == [0.0, 0.0, 0.0, 1.0]


def test_positions_are_checked():
    with pytest.raises(PositionError, match="traitor"):
        GameState.from_position(5, 5)
    with pytest.raises(PositionError, match="round"):
        GameState.from_position(5, 0, round=6)
    with pytest.raises(PositionError, match="gold"):
        GameState.from_position(5, 0, gold=[8, 8, 8, 8, -1])
    with pytest.raises(PositionError, match="SHIELD"):
        GameState.from_position(5, 0, hands=[(2, 0), (2, 0), (0, 0), (0, 0), (0, 0)], deck=[])
    with pytest.raises(PositionError, match="themselves"):
        GameState.from_position(5, 0, round=2, votes=[(1, 1, 1, False)])
