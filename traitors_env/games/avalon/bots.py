"""The ``heuristic`` bot of *Avalon*: a LogicBot modelled on DeepRole's (Serrino et al., NeurIPS 2019, §5), acting
only on its own observation.

The bot reads nothing but the observation it is given (decoded by :class:`ObservationView`) and its own seeded
generator; it never sees the engine state. Everything is in seats *relative to the observer* (0 is itself).

**Consistent worlds.** A world is a set of Evil seats of the table's Evil count (A01). The bot keeps the worlds
consistent with (a) its own knowledge (A03): a Good player is not Evil; Merlin's seen seats are Evil (all the Evil
without Mordred in play); Percival's two candidates hold exactly one Evil (Morgana) when Morgana is in play, none
otherwise; an Evil player (but Oberon) is Evil with the seats it sees, and the rest are Good unless Oberon is in
play; and (b) the public quest results: a quest with ``f`` Fails had at least ``f`` Evil members. A success proves
nothing strictly (Evil may play Success), as in LogicBot: no world is ruled out by a success. The prior over the
consistent worlds is uniform, reweighted by ``SUCCESS_WEIGHT`` (0.2) per successful quest that had an Evil member
in that world -- Evil usually fails (below), so a success is evidence, not proof; ``SUCCESS_WEIGHT = 1`` is
LogicBot's pure consistency, with which Good won 4 % of 5-player self-play games (300 games), too weak a side.
``P(seat is Evil)`` is the weight of the consistent worlds in which it is, ``P(team has Evil)`` the weight of those
in which the team holds an Evil seat; a seat Evil in *every* consistent world has probability exactly 1. The *public view* of a seat is the same computed from the quest results and "I am Good"
alone (what a Servant in its seat would know).

**Good (Servants, Percival).**

- Propose: the team of the quest's size with the lowest ``P(team has Evil)``, ties to teams with itself, then at
  random (seeded). A seat that is Evil in every consistent world is never on it while a team without one exists.
- Vote: approve iff ``P(team has Evil) < 1`` and ``P(team has Evil) <= best + VOTE_SLACK``, where ``best`` is the
  lowest ``P(team has Evil)`` of any team of that size (so at quest 1 a Servant off the team approves a team of two
  it cannot tell apart, but never a team with a seat that must be Evil). ``VOTE_SLACK = 0.34``: at quest 1 of a
  5-player game a Servant rates a team of two with itself 1/2, one without 5/6; the slack lets both pass. On the fifth proposal of a quest (four
  rejections in a row) Good approves whatever is proposed: a fifth rejection loses for Good (A09).

**Merlin** knows the Evil seats (but Mordred) and plays as a Good player who knows them, with two disguises so that
his votes and proposals are not exactly "team has Evil": he proposes, among the teams with the fewest Evil seats
he knows of, the one his *public view* rates best; and when his vote on knowledge ("approve iff no Evil he sees")
differs from the vote of his public view, he casts the public view's vote with probability ``MERLIN_MIMIC``
(seeded) -- except that he always rejects a team with Evil whose failure would be the third (A13).

**Evil (Assassin, Minions, Morgana, Mordred, Oberon).** Its known Evil are itself and the seats it sees (A03;
Oberon sees none).

- Propose: itself plus the seats its public view rates least suspect, with exactly as many known Evil members as
  the quest needs Fails (one; two on quest 4 at 7+, A11).
- Vote: approve iff the team has a known Evil member; on the fifth proposal, reject every team without one (a
  fifth rejection wins for Evil, A09).
- Quest: of the known Evil members, only as many as the quest needs Fails play Fail (the first ones to the left of
  the leader, an order every Evil member computes alike), so that two Fails do not expose both. On quest 1 of a
  two-member team (where a Fail exposes the Evil member to its Good partner) it plays Fail with probability
  ``EARLY_FAIL`` (seeded); a Fail that wins the game (the third failure) or that stops Good's third success is
  always played.
- Assassinate (A14): the seat, not known to be Evil, whose votes and proposals best agree with "the team holds an
  Evil seat" as the Assassin knows it: per revealed vote +1 for rejecting a team with a known Evil seat or
  approving one without, −1 otherwise; per proposal it led +1 for a team without known Evil, −1 with. Ties at
  random (seeded).
- Claims (A16, when on): none.

**Beliefs** (``beliefs``, :class:`~traitors_env.core.agent.BeliefAgent`): ``P(Evil)`` per relative seat, the
marginal over the consistent worlds (0/1 for seats known from A03), ``NaN`` at index 0 and padding; length 10
(``Game.belief_size``). It reads only the observation and never draws from the generator.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations

import numpy as np

from . import actions as A
from .engine import Phase
from .observation import phase_of_observation, piece, role_of_observation
from .roles import EVIL, EVIL_COUNT, MAX_PLAYERS, MIN_PLAYERS, NUM_QUESTS, Role, side_of_role

__all__ = ["AvalonLogicBot", "AvalonSimpleAgent", "ObservationView", "evil_marginals", "team_evil_probability",
           "worlds"]


@cache
def _combos(n: int, k: int) -> np.ndarray:
    """Every ``k``-subset of ``range(n)`` as a ``bool`` matrix of shape ``(C(n, k), n)``."""
    rows = list(combinations(range(n), k))
    out = np.zeros((len(rows), n), dtype=bool)
    for i, row in enumerate(rows):
        out[i, list(row)] = True
    out.setflags(write=False)
    return out


class ObservationView:
    """An Avalon observation decoded (relative seats; ``ObservationView(observation)``).

    Attributes:
        n (table size), evil_count (A01), role (:class:`Role`), side (0 Good, 1 Evil), options (dict: merlin,
        percival, morgana, mordred, oberon, claims), seen (bool ``(n,)``: seats seen as Evil, A03), candidates
        (bool ``(n,)``: Percival's Merlin-or-Morgana), quest (1–5), leader, rejections, team_sizes, fails_needed,
        successes, failures, team (bool ``(n,)``: the proposal being made), quests (list of ``(team bool (n,),
        fails)`` played), proposals (list of dicts: ``quest``, ``leader``, ``team`` bool ``(n,)``, ``votes`` ``None``
        or int ``(n,)`` with 1 approve / 0 reject, ``approved``).
    """

    def __init__(self, observation: np.ndarray) -> None:
        obs = np.asarray(observation, dtype=np.float32)
        self.n = n = int(np.argmax(piece(obs, "num_players"))) + MIN_PLAYERS
        self.evil_count = EVIL_COUNT[n]
        self.role = role_of_observation(obs)
        self.side = side_of_role(self.role)
        flags = piece(obs, "options") > 0.5
        self.options = dict(zip(("merlin", "percival", "morgana", "mordred", "oberon", "claims"), map(bool, flags)))
        knowledge = piece(obs, "knowledge")[:n] > 0.5
        self.seen, self.candidates = knowledge[:, 0].copy(), knowledge[:, 1].copy()
        self.quest = int(np.argmax(piece(obs, "quest"))) + 1
        self.leader = int(np.argmax(piece(obs, "leader")))
        self.rejections = int(np.argmax(piece(obs, "rejections")))
        self.team_sizes = [int(round(x)) for x in piece(obs, "team_sizes")]
        self.fails_needed = [int(round(x)) for x in piece(obs, "fails_needed")]
        score = piece(obs, "score")
        self.successes, self.failures = int(round(score[0])), int(round(score[1]))
        self.team = piece(obs, "team")[:n] > 0.5
        results, teams = piece(obs, "quest_results"), piece(obs, "quest_teams")
        self.quests = [(teams[q, :n] > 0.5, int(round(results[q, 2]))) for q in range(NUM_QUESTS)
                       if results[q, 0] + results[q, 1] > 0.5]
        props = piece(obs, "proposals")
        r = MAX_PLAYERS
        self.proposals = []
        for q in range(NUM_QUESTS):
            for k in range(props.shape[1]):
                p = props[q, k]
                if p[0] < 0.5:
                    continue
                approve, reject = p[2 + 2 * r: 2 + 3 * r][:n] > 0.5, p[2 + 3 * r: 2 + 4 * r][:n] > 0.5
                revealed = bool(approve.any() or reject.any())
                self.proposals.append({"quest": q + 1, "leader": int(np.argmax(p[2:2 + r])),
                                       "team": p[2 + r: 2 + 2 * r][:n] > 0.5,
                                       "votes": approve.astype(np.int8) if revealed else None,
                                       "approved": bool(p[1] > 0.5) if revealed else None})

    @property
    def team_size(self) -> int:
        return self.team_sizes[self.quest - 1]

    @property
    def quests_to_win(self) -> int:
        """Successes that win for Good: a majority of the quests played (3 of A05's five; a small variant's shorter
        track, S04, leaves its later team sizes 0)."""
        return sum(1 for size in self.team_sizes if size) // 2 + 1

    @property
    def failures_to_lose(self) -> int:
        """Failures that win for Evil: the first that leaves Good short of a majority (3 of 5)."""
        return sum(1 for size in self.team_sizes if size) - self.quests_to_win + 1

    @property
    def known_evil(self) -> np.ndarray:
        """Seats this player knows to be Evil: the seen ones, and itself when Evil (bool ``(n,)``)."""
        known = self.seen.copy()
        if self.side == EVIL:
            known[0] = True
        return known


def worlds(view: ObservationView, private: bool = True, success_weight: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The consistent worlds (see the module doc) and their weights.

    Returns:
        ``(worlds, weights)``: a ``bool`` matrix ``(k, n)`` (row = the Evil seats) and ``float64`` ``(k,)`` summing to
        1: uniform, times ``success_weight`` per successful quest that had an Evil member in that world.

    ``private=False``: the public view (quest results and "I am Good" only). Never empty: if the quest results
    contradict the knowledge (they cannot in a real game), the knowledge alone decides.
    """
    w = _combos(view.n, view.evil_count)
    keep = np.ones(len(w), dtype=bool)
    role = view.role
    if not private or view.side != EVIL:
        keep &= ~w[:, 0]
    if private:
        if role == Role.MERLIN or (view.side == EVIL and role != Role.OBERON):
            keep &= w[:, view.seen].all(axis=1)
        if view.side == EVIL:
            keep &= w[:, 0]
            if role != Role.OBERON and not view.options["oberon"]:
                keep &= w.sum(axis=1) == 1 + int(view.seen.sum())
        if role == Role.PERCIVAL and view.candidates.any():
            keep &= w[:, view.candidates].sum(axis=1) == int(view.options["morgana"])
    base = keep.copy()
    for team, fails in view.quests:
        keep &= w[:, team].sum(axis=1) >= fails
    if not keep.any():
        keep = base if base.any() else np.ones(len(w), dtype=bool)
    w = w[keep]
    weights = np.ones(len(w))
    if success_weight != 1.0:
        for team, fails in view.quests:
            if fails == 0:
                weights *= np.where(w[:, team].any(axis=1), success_weight, 1.0)
    return w, weights / weights.sum()


def evil_marginals(consistent: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """``P(seat is Evil)`` per seat, ``float64`` ``(n,)``: the weight of the consistent worlds where it is."""
    w, weights = consistent
    return weights @ w


def team_evil_probability(consistent: tuple[np.ndarray, np.ndarray], teams: np.ndarray) -> np.ndarray:
    """``P(team has an Evil seat)`` per team (rows of ``teams``, bool ``(t, n)``), ``float64`` ``(t,)``."""
    w, weights = consistent
    hits = w.astype(np.int32) @ teams.T.astype(np.int32)
    return weights @ (hits > 0)


class AvalonLogicBot:
    """The ``heuristic`` bot of ``avalon_v0`` (see the module doc for its rules and parameters).

    Args:
        seed: an int, ``None`` or a ``numpy.random.Generator`` for its random choices (tie-breaks, Merlin's mimicry,
            Evil's early Fail).
    """

    VOTE_SLACK = 0.34
    SUCCESS_WEIGHT = 0.2
    MERLIN_MIMIC = 0.5
    EARLY_FAIL = 0.5

    def __init__(self, seed: int | np.random.Generator | None = None) -> None:
        self._rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)

    # ------------------------------------------------------------------------------------------------ beliefs
    def beliefs(self, observation: np.ndarray) -> np.ndarray:
        """``P(Evil)`` per relative seat, ``float32`` ``(10,)``; ``NaN`` at 0 (me) and past the table (A01, A03)."""
        view = ObservationView(observation)
        out = np.full(MAX_PLAYERS, np.nan, dtype=np.float32)
        out[1:view.n] = evil_marginals(worlds(view, success_weight=self.SUCCESS_WEIGHT))[1:]
        return out

    # ------------------------------------------------------------------------------------------------ acting
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A legal action (``action_mask[action] == 1``).

        Raises:
            ValueError: for an all-zero mask.
        """
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("action_mask allows no action (all zeros); an agent is only asked to act when one is legal")
        phase = phase_of_observation(observation)
        view = ObservationView(observation)
        if phase is Phase.PROPOSE:
            action = self._propose(view)
        elif phase is Phase.VOTE:
            action = self._vote(view)
        elif phase is Phase.QUEST:
            action = self._quest(view) if action_mask[A.FAIL] else A.SUCCESS
        elif phase is Phase.ASSASSINATE:
            action = self._assassinate(view)
        elif phase is Phase.CLAIM:
            action = A.CLAIM_NONE
        else:
            action = -1
        if 0 <= action < len(action_mask) and action_mask[action]:
            return int(action)
        return int(self._rng.choice(legal))  # unreachable with a consistent observation and mask

    def _team_scores(self, v: ObservationView) -> tuple[np.ndarray, np.ndarray]:
        """The teams that hold the picks so far and their scores (lowest best), before the tie-breaking noise."""
        teams = _combos(v.n, v.team_size)
        teams = teams[teams[:, v.team].all(axis=1)]  # the picks so far (A06)
        public = team_evil_probability(worlds(v, private=False, success_weight=self.SUCCESS_WEIGHT), teams)
        with_me = teams[:, 0].astype(np.float64)
        if v.side == EVIL:
            evil_members = teams[:, v.known_evil].sum(axis=1)
            score = 10.0 * np.abs(evil_members - v.fails_needed[v.quest - 1]) + public
        elif v.role == Role.MERLIN:
            score = 10.0 * teams[:, v.seen].sum(axis=1) + public
        else:
            score = team_evil_probability(worlds(v, success_weight=self.SUCCESS_WEIGHT), teams)
        return teams, score - 1e-3 * with_me

    def _propose(self, v: ObservationView) -> int:
        teams, score = self._team_scores(v)
        score = score + 1e-6 * self._rng.random(len(teams))
        best = teams[int(np.argmin(score))]
        return A.pick_action(int(np.flatnonzero(best & ~v.team)[0]))

    def _good_vote(self, v: ObservationView, consistent: np.ndarray) -> bool:
        all_teams = _combos(v.n, v.team_size)
        p = float(team_evil_probability(consistent, v.team[None, :])[0])
        best = float(team_evil_probability(consistent, all_teams).min())
        return p < 1.0 - 1e-9 and p <= best + self.VOTE_SLACK + 1e-9

    def _vote(self, v: ObservationView) -> int:
        last = v.rejections >= 4  # A09: a fifth rejection ends the game for Evil
        if v.side == EVIL:
            has_evil = bool(v.team[v.known_evil].any())
            return A.APPROVE if has_evil else A.REJECT
        if last:
            return A.APPROVE
        if v.role != Role.MERLIN:
            return A.APPROVE if self._good_vote(v, worlds(v, success_weight=self.SUCCESS_WEIGHT)) else A.REJECT
        knows_evil = bool(v.team[v.seen].any())
        honest = not knows_evil
        public = self._good_vote(v, worlds(v, private=False, success_weight=self.SUCCESS_WEIGHT))
        if public != honest and not (knows_evil and v.failures + 1 >= v.failures_to_lose):
            if self._rng.random() < self.MERLIN_MIMIC:
                return A.APPROVE if public else A.REJECT
        return A.APPROVE if honest else A.REJECT

    def _quest(self, v: ObservationView) -> int:
        members = np.flatnonzero(v.team & v.known_evil)
        order = sorted(members, key=lambda s: (int(s) - v.leader) % v.n)
        need = v.fails_needed[v.quest - 1]
        if 0 not in order[:need]:
            return A.SUCCESS
        decisive = v.failures + 1 >= v.failures_to_lose or v.successes + 1 >= v.quests_to_win
        if v.quest == 1 and int(v.team.sum()) == 2 and not decisive:
            return A.FAIL if self._rng.random() < self.EARLY_FAIL else A.SUCCESS
        return A.FAIL

    def _assassinate(self, v: ObservationView) -> int:
        candidates, values = self._suspicion(v)
        values = values + 1e-6 * self._rng.random(len(candidates))
        return A.assassinate_action(int(candidates[int(np.argmax(values))]))

    def _suspicion(self, v: ObservationView) -> tuple[list[int], np.ndarray]:
        """The Assassin's candidates for Merlin and their scores (highest named), before the tie-breaking noise."""
        known = v.known_evil
        score = np.zeros(v.n)
        for p in v.proposals:
            has_evil = bool(p["team"][known].any())
            if p["votes"] is not None:
                agree = (p["votes"] == 0) if has_evil else (p["votes"] == 1)
                score += np.where(agree, 1.0, -1.0)
            score[p["leader"]] += -1.0 if has_evil else 1.0
        candidates = [s for s in range(1, v.n) if not known[s]] or list(range(1, v.n))
        return candidates, np.array([score[s] for s in candidates])

    # ----------------------------------------------------------------------------------- stated probabilities
    def action_probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The distribution :meth:`act` draws from, ``float64`` over the actions (so an exact evaluation reads it
        instead of sampling, :mod:`traitors_env.solve.exact`): its tie breaks uniform over the tied choices (scores
        within 1e-9), Merlin's mimicry and Evil's early Fail at their rates."""
        out = np.zeros(len(action_mask))
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("action_mask allows no action (all zeros); an agent is only asked to act when one is legal")
        phase = phase_of_observation(observation)
        v = ObservationView(observation)
        if phase is Phase.PROPOSE:
            teams, score = self._team_scores(v)
            for team in teams[score <= score.min() + 1e-9]:
                out[A.pick_action(int(np.flatnonzero(team & ~v.team)[0]))] += 1.0
        elif phase is Phase.VOTE:
            actions, weights = self._vote_distribution(v)
            out[actions] += weights
        elif phase is Phase.QUEST and action_mask[A.FAIL]:
            self._quest_probabilities(v, out)
        elif phase is Phase.QUEST:
            out[A.SUCCESS] = 1.0
        elif phase is Phase.ASSASSINATE:
            candidates, values = self._suspicion(v)
            for c, value in zip(candidates, values):
                if value >= values.max() - 1e-9:
                    out[A.assassinate_action(int(c))] += 1.0
        elif phase is Phase.CLAIM:
            out[A.CLAIM_NONE] = 1.0
        out /= max(out.sum(), 1e-300)
        if not out.any() or out[action_mask == 0].any():  # act's fallback: a uniform legal action
            out = np.zeros(len(action_mask))
            out[legal] = 1.0 / legal.size
        return out

    def _vote_distribution(self, v: ObservationView) -> tuple[list[int], list[float]]:
        """The votes :meth:`_vote` casts and their probabilities (Merlin's mimicry: two)."""
        if v.side == EVIL or v.rejections >= 4 or v.role != Role.MERLIN:
            return [self._vote(v)], [1.0]  # deterministic
        knows_evil = bool(v.team[v.seen].any())
        honest = not knows_evil
        public = self._good_vote(v, worlds(v, private=False, success_weight=self.SUCCESS_WEIGHT))
        vote = A.APPROVE if honest else A.REJECT
        if public != honest and not (knows_evil and v.failures + 1 >= v.failures_to_lose):
            mimic = A.APPROVE if public else A.REJECT
            return [vote, mimic], [1.0 - self.MERLIN_MIMIC, self.MERLIN_MIMIC]
        return [vote], [1.0]

    def _quest_probabilities(self, v: ObservationView, out: np.ndarray) -> None:
        members = np.flatnonzero(v.team & v.known_evil)
        order = sorted(members, key=lambda s: (int(s) - v.leader) % v.n)
        if 0 not in order[:v.fails_needed[v.quest - 1]]:
            out[A.SUCCESS] = 1.0
            return
        decisive = v.failures + 1 >= v.failures_to_lose or v.successes + 1 >= v.quests_to_win
        if v.quest == 1 and int(v.team.sum()) == 2 and not decisive:
            out[A.FAIL], out[A.SUCCESS] = self.EARLY_FAIL, 1.0 - self.EARLY_FAIL
        else:
            out[A.FAIL] = 1.0


#: The earlier name of the ``heuristic`` bot (kept so that imports keep working).
AvalonSimpleAgent = AvalonLogicBot
