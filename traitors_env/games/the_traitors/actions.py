"""The action indices of ``the_traitors_v0``: one ``Discrete(NUM_ACTIONS)`` for every decision.

The table is declared once, in :data:`ACTION_GROUPS`; the index constants, :func:`action_table`
(the documentation table, also in docs/games/the_traitors.md) and :func:`describe_action` all come from it.
Seats in actions are *offsets* from the acting player: offset 1 is the next seat, offset
``n-1`` the previous one; offset 0 is the actor itself. One policy therefore serves every seat
and every table size.

| indices | name | meaning | phase |
|---|---|---|---|
| 0 | ``NO_ATTEMPT`` | do not attempt the secret assignment (the Faithful's only choice) | mission |
| 1 | ``ATTEMPT`` | attempt the secret assignment (Traitor only, T06) | mission |
| 2 | ``CLAIM_NONE`` | make no claim (T08) | claim |
| 3–7 | ``CLAIM_SUSPECT[offset]`` | "I suspect the seat at offset 1–5" | claim |
| 8–13 | ``CLAIM_FAITHFUL[offset]`` | "the seat at offset 0–5 is Faithful" (0: "I am Faithful") | claim |
| 14–18 | ``VOTE[offset]`` | name the seat at offset 1–5 at the Round Table (T09) | vote |
| 19–23 | ``VOTE_DAGGER[offset]`` | name the seat at offset 1–5 and play a Dagger (counts twice) | vote |
| 24 | ``NO_MURDER`` | point the dagger at NO MURDER (everyone's choice when no murder is allowed) | night |
| 25–30 | ``MURDER[offset]`` | murder the seat at offset 0–5 (0: oneself; Traitor after a success, T12) | night |
| 31–33 | ``STATEMENT[kind]`` | finalist's public statement: none, "I will write Faithful", "… Traitor" (T15) | statement |
| 34–35 | ``WRITE[kind]`` | finalist's secret choice: write Faithful, write Traitor (T15) | final |

Source: rulebook "Gameplay", "End Game"; rulings T06, T08, T09, T12, T15.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.layout import starts
from .cards import MAX_PLAYERS

MAX_OFFSET = MAX_PLAYERS - 1


@dataclass(frozen=True)
class ActionGroup:
    """One block of consecutive action indices.

    ``first_offset`` is the offset (or kind) of the block's first index: indices
    ``start … start + count - 1`` stand for ``first_offset … first_offset + count - 1``.
    """

    name: str
    count: int
    phase: str
    meaning: str
    first_offset: int = 0


ACTION_GROUPS: tuple[ActionGroup, ...] = (
    ActionGroup("NO_ATTEMPT", 1, "mission", "do not attempt the secret assignment (the Faithful's only choice)"),
    ActionGroup("ATTEMPT", 1, "mission", "attempt the secret assignment (Traitor only, T06)"),
    ActionGroup("CLAIM_NONE", 1, "claim", "make no claim (T08)"),
    ActionGroup("CLAIM_SUSPECT", MAX_OFFSET, "claim", '"I suspect the seat at offset 1–5"', 1),
    ActionGroup("CLAIM_FAITHFUL", MAX_PLAYERS, "claim", '"the seat at offset 0–5 is Faithful" (0: "I am Faithful")'),
    ActionGroup("VOTE", MAX_OFFSET, "vote", "name the seat at offset 1–5 at the Round Table (T09)", 1),
    ActionGroup("VOTE_DAGGER", MAX_OFFSET, "vote", "name the seat at offset 1–5 and play a Dagger (counts twice)", 1),
    ActionGroup("NO_MURDER", 1, "night", "point the dagger at NO MURDER (everyone's choice when no murder is allowed)"),
    ActionGroup(
        "MURDER", MAX_PLAYERS, "night", "murder the seat at offset 0–5 (0: oneself; Traitor after a success, T12)"
    ),
    ActionGroup(
        "STATEMENT", 3, "statement", 'finalist\'s public statement: none, "I will write Faithful", "… Traitor" (T15)'
    ),
    ActionGroup("WRITE", 2, "final", "finalist's secret choice: write Faithful, write Traitor (T15)"),
)

#: Index of the first action of each group, by name.
GROUP_START: dict[str, int]
GROUP_START, NUM_ACTIONS = starts((group.name, group.count) for group in ACTION_GROUPS)

NO_ATTEMPT = GROUP_START["NO_ATTEMPT"]
ATTEMPT = GROUP_START["ATTEMPT"]
CLAIM_NONE = GROUP_START["CLAIM_NONE"]
CLAIM_SUSPECT_BASE = GROUP_START["CLAIM_SUSPECT"] - 1  # + offset (1..5)
CLAIM_FAITHFUL_BASE = GROUP_START["CLAIM_FAITHFUL"]  # + offset (0..5)
VOTE_BASE = GROUP_START["VOTE"] - 1  # + offset (1..5)
VOTE_DAGGER_BASE = GROUP_START["VOTE_DAGGER"] - 1  # + offset (1..5)
NO_MURDER = GROUP_START["NO_MURDER"]
MURDER_BASE = GROUP_START["MURDER"]  # + offset (0..5)
STATEMENT_BASE = GROUP_START["STATEMENT"]  # + Statement
WRITE_BASE = GROUP_START["WRITE"]  # + 0 Faithful / 1 Traitor

STATEMENT_NONE, STATEMENT_FAITHFUL, STATEMENT_TRAITOR = 0, 1, 2
STATEMENT_TEXT = ("no statement", '"I will write Faithful"', '"I will write Traitor"')
WRITE_TEXT = ("Faithful", "Traitor")


def group_of(action: int) -> tuple[ActionGroup, int]:
    """The group of ``action`` and its offset (or kind) within the group.

    Raises:
        ValueError: if ``action`` is not in ``range(NUM_ACTIONS)``.
    """
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"action {action!r} is outside the action space range(0, {NUM_ACTIONS})")
    for group in reversed(ACTION_GROUPS):
        start = GROUP_START[group.name]
        if a >= start:
            return group, a - start + group.first_offset
    raise AssertionError  # unreachable


def claim_suspect_action(offset: int) -> int:
    """Index of the claim "I suspect the seat at ``offset``" (1–5)."""
    return CLAIM_SUSPECT_BASE + offset


def claim_faithful_action(offset: int) -> int:
    """Index of the claim "the seat at ``offset`` (0–5; 0 = me) is Faithful"."""
    return CLAIM_FAITHFUL_BASE + offset


def vote_action(offset: int, dagger: bool = False) -> int:
    """Index of naming the seat at ``offset`` (1–5) at the Round Table, with or without a Dagger."""
    return (VOTE_DAGGER_BASE if dagger else VOTE_BASE) + offset


def murder_action(offset: int) -> int:
    """Index of murdering the seat at ``offset`` (0–5; 0 = oneself)."""
    return MURDER_BASE + offset


def statement_action(kind: int) -> int:
    """Index of the finalist's statement ``kind`` (0 none, 1 Faithful, 2 Traitor)."""
    return STATEMENT_BASE + kind


def write_action(traitor: bool) -> int:
    """Index of writing Traitor (``True``) or Faithful (``False``) in the Final."""
    return WRITE_BASE + int(bool(traitor))


def describe_action(action: int, actor_seat: int | None = None, num_players: int | None = None) -> str:
    """Readable text for ``action``; with ``actor_seat``/``num_players`` offsets become seat names.

    Raises:
        ValueError: if ``action`` is not in ``range(NUM_ACTIONS)``.
    """
    group, k = group_of(action)

    def seat(offset: int) -> str:
        if actor_seat is None or num_players is None:
            return f"seat +{offset}"
        return f"player_{(actor_seat + offset) % num_players}"

    name = group.name
    if name == "NO_ATTEMPT":
        return "do not attempt the secret assignment"
    if name == "ATTEMPT":
        return "attempt the secret assignment"
    if name == "CLAIM_NONE":
        return "claim: nothing"
    if name == "CLAIM_SUSPECT":
        return f"claim: I suspect {seat(k)}"
    if name == "CLAIM_FAITHFUL":
        return "claim: I am Faithful" if k == 0 else f"claim: {seat(k)} is Faithful"
    if name == "VOTE":
        return f"vote for {seat(k)}"
    if name == "VOTE_DAGGER":
        return f"vote for {seat(k)} with a Dagger"
    if name == "NO_MURDER":
        return "no murder"
    if name == "MURDER":
        return "murder myself" if k == 0 else f"murder {seat(k)}"
    if name == "STATEMENT":
        return f"statement: {STATEMENT_TEXT[k]}"
    return f"write {WRITE_TEXT[k]}"


def action_table() -> str:
    """The action table as markdown (indices, name, meaning, phase), generated from :data:`ACTION_GROUPS`."""
    rows = ["| indices | name | meaning | phase |", "|---|---|---|---|"]
    for group in ACTION_GROUPS:
        start = GROUP_START[group.name]
        span = str(start) if group.count == 1 else f"{start}–{start + group.count - 1}"
        suffix = "" if group.count == 1 else "[offset]" if group.name not in ("STATEMENT", "WRITE") else "[kind]"
        rows.append(f"| {span} | ``{group.name}{suffix}`` | {group.meaning} | {group.phase} |")
    return "\n".join(rows)
