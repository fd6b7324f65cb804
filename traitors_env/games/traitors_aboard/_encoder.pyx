# cython: language_level=3, boundscheck=True, wraparound=False, initializedcheck=True
"""Compiled twin of :func:`traitors_env.games.traitors_aboard.observation.encode_python`: the same observation, faster.

The observation runs at every decision, and the pure-Python encoder is bound by the interpreter
(about 200 item writes); this writes the same entries from C. It follows ``encode_python`` line by
line: the layout comes from :mod:`traitors_env.games.traitors_aboard.observation` through :func:`configure`, and tests
check both encoders give the same array for every state they meet (``tests/test_encoder.py``).
Every index is checked: writes by ``boundscheck=True``, seat and announcement values explicitly. A
malformed state raises ``IndexError`` (where ``encode_python`` may raise another error); it can
never read or write outside an array.

Built with Cython when the package is installed and a C compiler is present; without it,
``observation.encode`` falls back to ``encode_python``.
"""

cdef Py_ssize_t O_ROLE, O_HAND, O_PHASE, O_TARGET, O_DRAW, O_DISCARD, O_CHEST_SIZE, O_SG_TAKEN, O_SG_VIEW
cdef Py_ssize_t O_SEATS, O_CLAIMS, O_TARGETED, O_CHEST, O_CHEST_SUM, O_DRAW_KNOWN
cdef Py_ssize_t F_SEAT, F_CLAIM, F_CHEST, NUM_KINDS, MAX_PLAYERS, DRAW_KNOWN_SLOTS, GAME_OVER, SPYGLASS_ORDER
cdef float[:, ::1] HAND_CLAIMS  # per hand claim: counts per CardKind + made flag
cdef float[:, ::1] CHEST_CLAIMS  # per chest-top claim: counts of +1, 0, -2 + made flag
cdef long LOOT_VALUE[3]
LOOT_VALUE[:] = [1, 0, -2]  # announced index -> value (cards.LOOT_VALUES)
cdef bint CONFIGURED = False


def configure(dict offsets, dict sizes, hand_claims, chest_claims):
    """Takes the layout from :mod:`traitors_env.games.traitors_aboard.observation` (called once, when it is imported)."""
    global O_ROLE, O_HAND, O_PHASE, O_TARGET, O_DRAW, O_DISCARD, O_CHEST_SIZE, O_SG_TAKEN, O_SG_VIEW
    global O_SEATS, O_CLAIMS, O_TARGETED, O_CHEST, O_CHEST_SUM, O_DRAW_KNOWN
    global F_SEAT, F_CLAIM, F_CHEST, NUM_KINDS, MAX_PLAYERS, DRAW_KNOWN_SLOTS, GAME_OVER, SPYGLASS_ORDER
    global HAND_CLAIMS, CHEST_CLAIMS, CONFIGURED
    O_ROLE = offsets["role"]
    O_HAND = offsets["hand"]
    O_PHASE = offsets["phase"]
    O_TARGET = offsets["target"]
    O_DRAW = offsets["draw_pile_size"]
    O_DISCARD = offsets["discard_size"]
    O_CHEST_SIZE = offsets["chest_size"]
    O_SG_TAKEN = offsets["spyglass_taken"]
    O_SG_VIEW = offsets["spyglass_view"]
    O_SEATS = offsets["seats"]
    O_CLAIMS = offsets["claims"]
    O_TARGETED = offsets["targeted"]
    O_CHEST = offsets["chest_cards"]
    O_CHEST_SUM = offsets["chest_summary"]
    O_DRAW_KNOWN = offsets["draw_pile_known"]
    F_SEAT = sizes["seat_features"]
    F_CLAIM = sizes["claim_features"]
    F_CHEST = sizes["chest_features"]
    NUM_KINDS = sizes["card_kinds"]
    MAX_PLAYERS = sizes["max_players"]
    DRAW_KNOWN_SLOTS = sizes["draw_known_slots"]
    GAME_OVER = sizes["game_over"]
    SPYGLASS_ORDER = sizes["spyglass_order"]
    HAND_CLAIMS = hand_claims
    CHEST_CLAIMS = chest_claims
    CONFIGURED = True


cdef inline Py_ssize_t relative(Py_ssize_t other, Py_ssize_t seat, Py_ssize_t n) except -1:
    """Absolute seat ``other`` as seen from ``seat`` (R02), after checking it is a seat of the table."""
    if not 0 <= other < n:
        raise IndexError(f"seat {other} is not a seat of this {n}-player table")
    return (other - seat) % n


def encode_into(object state, Py_ssize_t seat, float[::1] out):
    """Writes ``seat``'s observation of ``state`` into ``out``, which must hold the table-size template.

    Reads what ``encode_python`` reads, nothing else: public information and ``seat``'s own knowledge.
    """
    if not CONFIGURED:
        raise RuntimeError("traitors_env.games.traitors_aboard._encoder is used before observation.py configured it")
    cdef Py_ssize_t n = state.num_players
    cdef Py_ssize_t other, rel, base, cbase, i, k, claim, size, announced, phase, total
    cdef Py_ssize_t attributed = 0, scrambled = 0, c0 = 0, c1 = 0, c2 = 0
    cdef long bit
    cdef list roles = state.roles
    cdef list hand
    cdef list aboard = state.aboard, planks = state.planks, revealed = state.revealed
    cdef list loot = state.loot_placed, announced_sum = state.announced_sum
    cdef list played = state.actions_played, emptied = state.pockets_emptied
    cdef list accuse = state.claim_accuse, vouch = state.claim_vouch
    cdef list hand_claim = state.claim_hand, chest_claim = state.claim_chest
    cdef list chest = state.chest, draw_pile = state.draw_pile, known = state.draw_known
    cdef list row
    cdef object card, group, counts, entry
    cdef dict groups = None
    cdef bint all_known
    if not 0 <= seat < n:  # before the shift below, which a negative seat would make undefined
        raise ValueError(f"seat {seat} is not a seat of this {n}-player table")
    bit = 1L << seat
    hand = state.hands[seat]

    out[O_ROLE + <Py_ssize_t>roles[seat]] = 1.0
    out[O_TARGET] = state.setup.target
    out[O_DRAW] = len(draw_pile)
    total = 0
    for entry in state.discard:
        total += <Py_ssize_t>entry
    out[O_DISCARD] = total
    size = len(chest)
    out[O_CHEST_SIZE] = size
    for k in range(NUM_KINDS):
        out[O_HAND + k] = <Py_ssize_t>hand[k]
    phase = state.phase
    if state.current_player == seat and phase != GAME_OVER:  # acting: the decision asked of it
        out[O_PHASE + phase] = 1.0
        out[O_SG_TAKEN + <Py_ssize_t>state.spyglass_taken] = 1.0
        if phase == SPYGLASS_ORDER:
            i = 0
            for card in state.spyglass_seen:
                out[O_SG_VIEW + 3 * i + <Py_ssize_t>card.kind] = 1.0
                i += 1

    for other in range(n):  # seat rows and claims, at relative seats (R02; R10, R11, R16)
        rel = (other - seat) % n
        base = O_SEATS + rel * F_SEAT
        cbase = O_CLAIMS + rel * F_CLAIM
        if aboard[other]:
            out[base + 1] = 1.0
            out[base + 2 + <Py_ssize_t>planks[other]] = 1.0
        if revealed[other]:
            out[base + 5 + <Py_ssize_t>roles[other]] = 1.0
        out[base + 7] = <Py_ssize_t>loot[other]
        out[base + 8] = <Py_ssize_t>announced_sum[other]
        row = played[other]
        for k in range(5):
            out[base + 9 + k] = <Py_ssize_t>row[k]
        out[base + 14] = <Py_ssize_t>emptied[other]
        claim = accuse[other]
        if claim >= 0:
            out[cbase + relative(claim, seat, n)] = 1.0
        claim = vouch[other]
        if claim >= 0:
            out[cbase + 8 + relative(claim, seat, n)] = 1.0
        claim = hand_claim[other]
        if claim >= 0:
            for k in range(NUM_KINDS + 1):
                out[cbase + 16 + k] = HAND_CLAIMS[claim, k]
        claim = chest_claim[other]
        if claim >= 0:
            for k in range(4):
                out[cbase + 25 + k] = CHEST_CLAIMS[claim, k]

    for entry in state.targeted:  # (player, target, 0 = Plank / 1 = Empty Your Pockets)
        i = O_TARGETED + (relative(entry[0], seat, n) * MAX_PLAYERS + relative(entry[1], seat, n)) * 2
        i += <Py_ssize_t>entry[2]
        out[i] = out[i] + 1.0

    base = O_CHEST
    for i in range(size - 1, -1, -1):  # from the top (R07: placer and announcement while attributable)
        card = chest[i]
        group = card.group
        out[base] = 1.0
        if group is None:
            announced = card.announced
            if not 0 <= announced < 3:
                raise IndexError(f"announced value index {announced} of a chest card is not 0, 1 or 2")
            out[base + 1 + announced] = 1.0
            out[base + 4 + relative(card.placer, seat, n)] = 1.0
            attributed += LOOT_VALUE[announced]
        else:
            out[base + 12] = 1.0
            scrambled += 1
            if groups is None:
                groups = {}
            groups[id(group)] = group
        if (<long>card.known_by) & bit:
            out[base + 13 + <Py_ssize_t>card.kind] = 1.0
        base += F_CHEST
    out[O_CHEST_SUM] = attributed
    if groups is None:  # no scrambled cards: the (zero) counts are publicly known
        out[O_CHEST_SUM + 5] = 1.0
    else:
        out[O_CHEST_SUM + 1] = scrambled
        all_known = True
        for group in groups.values():
            counts = group.counts
            if counts is None:
                all_known = False
                break
            c0 += <Py_ssize_t>counts[0]
            c1 += <Py_ssize_t>counts[1]
            c2 += <Py_ssize_t>counts[2]
        if all_known:
            out[O_CHEST_SUM + 5] = 1.0
            out[O_CHEST_SUM + 2] = c0
            out[O_CHEST_SUM + 3] = c1
            out[O_CHEST_SUM + 4] = c2

    size = len(known)
    for i in range(min(DRAW_KNOWN_SLOTS, size)):  # draw-pile cards it returned (R09)
        if (<long>known[size - 1 - i]) & bit:
            out[O_DRAW_KNOWN + i * NUM_KINDS + <Py_ssize_t>draw_pile[size - 1 - i]] = 1.0
