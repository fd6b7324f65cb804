"""The observation of one agent: a fixed-length ``float32`` vector built from what it may know.

The layout is declared once in :data:`LAYOUT` (OpenSpiel's observer style); the
documentation table (:func:`layout_table`), the offsets the encoder writes to and the
``Box`` bounds all come from that declaration. Seats are *relative* to the observer
(row 0 is the observer, row 1 the next seat to the left, R02), padded to 8.

What an agent may know is decided in the encoder alone: the public record kept by
the engine (announcements, Planks, revealed roles, action cards shown, claims,
pile sizes, which chest positions are still attributable, R07) plus its own private
knowledge (role, hand, chest cards it placed or saw through Spyglass while it can
still place them, draw-pile cards it returned with Miraculous Catch). It never reads
another seat's hand or role, a chest card's value it has not seen, or the draw-pile
order beyond what it put there.

Two implementations write the vector: :func:`encode_python`, the readable reference, and its
compiled twin ``traitors_env.games.traitors_aboard._encoder`` (Cython, built at install where a C compiler is present),
which writes the same entries from C; :func:`encode` uses the compiled one when it was built
(:data:`COMPILED_ENCODER`), and tests check both give the same array for every state they meet.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.layout import Layout, Piece
from . import actions as A
from .cards import LOOT_VALUES, MAX_PLAYERS, MIN_PLAYERS, NUM_CARD_KINDS, Role
from .engine import _GAME_OVER, _SPYGLASS_ORDER, NUM_PHASES, GameState, Phase  # aliases: see engine

MAX_CHEST = 42  # every loot card of the deck (rulebook "Contents")
DRAW_KNOWN_SLOTS = 4  # top draw-pile positions whose card an agent may know (R09 returns)
_MAX_DECK = 76


SEAT_FEATURES = (
    "present (seat exists at this table)",
    "aboard",
    "0 Planks in front",
    "1 Plank in front",
    "2 Planks in front",
    "revealed Pirate",
    "revealed Mutineer",
    "loot cards placed",
    "announced total of those loot cards",
    "Planks played",
    "Good Riddance played",
    "Spyglass played",
    "Miraculous Catch played",
    "Empty Your Pockets played",
    "times their pockets were emptied",
)
CLAIM_FEATURES = 8 + 8 + NUM_CARD_KINDS + 1 + 3 + 1
CHEST_FEATURES = 1 + 3 + MAX_PLAYERS + 1 + 3

LAYOUT: tuple[Piece, ...] = (
    Piece("role", (2,), 0, 1, "own role, one-hot: Pirate, Mutineer"),
    Piece("hand", (NUM_CARD_KINDS,), 0, 5, "own hand: cards of each CardKind (+1, 0, −2, Plank, GR, SG, MC, EYP)"),
    Piece(
        "phase",
        (NUM_PHASES,),
        0,
        1,
        "decision asked of me, one-hot: main, Spyglass order, Catch return 1, Catch return 2, claim (all 0 when I am not acting)",
    ),
    Piece("num_players", (MAX_PLAYERS - MIN_PLAYERS + 1,), 0, 1, "table size 3–8, one-hot"),
    Piece("target", (1,), 0, 12, "target value of the chest"),
    Piece("draw_pile_size", (1,), 0, _MAX_DECK, "cards in the draw pile"),
    Piece("discard_size", (1,), 0, _MAX_DECK, "cards in the discard pile"),
    Piece("chest_size", (1,), 0, MAX_CHEST, "cards in the chest"),
    Piece(
        "spyglass_taken",
        (4,),
        0,
        1,
        "acting only: cards I took with Spyglass this turn (0–3), one-hot; sizes the chest claim (R15)",
    ),
    Piece(
        "spyglass_view",
        (3, 3),
        0,
        1,
        "phase Spyglass order only: true value (+1, 0, −2) one-hot of each taken card, in the shuffled order seen (R07)",
    ),
    Piece(
        "seats",
        (MAX_PLAYERS, len(SEAT_FEATURES)),
        -2 * MAX_CHEST,
        _MAX_DECK,
        "per relative seat (row 0 = me): " + "; ".join(SEAT_FEATURES),
    ),
    Piece(
        "claims",
        (MAX_PLAYERS, CLAIM_FEATURES),
        0,
        3,
        "per relative seat, its latest claim of each kind (R16): accused seat (relative to me) one-hot 8; "
        "vouched seat one-hot 8; claimed hand as counts per CardKind (8) + made flag; claimed chest top as counts of +1, 0, −2 (3) + made flag",
    ),
    Piece(
        "targeted",
        (MAX_PLAYERS, MAX_PLAYERS, 2),
        0,
        22,
        "[player, target, card]: Planks (card 0) and Empty Your Pockets (card 1) each relative seat has played on each "
        "relative seat, all game (public: action cards are shown, R10, R11)",
    ),
    Piece(
        "chest_cards",
        (MAX_CHEST, CHEST_FEATURES),
        0,
        1,
        "per chest card from the top: present; announced value one-hot (+1, 0, −2) and placer seat relative to me one-hot 8, "
        "while attributable (R07); scrambled by a Spyglass; true value one-hot if I know it (my own placement, my Spyglass)",
    ),
    Piece(
        "chest_summary",
        (6,),
        -2 * MAX_CHEST,
        MAX_CHEST,
        "announced total of attributable chest cards; number of scrambled cards; announcement counts (+1, 0, −2) of "
        "the scrambled cards; 1 if those counts are publicly known (R07), else 0 and the counts are 0",
    ),
    Piece(
        "draw_pile_known",
        (DRAW_KNOWN_SLOTS, NUM_CARD_KINDS),
        0,
        1,
        "top draw-pile cards I know (returned by my Miraculous Catch), one-hot per position from the top",
    ),
)

_LAYOUT = Layout(LAYOUT)  # offsets, size, bounds, table: derived from the declaration once
OFFSETS: dict[str, int] = _LAYOUT.offsets
OBS_SIZE: int = _LAYOUT.size
OBS_LOW: np.ndarray = _LAYOUT.low
OBS_HIGH: np.ndarray = _LAYOUT.high
#: The slice of each declared block in the flat vector, by name (the heuristic bots and the JAX twin read these).
BLOCKS: dict[str, slice] = {p.name: slice(OFFSETS[p.name], OFFSETS[p.name] + p.size) for p in LAYOUT}
#: The column of each feature in a row of the ``seats`` block, by its name in :data:`SEAT_FEATURES`.
SEAT_COLUMNS: dict[str, int] = {name: i for i, name in enumerate(SEAT_FEATURES)}
#: The first column of each group of a row of the ``claims`` block: the accused seat one-hot (8), the vouched
#: seat one-hot (8), the claimed hand as counts per CardKind (then the chest-top claim).
CLAIM_ACCUSED, CLAIM_VOUCHED, CLAIM_HAND = 0, MAX_PLAYERS, 2 * MAX_PLAYERS


#: The observation layout as a markdown table: slice, name, shape, meaning.
layout_table = _LAYOUT.table
#: ``piece(observation, name)``: the view of block ``name`` of an observation (or a batch), in its declared shape.
piece = _LAYOUT.piece


# Precomputed float32 rows so encode() copies whole blocks with one memoryview slice assignment
# (a C memcpy, cheaper than several single-item writes). Hand claim: counts per CardKind + made flag
# (claim-row offsets 16–24); chest-top claim: counts of +1, 0, −2 + made flag (offsets 25–28).
def _rows(counts: list[list[int]]) -> tuple[memoryview, ...]:
    """Per claim: its counts followed by the made flag, as a read-only float32 memoryview."""
    return tuple(memoryview(np.array(row + [1], dtype=np.float32)).toreadonly() for row in counts)


_HAND_CLAIM_ROWS = _rows([[m.count(k) for k in range(NUM_CARD_KINDS)] for m in A.HAND_MULTISETS])
_CHEST_CLAIM_ROWS = _rows([[m.count(v) for v in range(3)] for m in A.CHEST_MULTISETS])
_ZERO_PLAYED = [0] * 5  # actions_played of a seat that has played none

_O_ROLE = OFFSETS["role"]
_O_HAND = OFFSETS["hand"]
_O_PHASE = OFFSETS["phase"]
_O_NP = OFFSETS["num_players"]
_O_TARGET = OFFSETS["target"]
_O_DRAW = OFFSETS["draw_pile_size"]
_O_DISCARD = OFFSETS["discard_size"]
_O_CHEST_SIZE = OFFSETS["chest_size"]
_O_SG_TAKEN = OFFSETS["spyglass_taken"]
_O_SG_VIEW = OFFSETS["spyglass_view"]
_O_SEATS = OFFSETS["seats"]
_F_SEAT = len(SEAT_FEATURES)
_O_CLAIMS = OFFSETS["claims"]
_O_CHEST = OFFSETS["chest_cards"]
_O_TARGETED = OFFSETS["targeted"]
_O_CHEST_SUM = OFFSETS["chest_summary"]
_O_DRAW_KNOWN = OFFSETS["draw_pile_known"]


def _seat_table(n: int, seat: int) -> tuple[tuple[int, ...], tuple[tuple[int, int, int], ...]]:
    """For observer ``seat`` at an ``n``-seat table: the relative seat of every absolute seat, and per
    absolute seat ``(seat, offset of its row in "seats", offset of its row in "claims")``."""
    rel = tuple((other - seat) % n for other in range(n))
    rows = tuple(
        (other, _O_SEATS + rel[other] * _F_SEAT, _O_CLAIMS + rel[other] * CLAIM_FEATURES) for other in range(n)
    )
    return rel, rows


_SEAT_TABLES = {(n, seat): _seat_table(n, seat) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1) for seat in range(n)}


def _chest_rows(n: int, seat: int) -> tuple[tuple[memoryview, ...], ...]:
    """For observer ``seat``: the first 12 entries of an attributable chest card's row (present,
    announced value one-hot, placer relative seat one-hot), per ``[announced][absolute placer]``."""
    rel = _SEAT_TABLES[n, seat][0]
    table = []
    for announced in range(3):
        rows = []
        for placer in range(n):
            row = np.zeros(12, dtype=np.float32)
            row[0] = row[1 + announced] = row[4 + rel[placer]] = 1.0
            rows.append(memoryview(row))
        table.append(tuple(rows))
    return tuple(table)


_CHEST_ROWS = {key: _chest_rows(*key) for key in _SEAT_TABLES}
_SCRAMBLED_ROW = memoryview(np.array([1.0] + [0.0] * 11 + [1.0], dtype=np.float32))  # present, scrambled


def _template(n: int) -> np.ndarray:
    """The entries that depend on the table size alone: "present" of each seat row and the
    num_players one-hot."""
    t = np.zeros(OBS_SIZE, dtype=np.float32)
    t[_O_NP + n - MIN_PLAYERS] = 1.0
    t[_O_SEATS : _O_SEATS + n * _F_SEAT : _F_SEAT] = 1.0
    t.flags.writeable = False  # copied, never written
    return t


_TEMPLATES = {n: _template(n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
_TEMPLATE_VIEWS = {n: memoryview(t) for n, t in _TEMPLATES.items()}
# Blocks per count tuple, filled on first sight (bounded: counts are bounded by the deck).
_HAND_ROWS: dict[tuple[int, ...], memoryview] = {}  # own hand, per CardKind
_PLAYED_ROWS: dict[tuple[int, ...], memoryview] = {}  # action cards played, per action kind


def encode(state: GameState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """The observation of ``seat``, shape ``(OBS_SIZE,)``, dtype ``float32``.

    Reads only public information and ``seat``'s own private knowledge (see module doc).
    Writes into ``out`` if given (it is overwritten entirely) and returns it; otherwise
    returns a new array.

    Uses the compiled twin of :func:`encode_python` (``traitors_env.games.traitors_aboard._encoder``) when it was built
    at install (:data:`COMPILED_ENCODER`); both give the same array for every state.

    Raises:
        ValueError: if ``seat`` is not an int seat of the table, or ``out`` is not a writeable,
            C-contiguous ``float32`` array of shape ``(OBS_SIZE,)``.
    """
    if _encode_into is None:
        return encode_python(state, seat, out)
    out = _output(state, seat, out)
    _encode_into(state, seat, out)
    return out


def _output(state: GameState, seat: object, out: np.ndarray | None) -> np.ndarray:
    """Checks ``seat`` and ``out``; returns ``out`` (or a new array) holding the table-size template."""
    n = state.num_players
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
        raise ValueError(f"seat {seat!r} is not a seat of this {n}-player table; expected an int in 0–{n - 1}")
    if out is None:
        return _TEMPLATES[n].copy()
    if (
        not isinstance(out, np.ndarray)
        or out.dtype != np.float32
        or out.shape != (OBS_SIZE,)
        or not out.flags.c_contiguous
        or not out.flags.writeable
    ):
        got = (
            f"a {'' if out.flags.writeable else 'read-only '}{'' if out.flags.c_contiguous else 'strided '}"
            f"{out.dtype} array of shape {out.shape}"
            if isinstance(out, np.ndarray)
            else type(out).__name__
        )
        raise ValueError(f"out must be a writeable, C-contiguous float32 array of shape ({OBS_SIZE},); got {got}")
    memoryview(out)[:] = _TEMPLATE_VIEWS[n]
    return out


def encode_python(state: GameState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """The pure-Python encoder, the reference for :func:`encode`: same arguments, same array, same
    ``ValueError`` for a bad ``seat`` or ``out``."""
    # Speed: this runs at every decision. Single items are written through a memoryview of
    # ``out`` (far cheaper than numpy item or fancy assignment from Python lists), whole blocks
    # (table-size entries, own hand, claims, chest cards) by memoryview slice assignment from
    # precomputed float32 rows, and the per-seat offsets come from precomputed tables.
    out = _output(state, seat, out)
    mv = memoryview(out)  # 1-D view on the same buffer; mv[i] = x stores float(x)
    n = state.num_players
    rel, rows = _SEAT_TABLES[n, int(seat)]
    chest = state.chest
    mv[_O_ROLE + state.roles[seat]] = 1.0
    mv[_O_TARGET] = state.setup.target
    mv[_O_DRAW] = len(state.draw_pile)
    mv[_O_DISCARD] = sum(state.discard)
    mv[_O_CHEST_SIZE] = len(chest)

    hand = state.hands[seat]
    key = tuple(hand)
    row = _HAND_ROWS.get(key)
    if row is None:
        row = _HAND_ROWS[key] = memoryview(np.array(key, dtype=np.float32))
    mv[_O_HAND : _O_HAND + NUM_CARD_KINDS] = row
    phase = state.phase
    if state.current_player == seat and phase is not _GAME_OVER:  # acting
        mv[_O_PHASE + phase] = 1.0
        mv[_O_SG_TAKEN + state.spyglass_taken] = 1.0
        if phase is _SPYGLASS_ORDER:
            for i, card in enumerate(state.spyglass_seen):
                mv[_O_SG_VIEW + 3 * i + card.kind] = 1.0

    aboard, planks, revealed, roles = state.aboard, state.planks, state.revealed, state.roles
    loot_placed, announced_sum = state.loot_placed, state.announced_sum
    actions_played, pockets_emptied = state.actions_played, state.pockets_emptied
    claim_accuse, claim_vouch, claim_hand, claim_chest = (
        state.claim_accuse,
        state.claim_vouch,
        state.claim_hand,
        state.claim_chest,
    )
    for other, base, cbase in rows:
        if aboard[other]:
            mv[base + 1] = 1.0
            mv[base + 2 + planks[other]] = 1.0
        if revealed[other]:
            mv[base + 5 + roles[other]] = 1.0
        if loot_placed[other]:
            mv[base + 7] = loot_placed[other]
            mv[base + 8] = announced_sum[other]
        played = actions_played[other]
        if played != _ZERO_PLAYED:
            key = tuple(played)
            row = _PLAYED_ROWS.get(key)
            if row is None:
                row = _PLAYED_ROWS[key] = memoryview(np.array(key, dtype=np.float32))
            mv[base + 9 : base + 14] = row
        if pockets_emptied[other]:
            mv[base + 14] = pockets_emptied[other]

        claim = claim_accuse[other]
        if claim >= 0:
            mv[cbase + rel[claim]] = 1.0
        claim = claim_vouch[other]
        if claim >= 0:
            mv[cbase + 8 + rel[claim]] = 1.0
        claim = claim_hand[other]
        if claim >= 0:
            mv[cbase + 16 : cbase + 25] = _HAND_CLAIM_ROWS[claim]
        claim = claim_chest[other]
        if claim >= 0:
            mv[cbase + 25 : cbase + 29] = _CHEST_CLAIM_ROWS[claim]

    for player, target, card in state.targeted:
        mv[_O_TARGETED + (rel[player] * MAX_PLAYERS + rel[target]) * 2 + card] += 1.0

    bit = 1 << seat
    attributed_sum = 0
    scrambled = 0
    groups = None
    base = _O_CHEST
    chest_rows = _CHEST_ROWS[n, seat]
    for card in reversed(chest):
        group = card.group
        if group is None:
            announced = card.announced
            mv[base : base + 12] = chest_rows[announced][card.placer]
            attributed_sum += LOOT_VALUES[announced]
        else:
            mv[base : base + 13] = _SCRAMBLED_ROW
            scrambled += 1
            if groups is None:
                groups = {}
            groups[id(group)] = group
        if card.known_by & bit:
            mv[base + 13 + card.kind] = 1.0
        base += CHEST_FEATURES
    mv[_O_CHEST_SUM] = attributed_sum
    if groups is None:  # no scrambled cards: the (zero) counts are publicly known
        mv[_O_CHEST_SUM + 5] = 1.0
    else:
        mv[_O_CHEST_SUM + 1] = scrambled
        if all(g.counts is not None for g in groups.values()):
            mv[_O_CHEST_SUM + 5] = 1.0
            totals = [0, 0, 0]
            for group in groups.values():
                for v in range(3):
                    totals[v] += group.counts[v]
            mv[_O_CHEST_SUM + 2] = totals[0]
            mv[_O_CHEST_SUM + 3] = totals[1]
            mv[_O_CHEST_SUM + 4] = totals[2]

    known = state.draw_known
    if any(known[-DRAW_KNOWN_SLOTS:]):
        for i in range(min(DRAW_KNOWN_SLOTS, len(known))):
            if known[-1 - i] & bit:
                mv[_O_DRAW_KNOWN + i * NUM_CARD_KINDS + state.draw_pile[-1 - i]] = 1.0

    return out


def _configure_compiled_encoder():
    """The compiled encoder's ``encode_into``, given this module's layout; ``None`` where it was not built."""
    try:
        from . import _encoder
    except ImportError:
        return None
    sizes = {
        "seat_features": _F_SEAT,
        "claim_features": CLAIM_FEATURES,
        "chest_features": CHEST_FEATURES,
        "card_kinds": NUM_CARD_KINDS,
        "max_players": MAX_PLAYERS,
        "draw_known_slots": DRAW_KNOWN_SLOTS,
        "game_over": int(Phase.GAME_OVER),
        "spyglass_order": int(Phase.SPYGLASS_ORDER),
    }
    _encoder.configure(dict(OFFSETS), sizes, np.array(_HAND_CLAIM_ROWS), np.array(_CHEST_CLAIM_ROWS))
    return _encoder.encode_into


_encode_into = _configure_compiled_encoder()
#: Whether :func:`encode` uses the compiled encoder (built at install where a C compiler is present).
COMPILED_ENCODER = _encode_into is not None


def role_of_observation(observation: np.ndarray) -> Role:
    """The observer's own role read back from an observation."""
    return Role.PIRATE if observation[_O_ROLE] > 0.5 else Role.MUTINEER


# ------------------------------------------------------------------ reading an observation back
@dataclass(frozen=True)
class SeatView:
    """One seat's row of an observation (public: rulebook "Setup", R10, R11)."""

    aboard: bool
    planks: int  # Planks in front of the seat (0–2)
    revealed: Role | None  # the role, once shown (overboard, R11; opened the chest, R03)
    loot_placed: int
    announced_total: int
    actions_played: tuple[int, ...]  # Planks, Good Riddance, Spyglass, Miraculous Catch, Empty Your Pockets
    pockets_emptied: int


@dataclass(frozen=True)
class ClaimView:
    """One seat's latest claim of each kind (R16); seats relative to the observer, loot as indices 0–2."""

    accused: int | None
    vouched: int | None
    hand: tuple[int, ...] | None  # card kinds, sorted
    chest_top: tuple[int, ...] | None  # loot indices (0 = +1, 1 = 0, 2 = −2), sorted


@dataclass(frozen=True)
class ChestCardView:
    """One chest card as the observer knows it; loot as indices 0 = +1, 1 = 0, 2 = −2."""

    announced: int | None  # None once a Spyglass scrambled the position (R07)
    placer: int | None  # relative seat, None once scrambled
    scrambled: bool
    known: int | None  # the true value, if the observer knows it


@dataclass(frozen=True)
class DecodedObservation:
    """An observation vector read back into named values (see :data:`LAYOUT`).

    Lists over seats are indexed by *relative* seat: 0 is the observer, 1 the next seat to the
    left (R02). ``chest`` is from the top down. Everything here is what the observer may know,
    since it comes from the observation alone.
    """

    role: Role
    hand: tuple[int, ...]  # counts per CardKind
    phase: Phase | None  # the decision asked of the observer, or None when it is not acting
    num_players: int
    target: int
    draw_pile_size: int
    discard_size: int
    chest_size: int
    spyglass_taken: int
    spyglass_view: tuple[int, ...]  # true loot index of each taken card, in the shuffled order seen (R07)
    seats: tuple[SeatView, ...]
    claims: tuple[ClaimView, ...]
    targeted: np.ndarray  # int array [player, target, card]: Planks (0) and Empty Your Pockets (1), relative seats
    chest: tuple[ChestCardView, ...]
    attributable_announced_total: int
    scrambled: int
    scrambled_announced: tuple[int, int, int] | None  # counts of +1, 0, −2 among scrambled cards, if public
    draw_pile_known: tuple[int | None, ...]  # per top draw-pile position: the CardKind I know there, else None


def _one_hot(values: np.ndarray) -> int | None:
    hits = np.flatnonzero(values > 0.5)
    return int(hits[0]) if hits.size else None


def _multiset(counts: np.ndarray) -> tuple[int, ...]:
    return tuple(k for k, c in enumerate(counts.tolist()) for _ in range(int(round(c))))


def decode(observation: np.ndarray) -> DecodedObservation:
    """Read an observation vector (shape ``(OBS_SIZE,)``) back into a :class:`DecodedObservation`.

    Used to show a human exactly what their agent observes (:mod:`traitors_env.games.traitors_aboard.view`).

    Raises:
        ValueError: if ``observation`` does not have shape ``(OBS_SIZE,)``.
    """
    obs = np.asarray(observation, dtype=np.float32)
    if obs.shape != (OBS_SIZE,):
        raise ValueError(f"observation has shape {obs.shape}; expected ({OBS_SIZE},)")
    n = _one_hot(piece(obs, "num_players")) + MIN_PLAYERS
    phase_index = _one_hot(piece(obs, "phase"))
    seat_rows = piece(obs, "seats")
    seats = []
    for row in seat_rows[:n]:
        revealed = _one_hot(row[5:7])
        seats.append(
            SeatView(
                aboard=bool(row[1] > 0.5),
                planks=_one_hot(row[2:5]) or 0,
                revealed=None if revealed is None else Role(revealed),
                loot_placed=int(row[7]),
                announced_total=int(row[8]),
                actions_played=tuple(int(x) for x in row[9:14]),
                pockets_emptied=int(row[14]),
            )
        )
    claims = []
    for row in piece(obs, "claims")[:n]:
        claims.append(
            ClaimView(
                accused=_one_hot(row[0:8]),
                vouched=_one_hot(row[8:16]),
                hand=_multiset(row[16:24]) if row[24] > 0.5 else None,
                chest_top=_multiset(row[25:28]) if row[28] > 0.5 else None,
            )
        )
    chest_size = int(obs[OFFSETS["chest_size"]])
    chest = []
    for row in piece(obs, "chest_cards")[:chest_size]:
        scrambled = bool(row[12] > 0.5)
        chest.append(
            ChestCardView(
                announced=None if scrambled else _one_hot(row[1:4]),
                placer=None if scrambled else _one_hot(row[4:12]),
                scrambled=scrambled,
                known=_one_hot(row[13:16]),
            )
        )
    summary = piece(obs, "chest_summary")
    view = piece(obs, "spyglass_view")
    return DecodedObservation(
        role=Role(_one_hot(piece(obs, "role"))),
        hand=tuple(int(x) for x in piece(obs, "hand")),
        phase=None if phase_index is None else Phase(phase_index),
        num_players=n,
        target=int(obs[OFFSETS["target"]]),
        draw_pile_size=int(obs[OFFSETS["draw_pile_size"]]),
        discard_size=int(obs[OFFSETS["discard_size"]]),
        chest_size=chest_size,
        spyglass_taken=_one_hot(piece(obs, "spyglass_taken")) or 0,
        spyglass_view=tuple(v for v in (_one_hot(row) for row in view) if v is not None),
        seats=tuple(seats),
        claims=tuple(claims),
        targeted=np.rint(piece(obs, "targeted")[:n, :n]).astype(int),
        chest=tuple(chest),
        attributable_announced_total=int(summary[0]),
        scrambled=int(summary[1]),
        scrambled_announced=tuple(int(x) for x in summary[2:5]) if summary[5] > 0.5 else None,  # type: ignore[arg-type]
        draw_pile_known=tuple(_one_hot(row) for row in piece(obs, "draw_pile_known")),
    )
