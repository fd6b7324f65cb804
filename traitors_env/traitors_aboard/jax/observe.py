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
from .engine import GAME_OVER, LOOT_VALUE, SPYGLASS_ORDER, target
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


def observe(g: Game, seat) -> jax.Array:
    """The observation of ``seat``, ``float32`` of shape ``(OBS_SIZE,)`` (1228), equal to the reference
    ``observation.encode`` of the same position. ``seat`` must be a seat of the table (not checked
    inside ``jit``)."""
    seat = jnp.asarray(seat, jnp.int32)
    n = g.num_players.astype(jnp.int32)
    bit = jnp.left_shift(jnp.uint8(1), seat.astype(jnp.uint8))
    acting = (g.current_player == seat) & (g.phase != GAME_OVER)
    blocks: dict[str, jax.Array] = {}
    blocks["role"] = _one_hot(g.roles[seat], 2)
    blocks["hand"] = g.hands[seat].astype(_F32)
    blocks["phase"] = _one_hot(g.phase, NUM_PHASES, acting)
    blocks["num_players"] = _one_hot(n - MIN_PLAYERS, MAX_PLAYERS - MIN_PLAYERS + 1)
    blocks["target"] = target(g).astype(_F32)[None]
    blocks["draw_pile_size"] = g.draw_size.astype(_F32)[None]
    blocks["discard_size"] = jnp.sum(g.discard.astype(jnp.int32)).astype(_F32)[None]
    blocks["chest_size"] = g.chest_size.astype(_F32)[None]
    blocks["spyglass_taken"] = _one_hot(g.spyglass_taken, 4, acting)
    seen_kind = g.chest_kind[g.spyglass_seen.astype(jnp.int32)]
    viewing = acting & (g.phase == SPYGLASS_ORDER)
    blocks["spyglass_view"] = (
        (seen_kind[:, None] == jnp.arange(3)) & (jnp.arange(3) < g.spyglass_taken)[:, None] & viewing
    ).astype(_F32)

    # Seats relative to the observer: row r is absolute seat (seat + r) % n; rows n… are absent.
    present = _SEATS < n
    absolute = (seat + _SEATS) % n
    rel_of = (_SEATS - seat) % n  # relative seat of each absolute seat

    aboard = g.aboard[absolute] & present
    planks = g.planks[absolute]
    revealed = g.revealed[absolute] & present
    roles = g.roles[absolute]
    seat_rows = jnp.concatenate(
        [
            present[:, None].astype(_F32),
            aboard[:, None].astype(_F32),
            ((planks[:, None] == jnp.arange(3)) & aboard[:, None]).astype(_F32),
            ((roles[:, None] == jnp.arange(2)) & revealed[:, None]).astype(_F32),
            g.loot_placed[absolute][:, None].astype(_F32),
            g.announced_sum[absolute][:, None].astype(_F32),
            g.actions_played[absolute].astype(_F32),
            g.pockets_emptied[absolute][:, None].astype(_F32),
        ],
        axis=1,
    )
    blocks["seats"] = jnp.where(present[:, None], seat_rows, 0.0)
    assert blocks["seats"].shape[1] == len(SEAT_FEATURES)

    def relative_claim(claims):
        claims = claims[absolute].astype(jnp.int32)
        rel = rel_of[jnp.maximum(claims, 0)]
        return (rel[:, None] == _SEATS) & (claims >= 0)[:, None] & present[:, None]

    hand_claim = g.claim_hand[absolute].astype(jnp.int32)
    chest_claim = g.claim_chest[absolute].astype(jnp.int32)
    claim_rows = jnp.concatenate(
        [
            relative_claim(g.claim_accuse).astype(_F32),
            relative_claim(g.claim_vouch).astype(_F32),
            jnp.where(
                ((hand_claim >= 0) & present)[:, None], jnp.asarray(_HAND_CLAIMS)[jnp.maximum(hand_claim, 0)], 0.0
            ),
            jnp.where(
                ((chest_claim >= 0) & present)[:, None], jnp.asarray(_CHEST_CLAIMS)[jnp.maximum(chest_claim, 0)], 0.0
            ),
        ],
        axis=1,
    )
    assert claim_rows.shape[1] == CLAIM_FEATURES
    blocks["claims"] = claim_rows

    targeted = g.targeted[absolute][:, absolute]
    blocks["targeted"] = jnp.where((present[:, None] & present[None, :])[:, :, None], targeted, 0).astype(_F32)

    # Chest cards from the top: row r is chest slot cs-1-r.
    cs = g.chest_size.astype(jnp.int32)
    slot = cs - 1 - _SLOTS
    in_chest = slot >= 0
    slot = jnp.maximum(slot, 0)
    group = g.chest_group[slot]
    scrambled = (group >= 0) & in_chest
    attributable = (group < 0) & in_chest
    announced = g.chest_announced[slot].astype(jnp.int32)
    placer_rel = rel_of[g.chest_placer[slot].astype(jnp.int32)]
    known = (jnp.bitwise_and(g.chest_known[slot], bit) > 0) & in_chest
    chest_rows = jnp.concatenate(
        [
            in_chest[:, None].astype(_F32),
            ((announced[:, None] == jnp.arange(3)) & attributable[:, None]).astype(_F32),
            ((placer_rel[:, None] == _SEATS) & attributable[:, None]).astype(_F32),
            scrambled[:, None].astype(_F32),
            ((g.chest_kind[slot][:, None] == jnp.arange(3)) & known[:, None]).astype(_F32),
        ],
        axis=1,
    )
    assert chest_rows.shape[1] == CHEST_FEATURES
    blocks["chest_cards"] = chest_rows

    # R07: the public multiset of the scrambled cards' announcements, known while every group's is.
    bottoms = (g.chest_group == _SLOTS) & (_SLOTS < cs)
    all_known = ~jnp.any(bottoms & ~g.group_known)
    totals = jnp.sum(jnp.where(bottoms[:, None], g.group_counts, 0), 0).astype(_F32)
    attributed_sum = jnp.sum(jnp.where(attributable, jnp.asarray(LOOT_VALUE)[announced], 0))
    blocks["chest_summary"] = jnp.concatenate(
        [
            attributed_sum.astype(_F32)[None],
            jnp.sum(scrambled).astype(_F32)[None],
            jnp.where(all_known, totals, 0.0),
            all_known.astype(_F32)[None],
        ]
    )

    # R09: draw-pile cards I returned, while still on top.
    ds = g.draw_size.astype(jnp.int32)
    draw_slot = ds - 1 - jnp.arange(DRAW_KNOWN_SLOTS)
    mine = (draw_slot >= 0) & (jnp.bitwise_and(g.draw_known[jnp.maximum(draw_slot, 0)], bit) > 0)
    blocks["draw_pile_known"] = (
        (g.draw[jnp.maximum(draw_slot, 0)][:, None] == jnp.arange(NUM_CARD_KINDS)) & mine[:, None]
    ).astype(_F32)

    for name, block in blocks.items():
        assert block.shape == _SHAPES[name], (name, block.shape, _SHAPES[name])
    vector = jnp.concatenate([blocks[p.name].reshape(-1) for p in LAYOUT])
    assert vector.shape == (OBS_SIZE,)
    return vector
