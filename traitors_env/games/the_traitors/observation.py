"""The observation of one agent: a fixed-length ``float32`` vector built from what it may know.

The layout is declared once in :data:`LAYOUT` (OpenSpiel's observer style); the documentation
table (:func:`layout_table`), the offsets the encoder writes to and the ``Box`` bounds all come
from that declaration. Seats are *relative* to the observer (row 0 is the observer, row 1 the
next seat), padded to 6, so one policy serves every seat and every table size.

What an agent may know is decided here alone (:func:`encode`): the public record kept by the
engine (mission gold, signals, claims, revealed votes, Round Table losses, Armoury draws as far
as they are public, the Night's victim and Shield, gold, the End Game) plus its own private
knowledge (its role; its Shields and Daggers; if it is the Traitor, this round's assignment and
its result). It never reads another seat's role, another seat's reward cards, the deck order,
a vote of the current Round Table before all are cast (T09), or a Final choice before both are
made (T15).
"""

from __future__ import annotations

import numpy as np

from ...core.layout import Layout, Piece
from . import actions as A
from .cards import MAX_PLAYERS, MIN_PLAYERS, NUM_ROUNDS, REWARD_DECK_COUNTS, RewardCard, Role
from .engine import END_GAME_ROUND, MAX_MISSION_GOLD, NUM_PHASES, GameState, Phase

MAX_GOLD = 64  # above any reachable personal gold (8 + 9 from gold cards + 16 at the End Game)
MAX_POT = NUM_ROUNDS * MAX_MISSION_GOLD
DECK_SIZE = sum(REWARD_DECK_COUNTS)


SEAT_FEATURES = (
    "present (seat exists at this table)",
    "personal gold (T03)",
    "takes part in this round's Round Table (T10)",
    "Shields and Daggers held, as far as public (drawn minus shown, T11)",
    "Shields shown (T12)",
    "Daggers shown (T09)",
    "times murdered, not saved (T12)",
    "times saved by a Shield (T12)",
    "revealed Traitor (End Game, T13)",
    "finalist (T14)",
    "third place (T14)",
    "statement: none",
    'statement: "I will write Faithful"',
    'statement: "I will write Traitor"',
    "Final choice revealed: Faithful",
    "Final choice revealed: Traitor",
    "winner",
)
CLAIM_FEATURES = 1 + 2 * MAX_PLAYERS
ARMOURY_FEATURES = ("drew a Shield or Dagger (secret)", "drew 1 gold", "drew 2 gold", "won with the deck empty")

LAYOUT: tuple[Piece, ...] = (
    Piece("role", (2,), 0, 1, "own role, one-hot: Faithful, Traitor (T02)"),
    Piece(
        "phase",
        (NUM_PHASES,),
        0,
        1,
        "decision asked of me, one-hot: mission, claim, vote, night, statement, final (all 0 when I am not acting)",
    ),
    Piece("num_players", (MAX_PLAYERS - MIN_PLAYERS + 1,), 0, 1, "table size 3–6, one-hot"),
    Piece("round", (END_GAME_ROUND,), 0, 1, "round 1–4, or the End Game, one-hot"),
    Piece("prize_pot", (1,), 0, MAX_POT, "gold in the prize pot (T05)"),
    Piece("deck_size", (1,), 0, DECK_SIZE, "reward cards left in the deck (T04, T11)"),
    Piece("own_cards", (2,), 0, 3, "own Shields, own Daggers held (secret, T11)"),
    Piece(
        "own_assignment",
        (2,),
        0,
        1,
        "Traitor only: attempted this round's secret assignment; it succeeded (T06; 0 for a Faithful)",
    ),
    Piece(
        "seats",
        (MAX_PLAYERS, len(SEAT_FEATURES)),
        0,
        MAX_GOLD,
        "per relative seat (row 0 = me): " + "; ".join(SEAT_FEATURES),
    ),
    Piece("mission_gold", (NUM_ROUNDS,), 0, MAX_MISSION_GOLD, "gold the mission of each round added to the pot (T05)"),
    Piece(
        "signals",
        (NUM_ROUNDS, MAX_PLAYERS, 2),
        0,
        1,
        "[round, relative seat]: mission signal one-hot suspicious, clear (T07); 0 before it is shown",
    ),
    Piece(
        "claims",
        (NUM_ROUNDS, MAX_PLAYERS, CLAIM_FEATURES),
        0,
        1,
        "[round, relative claimant]: no claim; 'I suspect' relative seat one-hot 6; 'is Faithful' relative seat "
        "one-hot 6 (T08)",
    ),
    Piece(
        "votes",
        (NUM_ROUNDS, MAX_PLAYERS, MAX_PLAYERS),
        0,
        2,
        "[round, relative voter, relative target]: 1 for a vote, 2 for a Dagger vote; only once all votes of "
        "the round are cast (T09)",
    ),
    Piece(
        "banished",
        (NUM_ROUNDS, MAX_PLAYERS),
        0,
        2,
        "[round, relative seat]: gold lost for the most votes at that Round Table (T09, T03)",
    ),
    Piece(
        "armoury",
        (NUM_ROUNDS, MAX_PLAYERS, len(ARMOURY_FEATURES)),
        0,
        1,
        "[round, relative seat]: won the Armoury and " + "; ".join(ARMOURY_FEATURES) + " (T11)",
    ),
    Piece(
        "night",
        (NUM_ROUNDS, MAX_PLAYERS + 2),
        0,
        1,
        "[round]: murdered relative seat one-hot 6; saved by a Shield; no murder (T12); 0 before the Night",
    ),
    Piece(
        "end_game_gold",
        (MAX_PLAYERS,),
        0,
        4 * NUM_ROUNDS,
        "per relative seat: gold gained at the End Game scoring (T13)",
    ),
)

_LAYOUT = Layout(LAYOUT)  # offsets, size, bounds, table: derived from the declaration once
OFFSETS: dict[str, int] = _LAYOUT.offsets
OBS_SIZE: int = _LAYOUT.size
OBS_LOW: np.ndarray = _LAYOUT.low
OBS_HIGH: np.ndarray = _LAYOUT.high
_F_SEAT = len(SEAT_FEATURES)
_S = {name: i for i, name in enumerate(SEAT_FEATURES)}


#: The observation layout as a markdown table: slice, name, shape, meaning.
layout_table = _LAYOUT.table
#: ``piece(observation, name)``: the view of block ``name`` of an observation (or a batch), in its declared shape.
piece = _LAYOUT.piece


def seat_feature(name: str) -> int:
    """The column of feature ``name`` (an entry of :data:`SEAT_FEATURES`) in a row of ``seats``."""
    return _S[name]


_O = {name: OFFSETS[name] for name in OFFSETS}
_O_ROLE, _O_PHASE, _O_NP, _O_ROUND = _O["role"], _O["phase"], _O["num_players"], _O["round"]
_O_POT, _O_DECK, _O_OWN, _O_ASSIGN = _O["prize_pot"], _O["deck_size"], _O["own_cards"], _O["own_assignment"]
_O_SEATS, _O_MISSION, _O_SIGNALS, _O_CLAIMS = _O["seats"], _O["mission_gold"], _O["signals"], _O["claims"]
_O_VOTES, _O_BANISHED, _O_ARMOURY, _O_NIGHT, _O_END = (
    _O["votes"],
    _O["banished"],
    _O["armoury"],
    _O["night"],
    _O["end_game_gold"],
)
_SIGNALS_ROUND = MAX_PLAYERS * 2
_CLAIMS_ROUND = MAX_PLAYERS * CLAIM_FEATURES
_VOTES_ROUND = MAX_PLAYERS * MAX_PLAYERS
_ARMOURY_ROUND = MAX_PLAYERS * len(ARMOURY_FEATURES)
_NIGHT_ROUND = MAX_PLAYERS + 2
_SECRET = (int(RewardCard.SHIELD), int(RewardCard.DAGGER))
_REL = {
    (n, seat): tuple((other - seat) % n for other in range(n))
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)
    for seat in range(n)
}


def encode(state: GameState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """The observation of ``seat``, shape ``(OBS_SIZE,)``, dtype ``float32``.

    Reads only public information and ``seat``'s own private knowledge (see the module doc).
    Writes into ``out`` if given (it is overwritten entirely) and returns it.

    Raises:
        ValueError: if ``seat`` is not an int seat of the table, or ``out`` is not a writeable
            ``float32`` array of shape ``(OBS_SIZE,)``.
    """
    n = state.num_players
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
        raise ValueError(f"seat {seat!r} is not a seat of this {n}-player table; expected an int in 0–{n - 1}")
    seat = int(seat)
    if out is None:
        out = np.zeros(OBS_SIZE, dtype=np.float32)
    else:
        if (
            not isinstance(out, np.ndarray)
            or out.dtype != np.float32
            or out.shape != (OBS_SIZE,)
            or not out.flags.writeable
        ):
            raise ValueError(f"out must be a writeable float32 array of shape ({OBS_SIZE},)")
        out.fill(0.0)
    # Single entries are written through a memoryview (far cheaper than numpy item assignment).
    mv = memoryview(out)
    rel = _REL[n, seat]
    r = min(state.round, NUM_ROUNDS)  # the round whose private knowledge applies

    mv[_O_ROLE + int(state.roles[seat])] = 1.0
    if not state.is_terminal and state.current_player == seat:
        mv[_O_PHASE + int(state.phase)] = 1.0
    mv[_O_NP + n - MIN_PLAYERS] = 1.0
    mv[_O_ROUND + state.round - 1] = 1.0
    mv[_O_POT] = state.pot
    mv[_O_DECK] = len(state.deck)
    mv[_O_OWN] = state.hands[seat][0]
    mv[_O_OWN + 1] = state.hands[seat][1]
    if state.roles[seat] == Role.TRAITOR:
        mv[_O_ASSIGN] = state.attempted[r - 1]
        mv[_O_ASSIGN + 1] = state.succeeded[r - 1]

    end_game = state.round == END_GAME_ROUND
    finalists = state.finalists
    for other in range(n):
        base = _O_SEATS + rel[other] * _F_SEAT
        mv[base] = 1.0
        mv[base + 1] = state.gold[other]
        mv[base + 2] = state.takes_part(other)
        mv[base + 3] = state.secret_drawn[other] - state.shields_shown[other] - state.daggers_shown[other]
        mv[base + 4] = state.shields_shown[other]
        mv[base + 5] = state.daggers_shown[other]
        if end_game:
            mv[base + 8] = state.traitor == other
            mv[base + 9] = other in finalists
            mv[base + 10] = other == state.third
            mv[_O_END + rel[other]] = state.end_game_gold[other]
        if finalists is not None and other in finalists:
            k = finalists.index(other)
            if state.statements[k] >= 0:
                mv[base + 11 + state.statements[k]] = 1.0
            if state.final_choices is not None:
                mv[base + 14 + state.final_choices[k]] = 1.0
        mv[base + 16] = state.winners[other]

    for i in range(NUM_ROUNDS):
        mv[_O_MISSION + i] = state.mission_gold[i]
        shown = state.signals[i]
        if shown is None:
            continue  # a round not yet played: nothing else of it exists
        base = _O_SIGNALS + i * _SIGNALS_ROUND
        for other in range(n):
            mv[base + 2 * rel[other] + (0 if shown[other] else 1)] = 1.0
        base = _O_CLAIMS + i * _CLAIMS_ROUND
        for claimant, action in enumerate(state.claims[i]):
            if action >= 0:
                mv[base + rel[claimant] * CLAIM_FEATURES + _claim_column(action, claimant, n, rel)] = 1.0
        if state.votes_revealed[i]:  # T09: nothing of a round's votes before the last is cast
            base = _O_VOTES + i * _VOTES_ROUND
            for voter, vote in enumerate(state.votes[i]):
                if vote is not None:
                    mv[base + rel[voter] * MAX_PLAYERS + rel[vote[0]]] = 2.0 if vote[1] else 1.0
        for other, lost in state.banished[i].items():
            mv[_O_BANISHED + i * MAX_PLAYERS + rel[other]] = lost
        base = _O_ARMOURY + i * _ARMOURY_ROUND
        for other, card in state.armoury[i]:
            column = 3 if card < 0 else 0 if card in _SECRET else card - 1
            mv[base + rel[other] * len(ARMOURY_FEATURES) + column] = 1.0
        night = state.night[i]
        if night is not None:
            base = _O_NIGHT + i * _NIGHT_ROUND
            if night[0] < 0:
                mv[base + MAX_PLAYERS + 1] = 1.0
            else:
                mv[base + rel[night[0]]] = 1.0
                mv[base + MAX_PLAYERS] = night[1]
                seat_base = _O_SEATS + rel[night[0]] * _F_SEAT
                mv[seat_base + (7 if night[1] else 6)] += 1.0
    return out


def _claim_column(action: int, claimant: int, n: int, rel: tuple[int, ...]) -> int:
    if action == A.CLAIM_NONE:
        return 0
    if action < A.CLAIM_FAITHFUL_BASE:
        subject = (claimant + action - A.CLAIM_SUSPECT_BASE) % n
        return 1 + rel[subject]
    subject = (claimant + action - A.CLAIM_FAITHFUL_BASE) % n
    return 1 + MAX_PLAYERS + rel[subject]


def role_of_observation(observation: np.ndarray) -> Role:
    """The observer's own role read back from an observation."""
    return Role.TRAITOR if observation[OFFSETS["role"] + 1] > 0.5 else Role.FAITHFUL


def phase_of_observation(observation: np.ndarray) -> Phase | None:
    """The decision asked of the observer, or ``None`` when it is not acting."""
    hits = np.flatnonzero(piece(observation, "phase") > 0.5)
    return Phase(int(hits[0])) if hits.size else None
