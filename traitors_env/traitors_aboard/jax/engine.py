"""The functional rules engine of *Traitors Aboard* in JAX: ``init``, ``step``, ``legal_action_mask``.

The twin of :mod:`traitors_env.traitors_aboard.engine` (the reference): the same rules and rulings
(R01–R16, ``docs/rules/RULINGS.md``), the same action indices (:mod:`..actions`), as pure
functions of a :class:`~.state.Game` and a JAX key, so they run under ``jit``, ``vmap`` and
``lax.scan``. Table size and claim setting are data, so one compiled function plays any mix.

Why the code looks as it does: under ``vmap`` both sides of every branch run, so ``step`` has no
per-action branches. It decodes the action into flags once, then applies each kind of change
(cards leaving the hand, the chest, the draws, the turn passing …) a single time, each selected by
those flags with ``jnp.where``. Tests replay games of this engine in the reference engine and
compare every decision (``tests/test_jax_engine.py``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import actions as A
from ..cards import (
    HAND_SIZE,
    LOOT_VALUES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_CARD_KINDS,
    PLANKS_TO_OVERBOARD,
    SETUP_TABLE,
    CardKind,
    EndCondition,
    Role,
)
from ..engine import Phase
from ..observation import MAX_CHEST
from .state import MAX_DECK, NO_WINNER, Game, empty_game

# ------------------------------------------------------------------ static tables (from the reference)
_N = np.arange(MAX_PLAYERS + 1)
PIRATES = np.array([SETUP_TABLE[n].pirates if n in SETUP_TABLE else 0 for n in _N], np.int32)
PLANKS = np.array([SETUP_TABLE[n].planks if n in SETUP_TABLE else 0 for n in _N], np.int32)
TARGET = np.array([SETUP_TABLE[n].target if n in SETUP_TABLE else 0 for n in _N], np.int32)
#: The 8-player deck, kinds sorted so that the Planks come last: the n-player deck is its first
#: ``DECK_SIZE[n]`` cards (only the number of Planks changes with n).
_FULL_COUNTS = SETUP_TABLE[MAX_PLAYERS].deck_counts()
_DECK_ORDER = [k for k in range(NUM_CARD_KINDS) if k != CardKind.PLANK] + [CardKind.PLANK]
FULL_DECK = np.array([k for k in _DECK_ORDER for _ in range(_FULL_COUNTS[k])], np.int8)
DECK_SIZE = np.array([len(FULL_DECK) - PLANKS[MAX_PLAYERS] + PLANKS[n] for n in _N], np.int32)
assert len(FULL_DECK) == MAX_DECK
LOOT_VALUE = np.array(LOOT_VALUES, np.int32)  # per loot kind / announced index
PERMUTATIONS = np.array(A.SPYGLASS_PERMUTATIONS, np.int32)  # (6, 3)
#: Per number of cards taken (0–3): which SPYGLASS_ORDER actions are legal (R07: the untaken stay put).
PERM_LEGAL = np.array([[all(p[j] == j for j in range(t, 3)) for p in A.SPYGLASS_PERMUTATIONS] for t in range(4)], bool)
#: Per chest-claim multiset: its size (R15: as many values as cards taken).
CHEST_CLAIM_SIZE = np.array([len(m) for m in A.CHEST_MULTISETS], np.int32)

MAIN, SPYGLASS_ORDER, CATCH_RETURN_1, CATCH_RETURN_2, CLAIM, GAME_OVER = (int(p) for p in Phase)
PIRATE, MUTINEER = int(Role.PIRATE), int(Role.MUTINEER)
PLANK, GOOD_RIDDANCE, SPYGLASS, CATCH, EYP = (
    int(k)
    for k in (
        CardKind.PLANK,
        CardKind.GOOD_RIDDANCE,
        CardKind.SPYGLASS,
        CardKind.MIRACULOUS_CATCH,
        CardKind.EMPTY_YOUR_POCKETS,
    )
)

_SEATS = jnp.arange(MAX_PLAYERS)
_KINDS = jnp.arange(NUM_CARD_KINDS)
_SLOTS = jnp.arange(MAX_CHEST)
_DRAW_SLOTS = jnp.arange(MAX_DECK)


def _one_hot(index, size: int, dtype=jnp.int32):
    return (jnp.arange(size) == index).astype(dtype)


def _bit(seat):
    return jnp.left_shift(jnp.uint8(1), seat.astype(jnp.uint8))


# ------------------------------------------------------------------ setup
def init(key: jax.Array, num_players, claims=True, first_player=-1) -> Game:
    """A new game: roles dealt, deck shuffled, 3 cards each, first seat drawn (rulebook "Setup", R01).

    Args:
        key: a JAX PRNG key.
        num_players: int 3–8 (a Python int or a traced integer: table size is data).
        claims: the claim step (R14), a bool (or traced bool).
        first_player: ``-1`` draws the first seat uniformly (R01 default); a seat fixes it.

    Returns:
        A :class:`Game` at the first decision. Out-of-range ``num_players`` is not checked inside
        ``jit``; :func:`check_num_players` raises for a concrete bad value.
    """
    check_num_players(num_players)
    n = jnp.asarray(num_players, jnp.int32)
    k_roles, k_deck, k_first = jax.random.split(key, 3)
    # Roles: Pirates then Mutineers, shuffled among the n seats (padding sorts last).
    role_order = jnp.argsort(jnp.where(_SEATS < n, jax.random.uniform(k_roles, (MAX_PLAYERS,)), 2.0))
    roles = (role_order >= jnp.asarray(PIRATES)[n]).astype(jnp.int8) * (_SEATS < n)
    # Deck: the first DECK_SIZE[n] cards of FULL_DECK, shuffled to the front.
    deck_size = jnp.asarray(DECK_SIZE)[n]
    order = jnp.argsort(jnp.where(_DRAW_SLOTS < deck_size, jax.random.uniform(k_deck, (MAX_DECK,)), 2.0))
    deck = jnp.asarray(FULL_DECK)[order]
    dealt = HAND_SIZE * n
    hand_slots = jnp.arange(HAND_SIZE * MAX_PLAYERS)
    owner = jnp.where(hand_slots < dealt, hand_slots // HAND_SIZE, -1)
    hands = ((owner[:, None] == _SEATS)[:, :, None] & (deck[: HAND_SIZE * MAX_PLAYERS, None, None] == _KINDS)).sum(0)
    draw = deck[jnp.minimum(_DRAW_SLOTS + dealt, MAX_DECK - 1)]
    first = jnp.where(first_player < 0, jax.random.randint(k_first, (), 0, n), first_player)
    g = empty_game()
    return g.replace(
        num_players=n.astype(jnp.int8),
        claims=jnp.asarray(claims, jnp.bool_),
        roles=roles.astype(jnp.int8),
        hands=hands.astype(jnp.int8),
        draw=draw,
        draw_size=(deck_size - dealt).astype(jnp.int8),
        aboard=_SEATS < n,
        current_player=first.astype(jnp.int8),
    )


def check_num_players(num_players) -> None:
    """Raise ``ValueError`` for a concrete ``num_players`` outside 3–8 (traced values pass unchecked)."""
    try:
        values = np.asarray(num_players)
    except jax.errors.TracerArrayConversionError:
        return
    if values.dtype.kind not in "iu" or values.size == 0 or values.min() < MIN_PLAYERS or values.max() > MAX_PLAYERS:
        raise ValueError(
            f"num_players={num_players!r} is not supported; Traitors Aboard is played by "
            f"{MIN_PLAYERS} to {MAX_PLAYERS} players (an int)"
        )


# ------------------------------------------------------------------ queries
def target(g: Game) -> jax.Array:
    """The chest target of the table (rulebook "End of the Game"), int32 ()."""
    return jnp.asarray(TARGET)[g.num_players.astype(jnp.int32)]


def chest_value(g: Game) -> jax.Array:
    """The true value of the chest (hidden until opened, R03), int32 ()."""
    values = jnp.asarray(LOOT_VALUE)[jnp.minimum(g.chest_kind.astype(jnp.int32), 2)]
    return jnp.sum(jnp.where(_SLOTS < g.chest_size, values, 0))


def terminated(g: Game) -> jax.Array:
    """Whether the game has ended, bool ()."""
    return g.phase == GAME_OVER


def returns(g: Game) -> jax.Array:
    """Per seat: +1 if its team won, −1 if it lost, 0 while the game runs or for a padding seat (R17); float32 (8,)."""
    won = jnp.where(g.roles == g.winner, 1.0, -1.0)
    return jnp.where((g.winner != NO_WINNER) & (_SEATS < g.num_players), won, 0.0).astype(jnp.float32)


def _offset_aboard(g: Game, seat) -> jax.Array:
    """bool (8,): offset o (0–7) from ``seat`` names a seat of the table that is aboard."""
    n = g.num_players.astype(jnp.int32)
    return (_SEATS < n) & g.aboard[(seat + _SEATS) % n]


def legal_action_mask(g: Game) -> jax.Array:
    """The legal actions of the current player, bool ``(NUM_ACTIONS,)``; all False once the game is over.

    Source: R03, R04, R07–R11, R13 (main), R07 (Spyglass order), R09 (returns), R15 (claims).
    """
    seat = g.current_player.astype(jnp.int32)
    phase = g.phase
    hand = g.hands[seat] > 0
    aboard = _offset_aboard(g, seat)
    others = aboard[1:]
    main = jnp.concatenate(
        [
            (g.roles[seat] == PIRATE)[None],  # R03
            jnp.repeat(hand[:3], 3),  # R04: any announcement
            others & hand[PLANK],  # R11
            others & hand[EYP],  # R10
            hand[GOOD_RIDDANCE : CATCH + 1],
        ]
    )
    order = jnp.asarray(PERM_LEGAL)[g.spyglass_taken.astype(jnp.int32)]
    claim = jnp.concatenate(
        [
            jnp.ones(1, bool),
            others,
            aboard,
            jnp.ones(len(A.HAND_MULTISETS), bool),
            jnp.asarray(CHEST_CLAIM_SIZE) == g.spyglass_taken,  # never for 0 taken
        ]
    )
    is_return = (phase == CATCH_RETURN_1) | (phase == CATCH_RETURN_2)
    return jnp.concatenate(
        [main & (phase == MAIN), order & (phase == SPYGLASS_ORDER), hand & is_return, claim & (phase == CLAIM)]
    )


# ------------------------------------------------------------------ transition
def step(g: Game, action, key: jax.Array) -> Game:
    """Apply the current player's ``action`` (an index of :mod:`traitors_env.traitors_aboard.actions`).

    ``key`` is used only for R07's Spyglass shuffle. The action must be legal
    (:func:`legal_action_mask`); an illegal one gives an unspecified state (the pgx env, :mod:`.env`,
    ends the game instead). A finished game is returned unchanged.
    """
    a = jnp.asarray(action, jnp.int32)
    i8 = jnp.int8
    n = g.num_players.astype(jnp.int32)
    seat = g.current_player.astype(jnp.int32)
    phase = g.phase
    bit = _bit(seat)
    cs = g.chest_size.astype(jnp.int32)
    ds = g.draw_size.astype(jnp.int32)

    # ---- decode the action into flags
    main = phase == MAIN
    open_chest = main & (a == A.OPEN_CHEST)
    loot = main & (a >= A.LOOT_BASE) & (a < A.PLANK_BASE + 1)
    plank = main & (a > A.PLANK_BASE) & (a <= A.EYP_BASE)
    eyp = main & (a > A.EYP_BASE) & (a < A.GOOD_RIDDANCE)
    riddance = main & (a == A.GOOD_RIDDANCE)
    spyglass = main & (a == A.SPYGLASS)
    catch = main & (a == A.MIRACULOUS_CATCH)
    order = phase == SPYGLASS_ORDER
    returning = (phase == CATCH_RETURN_1) | (phase == CATCH_RETURN_2)
    claim = phase == CLAIM
    loot_card = jnp.clip((a - A.LOOT_BASE) // 3, 0, 2)
    announced = jnp.clip((a - A.LOOT_BASE) % 3, 0, 2)
    offset = jnp.where(plank, a - A.PLANK_BASE, a - A.EYP_BASE)
    target_seat = (seat + offset) % n  # Plank / Empty Your Pockets (R10, R11)
    action_card = plank | eyp | riddance | spyglass | catch
    card_kind = jnp.where(
        loot,
        loot_card,
        jnp.where(
            plank,
            PLANK,
            jnp.where(
                eyp,
                EYP,
                jnp.where(
                    riddance, GOOD_RIDDANCE, jnp.where(spyglass, SPYGLASS, jnp.where(catch, CATCH, a - A.RETURN_BASE))
                ),
            ),
        ),
    )
    leaves_hand = loot | action_card | returning
    seat_row = _SEATS == seat
    target_row = (_SEATS == target_seat) & (plank | eyp)

    # ---- the card leaves the hand; an action card is shown and counted (R04, action cards)
    hands = g.hands - (seat_row[:, None] & (_KINDS == card_kind) & leaves_hand).astype(i8)
    actions_played = g.actions_played + (seat_row[:, None] & (jnp.arange(5) == card_kind - PLANK) & action_card).astype(
        i8
    )
    discard = g.discard + ((_KINDS == card_kind) & action_card & ~plank).astype(i8)

    # ---- Plank (R11) and Empty Your Pockets (R10): the target
    kind_index = jnp.where(plank, 0, 1)
    targeted = g.targeted + (
        seat_row[:, None, None] & target_row[None, :, None] & (jnp.arange(2) == kind_index)[None, None, :]
    ).astype(i8)
    planks = g.planks + (target_row & plank).astype(i8)
    overboard = target_row & plank & (planks >= PLANKS_TO_OVERBOARD)  # (8,)
    emptied = overboard | (target_row & eyp)  # hands discarded face down
    discard = discard + jnp.sum(jnp.where(emptied[:, None], hands, 0), 0).astype(i8)
    discard = discard.at[PLANK].add(jnp.sum(jnp.where(overboard, planks, 0)).astype(i8))
    hands = jnp.where(emptied[:, None], 0, hands).astype(i8)
    planks = jnp.where(overboard, 0, planks).astype(i8)
    aboard = g.aboard & ~overboard
    revealed = g.revealed | overboard | (seat_row & open_chest)  # R11, R03
    pockets_emptied = g.pockets_emptied + (target_row & eyp).astype(i8)
    # R12: after an overboard
    mutineers = jnp.sum(aboard & (g.roles == MUTINEER))
    pirates = jnp.sum(aboard & (g.roles == PIRATE))
    thrown = jnp.any(overboard)
    crew_end = thrown & ((mutineers == 0) | (mutineers >= pirates))

    # ---- the chest: loot (R04), Good Riddance (R08), Spyglass (R07)
    chest = _chest_step(g, key, seat, bit, cs, loot, loot_card, announced, riddance, spyglass, order, a)
    (
        chest_kind,
        chest_placer,
        chest_announced,
        chest_known,
        chest_group,
        group_counts,
        group_known,
        new_cs,
        taken,
        seen,
        discard_add,
    ) = chest
    discard = discard + discard_add
    scrambling = spyglass & (taken >= 2)
    loot_placed = g.loot_placed + (seat_row & loot).astype(i8)
    announced_sum = g.announced_sum + (seat_row & loot).astype(i8) * jnp.asarray(LOOT_VALUE)[announced].astype(i8)

    # ---- draws (R05, R06, R09, R10): up to 4 cards from the top, one at a time
    draws = jnp.where(
        eyp,
        4,
        jnp.where(
            catch, 3, jnp.where((loot | (plank & ~crew_end) | riddance | (spyglass & ~scrambling) | order), 1, 0)
        ),
    )
    recipients = jnp.where(eyp & (jnp.arange(4) < 3), target_seat, seat)  # EYP: target draws 3, then the player
    drawn = jnp.arange(4) < jnp.minimum(draws, ds)
    drawn_kind = g.draw[jnp.maximum(ds - 1 - jnp.arange(4), 0)]
    hands = hands + jnp.sum(
        ((recipients[:, None] == _SEATS)[:, :, None] & (drawn_kind[:, None, None] == _KINDS) & drawn[:, None, None]),
        0,
    ).astype(i8)
    ds_after = ds - jnp.minimum(draws, ds)
    pile_end = (draws > 0) & (ds <= draws)
    # R09: a returned card goes on top of the draw pile, known to the player
    return_kind = (a - A.RETURN_BASE).astype(i8)
    draw = jnp.where(returning & (_DRAW_SLOTS == ds), return_kind, g.draw)
    draw_known = jnp.where(returning & (_DRAW_SLOTS == ds), bit, g.draw_known)
    ds_after = ds_after + returning.astype(jnp.int32)

    # ---- claims (R14–R16)
    claim_accuse = g.claim_accuse
    claim_vouch = g.claim_vouch
    claim_hand = g.claim_hand
    claim_chest = g.claim_chest
    accuse = claim & (a > A.CLAIM_ACCUSE_BASE) & (a < A.CLAIM_VOUCH_BASE)
    vouch = claim & (a >= A.CLAIM_VOUCH_BASE) & (a < A.CLAIM_HAND_BASE)
    hand_claim = claim & (a >= A.CLAIM_HAND_BASE) & (a < A.CLAIM_CHEST_BASE)
    chest_claim = claim & (a >= A.CLAIM_CHEST_BASE)
    claim_accuse = jnp.where(seat_row & accuse, ((seat + a - A.CLAIM_ACCUSE_BASE) % n).astype(i8), claim_accuse)
    claim_vouch = jnp.where(seat_row & vouch, ((seat + a - A.CLAIM_VOUCH_BASE) % n).astype(i8), claim_vouch)
    claim_hand = jnp.where(seat_row & hand_claim, (a - A.CLAIM_HAND_BASE).astype(i8), claim_hand)
    claim_chest = jnp.where(seat_row & chest_claim, (a - A.CLAIM_CHEST_BASE).astype(i8), claim_chest)

    # ---- how the decision ends: game over, another decision of this turn, the claim, or the next turn
    value = jnp.sum(jnp.where(_SLOTS < cs, jnp.asarray(LOOT_VALUE)[jnp.minimum(g.chest_kind.astype(jnp.int32), 2)], 0))
    chest_won = value >= target(g)
    over = open_chest | crew_end | pile_end
    winner = jnp.where(
        open_chest,
        jnp.where(chest_won, PIRATE, MUTINEER),
        jnp.where(crew_end, jnp.where(mutineers == 0, PIRATE, MUTINEER), MUTINEER),
    )
    condition = jnp.where(
        open_chest,
        int(EndCondition.CHEST_OPENED),
        jnp.where(
            crew_end,
            jnp.where(
                mutineers == 0, int(EndCondition.ALL_MUTINEERS_OVERBOARD), int(EndCondition.MUTINEERS_NOT_OUTNUMBERED)
            ),
            int(EndCondition.DRAW_PILE_EMPTY),
        ),
    )
    end_of_card = (loot | plank | eyp | riddance | (spyglass & ~scrambling) | order | (phase == CATCH_RETURN_2)) & ~over
    next_turn = (claim | (end_of_card & ~g.claims)) & ~over
    # R02: the next seat to the left still aboard
    candidates = (seat + 1 + _SEATS) % n
    following = candidates[jnp.argmax(aboard[candidates])]
    new_phase = jnp.where(
        over,
        GAME_OVER,
        jnp.where(
            next_turn,
            MAIN,
            jnp.where(
                end_of_card,
                CLAIM,
                jnp.where(
                    scrambling,
                    SPYGLASS_ORDER,
                    jnp.where(catch, CATCH_RETURN_1, jnp.where(phase == CATCH_RETURN_1, CATCH_RETURN_2, phase)),
                ),
            ),
        ),
    )
    running = phase != GAME_OVER
    spyglass_taken = jnp.where(next_turn, 0, jnp.where(spyglass, taken, g.spyglass_taken))
    return g.replace(
        hands=hands,
        draw=draw,
        draw_known=draw_known,
        draw_size=ds_after.astype(i8),
        chest_kind=chest_kind,
        chest_placer=chest_placer,
        chest_announced=chest_announced,
        chest_known=chest_known,
        chest_group=chest_group,
        group_counts=group_counts,
        group_known=group_known,
        chest_size=new_cs.astype(i8),
        discard=discard,
        planks=planks,
        aboard=aboard,
        revealed=revealed,
        current_player=jnp.where(next_turn, following, seat).astype(i8),
        phase=new_phase.astype(i8),
        winner=jnp.where(over, winner, g.winner).astype(i8),
        end_condition=jnp.where(over, condition, g.end_condition).astype(i8),
        turn=(g.turn + (next_turn & running)).astype(jnp.int16),
        loot_placed=loot_placed,
        announced_sum=announced_sum,
        actions_played=actions_played,
        pockets_emptied=pockets_emptied,
        targeted=targeted,
        claim_accuse=claim_accuse,
        claim_vouch=claim_vouch,
        claim_hand=claim_hand,
        claim_chest=claim_chest,
        spyglass_taken=spyglass_taken.astype(i8),
        spyglass_seen=seen,
    )


def _chest_step(g: Game, key, seat, bit, cs, loot, loot_card, announced, riddance, spyglass, order, a):
    """The chest's part of a decision: R04 (loot on top), R08 (Good Riddance), R07 (Spyglass, its order).

    Returns the new chest arrays and size, the number of cards Spyglass took, the seen order and the
    cards Good Riddance put in the discard pile (counts per kind).
    """
    i8 = jnp.int8
    kind, placer, ann = g.chest_kind, g.chest_placer, g.chest_announced
    known, group, counts, gknown = g.chest_known, g.chest_group, g.group_counts, g.group_known

    # R04: loot face down on top, known to its placer, attributable.
    top_slot = _SLOTS == cs
    push = top_slot & loot
    kind = jnp.where(push, loot_card.astype(i8), kind)
    placer = jnp.where(push, seat.astype(i8), placer)
    ann = jnp.where(push, announced.astype(i8), ann)
    known = jnp.where(push, bit, known)
    group = jnp.where(push, jnp.int8(-1), group)

    # R08 / R07: the top ``taken`` cards (Good Riddance 2, Spyglass 3, fewer on a short chest).
    taken = jnp.minimum(jnp.where(riddance, 2, 3), cs)
    low = cs - taken
    in_top = (_SLOTS >= low) & (_SLOTS < cs)
    # The one group the taken cards may cut (groups are runs; only the lowest taken card's may go on below).
    cut = group[jnp.maximum(low, 0)].astype(jnp.int32)
    partial = (taken > 0) & (cut >= 0) & (cut < low)
    cut_index = jnp.maximum(cut, 0)
    inside = jnp.sum(in_top & (group == cut))
    cut_counts = counts[cut_index].astype(jnp.int32)
    cut_known = gknown[cut_index]
    uniform = jnp.sum(cut_counts > 0) <= 1
    value = jnp.argmax(cut_counts > 0)
    uniform_loss = _one_hot(value, 3) * inside  # the known announcements that left a uniform group

    # R08: the taken cards go to the discard pile unseen; a group they cut stays known only if uniform.
    removed = in_top & riddance
    discard_add = jnp.sum((removed[:, None] & (kind[:, None] == _KINDS)), 0).astype(i8)
    forget = riddance & partial
    gr_counts = jnp.where(cut_known & uniform, cut_counts - uniform_loss, 0)
    gr_known = cut_known & uniform

    # R07: Spyglass with 2–3 cards scrambles them into one group (see engine._scramble).
    scrambling = spyglass & (taken >= 2)
    attributable = in_top & (group < 0)
    new_counts = jnp.sum(attributable[:, None] & (ann[:, None] == jnp.arange(3)), 0)
    whole = in_top & (group == _SLOTS)  # groups whose lowest card was taken: taken whole
    new_counts = new_counts + jnp.sum(jnp.where(whole[:, None], counts, 0), 0)
    new_known = ~jnp.any(whole & ~gknown) & ~(partial & ~cut_known)
    absorb = partial & cut_known & ~uniform  # a mixed group cut: its rest joins the new group
    new_counts = new_counts + jnp.where(partial & cut_known, jnp.where(uniform, uniform_loss, cut_counts), 0)
    sg_counts_cut = jnp.where(uniform & cut_known, cut_counts - uniform_loss, cut_counts)
    bottom = jnp.where(absorb, cut, low)
    new_counts = jnp.where(new_known, new_counts, 0)

    # Apply the group changes: first to the cut group, then the new group (which may be the cut one).
    cut_row = (_SLOTS == cut_index) & partial
    counts = jnp.where(
        (cut_row & forget)[:, None],
        gr_counts.astype(i8),
        jnp.where((cut_row & scrambling & ~absorb)[:, None], sg_counts_cut.astype(i8), counts),
    )
    gknown = jnp.where(cut_row & forget, gr_known, gknown)
    new_row = (_SLOTS == bottom) & scrambling
    counts = jnp.where(new_row[:, None], new_counts.astype(i8), counts)
    gknown = jnp.where(new_row, new_known, gknown)
    group = jnp.where(in_top & scrambling, bottom.astype(i8), group)
    group = jnp.where(removed, jnp.int8(-1), group)

    # R07: the shuffled order the player sees; nobody can place the taken cards until they go back.
    perm = jnp.asarray(PERMUTATIONS)[_shuffle_index(key, taken)]
    seen = jnp.where(spyglass, (low + perm).astype(i8), g.spyglass_seen)
    known = jnp.where(in_top & scrambling, jnp.uint8(0), known)
    known = jnp.where((_SLOTS == cs - 1) & spyglass & (taken == 1), known | bit, known)  # one card: just looked at

    # R07: put back; the card seen at perm[i] goes i-th from the top, now known to the player alone.
    chosen = jnp.asarray(PERMUTATIONS)[jnp.clip(a - A.SPYGLASS_ORDER_BASE, 0, 5)]
    back = g.spyglass_taken.astype(jnp.int32)
    for i in range(3):
        slot = (_SLOTS == cs - 1 - i) & order & (i < back)
        source = g.spyglass_seen[chosen[i]].astype(jnp.int32)
        kind = jnp.where(slot, g.chest_kind[source], kind)
        placer = jnp.where(slot, g.chest_placer[source], placer)
        ann = jnp.where(slot, g.chest_announced[source], ann)
        known = jnp.where(slot, bit, known)

    new_cs = cs + loot.astype(jnp.int32) - jnp.where(riddance, taken, 0)
    return kind, placer, ann, known, group, counts, gknown, new_cs, jnp.where(spyglass, taken, 0), seen, discard_add


def _shuffle_index(key, taken):
    """R07's shuffle as an index into ``SPYGLASS_PERMUTATIONS``: uniform over the orders of the taken cards."""
    u = jax.random.randint(key, (), 0, 6)
    # With 2 cards the orders that keep the third in place are permutations 0 and 2.
    return jnp.where(taken >= 3, u, jnp.where(taken == 2, 2 * (u % 2), 0))
