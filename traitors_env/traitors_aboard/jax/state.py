"""The JAX game state: one position of *Traitors Aboard* as a pytree of small fixed-shape arrays.

Every table size 3–8 has the same shapes (seats padded to :data:`MAX_PLAYERS`), so one compiled
function serves a batch that mixes table sizes and claim settings: both are data
(``num_players``, ``claims``), not Python constants.

Seats are absolute (``0 … n-1``; padding seats ``n … 7`` are never aboard). The draw pile and the
chest are stacks stored **top first**: row 0 is the top card, ``draw[:draw_size]`` and
``chest_*[:chest_size]`` the cards; rows past the size are left over and never read. Top first, a
card on top is a shift and the cards a rule touches (the top 1–4) sit at fixed rows, so no step
needs a gather (slow under ``vmap`` on a CPU).

Spyglass groups (R07): the cards one Spyglass scrambled form a *group*, a run of adjacent chest
rows (cards leave the chest only from the top). ``chest_scrambled`` marks the rows in a group and
``chest_bottom`` the lowest row of each group; that row holds the group's public multiset of
announcements in ``group_counts`` (counts of +1, 0, −2) and whether the public still knows it in
``group_known`` (the reference's ``ScrambledGroup.counts`` being ``None``). The group data moves
with the cards when the chest shifts.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from ..cards import MAX_PLAYERS, NUM_CARD_KINDS
from ..observation import MAX_CHEST

MAX_DECK = 76  # 42 loot + 12 other action cards + 22 Planks at 8 players (rulebook "Contents")
NO_SEAT = -1
NO_WINNER = -1


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class Game:
    """One game position (the hidden state included). Shapes are per game; a batch adds a leading axis.

    Attributes (dtype, shape; ``S`` = 8 seats, ``K`` = 8 card kinds, ``C`` = 42 chest slots,
    ``D`` = 76 draw-pile slots):

    - ``num_players`` int8 (): 3–8. ``claims`` bool (): the claim step (R14).
    - ``roles`` int8 (S,): 0 Pirate, 1 Mutineer (padding seats 0).
    - ``hands`` int8 (S, K): cards of each kind held.
    - ``draw`` int8 (D,), ``draw_known`` uint8 (D,), ``draw_size`` int8 (): the draw pile top
      first; ``draw_known`` a bitmask of the seats that know the card (R09 returns).
    - ``chest_kind``/``chest_placer``/``chest_announced`` int8 (C,), ``chest_known`` uint8 (C,)
      (bitmask of seats that know the card at its position), ``chest_scrambled``/``chest_bottom``
      bool (C,), ``group_counts`` int8 (C, 3), ``group_known`` bool (C,), ``chest_size`` int8 ().
    - ``discard`` int8 (K,): cards of each kind in the discard pile.
    - ``planks`` int8 (S,), ``aboard`` bool (S,), ``revealed`` bool (S,).
    - ``current_player`` int8 (), ``phase`` int8 () (:class:`~traitors_env.traitors_aboard.engine.Phase`),
      ``winner`` int8 () (-1 while the game runs), ``end_condition`` int8 () (-1 while it runs),
      ``turn`` int16 ().
    - public record: ``loot_placed`` int8 (S,), ``announced_sum`` int8 (S,), ``actions_played``
      int8 (S, 5) (Plank … Empty Your Pockets), ``pockets_emptied`` int8 (S,), ``targeted`` int8
      (S, S, 2) ([player, target, 0 = Plank / 1 = Empty Your Pockets]).
    - latest claims (R16), -1 for none: ``claim_accuse``/``claim_vouch`` int8 (S,) absolute seats,
      ``claim_hand`` int8 (S,) index into ``HAND_MULTISETS``, ``claim_chest`` int8 (S,) index into
      ``CHEST_MULTISETS``.
    - this turn: ``spyglass_taken`` int8 () (R15), ``spyglass_seen`` int8 (3,): the chest rows
      (0 = top) of the taken cards in the shuffled order the player saw them (R07; read in phase
      SPYGLASS_ORDER only).
    """

    num_players: jax.Array
    claims: jax.Array
    roles: jax.Array
    hands: jax.Array
    draw: jax.Array
    draw_known: jax.Array
    draw_size: jax.Array
    chest_kind: jax.Array
    chest_placer: jax.Array
    chest_announced: jax.Array
    chest_known: jax.Array
    chest_scrambled: jax.Array
    chest_bottom: jax.Array
    group_counts: jax.Array
    group_known: jax.Array
    chest_size: jax.Array
    discard: jax.Array
    planks: jax.Array
    aboard: jax.Array
    revealed: jax.Array
    current_player: jax.Array
    phase: jax.Array
    winner: jax.Array
    end_condition: jax.Array
    turn: jax.Array
    loot_placed: jax.Array
    announced_sum: jax.Array
    actions_played: jax.Array
    pockets_emptied: jax.Array
    targeted: jax.Array
    claim_accuse: jax.Array
    claim_vouch: jax.Array
    claim_hand: jax.Array
    claim_chest: jax.Array
    spyglass_taken: jax.Array
    spyglass_seen: jax.Array

    def replace(self, **changes) -> Game:
        """A copy with ``changes`` applied (the state is immutable)."""
        return dataclasses.replace(self, **changes)


def empty_game() -> Game:
    """A zeroed game of the right shapes and dtypes (filled by ``engine.init``)."""
    i8 = jnp.int8
    seats = jnp.zeros(MAX_PLAYERS, i8)
    none = jnp.full(MAX_PLAYERS, -1, i8)
    return Game(
        num_players=jnp.int8(MAX_PLAYERS),
        claims=jnp.bool_(True),
        roles=seats,
        hands=jnp.zeros((MAX_PLAYERS, NUM_CARD_KINDS), i8),
        draw=jnp.zeros(MAX_DECK, i8),
        draw_known=jnp.zeros(MAX_DECK, jnp.uint8),
        draw_size=jnp.int8(0),
        chest_kind=jnp.zeros(MAX_CHEST, i8),
        chest_placer=jnp.zeros(MAX_CHEST, i8),
        chest_announced=jnp.zeros(MAX_CHEST, i8),
        chest_known=jnp.zeros(MAX_CHEST, jnp.uint8),
        chest_scrambled=jnp.zeros(MAX_CHEST, jnp.bool_),
        chest_bottom=jnp.zeros(MAX_CHEST, jnp.bool_),
        group_counts=jnp.zeros((MAX_CHEST, 3), i8),
        group_known=jnp.zeros(MAX_CHEST, jnp.bool_),
        chest_size=jnp.int8(0),
        discard=jnp.zeros(NUM_CARD_KINDS, i8),
        planks=seats,
        aboard=jnp.zeros(MAX_PLAYERS, jnp.bool_),
        revealed=jnp.zeros(MAX_PLAYERS, jnp.bool_),
        current_player=jnp.int8(0),
        phase=jnp.int8(0),
        winner=jnp.int8(NO_WINNER),
        end_condition=jnp.int8(-1),
        turn=jnp.int16(0),
        loot_placed=seats,
        announced_sum=seats,
        actions_played=jnp.zeros((MAX_PLAYERS, 5), i8),
        pockets_emptied=seats,
        targeted=jnp.zeros((MAX_PLAYERS, MAX_PLAYERS, 2), i8),
        claim_accuse=none,
        claim_vouch=none,
        claim_hand=none,
        claim_chest=none,
        spyglass_taken=jnp.int8(0),
        spyglass_seen=jnp.zeros(3, i8),
    )
