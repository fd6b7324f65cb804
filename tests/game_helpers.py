"""Shared helpers of the rules, invariant and secrets tests.

``position(...)`` builds explicit positions with readable defaults; ``expected_legal(state)``
is an independent reading of the rulebook and rulings (R03–R15) that the engine's legal set is
compared with; ``random_play(...)`` plays random legal moves and calls a check after each one.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence

import numpy as np
from hypothesis import strategies as st

from traitors_env.games.traitors_aboard import actions as A
from traitors_env.games.traitors_aboard.cards import SETUP_TABLE, CardKind, Role
from traitors_env.games.traitors_aboard.engine import GameConfig, GameState, Phase
from traitors_env.games.traitors_aboard.hidden import hidden_variant  # noqa: F401  (re-exported to the tests)

P, M = Role.PIRATE, Role.MUTINEER
PLUS, ZERO, MINUS = CardKind.LOOT_PLUS_1, CardKind.LOOT_ZERO, CardKind.LOOT_MINUS_2
PL, GR, SG, MC, EYP = (
    CardKind.PLANK,
    CardKind.GOOD_RIDDANCE,
    CardKind.SPYGLASS,
    CardKind.MIRACULOUS_CATCH,
    CardKind.EMPTY_YOUR_POCKETS,
)
LOOT_VALUE = {PLUS: 1, ZERO: 0, MINUS: -2}
TABLE_SIZES = tuple(range(3, 9))
DEFAULT_HAND = (PLUS, ZERO, MINUS)


def default_roles(num_players: int) -> list[Role]:
    """Pirates first, the Mutineers on the last seats (team sizes of the setup table)."""
    setup = SETUP_TABLE[num_players]
    return [P] * setup.pirates + [M] * setup.mutineers


def position(
    num_players: int = 3,
    *,
    roles: Sequence[int] | None = None,
    hands: dict[int, Sequence[int]] | None = None,
    draw_pile: Sequence[int] = (PL,) * 6,
    chest: Sequence[tuple[int, int, int]] = (),
    planks: Sequence[int] | None = None,
    overboard: Sequence[int] = (),
    current_player: int = 0,
    claims: bool = True,
    seed: int = 0,
) -> GameState:
    """``GameState.from_position`` with defaults: every seat aboard holds {+1, 0, −2} unless ``hands`` says otherwise."""
    roles = default_roles(num_players) if roles is None else roles
    all_hands = [() if seat in overboard else DEFAULT_HAND for seat in range(num_players)]
    for seat, hand in (hands or {}).items():
        all_hands[seat] = tuple(hand)
    return GameState.from_position(
        num_players,
        roles=roles,
        hands=all_hands,
        draw_pile=draw_pile,
        chest=chest,
        planks=planks,
        overboard=overboard,
        current_player=current_player,
        claims=claims,
        seed=seed,
    )


def hand_list(state: GameState, seat: int) -> list[int]:
    """The hand of ``seat`` as a sorted list of card kinds."""
    return sorted(kind for kind, count in enumerate(state.hands[seat]) for _ in range(count))


def draw_top_first(state: GameState) -> list[int]:
    """The draw pile from the top down."""
    return list(reversed(state.draw_pile))


def chest_top_first(state: GameState) -> list[tuple[int, int, int]]:
    """The chest from the top down as ``(kind, placer, announced)``."""
    return [(card.kind, card.placer, card.announced) for card in reversed(state.chest)]


def offset(actor: int, target: int, num_players: int) -> int:
    """The offset to the left from ``actor`` to ``target`` (actions name seats by offset)."""
    return (target - actor) % num_players


def play_claim_none(state: GameState) -> None:
    """Finish the turn with "no claim" if the claim step is asked."""
    if state.phase is Phase.CLAIM:
        state.apply_action(A.CLAIM_NONE)


# ------------------------------------------------------------------ independent legal set
def expected_legal(state: GameState) -> set[int]:
    """The legal actions by the rulebook and rulings, computed without the engine's legal-move code."""
    if state.winner is not None:
        return set()
    n = state.num_players
    seat = state.current_player
    hand = state.hands[seat]
    others_aboard = [o for o in range(1, n) if state.aboard[(seat + o) % n]]
    legal: set[int] = set()
    if state.phase is Phase.MAIN:
        if state.roles[seat] == P:  # R03
            legal.add(A.OPEN_CHEST)
        for card in (PLUS, ZERO, MINUS):  # R04: any announcement, true or false
            if hand[card]:
                legal.update(A.loot_action(card, announced) for announced in range(3))
        if hand[PL]:  # R11: others aboard
            legal.update(A.plank_action(o) for o in others_aboard)
        if hand[EYP]:  # R10: others aboard
            legal.update(A.empty_your_pockets_action(o) for o in others_aboard)
        if hand[GR]:
            legal.add(A.GOOD_RIDDANCE)
        if hand[SG]:
            legal.add(A.SPYGLASS)
        if hand[MC]:
            legal.add(A.MIRACULOUS_CATCH)
    elif state.phase is Phase.SPYGLASS_ORDER:  # R07: orders of the taken cards only
        taken = len(state.spyglass_seen)
        for perm in A.SPYGLASS_PERMUTATIONS:
            if sorted(perm[:taken]) == list(range(taken)):
                legal.add(A.spyglass_order_action(perm))
    elif state.phase in (Phase.CATCH_RETURN_1, Phase.CATCH_RETURN_2):  # R09: any card in hand
        legal.update(A.return_action(kind) for kind in range(len(hand)) if hand[kind])
    elif state.phase is Phase.CLAIM:  # R15
        legal.add(A.CLAIM_NONE)
        legal.update(A.accuse_action(o) for o in others_aboard)
        legal.update(A.vouch_action(o) for o in [0, *others_aboard])
        legal.update(A.hand_claim_action(m) for m in A.HAND_MULTISETS)
        if state.spyglass_taken:
            legal.update(A.chest_claim_action(m) for m in A.CHEST_MULTISETS if len(m) == state.spyglass_taken)
    return legal


# ------------------------------------------------------------------ random play
def random_action(state: GameState, rng: np.random.Generator, open_prob: float = 0.05) -> int:
    """A random legal action; opening the chest only with probability ``open_prob`` (so games run long)."""
    legal = list(state.legal_actions())
    if A.OPEN_CHEST in legal and len(legal) > 1:
        if rng.random() < open_prob:
            return A.OPEN_CHEST
        legal.remove(A.OPEN_CHEST)
    return int(legal[rng.integers(len(legal))])


def random_play(
    state: GameState,
    rng: np.random.Generator,
    check: Callable[[GameState], None] | None = None,
    open_prob: float = 0.05,
    max_decisions: int = 5000,
) -> GameState:
    """Play random legal moves to the end, calling ``check(state)`` before the first and after every move."""
    if check:
        check(state)
    for _ in range(max_decisions):
        if state.is_terminal:
            return state
        state.apply_action(random_action(state, rng, open_prob))
        if check:
            check(state)
    raise AssertionError(f"the game did not end within {max_decisions} decisions")


def random_states(num_players: int, claims: bool, seed: int, open_prob: float = 0.05) -> list[GameState]:
    """Copies of every state of one random game (start, after each decision)."""
    states: list[GameState] = []
    rng = np.random.default_rng(seed + 1_000_003)
    state = GameState.new(GameConfig(num_players=num_players, claims=claims), seed=seed)
    random_play(state, rng, check=lambda s: states.append(copy.deepcopy(s)), open_prob=open_prob)
    return states


def any_loot(state: GameState) -> int:
    """The first legal loot placement of the current player (fails if it holds no loot)."""
    return next(a for a in state.legal_actions() if A.LOOT_BASE <= a < A.LOOT_BASE + 9)


@st.composite
def explicit_positions(draw) -> GameState:
    """A random legal position built with ``from_position``: a dealt deck, a chest, Planks, overboard seats."""
    n = draw(st.sampled_from(TABLE_SIZES))
    setup = SETUP_TABLE[n]
    roles = draw(st.permutations(default_roles(n)))
    # Overboard seats, keeping the game running (R12): at least one Mutineer and more Pirates aboard.
    overboard = []
    for seat in draw(st.permutations(range(n))):
        if draw(st.booleans()) and draw(st.booleans()):
            trial = [*overboard, seat]
            mut = sum(1 for s in range(n) if s not in trial and roles[s] == M)
            pir = sum(1 for s in range(n) if s not in trial and roles[s] == P)
            if 0 < mut < pir:
                overboard = trial
    deck = [k for k, count in enumerate(setup.deck_counts()) for _ in range(count)]
    deck = draw(st.permutations(deck))
    planks = [0 if s in overboard else draw(st.integers(0, 2)) for s in range(n)]
    deck = list(deck)
    for _ in range(sum(planks)):
        deck.remove(PL)
    hands = []
    for s in range(n):
        hands.append([] if s in overboard else [deck.pop() for _ in range(3)])
    loot = [k for k in deck if k <= MINUS]
    chest_size = draw(st.integers(0, min(12, len(loot))))
    chest = []
    for k in loot[:chest_size]:
        deck.remove(k)
        chest.append((k, draw(st.integers(0, n - 1)), draw(st.integers(0, 2))))
    draw_size = draw(st.integers(1, max(1, len(deck) - 2)))
    current = draw(st.sampled_from([s for s in range(n) if s not in overboard]))
    return GameState.from_position(
        n,
        roles=roles,
        hands=hands,
        draw_pile=deck[:draw_size],
        chest=chest,
        planks=planks,
        overboard=overboard,
        current_player=current,
        claims=draw(st.booleans()),
        seed=draw(st.integers(0, 2**16)),
    )
