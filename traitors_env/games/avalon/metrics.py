"""Hidden-role metrics of *Avalon* from finished games: team selection, votes, fail timing, the assassination.

This module is the game's ``metrics`` capability (``GAME.metrics``): :data:`METRICS`, :func:`tally_state` and
:data:`PLOTTED`, read by the benchmark kit (:mod:`traitors_env.evaluation.metrics`), which sums the tallies over
games and gives each metric a 95 % interval. A finished :class:`~traitors_env.games.avalon.engine.GameState` holds
everything a metric needs (the deal, every proposal and revealed vote, who played which card), so a tally reads it
directly; the seed is not replayed. A tally is ``{"good": Counter, "evil": Counter}`` of integer counts: the
counts of the seats of that side, credited by the kit to the agent that played the side.

| metric | side | definition | interval |
|---|---|---|---|
| ``win_rate`` | both | games won / games played | Wilson |
| ``team_precision`` | Good | approved teams with no Evil member / approved teams (A08; the table's selection, as DeepRole's analyses count it) | Wilson |
| ``proposal_precision`` | Good | teams proposed by a Good leader with no Evil member / such proposals (A06) | Wilson |
| ``vote_accuracy`` | Good | Good votes that approve a team without Evil or reject one with Evil / Good votes (A07) | Wilson |
| ``evil_team_rejection`` | Good | Good votes rejecting a team with Evil / Good votes on such teams | Wilson |
| ``assassin_hit_rate`` | Evil | assassinations naming Merlin / assassinations (A14); chance: ``assassin_chance`` | Wilson |
| ``fail_rate`` | Evil | Fails played by Evil members / quest cards Evil members played (A10) | Wilson |
| ``fail_rate_q<k>`` | Evil | the same on quest ``k`` (1–5): Evil's fail timing | Wilson |
| ``first_fail_quest`` | Evil | mean quest number (1–5) of the first failed quest, over games with a failed quest (A11) | normal |
| ``end_<outcome>`` | both | games ending so / games (outcomes: ``three_fails``, ``five_rejections``, ``merlin_assassinated``, ``merlin_survived``, ``three_successes``; A09, A13, A14) | Wilson |

Wilson: the 95 % Wilson score interval; normal: mean ± 1.96 standard errors. ``count`` is the denominator.

Chance (the kit's summary reports value / chance): any seat other than the Assassin is a legal target (A14), so
a uniformly random assassination names Merlin with probability ``1 / (n − 1)``; ``assassin_chance`` sums it per
assassination, as an exact :class:`fractions.Fraction`. :data:`SUMMARY` lists the kit's summary columns.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

from .engine import OUTCOMES, GameState
from .roles import EVIL, GOOD, NUM_QUESTS, Role

__all__ = ["METRICS", "PLOTTED", "SIDES", "SUMMARY", "Metric", "tally_state"]

#: Side index → the side key of tallies and reports (``GameType.sides``).
SIDES = {GOOD: "good", EVIL: "evil"}


@dataclass(frozen=True)
class Metric:
    """A metric from tally counts: a rate ``numerator / denominator`` or a mean ``total / denominator``."""

    name: str
    kind: str  # "rate" (Wilson interval) or "mean" (normal interval; needs <total>_sq)
    numerator: str
    denominator: str
    group: str  # outcome, judgement, deduction, deception
    description: str
    #: The tally key of the summed per-decision chance of the numerator's event, or ``None``.
    chance: str | None = None


METRICS: tuple[Metric, ...] = (
    Metric("win_rate", "rate", "wins", "games", "outcome", "games won / games played"),
    Metric("team_precision", "rate", "approved_clean", "approved", "judgement",
           "approved teams with no Evil member / approved teams"),
    Metric("proposal_precision", "rate", "proposed_clean", "proposed", "judgement",
           "teams proposed by a Good leader with no Evil member / such proposals"),
    Metric("vote_accuracy", "rate", "votes_right", "votes", "deduction",
           "Good votes approving a team without Evil or rejecting one with Evil / Good votes"),
    Metric("evil_team_rejection", "rate", "rejected_evil", "votes_on_evil", "deduction",
           "Good votes rejecting a team with Evil / Good votes on such teams"),
    Metric("assassin_hit_rate", "rate", "assassin_hits", "assassinations", "deduction",
           "assassinations naming Merlin / assassinations", chance="assassin_chance"),
    Metric("fail_rate", "rate", "fails", "cards", "deception", "Fails Evil played / quest cards Evil played"),
    *(Metric(f"fail_rate_q{q}", "rate", f"fails_q{q}", f"cards_q{q}", "deception",
             f"Fails Evil played on quest {q} / quest cards Evil played on quest {q}") for q in range(1, NUM_QUESTS + 1)),
    Metric("first_fail_quest", "mean", "first_fail", "failed_games", "deception",
           "mean quest number of the first failed quest, over games with one"),
    *(Metric(f"end_{outcome}", "rate", f"end_{outcome}", "games", "outcome", f"games ending with {outcome} / games")
      for outcome in OUTCOMES),
)

#: The metrics drawn in the kit's metrics.png (rates, on one 0–1 axis).
PLOTTED = ("win_rate", "team_precision", "proposal_precision", "vote_accuracy", "assassin_hit_rate", "fail_rate")

#: The metrics of the kit's per-agent summary table (report.md "Summary", report.json ``summary``).
SUMMARY = ("team_precision", "vote_accuracy", "assassin_hit_rate", "fail_rate")


def tally_state(state: GameState, seed: int | None = None) -> dict[str, Counter]:
    """The counts of one finished game, per side key (see the module doc).

    Args:
        state: a finished game (``state.is_terminal``); seed: the deal seed the kit passes (unused: the finished
            state holds everything the metrics read).

    Returns:
        ``{"good": Counter, "evil": Counter}`` of integer counts (keys as in :data:`METRICS`, plus
        ``first_fail_sq``).

    Raises:
        ValueError: if the game is not over.
    """
    if not state.is_terminal:
        raise ValueError(f"tally_state needs a finished game; this one is in phase {state.phase.name}")
    sides = state.sides
    tallies = {key: Counter() for key in SIDES.values()}
    good, evil = tallies["good"], tallies["evil"]
    for side, key in SIDES.items():
        c = tallies[key]
        c["games"] += 1
        c["wins"] += state.winning_side == side
        c[f"end_{state.outcome}"] += 1
    for proposal in state.proposals:
        has_evil = any(sides[s] == EVIL for s in proposal.team)
        if sides[proposal.leader] == GOOD:
            good["proposed"] += 1
            good["proposed_clean"] += not has_evil
        if proposal.votes is None:
            continue
        if proposal.approved:
            good["approved"] += 1
            good["approved_clean"] += not has_evil
        for seat, approve in enumerate(proposal.votes):
            if sides[seat] != GOOD:
                continue
            good["votes"] += 1
            good["votes_right"] += approve != has_evil
            if has_evil:
                good["votes_on_evil"] += 1
                good["rejected_evil"] += not approve
    for result, cards in zip(state.quests, state.played_cards):
        for seat, fail in cards.items():
            if sides[seat] == EVIL:
                evil["cards"] += 1
                evil["fails"] += fail
                evil[f"cards_q{result.quest}"] += 1
                evil[f"fails_q{result.quest}"] += fail
    first = next((r.quest for r in state.quests if not r.success), None)
    if first is not None:
        evil["failed_games"] += 1
        evil["first_fail"] += first
        evil["first_fail_sq"] += first * first
    if state.assassin_target is not None:
        evil["assassinations"] += 1
        evil["assassin_hits"] += state.roles[state.assassin_target] == Role.MERLIN
        evil["assassin_chance"] += Fraction(1, state.num_players - 1)  # A14: any seat but the Assassin's
    return tallies
