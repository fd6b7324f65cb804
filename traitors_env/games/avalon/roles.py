"""The static facts of *The Resistance: Avalon*: roles, sides, the table sizes' tables (rulings A01, A02, A05, A11).

Everything numeric about the rules lives here once; the engine, the observation, the docs and the tests read it.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

__all__ = [
    "DEFAULT_PLAYERS", "EVIL", "EVIL_COUNT", "GOOD", "MAX_PLAYERS", "MAX_PROPOSALS", "MIN_PLAYERS", "NUM_QUESTS",
    "OPTIONAL_ROLES", "ROLE_NAMES", "SIDE_NAMES", "TEAM_SIZES", "Role", "check_num_players", "evil_count",
    "fails_needed", "role_set", "side_of_role", "team_sizes",
]

MIN_PLAYERS = 5  # A01
MAX_PLAYERS = 10  # A01
DEFAULT_PLAYERS = 5  # DeepRole's variant (A02)
NUM_QUESTS = 5
MAX_PROPOSALS = 5  # A09: the fifth rejected proposal in a row on one quest ends the game

GOOD, EVIL = 0, 1  # side indices; also the GameType's side order ("good", "evil")
SIDE_NAMES = ("Good", "Evil")


class Role(IntEnum):
    """A player's role (A02). Values 0–2 are Good, 3–7 Evil."""

    SERVANT = 0  # Loyal Servant of Arthur
    MERLIN = 1
    PERCIVAL = 2
    MINION = 3  # Minion of Mordred
    ASSASSIN = 4
    MORGANA = 5
    MORDRED = 6
    OBERON = 7


NUM_ROLES = len(Role)
ROLE_NAMES = {
    Role.SERVANT: "Loyal Servant", Role.MERLIN: "Merlin", Role.PERCIVAL: "Percival", Role.MINION: "Minion",
    Role.ASSASSIN: "Assassin", Role.MORGANA: "Morgana", Role.MORDRED: "Mordred", Role.OBERON: "Oberon",
}

#: A01: Evil players by table size.
EVIL_COUNT = {5: 2, 6: 2, 7: 3, 8: 3, 9: 3, 10: 4}

#: A05: team size of quests 1–5 by table size.
TEAM_SIZES = {
    5: (2, 3, 2, 3, 3),
    6: (2, 3, 4, 3, 4),
    7: (2, 3, 3, 4, 4),
    8: (3, 4, 4, 5, 5),
    9: (3, 4, 4, 5, 5),
    10: (3, 4, 4, 5, 5),
}

#: A02: the optional roles, by the ``raw_env``/``AvalonConfig`` flag that turns each on.
OPTIONAL_ROLES = {"percival": Role.PERCIVAL, "morgana": Role.MORGANA, "mordred": Role.MORDRED, "oberon": Role.OBERON}


def side_of_role(role: int) -> int:
    """``GOOD`` (0) for Servant, Merlin, Percival; ``EVIL`` (1) for the others (A01, A02)."""
    return GOOD if int(role) <= Role.PERCIVAL else EVIL


def check_num_players(num_players: object) -> int:
    """``num_players`` as an int in 5–10 (A01); ``ValueError`` naming the value otherwise."""
    if isinstance(num_players, (bool, np.bool_)) or not isinstance(num_players, (int, np.integer)) or not (
        MIN_PLAYERS <= num_players <= MAX_PLAYERS
    ):
        raise ValueError(f"num_players={num_players!r} is not supported; expected an int {MIN_PLAYERS}–{MAX_PLAYERS} (A01)")
    return int(num_players)


def evil_count(num_players: int) -> int:
    """Evil players at a table of ``num_players`` (A01)."""
    return EVIL_COUNT[check_num_players(num_players)]


def team_sizes(num_players: int) -> tuple[int, ...]:
    """The five quests' team sizes at a table of ``num_players`` (A05)."""
    return TEAM_SIZES[check_num_players(num_players)]


def fails_needed(num_players: int, quest: int) -> int:
    """Fails that make quest ``quest`` (1–5) fail: 2 on quest 4 at 7+ players, else 1 (A11)."""
    return 2 if quest == 4 and num_players >= 7 else 1


def role_set(num_players: int, merlin: bool = True, percival: bool = False, morgana: bool = False,
             mordred: bool = False, oberon: bool = False) -> tuple[Role, ...]:
    """The roles dealt at a table of ``num_players`` (A02), sorted: the special roles turned on, Servants and
    Minions for the rest. Merlin brings the Assassin (A14: the assassination needs both).

    Raises:
        ValueError: for a role set that needs more Good or Evil players than the table has (A02), naming both.
    """
    n = check_num_players(num_players)
    evil = EVIL_COUNT[n]
    good = n - evil
    good_specials = [Role.MERLIN] * bool(merlin) + [Role.PERCIVAL] * bool(percival)
    evil_specials = ([Role.ASSASSIN] * bool(merlin) + [Role.MORGANA] * bool(morgana) + [Role.MORDRED] * bool(mordred)
                     + [Role.OBERON] * bool(oberon))
    if len(good_specials) > good or len(evil_specials) > evil:
        raise ValueError(
            f"the role set {[ROLE_NAMES[r] for r in good_specials + evil_specials]} needs {len(good_specials)} Good and "
            f"{len(evil_specials)} Evil players; a table of {n} has {good} Good and {evil} Evil (A01, A02)"
        )
    roles = good_specials + [Role.SERVANT] * (good - len(good_specials))
    roles += evil_specials + [Role.MINION] * (evil - len(evil_specials))
    return tuple(sorted(roles))
