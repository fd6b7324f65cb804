"""Helpers to drive an Avalon engine through explicit positions (rulings A01–A18)."""

from __future__ import annotations

from traitors_env.games.avalon import actions as A
from traitors_env.games.avalon.engine import AvalonConfig, GameState, Phase
from traitors_env.games.avalon.roles import Role

S, M, P, MI, AS, MO, MD, OB = (Role.SERVANT, Role.MERLIN, Role.PERCIVAL, Role.MINION, Role.ASSASSIN, Role.MORGANA,
                               Role.MORDRED, Role.OBERON)

#: 5 players, DeepRole's variant: seat 0 Merlin, 1–2 Servants, 3 Assassin, 4 Minion.
DEAL5 = (M, S, S, AS, MI)
#: 7 players: Merlin 0, Servants 1–3, Assassin 4, Minions 5–6.
DEAL7 = (M, S, S, S, AS, MI, MI)


def new(n=5, roles=None, leader=0, claims=False, seed=0, **flags) -> GameState:
    roles = roles if roles is not None else {5: DEAL5, 7: DEAL7}.get(n)
    return GameState.new(AvalonConfig(num_players=n, claims=claims, first_leader=leader, **flags), seed=seed,
                         roles=roles)


def propose(state: GameState, team) -> None:
    """The leader picks ``team`` (absolute seats), one decision per member (A06)."""
    assert state.phase is Phase.PROPOSE
    for member in team:
        state.apply_action(A.pick_action((member - state.leader) % state.num_players))


def claims_none(state: GameState) -> None:
    while state.phase is Phase.CLAIM:
        state.apply_action(A.CLAIM_NONE)


def vote(state: GameState, approve) -> None:
    """Every seat votes: approve iff its seat is in ``approve`` (a set) or ``approve is True``."""
    claims_none(state)
    assert state.phase is Phase.VOTE
    while state.phase is Phase.VOTE:
        seat = state.current_player
        state.apply_action(A.APPROVE if approve is True or (approve is not False and seat in approve) else A.REJECT)


def quest(state: GameState, fails=()) -> None:
    """Every member plays: Fail iff its seat is in ``fails``."""
    assert state.phase is Phase.QUEST
    while state.phase is Phase.QUEST:
        state.apply_action(A.FAIL if state.current_player in fails else A.SUCCESS)


def round_(state: GameState, team, fails=()) -> None:
    """One quest: ``team`` proposed, approved by everyone, ``fails`` played."""
    propose(state, team)
    vote(state, True)
    quest(state, fails)
