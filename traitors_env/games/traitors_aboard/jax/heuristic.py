"""The heuristic agent as a pure JAX function, so that training can play against it inside ``jit``.

:func:`heuristic_act` chooses what :class:`traitors_env.games.traitors_aboard.bots.HeuristicAgent` chooses: the same
legal actions with the same probabilities, given the same observation, action mask and memory.
:func:`heuristic_probabilities` gives that distribution over the 196 actions. Both are pure
(fixed shapes, no Python control flow on values), so they ``jit`` and ``vmap``; one batch may mix
table sizes, roles and phases.

The strategy is the Python agent's, read where it reads: the observation slices are the published
names of :mod:`traitors_env.games.traitors_aboard.observation` (``BLOCKS``, ``OFFSETS``, ``SEAT_COLUMNS``, the
``CLAIM_*`` columns, all derived from its ``LAYOUT``) that the Python agent reads too, and the chest-card decoding
(``CHEST_CODE``, ``CARD_OF_CODE``) and every weight, threshold and preference order are the public names of
:mod:`traitors_env.games.traitors_aboard.bots` itself, so a retuned Python agent retunes this one.

**Memory.** The Python agent remembers one thing between decisions: between a Pirate's
Spyglass and the claim of the same turn, who announced what on the top chest cards (R07
scrambles that public record). Here it is explicit state, :class:`Memory`: start every seat with
:func:`init_memory` and pass each call the memory that the seat's previous call returned.

**Randomness.** The Python agent breaks ties between equally scored seats uniformly, flips a fair
coin for a Mutineer's claim, and plays a uniformly drawn legal action when none of its choices is
legal. The same draws are made here from a JAX key. Two scores count as tied when they differ by
less than ``2**-20`` of their size (the Python agent's tie-break jitter is ``1e-6``; this also
absorbs ``float32`` rounding).

**Arithmetic.** The Python agent computes in ``float64``, this one in ``float32``. Both count a
value within ``HeuristicAgent.TOLERANCE`` (1e-4) of a threshold as reaching it, so exact ties
(an estimate of 1/3 − 1/3 against 0) go the same way in both; they could differ only where a
value lands within float32 rounding of a threshold minus that tolerance. The tests in
``tests/games/traitors_aboard/test_jax_heuristic.py`` compare the two on every decision of many games.

**No decision asked.** With an all-zero mask (the Python agent raises ``ValueError``) the
probabilities are all 0 and the action is 0; check the mask before using the action.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .. import actions as A
from ..bots import (
    CARD_OF_CODE,
    CATCH,
    CHEST_CODE,
    GOOD_RIDDANCE,
    MINUS,
    PLANK,
    PLUS,
    POCKETS,
    REVEALED_MUTINEER,
    REVEALED_PIRATE,
    SPYGLASS,
    ZERO,
    HeuristicAgent,
)
from ..cards import HAND_SIZE, LOOT_VALUES, MAX_PLAYERS, MIN_PLAYERS, NUM_CARD_KINDS, SETUP_TABLE
from ..engine import Phase
from ..observation import BLOCKS, CLAIM_ACCUSED, CLAIM_HAND, CLAIM_VOUCHED, MAX_CHEST, OBS_SIZE, OFFSETS, SEAT_COLUMNS
from .engine import _once

__all__ = ["Memory", "heuristic_act", "heuristic_probabilities", "init_memory"]

_H = HeuristicAgent  # the strategy's parameters are its class attributes
_R_PIRATE, _R_MUTINEER = REVEALED_PIRATE, REVEALED_MUTINEER

_SEATS = MAX_PLAYERS  # relative seats, padded
_REMEMBERED = len(A.SPYGLASS_PERMUTATIONS[0])  # chest cards remembered across a Spyglass (the most it takes, R07)
_SLOTS = 15  # the longest list of choices (a Pirate's main decision)
_TIE = 2.0**-20  # relative: scores closer than this are tied (see the module docstring)

_LOOT_VALUES = np.array(LOOT_VALUES, dtype=np.float32)
_MUTINEERS = np.array([SETUP_TABLE[n].mutineers for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)], dtype=np.int32)


# The columns of a chest-card row that the Python agent's ``CHEST_CODE`` folds into one code: announced
# (one-hot, code 1–3), placer (one-hot, code 4·seat), true value (one-hot, code 64–192). Read here column by
# column (one-hot products, no code table): the same fields, each kept as its one-hot too.
_ANNOUNCED_COLUMNS = slice(1, 4)
_PLACER_COLUMNS = slice(4, 4 + MAX_PLAYERS)
_KNOWN_COLUMNS = slice(5 + MAX_PLAYERS, 8 + MAX_PLAYERS)
assert list(CHEST_CODE[_ANNOUNCED_COLUMNS]) == [1, 2, 3]
assert list(CHEST_CODE[_PLACER_COLUMNS]) == [4 * p for p in range(MAX_PLAYERS)]
assert list(CHEST_CODE[_KNOWN_COLUMNS]) == [64, 128, 192]
assert all(
    (card.announced, card.placer, card.known) == ((c % 4) - 1, (c // 4) % 8 if c % 4 else -1, c // 64 - 1)
    for c, card in ((int(code), card) for code, card in CARD_OF_CODE.items())
)  # the decoding below is the Python agent's table


def _index_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Action-index lookups: hand claim by sorted kinds, chest claim by value counts, Spyglass order by perm."""
    hand = np.full((NUM_CARD_KINDS,) * 3, -1, dtype=np.int32)
    for kinds in A.HAND_MULTISETS:
        hand[kinds] = A.hand_claim_action(kinds)
    chest = np.full((_REMEMBERED + 1,) * 3, -1, dtype=np.int32)
    for values in A.CHEST_MULTISETS:
        chest[values.count(0), values.count(1), values.count(2)] = A.chest_claim_action(values)
    order = np.full((_REMEMBERED,) * 3, -1, dtype=np.int32)
    for perm in A.SPYGLASS_PERMUTATIONS:
        order[perm] = A.spyglass_order_action(perm)
    return hand, chest, order


_HAND_CLAIM, _CHEST_CLAIM, _ORDER = _index_tables()
_PERMS = np.array(A.SPYGLASS_PERMUTATIONS, dtype=np.int32)
_PIRATE_RETURNS = np.array(_H.PIRATE_RETURNS, dtype=np.int32)
_MUTINEER_RETURNS = np.array(_H.MUTINEER_RETURNS, dtype=np.int32)


class Memory(NamedTuple):
    """What a seat's agent remembers between decisions: the top chest cards before its own Spyglass.

    Shapes are for one seat (add leading batch axes with ``vmap`` or :func:`init_memory`).

    Attributes:
        valid: ``bool ()``: a Spyglass was played as the main decision just made.
        draw: ``float32 ()``: draw pile size when it was played.
        chest_size: ``float32 ()``: chest size when it was played.
        cards: ``int32 ()``: chest cards remembered (up to 3).
        announced: ``int32 (3,)``: announced loot index (0 = +1, 1 = 0, 2 = −2) of each, top first; −1 if scrambled.
        placer: ``int32 (3,)``: its placer, a relative seat; −1 if not attributable.
        known: ``int32 (3,)``: its true loot index if the agent knew it, else −1.
    """

    valid: jax.Array
    draw: jax.Array
    chest_size: jax.Array
    cards: jax.Array
    announced: jax.Array
    placer: jax.Array
    known: jax.Array


def init_memory(batch_size: int | None = None) -> Memory:
    """The empty memory of a seat that has not played yet; with ``batch_size``, a batch of them."""
    shape = () if batch_size is None else (int(batch_size),)
    unknown = jnp.full(shape + (_REMEMBERED,), -1, dtype=jnp.int32)
    return Memory(
        valid=jnp.zeros(shape, dtype=bool),
        draw=jnp.zeros(shape, dtype=jnp.float32),
        chest_size=jnp.zeros(shape, dtype=jnp.float32),
        cards=jnp.zeros(shape, dtype=jnp.int32),
        announced=unknown,
        placer=unknown,
        known=unknown,
    )


# ------------------------------------------------------------------ reading the observation
class _Table(NamedTuple):
    """The Python agent's ``_Table``: arrays over relative seats (padded to 8) and chest cards (padded to 42)."""

    n: jax.Array
    seat: jax.Array  # present seats
    target: jax.Array
    draw: jax.Array
    chest_size: jax.Array
    hand: jax.Array
    aboard: jax.Array
    planks: jax.Array
    revealed: jax.Array
    good_riddance: jax.Array
    planks_played: jax.Array
    mutineers_aboard: jax.Array
    accused: jax.Array
    vouched: jax.Array
    claims_spyglass: jax.Array
    card: jax.Array  # chest cards present, top first
    announced: jax.Array
    placer: jax.Array
    known: jax.Array
    summary: jax.Array
    spyglass_taken: jax.Array
    others: jax.Array  # unrevealed_others()


def _last_hot(block: jax.Array) -> jax.Array:
    """Per row, the column of the last nonzero entry, −1 if none (the Python agent's loop keeps the last)."""
    hot = block != 0
    width = block.shape[-1]
    return jnp.where(hot.any(-1), width - 1 - jnp.argmax(hot[..., ::-1], axis=-1), -1)


def _at(values, index: jax.Array) -> jax.Array:
    """``values[clip(index, 0, len - 1)]`` for a small static ``values`` (a sequence or an array over its first
    axis) and an index that may be −1 (callers mask those entries): a chain of selects, elementwise over
    ``index``; no gather, no reduction (both slow on a CPU under ``vmap``)."""
    out = values[0]
    for i in range(1, len(values)):
        out = jnp.where(index == i, values[i], out)
    return out


def _read(obs: jax.Array) -> _Table:
    idx = jnp.arange(_SEATS)
    n = jnp.argmax(obs[BLOCKS["num_players"]]) + MIN_PLAYERS
    seat = idx < n
    target, draw, _, k = (obs[OFFSETS["target"] + i] for i in range(4))
    rows = obs[BLOCKS["seats"]].reshape(_SEATS, len(SEAT_COLUMNS))
    revealed = jnp.where(
        rows[:, SEAT_COLUMNS["revealed Pirate"]] != 0,
        _R_PIRATE,
        jnp.where(rows[:, SEAT_COLUMNS["revealed Mutineer"]] != 0, _R_MUTINEER, 0),
    )
    revealed = jnp.where(seat, revealed, 0)
    claims = obs[BLOCKS["claims"]].reshape(_SEATS, -1)
    accused = jnp.where(seat, _last_hot(claims[:, CLAIM_ACCUSED:CLAIM_VOUCHED]), -1)
    vouched = jnp.where(seat, _last_hot(claims[:, CLAIM_VOUCHED : CLAIM_HAND]), -1)
    width = CHEST_CODE.size
    chest = obs[OFFSETS["chest_cards"] : OFFSETS["chest_cards"] + MAX_CHEST * width].reshape(MAX_CHEST, width)
    card = jnp.arange(MAX_CHEST) < k

    def code(columns: slice) -> jax.Array:  # 1 + the hot column of a one-hot group, 0 if none (exact floats)
        return sum(chest[:, c] * (i + 1) for i, c in enumerate(range(columns.start, columns.stop)))

    announced, placer, known = code(_ANNOUNCED_COLUMNS), code(_PLACER_COLUMNS), code(_KNOWN_COLUMNS)
    # A placer without an announcement is no code of the Python agent's table: nothing known of that card.
    valid = card & ((announced > 0) | (placer <= 1))
    attributed = valid & (announced > 0)
    announced, placer, known = _once(  # small integers, −1 where none; computed once, read by many
        jnp.where(attributed, announced - 1, -1).astype(jnp.int32),
        jnp.where(attributed, jnp.maximum(placer - 1, 0), -1).astype(jnp.int32),
        jnp.where(valid & (known > 0), known - 1, -1).astype(jnp.int32),
    )
    return _Table(
        n=n,
        seat=seat,
        target=target,
        draw=draw,
        chest_size=k,
        hand=obs[BLOCKS["hand"]].astype(jnp.int32),
        aboard=seat & (rows[:, SEAT_COLUMNS["aboard"]] > 0),
        planks=jnp.where(seat, rows[:, SEAT_COLUMNS["1 Plank in front"]] + 2 * rows[:, SEAT_COLUMNS["2 Planks in front"]], 0).astype(jnp.int32),
        revealed=revealed,
        good_riddance=jnp.where(seat, rows[:, SEAT_COLUMNS["Good Riddance played"]], 0.0),
        planks_played=jnp.where(seat, rows[:, SEAT_COLUMNS["Planks played"]], 0.0),
        mutineers_aboard=jnp.asarray(_MUTINEERS)[n - MIN_PLAYERS] - jnp.sum(revealed == _R_MUTINEER),
        accused=accused,
        vouched=vouched,
        claims_spyglass=seat & (claims[:, CLAIM_HAND + SPYGLASS] > 0),
        card=card,
        announced=announced,
        placer=placer,
        known=known,
        summary=obs[BLOCKS["chest_summary"]],
        spyglass_taken=jnp.argmax(obs[BLOCKS["spyglass_taken"]]),
        others=seat & (idx >= 1) & (revealed == 0),
    )


# ------------------------------------------------------------------ the Python agent's helpers
def _cumsum(x: jax.Array) -> jax.Array:
    """``jnp.cumsum`` over the last (small) axis as a triangular select-sum (a cumsum is a slow reduce-window on a
    CPU); exact for integers."""
    n = x.shape[-1]
    lower = np.arange(n)[None, :] <= np.arange(n)[:, None]  # lower[i, j]: j <= i
    return jnp.sum(jnp.where(lower, x[..., None, :], 0), axis=-1)


def _sort3(a: jax.Array, b: jax.Array, c: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Three values in ascending order (a min/max network: no sort op)."""
    low, high = jnp.minimum(a, b), jnp.maximum(a, b)
    middle, top = jnp.minimum(high, c), jnp.maximum(high, c)
    return jnp.minimum(low, middle), jnp.maximum(low, middle), top


def _ties(seats: jax.Array, key: jax.Array) -> jax.Array:
    """``_pick``: the seats of ``seats`` with the highest key (ties), as 0/1 counts; all 0 if none."""
    best = jnp.max(jnp.where(seats, key, -jnp.inf))
    return (seats & (key >= best - _TIE * jnp.maximum(1.0, jnp.abs(best)))).astype(jnp.int32)


def _cheap(t: _Table) -> jax.Array:
    return t.n >= _H.WEAK_PLANK_PLAYERS


def _suspicion(t: _Table) -> tuple[jax.Array, jax.Array]:
    """Per relative seat: (suspicion score, Mutineer probability ``q``), as ``HeuristicAgent._suspicion``."""
    idx = jnp.arange(_SEATS)
    other = t.seat & (idx >= 1)
    n, revealed, accused = t.n, t.revealed, t.accused
    target_revealed = _at(revealed, accused)
    accuses = (accused >= 0) & (accused < n)
    friend = accuses & ((accused == 0) | (target_revealed == _R_PIRATE))
    foe = accuses & ~friend & (target_revealed == _R_MUTINEER)
    score = jnp.where(friend, _H.W_ACCUSED_FRIEND, jnp.where(foe, _H.W_ACCUSED_FOE, 0.0))
    vouched_revealed = _at(revealed, t.vouched)
    score = score + jnp.where(
        (t.vouched > 0) & (t.vouched < n) & (vouched_revealed == _R_MUTINEER), _H.W_VOUCHED_FOE, 0.0
    )
    score = score + _H.W_GOOD_RIDDANCE * t.good_riddance
    # Under 5 players the Planks in front of me are a Mutineer's doing, shared by the Planks each played.
    played = jnp.sum(jnp.where(other, t.planks_played, 0.0))
    planked = (t.planks[0] > 0) & ~_cheap(t) & (played > 0)
    share = _H.W_PLANKED_ME * t.planks[0].astype(jnp.float32) * t.planks_played / jnp.where(played > 0, played, 1.0)
    score = score + jnp.where(planked, share, 0.0)
    score = jnp.where(other, score, 0.0)
    announced_value = _at(_LOOT_VALUES, t.announced)
    lying = t.card & (t.known >= 0) & (t.placer > 0) & (announced_value > _at(_LOOT_VALUES, t.known))
    lies = jnp.sum(lying[:, None] & (t.placer[:, None] == idx[None, :]), axis=0)
    score = score + _H.W_CAUGHT_LYING * lies.astype(jnp.float32)
    mine = accused[0]
    score = score + jnp.where((mine > 0) & (mine < n) & (idx == mine), _H.W_MY_ACCUSATION, 0.0)
    own = score
    # Hearsay: seat s's accusation counts by what I know of s.
    hearsay = jnp.where(
        revealed == _R_PIRATE,
        _H.W_HEARSAY_REVEALED_PIRATE,
        jnp.where(
            revealed == _R_MUTINEER,
            _H.W_HEARSAY_REVEALED_MUTINEER,
            jnp.where(own <= _H.TOLERANCE, _H.W_HEARSAY_TRUSTED, 0.0),
        ),
    )
    heard = other & (accused > 0) & (accused < n) & (accused != idx)
    score = score + jnp.sum(
        jnp.where(heard[:, None] & (accused[:, None] == idx[None, :]), hearsay[:, None], 0.0), axis=0
    )
    candidates = t.others
    weights = jnp.where(candidates, jnp.exp(jnp.minimum(score, 30.0)), 0.0)
    total = jnp.sum(weights)
    scale = t.mutineers_aboard.astype(jnp.float32) / jnp.where(total > 0, total, 1.0)
    prob = jnp.where(t.seat & (revealed == _R_MUTINEER), 1.0, 0.0)
    prob = jnp.where(candidates, jnp.minimum(1.0, weights * scale), prob)
    return score, prob


def _card_values(t: _Table, prob: jax.Array) -> jax.Array:
    """Estimated value of each chest card, top first, 0 past the chest (``HeuristicAgent._card_values``)."""
    q = _at(prob, t.placer)
    discount = jnp.where(t.announced == 0, _H.LIE_DISCOUNT * q, jnp.where(t.announced == 1, q, 0.0))
    announced = _at(_LOOT_VALUES, t.announced) - discount
    others = (t.n - 1).astype(jnp.float32)
    mean_discount = _H.LIE_DISCOUNT * jnp.sum(jnp.where(t.seat & (jnp.arange(_SEATS) >= 1), prob, 0.0)) / others
    _, _, plus, zero, minus, public = (t.summary[i] for i in range(6))
    cards = plus + zero + minus
    scrambled = jnp.where(
        (public != 0) & (cards != 0),
        (plus * (1.0 - mean_discount) - 2.0 * minus) / jnp.where(cards != 0, cards, 1.0),
        0.0,
    )
    values = jnp.where(t.known >= 0, _at(_LOOT_VALUES, t.known), jnp.where(t.announced >= 0, announced, scrambled))
    return jnp.where(t.card, values, 0.0)


def _hand_claim(hand: jax.Array) -> jax.Array:
    """``hand_claim_action(_kinds(hand))``: the claim of a hand of counts (padded with +1s to three cards)."""
    ends = _cumsum(hand)
    kinds = [jnp.where(p < ends[-1], jnp.sum(ends <= p), PLUS) for p in range(HAND_SIZE)]
    return jnp.asarray(_HAND_CLAIM)[_sort3(*kinds)]


def _chest_claim(values: jax.Array, count: jax.Array) -> jax.Array:
    """``chest_claim_action``: the claim of the first ``count`` loot indices of ``values`` (shape (3,))."""
    used = jnp.arange(_REMEMBERED) < count
    c0, c1, c2 = (jnp.sum(used & (values == v)) for v in range(len(LOOT_VALUES)))
    return jnp.asarray(_CHEST_CLAIM)[c0, c1, c2]


# ------------------------------------------------------------------ the decisions as lists of choices
# A decision is a list of choices tried in order, the first legal one played, else a uniform legal action
# (``HeuristicAgent.act``). Here a list has ``_SLOTS`` slots; each slot holds one choice per alternative
# of a draw (the seat drawn among tied seats, or the side of a coin). Draw 0 may be shared by several
# slots (a Pirate's suspect is drawn once for its whole list); draws 1–3 are each used by one slot. A
# slot without a draw repeats one choice over its alternatives and belongs to draw 0.
_DRAWS = 4


class _Choices(NamedTuple):
    action: jax.Array  # int32 (_SLOTS, 8): per slot, the action for each alternative of its draw
    present: jax.Array  # bool (_SLOTS, 8): the choice is on the list for that alternative
    draw: jax.Array  # int32 (_SLOTS,): the draw that picks the slot's alternative
    ties: jax.Array  # int32 (_DRAWS, 8): ways to draw each alternative (1 per tied seat); draw 0 never empty
    spyglass_first: jax.Array  # bool (8,): per alternative of draw 0, the list starts with a Spyglass


_SEAT_INDEX = np.arange(_SEATS, dtype=np.int32)
_FIRST = (_SEAT_INDEX == 0).astype(np.int32)


def _choice(action, present, draw: int = 0) -> tuple[jax.Array, jax.Array, int]:
    """One slot: an action and a presence, each one value or one per alternative of ``draw``."""
    action = jnp.broadcast_to(jnp.asarray(action, dtype=jnp.int32), (_SEATS,))
    return action, jnp.broadcast_to(jnp.asarray(present, dtype=bool), (_SEATS,)), draw


def _choices(slots, ties=(), spyglass_first=None) -> _Choices:
    """The list of ``slots`` (padded with absent ones); ``ties`` per draw, draw 0 defaulting to one alternative."""
    slots = list(slots) + [_choice(0, False)] * (_SLOTS - len(slots))
    actions, present, draws = zip(*slots)
    ties = list(ties) or [jnp.asarray(_FIRST)]
    ties += [jnp.zeros(_SEATS, dtype=jnp.int32)] * (_DRAWS - len(ties))
    return _Choices(
        action=jnp.stack(actions),
        present=jnp.stack(present),
        draw=jnp.asarray(draws, dtype=jnp.int32),
        ties=jnp.stack([jnp.asarray(t, dtype=jnp.int32) for t in ties]),
        spyglass_first=jnp.zeros(_SEATS, dtype=bool) if spyglass_first is None else spyglass_first,
    )


def _pirate_main(t: _Table, score: jax.Array, prob: jax.Array) -> _Choices:
    hand = t.hand > 0
    cards = _card_values(t, prob)
    estimate = jnp.sum(cards)
    margin = jnp.where(jnp.any(t.card & (t.known < 0)), _H.OPEN_MARGIN, 0.0)
    has_chest = t.chest_size != 0
    open_chest = (
        (t.draw <= 1)
        | (has_chest & (estimate >= t.target + margin - _H.TOLERANCE))
        | (has_chest & (t.draw <= jnp.sum(t.aboard)) & (estimate >= t.target - _H.LAST_CHANCE_MARGIN - _H.TOLERANCE))
    )
    key = prob + 1e-3 * score + _H.FINISH_BONUS * (t.planks == 2)
    has_suspect = jnp.any(t.others)
    suspects = jnp.where(has_suspect, _ties(t.others, key), _FIRST)  # draw 0: the suspect (none: q = 0)
    q = jnp.where(has_suspect, prob, 0.0)  # per suspect
    top_unknown = jnp.sum(t.card[:_REMEMBERED] & (t.known[:_REMEMBERED] < 0))
    plank, pockets = A.plank_action(_SEAT_INDEX), A.empty_your_pockets_action(_SEAT_INDEX)
    slots = [
        _choice(A.OPEN_CHEST, open_chest),
        _choice(plank, hand[PLANK] & (q >= _H.PLANK_PROBABILITY - _H.TOLERANCE)),
        _choice(A.loot_action(PLUS, PLUS), hand[PLUS]),
        _choice(A.SPYGLASS, hand[SPYGLASS] & (top_unknown >= 2)),
        _choice(A.GOOD_RIDDANCE, hand[GOOD_RIDDANCE] & has_chest & (cards[0] + cards[1] < -_H.TOLERANCE)),
        _choice(A.MIRACULOUS_CATCH, hand[CATCH] & (hand[MINUS] | hand[ZERO])),
        _choice(A.loot_action(ZERO, ZERO), hand[ZERO]),
        _choice(pockets, has_suspect & hand[POCKETS] & (q >= _H.POCKETS_PROBABILITY - _H.TOLERANCE)),
        _choice(plank, has_suspect & hand[PLANK] & _cheap(t)),
        _choice(A.loot_action(MINUS, MINUS), hand[MINUS]),
        _choice(A.SPYGLASS, hand[SPYGLASS]),
        _choice(A.MIRACULOUS_CATCH, hand[CATCH]),
        _choice(A.GOOD_RIDDANCE, hand[GOOD_RIDDANCE]),
        _choice(plank, has_suspect),
        _choice(pockets, has_suspect),
    ]
    choices = _choices(slots, [suspects])
    first = jnp.argmax(choices.present, axis=0)  # per suspect, the list's first choice
    spyglass_first = choices.present.any(0) & (choices.action[first, _SEAT_INDEX] == A.SPYGLASS)
    return choices._replace(spyglass_first=spyglass_first)


def _spyglass_liar(t: _Table, memory: Memory) -> tuple[jax.Array, jax.Array]:
    """``HeuristicAgent._spyglass_liar``: (found, relative seat) of the one seat that must have lied."""
    taken = t.spyglass_taken
    used = jnp.arange(_REMEMBERED) < taken
    seen = t.known[:_REMEMBERED]
    judged = (
        memory.valid
        & (taken >= 2)
        & (memory.draw == t.draw + 1)
        & (memory.chest_size == t.chest_size)
        & (memory.cards == taken)
        & ~jnp.any(used & ((memory.announced < 0) | (memory.known >= 0)))
        & ~jnp.any(used & (seen < 0))
    )
    perms = jnp.asarray(_PERMS)
    arrangements = (taken == 3) | (perms[:, 2] == 2)  # with 2 cards, the permutations of the first two
    values = seen[perms]  # (6, 3): the seen values in each arrangement
    lies = used[None, :] & (memory.announced[None, :] != values)  # (6, 3)
    seats = jnp.arange(_SEATS)
    lying = jnp.any(lies[:, :, None] & (memory.placer[None, :, None] == seats[None, None, :]), axis=1)  # (6, 8)
    honest = jnp.any(arrangements & ~lying.any(1))
    one = lying.sum(1) == 1
    alone = jnp.argmax(lying, axis=1)
    counted = arrangements & one & (t.revealed[alone] == 0)
    liars = jnp.any(counted[:, None] & lying, axis=0)
    found = judged & ~honest & (liars.sum() == 1)
    return found, jnp.argmax(liars)


def _pirate_claim(t: _Table, memory: Memory, score: jax.Array) -> _Choices:
    found, liar = _spyglass_liar(t, memory)
    ties = _ties(t.others, score)
    accuse = ~found & jnp.any(ties) & (jnp.max(jnp.where(ties > 0, score, -jnp.inf)) >= _H.ACCUSE_SCORE - _H.TOLERANCE)
    taken = t.spyglass_taken
    seen = t.known[:_REMEMBERED]
    tell = (taken > 0) & ~jnp.any((jnp.arange(_REMEMBERED) < taken) & (seen < 0))
    otherwise = jnp.where(
        tell, _chest_claim(seen, taken), jnp.where(t.hand[SPYGLASS] > 0, A.vouch_action(0), _hand_claim(t.hand))
    )
    action = jnp.where(found, A.accuse_action(liar), jnp.where(accuse, A.accuse_action(_SEAT_INDEX), otherwise))
    return _choices([_choice(action, True)], [jnp.where(accuse, ties, _FIRST)])


def _mutineer_main(t: _Table) -> _Choices:
    hand = t.hand > 0
    cards = _card_values(t, jnp.zeros(_SEATS))  # Pirates announce truthfully
    accused_me = (t.accused == 0).astype(jnp.float32)
    danger = (jnp.sum(cards) >= t.target - _H.M_DANGER_MARGIN - _H.TOLERANCE) & (cards[0] + cards[1] > _H.TOLERANCE)
    pockets = _ties(t.others, 2.0 * t.claims_spyglass + accused_me)
    needed = jnp.sum(t.aboard) - 2 * t.mutineers_aboard  # Pirates overboard until parity (R12)
    targets = jnp.where(
        needed <= _H.M_PLANK_MARGIN,
        t.others,
        _cheap(t) & t.others & (t.planks < _H.M_FREE_PLANK_LIMIT),
    )
    plank = _ties(targets, t.planks + 0.5 * accused_me)
    fewest = _ties(t.others, -t.planks.astype(jnp.float32))
    seats = [hand[POCKETS] & (pockets > 0), hand[PLANK] & (plank > 0), hand[PLANK] & (fewest > 0)]
    return _choices(
        [
            _choice(A.GOOD_RIDDANCE, hand[GOOD_RIDDANCE] & danger),
            _choice(A.loot_action(MINUS, PLUS), hand[MINUS]),
            _choice(A.empty_your_pockets_action(_SEAT_INDEX), seats[0], draw=1),
            _choice(A.plank_action(_SEAT_INDEX), seats[1], draw=2),
            _choice(A.MIRACULOUS_CATCH, hand[CATCH]),
            _choice(A.loot_action(ZERO, PLUS), hand[ZERO]),
            _choice(A.SPYGLASS, hand[SPYGLASS]),
            _choice(A.loot_action(PLUS, PLUS), hand[PLUS]),
            _choice(A.GOOD_RIDDANCE, hand[GOOD_RIDDANCE]),
            _choice(A.plank_action(_SEAT_INDEX), seats[2], draw=3),
        ],
        [_FIRST, pockets, plank, fewest],
    )


def _mutineer_claim(t: _Table) -> _Choices:
    accusers = (t.others & (t.accused == 0) & _H.M_COUNTER_ACCUSE).astype(jnp.int32)
    counter = jnp.any(accusers > 0)
    taken = t.spyglass_taken
    fake = t.hand.at[PLUS].add(t.hand[MINUS]).at[MINUS].set(0)  # every −2 shown as +1
    coin = jnp.where(_SEAT_INDEX == 0, A.vouch_action(0), _hand_claim(fake))  # heads, tails
    action = jnp.where(
        counter,
        A.accuse_action(_SEAT_INDEX),
        jnp.where(taken > 0, _chest_claim(jnp.full(_REMEMBERED, PLUS), taken), coin),
    )
    ties = jnp.where(counter, accusers, jnp.where(taken > 0, _FIRST, (_SEAT_INDEX < 2).astype(jnp.int32)))
    return _choices([_choice(action, True)], [ties])


def _spyglass_order(obs: jax.Array, pirate: jax.Array) -> _Choices:
    taken = jnp.argmax(obs[BLOCKS["spyglass_taken"]])
    seen = obs[BLOCKS["spyglass_view"]].reshape(_REMEMBERED, len(LOOT_VALUES))
    values = jnp.asarray(_LOOT_VALUES)[jnp.argmax(seen == 1.0, axis=1)]
    position = jnp.arange(_REMEMBERED)
    # Stable sort of the taken cards (lowest value on top for a Pirate); the others stay where they are.
    key = jnp.where(position < taken, jnp.where(pirate, values, -values), 10.0)
    # The stable argsort of three keys from their ranks (earlier of equal keys first), no sort op.
    rank = jnp.sum((key[None, :] < key[:, None]) | ((key[None, :] == key[:, None]) & (position < position[:, None])), 1)
    a, b, c = (sum(jnp.where(rank[i] == r, i, 0) for i in range(_REMEMBERED)) for r in range(_REMEMBERED))
    return _choices([_choice(jnp.asarray(_ORDER)[a, b, c], True)])


def _catch_return(hand: jax.Array, pirate: jax.Array) -> _Choices:
    order = jnp.where(pirate, jnp.asarray(_PIRATE_RETURNS), jnp.asarray(_MUTINEER_RETURNS))
    return _choices([_choice(A.RETURN_BASE + kind, hand[kind] > 0) for kind in order])


def _decide(obs: jax.Array, memory: Memory) -> tuple[_Choices, jax.Array, jax.Array, _Table]:
    """Every phase's choices, the one of this observation selected. Returns (choices, phase, pirate, table)."""
    phase = jnp.argmax(obs[BLOCKS["phase"]])
    pirate = obs[OFFSETS["role"]] > 0.5
    t = _read(obs)
    score, prob = _suspicion(t)  # a Pirate's, for its main decision and its claim
    options = {
        Phase.MAIN: jax.tree.map(lambda p, m: jnp.where(pirate, p, m), _pirate_main(t, score, prob), _mutineer_main(t)),
        Phase.SPYGLASS_ORDER: _spyglass_order(obs, pirate),
        Phase.CLAIM: jax.tree.map(
            lambda p, m: jnp.where(pirate, p, m), _pirate_claim(t, memory, score), _mutineer_claim(t)
        ),
    }
    choices = _catch_return(t.hand, pirate)
    for which, option in options.items():
        choices = jax.tree.map(lambda o, c, w=which: jnp.where(phase == w, o, c), option, choices)
    return choices, phase, pirate, t


def _check(observation: jax.Array, action_mask: jax.Array) -> tuple[jax.Array, jax.Array]:
    observation = jnp.asarray(observation, dtype=jnp.float32)
    action_mask = jnp.asarray(action_mask)
    if observation.shape != (OBS_SIZE,) or action_mask.shape != (A.NUM_ACTIONS,):
        raise ValueError(
            f"observation of shape {observation.shape} and action_mask of shape {action_mask.shape}; expected "
            f"({OBS_SIZE},) and ({A.NUM_ACTIONS},) for one seat (vmap for a batch)"
        )
    return observation, action_mask != 0


def _passing(choices: _Choices, legal: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Per slot: the share of each alternative that is played there (a legal choice on the list), and per
    alternative of draw 0 and slot, the probability that the list gets past the slot."""
    playable = choices.present & legal[choices.action]  # (_SLOTS, 8)
    ties = choices.ties[choices.draw]  # (_SLOTS, 8): the slot's draw
    total = ties.sum(-1)
    played = jnp.sum(ties * playable, axis=-1)
    shared = (choices.draw == 0)[:, None]
    # Draw 0 is followed alternative by alternative; draws 1-3 are averaged (integers: an exact 0 when all legal).
    averaged = jnp.where(total > 0, (total - played) / jnp.maximum(total, 1), 1.0)  # no seat to draw: no choice
    passing = jnp.where(shared, ~playable, averaged[:, None])
    share = jnp.where(shared, playable, ties * playable / jnp.maximum(total, 1)[:, None])
    return playable, share, passing


def heuristic_probabilities(observation: jax.Array, action_mask: jax.Array, memory: Memory) -> jax.Array:
    """The probability of each action under the heuristic agent, ``float32 (196,)``, summing to 1.

    Args:
        observation: ``float32 (1228,)``, one seat's observation (``env.observe(agent)["observation"]``).
        action_mask: ``(196,)``, nonzero where legal.
        memory: that seat's :class:`Memory` (from :func:`init_memory` or its previous :func:`heuristic_act`).

    Returns:
        The distribution of ``HeuristicAgent.act`` (zero off the mask; all zeros if the mask is).

    Raises:
        ValueError: on shapes other than those above (``vmap`` for a batch).
    """
    observation, legal = _check(observation, action_mask)
    choices, _, _, _ = _decide(observation, memory)
    _, share, passing = _passing(choices, legal)
    branch = choices.ties[0] / choices.ties[0].sum()  # the alternatives of draw 0
    reach = jnp.cumprod(jnp.concatenate([jnp.ones((1, _SEATS)), passing], axis=0), axis=0)  # (_SLOTS + 1, 8)
    shared = (choices.draw == 0)[:, None]
    # Draw 0's alternative k reaches its own choices; a choice of another draw is reached from every k.
    weight = jnp.where(shared, branch * reach[:-1], jnp.sum(branch * reach[:-1], axis=1, keepdims=True)) * share
    probabilities = jnp.zeros(A.NUM_ACTIONS).at[choices.action.ravel()].add(weight.ravel())
    fallback = jnp.sum(branch * reach[-1])  # no choice legal: a uniform legal action
    return probabilities + fallback * legal / jnp.maximum(legal.sum(), 1)


def _draw(ties: jax.Array, u: jax.Array) -> jax.Array:
    """The alternative drawn with probability proportional to ``ties`` (counts) from a uniform ``u``: the first
    whose cumulative count exceeds ``u`` × the total, i.e. the ``floor(u × total)``-th counted one (from 0)."""
    return jnp.argmax(_cumsum(ties) > u * ties.sum(-1, keepdims=True), axis=-1)


def _draw_legal(legal: jax.Array, u: jax.Array) -> jax.Array:
    """``_draw(legal, u)`` for the 196 actions without their cumulative sum (a slow reduce-window on a CPU): which
    block of 14 holds the ``floor(u × legal actions)``-th legal action, then where in it. Same action for the same
    ``u`` (meaningless if none is legal)."""
    side = math.isqrt(A.NUM_ACTIONS - 1) + 1
    grid = jnp.zeros(side * side, jnp.int32).at[: A.NUM_ACTIONS].set(legal).reshape(side, side)
    upto = _cumsum(grid.sum(1))  # legal actions in blocks 0 … i
    pick = jnp.floor(u * upto[-1].astype(jnp.float32)).astype(jnp.int32)
    which = jnp.minimum(jnp.sum(upto <= pick), side - 1)
    before = jnp.sum(jnp.where(jnp.arange(side) < which, grid.sum(1), 0))
    within = _cumsum(_at(grid, which))  # the block's row, cumulated
    return which * side + jnp.minimum(jnp.sum(within <= pick - before), side - 1)


def heuristic_act(
    observation: jax.Array, action_mask: jax.Array, memory: Memory, key: jax.Array
) -> tuple[jax.Array, Memory]:
    """The heuristic agent's action for one seat and its memory for the seat's next decision.

    Args:
        observation: ``float32 (1228,)``, one seat's observation.
        action_mask: ``(196,)``, nonzero where legal.
        memory: that seat's :class:`Memory`.
        key: a JAX PRNG key; the same key gives the same action.

    Returns:
        ``(action, memory)``: an ``int32 ()`` legal action (0 if the mask is all zeros) drawn from
        :func:`heuristic_probabilities`, and the seat's new :class:`Memory`.

    Raises:
        ValueError: on shapes other than those above (``vmap`` for a batch).
    """
    observation, legal = _check(observation, action_mask)
    choices, phase, pirate, t = _decide(observation, memory)
    u = jax.random.uniform(key, (_DRAWS + 1,))
    drawn = _draw(choices.ties, u[:_DRAWS, None])  # one alternative per draw
    alternative = drawn[choices.draw]  # per slot
    slot_action = choices.action[jnp.arange(_SLOTS), alternative]
    playable = choices.present[jnp.arange(_SLOTS), alternative] & legal[slot_action]
    fallback = _draw_legal(legal, u[_DRAWS])
    chosen = jnp.where(playable.any(), slot_action[jnp.argmax(playable)], jnp.where(legal.any(), fallback, 0))
    # The Python agent sets its memory at a Pirate's main decision and spends it at the claim.
    main, claim = pirate & (phase == Phase.MAIN), pirate & (phase == Phase.CLAIM)
    top = jnp.arange(_REMEMBERED)
    seen = Memory(
        valid=choices.spyglass_first[drawn[0]],
        draw=t.draw,
        chest_size=t.chest_size,
        cards=jnp.minimum(t.chest_size, _REMEMBERED).astype(jnp.int32),
        announced=jnp.where(top < t.chest_size, t.announced[:_REMEMBERED], -1),
        placer=jnp.where(top < t.chest_size, t.placer[:_REMEMBERED], -1),
        known=jnp.where(top < t.chest_size, t.known[:_REMEMBERED], -1),
    )
    seen = jax.tree.map(lambda s, e: jnp.where(seen.valid, s, e), seen, init_memory())
    new = jax.tree.map(lambda s, e, m: jnp.where(main, s, jnp.where(claim, e, m)), seen, init_memory(), memory)
    return chosen.astype(jnp.int32), new
