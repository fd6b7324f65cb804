"""The action indices of ``traitors_aboard_v0``: one ``Discrete(NUM_ACTIONS)`` for every decision.

Seats in actions are *offsets* from the acting player: offset 1 is the next seat
to the left (R02), offset ``n-1`` the seat to the right. One policy therefore
serves every seat and every table size.

| indices | name | meaning | phase |
|---|---|---|---|
| 0 | ``OPEN_CHEST`` | open the chest (Pirates only, R03) | main |
| 1–9 | ``LOOT[card, announced]`` | place loot ``card`` ∈ {+1, 0, −2} and announce ``announced`` ∈ {+1, 0, −2} (R04); index ``1 + 3·card + announced`` | main |
| 10–16 | ``PLANK[offset]`` | Plank the seat at ``offset`` 1–7 (R11); index ``9 + offset`` | main |
| 17–23 | ``EMPTY_YOUR_POCKETS[offset]`` | Empty Your Pockets on ``offset`` 1–7 (R10); index ``16 + offset`` | main |
| 24 | ``GOOD_RIDDANCE`` | play Good Riddance (R08) | main |
| 25 | ``SPYGLASS`` | play Spyglass (R07) | main |
| 26 | ``MIRACULOUS_CATCH`` | play Miraculous Catch (R09) | main |
| 27–32 | ``SPYGLASS_ORDER[perm]`` | put the cards back: the card seen at ``perm[i]`` goes ``i``-th from the top; ``perm`` in lexicographic order of the permutations of (0, 1, 2); with 2 cards only ``(0,1,2)`` and ``(1,0,2)`` are legal (R07) | spyglass order |
| 33–40 | ``RETURN[card]`` | put one card of kind ``card`` (0–7, :class:`CardKind`) from the hand on top of the draw pile (R09) | catch return 1, catch return 2 |
| 41 | ``CLAIM_NONE`` | make no claim (R14) | claim |
| 42–48 | ``CLAIM_ACCUSE[offset]`` | "seat at ``offset`` 1–7 is a Mutineer" | claim |
| 49–56 | ``CLAIM_VOUCH[offset]`` | "seat at ``offset`` 0–7 is a Pirate" (0 = myself) | claim |
| 57–176 | ``CLAIM_HAND[multiset]`` | "my hand is {a, b, c}": the 120 multisets of three card kinds, in :data:`HAND_MULTISETS` order | claim |
| 177–195 | ``CLAIM_CHEST_TOP[multiset]`` | "the top of the chest is {values}": the 19 multisets of 1–3 loot values, in :data:`CHEST_MULTISETS` order (only after playing Spyglass, of as many values as cards were taken) | claim |

Source: rulebook "How to Play", rulings R03–R16.
"""

from __future__ import annotations

import itertools

from .cards import CARD_SHORT, MAX_PLAYERS, NUM_CARD_KINDS, CardKind

MAX_OFFSET = MAX_PLAYERS - 1

OPEN_CHEST = 0
LOOT_BASE = 1  # + 3 * loot kind + announced index
PLANK_BASE = LOOT_BASE + 9 - 1  # + offset (1..7)
EYP_BASE = PLANK_BASE + MAX_OFFSET  # + offset (1..7)
GOOD_RIDDANCE = EYP_BASE + MAX_OFFSET + 1
SPYGLASS = GOOD_RIDDANCE + 1
MIRACULOUS_CATCH = SPYGLASS + 1
NUM_MAIN_ACTIONS = MIRACULOUS_CATCH + 1

SPYGLASS_PERMUTATIONS: tuple[tuple[int, int, int], ...] = tuple(itertools.permutations(range(3)))  # type: ignore[assignment]
SPYGLASS_ORDER_BASE = NUM_MAIN_ACTIONS
RETURN_BASE = SPYGLASS_ORDER_BASE + len(SPYGLASS_PERMUTATIONS)

#: The 120 hand claims: multisets of three card kinds, as sorted kind tuples.
HAND_MULTISETS: tuple[tuple[int, int, int], ...] = tuple(
    itertools.combinations_with_replacement(range(NUM_CARD_KINDS), 3)
)  # type: ignore[assignment]
#: The 19 chest-top claims: multisets of 1–3 loot indices (0 = +1, 1 = 0, 2 = −2).
CHEST_MULTISETS: tuple[tuple[int, ...], ...] = tuple(
    combo for size in (1, 2, 3) for combo in itertools.combinations_with_replacement(range(3), size)
)

CLAIM_NONE = RETURN_BASE + NUM_CARD_KINDS
CLAIM_ACCUSE_BASE = CLAIM_NONE  # + offset (1..7)
CLAIM_VOUCH_BASE = CLAIM_ACCUSE_BASE + MAX_OFFSET + 1  # + offset (0..7)
CLAIM_HAND_BASE = CLAIM_VOUCH_BASE + MAX_PLAYERS
CLAIM_CHEST_BASE = CLAIM_HAND_BASE + len(HAND_MULTISETS)
NUM_ACTIONS = CLAIM_CHEST_BASE + len(CHEST_MULTISETS)

HAND_MULTISET_INDEX = {m: i for i, m in enumerate(HAND_MULTISETS)}
CHEST_MULTISET_INDEX = {m: i for i, m in enumerate(CHEST_MULTISETS)}

_LOOT_SHORT = ("+1", "0", "-2")


def loot_action(card: int, announced: int) -> int:
    """Index of placing loot ``card`` (0–2) announced as ``announced`` (0–2)."""
    return LOOT_BASE + 3 * card + announced


def plank_action(offset: int) -> int:
    """Index of playing a Plank on the seat ``offset`` (1–7) to the left."""
    return PLANK_BASE + offset


def empty_your_pockets_action(offset: int) -> int:
    """Index of playing Empty Your Pockets on the seat ``offset`` (1–7) to the left."""
    return EYP_BASE + offset


def spyglass_order_action(perm: tuple[int, ...]) -> int:
    """Index of putting Spyglass cards back in order ``perm`` (a permutation of 0, 1, 2)."""
    return SPYGLASS_ORDER_BASE + SPYGLASS_PERMUTATIONS.index(tuple(perm))


def return_action(card: int) -> int:
    """Index of returning one card of kind ``card`` to the draw pile (Miraculous Catch)."""
    return RETURN_BASE + card


def accuse_action(offset: int) -> int:
    """Index of the claim "the seat ``offset`` (1–7) to my left is a Mutineer"."""
    return CLAIM_ACCUSE_BASE + offset


def vouch_action(offset: int) -> int:
    """Index of the claim "the seat ``offset`` (0–7) to my left is a Pirate"."""
    return CLAIM_VOUCH_BASE + offset


def hand_claim_action(kinds) -> int:
    """Index of the claim "my hand is {kinds}" (three card kinds, any order)."""
    return CLAIM_HAND_BASE + HAND_MULTISET_INDEX[tuple(sorted(int(k) for k in kinds))]


def chest_claim_action(loot_indices) -> int:
    """Index of the claim "the top of the chest is {values}" (1–3 loot indices, any order)."""
    return CLAIM_CHEST_BASE + CHEST_MULTISET_INDEX[tuple(sorted(int(v) for v in loot_indices))]


def spyglass_order_text(perm: tuple[int, ...]) -> str:
    """Words for putting Spyglass cards back in order ``perm`` (indices into the order seen, top first)."""
    return "put Spyglass cards back, top first: seen #" + ", #".join(str(p + 1) for p in perm)


def describe_action(action: int, actor_seat: int | None = None, num_players: int | None = None) -> str:
    """Readable text for ``action``; with ``actor_seat``/``num_players`` offsets become seat names.

    Raises:
        ValueError: if ``action`` is not in ``range(NUM_ACTIONS)``.
    """

    def seat(offset: int) -> str:
        if actor_seat is None or num_players is None:
            return f"seat +{offset}"
        return f"player_{(actor_seat + offset) % num_players}"

    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"action {action!r} is outside the action space range(0, {NUM_ACTIONS})")
    if a == OPEN_CHEST:
        return "open the chest"
    if a < PLANK_BASE + 1:
        card, announced = divmod(a - LOOT_BASE, 3)
        return f"place loot {_LOOT_SHORT[card]} announced as {_LOOT_SHORT[announced]}"
    if a < EYP_BASE + 1:
        return f"Plank on {seat(a - PLANK_BASE)}"
    if a < GOOD_RIDDANCE:
        return f"Empty Your Pockets on {seat(a - EYP_BASE)}"
    if a == GOOD_RIDDANCE:
        return "Good Riddance"
    if a == SPYGLASS:
        return "Spyglass"
    if a == MIRACULOUS_CATCH:
        return "Miraculous Catch"
    if a < RETURN_BASE:
        return spyglass_order_text(SPYGLASS_PERMUTATIONS[a - SPYGLASS_ORDER_BASE])
    if a < CLAIM_NONE:
        return f"return {CARD_SHORT[CardKind(a - RETURN_BASE)]} to the draw pile"
    if a == CLAIM_NONE:
        return "claim: nothing"
    if a < CLAIM_VOUCH_BASE:
        return f"claim: {seat(a - CLAIM_ACCUSE_BASE)} is a Mutineer"
    if a < CLAIM_HAND_BASE:
        offset = a - CLAIM_VOUCH_BASE
        return "claim: I am a Pirate" if offset == 0 else f"claim: {seat(offset)} is a Pirate"
    if a < CLAIM_CHEST_BASE:
        kinds = HAND_MULTISETS[a - CLAIM_HAND_BASE]
        return "claim: my hand is {" + ", ".join(CARD_SHORT[CardKind(k)] for k in kinds) + "}"
    values = CHEST_MULTISETS[a - CLAIM_CHEST_BASE]
    return "claim: the top of the chest is {" + ", ".join(_LOOT_SHORT[v] for v in values) + "}"


def public_description(action: int, actor_seat: int, num_players: int) -> str:
    """What every player sees of ``action`` by ``actor_seat``, in words (seat names ``player_k``).

    The private part of an action is left out: which loot card went face down (only the
    announced value is public, R04), the order Spyglass cards were put back in (R07) and which
    cards Miraculous Catch returned (R09). Everything else (action cards and their targets,
    claims, opening the chest) is shown to all.

    Raises:
        ValueError: if ``action`` is not in ``range(NUM_ACTIONS)``.
    """
    a = int(action)
    if LOOT_BASE <= a < PLANK_BASE + 1:
        announced = (a - LOOT_BASE) % 3
        return f"puts a loot card face down in the chest, announcing {_LOOT_SHORT[announced]}"
    if SPYGLASS_ORDER_BASE <= a < RETURN_BASE:
        return "puts the Spyglass cards back on the chest, face down"
    if RETURN_BASE <= a < CLAIM_NONE:
        return "puts a card face down on the draw pile"
    text = describe_action(a, actor_seat, num_players)
    if a == OPEN_CHEST:
        return "opens the chest"
    if a < EYP_BASE + 1:
        return "plays a " + text
    if a < SPYGLASS_ORDER_BASE:
        return "plays " + text
    if a == CLAIM_NONE:
        return "makes no claim"
    return text.replace("claim: ", "claims: ", 1)
