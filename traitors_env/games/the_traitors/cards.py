"""Roles, reward cards and the static numbers of *The Traitors* board game (2nd edition).

Source: rulebook "Preparation" and "Phase 3: Armoury"; rulings T01–T04 in
``docs/rules/the-traitors-RULINGS.md``. Everything here is static: enums and constants, no game state.
"""

from __future__ import annotations

import numbers
from enum import IntEnum

MIN_PLAYERS = 3  # T01
MAX_PLAYERS = 6  # T01: the board has six sections
DEFAULT_PLAYERS = 5  # T01
NUM_ROUNDS = 4  # rulebook "Gameplay": 4 rounds of Mission, Round Table, Armoury, Night
START_GOLD = 8  # T03: 3 × 1 + 1 × 5
BANISH_LOSS = 2  # T09: most votes lose 2 gold
TIE_LOSS = 1  # T09: on a tie for most votes, each tied player loses 1
MURDER_LOSS = 2  # T12
VOTE_REWARD = 2  # T13: per vote naming the Traitor
DAGGER_VOTE_REWARD = 4  # T13: per Dagger vote naming the Traitor
MURDER_REWARD = 2  # T13: per murder of another player not prevented by a Shield
DAGGER_VOTE_WEIGHT = 2  # T09: a Dagger vote counts twice


class Role(IntEnum):
    """A player's secret role (T02)."""

    FAITHFUL = 0
    TRAITOR = 1


ROLE_NAMES = {Role.FAITHFUL: "Faithful", Role.TRAITOR: "Traitor"}


class RewardCard(IntEnum):
    """The four kinds of reward card (T04); three of each in the deck."""

    SHIELD = 0
    DAGGER = 1
    GOLD_1 = 2
    GOLD_2 = 3


NUM_REWARD_KINDS = len(RewardCard)
REWARD_DECK_COUNTS = (3, 3, 3, 3)  # T04, per RewardCard
REWARD_CARD_NAMES = {
    RewardCard.SHIELD: "Shield",
    RewardCard.DAGGER: "Dagger",
    RewardCard.GOLD_1: "1 gold",
    RewardCard.GOLD_2: "2 gold",
}
#: Gold added at once by a gold card (T11); Shield and Dagger are kept secretly in hand.
CARD_GOLD = {RewardCard.GOLD_1: 1, RewardCard.GOLD_2: 2}
SECRET_CARDS = (RewardCard.SHIELD, RewardCard.DAGGER)


class FinalOutcome(IntEnum):
    """The three outcomes of the Final (T15, rulebook "The Final" A–C)."""

    BOTH_FAITHFUL = 0
    ONE_TRAITOR = 1
    BOTH_TRAITOR = 2


def check_num_players(num_players: object) -> int:
    """``num_players`` as an int in 3–6 (T01).

    Raises:
        ValueError: naming the bad value and the allowed range.
    """
    if (
        isinstance(num_players, bool)
        or not isinstance(num_players, numbers.Integral)
        or not MIN_PLAYERS <= num_players <= MAX_PLAYERS
    ):
        raise ValueError(
            f"num_players={num_players!r} is not supported; The Traitors is played by "
            f"{MIN_PLAYERS} to {MAX_PLAYERS} players (an int, T01)"
        )
    return int(num_players)
