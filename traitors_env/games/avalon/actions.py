"""The action indices of ``avalon_v0``: one ``Discrete(NUM_ACTIONS)`` for every decision.

Declared once in :data:`ACTION_GROUPS`; the index constants, :func:`action_table` (the docs' table) and
:func:`describe_action` come from it. Seats in actions are **offsets from the acting player** (as in the package's
other games): offset 0 is the actor, offset 1 the next seat to the left (seat index + 1, wrapping), offset ``n-1``
the previous one. One policy therefore serves every seat and every table size; offsets ``>= n`` are never legal.

| indices | name | meaning | phase |
|---|---|---|---|
| 0–9 | ``PICK[offset]`` | leader: add the seat at offset 0–9 to the proposed team (A06) | propose |
| 10 | ``APPROVE`` | vote to approve the proposed team (A07) | vote |
| 11 | ``REJECT`` | vote to reject it (A07) | vote |
| 12 | ``SUCCESS`` | quest member: play Success (a Good member's only choice, A10) | quest |
| 13 | ``FAIL`` | quest member: play Fail (Evil only, A10) | quest |
| 14–22 | ``ASSASSINATE[offset]`` | the Assassin names the seat at offset 1–9 as Merlin (A14) | assassinate |
| 23 | ``CLAIM_NONE`` | make no claim (A16) | claim |
| 24–32 | ``CLAIM_EVIL[offset]`` | claim "the seat at offset 1–9 is Evil" (A16) | claim |
| 33–42 | ``CLAIM_GOOD[offset]`` | claim "the seat at offset 0–9 is Good" (0: "I am Good", A16) | claim |
| 43 | ``CLAIM_MERLIN`` | claim "I am Merlin" (A16) | claim |
| 44 | ``CLAIM_PERCIVAL`` | claim "I am Percival" (A16) | claim |

Source: rulings A06, A07, A10, A14, A16 (``docs/rules/avalon-RULINGS.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.layout import starts
from .roles import MAX_PLAYERS

__all__ = [
    "ACTION_GROUPS", "APPROVE", "ASSASSINATE_BASE", "CLAIM_EVIL_BASE", "CLAIM_GOOD_BASE", "CLAIM_MERLIN", "CLAIM_NONE",
    "CLAIM_PERCIVAL", "FAIL", "GROUP_START", "NUM_ACTIONS", "PICK_BASE", "REJECT", "SUCCESS", "action_table",
    "assassinate_action", "claim_evil_action", "claim_good_action", "describe_action", "group_of", "pick_action",
]

MAX_OFFSET = MAX_PLAYERS - 1


@dataclass(frozen=True)
class ActionGroup:
    """A block of consecutive indices standing for offsets (or nothing) ``first_offset … first_offset + count - 1``."""

    name: str
    count: int
    phase: str
    meaning: str
    first_offset: int = 0


ACTION_GROUPS: tuple[ActionGroup, ...] = (
    ActionGroup("PICK", MAX_PLAYERS, "propose", "leader: add the seat at offset 0–9 to the proposed team (A06)"),
    ActionGroup("APPROVE", 1, "vote", "vote to approve the proposed team (A07)"),
    ActionGroup("REJECT", 1, "vote", "vote to reject it (A07)"),
    ActionGroup("SUCCESS", 1, "quest", "quest member: play Success (a Good member's only choice, A10)"),
    ActionGroup("FAIL", 1, "quest", "quest member: play Fail (Evil only, A10)"),
    ActionGroup("ASSASSINATE", MAX_OFFSET, "assassinate", "the Assassin names the seat at offset 1–9 as Merlin (A14)", 1),
    ActionGroup("CLAIM_NONE", 1, "claim", "make no claim (A16)"),
    ActionGroup("CLAIM_EVIL", MAX_OFFSET, "claim", 'claim "the seat at offset 1–9 is Evil" (A16)', 1),
    ActionGroup("CLAIM_GOOD", MAX_PLAYERS, "claim", 'claim "the seat at offset 0–9 is Good" (0: "I am Good", A16)'),
    ActionGroup("CLAIM_MERLIN", 1, "claim", 'claim "I am Merlin" (A16)'),
    ActionGroup("CLAIM_PERCIVAL", 1, "claim", 'claim "I am Percival" (A16)'),
)

GROUP_START: dict[str, int]
GROUP_START, NUM_ACTIONS = starts((group.name, group.count) for group in ACTION_GROUPS)

PICK_BASE = GROUP_START["PICK"]  # + offset 0..9
APPROVE = GROUP_START["APPROVE"]
REJECT = GROUP_START["REJECT"]
SUCCESS = GROUP_START["SUCCESS"]
FAIL = GROUP_START["FAIL"]
ASSASSINATE_BASE = GROUP_START["ASSASSINATE"] - 1  # + offset 1..9
CLAIM_NONE = GROUP_START["CLAIM_NONE"]
CLAIM_EVIL_BASE = GROUP_START["CLAIM_EVIL"] - 1  # + offset 1..9
CLAIM_GOOD_BASE = GROUP_START["CLAIM_GOOD"]  # + offset 0..9
CLAIM_MERLIN = GROUP_START["CLAIM_MERLIN"]
CLAIM_PERCIVAL = GROUP_START["CLAIM_PERCIVAL"]


def group_of(action: int) -> tuple[ActionGroup, int]:
    """The group of ``action`` and its offset within the group (0 for a group of one).

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


def pick_action(offset: int) -> int:
    """Index of picking the seat at ``offset`` (0–9; 0 = the leader) for the team."""
    return PICK_BASE + offset


def assassinate_action(offset: int) -> int:
    """Index of the Assassin naming the seat at ``offset`` (1–9)."""
    return ASSASSINATE_BASE + offset


def claim_evil_action(offset: int) -> int:
    """Index of the claim "the seat at ``offset`` (1–9) is Evil"."""
    return CLAIM_EVIL_BASE + offset


def claim_good_action(offset: int) -> int:
    """Index of the claim "the seat at ``offset`` (0–9; 0 = me) is Good"."""
    return CLAIM_GOOD_BASE + offset


def describe_action(action: int, actor_seat: int | None = None, num_players: int | None = None) -> str:
    """Readable text for ``action``; with ``actor_seat`` and ``num_players`` offsets become ``player_k``.

    Raises:
        ValueError: if ``action`` is not in ``range(NUM_ACTIONS)``.
    """
    group, k = group_of(action)

    def seat(offset: int) -> str:
        if actor_seat is None or num_players is None:
            return f"seat +{offset}"
        return f"player_{(actor_seat + offset) % num_players}"

    name = group.name
    if name == "PICK":
        return "pick myself for the team" if k == 0 else f"pick {seat(k)} for the team"
    if name in ("APPROVE", "REJECT"):
        return f"vote {name.lower()}"
    if name in ("SUCCESS", "FAIL"):
        return f"play {name.capitalize()}"
    if name == "ASSASSINATE":
        return f"assassinate {seat(k)}"
    if name == "CLAIM_NONE":
        return "claim: nothing"
    if name == "CLAIM_EVIL":
        return f"claim: {seat(k)} is Evil"
    if name == "CLAIM_GOOD":
        return "claim: I am Good" if k == 0 else f"claim: {seat(k)} is Good"
    return "claim: I am Merlin" if name == "CLAIM_MERLIN" else "claim: I am Percival"


def action_table() -> str:
    """The action table as markdown (indices, name, meaning, phase), generated from :data:`ACTION_GROUPS`."""
    rows = ["| indices | name | meaning | phase |", "|---|---|---|---|"]
    for group in ACTION_GROUPS:
        start = GROUP_START[group.name]
        span = str(start) if group.count == 1 else f"{start}–{start + group.count - 1}"
        suffix = "" if group.count == 1 else "[offset]"
        rows.append(f"| {span} | ``{group.name}{suffix}`` | {group.meaning} | {group.phase} |")
    return "\n".join(rows)
