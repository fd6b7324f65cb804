"""The pure rules engine of *Traitors Aboard*: one game state, its legal actions and transitions.

No gymnasium or pettingzoo here. The state is a plain, deterministic state machine
driven by one seeded :class:`numpy.random.Generator` (shuffles at setup, R01's first
seat, R07's Spyglass shuffle). Vocabulary follows OpenSpiel: :attr:`GameState.current_player`,
:meth:`GameState.legal_actions`, :meth:`GameState.apply_action`, :attr:`GameState.is_terminal`,
:meth:`GameState.returns`, :meth:`GameState.action_to_string`.

Every rule of a turn lives in one method named after it (``_place_loot``, ``_play_plank``,
``_play_spyglass`` …). Hidden state (hands, roles, chest values, draw pile order) is
kept here; :mod:`traitors_env.games.traitors_aboard.observation` reads only what an agent may know.

A game can start from the shuffled deck (:meth:`GameState.new`) or from any explicit
position (:meth:`GameState.from_position`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from ...core.actions import is_index, not_an_index
from . import actions as A
from .cards import (
    HAND_SIZE,
    LOOT_VALUES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_CARD_KINDS,
    PLANKS_TO_OVERBOARD,
    ROLE_NAMES,
    SETUP_TABLE,
    CardKind,
    EndCondition,
    Role,
    TableSetup,
    table_setup,
)


class Phase(IntEnum):
    """The decision the current player is asked to make."""

    MAIN = 0  # open the chest, place loot or play an action card
    SPYGLASS_ORDER = 1  # R07: order the cards taken with Spyglass
    CATCH_RETURN_1 = 2  # R09: first card back on the draw pile (ends up under the second)
    CATCH_RETURN_2 = 3  # R09: second card back on the draw pile
    CLAIM = 4  # R14: the one claim after the card is resolved
    GAME_OVER = 5


NUM_PHASES = len(Phase) - 1  # phases in which a decision is asked

# Aliases for the per-decision code (here, in observation.py and the env): on Python 3.11 an Enum
# member lookup such as ``Phase.MAIN`` takes the metaclass's slow attribute path (~900 machine
# instructions; a global name costs tens).
_MAIN, _SPYGLASS_ORDER, _CLAIM, _GAME_OVER = Phase.MAIN, Phase.SPYGLASS_ORDER, Phase.CLAIM, Phase.GAME_OVER
_PLANK = CardKind.PLANK


class IllegalActionError(ValueError):
    """An action index that is not legal in the current state."""


class PositionError(ValueError):
    """A malformed explicit position given to :meth:`GameState.from_position`."""


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


@dataclass(frozen=True)
class GameConfig:
    """Options of one game.

    Attributes:
        num_players: 3–8 (rulebook "Setup").
        claims: the claim step after each turn (R14); ``False`` skips it.
        first_player: ``None`` draws the first seat from the RNG (R01 default);
            an int fixes it (R01 configurable).
    """

    num_players: int = 5
    claims: bool = True
    first_player: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "num_players", table_setup(self.num_players).num_players)  # raises on a bad count
        if self.first_player is not None and (
            isinstance(self.first_player, bool)
            or not isinstance(self.first_player, (int, np.integer))
            or not 0 <= self.first_player < self.num_players
        ):
            raise ValueError(
                f"first_player={self.first_player!r} is not a seat; expected None or an int in 0–{self.num_players - 1}"
            )


class _Legal:
    """Cached legal actions of one situation: sorted tuple, set and int8 mask."""

    __slots__ = ("actions", "set", "mask")

    def __init__(self, legal: list[int]) -> None:
        self.actions = tuple(sorted(legal))
        self.set = frozenset(legal)
        mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
        mask[list(legal)] = 1
        mask.flags.writeable = False
        self.mask = mask


_LEGAL_CACHE: dict[tuple, _Legal] = {}
#: Per table size, the deck as card kinds in kind order (shuffled by :meth:`GameState.new`).
_SORTED_DECKS = {
    n: tuple(kind for kind, count in enumerate(table_setup(n).deck_counts()) for _ in range(count))
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)
}


class GameState:
    """One position of a game of *Traitors Aboard*, and the rules that move it on.

    Seats are ``0 … n-1``; the draw pile and chest are Python lists whose last item
    is the top. Build with :meth:`new` or :meth:`from_position`.

    Public attributes (read them, do not write them):
        num_players, setup (:class:`TableSetup`), config, current_player, phase,
        roles (list of :class:`Role`), hands (per seat, counts per :class:`CardKind`),
        draw_pile, chest (list of :class:`ChestCard`), discard (counts per kind),
        planks (per seat, in front of them), aboard, revealed (roles shown),
        winner (:class:`Role` or ``None``), end_condition, turn, spyglass_taken.
    """

    # ------------------------------------------------------------------ setup
    def __init__(self, config: GameConfig, rng: np.random.Generator) -> None:
        self.config = config
        self.num_players = n = config.num_players
        self.setup: TableSetup = SETUP_TABLE[n]  # n was checked by GameConfig
        self.rng = rng
        self.roles: list[Role] = []
        self.hands: list[list[int]] = [[0] * NUM_CARD_KINDS for _ in range(n)]
        self.draw_pile: list[int] = []
        self.draw_known: list[int] = []  # per draw-pile card: bitmask of seats that know it (R09 returns)
        self.chest: list[ChestCard] = []
        self.discard: list[int] = [0] * NUM_CARD_KINDS
        self.planks: list[int] = [0] * n
        self.aboard: list[bool] = [True] * n
        self._aboard_bits = (1 << n) - 1  # bit s set while seat s is aboard (mirrors ``aboard``)
        self._legal_entry: _Legal | None = None  # this decision's legal actions, once computed
        self.revealed: list[bool] = [False] * n
        self.current_player = 0
        self.phase = Phase.MAIN
        self.winner: Role | None = None
        self.end_condition: EndCondition | None = None
        self.turn = 0
        # Public record of the table (what every player has seen).
        self.loot_placed = [0] * n
        self.announced_sum = [0] * n
        self.actions_played = [[0] * 5 for _ in range(n)]  # per seat, per action kind (Plank … Empty Your Pockets)
        self.pockets_emptied = [0] * n  # per target; derivable from ``targeted``, kept as a count for encode()
        self.targeted: list[tuple[int, int, int]] = []  # (player, target, 0 = Plank / 1 = Empty Your Pockets), in order
        self.claim_accuse = [-1] * n  # R16: latest claim of each kind, absolute seats / multiset indices
        self.claim_vouch = [-1] * n
        self.claim_hand = [-1] * n
        self.claim_chest = [-1] * n
        self.last_claim = [-1] * n  # latest claim action of any kind (for render)
        self.history: list[tuple[int, int]] = []  # (seat, action) of every decision
        # Turn-scoped state.
        self.spyglass_taken = 0  # cards the current player took with Spyglass this turn (R15 chest claims)
        self.spyglass_seen: list[ChestCard] = []  # those cards in the shuffled order the player saw them (R07)

    @classmethod
    def new(cls, config: GameConfig | None = None, seed: int | np.random.Generator | None = None) -> GameState:
        """A new game: roles dealt, deck shuffled, 3 cards each, first seat drawn (R01).

        Args:
            config: the options; default ``GameConfig()`` (5 players, claims on).
            seed: an int, ``None`` (fresh entropy) or a ``numpy.random.Generator`` to own.
        """
        config = config or GameConfig()
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        state = cls(config, rng)
        n, setup = state.num_players, state.setup
        # rng.shuffle of a list draws the same numbers and makes the same swaps as rng.permutation
        # of an array of that length: the same deal as indexing by a permutation, without numpy arrays.
        roles = [Role.PIRATE] * setup.pirates + [Role.MUTINEER] * setup.mutineers
        rng.shuffle(roles)
        state.roles = roles
        deck = list(_SORTED_DECKS[n])
        rng.shuffle(deck)
        for seat in range(n):
            for _ in range(HAND_SIZE):
                state.hands[seat][deck.pop()] += 1
        state.draw_pile = deck
        state.draw_known = [0] * len(deck)
        first = config.first_player
        state.current_player = int(rng.integers(n)) if first is None else int(first)
        return state

    @classmethod
    def from_position(
        cls,
        num_players: int,
        roles: Sequence[int],
        hands: Sequence[Sequence[int]],
        draw_pile: Sequence[int],
        chest: Sequence[tuple[int, int, int]] = (),
        planks: Sequence[int] | None = None,
        overboard: Sequence[int] = (),
        current_player: int = 0,
        claims: bool = True,
        seed: int | np.random.Generator | None = None,
    ) -> GameState:
        """A game set up at an explicit position, at the start of ``current_player``'s turn.

        Args:
            num_players: 3–8.
            roles: one :class:`Role` per seat; team sizes must match the setup table.
            hands: per seat, the card kinds held (any order): 3 for a seat aboard,
                none for a seat overboard.
            draw_pile: card kinds from the **top** down; at least one card (R06).
            chest: ``(card, placer, announced)`` from the **top** down: ``card`` a loot
                :class:`CardKind`, ``placer`` a seat, ``announced`` a loot kind (the
                value announced, R04). Placers know their cards; nobody else does.
            planks: per seat, Planks in front of it (0–2 aboard, 0 overboard); default none.
            overboard: seats already thrown overboard (roles revealed, R11).
            current_player: the seat whose turn starts (must be aboard).
            claims: the claim step (R14).
            seed: RNG for later Spyglass shuffles.

        Every card of the deck that is not placed anywhere is in the discard pile.

        Raises:
            PositionError: naming the bad field, for any position the rules cannot reach
                (wrong counts, more cards of a kind than the deck holds, an action card in
                the chest, an empty draw pile, a position that is already over by R12).
        """
        config = GameConfig(num_players=num_players, claims=claims, first_player=None)
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        state = cls(config, rng)
        n, setup = num_players, state.setup

        def fail(message: str) -> None:
            raise PositionError(message)

        if len(roles) != n:
            fail(f"roles has {len(roles)} entries; expected one per seat ({n})")
        try:
            state.roles = [Role(int(r)) for r in roles]
        except (TypeError, ValueError):  # TypeError: e.g. None
            fail(f"roles={list(roles)!r} holds a value that is not a Role (0 = Pirate, 1 = Mutineer)")
        if state.roles.count(Role.MUTINEER) != setup.mutineers:
            fail(
                f"roles has {_count(state.roles.count(Role.MUTINEER), 'Mutineer')}; {n} players play with "
                f"{_count(setup.pirates, 'Pirate')} and {_count(setup.mutineers, 'Mutineer')}"
            )
        overboard_set = set()
        for seat in overboard:
            if not (isinstance(seat, (int, np.integer)) and 0 <= seat < n):
                fail(f"overboard seat {seat!r} is not a seat in 0–{n - 1}")
            overboard_set.add(int(seat))
        for seat in overboard_set:
            state.aboard[seat] = False
            state._aboard_bits &= ~(1 << seat)
            state.revealed[seat] = True
        if not (isinstance(current_player, (int, np.integer)) and 0 <= current_player < n):
            fail(f"current_player={current_player!r} is not a seat in 0–{n - 1}")
        if not state.aboard[current_player]:
            fail(f"current_player={current_player} is overboard; the current player must be aboard")
        state.current_player = int(current_player)

        def kind_of(value: object, where: str) -> int:
            try:
                return int(CardKind(int(value)))  # type: ignore[arg-type]
            except (TypeError, ValueError):
                fail(f"{where}={value!r} is not a CardKind (0–{NUM_CARD_KINDS - 1})")
            raise AssertionError  # unreachable

        if len(hands) != n:
            fail(f"hands has {len(hands)} entries; expected one per seat ({n})")
        for seat, hand in enumerate(hands):
            expected = HAND_SIZE if state.aboard[seat] else 0
            if len(hand) != expected:
                fail(f"hands[{seat}] holds {len(hand)} cards; a seat {'aboard' if expected else 'overboard'} holds {expected}")
            for card in hand:
                state.hands[seat][kind_of(card, f"hands[{seat}] card")] += 1
        if len(draw_pile) == 0:
            fail("draw_pile is empty; a game with an empty draw pile is over (R06)")
        state.draw_pile = [kind_of(c, "draw_pile card") for c in reversed(draw_pile)]
        state.draw_known = [0] * len(state.draw_pile)
        for entry in reversed(chest):
            if len(entry) != 3:
                fail(f"chest entry {entry!r} is not (card, placer, announced)")
            card, placer, announced = entry
            card = kind_of(card, "chest card")
            if card > CardKind.LOOT_MINUS_2:
                fail(f"chest card {CardKind(card).name} is an action card; only loot goes in the chest (R04)")
            if not (isinstance(placer, (int, np.integer)) and 0 <= placer < n):
                fail(f"chest placer {placer!r} is not a seat in 0–{n - 1}")
            announced = kind_of(announced, "chest announced")
            if announced > CardKind.LOOT_MINUS_2:
                fail(f"chest announced={announced!r} is not a loot value index (0 = +1, 1 = 0, 2 = -2)")
            state.chest.append(ChestCard(card, int(placer), announced, 1 << int(placer)))
            state.loot_placed[placer] += 1
            state.announced_sum[placer] += LOOT_VALUES[announced]
        plank_list = [0] * n if planks is None else list(planks)
        if len(plank_list) != n:
            fail(f"planks has {len(plank_list)} entries; expected one per seat ({n})")
        for seat, count in enumerate(plank_list):
            limit = PLANKS_TO_OVERBOARD - 1 if state.aboard[seat] else 0
            if not (isinstance(count, (int, np.integer)) and 0 <= count <= limit):
                fail(f"planks[{seat}]={count!r}; a seat {'aboard' if limit else 'overboard'} has 0–{limit} Planks in front")
        state.planks = [int(c) for c in plank_list]

        used = [0] * NUM_CARD_KINDS
        for hand in state.hands:
            for kind in range(NUM_CARD_KINDS):
                used[kind] += hand[kind]
        for kind in state.draw_pile:
            used[kind] += 1
        for card in state.chest:
            used[card.kind] += 1
        used[CardKind.PLANK] += sum(state.planks)
        deck = setup.deck_counts()
        for kind in range(NUM_CARD_KINDS):
            if used[kind] > deck[kind]:
                fail(
                    f"the position uses {used[kind]} {CardKind(kind).name} cards; the {n}-player deck has {deck[kind]}"
                )
            state.discard[kind] = deck[kind] - used[kind]
        if state._check_crew():
            fail(f"the position is already over by R12 ({state.end_condition.name}); give one that is still running")
        return state

    # ------------------------------------------------------------- queries
    @property
    def is_terminal(self) -> bool:
        """Whether the game has ended."""
        return self.phase is _GAME_OVER

    def returns(self) -> list[int]:
        """Per seat: +1 if its team won, −1 if it lost, 0 while the game runs (R17)."""
        if self.winner is None:
            return [0] * self.num_players
        return [1 if role == self.winner else -1 for role in self.roles]

    def aboard_offsets_mask(self, seat: int) -> int:
        """Bitmask over offsets 0…n-1 from ``seat`` of the seats still aboard."""
        n = self.num_players
        bits = self._aboard_bits
        return ((bits >> seat) | (bits << (n - seat))) & ((1 << n) - 1)

    def _legal(self) -> _Legal:
        # Computed once per decision: apply_action clears it.
        if self._legal_entry is not None:
            return self._legal_entry
        phase = self.phase
        seat = self.current_player
        if phase is _MAIN:
            key = (0, tuple(self.hands[seat]), self.roles[seat], self.aboard_offsets_mask(seat))
        elif phase is _CLAIM:
            key = (4, self.aboard_offsets_mask(seat), self.spyglass_taken)
        elif phase is _SPYGLASS_ORDER:
            key = (1, len(self.spyglass_seen))
        elif phase is _GAME_OVER:
            key = (5,)
        else:
            key = (2, tuple(self.hands[seat]))
        entry = _LEGAL_CACHE.get(key)
        if entry is None:
            entry = _LEGAL_CACHE[key] = _Legal(_legal_actions_for(key))
        self._legal_entry = entry
        return entry

    def legal_actions(self) -> tuple[int, ...]:
        """The legal action indices, sorted; empty once the game is over."""
        return self._legal().actions

    def legal_mask(self) -> np.ndarray:
        """The legal actions as a read-only ``int8`` array of shape ``(NUM_ACTIONS,)``."""
        return self._legal().mask

    def action_to_string(self, action: int) -> str:
        """Readable text for ``action`` taken by the current player in this state."""
        text = A.describe_action(action, self.current_player, self.num_players)
        if self.phase is Phase.SPYGLASS_ORDER and A.SPYGLASS_ORDER_BASE <= action < A.RETURN_BASE:
            # Only the cards taken: with 2, the third position of the permutation stays put.
            perm = A.SPYGLASS_PERMUTATIONS[action - A.SPYGLASS_ORDER_BASE][: len(self.spyglass_seen)]
            values = ", ".join(("+1", "0", "-2")[self.spyglass_seen[p].kind] for p in perm)
            text = f"{A.spyglass_order_text(perm)} (top first: {values})"
        return text

    def chest_value(self) -> int:
        """The true value of the chest: the sum of its loot values (hidden until it is opened)."""
        return sum(LOOT_VALUES[card.kind] for card in self.chest)

    def aboard_count(self, role: Role) -> int:
        """Players of ``role`` still aboard."""
        return sum(1 for seat, r in enumerate(self.roles) if r == role and self.aboard[seat])

    def card_locations(self) -> dict[str, list[int]]:
        """Counts per :class:`CardKind` in each place (draw pile, hands, chest, discard, planks).

        Summed over places they equal the deck: every card is in exactly one place.
        """
        hands = [sum(hand[k] for hand in self.hands) for k in range(NUM_CARD_KINDS)]
        draw = [0] * NUM_CARD_KINDS
        for kind in self.draw_pile:
            draw[kind] += 1
        chest = [0] * NUM_CARD_KINDS
        for card in self.chest:
            chest[card.kind] += 1
        planks = [0] * NUM_CARD_KINDS
        planks[CardKind.PLANK] = sum(self.planks)
        return {"draw_pile": draw, "hands": hands, "chest": chest, "discard": list(self.discard), "planks": planks}

    def result(self) -> dict:
        """The end-of-game record (for ``info``): winner, end condition, roles, the chest revealed.

        Raises:
            RuntimeError: while the game is still running.
        """
        if self.winner is None:
            raise RuntimeError("the game is still running; result() is available once it is over")
        return {
            "winner": ROLE_NAMES[self.winner],
            "end_condition": self.end_condition.name.lower(),
            "roles": [ROLE_NAMES[r] for r in self.roles],
            "chest_value": self.chest_value(),
            "target": self.setup.target,
            # From the top down: true value, announced value, placer (rulebook "End of the Game" 1).
            "chest": [
                {"value": LOOT_VALUES[c.kind], "announced": LOOT_VALUES[c.announced], "placer": c.placer}
                for c in reversed(self.chest)
            ],
            "turns": self.turn,
        }

    def fingerprint(self) -> str:
        """A short hex digest of the whole state, hidden parts and RNG included (16 characters).

        Two states with the same fingerprint are, for all purposes, the same game at the same
        point; game records store it after every decision so a replay can name the first step at
        which it departs from the recorded game (:mod:`traitors_env.games.traitors_aboard.records`).
        """
        groups: dict[int, int] = {}
        chest = tuple(
            (
                c.kind,
                c.placer,
                c.announced,
                c.known_by,
                None if c.group is None else (groups.setdefault(id(c.group), len(groups)), c.group.key()),
            )
            for c in self.chest
        )
        parts = (
            self.num_players,
            self.config.claims,
            tuple(int(r) for r in self.roles),
            tuple(tuple(h) for h in self.hands),
            tuple(self.draw_pile),
            tuple(self.draw_known),
            chest,
            tuple(self.discard),
            tuple(self.planks),
            tuple(self.aboard),
            tuple(self.revealed),
            self.current_player,
            int(self.phase),
            None if self.winner is None else int(self.winner),
            self.turn,
            tuple(self.claim_accuse + self.claim_vouch + self.claim_hand + self.claim_chest + self.last_claim),
            tuple(self.targeted),
            tuple(tuple(row) for row in self.actions_played),
            self.spyglass_taken,
            tuple(c.kind for c in self.spyglass_seen),
            tuple(self.history),
            repr(self.rng.bit_generator.state),
        )
        return hashlib.blake2b(repr(parts).encode(), digest_size=8).hexdigest()

    # ---------------------------------------------------------- transitions
    def apply_action(self, action: int) -> None:
        """Apply the current player's ``action`` (an index of :mod:`traitors_env.games.traitors_aboard.actions`).

        Raises:
            IllegalActionError: if ``action`` is not in :meth:`legal_actions` (the message
                names the action, the player, the phase and the legal set).
        """
        legal = self._legal_entry or self._legal()
        if type(action) is not int or action not in legal.set:  # fast path: a legal Python int
            action = self._checked_action(action, legal)
        seat = self.current_player
        self.history.append((seat, action))
        phase = self.phase
        if phase is _MAIN:
            self._main_action(seat, action)
        elif phase is _CLAIM:
            self._make_claim(seat, action)
        elif phase is _SPYGLASS_ORDER:
            self._put_back_spyglass_cards(seat, A.SPYGLASS_PERMUTATIONS[action - A.SPYGLASS_ORDER_BASE])
        else:
            self._return_card(seat, action - A.RETURN_BASE)
        self._legal_entry = None

    def _checked_action(self, action: object, legal: _Legal) -> int:
        """``action`` as a legal ``int``: numpy integers and 0-d integer arrays (SB3's ``predict``) are accepted."""
        if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
            action = action.item()
        if isinstance(action, np.integer):
            action = int(action)
        # Only integers are action indices (not bool or float, even where they compare equal to one).
        if type(action) is int and action in legal.set:
            return action
        self._raise_illegal(action, legal)
        raise AssertionError  # unreachable: _raise_illegal raises

    @property
    def num_decisions(self) -> int:
        """Decisions taken so far (all players)."""
        return len(self.history)

    def _raise_illegal(self, action: object, legal: _Legal) -> None:
        if self.is_terminal:
            raise IllegalActionError(f"action {action!r} given after the game ended; no action is legal")
        if is_index(action, A.NUM_ACTIONS):
            what = f"action {int(action)} ({A.describe_action(action, self.current_player, self.num_players)})"
        else:
            what = not_an_index(action, A.NUM_ACTIONS)
        raise IllegalActionError(
            f"{what} is not legal for player_{self.current_player} in phase {self.phase.name}; "
            f"legal actions: {list(legal.actions)}"
        )

    def _main_action(self, seat: int, action: int) -> None:
        if action == A.OPEN_CHEST:
            self._open_chest(seat)
        elif action < A.PLANK_BASE + 1:
            card, announced = divmod(action - A.LOOT_BASE, 3)
            self._place_loot(seat, card, announced)
        elif action < A.EYP_BASE + 1:
            self._play_plank(seat, (seat + action - A.PLANK_BASE) % self.num_players)
        elif action < A.GOOD_RIDDANCE:
            self._play_empty_your_pockets(seat, (seat + action - A.EYP_BASE) % self.num_players)
        elif action == A.GOOD_RIDDANCE:
            self._play_good_riddance(seat)
        elif action == A.SPYGLASS:
            self._play_spyglass(seat)
        else:
            self._play_miraculous_catch(seat)

    def _open_chest(self, seat: int) -> None:
        """R03: a Pirate opens the chest; value ≥ target → Pirates win, else Mutineers."""
        self.revealed[seat] = True
        won = self.chest_value() >= self.setup.target
        self._end(Role.PIRATE if won else Role.MUTINEER, EndCondition.CHEST_OPENED)

    def _place_loot(self, seat: int, card: int, announced: int) -> None:
        """R04: loot face down on top of the chest, with an announced value (true or false)."""
        self.hands[seat][card] -= 1
        self.chest.append(ChestCard(card, seat, announced, 1 << seat))
        self.loot_placed[seat] += 1
        self.announced_sum[seat] += LOOT_VALUES[announced]
        self._end_of_card(seat, draw=True)

    def _use_action_card(self, seat: int, kind: int) -> None:
        """An action card is shown, then (after its effect) discarded face down."""
        self.hands[seat][kind] -= 1
        self.actions_played[seat][kind - _PLANK] += 1
        if kind != _PLANK:
            self.discard[kind] += 1

    def _play_plank(self, seat: int, target: int) -> None:
        """R11: a Plank in front of ``target``; the third throws them overboard (then R12)."""
        self._use_action_card(seat, CardKind.PLANK)
        self.targeted.append((seat, target, 0))
        self.planks[target] += 1
        if self.planks[target] >= PLANKS_TO_OVERBOARD:
            self._throw_overboard(target)
            if self._check_crew():
                return
        self._end_of_card(seat, draw=True)

    def _throw_overboard(self, seat: int) -> None:
        """R11: role revealed, Planks and hand discarded face down; the seat takes no more turns."""
        self.aboard[seat] = False
        self._aboard_bits &= ~(1 << seat)
        self.revealed[seat] = True
        self.discard[CardKind.PLANK] += self.planks[seat]
        self.planks[seat] = 0
        hand = self.hands[seat]
        for kind in range(NUM_CARD_KINDS):
            self.discard[kind] += hand[kind]
            hand[kind] = 0

    def _check_crew(self) -> bool:
        """R12: after an overboard, no Mutineer aboard → Pirates win; Mutineers ≥ Pirates aboard → Mutineers win."""
        mutineers = self.aboard_count(Role.MUTINEER)
        if mutineers == 0:
            self._end(Role.PIRATE, EndCondition.ALL_MUTINEERS_OVERBOARD)
        elif mutineers >= self.aboard_count(Role.PIRATE):
            self._end(Role.MUTINEER, EndCondition.MUTINEERS_NOT_OUTNUMBERED)
        return self.winner is not None

    def _play_good_riddance(self, seat: int) -> None:
        """R08: the top min(2, chest size) cards go to the discard pile unseen."""
        self._use_action_card(seat, CardKind.GOOD_RIDDANCE)
        taken = min(2, len(self.chest))
        if taken:
            removed = self.chest[-taken:]
            del self.chest[-taken:]
            for card in removed:
                self.discard[card.kind] += 1
            _forget_removed(removed)
        self._end_of_card(seat, draw=True)

    def _play_spyglass(self, seat: int) -> None:
        """R07: take the top min(3, chest size) cards, shuffled, and look at them.

        With 2–3 cards the player then chooses their order (phase SPYGLASS_ORDER) and the
        public loses track of which card was announced as what. One card simply goes back.
        """
        self._use_action_card(seat, CardKind.SPYGLASS)
        taken = min(3, len(self.chest))
        self.spyglass_taken = taken
        if taken == 0:
            self._end_of_card(seat, draw=True)
            return
        top = self.chest[-taken:]
        seen = [top[i] for i in self.spyglass_shuffle(taken)]
        if taken == 1:
            seen[0].known_by |= 1 << seat
            self._end_of_card(seat, draw=True)
            return
        for card in seen:
            # Nobody can place these cards now: the others lost track of their own, and the
            # Spyglass player knows them only in the shuffled order (spyglass_seen) until it
            # puts them back. Knowing them at their old positions would undo the shuffle.
            card.known_by = 0
        _scramble(self.chest, top)
        self.spyglass_seen = seen
        self.phase = Phase.SPYGLASS_ORDER

    def spyglass_shuffle(self, taken: int) -> Sequence[int]:
        """R07's shuffle: the order (indices into the taken cards, bottom first) in which the Spyglass
        player sees them; ``taken`` is 2 or 3.

        The only use of the RNG after setup. A subclass may override it to replay a given shuffle:
        the JAX twin's differential tests replay its games here with its shuffles.
        """
        return self.rng.permutation(taken)

    def _put_back_spyglass_cards(self, seat: int, perm: tuple[int, int, int]) -> None:
        """R07: the seen cards go back on top; ``perm[0]`` (an index into the seen order) on top."""
        seen = self.spyglass_seen
        taken = len(seen)
        self.chest[-taken:] = [seen[perm[i]] for i in reversed(range(taken))]
        for card in seen:
            card.known_by = 1 << seat
        self.spyglass_seen = []
        self._end_of_card(seat, draw=True)

    def _play_miraculous_catch(self, seat: int) -> None:
        """R09: draw three (R06 applies to each draw), then return two (phases CATCH_RETURN_1/2)."""
        self._use_action_card(seat, CardKind.MIRACULOUS_CATCH)
        for _ in range(3):
            if not self._draw(seat):
                return
        self.phase = Phase.CATCH_RETURN_1

    def _return_card(self, seat: int, kind: int) -> None:
        """R09: one card from the hand on top of the draw pile; the first returned ends up under the second."""
        self.hands[seat][kind] -= 1
        self.draw_pile.append(kind)
        self.draw_known.append(1 << seat)
        if self.phase is Phase.CATCH_RETURN_1:
            self.phase = Phase.CATCH_RETURN_2
        else:
            self._end_of_card(seat, draw=False)  # R05: no draw after Miraculous Catch

    def _play_empty_your_pockets(self, seat: int, target: int) -> None:
        """R10: ``target`` discards their whole hand face down and draws three; then the player draws (R05)."""
        self._use_action_card(seat, CardKind.EMPTY_YOUR_POCKETS)
        self.targeted.append((seat, target, 1))
        self.pockets_emptied[target] += 1
        hand = self.hands[target]
        for kind in range(NUM_CARD_KINDS):
            self.discard[kind] += hand[kind]
            hand[kind] = 0
        for _ in range(HAND_SIZE):
            if not self._draw(target):
                return
        self._end_of_card(seat, draw=True)

    def _draw(self, seat: int) -> bool:
        """Draw one card; R06: the game ends the moment the draw pile is empty. Returns whether it goes on."""
        self.hands[seat][self.draw_pile.pop()] += 1
        self.draw_known.pop()
        if not self.draw_pile:
            self._end(Role.MUTINEER, EndCondition.DRAW_PILE_EMPTY)
            return False
        return True

    def _end_of_card(self, seat: int, draw: bool) -> None:
        """R05 then R14: the end-of-turn draw (unless Miraculous Catch), then the claim step."""
        if draw and not self._draw(seat):
            return
        if self.config.claims:
            self.phase = _CLAIM
        else:
            self._next_turn()

    def _make_claim(self, seat: int, action: int) -> None:
        """R14–R16: record the public claim, then pass the turn."""
        self.last_claim[seat] = action
        if A.CLAIM_ACCUSE_BASE < action < A.CLAIM_VOUCH_BASE:
            self.claim_accuse[seat] = (seat + action - A.CLAIM_ACCUSE_BASE) % self.num_players
        elif A.CLAIM_VOUCH_BASE <= action < A.CLAIM_HAND_BASE:
            self.claim_vouch[seat] = (seat + action - A.CLAIM_VOUCH_BASE) % self.num_players
        elif A.CLAIM_HAND_BASE <= action < A.CLAIM_CHEST_BASE:
            self.claim_hand[seat] = action - A.CLAIM_HAND_BASE
        elif action >= A.CLAIM_CHEST_BASE:
            self.claim_chest[seat] = action - A.CLAIM_CHEST_BASE
        self._next_turn()

    def _next_turn(self) -> None:
        """R02: the next seat to the left that is still aboard."""
        n = self.num_players
        seat = (self.current_player + 1) % n
        while not self.aboard[seat]:
            seat = (seat + 1) % n
        self.current_player = seat
        self.phase = _MAIN
        self.spyglass_taken = 0
        self.turn += 1

    def _end(self, winner: Role, condition: EndCondition) -> None:
        self.winner = winner
        self.end_condition = condition
        self.phase = Phase.GAME_OVER
        self.spyglass_seen = []


# ---------------------------------------------------------------- helpers
def _scramble(chest: list[ChestCard], top: list[ChestCard]) -> None:
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


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _uniform(counts: list[int] | None) -> bool:
    return counts is not None and sum(1 for c in counts if c) <= 1


def _forget_removed(removed: list[ChestCard]) -> None:
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


def _legal_actions_for(key: tuple) -> list[int]:
    """The legal actions of a cached situation ``key`` (see :meth:`GameState._legal`)."""
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
