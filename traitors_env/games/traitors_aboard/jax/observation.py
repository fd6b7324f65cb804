"""The observation of one seat, in JAX: the same ``float32`` vector as the reference encoder.

Each block of :data:`traitors_env.games.traitors_aboard.observation.LAYOUT` is built here under its
declared name and shape; :func:`observe` joins them in the declaration's order, so the offsets are
the declaration's (``OFFSETS``), never numbers of this module. Inside a block the entries follow
the declared meaning (``SEAT_FEATURES``, the claim and chest-card rows) as the reference
``encode_python`` writes them; tests compare the two vectors bit for bit at every decision of
many games, for every seat.

Like the reference it reads only public information and the observer's own knowledge
(module doc of :mod:`traitors_env.games.traitors_aboard.observation`).
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
from .state import CHEST_FIELDS, COUNTS, DRAW_FIELDS, Game, unpack, unpack_counts

_SEATS = jnp.arange(MAX_PLAYERS)
_SLOTS = jnp.arange(MAX_CHEST)
_F32 = jnp.float32
_I8 = jnp.int8  # every entry of the observation is a small integer (|x| <= 84)
#: Per claim index: the claimed counts and the "made" flag, as the reference's claim rows.
_HAND_CLAIMS = np.array([[m.count(k) for k in range(NUM_CARD_KINDS)] + [1] for m in A.HAND_MULTISETS], np.int8)
_CHEST_CLAIMS = np.array([[m.count(v) for v in range(3)] + [1] for m in A.CHEST_MULTISETS], np.int8)
_SHAPES = {p.name: p.shape for p in LAYOUT}


def _one_hot(index, size: int, where=True):
    return ((jnp.arange(size) == index) & where).astype(_I8)


def _wrap(x, n):
    """``x % n`` for ``0 <= x < 2n`` (a seat plus an offset below n): a compare and a subtraction, where
    a remainder by the traced ``n`` is an integer division per element on a CPU. Rows of seats beyond
    the table (``x >= 2n``) are masked by the callers."""
    return jnp.where(x >= n, x - n, x)


def _rotate(rotation, values):
    """``values`` (per absolute seat, axis 0) reordered by relative seat with the one-hot ``rotation`` (8, 8).

    A sum of selects in int8 (one nonzero term per entry, so exact): the observation is built in int8
    and turned into float32 once, at the end.
    """
    hit = rotation.reshape(rotation.shape + (1,) * (values.ndim - 1))
    return jnp.sum(jnp.where(hit, values.astype(_I8)[None], 0), 1, dtype=_I8)


def _targeted_by_relative_seat(targeted, seat, n):
    """``targeted`` (int8 (8, 8, 2): [player, target, card], absolute seats) with both seats made relative (row
    ``r`` is seat ``(seat + r) % n``, rows ``n …`` are 0): one gather of the 64 (player, target) pairs, measured
    2× faster under ``vmap`` on a CPU than rotating each axis with a one-hot (8, 8) rotation (:func:`_rotate`)."""
    rows = _wrap(seat + _SEATS, n)
    pairs = (rows[:, None] * MAX_PLAYERS + rows[None, :]).reshape(-1)
    out = targeted.reshape(MAX_PLAYERS * MAX_PLAYERS, 2)[pairs].reshape(targeted.shape)
    present = _SEATS < n
    return jnp.where((present[:, None] & present[None, :])[:, :, None], out, 0)


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

    blocks: dict[str, jax.Array] = {}
    blocks["role"] = _one_hot(jnp.sum(jnp.where(me, g.roles, 0)), 2)
    blocks["hand"] = jnp.sum(jnp.where(me[:, None], g.hands, 0), 0).astype(_I8)
    blocks["phase"] = _one_hot(g.phase, NUM_PHASES, acting)
    blocks["num_players"] = _one_hot(n - MIN_PLAYERS, MAX_PLAYERS - MIN_PLAYERS + 1)
    blocks["target"] = target(g).astype(_I8)[None]
    blocks["draw_pile_size"] = g.draw_size.astype(_I8)[None]
    blocks["discard_size"] = jnp.sum(g.discard.astype(jnp.int32)).astype(_I8)[None]
    blocks["chest_size"] = g.chest_size.astype(_I8)[None]
    blocks["spyglass_taken"] = _one_hot(g.spyglass_taken, 4, acting)
    seen = g.spyglass_seen[:, None]
    chest = g.chest  # packed rows (CHEST_FIELDS), read field by field below
    kinds = unpack(chest, CHEST_FIELDS["kind"])
    top_kinds = kinds[:3]
    seen_kind = jnp.sum(jnp.where(seen == jnp.arange(3), top_kinds, 0), 1)
    viewing = acting & (g.phase == SPYGLASS_ORDER)
    blocks["spyglass_view"] = (
        (seen_kind[:, None] == jnp.arange(3)) & (jnp.arange(3) < g.spyglass_taken)[:, None] & viewing
    ).astype(_I8)

    aboard = g.aboard & present
    seat_rows = jnp.concatenate(
        [
            present[:, None].astype(_I8),
            aboard[:, None].astype(_I8),
            ((g.planks[:, None] == jnp.arange(3)) & aboard[:, None]).astype(_I8),
            ((g.roles[:, None] == jnp.arange(2)) & g.revealed[:, None]).astype(_I8),
            g.loot_placed[:, None].astype(_I8),
            g.announced_sum[:, None].astype(_I8),
            g.actions_played.astype(_I8),
            g.pockets_emptied[:, None].astype(_I8),
        ],
        axis=1,
    )
    assert seat_rows.shape[1] == len(SEAT_FEATURES)

    def relative_claim(claims):
        claims = claims.astype(jnp.int32)
        rel = _wrap(claims - seat + n, n)  # a claim names a seat of the table (-1, none, is masked below)
        return ((rel[:, None] == _SEATS) & (claims >= 0)[:, None]).astype(_I8)

    hand_claim = g.claim_hand.astype(jnp.int32)
    chest_claim = g.claim_chest.astype(jnp.int32)
    claim_rows = jnp.concatenate(
        [
            relative_claim(g.claim_accuse),
            relative_claim(g.claim_vouch),
            jnp.where((hand_claim >= 0)[:, None], jnp.asarray(_HAND_CLAIMS)[jnp.maximum(hand_claim, 0)], 0),
            jnp.where((chest_claim >= 0)[:, None], jnp.asarray(_CHEST_CLAIMS)[jnp.maximum(chest_claim, 0)], 0),
        ],
        axis=1,
    )
    assert claim_rows.shape[1] == CLAIM_FEATURES
    # One rotation (a one-hot product) for both tables: [relative seat, features].
    rotation = (_wrap(seat + _SEATS[:, None], n) == _SEATS) & present[:, None]  # [relative, absolute]
    rotated = _rotate(rotation, jnp.concatenate([seat_rows, claim_rows], axis=1))
    blocks["seats"] = rotated[:, : len(SEAT_FEATURES)]
    blocks["claims"] = rotated[:, len(SEAT_FEATURES) :]
    blocks["targeted"] = _targeted_by_relative_seat(g.targeted.astype(_I8), seat, n)

    # Chest cards from the top (row 0 is the top card).
    in_chest = _SLOTS < g.chest_size
    is_scrambled = unpack(chest, CHEST_FIELDS["scrambled"], jnp.bool_)
    scrambled = is_scrambled & in_chest
    attributable = ~is_scrambled & in_chest
    announced = unpack(chest, CHEST_FIELDS["announced"])
    placer_rel = _wrap(unpack(chest, CHEST_FIELDS["placer"]) - seat + n, n)
    known = (jnp.bitwise_and(unpack(chest, CHEST_FIELDS["known"]), bit.astype(jnp.int32)) > 0) & in_chest
    chest_rows = jnp.concatenate(
        [
            in_chest[:, None].astype(_I8),
            ((announced[:, None] == jnp.arange(3)) & attributable[:, None]).astype(_I8),
            ((placer_rel[:, None] == _SEATS) & attributable[:, None]).astype(_I8),
            scrambled[:, None].astype(_I8),
            ((kinds[:, None] == jnp.arange(3)) & known[:, None]).astype(_I8),
        ],
        axis=1,
    )
    assert chest_rows.shape[1] == CHEST_FEATURES
    blocks["chest_cards"] = chest_rows

    # R07: the public multiset of the scrambled cards' announcements, known while every group's is.
    bottoms = unpack(chest, CHEST_FIELDS["bottom"], jnp.bool_) & in_chest
    all_known = ~jnp.any(bottoms & ~unpack(chest, CHEST_FIELDS["group_known"], jnp.bool_))
    # Counts are added as packed 12-bit numbers: the scrambled cards number at most 9, so no count carries.
    totals = unpack_counts(jnp.sum(jnp.where(bottoms, unpack(chest, COUNTS), 0))).astype(_I8)
    attributed_sum = jnp.sum(jnp.where(attributable, _loot_value(announced), 0))
    blocks["chest_summary"] = jnp.concatenate(
        [
            attributed_sum.astype(_I8)[None],
            jnp.sum(scrambled).astype(_I8)[None],
            jnp.where(all_known, totals, 0),
            all_known.astype(_I8)[None],
        ]
    )

    # R09: draw-pile cards I returned, while still on top.
    pile = g.draw_pile[:DRAW_KNOWN_SLOTS]
    known_by = unpack(pile, DRAW_FIELDS["known"])
    mine = (jnp.arange(DRAW_KNOWN_SLOTS) < g.draw_size) & (jnp.bitwise_and(known_by, bit.astype(jnp.int32)) > 0)
    blocks["draw_pile_known"] = (
        (unpack(pile, DRAW_FIELDS["kind"])[:, None] == jnp.arange(NUM_CARD_KINDS)) & mine[:, None]
    ).astype(_I8)

    for name, block in blocks.items():
        assert block.shape == _SHAPES[name], (name, block.shape, _SHAPES[name])
    # Joined in int8 (a quarter of the bytes), then float32 in one pass: exact for these small integers.
    vector = jnp.concatenate([blocks[p.name].reshape(-1) for p in LAYOUT]).astype(_F32)
    assert vector.shape == (OBS_SIZE,)
    return vector
