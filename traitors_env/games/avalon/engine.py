"""The pure rules engine of *The Resistance: Avalon*: one game state, its legal actions and transitions.

No gymnasium or pettingzoo here. The state is a plain, deterministic state machine driven by one seeded
:class:`numpy.random.Generator` (A18): the deal of roles and the first leader (A04), the shuffle of each quest's
cards (A11). Vocabulary follows OpenSpiel and the package's other engines: :attr:`GameState.current_player`,
:meth:`GameState.legal_actions`, :meth:`GameState.apply_action`, :attr:`GameState.is_terminal`,
:meth:`GameState.returns`, :meth:`GameState.action_to_string`.

A quest (rulings A05–A12) is a sequence of decisions, each asked of one seat:

1. ``PROPOSE``: the leader picks the team's members one per decision (A06); a picked seat cannot be picked again.
2. ``CLAIM`` (only with ``claims=True``, A16): every seat, from the leader on, makes one public claim.
3. ``VOTE``: every seat, from the leader on, approves or rejects (A07). Votes are kept hidden
   (:attr:`GameState.pending_votes`) until the last is cast, then revealed together; a strict majority approves
   (A08). A rejection passes leadership left and the quest is proposed again; the fifth rejection in a row ends
   the game for Evil (A09).
4. ``QUEST``: every member of an approved team, in seat order, plays Success or Fail (A10, Good only Success);
   the cards are shuffled and only the number of Fails is public (A11). Leadership passes left (A12).
5. ``ASSASSINATE``: after three successes, if Merlin is in the role set, the Assassin names a seat (A14).

Hidden state (never read into another seat's observation): :attr:`GameState.roles`, the current vote's
:attr:`GameState.pending_votes`, the current quest's :attr:`GameState.pending_cards`, and
:attr:`GameState.played_cards` (who played which card on each quest).
"""

from __future__ import annotations

import copy as _copy
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from enum import IntEnum

import numpy as np

from ...core.actions import as_index, illegal_action
from . import actions as A
from .roles import (
    DEFAULT_PLAYERS,
    EVIL,
    GOOD,
    MAX_PROPOSALS,
    NUM_QUESTS,
    OPTIONAL_ROLES,
    ROLE_NAMES,
    SIDE_NAMES,
    Role,
    check_num_players,
    fails_needed,
    role_set,
    side_of_role,
    team_sizes,
)

__all__ = ["OUTCOMES", "AvalonConfig", "GameState", "IllegalActionError", "Phase", "Proposal", "QuestResult"]


class Phase(IntEnum):
    """The decision the current player is asked to make."""

    PROPOSE = 0  # A06: the leader adds one member to the team
    CLAIM = 1  # A16: one public claim
    VOTE = 2  # A07: approve or reject
    QUEST = 3  # A10: Success or Fail
    ASSASSINATE = 4  # A14: the Assassin names Merlin
    GAME_OVER = 5


NUM_PHASES = len(Phase) - 1  # phases in which a decision is asked

#: How a game ends (``GameState.outcome``) → the side that wins. The names are the full game's; with a shorter
#: ``quest_track`` or ``max_proposals`` (the small variants, S04) "three" and "five" read as the config's counts.
OUTCOMES = {
    "three_fails": EVIL,  # A13
    "five_rejections": EVIL,  # A09
    "merlin_assassinated": EVIL,  # A14
    "merlin_survived": GOOD,  # A14
    "three_successes": GOOD,  # A14, without Merlin in the role set
}


class IllegalActionError(ValueError):
    """An action index that is not legal in the current state."""


def _flag(name: str, value: object) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name}={value!r} is not supported; expected True or False")
    return bool(value)


@dataclass(frozen=True)
class AvalonConfig:
    """Options of one game; every default is the rulings' (``docs/rules/avalon-RULINGS.md``).

    Attributes:
        num_players: 5–10 (A01).
        claims: the structured claim round after each complete proposal (A16; default off, DeepRole's no-talk game).
        merlin: Merlin and the Assassin (A02, default on; off: no assassination, A14).
        percival, morgana, mordred, oberon: the optional roles (A02, default off).
        first_leader: the first leader's seat; ``None`` (default) draws it from the seeded generator (A04).
        quest_track: the team sizes of the quests played, 1–5 quests (default ``None``: A05's five for the table).
            Good wins on a majority of the track's quests succeeding (3 of 5, 2 of 3, 1 of 1); Evil as soon as that
            is out of reach (3 failures of 5; of a track of 2, one failure), as A13/A14 (small variants, S04).
        max_proposals: the rejected proposals in a row on one quest that end the game for Evil (1–5; A09's 5).

    Raises:
        ValueError: naming the bad option and what is allowed, and for a role set the table cannot hold (A02).
    """

    num_players: int = DEFAULT_PLAYERS
    claims: bool = False
    merlin: bool = True
    percival: bool = False
    morgana: bool = False
    mordred: bool = False
    oberon: bool = False
    first_leader: int | None = None
    quest_track: tuple[int, ...] | None = None
    max_proposals: int = MAX_PROPOSALS

    def __post_init__(self) -> None:
        object.__setattr__(self, "num_players", check_num_players(self.num_players))
        for name in ("claims", "merlin", *OPTIONAL_ROLES):
            object.__setattr__(self, name, _flag(name, getattr(self, name)))
        leader = self.first_leader
        if leader is not None:
            if isinstance(leader, (bool, np.bool_)) or not isinstance(leader, (int, np.integer)) or not (
                0 <= leader < self.num_players
            ):
                raise ValueError(f"first_leader={leader!r} is not a seat; expected None or an int in "
                                 f"0–{self.num_players - 1} (A04)")
            object.__setattr__(self, "first_leader", int(leader))
        object.__setattr__(self, "quest_track", _track(self.quest_track, self.num_players))
        limit = self.max_proposals
        if isinstance(limit, (bool, np.bool_)) or not isinstance(limit, (int, np.integer)) or not (
            1 <= limit <= MAX_PROPOSALS
        ):
            raise ValueError(f"max_proposals={limit!r} is not supported; expected an int 1–{MAX_PROPOSALS} (A09: the "
                             "observation records at most 5 proposals a quest)")
        object.__setattr__(self, "max_proposals", int(limit))
        self.roles  # noqa: B018  (A02: refuse a role set the table cannot hold, at construction)

    def __repr__(self) -> str:
        # The options added for the small variants are shown only where they differ from the rulings' defaults, so
        # that the full game's repr, and with it GameState.fingerprint (in every recorded game), stays as it was.
        names = [f.name for f in fields(self)]
        if self.quest_track is None and self.max_proposals == MAX_PROPOSALS:
            names = names[:-2]
        return "AvalonConfig(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in names) + ")"

    @property
    def track(self) -> tuple[int, ...]:
        """The team sizes of the quests played (``quest_track``, or A05's five)."""
        return team_sizes(self.num_players) if self.quest_track is None else self.quest_track

    @property
    def quests_to_win(self) -> int:
        """Successes that win for Good (then the assassination, A14): a majority of the track (3 of 5)."""
        return len(self.track) // 2 + 1

    @property
    def failures_to_lose(self) -> int:
        """Failures that win for Evil (A13): the first that leaves Good short of a majority (3 of 5)."""
        return len(self.track) - self.quests_to_win + 1

    @property
    def roles(self) -> tuple[Role, ...]:
        """The roles dealt (sorted), from :func:`~traitors_env.games.avalon.roles.role_set`."""
        return role_set(self.num_players, self.merlin, self.percival, self.morgana, self.mordred, self.oberon)


def _track(track: object, num_players: int) -> tuple[int, ...] | None:
    """``quest_track`` checked: ``None``, or a tuple or list of 1–5 team sizes, each an int from the fails the quest
    needs (A11: 2 on quest 4 at 7+ players) to ``min(num_players, 5)`` (A05's largest team, the observation's bound);
    ValueError naming it."""
    if track is None:
        return None
    largest = min(num_players, max(max(team_sizes(n)) for n in range(5, 11)))
    sizes = tuple(track) if isinstance(track, (tuple, list)) else None  # not a set or dict: the order is the track
    if (sizes is None or not 1 <= len(sizes) <= NUM_QUESTS or any(
            isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer))
            or not fails_needed(num_players, q) <= k <= largest for q, k in enumerate(sizes, 1))):
        raise ValueError(f"quest_track={track!r} is not supported; expected None (A05's five quests) or a tuple of "
                         f"1–{NUM_QUESTS} team sizes, each an int 1–{largest} (2–{largest} for quest 4 at 7 or more "
                         "players, which needs 2 Fails, A11)")
    return tuple(int(k) for k in sizes)


@dataclass
class Proposal:
    """One proposed team (public once complete, A06) and its vote (public once every vote is cast, A07).

    Attributes:
        quest: 1–5. number: 1–5, the proposal's number on its quest. leader: the proposing seat.
        team: the members, sorted. claims: per seat, the claim action made after it (A16), −1 for none yet
        (or claims off). votes: per seat, ``True`` approve / ``False`` reject; ``None`` until revealed.
        approved: ``None`` until revealed (A08).
    """

    quest: int
    number: int
    leader: int
    team: tuple[int, ...]
    claims: list[int]
    votes: tuple[bool, ...] | None = None
    approved: bool | None = None


@dataclass
class QuestResult:
    """One quest played (A10, A11): its team, the number of Fails, whether it succeeded, the cards as revealed
    (shuffled: ``True`` = Fail; their order says nothing of who played them)."""

    quest: int
    team: tuple[int, ...]
    fails: int
    success: bool
    cards: tuple[bool, ...] = field(default=())


class GameState:
    """One position of a game of *Avalon*, and the rules that move it on. Build with :meth:`new`.

    Public attributes (read them, do not write them):
        config, num_players, team_sizes (5 quests), leader, quest (1–5; the quest being played), phase,
        current_player, team (the members picked so far of the proposal being made; public once complete),
        rejections (rejected proposals in a row on this quest, A09), proposals (list of :class:`Proposal`, the
        whole game), quests (list of :class:`QuestResult`), assassin_target, outcome (a key of :data:`OUTCOMES`
        or ``None``), winning_side (0 Good, 1 Evil, or ``None``), winners (per seat), events (the public log:
        dicts with ``"kind"``), history (every decision: ``(seat, action)``).
    Hidden: roles (per seat, :class:`Role`), pending_votes (this vote's votes before the last is cast),
        pending_cards (this quest's cards before the last is played), played_cards (per quest played: seat →
        ``True`` for Fail).
    Derived: sides, side_of(seat), is_evil(seat), known_evil(seat), merlin_candidates(seat), knowledge(seat),
        team_size, fails_needed(quest), successes, failures, merlin, assassin, seat_order(first).
    """

    def __init__(self, config: AvalonConfig, rng: np.random.Generator) -> None:
        self.config = config
        self.num_players = n = config.num_players
        self.rng = rng
        self.team_sizes: tuple[int, ...] = config.track
        self.roles: list[Role] = list(config.roles)
        self.leader = 0
        self.quest = 1
        self.phase = Phase.PROPOSE
        self.current_player = 0
        self._queue: list[int] = []
        self.team: list[int] = []
        self.rejections = 0
        self.proposals: list[Proposal] = []
        self.quests: list[QuestResult] = []
        self.pending_votes: list[bool | None] = [None] * n
        self.pending_cards: dict[int, bool] = {}
        self.played_cards: list[dict[int, bool]] = []
        self.assassin_target: int | None = None
        self.outcome: str | None = None
        self.winning_side: int | None = None
        self.winners: list[bool] = [False] * n
        self.events: list[dict] = []
        self.history: list[tuple[int, int]] = []

    def copy(self) -> GameState:
        """An independent copy, as ``copy.deepcopy`` gives, made in a fraction of its time: the containers the
        rules change are copied, what they never change after it is made is shared (the config, the quests'
        results, the public log's entries: an event dict is appended once and never written again).
        (The secrets test copies positions tens of thousands of times: deepcopy was 3/4 of its 5 minutes.)"""
        other = _copy.copy(self)
        other.rng = _copy.deepcopy(self.rng)
        other.roles = list(self.roles)
        other._queue = list(self._queue)
        other.team = list(self.team)
        other.proposals = [replace(p, claims=list(p.claims)) for p in self.proposals]
        other.quests = list(self.quests)
        other.pending_votes = list(self.pending_votes)
        other.pending_cards = dict(self.pending_cards)
        other.played_cards = [dict(cards) for cards in self.played_cards]
        other.winners = list(self.winners)
        other.events = list(self.events)
        other.history = list(self.history)
        return other

    @classmethod
    def new(cls, config: AvalonConfig | None = None, seed: int | np.random.Generator | None = None,
            roles: Sequence[int] | None = None) -> GameState:
        """A new game: roles dealt uniformly over seats, then the first leader drawn (A04), quest 1 begun.

        Args:
            config: the options; default ``AvalonConfig()`` (5 players, Merlin and the Assassin, no claims).
            seed: an int, ``None`` (fresh entropy) or a ``numpy.random.Generator`` to own.
            roles: an explicit deal (per seat a :class:`Role`), for tests and explicit positions; it must be a
                permutation of the config's role set. ``None``: dealt from the generator.

        Raises:
            ValueError: for ``roles`` that are not a permutation of the config's role set.
        """
        config = config or AvalonConfig()
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        state = cls(config, rng)
        if roles is None:
            state.roles = [Role(int(r)) for r in rng.permutation(np.array(config.roles, dtype=np.int64))]
        else:
            if sorted(int(r) for r in roles) != sorted(int(r) for r in config.roles):
                raise ValueError(f"roles={[int(r) for r in roles]!r} is not a deal of this table's role set "
                                 f"{[ROLE_NAMES[r] for r in config.roles]} (A02)")
            state.roles = [Role(int(r)) for r in roles]
        state.leader = config.first_leader if config.first_leader is not None else int(rng.integers(state.num_players))
        state.events.append({"kind": "start", "leader": state.leader, "num_players": state.num_players})
        state._start_proposal()
        return state

    # ------------------------------------------------------------------------------------------------ queries
    @property
    def is_terminal(self) -> bool:
        return self.phase is Phase.GAME_OVER

    @property
    def sides(self) -> list[int]:
        """Per seat: 0 Good, 1 Evil (hidden: the deal)."""
        return [side_of_role(r) for r in self.roles]

    def side_of(self, seat: int) -> int:
        return side_of_role(self.roles[seat])

    def is_evil(self, seat: int) -> bool:
        return side_of_role(self.roles[seat]) == EVIL

    def _seat_of(self, role: Role) -> int | None:
        return self.roles.index(role) if role in self.roles else None

    @property
    def merlin(self) -> int | None:
        """Merlin's seat, ``None`` without Merlin (hidden)."""
        return self._seat_of(Role.MERLIN)

    @property
    def assassin(self) -> int | None:
        """The Assassin's seat, ``None`` without Merlin in the role set (hidden)."""
        return self._seat_of(Role.ASSASSIN)

    @property
    def team_size(self) -> int:
        """The current quest's team size (A05)."""
        return self.team_sizes[min(self.quest, len(self.team_sizes)) - 1]

    def fails_needed(self, quest: int | None = None) -> int:
        """Fails that make quest ``quest`` (default: the current one) fail (A11)."""
        return fails_needed(self.num_players, self.quest if quest is None else quest)

    @property
    def successes(self) -> int:
        return sum(q.success for q in self.quests)

    @property
    def failures(self) -> int:
        return sum(not q.success for q in self.quests)

    def seat_order(self, first: int) -> list[int]:
        """Every seat from ``first`` on, to the left (increasing seat index, wrapping)."""
        n = self.num_players
        return [(first + i) % n for i in range(n)]

    def known_evil(self, seat: int) -> frozenset[int]:
        """The other seats ``seat`` sees as Evil at the start (A03): an Evil player other than Oberon sees the Evil
        players but Oberon; Merlin sees the Evil players but Mordred; everyone else sees none."""
        role = self.roles[seat]
        if role == Role.MERLIN:
            return frozenset(s for s, r in enumerate(self.roles) if side_of_role(r) == EVIL and r != Role.MORDRED)
        if side_of_role(role) == EVIL and role != Role.OBERON:
            return frozenset(s for s, r in enumerate(self.roles)
                             if s != seat and side_of_role(r) == EVIL and r != Role.OBERON)
        return frozenset()

    def merlin_candidates(self, seat: int) -> frozenset[int]:
        """Percival's knowledge (A03): the seats that are Merlin or Morgana (not which is which); empty for others."""
        if self.roles[seat] != Role.PERCIVAL:
            return frozenset()
        return frozenset(s for s, r in enumerate(self.roles) if r in (Role.MERLIN, Role.MORGANA))

    def knowledge(self, seat: int) -> dict:
        """Everything ``seat`` knows privately (A03): ``{"role": Role, "known_evil": frozenset,
        "merlin_candidates": frozenset}``."""
        return {"role": self.roles[seat], "known_evil": self.known_evil(seat),
                "merlin_candidates": self.merlin_candidates(seat)}

    def returns(self) -> list[float]:
        """Per seat: +1 if its side won, −1 otherwise (A15); 0 while the game runs."""
        if not self.is_terminal:
            return [0.0] * self.num_players
        return [1.0 if won else -1.0 for won in self.winners]

    def legal_actions(self) -> list[int]:
        """The current player's legal action indices, sorted; empty once the game is over."""
        phase, seat, n = self.phase, self.current_player, self.num_players
        if phase is Phase.PROPOSE:
            return [A.pick_action(o) for o in range(n) if (seat + o) % n not in self.team]
        if phase is Phase.CLAIM:
            return ([A.CLAIM_NONE] + [A.claim_evil_action(o) for o in range(1, n)]
                    + [A.claim_good_action(o) for o in range(n)] + [A.CLAIM_MERLIN, A.CLAIM_PERCIVAL])
        if phase is Phase.VOTE:
            return [A.APPROVE, A.REJECT]
        if phase is Phase.QUEST:
            return [A.SUCCESS, A.FAIL] if self.is_evil(seat) else [A.SUCCESS]
        if phase is Phase.ASSASSINATE:
            return [A.assassinate_action(o) for o in range(1, n)]
        return []

    def legal_mask(self) -> np.ndarray:
        """The legal actions as ``int8`` of shape ``(NUM_ACTIONS,)``."""
        mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def action_to_string(self, action: int) -> str:
        """Readable text for ``action`` of the current player."""
        return A.describe_action(action, self.current_player, self.num_players)

    def result(self) -> dict:
        """The end-of-game record, everything revealed (absolute seats).

        Keys: ``outcome`` (a key of :data:`OUTCOMES`), ``winning_side`` (``"good"``/``"evil"``), ``winners`` (seats),
        ``roles`` (names), ``sides`` (0 Good / 1 Evil), ``merlin``, ``assassin``, ``assassin_target``,
        ``quests`` (per quest: team, fails, success), ``played_cards`` (per quest: seats that played Fail),
        ``proposals`` (how many), ``rewards``.

        Raises:
            RuntimeError: while the game is still running.
        """
        if not self.is_terminal:
            raise RuntimeError("the game is still running; result() is available once it is over")
        return {
            "outcome": self.outcome,
            "winning_side": SIDE_NAMES[self.winning_side].lower(),
            "winners": [s for s in range(self.num_players) if self.winners[s]],
            "roles": [ROLE_NAMES[r] for r in self.roles],
            "sides": self.sides,
            "merlin": self.merlin,
            "assassin": self.assassin,
            "assassin_target": self.assassin_target,
            "quests": [{"team": list(q.team), "fails": q.fails, "success": q.success} for q in self.quests],
            "played_cards": [sorted(s for s, fail in cards.items() if fail) for cards in self.played_cards],
            "proposals": len(self.proposals),
            "rewards": self.returns(),
        }

    def fingerprint(self) -> str:
        """A short hex digest of the whole state, hidden parts and generator included (16 characters)."""
        parts = (self.config, [int(r) for r in self.roles], self.leader, self.quest, int(self.phase),
                 self.current_player, self._queue, self.team, self.rejections, self.proposals, self.quests,
                 self.pending_votes, sorted(self.pending_cards.items()), [sorted(c.items()) for c in self.played_cards],
                 self.assassin_target, self.outcome, self.winners, self.history,
                 repr(self.rng.bit_generator.state))
        return hashlib.blake2b(repr(parts).encode(), digest_size=8).hexdigest()

    # ------------------------------------------------------------------------------------------- transitions
    def apply_action(self, action: int) -> None:
        """Apply the current player's ``action`` (an index of :mod:`traitors_env.games.avalon.actions`).

        Raises:
            IllegalActionError: if ``action`` is not legal (naming it, the player, the phase and the legal set).
        """
        legal = self.legal_actions()
        action = self._checked_action(action, legal)
        seat, n = self.current_player, self.num_players
        self.history.append((seat, action))
        phase = self.phase
        if phase is Phase.PROPOSE:
            self.team.append((seat + action - A.PICK_BASE) % n)
            if len(self.team) == self.team_size:
                self._complete_proposal()
            return
        if phase is Phase.CLAIM:
            self.proposals[-1].claims[seat] = action
            self.events.append({"kind": "claim", "seat": seat, "claim": self._claim_words(seat, action)})
        elif phase is Phase.VOTE:
            self.pending_votes[seat] = action == A.APPROVE
        elif phase is Phase.QUEST:
            self.pending_cards[seat] = action == A.FAIL
        else:  # ASSASSINATE
            self._assassinate((seat + action - A.ASSASSINATE_BASE) % n)
            return
        self._queue.pop(0)
        if self._queue:
            self.current_player = self._queue[0]
        elif phase is Phase.CLAIM:
            self._ask(Phase.VOTE, self.seat_order(self.leader))
        elif phase is Phase.VOTE:
            self._resolve_vote()
        else:
            self._resolve_quest()

    def _claim_words(self, seat: int, action: int) -> str:
        return A.describe_action(action, seat, self.num_players).replace("claim: ", "")

    def _checked_action(self, action: object, legal: list[int]) -> int:
        action = as_index(action)
        if type(action) is int and action in legal:
            return action
        raise illegal_action(self, action, legal, A, IllegalActionError)

    def _ask(self, phase: Phase, seats: list[int]) -> None:
        self.phase = phase
        self._queue = list(seats)
        self.current_player = seats[0]

    def _start_proposal(self) -> None:
        """A06: the leader picks the team, one member per decision."""
        self.team = []
        self._ask(Phase.PROPOSE, [self.leader])

    def _complete_proposal(self) -> None:
        """A06: the complete proposal is public; then the claims (A16) or the vote (A07), from the leader on."""
        team = tuple(sorted(self.team))
        number = self.rejections + 1
        self.proposals.append(Proposal(self.quest, number, self.leader, team, [-1] * self.num_players))
        self.events.append({"kind": "proposal", "quest": self.quest, "number": number, "leader": self.leader,
                            "team": list(team)})
        self.pending_votes = [None] * self.num_players
        self._ask(Phase.CLAIM if self.config.claims else Phase.VOTE, self.seat_order(self.leader))

    def _resolve_vote(self) -> None:
        """A07 reveal, A08 strict majority, A09 rejection (the fifth in a row, ``max_proposals``: Evil wins)."""
        votes = tuple(bool(v) for v in self.pending_votes)
        approved = 2 * sum(votes) > self.num_players
        proposal = self.proposals[-1]
        proposal.votes, proposal.approved = votes, approved
        self.pending_votes = [None] * self.num_players
        self.events.append({"kind": "votes", "quest": self.quest, "votes": list(votes), "approved": approved})
        if approved:
            self.rejections = 0
            self.pending_cards = {}
            self._ask(Phase.QUEST, sorted(proposal.team))
            return
        self.rejections += 1
        if self.rejections >= self.config.max_proposals:
            self._end("five_rejections")
            return
        self.leader = (self.leader + 1) % self.num_players
        self._start_proposal()

    def _resolve_quest(self) -> None:
        """A11: the cards shuffled, the number of Fails revealed; A13/A14 at three failures or successes (of a
        shorter ``quest_track``, its majority); A12."""
        team = self.proposals[-1].team
        cards = [self.pending_cards[s] for s in team]
        order = self.rng.permutation(len(cards))
        shuffled = tuple(bool(cards[i]) for i in order)
        fails = sum(shuffled)
        success = fails < self.fails_needed()
        self.played_cards.append(dict(self.pending_cards))
        self.pending_cards = {}
        self.quests.append(QuestResult(self.quest, team, fails, success, shuffled))
        self.events.append({"kind": "quest", "quest": self.quest, "team": list(team), "fails": fails,
                            "success": success})
        if self.failures >= self.config.failures_to_lose:
            self._end("three_fails")
            return
        if self.successes >= self.config.quests_to_win:
            if self.assassin is not None:
                self.events.append({"kind": "assassination_begins", "assassin": self.assassin})
                self._ask(Phase.ASSASSINATE, [self.assassin])
            else:
                self._end("three_successes")
            return
        self.quest += 1
        self.leader = (self.leader + 1) % self.num_players
        self._start_proposal()

    def _assassinate(self, target: int) -> None:
        """A14: naming Merlin wins for Evil; any other seat, for Good."""
        self.assassin_target = target
        hit = self.roles[target] == Role.MERLIN
        self.events.append({"kind": "assassination", "assassin": self.current_player, "target": target, "hit": hit})
        self._end("merlin_assassinated" if hit else "merlin_survived")

    def _end(self, outcome: str) -> None:
        self.outcome = outcome
        self.winning_side = OUTCOMES[outcome]
        self.winners = [side_of_role(r) == self.winning_side for r in self.roles]
        self.phase = Phase.GAME_OVER
        self._queue = []
        self.events.append({"kind": "end", "outcome": outcome, "winning_side": SIDE_NAMES[self.winning_side].lower()})
