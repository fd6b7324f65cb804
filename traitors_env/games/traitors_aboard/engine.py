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
position (:meth:`GameState.from_position`, checked in :mod:`~traitors_env.games.traitors_aboard.position`).
The chest's cards and what the public knows of them live in :mod:`~traitors_env.games.traitors_aboard.chest`;
the legal action sets in :mod:`~traitors_env.games.traitors_aboard.legal`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from ...core.actions import as_index, illegal_action
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
from .chest import ChestCard, ScrambledGroup, forget_removed, scramble
from .legal import Legal, legal_for
from .position import PositionError, set_position

__all__ = [
    "NUM_PHASES",
    "ChestCard",
    "GameConfig",
    "GameState",
    "IllegalActionError",
    "Phase",
    "PositionError",
    "ScrambledGroup",
]


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

    #: the small variant the game was dealt from (:func:`.small.deal`; S01–S03), else ``None``: a replay (the
    #: metrics) deals it the same way
    small_variant: str | None = None

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
        self._legal_entry: Legal | None = None  # this decision's legal actions, once computed
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
        set_position(state, roles, hands, draw_pile, chest, planks, overboard, current_player)
        if state._check_crew():
            raise PositionError(
                f"the position is already over by R12 ({state.end_condition.name}); give one that is still running"
            )
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

    def _legal(self) -> Legal:
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
        self._legal_entry = entry = legal_for(key)
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

    def _checked_action(self, action: object, legal: Legal) -> int:
        """``action`` as a legal ``int``: numpy integers and 0-d integer arrays (SB3's ``predict``) are accepted."""
        action = as_index(action)
        if type(action) is int and action in legal.set:
            return action
        raise illegal_action(self, action, legal.actions, A, IllegalActionError)

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
            forget_removed(removed)
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
        scramble(self.chest, top)
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
