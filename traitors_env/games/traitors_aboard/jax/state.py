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

Packed rows: a chest row's eight fields are bit fields of one ``int32`` (``Game.chest``, laid out
by :data:`CHEST_FIELDS`) and a draw-pile row's two of one ``int32`` (``Game.draw_pile``,
:data:`DRAW_FIELDS`), so a card put on or taken off a stack moves one array, not eight: under
``vmap`` on a CPU the cost of a step is about the number of array elements it rewrites, not their
width (an ``int32`` row even shifts twice as fast as an ``int16`` one, measured). The fields are
read as properties of the old names (``chest_kind`` …, ``draw``, ``draw_known``), with the old
dtypes; :meth:`Game.of` builds a game from them. A group's counts (0 while the public has lost
track of it) add up to the cards of the group (R07), and the chest holds at most 9 scrambled
cards: each Spyglass scrambles at most 3 (R07), there are 3 in the deck (rulebook "Contents") and a
played card never comes back. So each count fits 4 bits, and a sum of counts over groups never
carries into the next count.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from ..cards import MAX_PLAYERS, NUM_CARD_KINDS
from ..observation import MAX_CHEST

MAX_DECK = 76  # 42 loot + 12 other action cards + 22 Planks at 8 players (rulebook "Contents")
NO_SEAT = -1
NO_WINNER = -1


@dataclasses.dataclass(frozen=True)
class BitField:
    """A field of a packed row: ``width`` bits from bit ``shift``."""

    shift: int
    width: int

    @property
    def mask(self) -> int:
        """The field's bits in place."""
        return ((1 << self.width) - 1) << self.shift


def _layout(widths: dict[str, int]) -> dict[str, BitField]:
    fields, shift = {}, 0
    for name, width in widths.items():
        fields[name] = BitField(shift, width)
        shift += width
    assert shift <= 31, shift
    return fields


#: A chest row (``Game.chest``, int32): the card, who placed it and what they announced, the seats that
#: know it (bitmask), its Spyglass group flags and, on a group's lowest row, the group's counts of
#: announced +1, 0 and −2 (4 bits each, so the three read as one 12-bit number ``counts``).
CHEST_FIELDS = _layout(
    {
        "kind": 2,
        "placer": 3,
        "announced": 2,
        "known": 8,
        "scrambled": 1,
        "bottom": 1,
        "group_known": 1,
        "count_plus": 4,
        "count_zero": 4,
        "count_minus": 4,
    }
)
COUNT_FIELDS = ("count_plus", "count_zero", "count_minus")  # indexed like announced values (0 → +1 …)
COUNTS = BitField(CHEST_FIELDS["count_plus"].shift, 12)
COUNT_BITS = 4
#: A draw-pile row (``Game.draw_pile``, int32): the card and the seats that know it (R09).
DRAW_FIELDS = _layout({"kind": 3, "known": 8})


def unpack(rows: jax.Array, field: BitField, dtype=jnp.int32) -> jax.Array:
    """The ``field`` of packed ``rows`` (any shape), as ``dtype``."""
    return ((rows.astype(jnp.int32) >> field.shift) & ((1 << field.width) - 1)).astype(dtype)


def pack(fields: dict[str, BitField], dtype, **values) -> jax.Array:
    """Rows holding ``values`` (field name → array, broadcast together; unnamed fields are 0), as ``dtype``.

    Raises:
        KeyError: for a name that is not one of ``fields``.
    """
    total = jnp.int32(0)
    for name, value in values.items():
        field = fields[name]
        total = total | ((jnp.asarray(value).astype(jnp.int32) & ((1 << field.width) - 1)) << field.shift)
    return total.astype(dtype)


def pack_counts(counts) -> jax.Array:
    """A group's counts (int, ``(..., 3)``: +1, 0, −2) as the 12-bit number of :data:`COUNTS`, int32."""
    counts = jnp.asarray(counts).astype(jnp.int32)
    return sum(counts[..., i] << (COUNT_BITS * i) for i in range(3))


def unpack_counts(counts) -> jax.Array:
    """The inverse of :func:`pack_counts`: int32 ``(..., 3)``."""
    counts = jnp.asarray(counts).astype(jnp.int32)
    return jnp.stack([(counts >> (COUNT_BITS * i)) & ((1 << COUNT_BITS) - 1) for i in range(3)], -1)


#: The unpacked inputs of :meth:`Game.of` and the bit field each is packed into.
_PACKED_INPUTS = {
    "draw": DRAW_FIELDS["kind"],
    "draw_known": DRAW_FIELDS["known"],
    **{f"chest_{name}": CHEST_FIELDS[name] for name in ("kind", "placer", "announced", "known", "scrambled", "bottom")},
    "group_known": CHEST_FIELDS["group_known"],
    "group_counts": BitField(0, COUNT_BITS),  # each of the three
}


def _check_fits(name: str, value, width: int) -> None:
    """Raise ValueError if the concrete ``value`` has an entry outside ``0 … 2**width - 1`` (traced: not checked)."""
    if isinstance(value, jax.core.Tracer):
        return
    values = np.asarray(value).astype(np.int64)
    bad = (values < 0) | (values >= 1 << width)
    if np.any(bad):
        raise ValueError(
            f"Game.of: {name} holds {values[bad][0]} at {tuple(int(i) for i in np.argwhere(bad)[0])}, "
            f"which does not fit its {width}-bit field (0 … {(1 << width) - 1})"
        )


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class Game:
    """One game position (the hidden state included). Shapes are per game; a batch adds a leading axis.

    Attributes (dtype, shape; ``S`` = 8 seats, ``K`` = 8 card kinds, ``C`` = 42 chest slots,
    ``D`` = 76 draw-pile slots):

    - ``num_players`` int8 (): 3–8. ``claims`` bool (): the claim step (R14).
    - ``roles`` int8 (S,): 0 Pirate, 1 Mutineer (padding seats 0).
    - ``hands`` int8 (S, K): cards of each kind held.
    - ``draw_pile`` int32 (D,), ``draw_size`` int8 (): the draw pile top first, each row packed
      (:data:`DRAW_FIELDS`) and read as ``draw`` int8 (D,) (the cards) and ``draw_known`` uint8 (D,)
      (a bitmask of the seats that know the card, R09 returns).
    - ``chest`` int32 (C,), ``chest_size`` int8 (): the chest top first, each row packed
      (:data:`CHEST_FIELDS`) and read as ``chest_kind``/``chest_placer``/``chest_announced`` int8
      (C,), ``chest_known`` uint8 (C,) (bitmask of seats that know the card at its position),
      ``chest_scrambled``/``chest_bottom`` bool (C,), ``group_counts`` int8 (C, 3), ``group_known``
      bool (C,).
    - ``discard`` int8 (K,): cards of each kind in the discard pile.
    - ``planks`` int8 (S,), ``aboard`` bool (S,), ``revealed`` bool (S,).
    - ``current_player`` int8 (), ``phase`` int8 () (:class:`~traitors_env.games.traitors_aboard.engine.Phase`),
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
    draw_pile: jax.Array
    draw_size: jax.Array
    chest: jax.Array
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

    @classmethod
    def of(cls, **fields) -> Game:
        """A game from every field, the packed rows given as their fields under the names of the properties
        below (``draw``, ``draw_known``, ``chest_kind`` … ``group_known``; ``group_counts`` of shape ``(C, 3)``),
        any batch shape in front. Works under ``jit``/``vmap``; values known outside a trace are checked.

        Raises:
            TypeError: for a missing or unknown field.
            ValueError: for a (concrete) value that does not fit its bit field (:data:`CHEST_FIELDS`,
                :data:`DRAW_FIELDS`; a count 0–15), which packing would otherwise silently wrap.
        """
        missing = [name for name in _PACKED_INPUTS if name not in fields]
        if missing:
            raise TypeError(f"Game.of: missing field(s) {missing}")
        for name, field in _PACKED_INPUTS.items():
            _check_fits(name, fields[name], field.width)
        draw = pack(DRAW_FIELDS, jnp.int32, kind=fields.pop("draw"), known=fields.pop("draw_known"))
        chest = pack(
            CHEST_FIELDS,
            jnp.int32,
            **{
                name: fields.pop(f"chest_{name}")
                for name in ("kind", "placer", "announced", "known", "scrambled", "bottom")
            },
            group_known=fields.pop("group_known"),
        ) | (pack_counts(fields.pop("group_counts")) << COUNTS.shift)
        return cls(draw_pile=draw, chest=chest, **fields)

    # The fields of the packed rows, with the dtypes of the unpacked state.
    @property
    def draw(self) -> jax.Array:
        """int8 (D,): the draw pile's cards (kinds), top first."""
        return unpack(self.draw_pile, DRAW_FIELDS["kind"], jnp.int8)

    @property
    def draw_known(self) -> jax.Array:
        """uint8 (D,): per draw-pile card, the bitmask of seats that know it (R09)."""
        return unpack(self.draw_pile, DRAW_FIELDS["known"], jnp.uint8)

    def _chest(self, name: str, dtype) -> jax.Array:
        return unpack(self.chest, CHEST_FIELDS[name], dtype)

    chest_kind = property(lambda self: self._chest("kind", jnp.int8), doc="int8 (C,): the chest's loot kinds.")
    chest_placer = property(lambda self: self._chest("placer", jnp.int8), doc="int8 (C,): who placed each card.")
    chest_announced = property(
        lambda self: self._chest("announced", jnp.int8), doc="int8 (C,): each card's announced value index."
    )
    chest_known = property(lambda self: self._chest("known", jnp.uint8), doc="uint8 (C,): seats knowing each card.")
    chest_scrambled = property(lambda self: self._chest("scrambled", jnp.bool_), doc="bool (C,): in a group (R07).")
    chest_bottom = property(lambda self: self._chest("bottom", jnp.bool_), doc="bool (C,): a group's lowest row.")
    group_known = property(
        lambda self: self._chest("group_known", jnp.bool_), doc="bool (C,): the public knows the group's counts."
    )

    @property
    def group_counts(self) -> jax.Array:
        """int8 (C, 3): on a group's lowest row, its announced +1, 0, −2 counts (R07)."""
        return unpack_counts(unpack(self.chest, COUNTS)).astype(jnp.int8)


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
        draw_pile=jnp.zeros(MAX_DECK, jnp.int32),
        draw_size=jnp.int8(0),
        chest=jnp.zeros(MAX_CHEST, jnp.int32),
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
