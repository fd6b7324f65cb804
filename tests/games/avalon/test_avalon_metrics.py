"""Avalon's hidden-role metrics (``GAME.metrics``) on hand-made games (A06–A14)."""

from __future__ import annotations

from collections import Counter

import pytest
from avalon_helpers import new, propose, quest, vote

from traitors_env.core.registry import load_game
from traitors_env.evaluation.metrics import summarize
from traitors_env.games.avalon import actions as A
from traitors_env.games.avalon import metrics
from traitors_env.games.avalon.engine import Phase


def hand_made_game():
    """5 players, DEAL5 (Merlin 0, Servants 1–2, Assassin 3, Minion 4), first leader 1.

    P1 q1 leader 1 [1, 3]: 0 rejects, the rest approve; 3 fails (q1 fails, A11).
    P2 q2 leader 2 [0, 1, 2]: 0, 1, 2 approve (3 of 5, A08); success.
    P3 q3 leader 3 [3, 4]: only 3, 4 approve: rejected (A09).
    P4 q3 leader 4 [0, 4]: all approve; 4 plays Success; success.
    P5 q4 leader 0 [0, 1, 2]: all approve; success: three successes, the Assassin names seat 1 (A14): Good wins.
    """
    state = new(5, leader=1)
    propose(state, [1, 3])
    vote(state, {1, 2, 3, 4})
    quest(state, fails={3})
    propose(state, [0, 1, 2])
    vote(state, {0, 1, 2})
    quest(state)
    propose(state, [3, 4])
    vote(state, {3, 4})
    propose(state, [0, 4])
    vote(state, True)
    quest(state)
    propose(state, [0, 1, 2])
    vote(state, True)
    quest(state)
    assert state.phase is Phase.ASSASSINATE and state.current_player == 3
    state.apply_action(A.assassinate_action((1 - 3) % 5))
    assert state.outcome == "merlin_survived"
    return state


def test_tally_of_a_hand_made_game():
    tally = metrics.tally_state(hand_made_game(), seed=0)
    good, evil = tally["good"], tally["evil"]
    assert good["games"] == evil["games"] == 1 and good["wins"] == 1 and evil["wins"] == 0
    assert (good["proposed"], good["proposed_clean"]) == (3, 2)  # P1, P2, P5 led by Good; P2, P5 clean (A06)
    assert (good["approved"], good["approved_clean"]) == (4, 2)  # P1, P2, P4, P5 approved (A08)
    assert (good["votes"], good["votes_right"]) == (15, 10)  # 3 Good voters × 5 proposals (A07)
    assert (good["votes_on_evil"], good["rejected_evil"]) == (9, 4)  # P1, P3, P4
    assert (evil["cards"], evil["fails"]) == (2, 1)  # the Assassin's Fail on q1, the Minion's Success on q3 (A10)
    assert (evil["cards_q1"], evil["fails_q1"], evil["cards_q3"], evil["fails_q3"]) == (1, 1, 1, 0)
    assert (evil["failed_games"], evil["first_fail"]) == (1, 1)
    assert (evil["assassinations"], evil["assassin_hits"]) == (1, 0)  # A14
    assert good["end_merlin_survived"] == evil["end_merlin_survived"] == 1


def test_summary_values():
    tally = metrics.tally_state(hand_made_game(), seed=0)
    good = summarize(tally["good"], metrics.METRICS)
    evil = summarize(tally["evil"], metrics.METRICS)
    assert good["team_precision"]["value"] == 0.5 and good["vote_accuracy"]["value"] == pytest.approx(2 / 3)
    assert good["proposal_precision"]["value"] == pytest.approx(2 / 3)
    assert evil["fail_rate"]["value"] == 0.5 and evil["fail_rate_q1"]["value"] == 1.0
    assert evil["assassin_hit_rate"]["value"] == 0.0 and evil["first_fail_quest"]["value"] == 1.0
    assert evil["fail_rate_q2"]["count"] == 0 and evil["fail_rate_q2"]["value"] is None


def test_assassin_hit_and_three_fails():
    # A14: the Assassin names Merlin → hit. Three successes by clean teams first.
    state = new(5, leader=0)
    for team in ([0, 1], [0, 1, 2], [1, 2]):
        propose(state, team)
        vote(state, True)
        quest(state)
    state.apply_action(A.assassinate_action((0 - 3) % 5))
    evil = metrics.tally_state(state)["evil"]
    assert evil["assassin_hits"] == 1 and evil["end_merlin_assassinated"] == 1 and evil["wins"] == 1
    assert evil["failed_games"] == 0
    # A13: three failed quests; Evil's cards all Fails, first failure on quest 2.
    state = new(5, leader=0)
    propose(state, [0, 1])
    vote(state, True)
    quest(state)
    for team in ([0, 1, 3], [3, 4], [0, 1, 4]):
        propose(state, team)
        vote(state, True)
        quest(state, fails={3, 4})
    evil = metrics.tally_state(state)["evil"]
    assert evil["end_three_fails"] == 1 and evil["first_fail"] == 2 and evil["fails"] == evil["cards"] == 4


def test_tallies_add_up_and_refuse_a_running_game():
    a = metrics.tally_state(hand_made_game())
    total = Counter()
    total.update(a["good"])
    total.update(a["good"])
    assert summarize(total, metrics.METRICS)["team_precision"]["count"] == 8
    with pytest.raises(ValueError, match="finished game"):
        metrics.tally_state(new(5))


def test_game_wires_the_metrics():
    game = load_game("avalon")
    assert game.metrics is metrics
    assert set(metrics.PLOTTED) <= {m.name for m in metrics.METRICS}
    assert {m.name for m in metrics.METRICS} >= {"team_precision", "vote_accuracy", "assassin_hit_rate", "fail_rate"}
