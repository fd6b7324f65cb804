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

from dataclasses import dataclass

import numpy as np

from .cards import MAX_PLAYERS, MIN_PLAYERS, NUM_ROUNDS, REWARD_DECK_COUNTS, RewardCard, Role
from .engine import END_GAME_ROUND, MAX_MISSION_GOLD, NUM_PHASES, GameState, Phase

MAX_GOLD = 64  # above any reachable personal gold (8 + 9 from gold cards + 16 at the End Game)
MAX_POT = NUM_ROUNDS * MAX_MISSION_GOLD
DECK_SIZE = sum(REWARD_DECK_COUNTS)


@dataclass(frozen=True)
class Piece:
    """One named block of the observation vector."""

    name: str
    shape: tuple[int, ...]
    low: float
    high: float
    meaning: str

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))


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

OFFSETS: dict[str, int] = {}
_offset = 0
for _piece in LAYOUT:
    OFFSETS[_piece.name] = _offset
    _offset += _piece.size
OBS_SIZE = _offset
del _offset, _piece

OBS_LOW = np.concatenate([np.full(p.size, p.low, dtype=np.float32) for p in LAYOUT])
OBS_HIGH = np.concatenate([np.full(p.size, p.high, dtype=np.float32) for p in LAYOUT])
_PIECES = {p.name: p for p in LAYOUT}
_F_SEAT = len(SEAT_FEATURES)
_S = {name: i for i, name in enumerate(SEAT_FEATURES)}


def layout_table() -> str:
    """The observation layout as a markdown table: slice, name, shape, meaning."""
    rows = ["| slice | name | shape | meaning |", "|---|---|---|---|"]
    for p in LAYOUT:
        start = OFFSETS[p.name]
        rows.append(f"| {start}:{start + p.size} | `{p.name}` | {p.shape} | {p.meaning} |")
    return "\n".join(rows)


def piece(observation: np.ndarray, name: str) -> np.ndarray:
    """The view of block ``name`` of a flat observation (or of a batch, last axis), in its declared shape."""
    p = _PIECES[name]
    start = OFFSETS[name]
    return observation[..., start : start + p.size].reshape(observation.shape[:-1] + p.shape)


def seat_feature(name: str) -> int:
    """The column of feature ``name`` (an entry of :data:`SEAT_FEATURES`) in a row of ``seats``."""
    return _S[name]


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
        out[:] = 0.0
    rel = [(other - seat) % n for other in range(n)]
    r = min(state.round, NUM_ROUNDS)  # the round whose private knowledge applies

    piece(out, "role")[int(state.roles[seat])] = 1.0
    if not state.is_terminal and state.current_player == seat:
        piece(out, "phase")[int(state.phase)] = 1.0
    piece(out, "num_players")[n - MIN_PLAYERS] = 1.0
    piece(out, "round")[state.round - 1] = 1.0
    out[OFFSETS["prize_pot"]] = state.pot
    out[OFFSETS["deck_size"]] = len(state.deck)
    piece(out, "own_cards")[:] = state.hands[seat]
    if state.roles[seat] == Role.TRAITOR:
        own = piece(out, "own_assignment")
        own[0] = state.attempted[r - 1]
        own[1] = state.succeeded[r - 1]

    seats = piece(out, "seats")
    end_game = state.round == END_GAME_ROUND
    for other in range(n):
        row = seats[rel[other]]
        row[_S["present (seat exists at this table)"]] = 1.0
        row[1] = state.gold[other]
        row[2] = state.takes_part(other)
        row[3] = state.secret_drawn[other] - state.shields_shown[other] - state.daggers_shown[other]
        row[4] = state.shields_shown[other]
        row[5] = state.daggers_shown[other]
        if end_game:
            row[8] = state.traitor == other
            row[9] = other in state.finalists
            row[10] = other == state.third
        if state.finalists is not None and other in state.finalists:
            k = state.finalists.index(other)
            if state.statements[k] >= 0:
                row[11 + state.statements[k]] = 1.0
            if state.final_choices is not None:
                row[14 + state.final_choices[k]] = 1.0
        row[16] = state.winners[other]
    for i in range(NUM_ROUNDS):
        night = state.night[i]
        if night is not None and night[0] >= 0:
            seats[rel[night[0]], 7 if night[1] else 6] += 1.0
    if end_game:
        piece(out, "end_game_gold")[[rel[s] for s in range(n)]] = state.end_game_gold

    piece(out, "mission_gold")[:] = state.mission_gold
    signals, claims, votes = piece(out, "signals"), piece(out, "claims"), piece(out, "votes")
    banished, armoury, nights = piece(out, "banished"), piece(out, "armoury"), piece(out, "night")
    for i in range(NUM_ROUNDS):
        shown = state.signals[i]
        if shown is not None:
            for other in range(n):
                signals[i, rel[other], 0 if shown[other] else 1] = 1.0
        for claimant in range(n):
            action = state.claims[i][claimant]
            if action >= 0:
                claims[i, rel[claimant], _claim_column(action, claimant, n, rel)] = 1.0
        if state.votes_revealed[i]:  # T09: nothing of a round's votes before the last is cast
            for voter, vote in enumerate(state.votes[i]):
                if vote is not None:
                    votes[i, rel[voter], rel[vote[0]]] = 2.0 if vote[1] else 1.0
        for other, lost in state.banished[i].items():
            banished[i, rel[other]] = lost
        for other, card in state.armoury[i]:
            column = 3 if card < 0 else 0 if card in (RewardCard.SHIELD, RewardCard.DAGGER) else card - 1
            armoury[i, rel[other], column] = 1.0
        night = state.night[i]
        if night is not None:
            if night[0] < 0:
                nights[i, MAX_PLAYERS + 1] = 1.0
            else:
                nights[i, rel[night[0]]] = 1.0
                nights[i, MAX_PLAYERS] = night[1]
    return out


def _claim_column(action: int, claimant: int, n: int, rel: list[int]) -> int:
    from . import actions as A

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
