"""The legal actions of Traitors Aboard's decisions (R03–R11, R13, R07's orders, R09's returns, R15's claims).

What is legal depends on a few facts of the situation only: the phase, the hand, the role, which seats are aboard
(as offsets from the current player), how many cards a Spyglass took. :meth:`GameState._legal
<traitors_env.games.traitors_aboard.engine.GameState>` names a situation by those facts (a key) and
:func:`legal_for` computes its legal set once per key, then answers from a cache: a sorted tuple, a set and a
read-only ``int8`` mask.
"""

from __future__ import annotations

import numpy as np

from . import actions as A
from .cards import NUM_CARD_KINDS, CardKind, Role


class Legal:
    """Cached legal actions of one situation: sorted tuple, set and int8 mask."""

    __slots__ = ("actions", "set", "mask")

    def __init__(self, legal: list[int]) -> None:
        self.actions = tuple(sorted(legal))
        self.set = frozenset(legal)
        mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
        mask[list(legal)] = 1
        mask.flags.writeable = False
        self.mask = mask


_CACHE: dict[tuple, Legal] = {}


def legal_for(key: tuple) -> Legal:
    """The cached legal actions of the situation ``key``."""
    entry = _CACHE.get(key)
    if entry is None:
        entry = _CACHE[key] = Legal(legal_actions_for(key))
    return entry


def legal_actions_for(key: tuple) -> list[int]:
    """The legal actions of a cached situation ``key`` (see :func:`legal_for`)."""
    kind = key[0]
    if kind == 0:  # MAIN: R03, R04, R07–R11, R13
        _, hand, role, aboard = key
        legal = [A.OPEN_CHEST] if role == Role.PIRATE else []
        for card in range(3):
            if hand[card]:
                legal.extend(A.loot_action(card, announced) for announced in range(3))
        targets = [offset for offset in range(1, A.MAX_OFFSET + 1) if aboard >> offset & 1]
        if hand[CardKind.PLANK]:
            legal.extend(A.plank_action(o) for o in targets)
        if hand[CardKind.EMPTY_YOUR_POCKETS]:
            legal.extend(A.empty_your_pockets_action(o) for o in targets)
        for kind_, action in (
            (CardKind.GOOD_RIDDANCE, A.GOOD_RIDDANCE),
            (CardKind.SPYGLASS, A.SPYGLASS),
            (CardKind.MIRACULOUS_CATCH, A.MIRACULOUS_CATCH),
        ):
            if hand[kind_]:
                legal.append(action)
        return legal
    if kind == 1:  # SPYGLASS_ORDER: the orders of the taken cards; untaken positions stay put
        taken = key[1]
        return [
            A.SPYGLASS_ORDER_BASE + i
            for i, perm in enumerate(A.SPYGLASS_PERMUTATIONS)
            if all(perm[j] == j for j in range(taken, 3))
        ]
    if kind == 2:  # CATCH_RETURN: any card kind in hand
        return [A.return_action(k) for k in range(NUM_CARD_KINDS) if key[1][k]]
    if kind == 4:  # CLAIM: R15
        _, aboard, spyglass_taken = key
        legal = [A.CLAIM_NONE]
        legal.extend(A.accuse_action(o) for o in range(1, A.MAX_OFFSET + 1) if aboard >> o & 1)
        legal.extend(A.vouch_action(o) for o in range(0, A.MAX_OFFSET + 1) if aboard >> o & 1)
        legal.extend(range(A.CLAIM_HAND_BASE, A.CLAIM_CHEST_BASE))
        if spyglass_taken:
            legal.extend(
                A.CLAIM_CHEST_BASE + i for i, m in enumerate(A.CHEST_MULTISETS) if len(m) == spyglass_taken
            )
        return legal
    return []
