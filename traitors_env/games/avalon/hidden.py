"""What an observer of *Avalon* cannot know, redrawn: the game's declaration for the secrets test (A17).

:func:`hidden_variant` copies a state and redraws the roles consistently with what the observer knows (its own role
and A03's knowledge stay; the seats it sees as Evil, or as Merlin-or-Morgana, keep a role of that kind), who played
each quest's Fails (the same number of Fails, played by Evil members of the redrawn deal), the current vote's
uncast-for-the-public votes and the current quest's cards of the other members.
"""

from __future__ import annotations

import numpy as np

from .engine import GameState, Phase
from .roles import Role

__all__ = ["hidden_variant"]


def _redrawn_roles(state: GameState, observer: int, rng: np.random.Generator) -> list[Role]:
    """Shuffle the others' roles within the class of seats the observer tells apart (A03): the seats it sees (as
    Evil, or as Merlin-or-Morgana) among themselves, the rest among themselves."""
    seen = state.known_evil(observer) | state.merlin_candidates(observer)
    roles = list(state.roles)
    for group in (sorted(seen), sorted(s for s in range(state.num_players) if s != observer and s not in seen)):
        drawn = [roles[s] for s in group]
        rng.shuffle(drawn)
        for s, role in zip(group, drawn):
            roles[s] = role
    return roles


def _consistent(state: GameState, roles: list[Role], observer: int) -> bool:
    """The redrawn deal explains the public record: each quest's Fails were played by as many Evil members
    (besides what the observer knows of its own cards), and the Assassin still acts in the assassination."""
    evil = [role >= Role.MINION for role in roles]
    for result, cards in zip(state.quests, state.played_cards):
        own_fail = int(cards.get(observer, False))
        if sum(evil[s] for s in result.team if s != observer) < result.fails - own_fail:
            return False
    if state.phase is Phase.ASSASSINATE and roles[state.current_player] != Role.ASSASSIN:
        return False
    return True


def hidden_variant(state: GameState, observer: int, rng: np.random.Generator, tries: int = 64) -> GameState:
    """A copy of ``state`` that differs from it only in what ``observer`` cannot know (see the module doc).

    Falls back to the true deal when ``tries`` redraws of the roles all contradict the public record.
    """
    variant = state.copy()
    roles = list(state.roles)
    for _ in range(tries):
        candidate = _redrawn_roles(state, observer, rng)
        if _consistent(state, candidate, observer):
            roles = candidate
            break
    variant.roles = roles
    evil = [role >= Role.MINION for role in roles]
    # Who played the Fails: the same number, by Evil members of the redrawn deal (the observer's own cards stay).
    for q, (result, cards) in enumerate(zip(state.quests, state.played_cards)):
        others = [s for s in result.team if s != observer]
        needed = result.fails - int(cards.get(observer, False))
        failing = set(rng.choice([s for s in others if evil[s]], size=needed, replace=False).tolist()) if needed else set()
        new = {s: s in failing for s in others}
        if observer in cards:
            new[observer] = cards[observer]
        variant.played_cards[q] = new
    if state.phase is Phase.VOTE:
        variant.pending_votes = [v if s == observer or v is None else bool(rng.integers(2))
                                 for s, v in enumerate(state.pending_votes)]
    if state.phase is Phase.QUEST:
        variant.pending_cards = {s: (fail if s == observer else bool(evil[s] and rng.integers(2)))
                                 for s, fail in state.pending_cards.items()}
    if state.phase is Phase.PROPOSE and state.current_player != observer and len(state.team) > 1:
        picks = list(variant.team)
        rng.shuffle(picks)  # the order of the leader's picks so far is not public (A06)
        variant.team = picks
    variant.rng = np.random.default_rng(int(rng.integers(2**32)))
    return variant
