"""What an observer of *The Traitors* cannot know, redrawn: the game's declaration for the secrets test.

:func:`hidden_variant` builds a copy of a state that differs only in what a seat cannot know (the Traitor's
identity, the assignments' outcomes and murders unless the seat is the Traitor or the End Game has revealed
them, other seats' Shields and Daggers, the deck, unrevealed votes, the other finalist's secret choice).
"""

from __future__ import annotations

import copy

import numpy as np

from .cards import NUM_ROUNDS, RewardCard, Role
from .engine import END_GAME_ROUND, GameState

__all__ = ["hidden_variant"]


def hidden_variant(state: GameState, observer: int, rng: np.random.Generator) -> GameState:
    """A copy of ``state`` that differs from it only in what ``observer`` cannot know."""
    variant = copy.deepcopy(state)
    n = variant.num_players
    others = [s for s in range(n) if s != observer]
    knows_roles = state.roles[observer] == Role.TRAITOR or state.round == END_GAME_ROUND
    if not knows_roles:
        variant._set_traitor(int(rng.choice(others)))
        variant.attempted = [bool(b) for b in rng.integers(2, size=NUM_ROUNDS)]
        variant.succeeded = [bool(b) for b in rng.integers(2, size=NUM_ROUNDS)]
        variant.murders = int(rng.integers(4))
    # Other players' secret cards: the same number held, any mix of Shields and Daggers.
    for seat in others:
        held = sum(variant.hands[seat])
        shields = int(rng.integers(held + 1))
        variant.hands[seat] = [shields, held - shields]
    rng.shuffle(variant.deck)
    variant.deck = [int(rng.integers(len(RewardCard))) for _ in variant.deck]  # contents too: unseen
    r = min(variant.round, NUM_ROUNDS) - 1
    if not variant.votes_revealed[r]:
        for seat in others:
            if variant.votes[r][seat] is not None:
                target = int(rng.choice([s for s in range(n) if s != seat]))
                variant.votes[r][seat] = (target, bool(rng.integers(2)))
    if variant.finalists is not None and variant.final_choices is None:
        for k, seat in enumerate(variant.finalists):
            if seat != observer and variant._choices[k] >= 0:
                variant._choices[k] = 1 - variant._choices[k]
    variant.rng = np.random.default_rng(int(rng.integers(2**32)))
    return variant
