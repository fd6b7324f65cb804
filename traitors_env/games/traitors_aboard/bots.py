"""The scripted heuristic agent of ``traitors_aboard_v0``, one strategy per role.

It is an opponent for training and a reference point for evaluation. It reads the
observation only through the declared layout (:data:`traitors_env.games.traitors_aboard.observation.LAYOUT`),
never the engine's hidden state; its strategy is written down in :class:`HeuristicAgent`'s docstring.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...core.agent import _generator, _no_legal_action, spread_to_count
from . import actions as A
from .cards import LOOT_VALUES, MAX_PLAYERS, MIN_PLAYERS, NUM_CARD_KINDS, SETUP_TABLE, CardKind
from .engine import Phase
from .observation import (
    BLOCKS,
    CHEST_FEATURES,
    CLAIM_ACCUSED,
    CLAIM_FEATURES,
    CLAIM_HAND,
    CLAIM_VOUCHED,
    OFFSETS,
    SEAT_COLUMNS,
    SEAT_FEATURES,
)

__all__ = ["HeuristicAgent"]


# ------------------------------------------------------------------ reading the observation
# Where the agent reads, all from the observation's published layout names (the JAX twin reads the same ones).
_ROLE_PIRATE = OFFSETS["role"]  # role one-hot: Pirate, Mutineer
_HAND = BLOCKS["hand"]
_PHASE = BLOCKS["phase"]
_NUM_PLAYERS = BLOCKS["num_players"]
_TARGET = OFFSETS["target"]
_DRAW = OFFSETS["draw_pile_size"]
_CHEST_SIZE = OFFSETS["chest_size"]
assert (_DRAW, _CHEST_SIZE) == (_TARGET + 1, _TARGET + 3)  # read together: target, draw pile, discard, chest
_SG_TAKEN = BLOCKS["spyglass_taken"]
_SG_VIEW = BLOCKS["spyglass_view"]
_SEATS = BLOCKS["seats"]
_CLAIMS = BLOCKS["claims"]
_CHEST_START = OFFSETS["chest_cards"]
_CHEST_SUMMARY = BLOCKS["chest_summary"]

# Columns of one row of "seats" (SEAT_FEATURES order).
_SEAT_WIDTH = len(SEAT_FEATURES)
_S_ABOARD = SEAT_COLUMNS["aboard"]
_S_ONE_PLANK = SEAT_COLUMNS["1 Plank in front"]
_S_TWO_PLANKS = SEAT_COLUMNS["2 Planks in front"]
_S_REVEALED_PIRATE = SEAT_COLUMNS["revealed Pirate"]
_S_REVEALED_MUTINEER = SEAT_COLUMNS["revealed Mutineer"]
_S_PLANKS_PLAYED = SEAT_COLUMNS["Planks played"]
_S_GOOD_RIDDANCE = SEAT_COLUMNS["Good Riddance played"]
# Columns of one row of "claims": accused seat one-hot (8), vouched seat one-hot (8), hand counts per kind (8), …
_C_VOUCH = CLAIM_VOUCHED
_C_HAND = CLAIM_HAND
assert CLAIM_ACCUSED == 0
#: A row of "chest_cards" (present; announced one-hot 3; placer one-hot 8; scrambled; true value one-hot 3)
#: is folded into one exact float code = announced(1-3) + 4·placer + 32·scrambled + 64·known value(1-3):
#: ``row @ CHEST_CODE`` (the JAX twin reads the same columns).
CHEST_CODE = np.zeros(CHEST_FEATURES, dtype=np.float32)
CHEST_CODE[1:4] = (1, 2, 3)
CHEST_CODE[4 : 4 + MAX_PLAYERS] = 4 * np.arange(MAX_PLAYERS)
CHEST_CODE[4 + MAX_PLAYERS] = 32
CHEST_CODE[5 + MAX_PLAYERS : 8 + MAX_PLAYERS] = (64, 128, 192)
assert CHEST_FEATURES == 8 + MAX_PLAYERS and CLAIM_FEATURES > 3 * MAX_PLAYERS


@dataclass(frozen=True)
class ChestCard:
    """One chest card as the observer sees it: loot indices (0 = +1, 1 = 0, 2 = −2) or −1 when unknown."""

    announced: int  # −1 once a Spyglass scrambled the position (R07)
    placer: int  # relative seat, −1 when not attributable
    scrambled: bool
    known: int  # true value if the observer knows it, else −1


#: The chest card of each code ``row @ CHEST_CODE`` can take.
CARD_OF_CODE: dict[float, ChestCard] = {
    float(ann + 4 * placer + 32 * scr + 64 * known): ChestCard(ann - 1, placer if ann else -1, bool(scr), known - 1)
    for ann, placer, scr, known in itertools.product(range(4), range(MAX_PLAYERS), range(2), range(4))
    if not (ann == 0 and placer)
}

UNREVEALED, REVEALED_PIRATE, REVEALED_MUTINEER = 0, 1, 2
_MUTINEERS = {n: row.mutineers for n, row in SETUP_TABLE.items()}
PLUS, ZERO, MINUS = CardKind.LOOT_PLUS_1, CardKind.LOOT_ZERO, CardKind.LOOT_MINUS_2
PLANK, GOOD_RIDDANCE, SPYGLASS = CardKind.PLANK, CardKind.GOOD_RIDDANCE, CardKind.SPYGLASS
CATCH, POCKETS = CardKind.MIRACULOUS_CATCH, CardKind.EMPTY_YOUR_POCKETS


class _Table:
    """The public table and the observer's hand, read from one observation into plain Python values.

    Lists are indexed by relative seat (0 = the observer, 1 = the next seat to the left).
    """

    __slots__ = (
        "obs",
        "n",
        "target",
        "draw",
        "chest_size",
        "hand",
        "aboard",
        "planks",
        "revealed",
        "good_riddance",
        "planks_played",
        "accused",
        "vouched",
        "claims_spyglass",
        "mutineers_aboard",
        "chest",
    )

    def __init__(self, obs: np.ndarray, with_chest: bool) -> None:
        self.obs = obs
        self.n = n = int(obs[_NUM_PLAYERS].argmax()) + MIN_PLAYERS
        self.target, self.draw, _, k = obs[_TARGET : _CHEST_SIZE + 1].tolist()
        self.chest_size = k = int(k)
        self.hand = [int(c) for c in obs[_HAND].tolist()]
        rows = obs[_SEATS.start : _SEATS.start + n * _SEAT_WIDTH].tolist()
        self.aboard = [x > 0 for x in rows[_S_ABOARD::_SEAT_WIDTH]]
        self.planks = [
            int(a + 2 * b) for a, b in zip(rows[_S_ONE_PLANK::_SEAT_WIDTH], rows[_S_TWO_PLANKS::_SEAT_WIDTH])
        ]
        self.revealed = [
            REVEALED_PIRATE if p else REVEALED_MUTINEER if m else UNREVEALED
            for p, m in zip(rows[_S_REVEALED_PIRATE::_SEAT_WIDTH], rows[_S_REVEALED_MUTINEER::_SEAT_WIDTH])
        ]
        self.good_riddance = rows[_S_GOOD_RIDDANCE::_SEAT_WIDTH]
        self.planks_played = rows[_S_PLANKS_PLAYED::_SEAT_WIDTH]
        self.mutineers_aboard = _MUTINEERS[n] - self.revealed.count(REVEALED_MUTINEER)
        self.accused = accused = [-1] * n
        self.vouched = vouched = [-1] * n
        claims = obs[_CLAIMS].reshape(MAX_PLAYERS, CLAIM_FEATURES)
        rows_, cols_ = claims[:n, : 2 * MAX_PLAYERS].nonzero()
        for row, col in zip(rows_.tolist(), cols_.tolist()):
            if col < _C_VOUCH:
                accused[row] = col
            else:
                vouched[row] = col - _C_VOUCH
        self.claims_spyglass = [x > 0 for x in claims[:n, _C_HAND + SPYGLASS].tolist()]
        self.chest: list[ChestCard] = []
        if with_chest and k:
            block = obs[_CHEST_START : _CHEST_START + k * CHEST_FEATURES].reshape(k, CHEST_FEATURES)
            self.chest = [CARD_OF_CODE[code] for code in (block @ CHEST_CODE).tolist()]

    def unrevealed_others(self) -> list[int]:
        """Relative seats other than mine whose role is not revealed (so they are aboard, R11)."""
        return [s for s in range(1, self.n) if not self.revealed[s]]

    def scrambled_card_value(self, discount: float) -> float:
        """Average announcement of the scrambled chest cards, minus ``discount`` per +1 share; 0 if not public."""
        _, _, plus, zero, minus, public = self.obs[_CHEST_SUMMARY].tolist()
        cards = plus + zero + minus
        if not public or not cards:
            return 0.0
        return (plus * (1.0 - discount) - 2.0 * minus) / cards

    def spyglass_taken(self) -> int:
        return int(self.obs[_SG_TAKEN].argmax())


class HeuristicAgent:
    """A scripted player of either team; it reads its own role from the observation.

    It decides from the current observation alone (plus its seeded RNG for ties), with
    one exception: between playing a Spyglass and the claim of the same turn it remembers
    who announced what on the cards it took, read from the observation one decision
    earlier, since the Spyglass scrambles that public record (R07). Its own latest
    accusation, public and kept in the observation (R16), is its memory of a liar. So one
    instance may play any number of seats and games. The numbers below are the class
    attributes (tuned by self-play against both baselines; see ``python -m traitors_env.evaluation.games``).
    A value within ``TOLERANCE`` (1e-4) of a threshold counts as reaching it, so that an exact
    tie (say a chest estimate of 1/3 − 1/3 against 0) follows the rule, not float rounding; the
    JAX twin (:mod:`traitors_env.games.traitors_aboard.jax.heuristic`) then decides it the same way.

    **Pirate: suspicion.** Each other seat whose role is not revealed gets a score from
    public evidence: it accused me or a revealed Pirate (+2), vouched for a revealed
    Mutineer (+3), accused a revealed Mutineer (−1), played Good Riddance (+0.5 each),
    announced a chest card higher than the value I know it has (+6), is accused by me
    (+4: I had a reason), by a revealed Pirate (+2), by a seat I do not suspect (+1), by a
    revealed Mutineer (−1). Under 5 players, where Pirates Plank only on evidence, the
    Planks in front of me count against the others in proportion to the Planks each has
    played (+1 per Plank). A softmax of the scores over those seats, scaled to the
    Mutineers still aboard, gives each seat's Mutineer probability ``q``.

    **Pirate: chest estimate.** A card whose value I know (I placed it, or saw it with a
    Spyglass) counts its value. An attributable card announced +1 counts ``1 − 2q`` for
    its placer's ``q`` (a Mutineer's "+1" is worth −1 on average: a −2, a 0 or a +1),
    announced 0 counts ``−q``, announced −2 counts −2. A scrambled card counts the average
    announcement of the scrambled cards, discounted alike at the mean ``q`` (0 if that
    multiset is no longer public).

    **Pirate: main decision**, the first that applies:

    1. Open the chest if the estimate reaches the target + 1 (the target, if I know every
       card); if it reaches the target − 1.5
       once the draw pile may run out before my next turn (no more cards than seats
       aboard); always with one card left in the draw pile (R06: any other move loses).
    2. Plank the most suspicious seat if its ``q`` is at least 0.6 (the most suspicious
       seat: highest ``q``, + 0.1 if it is one Plank from overboard, so that Pirates
       finish what others began and the role gets revealed).
    3. Place a +1, announced +1.
    4. Spyglass when two of the top three cards are unknown to me; Good Riddance when the
       top two are estimated below 0.
    5. Miraculous Catch while holding a −2 or a 0 (they go back, see below).
    6. Place a 0, announced 0.
    7. Empty Your Pockets on the most suspicious seat if ``q ≥ 0.5`` (it empties a hand kept
       for lies); from 5 players up Plank the most suspicious seat even on weak suspicion
       (with fewer players a Pirate overboard is close to a lost game, R12).
    8. Place a −2, announced −2; then any action card left.

    **Pirate: other decisions.** Spyglass order: lowest values on top (a Good Riddance
    takes them). Miraculous Catch returns, first choice first: −2, 0, Empty Your Pockets,
    Good Riddance, Miraculous Catch, Plank, Spyglass, +1. Claim, the first that applies:
    accuse the seat that must have lied about a card my Spyglass just showed (when only
    one seat can have); accuse the most suspicious seat if its score is at least 2; after
    a Spyglass, tell the chest top truthfully; vouch for myself if I hold a Spyglass
    (the rulebook's tip: keep Spyglasses secret); else claim my true hand.

    **Mutineer: main decision**, the first that applies:

    1. Good Riddance when the chest as I reckon it (my cards known, the others'
       announcements believed) is within 2 of the target and its top two are worth more than 0.
    2. Place a −2 announced +1.
    3. Empty Your Pockets (it also burns three cards of the draw pile, R06) on a seat whose
       latest hand claim shows a Spyglass, else on a seat that accused me, else at random.
    4. Plank: when one more Pirate overboard brings parity (R12), the seat closest to
       overboard (ties: one that accused me); else from 5 players up a seat with no Plank
       yet, to steer the Pirates' weak suspicion onto a Pirate without being the one who
       throws it overboard; under 5 players not at all (there Planks are evidence).
    5. Miraculous Catch, to fish for −2s.
    6. Place a 0 announced +1.
    7. Spyglass; place a +1 announced +1 (keeps the cover); Good Riddance; Plank the seat
       with the fewest Planks.

    **Beliefs** (:meth:`beliefs`, the kit's deduction metrics): P(Mutineer) per relative seat. A revealed
    seat counts 1 or 0. As a Pirate, the Mutineers still aboard are spread over the unrevealed others in
    proportion to ``exp(score)`` of the suspicion score above, each capped at 1 with the excess spread over the
    rest (:func:`~traitors_env.core.agent.spread_to_count`), so the beliefs of the unrevealed others sum to the
    Mutineers aboard: the suspicion ``q`` the Pirate acts on, except that ``q`` is clipped at 1 where a seat
    passes it without passing the excess on. As a Mutineer (which does not know the other Mutineers, rulebook
    "Setup"), the other Mutineers aboard spread evenly over the unrevealed others: the heuristic Mutineer
    deduces nothing.

    **Mutineer: other decisions.** Spyglass order: highest values on top (a Good
    Riddance takes them). Miraculous Catch returns, first choice first: 0, Miraculous
    Catch, Spyglass, +1, Plank, Good Riddance, Empty Your Pockets, −2. Claim: accuse a seat
    that accused me (to sow doubt); after a Spyglass, claim the top is all +1; else vouch
    for myself or claim my hand with every −2 shown as +1 (a coin flip).

    Args:
        seed: an int, ``None`` or a ``numpy.random.Generator``; it breaks ties and flips
            the Mutineer's claim coin, so a seed fixes the agent's play.
    """

    # Evidence weights of the Pirate's suspicion score (see the class docstring).
    W_ACCUSED_FRIEND = 2.0
    W_VOUCHED_FOE = 3.0
    W_ACCUSED_FOE = -1.0
    W_GOOD_RIDDANCE = 0.5
    W_PLANKED_ME = 1.0
    W_CAUGHT_LYING = 6.0
    W_MY_ACCUSATION = 4.0
    W_HEARSAY_REVEALED_PIRATE = 2.0
    W_HEARSAY_TRUSTED = 1.0
    W_HEARSAY_REVEALED_MUTINEER = -1.0
    LIE_DISCOUNT = 2.0  # value lost per "+1" a Mutineer announces
    ACCUSE_SCORE = 2.0
    PLANK_PROBABILITY = 0.6
    POCKETS_PROBABILITY = 0.5
    FINISH_BONUS = 0.1  # added to q of a seat one Plank from overboard, to finish what others began
    WEAK_PLANK_PLAYERS = 5  # from this table size a Pirate Planks on weak suspicion
    OPEN_MARGIN = 1.0
    LAST_CHANCE_MARGIN = 1.5
    M_DANGER_MARGIN = 2.0
    M_PLANK_MARGIN = 1  # a Mutineer Planks when this many Pirates overboard would bring parity
    M_COUNTER_ACCUSE = True
    M_FREE_PLANK_LIMIT = 1  # from 5 players a Mutineer Planks seats with fewer Planks than this
    # A value within this of a threshold counts as reaching it: exact ties (1/3 − 1/3) are then decided
    # by the rule, not by float rounding, the same in float64 here and in float32 in the JAX twin.
    TOLERANCE = 1e-4

    # Miraculous Catch returns per role, least useful first.
    PIRATE_RETURNS = (MINUS, ZERO, POCKETS, GOOD_RIDDANCE, CATCH, PLANK, SPYGLASS, PLUS)
    MUTINEER_RETURNS = (ZERO, CATCH, SPYGLASS, PLUS, PLANK, GOOD_RIDDANCE, POCKETS, MINUS)

    def __init__(self, seed: int | np.random.Generator | None = None) -> None:
        # Python's generator for the many small draws (ties, coin flips): far cheaper per call than numpy's.
        self._rng = random.Random(int(_generator(seed).integers(1 << 62)))
        self._spyglass_memory: tuple | None = None

    # -------------------------------------------------------------- entry point
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The heuristic's action, always legal. Raises ``ValueError`` if the mask is all zeros."""
        phase = int(observation[_PHASE].argmax())
        pirate = observation[_ROLE_PIRATE] > 0.5
        if phase == Phase.MAIN:
            table = _Table(observation, with_chest=True)
            choices = self._pirate_main(table) if pirate else self._mutineer_main(table)
        elif phase == Phase.CLAIM:
            table = _Table(observation, with_chest=pirate)
            choices = self._pirate_claim(table) if pirate else self._mutineer_claim(table)
        elif phase == Phase.SPYGLASS_ORDER:
            choices = [self._spyglass_order(observation, lowest_first=pirate)]
        else:
            hand = observation[_HAND].tolist()
            order = self.PIRATE_RETURNS if pirate else self.MUTINEER_RETURNS
            choices = [A.return_action(kind) for kind in order if hand[kind] > 0]
        for action in choices:
            if action_mask[action]:
                return action
        legal = action_mask.nonzero()[0]
        if legal.size == 0:
            raise _no_legal_action(action_mask)
        return int(legal[self._rng.randrange(legal.size)])

    def _pick(self, seats: Sequence[int], key: Sequence[float]) -> int | None:
        """The seat of ``seats`` with the highest ``key[seat]``, ties broken at random; ``None`` if empty."""
        best, best_key = None, -math.inf
        for seat in seats:
            k = key[seat] + 1e-6 * self._rng.random()
            if k > best_key:
                best, best_key = seat, k
        return best

    def _planks_are_cheap(self, t: _Table) -> bool:
        """Whether Pirates Plank on weak suspicion at this table (and so a Plank is no evidence)."""
        return t.n >= self.WEAK_PLANK_PLAYERS

    def beliefs(self, observation: np.ndarray) -> np.ndarray:
        """P(Mutineer) per relative seat, ``float32``, shape ``(8,)`` (see the class docstring, **Beliefs**).

        ``NaN`` at index 0 (me) and at seats beyond the table; the unrevealed others sum to the Mutineers aboard
        other than me (the rulebook's setup table, less those revealed overboard, R11). Reads nothing but the
        observation and changes nothing: the agent plays the same with or without being asked.
        """
        pirate = observation[_ROLE_PIRATE] > 0.5
        t = _Table(observation, with_chest=pirate)
        out = np.full(MAX_PLAYERS, np.nan, dtype=np.float32)
        for s in range(1, t.n):
            if t.revealed[s]:
                out[s] = 1.0 if t.revealed[s] == REVEALED_MUTINEER else 0.0
        candidates = t.unrevealed_others()
        if candidates:
            if pirate:
                score, _ = self._suspicion(t)
                weights = [math.exp(min(score[s], 30.0)) for s in candidates]
                hidden = t.mutineers_aboard
            else:
                weights = [1.0] * len(candidates)
                hidden = t.mutineers_aboard - 1
            out[candidates] = spread_to_count(weights, hidden)
        return out

    # -------------------------------------------------------------- Pirate
    def _suspicion(self, t: _Table) -> tuple[list[float], list[float]]:
        """Per relative seat: (suspicion score, Mutineer probability ``q``); see the class docstring."""
        n, revealed, accused = t.n, t.revealed, t.accused
        score = [0.0] * n
        for s in range(1, n):
            target = accused[s]
            if target >= 0 and target < n:
                if target == 0 or revealed[target] == REVEALED_PIRATE:
                    score[s] += self.W_ACCUSED_FRIEND
                elif revealed[target] == REVEALED_MUTINEER:
                    score[s] += self.W_ACCUSED_FOE
            vouched = t.vouched[s]
            if 0 < vouched < n and revealed[vouched] == REVEALED_MUTINEER:
                score[s] += self.W_VOUCHED_FOE
            score[s] += self.W_GOOD_RIDDANCE * t.good_riddance[s]
        if t.planks[0] and not self._planks_are_cheap(t):
            # Pirates Plank here only on evidence, so the Planks in front of me are a Mutineer's doing;
            # they came from the others in proportion to the Planks each played.
            played = sum(t.planks_played[1:])
            if played:
                for s in range(1, n):
                    score[s] += self.W_PLANKED_ME * t.planks[0] * t.planks_played[s] / played
        for card in t.chest:
            if card.known >= 0 and card.placer > 0 and LOOT_VALUES[card.announced] > LOOT_VALUES[card.known]:
                score[card.placer] += self.W_CAUGHT_LYING
        if 0 < accused[0] < n:
            score[accused[0]] += self.W_MY_ACCUSATION
        own = score[:]
        for s in range(1, n):
            target = accused[s]
            if 0 < target < n and target != s:
                if revealed[s] == REVEALED_PIRATE:
                    score[target] += self.W_HEARSAY_REVEALED_PIRATE
                elif revealed[s] == REVEALED_MUTINEER:
                    score[target] += self.W_HEARSAY_REVEALED_MUTINEER
                elif own[s] <= self.TOLERANCE:
                    score[target] += self.W_HEARSAY_TRUSTED
        prob = [1.0 if r == REVEALED_MUTINEER else 0.0 for r in revealed]
        candidates = t.unrevealed_others()
        if candidates:
            weights = [math.exp(min(score[s], 30.0)) for s in candidates]
            scale = t.mutineers_aboard / sum(weights)
            for s, w in zip(candidates, weights):
                prob[s] = min(1.0, w * scale)
        return score, prob

    def _card_values(self, t: _Table, prob: Sequence[float]) -> list[float]:
        """Estimated value of each chest card, top first (see the class docstring)."""
        values = []
        scrambled = None
        for card in t.chest:
            if card.known >= 0:
                values.append(LOOT_VALUES[card.known])
            elif card.announced >= 0:
                q = prob[card.placer]
                values.append((1.0, 0.0, -2.0)[card.announced] - (self.LIE_DISCOUNT * q, q, 0.0)[card.announced])
            else:
                if scrambled is None:
                    others = t.n - 1
                    scrambled = t.scrambled_card_value(self.LIE_DISCOUNT * sum(prob[1:]) / others)
                values.append(scrambled)
        return values

    def _pirate_main(self, t: _Table) -> list[int]:
        hand = t.hand
        score, prob = self._suspicion(t)
        cards = self._card_values(t, prob)
        estimate = sum(cards)
        margin = self.OPEN_MARGIN if any(card.known < 0 for card in t.chest) else 0.0  # none if all is known
        choices: list[int] = []
        tolerance = self.TOLERANCE
        if t.draw <= 1:
            choices.append(A.OPEN_CHEST)
        elif t.chest_size and estimate >= t.target + margin - tolerance:
            choices.append(A.OPEN_CHEST)
        elif t.chest_size and t.draw <= sum(t.aboard) and estimate >= t.target - self.LAST_CHANCE_MARGIN - tolerance:
            choices.append(A.OPEN_CHEST)
        suspects = t.unrevealed_others()
        key = [q + 1e-3 * sc + self.FINISH_BONUS * (p == 2) for q, sc, p in zip(prob, score, t.planks)]
        suspect = self._pick(suspects, key)
        q = prob[suspect] if suspect is not None else 0.0
        if hand[PLANK] and q >= self.PLANK_PROBABILITY - tolerance:
            choices.append(A.plank_action(suspect))
        if hand[PLUS]:
            choices.append(A.loot_action(PLUS, PLUS))
        if hand[SPYGLASS] and sum(1 for card in t.chest[:3] if card.known < 0) >= 2:
            choices.append(A.SPYGLASS)
        if hand[GOOD_RIDDANCE] and t.chest_size and sum(cards[:2]) < -tolerance:
            choices.append(A.GOOD_RIDDANCE)
        if hand[CATCH] and (hand[MINUS] or hand[ZERO]):
            choices.append(A.MIRACULOUS_CATCH)
        if hand[ZERO]:
            choices.append(A.loot_action(ZERO, ZERO))
        if suspect is not None:
            if hand[POCKETS] and q >= self.POCKETS_PROBABILITY - tolerance:
                choices.append(A.empty_your_pockets_action(suspect))
            if hand[PLANK] and self._planks_are_cheap(t):
                choices.append(A.plank_action(suspect))
        if hand[MINUS]:
            choices.append(A.loot_action(MINUS, MINUS))
        for kind, action in ((SPYGLASS, A.SPYGLASS), (CATCH, A.MIRACULOUS_CATCH), (GOOD_RIDDANCE, A.GOOD_RIDDANCE)):
            if hand[kind]:
                choices.append(action)
        if suspect is not None:
            choices += [A.plank_action(suspect), A.empty_your_pockets_action(suspect)]
        # Every choice above is legal, so the first is played; a Spyglass needs its memory.
        self._spyglass_memory = (t.draw, t.chest_size, tuple(t.chest[:3])) if choices[0] == A.SPYGLASS else None
        return choices

    def _spyglass_liar(self, t: _Table) -> int | None:
        """After my Spyglass this turn: the one relative seat that must have lied about a card I took, else ``None``."""
        memory, self._spyglass_memory = self._spyglass_memory, None
        taken = t.spyglass_taken()
        if memory is None or taken < 2:
            return None
        draw, chest_size, before = memory
        if draw != t.draw + 1 or chest_size != t.chest_size or len(before) != taken:
            return None  # not the Spyglass of this turn
        if any(card.announced < 0 or card.known >= 0 for card in before):
            return None  # judge only cards that were all attributable and unknown to me
        seen = [card.known for card in t.chest[:taken]]
        if min(seen) < 0:
            return None
        liars: set[int] = set()
        for values in set(itertools.permutations(seen)):
            lying = {card.placer for card, value in zip(before, values) if card.announced != value}
            if not lying:
                return None  # an honest arrangement exists
            if len(lying) == 1 and not t.revealed[next(iter(lying))]:
                liars |= lying
        return liars.pop() if len(liars) == 1 else None

    def _pirate_claim(self, t: _Table) -> list[int]:
        liar = self._spyglass_liar(t)
        if liar is not None:
            return [A.accuse_action(liar)]
        score, _ = self._suspicion(t)
        suspect = self._pick(t.unrevealed_others(), score)
        if suspect is not None and score[suspect] >= self.ACCUSE_SCORE - self.TOLERANCE:
            return [A.accuse_action(suspect)]
        taken = t.spyglass_taken()
        if taken:
            seen = [card.known for card in t.chest[:taken]]
            if min(seen) >= 0:
                return [A.chest_claim_action(seen)]
        if t.hand[SPYGLASS]:
            return [A.vouch_action(0)]
        return [A.hand_claim_action(_kinds(t.hand))]

    # -------------------------------------------------------------- Mutineer
    def _mutineer_main(self, t: _Table) -> list[int]:
        hand = t.hand
        cards = self._card_values(t, [0.0] * t.n)  # Pirates announce truthfully
        choices: list[int] = []
        top_two = sum(cards[:2])
        danger = sum(cards) >= t.target - self.M_DANGER_MARGIN - self.TOLERANCE
        if hand[GOOD_RIDDANCE] and danger and top_two > self.TOLERANCE:
            choices.append(A.GOOD_RIDDANCE)
        if hand[MINUS]:
            choices.append(A.loot_action(MINUS, PLUS))
        others = t.unrevealed_others()
        accused_me = [1.0 if a == 0 else 0.0 for a in t.accused]
        if hand[POCKETS]:
            key = [2.0 * spy + acc for spy, acc in zip(t.claims_spyglass, accused_me)]
            target = self._pick(others, key)
            if target is not None:
                choices.append(A.empty_your_pockets_action(target))
        if hand[PLANK]:
            needed = sum(t.aboard) - 2 * t.mutineers_aboard  # Pirates overboard until parity (R12)
            if needed <= self.M_PLANK_MARGIN:
                targets = others
            elif self._planks_are_cheap(t):
                targets = [s for s in others if t.planks[s] < self.M_FREE_PLANK_LIMIT]
            else:
                targets = []
            key = [p + 0.5 * acc for p, acc in zip(t.planks, accused_me)]
            target = self._pick(targets, key)
            if target is not None:
                choices.append(A.plank_action(target))
        if hand[CATCH]:
            choices.append(A.MIRACULOUS_CATCH)
        if hand[ZERO]:
            choices.append(A.loot_action(ZERO, PLUS))
        if hand[SPYGLASS]:
            choices.append(A.SPYGLASS)
        if hand[PLUS]:
            choices.append(A.loot_action(PLUS, PLUS))
        if hand[GOOD_RIDDANCE]:
            choices.append(A.GOOD_RIDDANCE)
        if hand[PLANK]:
            target = self._pick(others, [-p for p in t.planks])
            if target is not None:
                choices.append(A.plank_action(target))
        return choices

    def _mutineer_claim(self, t: _Table) -> list[int]:
        if self.M_COUNTER_ACCUSE:
            accuser = self._pick([s for s in t.unrevealed_others() if t.accused[s] == 0], [0.0] * t.n)
            if accuser is not None:
                return [A.accuse_action(accuser)]
        taken = t.spyglass_taken()
        if taken:
            return [A.chest_claim_action([PLUS] * taken)]
        if self._rng.random() < 0.5:
            return [A.vouch_action(0)]
        fake = list(t.hand)
        fake[PLUS] += fake[MINUS]
        fake[MINUS] = 0
        return [A.hand_claim_action(_kinds(fake))]

    # -------------------------------------------------------------- both roles
    @staticmethod
    def _spyglass_order(obs: np.ndarray, lowest_first: bool) -> int:
        taken = int(obs[_SG_TAKEN].argmax())
        seen = obs[_SG_VIEW].tolist()
        values = [LOOT_VALUES[seen[3 * i : 3 * i + 3].index(1.0)] for i in range(taken)]
        order = sorted(range(taken), key=lambda i: values[i] if lowest_first else -values[i])
        return A.spyglass_order_action(tuple(order) + tuple(range(taken, 3)))


def _kinds(hand: Sequence[int]) -> list[int]:
    """The card kinds of a hand of counts, as the three kinds of a hand claim."""
    kinds = [kind for kind in range(NUM_CARD_KINDS) for _ in range(hand[kind])]
    return (kinds + [PLUS] * 3)[:3]


