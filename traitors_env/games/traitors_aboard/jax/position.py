"""Positions for the JAX twin: a reference position as a :class:`Game`, and the small variants' deals in JAX.

Why: a small variant (:mod:`..small`, rulings S01–S03) is the full game played from a dealt position, so the twin
plays it unchanged once it can start from that position. :func:`game_from_state` reads every field of a reference
:class:`~traitors_env.games.traitors_aboard.engine.GameState` (any decision, Spyglass groups included);
:func:`init_variant` deals a variant in JAX by the chance of its tree (:mod:`traitors_env.solve.traitors_aboard`)
and of :func:`..small.deal`. Its public fields (planks, the chest's placers and announcements, who knows which
chest card, the public record, the discard pile) are the ones ``GameState.from_position`` sets: they are read once
per variant from a reference deal (:func:`_template`), and only the chance of the deal is drawn in JAX.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from ..cards import HAND_SIZE, LOOT_KINDS, MAX_PLAYERS, NUM_CARD_KINDS, Role
from ..observation import MAX_CHEST
from ..small import SmallVariant, deal, variant
from .state import CHEST_FIELDS, MAX_DECK, Game

__all__ = ["game_from_state", "init_variant"]


def game_from_state(state) -> Game:
    """The JAX :class:`Game` of a reference ``GameState`` at any decision (Spyglass groups included)."""
    n = state.num_players

    def padded(values, size, fill=0, dtype=np.int8):
        out = np.full(size, fill, dtype)
        out[: len(values)] = values
        return out

    chest = list(reversed(state.chest))  # top first
    bottom = np.zeros(MAX_CHEST, bool)
    counts = np.zeros((MAX_CHEST, 3), np.int8)
    known = np.zeros(MAX_CHEST, bool)
    for row, card in enumerate(chest):
        group = card.group
        if group is not None and all(other.group is not group for other in chest[row + 1 :]):
            bottom[row] = True  # the group's lowest card
            known[row] = group.counts is not None
            counts[row] = group.counts if group.counts is not None else 0
    targeted = np.zeros((MAX_PLAYERS, MAX_PLAYERS, 2), np.int8)
    for player, target, card in state.targeted:
        targeted[player, target, card] += 1
    seen_rows = [next(row for row, c in enumerate(chest) if c is card) for card in state.spyglass_seen]
    hands = np.zeros((MAX_PLAYERS, NUM_CARD_KINDS), np.int8)
    hands[:n] = state.hands
    played = np.zeros((MAX_PLAYERS, 5), np.int8)
    played[:n] = state.actions_played
    game = Game.of(
        num_players=np.int8(n),
        claims=np.bool_(state.config.claims),
        roles=padded([int(r) for r in state.roles], MAX_PLAYERS),
        hands=hands,
        draw=padded(state.draw_pile[::-1], MAX_DECK),
        draw_known=padded(state.draw_known[::-1], MAX_DECK, dtype=np.uint8),
        draw_size=np.int8(len(state.draw_pile)),
        chest_kind=padded([c.kind for c in chest], MAX_CHEST),
        chest_placer=padded([c.placer for c in chest], MAX_CHEST),
        chest_announced=padded([c.announced for c in chest], MAX_CHEST),
        chest_known=padded([c.known_by for c in chest], MAX_CHEST, dtype=np.uint8),
        chest_scrambled=padded([c.group is not None for c in chest], MAX_CHEST, False, bool),
        chest_bottom=bottom,
        group_counts=counts,
        group_known=known,
        chest_size=np.int8(len(chest)),
        discard=np.array(state.discard, np.int8),
        planks=padded(state.planks, MAX_PLAYERS),
        aboard=padded(state.aboard, MAX_PLAYERS, False, bool),
        revealed=padded(state.revealed, MAX_PLAYERS, False, bool),
        current_player=np.int8(state.current_player),
        phase=np.int8(int(state.phase)),
        winner=np.int8(-1 if state.winner is None else int(state.winner)),
        end_condition=np.int8(-1 if state.end_condition is None else int(state.end_condition)),
        turn=np.int16(state.turn),
        loot_placed=padded(state.loot_placed, MAX_PLAYERS),
        announced_sum=padded(state.announced_sum, MAX_PLAYERS),
        actions_played=played,
        pockets_emptied=padded(state.pockets_emptied, MAX_PLAYERS),
        targeted=targeted,
        claim_accuse=padded(state.claim_accuse, MAX_PLAYERS, -1),
        claim_vouch=padded(state.claim_vouch, MAX_PLAYERS, -1),
        claim_hand=padded(state.claim_hand, MAX_PLAYERS, -1),
        claim_chest=padded(state.claim_chest, MAX_PLAYERS, -1),
        spyglass_taken=np.int8(state.spyglass_taken),
        spyglass_seen=padded(seen_rows, 3),
    )
    return jax.tree_util.tree_map(jnp.asarray, game)


@functools.cache
def _template(name: str) -> Game:
    """Variant ``name``'s game from one reference deal (host arrays): its public fields are every deal's. Built
    eagerly even when first asked for inside a trace (a cached tracer would leak into later calls)."""
    with jax.ensure_compile_time_eval():
        return jax.device_get(game_from_state(deal(variant(name), 0)))


def init_variant(key: jax.Array, v: SmallVariant | str, claims=None) -> Game:
    """A game of small variant ``v`` (static: a :class:`SmallVariant` or its name) dealt from ``key`` (S01–S03).

    The chance is the tree's (:meth:`traitors_env.solve.traitors_aboard.Node.chance_outcomes`): the Mutineers' seat
    set uniformly; the hands the first ``3·n`` cards of a uniformly shuffled ``v.deck`` (each hand a multiset drawn
    without replacement); the chest's true kinds, bottom first, the first Loot cards of the rest in that shuffled
    order (each uniform over the Loot cards left); the draw pile the other cards, shuffled again (a card passed over
    while looking for Loot would otherwise sit on top more often than chance). First seat ``v.first_player``;
    ``claims`` (a bool or traced bool) defaults to the variant's. Pure: ``jit``/``vmap`` it with ``v`` static.
    """
    v = variant(v) if isinstance(v, str) else v
    g = _template(v.name)
    n, c, dealt = v.num_players, len(v.chest), HAND_SIZE * v.num_players
    k_roles, k_cards, k_pile = jax.random.split(key, 3)
    seat_roles = [int(Role.MUTINEER)] * v.mutineers + [int(Role.PIRATE)] * (n - v.mutineers)
    roles = jax.random.permutation(k_roles, np.array(seat_roles, np.int8))  # a uniform seat set of Mutineers
    deck = [k for k in range(NUM_CARD_KINDS) for _ in range(v.deck[k])]
    cards = jax.random.permutation(k_cards, np.array(deck, np.int32))
    kinds = jnp.arange(NUM_CARD_KINDS)
    hands = jnp.sum(cards[:dealt].reshape(n, HAND_SIZE, 1) == kinds, 1)
    rest = cards[dealt:]
    loot = rest <= max(LOOT_KINDS)
    rank = jnp.cumsum(loot) - 1  # among the Loot cards of the rest, in the shuffled order
    in_chest = loot & (rank < c)
    chest_kinds = jnp.sum(jnp.where(in_chest & (rank == jnp.arange(c)[:, None]), rest, 0), 1)  # bottom first
    pile = jax.random.permutation(k_pile, rest[jnp.argsort(in_chest, stable=True)][: v.pile])
    rows = jnp.arange(MAX_CHEST)
    top_first = jnp.sum(jnp.where(rows[:, None] == c - 1 - jnp.arange(c), chest_kinds, 0), 1)
    kind = CHEST_FIELDS["kind"]
    chest = jnp.where(rows < c, (jnp.asarray(g.chest) & ~kind.mask) | (top_first << kind.shift), g.chest)
    return jax.tree_util.tree_map(jnp.asarray, g).replace(
        claims=jnp.asarray(v.claims if claims is None else claims, jnp.bool_),
        roles=jnp.zeros(MAX_PLAYERS, jnp.int8).at[:n].set(roles),
        hands=jnp.zeros((MAX_PLAYERS, NUM_CARD_KINDS), jnp.int8).at[:n].set(hands.astype(jnp.int8)),
        draw_pile=jnp.zeros(MAX_DECK, jnp.int32).at[: v.pile].set(pile),  # nobody knows a card of the pile
        chest=chest.astype(jnp.int32),
    )
