"""The observation of one seat, in JAX: the same ``float32`` vector as the reference encoder.

Each block of :data:`traitors_env.traitors_aboard.observation.LAYOUT` is built here under its
declared name and shape; :func:`observe` joins them in the declaration's order, so the offsets are
the declaration's (``OFFSETS``), never numbers of this module. Inside a block the entries follow
the declared meaning (``SEAT_FEATURES``, the claim and chest-card rows) as the reference
``encode_python`` writes them; tests compare the two vectors bit for bit at every decision of
many games, for every seat.

Like the reference it reads only public information and the observer's own knowledge
(module doc of :mod:`traitors_env.traitors_aboard.observation`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import actions as A
from ..cards import MAX_PLAYERS, MIN_PLAYERS, NUM_CARD_KINDS
from ..engine import NUM_PHASES
from ..observation import CHEST_FEATURES, CLAIM_FEATURES, DRAW_KNOWN_SLOTS, LAYOUT, MAX_CHEST, OBS_SIZE, SEAT_FEATURES
from .engine import GAME_OVER, SPYGLASS_ORDER, _loot_value, target
from .state import Game

_SEATS = jnp.arange(MAX_PLAYERS)
_SLOTS = jnp.arange(MAX_CHEST)
_F32 = jnp.float32
#: Per claim index: the claimed counts and the "made" flag, as the reference's claim rows.
_HAND_CLAIMS = np.array([[m.count(k) for k in range(NUM_CARD_KINDS)] + [1] for m in A.HAND_MULTISETS], np.float32)
_CHEST_CLAIMS = np.array([[m.count(v) for v in range(3)] + [1] for m in A.CHEST_MULTISETS], np.float32)
_SHAPES = {p.name: p.shape for p in LAYOUT}


def _one_hot(index, size: int, where=True):
    return ((jnp.arange(size) == index) & where).astype(_F32)


def _rotate(rotation, values):
    """``values`` (per absolute seat, axis 0) reordered by relative seat with the one-hot ``rotation`` (8, 8)."""
    shaped = rotation.reshape(rotation.shape + (1,) * (values.ndim - 1))
    return jnp.sum(jnp.where(shaped, values[None].astype(_F32), 0.0), 1)


def observe(g: Game, seat) -> jax.Array:
    """The observation of ``seat``, ``float32`` of shape ``(OBS_SIZE,)`` (1228), equal to the reference
    ``observation.encode`` of the same position. ``seat`` must be a seat of the table (not checked
    inside ``jit``)."""
    seat = jnp.asarray(seat, jnp.int32)
    n = g.num_players.astype(jnp.int32)
    bit = jnp.left_shift(jnp.uint8(1), seat.astype(jnp.uint8))
    acting = (g.current_player == seat) & (g.phase != GAME_OVER)
    me = _SEATS == seat
    # Seats relative to the observer: row r is absolute seat (seat + r) % n; rows n… are absent.
    present = _SEATS < n
    rotation = ((seat + _SEATS[:, None]) % n == _SEATS) & present[:, None]  # [relative, absolute]

    blocks: dict[str, jax.Array] = {}
    blocks["role"] = _one_hot(jnp.sum(jnp.where(me, g.roles, 0)), 2)
    blocks["hand"] = jnp.sum(jnp.where(me[:, None], g.hands, 0), 0).astype(_F32)
    blocks["phase"] = _one_hot(g.phase, NUM_PHASES, acting)
    blocks["num_players"] = _one_hot(n - MIN_PLAYERS, MAX_PLAYERS - MIN_PLAYERS + 1)
    blocks["target"] = target(g).astype(_F32)[None]
    blocks["draw_pile_size"] = g.draw_size.astype(_F32)[None]
    blocks["discard_size"] = jnp.sum(g.discard.astype(jnp.int32)).astype(_F32)[None]
    blocks["chest_size"] = g.chest_size.astype(_F32)[None]
    blocks["spyglass_taken"] = _one_hot(g.spyglass_taken, 4, acting)
    seen = g.spyglass_seen[:, None]
    top_kinds = g.chest_kind[:3]
    seen_kind = jnp.sum(jnp.where(seen == jnp.arange(3), top_kinds, 0), 1)
    viewing = acting & (g.phase == SPYGLASS_ORDER)
    blocks["spyglass_view"] = (
        (seen_kind[:, None] == jnp.arange(3)) & (jnp.arange(3) < g.spyglass_taken)[:, None] & viewing
    ).astype(_F32)

    aboard = g.aboard & present
    seat_rows = jnp.concatenate(
        [
            present[:, None].astype(_F32),
            aboard[:, None].astype(_F32),
            ((g.planks[:, None] == jnp.arange(3)) & aboard[:, None]).astype(_F32),
            ((g.roles[:, None] == jnp.arange(2)) & g.revealed[:, None]).astype(_F32),
            g.loot_placed[:, None].astype(_F32),
            g.announced_sum[:, None].astype(_F32),
            g.actions_played.astype(_F32),
            g.pockets_emptied[:, None].astype(_F32),
        ],
        axis=1,
    )
    assert seat_rows.shape[1] == len(SEAT_FEATURES)

    def relative_claim(claims):
        claims = claims.astype(jnp.int32)
        rel = (claims - seat) % n
        return ((rel[:, None] == _SEATS) & (claims >= 0)[:, None]).astype(_F32)

    hand_claim = g.claim_hand.astype(jnp.int32)
    chest_claim = g.claim_chest.astype(jnp.int32)
    claim_rows = jnp.concatenate(
        [
            relative_claim(g.claim_accuse),
            relative_claim(g.claim_vouch),
            jnp.where((hand_claim >= 0)[:, None], jnp.asarray(_HAND_CLAIMS)[jnp.maximum(hand_claim, 0)], 0.0),
            jnp.where((chest_claim >= 0)[:, None], jnp.asarray(_CHEST_CLAIMS)[jnp.maximum(chest_claim, 0)], 0.0),
        ],
        axis=1,
    )
    assert claim_rows.shape[1] == CLAIM_FEATURES
    # One rotation for both tables: [relative seat, features].
    rotated = _rotate(rotation, jnp.concatenate([seat_rows, claim_rows], axis=1))
    blocks["seats"] = rotated[:, : len(SEAT_FEATURES)]
    blocks["claims"] = rotated[:, len(SEAT_FEATURES) :]
    blocks["targeted"] = _rotate(rotation, jnp.moveaxis(_rotate(rotation, jnp.moveaxis(g.targeted, 1, 0)), 0, 1))

    # Chest cards from the top (row 0 is the top card).
    in_chest = _SLOTS < g.chest_size
    scrambled = g.chest_scrambled & in_chest
    attributable = ~g.chest_scrambled & in_chest
    announced = g.chest_announced.astype(jnp.int32)
    placer_rel = (g.chest_placer.astype(jnp.int32) - seat) % n
    known = (jnp.bitwise_and(g.chest_known, bit) > 0) & in_chest
    chest_rows = jnp.concatenate(
        [
            in_chest[:, None].astype(_F32),
            ((announced[:, None] == jnp.arange(3)) & attributable[:, None]).astype(_F32),
            ((placer_rel[:, None] == _SEATS) & attributable[:, None]).astype(_F32),
            scrambled[:, None].astype(_F32),
            ((g.chest_kind[:, None] == jnp.arange(3)) & known[:, None]).astype(_F32),
        ],
        axis=1,
    )
    assert chest_rows.shape[1] == CHEST_FEATURES
    blocks["chest_cards"] = chest_rows

    # R07: the public multiset of the scrambled cards' announcements, known while every group's is.
    bottoms = g.chest_bottom & in_chest
    all_known = ~jnp.any(bottoms & ~g.group_known)
    totals = jnp.sum(jnp.where(bottoms[:, None], g.group_counts, 0), 0).astype(_F32)
    attributed_sum = jnp.sum(jnp.where(attributable, _loot_value(announced), 0))
    blocks["chest_summary"] = jnp.concatenate(
        [
            attributed_sum.astype(_F32)[None],
            jnp.sum(scrambled).astype(_F32)[None],
            jnp.where(all_known, totals, 0.0),
            all_known.astype(_F32)[None],
        ]
    )

    # R09: draw-pile cards I returned, while still on top.
    mine = (jnp.arange(DRAW_KNOWN_SLOTS) < g.draw_size) & (jnp.bitwise_and(g.draw_known[:DRAW_KNOWN_SLOTS], bit) > 0)
    blocks["draw_pile_known"] = (
        (g.draw[:DRAW_KNOWN_SLOTS, None] == jnp.arange(NUM_CARD_KINDS)) & mine[:, None]
    ).astype(_F32)

    for name, block in blocks.items():
        assert block.shape == _SHAPES[name], (name, block.shape, _SHAPES[name])
    vector = jnp.concatenate([blocks[p.name].reshape(-1) for p in LAYOUT])
    assert vector.shape == (OBS_SIZE,)
    return vector
