"""One test per ruling A01–A18 of ``docs/rules/avalon-RULINGS.md``, each named after it, on explicit positions."""

from __future__ import annotations

import copy
from collections import Counter

import numpy as np
import pytest
from avalon_helpers import AS, DEAL5, DEAL7, MD, MI, MO, OB, M, P, S, claims_none, new, propose, quest, round_, vote

from traitors_env.games.avalon import actions as A
from traitors_env.games.avalon.engine import AvalonConfig, GameState, IllegalActionError, Phase
from traitors_env.games.avalon.env import raw_env
from traitors_env.games.avalon.observation import encode, piece
from traitors_env.games.avalon.roles import EVIL, GOOD, Role, role_set, side_of_role


def rel(observer, seat, n):
    return (seat - observer) % n


# ------------------------------------------------------------------------------------------------------ setup
def test_A01_table_sizes_and_evil_counts():
    expected = {5: 2, 6: 2, 7: 3, 8: 3, 9: 3, 10: 4}
    for n, evil in expected.items():
        for seed in range(5):
            state = GameState.new(AvalonConfig(num_players=n), seed=seed)
            assert state.sides.count(EVIL) == evil and state.sides.count(GOOD) == n - evil
    for bad in (4, 11, 5.0, True):
        with pytest.raises(ValueError, match="num_players"):
            AvalonConfig(num_players=bad)


def test_A02_role_sets_default_optional_and_refused():
    assert Counter(role_set(5)) == Counter({S: 2, M: 1, AS: 1, MI: 1})  # DeepRole's variant
    assert Counter(role_set(7, percival=True, morgana=True, mordred=True)) == Counter({M: 1, P: 1, S: 2, AS: 1, MO: 1,
                                                                                        MD: 1})
    assert Counter(role_set(10, percival=True, morgana=True, mordred=True, oberon=True)) == Counter(
        {M: 1, P: 1, S: 4, AS: 1, MO: 1, MD: 1, OB: 1})
    assert Role.ASSASSIN not in role_set(5, merlin=False) and Role.MERLIN not in role_set(5, merlin=False)
    for n in (5, 6, 7, 8, 9):  # four Evil specials need four Evil players: only 10 has them
        with pytest.raises(ValueError, match="Evil"):
            AvalonConfig(num_players=n, percival=True, morgana=True, mordred=True, oberon=True)
    with pytest.raises(ValueError, match="Evil"):
        AvalonConfig(num_players=6, morgana=True, mordred=True)  # Assassin + 2 > 2 Evil at 6
    with pytest.raises(ValueError, match="Evil"):
        raw_env(num_players=5, morgana=True, oberon=True)
    with pytest.raises(ValueError, match="not a deal"):
        new(5, roles=(M, M, S, AS, MI))


def test_A03_knowledge_of_every_role():
    n = 10
    roles = (M, P, S, S, AS, MO, MD, OB, S, S)
    state = new(n, roles=roles, percival=True, morgana=True, mordred=True, oberon=True)
    merlin, percival, servant, assassin, morgana, mordred, oberon = 0, 1, 2, 4, 5, 6, 7
    assert state.known_evil(merlin) == {assassin, morgana, oberon}  # not Mordred
    assert state.merlin_candidates(percival) == {merlin, morgana} and state.known_evil(percival) == set()
    assert state.known_evil(servant) == set() and state.merlin_candidates(servant) == set()
    for evil in (assassin, morgana, mordred):  # Evil see Evil but Oberon
        assert state.known_evil(evil) == {assassin, morgana, mordred} - {evil}
    assert state.known_evil(oberon) == set()  # Oberon sees no one
    # The observation shows exactly this, in seats relative to the observer.
    for seat in range(n):
        knowledge = piece(encode(state, seat), "knowledge")
        assert {(seat + r) % n for r in np.flatnonzero(knowledge[:, 0])} == state.known_evil(seat)
        assert {(seat + r) % n for r in np.flatnonzero(knowledge[:, 1])} == state.merlin_candidates(seat)
        assert np.argmax(piece(encode(state, seat), "role")) == int(roles[seat])
    # Default game: the Minion sees the Assassin; Merlin sees both.
    five = new(5)
    assert five.known_evil(4) == {3} and five.known_evil(0) == {3, 4} and five.known_evil(1) == set()


def test_A04_roles_and_first_leader_dealt_uniformly_from_the_seed():
    merlin, leaders = Counter(), Counter()
    games = 2000
    for seed in range(games):
        state = GameState.new(AvalonConfig(num_players=5), seed=seed)
        merlin[state.merlin] += 1
        leaders[state.leader] += 1
    for counts in (merlin, leaders):  # 400 expected per seat; sd 17.9: 5 sd either side
        assert set(counts) == set(range(5)) and all(310 < c < 490 for c in counts.values()), counts
    a, b = GameState.new(AvalonConfig(num_players=8), seed=42), GameState.new(AvalonConfig(num_players=8), seed=42)
    assert a.roles == b.roles and a.leader == b.leader
    assert {GameState.new(AvalonConfig(num_players=8, first_leader=3), seed=s).leader for s in range(20)} == {3}
    with pytest.raises(ValueError, match="first_leader"):
        AvalonConfig(num_players=5, first_leader=5)


# ---------------------------------------------------------------------------------------------------- a quest
def test_A05_team_sizes_by_table():
    expected = {5: (2, 3, 2, 3, 3), 6: (2, 3, 4, 3, 4), 7: (2, 3, 3, 4, 4), 8: (3, 4, 4, 5, 5), 9: (3, 4, 4, 5, 5),
                10: (3, 4, 4, 5, 5)}
    for n, sizes in expected.items():
        state = GameState.new(AvalonConfig(num_players=n, merlin=False), seed=n)
        played = []
        while not state.is_terminal:  # every quest approved and succeeded: the proposals ask exactly the sizes
            assert state.phase is Phase.PROPOSE
            team = [(state.leader + i) % n for i in range(state.team_size)]
            for k, member in enumerate(team):
                assert state.phase is Phase.PROPOSE and len(state.team) == k
                state.apply_action(A.pick_action((member - state.leader) % n))
            played.append(len(state.proposals[-1].team))
            vote(state, True)
            quest(state)
            if state.is_terminal:
                break
        assert tuple(played) == sizes[:3] and state.team_sizes == sizes


def test_A06_proposal_one_member_per_decision_no_repeats_public_when_complete():
    state = new(5, leader=2)
    assert state.current_player == 2 and state.phase is Phase.PROPOSE
    state.apply_action(A.pick_action(1))  # seat 3; the leader need not pick itself
    assert state.current_player == 2 and state.team == [3]
    assert not state.legal_mask()[A.pick_action(1)]  # picked: not again
    with pytest.raises(IllegalActionError, match="not legal"):
        state.apply_action(A.pick_action(1))
    # While the leader picks, only the leader sees its picks.
    assert piece(encode(state, 2), "team")[1] == 1 and not piece(encode(state, 0), "team").any()
    state.apply_action(A.pick_action(2))  # seat 4: the team is complete (size 2)
    assert state.proposals[-1].team == (3, 4) and state.phase is Phase.VOTE
    for seat in range(5):
        assert set(np.flatnonzero(piece(encode(state, seat), "team"))) == {rel(seat, 3, 5), rel(seat, 4, 5)}


def test_A07_votes_simultaneous_hidden_until_the_last_is_cast():
    state = new(5, leader=0)
    propose(state, (0, 1))
    before = [encode(state, s) for s in range(5)]
    order = []
    for k in range(4):  # four of five votes cast: nobody's observation changed (the voters' included)
        order.append(state.current_player)
        state.apply_action(A.APPROVE if k % 2 else A.REJECT)
        for s in range(5):
            np.testing.assert_array_equal(piece(encode(state, s), "proposals"), piece(before[s], "proposals"))
        assert state.proposals[-1].votes is None
    assert order == [0, 1, 2, 3]  # every player in turn, from the leader
    state.apply_action(A.APPROVE)
    votes = state.proposals[-1].votes
    assert votes == (False, True, False, True, True)
    p = piece(encode(state, 2), "proposals")[0, 0]
    approve = p[2 + 20: 2 + 30]
    assert {(2 + r) % 5 for r in np.flatnonzero(approve)} == {1, 3, 4}


def test_A08_tie_rejects_strict_majority_approves():
    six = new(6, roles=(M, S, S, S, AS, MI), leader=0)
    propose(six, (0, 1))
    vote(six, {0, 1, 2})  # 3 of 6: a tie
    assert six.proposals[-1].approved is False and six.phase is Phase.PROPOSE
    propose(six, (0, 1))
    vote(six, {0, 1, 2, 3})  # 4 of 6
    assert six.proposals[-1].approved is True and six.phase is Phase.QUEST
    five = new(5)
    propose(five, (0, 1))
    vote(five, {0, 1, 2})  # 3 of 5
    assert five.proposals[-1].approved is True


def test_A09_rejection_passes_leadership_fifth_in_a_row_evil_wins():
    state = new(5, leader=3)
    for k in range(4):
        assert state.leader == (3 + k) % 5 and state.quest == 1 and state.rejections == k
        propose(state, (0, 1))
        vote(state, False)
    assert state.rejections == 4 and state.leader == 2
    propose(state, (0, 1))
    vote(state, {0, 1, 2})  # approved: the count resets
    assert state.rejections == 0
    quest(state)
    for _ in range(4):
        propose(state, (0, 1, 2))
        vote(state, False)
    assert state.rejections == 4 and not state.is_terminal
    propose(state, (0, 1, 2))
    vote(state, False)  # the fifth rejection in a row on quest 2
    assert state.is_terminal and state.outcome == "five_rejections" and state.winning_side == EVIL
    assert state.returns() == [-1.0, -1.0, -1.0, 1.0, 1.0]


def test_A10_good_members_must_play_success_evil_may_fail():
    state = new(5, leader=0)
    propose(state, (0, 3))  # Merlin and the Assassin
    vote(state, True)
    assert state.current_player == 0 and state.legal_actions() == [A.SUCCESS]
    with pytest.raises(IllegalActionError, match="not legal"):
        state.apply_action(A.FAIL)
    before = [encode(state, s) for s in range(5)]
    state.apply_action(A.SUCCESS)
    for s in (1, 2, 4):  # a card played is seen by nobody before the quest resolves
        np.testing.assert_array_equal(encode(state, s), before[s])
    assert state.current_player == 3 and state.legal_actions() == [A.SUCCESS, A.FAIL]
    state.apply_action(A.FAIL)
    assert state.quests[-1].fails == 1 and not state.quests[-1].success


def test_A11_only_the_number_of_fails_is_public_two_needed_on_quest_4_at_7_plus():
    # Who played the Fail is not observable: the Assassin (4) or a Minion (5) failing gives a Good seat the same view.
    views = []
    for failer in (4, 5):
        state = new(7)
        round_(state, (4, 5), fails=(failer,))
        assert state.quests[-1].fails == 1 and sorted(state.quests[-1].cards) == [False, True]
        assert state.events[-1] == {"kind": "quest", "quest": 1, "team": [4, 5], "fails": 1, "success": False}
        views.append([encode(state, s) for s in (0, 1, 2, 3)])
    for a, b in zip(*views):
        np.testing.assert_array_equal(a, b)
    # Quest 4 at 7 players: one Fail succeeds, two fail.
    state = new(7)
    round_(state, (1, 2))
    round_(state, (1, 2, 3))
    round_(state, (1, 2, 4), fails=(4,))
    assert state.quest == 4 and state.fails_needed() == 2
    round_(state, (0, 1, 4, 5), fails=(4,))
    assert state.quests[-1].fails == 1 and state.quests[-1].success
    state = new(7)
    round_(state, (1, 2))
    round_(state, (1, 2, 4), fails=(4,))
    round_(state, (1, 2, 3))
    round_(state, (0, 1, 4, 5), fails=(4, 5))
    assert state.quests[-1].fails == 2 and not state.quests[-1].success
    # At 6 players quest 4 fails with one Fail.
    six = new(6, roles=(M, S, S, S, AS, MI))
    round_(six, (1, 2))
    round_(six, (1, 2, 3))
    round_(six, (1, 2, 4, 5), fails=(4,))
    assert six.fails_needed() == 1
    round_(six, (0, 1, 4), fails=(4,))
    assert not six.quests[-1].success


def test_A12_leadership_passes_after_every_quest():
    state = new(5, leader=4)
    round_(state, (0, 1))  # success
    assert state.leader == 0 and state.quest == 2
    round_(state, (0, 1, 3), fails=(3,))  # failure
    assert state.leader == 1 and state.quest == 3


# ------------------------------------------------------------------------------------------------------- end
def test_A13_three_failures_evil_wins_at_once():
    state = new(5)
    round_(state, (0, 3), fails=(3,))
    round_(state, (0, 1, 3), fails=(3,))
    round_(state, (1, 2))
    round_(state, (0, 1, 4), fails=(4,))
    assert state.is_terminal and state.outcome == "three_fails" and state.winning_side == EVIL
    assert state.legal_actions() == [] and state.returns() == [-1.0, -1.0, -1.0, 1.0, 1.0]


def _three_successes(**flags):
    state = new(5, **flags)
    round_(state, (0, 1))
    round_(state, (0, 1, 2))
    round_(state, (1, 2))
    return state


def test_A14_assassination_hit_and_miss_and_no_merlin():
    state = _three_successes()
    assert state.phase is Phase.ASSASSINATE and state.current_player == 3  # the Assassin
    assert state.legal_actions() == [A.assassinate_action(o) for o in range(1, 5)]  # any seat but itself
    hit = copy.deepcopy(state)
    hit.apply_action(A.assassinate_action((0 - 3) % 5))  # Merlin
    assert hit.outcome == "merlin_assassinated" and hit.winning_side == EVIL and hit.assassin_target == 0
    miss = copy.deepcopy(state)
    miss.apply_action(A.assassinate_action((4 - 3) % 5))  # a fellow Evil: legal, and a miss
    assert miss.outcome == "merlin_survived" and miss.winning_side == GOOD
    assert miss.returns() == [1.0, 1.0, 1.0, -1.0, -1.0]
    plain = _three_successes(merlin=False, roles=(S, S, S, MI, MI))
    assert plain.is_terminal and plain.outcome == "three_successes" and plain.winning_side == GOOD


def test_A14_hindsight_answer_is_the_action_naming_merlin_at_the_assassination_only():
    from traitors_env.games.avalon.game import GAME

    state = _three_successes()
    assert GAME.hindsight_action(state, 3) == A.assassinate_action((0 - 3) % 5)  # Merlin sits at 0
    moved = _three_successes(roles=(S, M, S, AS, MI))  # Merlin at 1: the answer follows the hidden role
    assert GAME.hindsight_action(moved, 3) == A.assassinate_action((1 - 3) % 5)
    early = new(5)  # a proposal, not the assassination: no answer
    assert early.phase is Phase.PROPOSE and GAME.hindsight_action(early, early.current_player) is None
    plain = _three_successes(merlin=False, roles=(S, S, S, MI, MI))  # no Merlin: the game ended, no answer
    assert GAME.hindsight_action(plain, 3) is None


def test_A15_rewards_plus_minus_one_by_side_in_random_games_at_every_size():
    for n in range(5, 11):
        for seed in range(6):
            env = raw_env(num_players=n, claims=bool(seed % 2))
            env.reset(seed=seed)
            rng = np.random.default_rng(seed)
            total = dict.fromkeys(env.possible_agents, 0.0)
            for agent in env.agent_iter():
                observation, reward, termination, truncation, info = env.last()
                total[agent] += reward
                env.step(None if termination or truncation else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            state = env.game
            for seat, agent in enumerate(env.possible_agents):
                assert total[agent] == (1.0 if side_of_role(state.roles[seat]) == state.winning_side else -1.0)
            assert sum(total.values()) == (n - 2 * state.sides.count(EVIL)) * (1 if state.winning_side == GOOD else -1)


def test_A16_claims_off_by_default_one_public_claim_each_when_on():
    off = new(5)
    propose(off, (0, 1))
    assert off.phase is Phase.VOTE  # default: no claim round
    state = new(5, claims=True, leader=2)
    propose(state, (0, 1))
    assert state.phase is Phase.CLAIM and state.current_player == 2
    legal = state.legal_actions()
    assert A.CLAIM_NONE in legal and A.CLAIM_MERLIN in legal and A.CLAIM_PERCIVAL in legal
    assert A.claim_good_action(0) in legal and A.claim_evil_action(1) in legal
    assert A.claim_evil_action(5) not in legal and A.claim_good_action(5) not in legal  # offsets past the table
    state.apply_action(A.CLAIM_MERLIN)  # a false claim: seat 2 is a Servant; nothing checks it
    state.apply_action(A.claim_evil_action(2))  # seat 3 says seat 0 is Evil
    order = [2, 3]
    while state.phase is Phase.CLAIM:
        order.append(state.current_player)
        state.apply_action(A.CLAIM_NONE)
    assert order == [2, 3, 4, 0, 1] and state.phase is Phase.VOTE
    assert state.proposals[-1].claims[2] == A.CLAIM_MERLIN
    obs = encode(state, 1)  # everyone sees the claims, in relative seats
    assert piece(obs, "role_claims")[0, rel(1, 2, 5), 0] == 1
    assert piece(obs, "claims")[0, rel(1, 3, 5), rel(1, 0, 5), 0] == 1


def test_A17_observation_never_depends_on_roles_beyond_A03_or_on_who_failed():
    # Two deals that agree on seat 1's role (Servant) and differ elsewhere: the same decisions, the same view.
    deals = [(M, S, S, AS, MI), (S, S, M, MI, AS)]
    views = []
    for roles in deals:
        state = new(5, roles=roles, claims=True)
        propose(state, (1, 2))
        claims_none(state)
        vote(state, {0, 1, 2})
        quest(state)
        propose(state, (1, 2, 4))
        vote(state, True)
        quest(state, fails=(4,))
        views.append(encode(state, 1))
    np.testing.assert_array_equal(*views)
    # ... while Merlin's view differs between deals where Evil differs (A03 is all it learns).
    assert not np.array_equal(encode(new(5, roles=deals[0]), 0), encode(new(5, roles=(M, AS, MI, S, S)), 0))


def test_A18_deterministic_from_seed_and_actions():
    def play(seed):
        state = GameState.new(AvalonConfig(num_players=8, claims=True), seed=seed)
        rng = np.random.default_rng(seed)
        while not state.is_terminal:
            state.apply_action(int(rng.choice(state.legal_actions())))
        return state

    a, b = play(9), play(9)
    assert a.fingerprint() == b.fingerprint() and a.events == b.events
    replay = GameState.new(AvalonConfig(num_players=8, claims=True), seed=9)
    for _, action in a.history:
        replay.apply_action(action)
    assert replay.fingerprint() == a.fingerprint() and replay.result() == a.result()
    assert play(10).fingerprint() != a.fingerprint()


def test_deal_helpers_are_the_rulebook_defaults():
    assert Counter(DEAL5) == Counter(role_set(5)) and Counter(DEAL7) == Counter(role_set(7))
