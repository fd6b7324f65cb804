"""An explicit position of *Traitors Aboard*, checked against the rules (:meth:`GameState.from_position`).

:func:`set_position` fills a fresh :class:`~traitors_env.games.traitors_aboard.engine.GameState` with a position
given as plain lists (roles, hands, draw pile, chest, Planks, seats overboard, the seat to play) and refuses, with a
:class:`PositionError` naming the bad field, any position the rules cannot reach. Every card of the deck that is
not placed anywhere goes to the discard pile.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .cards import HAND_SIZE, LOOT_VALUES, NUM_CARD_KINDS, PLANKS_TO_OVERBOARD, CardKind, Role
from .chest import ChestCard


class PositionError(ValueError):
    """A malformed explicit position given to :meth:`GameState.from_position`."""


def set_position(
    state,
    roles: Sequence[int],
    hands: Sequence[Sequence[int]],
    draw_pile: Sequence[int],
    chest: Sequence[tuple[int, int, int]],
    planks: Sequence[int] | None,
    overboard: Sequence[int],
    current_player: int,
) -> None:
    """Fill the fresh ``state`` with the position (the arguments of :meth:`GameState.from_position`), checked in
    this order: roles, seats overboard, the current player, hands, draw pile, chest, Planks, the deck's counts.

    Raises:
        PositionError: naming the bad field.
    """
    _set_roles(state, roles)
    _set_seats(state, overboard, current_player)
    _set_hands(state, hands)
    if len(draw_pile) == 0:
        _fail("draw_pile is empty; a game with an empty draw pile is over (R06)")
    state.draw_pile = [_kind_of(c, "draw_pile card") for c in reversed(draw_pile)]
    state.draw_known = [0] * len(state.draw_pile)
    _set_chest(state, chest)
    _set_planks(state, planks)
    _set_discard(state)


def _fail(message: str) -> None:
    raise PositionError(message)


def _is_seat(value: object, n: int) -> bool:
    return isinstance(value, (int, np.integer)) and 0 <= value < n


def _kind_of(value: object, where: str) -> int:
    try:
        return int(CardKind(int(value)))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        _fail(f"{where}={value!r} is not a CardKind (0–{NUM_CARD_KINDS - 1})")
    raise AssertionError  # unreachable


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _set_roles(state, roles: Sequence[int]) -> None:
    n, setup = state.num_players, state.setup
    if len(roles) != n:
        _fail(f"roles has {len(roles)} entries; expected one per seat ({n})")
    try:
        state.roles = [Role(int(r)) for r in roles]
    except (TypeError, ValueError):  # TypeError: e.g. None
        _fail(f"roles={list(roles)!r} holds a value that is not a Role (0 = Pirate, 1 = Mutineer)")
    if state.roles.count(Role.MUTINEER) != setup.mutineers:
        _fail(
            f"roles has {_count(state.roles.count(Role.MUTINEER), 'Mutineer')}; {n} players play with "
            f"{_count(setup.pirates, 'Pirate')} and {_count(setup.mutineers, 'Mutineer')}"
        )


def _set_seats(state, overboard: Sequence[int], current_player: int) -> None:
    """R11: seats overboard (roles revealed); the current player, who must be aboard."""
    n = state.num_players
    overboard_set = set()
    for seat in overboard:
        if not _is_seat(seat, n):
            _fail(f"overboard seat {seat!r} is not a seat in 0–{n - 1}")
        overboard_set.add(int(seat))
    for seat in overboard_set:
        state.aboard[seat] = False
        state._aboard_bits &= ~(1 << seat)
        state.revealed[seat] = True
    if not _is_seat(current_player, n):
        _fail(f"current_player={current_player!r} is not a seat in 0–{n - 1}")
    if not state.aboard[current_player]:
        _fail(f"current_player={current_player} is overboard; the current player must be aboard")
    state.current_player = int(current_player)


def _set_hands(state, hands: Sequence[Sequence[int]]) -> None:
    n = state.num_players
    if len(hands) != n:
        _fail(f"hands has {len(hands)} entries; expected one per seat ({n})")
    for seat, hand in enumerate(hands):
        expected = HAND_SIZE if state.aboard[seat] else 0
        if len(hand) != expected:
            _fail(f"hands[{seat}] holds {len(hand)} cards; a seat {'aboard' if expected else 'overboard'} holds {expected}")
        for card in hand:
            state.hands[seat][_kind_of(card, f"hands[{seat}] card")] += 1


def _set_chest(state, chest: Sequence[tuple[int, int, int]]) -> None:
    """R04: loot only, each card known to its placer; the placers' public record follows."""
    n = state.num_players
    for entry in reversed(chest):
        if len(entry) != 3:
            _fail(f"chest entry {entry!r} is not (card, placer, announced)")
        card, placer, announced = entry
        card = _kind_of(card, "chest card")
        if card > CardKind.LOOT_MINUS_2:
            _fail(f"chest card {CardKind(card).name} is an action card; only loot goes in the chest (R04)")
        if not _is_seat(placer, n):
            _fail(f"chest placer {placer!r} is not a seat in 0–{n - 1}")
        announced = _kind_of(announced, "chest announced")
        if announced > CardKind.LOOT_MINUS_2:
            _fail(f"chest announced={announced!r} is not a loot value index (0 = +1, 1 = 0, 2 = -2)")
        state.chest.append(ChestCard(card, int(placer), announced, 1 << int(placer)))
        state.loot_placed[placer] += 1
        state.announced_sum[placer] += LOOT_VALUES[announced]


def _set_planks(state, planks: Sequence[int] | None) -> None:
    n = state.num_players
    plank_list = [0] * n if planks is None else list(planks)
    if len(plank_list) != n:
        _fail(f"planks has {len(plank_list)} entries; expected one per seat ({n})")
    for seat, count in enumerate(plank_list):
        limit = PLANKS_TO_OVERBOARD - 1 if state.aboard[seat] else 0
        if not (isinstance(count, (int, np.integer)) and 0 <= count <= limit):
            _fail(f"planks[{seat}]={count!r}; a seat {'aboard' if limit else 'overboard'} has 0–{limit} Planks in front")
    state.planks = [int(c) for c in plank_list]


def _set_discard(state) -> None:
    """Every card of the deck not placed anywhere is in the discard pile; no kind placed more often than the deck
    holds it."""
    used = state.card_locations()
    deck = state.setup.deck_counts()
    for kind in range(NUM_CARD_KINDS):
        placed = sum(used[place][kind] for place in ("draw_pile", "hands", "chest", "planks"))
        if placed > deck[kind]:
            _fail(f"the position uses {placed} {CardKind(kind).name} cards; the {state.num_players}-player deck has {deck[kind]}")
        state.discard[kind] = deck[kind] - placed
