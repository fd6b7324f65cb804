"""The derived pieces of the Avalon observation ("evidence", "now"): computed from the public record (A06–A08,
A11) and the observer's own A03 knowledge only, checked against a hand-played quest."""

from __future__ import annotations

import numpy as np
import pytest

from traitors_env.games.avalon import actions as A
from traitors_env.games.avalon.engine import GameState, Phase
from traitors_env.games.avalon.observation import EVIDENCE_FEATURES, encode, piece
from traitors_env.games.avalon.roles import Role


@pytest.fixture
def quest_one():
    """Seed 0 deals seat 0 Merlin, 1 Assassin, 2 Minion, 3 and 4 Servants, leader 0 (A04). Seat 0 proposes
    {0, 1}; every seat approves but seat 3 (A07, A08). Returns the state at the quest (A10)."""
    state = GameState.new(seed=0)
    assert state.roles == [Role.MERLIN, Role.ASSASSIN, Role.MINION, Role.SERVANT, Role.SERVANT]
    assert state.leader == 0
    state.apply_action(A.pick_action(0))
    state.apply_action(A.pick_action(1))
    while state.phase is Phase.VOTE:
        state.apply_action(A.REJECT if state.current_player == 3 else A.APPROVE)
    assert state.phase is Phase.QUEST
    return state


def evidence(state, seat):
    rows = piece(encode(state, seat), "evidence")
    n = state.num_players
    return {other: rows[(other - seat) % n] for other in range(n)}  # by absolute seat


def test_evil_sees_votes_against_its_own_teams(quest_one):
    """A03: the Minion (seat 2) knows seats 1 and 2 are Evil; the team {0, 1} holds seat 1, so seat 3's reject
    agrees with 'the team holds Evil' (+1) and every approve disagrees (−1); the leader led one such team."""
    ev = evidence(quest_one, 2)
    assert ev[3][0] == 1.0 and all(ev[s][0] == -1.0 for s in (0, 1, 2, 4))
    assert ev[3][1] == 0.0 and ev[4][1] == 1.0  # share of approvals of teams with K
    assert ev[0][3] == pytest.approx(1 / 5) and ev[0][4] == 0.0  # proposals led with K, without
    assert np.all(np.array([ev[s][5:] for s in range(5)]) == 0)  # no quest played yet


def test_a_servant_knows_no_evil_so_every_team_is_without_k(quest_one):
    """A03: a Servant sees nobody; for it the team holds no K, so the reject disagrees and approves agree."""
    ev = evidence(quest_one, 3)
    assert ev[3][0] == -1.0 and ev[0][0] == 1.0 and ev[0][3] == 0.0 and ev[0][4] == pytest.approx(1 / 5)


def test_now_marks_the_evil_member_who_should_fail(quest_one):
    """A11: quest 1 at 5 players needs one Fail; the Assassin (seat 1) is the first known Evil member of the
    team from the leader's left, so it is marked; the Minion (off the team) sees the team holds K, not itself."""
    assert list(piece(encode(quest_one, 1), "now")) == pytest.approx([1.0, 0.2, 1.0, 1.0])
    assert list(piece(encode(quest_one, 2), "now")) == pytest.approx([1.0, 0.2, 0.0, 0.0])
    assert list(piece(encode(quest_one, 3), "now")) == pytest.approx([0.0, 0.0, 0.0, 0.0])


def test_quest_results_count_per_member(quest_one):
    """A11: after the Assassin's Fail the quest failed; both members have been on one failed quest with one Fail."""
    state = quest_one
    while state.phase is Phase.QUEST:
        state.apply_action(A.FAIL if state.current_player == 1 else A.SUCCESS)
    for seat in range(5):
        ev = evidence(state, seat)
        for member in (0, 1):
            assert ev[member][5] == 0.0 and ev[member][6] == pytest.approx(0.2) and ev[member][7] == pytest.approx(0.2)
        assert ev[3][6] == 0.0
    assert EVIDENCE_FEATURES == 8
