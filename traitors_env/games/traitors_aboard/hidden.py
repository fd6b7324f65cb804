"""What an observer of *Traitors Aboard* cannot know, redrawn: the game's declaration for the secrets test.

:func:`hidden_variant` builds a copy of a state in which everything a seat cannot know is redrawn (other hands,
unrevealed roles, unseen chest values, draw-pile order, the discard pile, scrambled Spyglass groups, R07, R09);
its observation must not change (DESIGN.md, "Secrets"). The conformance test runs it for every registered game.
A small variant's state (:mod:`.small`) is redrawn among the variant's cards in play: the cards it leaves out of
play are declared, so every seat knows they lie in the discard pile.
"""

from __future__ import annotations

import copy
import functools

import numpy as np

from .cards import NUM_CARD_KINDS, CardKind
from .engine import GameState
from .small import deal, variant

__all__ = ["hidden_variant"]


def hidden_variant(state: GameState, seat: int | None, rng: np.random.Generator) -> GameState:
    """A copy of ``state`` with everything ``seat`` cannot know redrawn (``None``: a spectator, knows nothing private).

    Card counts per place are kept, so the copy is a position the observer cannot tell apart.
    """
    variant = copy.deepcopy(state)
    n = variant.num_players
    bit = 0 if seat is None else 1 << seat

    # Roles of the other seats that are not revealed (team sizes kept).
    hidden_seats = [s for s in range(n) if s != seat and not variant.revealed[s]]
    roles = [variant.roles[s] for s in hidden_seats]
    rng.shuffle(roles)
    for s, role in zip(hidden_seats, roles):
        variant.roles[s] = role

    # The hidden cards: other hands, unknown draw-pile cards, unknown chest cards, the discard pile.
    pool: list[int] = []
    for s in range(n):
        if s != seat:
            pool += [k for k in range(8) for _ in range(variant.hands[s][k])]
    draw_slots = [i for i, known in enumerate(variant.draw_known) if not known & bit]
    pool += [variant.draw_pile[i] for i in draw_slots]
    # The Spyglass player, while choosing the order, knows the taken cards' values (in the order it
    # saw them) but not which chest position holds which (R07): their positions are redrawn below.
    seen_by_me = variant.spyglass_seen if variant.current_player == seat else []
    chest_slots = [card for card in variant.chest if not card.known_by & bit and all(card is not c for c in seen_by_me)]
    pool += [card.kind for card in chest_slots]
    out_of_play = _out_of_play(variant.small_variant)  # public: they stay in the discard pile
    pool += [k for k in range(8) for _ in range(variant.discard[k] - out_of_play[k])]
    pool = [pool[i] for i in rng.permutation(len(pool))]
    for card in chest_slots:  # chest cards must stay loot
        card.kind = pool.pop(next(i for i, k in enumerate(pool) if k <= CardKind.LOOT_MINUS_2))
    for s in range(n):
        if s != seat:
            size = sum(variant.hands[s])
            variant.hands[s] = [0] * 8
            for _ in range(size):
                variant.hands[s][pool.pop()] += 1
    for i in draw_slots:
        variant.draw_pile[i] = pool.pop()
    variant.discard = [out_of_play[k] + pool.count(k) for k in range(8)]

    # Inside a scrambled group, which card carries which placer/announcement is not public (R07).
    groups: dict[int, list] = {}
    for card in variant.chest:
        if card.group is not None:
            groups.setdefault(id(card.group), []).append(card)
    for cards in groups.values():
        labels = [(c.placer, c.announced) for c in cards]
        for card, i in zip(cards, rng.permutation(len(cards))):
            card.placer, card.announced = labels[i]

    if seen_by_me:
        taken = len(seen_by_me)
        top = variant.chest[-taken:]
        variant.chest[-taken:] = [top[i] for i in rng.permutation(taken)]

    # The order another player's Spyglass showed the cards in.
    if variant.current_player != seat and variant.spyglass_seen:
        variant.spyglass_seen = [variant.spyglass_seen[i] for i in rng.permutation(len(variant.spyglass_seen))]
    variant.rng = np.random.default_rng(int(rng.integers(2**32)))
    return variant


@functools.cache
def _out_of_play(small_variant: str | None) -> tuple[int, ...]:
    """Cards per kind that small variant ``small_variant`` leaves out of play (the discard pile it deals, which no seed
    changes: S01); none for the full game (``None``)."""
    if small_variant is None:
        return (0,) * NUM_CARD_KINDS
    return tuple(deal(variant(small_variant), seed=0).discard)
