"""The chest's cards and what the public knows of them (R04, R07, R08), for the Traitors Aboard engine.

A card placed in the chest is attributable: everyone saw who placed it and what they announced (R04). A Spyglass
(R07) shuffles up to three cards out of sight of the public, which from then on knows only the multiset of their
announcements (a :class:`ScrambledGroup`); a Good Riddance (R08) takes cards away unseen. :func:`scramble` and
:func:`forget_removed` keep that public knowledge as the rules leave it; the hidden card values live in
:class:`ChestCard` and reach an observation only through what a seat may know.
"""

from __future__ import annotations


class ScrambledGroup:
    """Chest cards whose order a Spyglass hid from the public (R07).

    ``counts`` is the public multiset of their announcements (indices 0 = +1, 1 = 0,
    2 = −2), or ``None`` once the public can no longer tell it (a Good Riddance took
    part of a mixed group, or a Spyglass took part of one).
    """

    __slots__ = ("counts", "size")

    def __init__(self, counts: list[int] | None, size: int) -> None:
        self.counts = counts
        self.size = size

    def key(self) -> tuple:
        """The group's public knowledge as a hashable value (for :meth:`GameState.fingerprint`)."""
        return (None if self.counts is None else tuple(self.counts), self.size)


class ChestCard:
    """One face-down loot card in the chest.

    ``kind`` is hidden. ``placer``/``announced`` are public while ``group is None``
    (the card's position is still attributable); ``known_by`` is a bitmask of the
    seats that know ``kind`` at this position (the placer; a Spyglass player).
    """

    __slots__ = ("kind", "placer", "announced", "known_by", "group")

    def __init__(self, kind: int, placer: int, announced: int, known_by: int, group: ScrambledGroup | None = None):
        self.kind = kind
        self.placer = placer
        self.announced = announced
        self.known_by = known_by
        self.group = group


def scramble(chest: list[ChestCard], top: list[ChestCard]) -> None:
    """R07: the cards in ``top`` become one group whose public knowledge is their announcement multiset.

    Attributable cards add their announcement; a group taken whole adds its multiset. A
    group taken in part: if uniform, the taken part adds its known announcements; if mixed,
    the public still knows the multiset of the taken part and the rest together, so the rest
    (just below ``top``) joins the new group.
    """
    counts = [0, 0, 0]
    known = True
    absorbed: list[ScrambledGroup] = []
    taken_from: dict[int, list] = {}
    for card in top:
        if card.group is None:
            counts[card.announced] += 1
        else:
            taken_from.setdefault(id(card.group), [card.group, 0])[1] += 1
    for group, inside in taken_from.values():
        group.size -= inside
        if group.counts is None:
            known = False
        elif group.size == 0:
            counts = [a + b for a, b in zip(counts, group.counts)]
        elif _uniform(group.counts):
            value = next(i for i, c in enumerate(group.counts) if c)
            counts[value] += inside
            group.counts[value] -= inside
        else:
            counts = [a + b for a, b in zip(counts, group.counts)]
            absorbed.append(group)
    new_group = ScrambledGroup(counts if known else None, len(top))
    for card in top:
        card.group = new_group
    if absorbed:
        for card in chest:
            if any(card.group is group for group in absorbed):
                card.group = new_group
                new_group.size += 1


def _uniform(counts: list[int] | None) -> bool:
    return counts is not None and sum(1 for c in counts if c) <= 1


def forget_removed(removed: list[ChestCard]) -> None:
    """R08: cards leave a scrambled group unseen; the group's multiset stays known only if uniform."""
    for card in removed:
        group = card.group
        if group is None:
            continue
        group.size -= 1
        if group.counts is not None:
            if _uniform(group.counts):
                value = next(i for i, c in enumerate(group.counts) if c)
                group.counts[value] -= 1
            else:
                group.counts = None
