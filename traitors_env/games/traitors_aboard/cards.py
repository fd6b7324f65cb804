"""Cards, roles and the setup table of *Traitors Aboard*.

Source: rulebook "Contents" and "Setup"; the table in ``docs/rules/RULINGS.md``.
Everything here is static: enums and frozen tables, no game state.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from enum import IntEnum

MIN_PLAYERS = 3
MAX_PLAYERS = 8
HAND_SIZE = 3  # rulebook "Setup": each player is dealt 3 and always holds 3 (R13)
PLANKS_TO_OVERBOARD = 3  # rulebook "Plank": the third Plank throws a player overboard


class CardKind(IntEnum):
    """The eight kinds of card. Cards of one kind are indistinguishable."""

    LOOT_PLUS_1 = 0
    LOOT_ZERO = 1
    LOOT_MINUS_2 = 2
    PLANK = 3
    GOOD_RIDDANCE = 4
    SPYGLASS = 5
    MIRACULOUS_CATCH = 6
    EMPTY_YOUR_POCKETS = 7


NUM_CARD_KINDS = len(CardKind)
LOOT_KINDS = (CardKind.LOOT_PLUS_1, CardKind.LOOT_ZERO, CardKind.LOOT_MINUS_2)
ACTION_KINDS = (
    CardKind.PLANK,
    CardKind.GOOD_RIDDANCE,
    CardKind.SPYGLASS,
    CardKind.MIRACULOUS_CATCH,
    CardKind.EMPTY_YOUR_POCKETS,
)
#: Chest value of each loot kind; the loot kind index doubles as the index of
#: an announced value (0 → "+1", 1 → "0", 2 → "−2").
LOOT_VALUE = {CardKind.LOOT_PLUS_1: 1, CardKind.LOOT_ZERO: 0, CardKind.LOOT_MINUS_2: -2}
LOOT_VALUES = (1, 0, -2)

CARD_NAMES = {
    CardKind.LOOT_PLUS_1: "Loot +1",
    CardKind.LOOT_ZERO: "Loot 0",
    CardKind.LOOT_MINUS_2: "Loot -2",
    CardKind.PLANK: "Plank",
    CardKind.GOOD_RIDDANCE: "Good Riddance",
    CardKind.SPYGLASS: "Spyglass",
    CardKind.MIRACULOUS_CATCH: "Miraculous Catch",
    CardKind.EMPTY_YOUR_POCKETS: "Empty Your Pockets",
}
CARD_SHORT = {
    CardKind.LOOT_PLUS_1: "+1",
    CardKind.LOOT_ZERO: "0",
    CardKind.LOOT_MINUS_2: "-2",
    CardKind.PLANK: "PL",
    CardKind.GOOD_RIDDANCE: "GR",
    CardKind.SPYGLASS: "SG",
    CardKind.MIRACULOUS_CATCH: "MC",
    CardKind.EMPTY_YOUR_POCKETS: "EYP",
}


class Role(IntEnum):
    """A player's secret role; also the team it plays for."""

    PIRATE = 0
    MUTINEER = 1


ROLE_NAMES = {Role.PIRATE: "Pirate", Role.MUTINEER: "Mutineer"}


class EndCondition(IntEnum):
    """The four ways a game ends (rulebook "End of the Game", in its order)."""

    CHEST_OPENED = 0
    ALL_MUTINEERS_OVERBOARD = 1
    MUTINEERS_NOT_OUTNUMBERED = 2
    DRAW_PILE_EMPTY = 3


@dataclass(frozen=True)
class TableSetup:
    """One row of the setup table (rulebook "Setup" and "End of the Game")."""

    num_players: int
    pirates: int
    mutineers: int
    planks: int
    target: int

    def deck_counts(self) -> tuple[int, ...]:
        """Cards of each :class:`CardKind` in the whole deck, shape ``(8,)``."""
        counts = [0] * NUM_CARD_KINDS
        counts[CardKind.LOOT_PLUS_1] = 20
        counts[CardKind.LOOT_ZERO] = 10
        counts[CardKind.LOOT_MINUS_2] = 12
        counts[CardKind.PLANK] = self.planks
        for kind in ACTION_KINDS[1:]:
            counts[kind] = 3
        return tuple(counts)


SETUP_TABLE: dict[int, TableSetup] = {
    row.num_players: row
    for row in (
        TableSetup(3, 2, 1, 12, 5),
        TableSetup(4, 3, 1, 14, 8),
        TableSetup(5, 4, 1, 16, 11),
        TableSetup(6, 4, 2, 18, 6),
        TableSetup(7, 5, 2, 20, 9),
        TableSetup(8, 6, 2, 22, 12),
    )
}


def table_setup(num_players: int) -> TableSetup:
    """The setup row for ``num_players``.

    Raises:
        ValueError: if ``num_players`` is not an int in 3–8.
    """
    if isinstance(num_players, bool) or not isinstance(num_players, numbers.Integral) or num_players not in SETUP_TABLE:
        raise ValueError(
            f"num_players={num_players!r} is not supported; Traitors Aboard is played by "
            f"{MIN_PLAYERS} to {MAX_PLAYERS} players (an int)"
        )
    return SETUP_TABLE[int(num_players)]
