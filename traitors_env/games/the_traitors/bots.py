"""The scripted heuristic of ``the_traitors_v0``, one strategy per role (the game's bots: ``GAME.bots``).

It reads the observation only through the declared layout
(:data:`traitors_env.games.the_traitors.observation.LAYOUT`), never the engine's hidden state. Its
strategy is written down in :class:`TheTraitorsHeuristicAgent`'s docstring.
"""

from __future__ import annotations

import numpy as np

from ...core.agent import _generator, _no_legal_action, spread_to_count
from . import actions as A
from .cards import MAX_PLAYERS, MIN_PLAYERS, NUM_ROUNDS
from .engine import Phase
from .observation import OFFSETS, piece, seat_feature

__all__ = ["TheTraitorsHeuristicAgent"]

_GOLD = seat_feature("personal gold (T03)")
_PRESENT = seat_feature("present (seat exists at this table)")
_HELD = seat_feature("Shields and Daggers held, as far as public (drawn minus shown, T11)")
_MURDERED = seat_feature("times murdered, not saved (T12)")
_SAVED = seat_feature("times saved by a Shield (T12)")
_STATEMENT_TRAITOR = seat_feature('statement: "I will write Traitor"')
_FINALIST = seat_feature("finalist (T14)")
_ROLE_TRAITOR = OFFSETS["role"] + 1


class TheTraitorsHeuristicAgent:
    """A scripted player of either role; it reads its own role from the observation.

    It decides from the current observation alone (plus its seeded RNG for ties), so one
    instance may play any number of seats and games. Seats below are relative (offset 0 = me).

    **Suspicion** of each other seat, from public evidence only: +1 per *suspicious* mission
    signal and −0.25 per *clear* one (T07: a Traitor who attempts shows suspicious 0.5 of the
    time, a Faithful 0.2); −1.5 per time it was the Night's victim, saved or not (the Traitor
    rarely murders itself, T12); +0.3 per claim by another player suspecting it and −0.1 per
    claim by another player calling it Faithful (T08). A Faithful never suspects itself.

    **Faithful.**

    - Claim: "I suspect X" for the most suspicious seat if its suspicion is above 0, else
      "I am Faithful".
    - Vote: the most suspicious seat (ties broken at random); a Dagger is played with it in
      round 4, or when that seat's suspicion exceeds the next one's by 1 or more (a Dagger vote
      naming the Traitor scores 4 at the End Game, T13).

    **Traitor.**

    - Mission: attempt the secret assignment unless I am the most suspicious player at the
      table by a margin of 1 or more (an attempt doubles my chance of a suspicious signal).
    - Claim: "I suspect X" for the most suspicious other seat (joining the crowd's suspicion).
    - Vote: the most suspicious other seat; ties go to the richest (a rival for the Final); a
      Dagger, when held, is played at once (it gains the Traitor nothing at the End Game).
    - Night (after a successful assignment): murder the strongest rival, the other seat with
      the most gold, counting −3 for a seat known to hold a Shield or Dagger (it may be a
      Shield); never myself.

    **Both roles, the Final.** Statement: "I will write Faithful". Choice: write Faithful unless
    the other finalist stated "I will write Traitor"; then write Traitor (with the +1 reward of
    T16 a finalist gains nothing by either choice when the other writes Faithful, and loses
    either way when the other writes Traitor).

    **Beliefs** (:meth:`beliefs`, the kit's deduction metrics): P(Traitor) per relative seat. A Faithful spreads
    the one Traitor (T02) over the other seats in proportion to ``exp(suspicion)`` (a softmax): the suspicion
    weights are close to log-likelihood ratios (a suspicious signal is 0.5 / 0.2 = 2.5 times likelier from a
    Traitor who attempts, T07: log 2.5 ≈ 0.9 per +1), so ``exp`` reads them as odds. The Traitor knows every
    other seat is Faithful: 0 for each.

    Args:
        seed: an int, ``None`` or a ``numpy.random.Generator`` for tie-breaks.
    """

    DAGGER_MARGIN = 1.0
    LAY_LOW_MARGIN = 1.0
    SHIELD_RISK = 3.0

    def __init__(self, seed: int | np.random.Generator | None = None) -> None:
        self._rng = _generator(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A legal action index (see the class docstring). Raises ``ValueError`` if the mask is all zeros."""
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise _no_legal_action(action_mask)
        if legal.size == 1:
            return int(legal[0])
        traitor = observation[_ROLE_TRAITOR] > 0.5
        phases = np.flatnonzero(piece(observation, "phase") > 0.5)
        phase = Phase(int(phases[0])) if phases.size else None
        n = int(np.flatnonzero(piece(observation, "num_players"))[0]) + MIN_PLAYERS
        seats = piece(observation, "seats")
        suspicion = self._suspicion(observation, n)
        if phase is Phase.MISSION:
            others = suspicion[1:n].max()
            return A.NO_ATTEMPT if suspicion[0] >= others + self.LAY_LOW_MARGIN else A.ATTEMPT
        if phase is Phase.CLAIM:
            target, score = self._most(suspicion[1:n] + self._ties(n - 1))
            if traitor or score > 0:
                return A.claim_suspect_action(target)
            return A.claim_faithful_action(0)
        if phase is Phase.VOTE:
            gold = seats[1:n, _GOLD]
            key = suspicion[1:n] + (1e-3 * gold if traitor else 0.0) + self._ties(n - 1)
            target, _ = self._most(key)
            dagger = A.vote_action(target, dagger=True)
            if action_mask[dagger]:
                ordered = np.sort(suspicion[1:n])[::-1]
                margin = ordered[0] - ordered[1] if n > 2 else np.inf
                round_ = int(np.flatnonzero(piece(observation, "round"))[0]) + 1
                if traitor or round_ == NUM_ROUNDS or margin >= self.DAGGER_MARGIN:
                    return dagger
            return A.vote_action(target)
        if phase is Phase.NIGHT:
            value = seats[1:n, _GOLD] - self.SHIELD_RISK * (seats[1:n, _HELD] > 0) + self._ties(n - 1)
            target, _ = self._most(value)
            return A.murder_action(target)
        if phase is Phase.STATEMENT:
            return A.statement_action(A.STATEMENT_FAITHFUL)
        if phase is Phase.FINAL:
            other = next(s for s in range(1, n) if seats[s, _FINALIST] > 0.5)
            return A.write_action(bool(seats[other, _STATEMENT_TRAITOR] > 0.5))
        return int(legal[self._rng.integers(legal.size)])

    def beliefs(self, observation: np.ndarray) -> np.ndarray:
        """P(Traitor) per relative seat, ``float32``, shape ``(6,)`` (see the class docstring, **Beliefs**).

        ``NaN`` at index 0 (me) and at seats beyond the table; the other seats sum to 1 for a Faithful (one Traitor,
        T02), 0 for the Traitor. Reads nothing but the observation and draws nothing from the agent's RNG.
        """
        n = int(np.flatnonzero(piece(observation, "num_players"))[0]) + MIN_PLAYERS
        out = np.full(MAX_PLAYERS, np.nan, dtype=np.float32)
        if observation[_ROLE_TRAITOR] > 0.5:
            out[1:n] = 0.0
            return out
        score = self._suspicion(observation, n)[1:n]
        out[1:n] = spread_to_count(np.exp(np.minimum(score - score.max(), 0.0)), 1)
        return out

    def _ties(self, size: int) -> np.ndarray:
        return self._rng.random(size) * 1e-6

    @staticmethod
    def _most(values: np.ndarray) -> tuple[int, float]:
        """The relative seat (offset ≥ 1) of the largest of ``values`` (indexed from offset 1), and the value."""
        index = int(np.argmax(values))
        return index + 1, float(values[index])

    @staticmethod
    def _suspicion(observation: np.ndarray, n: int) -> np.ndarray:
        """Suspicion of each relative seat (index 0 = me), shape ``(MAX_PLAYERS,)``; see the class docstring."""
        signals = piece(observation, "signals")  # [round, seat, (suspicious, clear)]
        score = signals[:, :, 0].sum(axis=0) - 0.25 * signals[:, :, 1].sum(axis=0)
        seats = piece(observation, "seats")
        score = score - 1.5 * (seats[:, _MURDERED] + seats[:, _SAVED])
        claims = piece(observation, "claims")  # [round, claimant, 1 + suspect 6 + faithful 6]
        others = np.ones(MAX_PLAYERS)
        others[0] = 0.0  # my own claims are no evidence to me
        suspected = np.einsum("c,rcs->s", others, claims[:, :, 1 : 1 + MAX_PLAYERS])
        vouched = np.einsum("c,rcs->s", others, claims[:, :, 1 + MAX_PLAYERS :])
        score = score + 0.3 * suspected - 0.1 * vouched
        score[n:] = -np.inf
        score[:n][seats[:n, _PRESENT] < 0.5] = -np.inf
        if observation[_ROLE_TRAITOR] <= 0.5:
            score[0] = -np.inf
        return score
