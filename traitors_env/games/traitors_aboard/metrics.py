"""Hidden-role metrics from game records: deception, deduction and judgement, per team.

A record holds the seed and every action; the engine is deterministic, so :func:`tally_game` replays
the game through :class:`~traitors_env.games.traitors_aboard.engine.GameState` and reads, before each
decision, what the record alone does not hold: the true hand behind a hand claim, the cards a
Spyglass showed behind a chest-top claim, the roles of Plank and Empty Your Pockets targets, the
chest's value when it is opened. A tally is a :class:`collections.Counter` of integer counts per
team; counts add up over games (in any order, so results do not depend on the number of workers),
and the benchmark kit's :func:`traitors_env.evaluation.metrics.summarize` turns them into the metrics of
:data:`METRICS`, each with a 95 % interval. This module is the game's ``metrics`` capability
(``GAME.metrics``): :data:`METRICS`, :func:`tally_state` and :data:`PLOTTED`.

Definitions (also in docs/benchmark/index.md, "Hidden-role metrics"); "the agent" is the one playing the team:

| metric | definition | interval |
|---|---|---|
| ``win_rate`` | games won / games played | Wilson |
| ``loot_false_rate`` | loot placements announced as another value than the card's (R04) / loot placements | Wilson |
| ``announced_minus_true`` | mean of announced value − true value over loot placements | normal |
| ``claim_<kind>_share`` | claim steps (R14) with a claim of that kind / claim steps (kinds: none, hand, accuse, vouch, chest_top) | Wilson |
| ``hand_claim_truth`` | hand claims naming the claimer's true hand at that moment / hand claims | Wilson |
| ``accuse_truth`` | accusations ("X is a Mutineer") whose target is a Mutineer / accusations | Wilson |
| ``vouch_truth`` | vouches ("X is a Pirate", self included) whose target is a Pirate / vouches | Wilson |
| ``chest_top_claim_truth`` | chest-top claims naming the multiset the claimer's Spyglass showed / chest-top claims | Wilson |
| ``plank_precision`` | Planks played on a Mutineer / Planks played (R11); chance: ``plank_chance`` | Wilson |
| ``overboard_mutineer_share`` | players the agent's third Plank threw overboard who were Mutineers / such players | Wilson |
| ``eyp_on_mutineer`` | Empty Your Pockets played on a Mutineer / Empty Your Pockets played (R10); chance: ``eyp_chance`` | Wilson |
| ``chest_open_success`` | chest openings with value ≥ target / chest openings (Pirates only, R03) | Wilson |
| ``chest_margin_at_open`` | mean of chest value − target at the opening | normal |

Wilson: the 95 % Wilson score interval; normal: mean ± 1.96 standard errors. ``count`` is the
denominator (placements, claims, Planks, openings …). Accusations and vouches measure deduction for
a Pirate and deception for a Mutineer (a Mutineer's true accusation names a fellow Mutineer).

**Chance, per decision.** A Plank (R11) and an Empty Your Pockets (R10) target "another player still aboard", so a
player choosing uniformly among the legal targets hits a Mutineer with probability *the share of Mutineers among
the other seats aboard* at that decision (Mutineers aboard other than the player / players aboard other than the
player). :func:`tally_game` adds that probability of every such decision, as an exact
:class:`fractions.Fraction`, under ``plank_chance`` and ``eyp_chance``: over the metric's count it is the chance
precision the agent's own decisions faced (a metric's ``chance`` field names it; the kit reports value / chance).
Pooling the shares of the table (e.g. 1/4 at 5 players) instead would be wrong: Planks fall late, when overboard
seats have changed the share.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from . import actions as A
from .cards import LOOT_VALUES, PLANKS_TO_OVERBOARD, Role
from .engine import GameConfig, GameState, IllegalActionError, Phase
from .small import deal, variant

__all__ = ["METRICS", "PLOTTED", "SUMMARY", "TEAMS", "Metric", "target_chance", "tally_game", "tally_record",
           "tally_state"]

#: The team keys of tallies and reports, by :class:`Role`.
TEAMS = {Role.PIRATE: "pirates", Role.MUTINEER: "mutineers"}
CLAIM_KINDS = ("none", "hand", "accuse", "vouch", "chest_top")


@dataclass(frozen=True)
class Metric:
    """A metric from tally counts: a rate ``numerator / denominator`` or a mean ``total / denominator``."""

    name: str
    kind: str  # "rate" (Wilson interval) or "mean" (normal interval; needs <total>_sq)
    numerator: str  # count key (rate) or sum key (mean)
    denominator: str
    group: str  # outcome, deception, deduction, judgement
    description: str
    #: The tally key of the summed per-decision chance of the numerator's event (a uniformly random legal target's),
    #: or ``None``: value / chance is what the agent's choices add over chance.
    chance: str | None = None


METRICS: tuple[Metric, ...] = (
    Metric("win_rate", "rate", "wins", "games", "outcome", "games won / games played"),
    Metric("loot_false_rate", "rate", "loot_false", "loot", "deception", "loot announced as another value / loot placed"),
    Metric("announced_minus_true", "mean", "loot_excess", "loot", "deception", "mean announced − true loot value"),
    *(
        Metric(f"claim_{kind}_share", "rate", f"claim_{kind}", "claim_steps", "deception", f"claim steps with a {kind} claim / claim steps")
        for kind in CLAIM_KINDS
    ),
    Metric("hand_claim_truth", "rate", "hand_true", "claim_hand", "deception", "hand claims naming the true hand / hand claims"),
    Metric("accuse_truth", "rate", "accuse_true", "claim_accuse", "deduction", "accusations of a Mutineer / accusations"),
    Metric("vouch_truth", "rate", "vouch_true", "claim_vouch", "deduction", "vouches for a Pirate / vouches"),
    Metric(
        "chest_top_claim_truth", "rate", "chest_top_true", "claim_chest_top", "deception",
        "chest-top claims naming the cards the Spyglass showed / chest-top claims",
    ),
    Metric("plank_precision", "rate", "plank_on_mutineer", "plank", "deduction", "Planks on a Mutineer / Planks",
           chance="plank_chance"),
    Metric(
        "overboard_mutineer_share", "rate", "overboard_mutineer", "overboard", "deduction",
        "players thrown overboard by the agent's Plank who were Mutineers / such players",
    ),
    Metric("eyp_on_mutineer", "rate", "eyp_on_mutineer", "eyp", "deduction", "Empty Your Pockets on a Mutineer / played",
           chance="eyp_chance"),
    Metric("chest_open_success", "rate", "open_won", "open", "judgement", "openings with value ≥ target / openings"),
    Metric("chest_margin_at_open", "mean", "open_margin", "open", "judgement", "mean chest value − target at opening"),
)


#: The metrics drawn in the kit's metrics.png (a rate each, so they share the 0–1 axis).
PLOTTED = ("win_rate", "loot_false_rate", "hand_claim_truth", "accuse_truth", "vouch_truth",
           "plank_precision", "eyp_on_mutineer", "chest_open_success")

#: The metrics of the kit's per-agent summary table (report.md "Summary", report.json ``summary``): deduction
#: against chance, then the truth of what the agent claims.
SUMMARY = ("plank_precision", "hand_claim_truth", "accuse_truth", "vouch_truth", "chest_top_claim_truth")


def target_chance(state: GameState, seat: int) -> Fraction:
    """The probability that a uniformly random legal target of ``seat``'s Plank or Empty Your Pockets is a Mutineer:
    the Mutineers among the other seats still aboard over those seats (R10, R11: "another player still aboard").

    Raises:
        ValueError: if no other seat is aboard (R13: the game ends before that).
    """
    others = [s for s in range(state.num_players) if s != seat and state.aboard[s]]
    if not others:
        raise ValueError(f"seat {seat} has no other seat aboard to target (R13: the game has ended)")
    return Fraction(sum(state.roles[s] == Role.MUTINEER for s in others), len(others))


def tally_game(
    num_players: int, claims: bool, seed: int, history: Iterable[tuple[int, int]], first_player: int | None = None,
    small_variant: str | None = None,
) -> dict[str, Counter]:
    """Replay a seeded game and count, per team, what the metrics need.

    Args:
        num_players, claims, first_player: the game's options (:class:`GameConfig`).
        seed: the deal seed (``GameState.new(config, seed=seed)``).
        history: ``(seat, action)`` per decision, in order (``GameState.history``).
        small_variant: the small variant the game was dealt from (:func:`.small.deal`), else ``None``.

    Returns:
        ``{"pirates": Counter, "mutineers": Counter}`` of integer counts (keys as in :data:`METRICS`, plus
        ``<mean key>_sq`` sums of squares) and the exact chance sums ``plank_chance``, ``eyp_chance``
        (:class:`~fractions.Fraction`, see the module doc); a game that has not ended counts no ``games``/``wins``.

    Raises:
        ValueError: if a decision is out of turn or illegal in the replay (the message names the step).
    """
    if small_variant is None:
        state = GameState.new(GameConfig(num_players=num_players, claims=claims, first_player=first_player), seed=seed)
    else:
        state = deal(variant(small_variant), seed, claims=claims)
    roles = state.roles
    tallies = {team: Counter() for team in TEAMS.values()}
    target = state.setup.target
    seen: tuple[int, ...] | None = None  # the kinds the current turn's Spyglass showed (sorted)
    for step, (seat, action) in enumerate(history, start=1):
        if seat != state.current_player:
            raise ValueError(f"step {step}: player_{seat} acts, but the replay asks player_{state.current_player}")
        c = tallies[TEAMS[roles[seat]]]
        phase = state.phase
        if phase is Phase.MAIN:
            seen = None
            if A.LOOT_BASE <= action <= A.PLANK_BASE:
                card, announced = divmod(action - A.LOOT_BASE, 3)
                excess = LOOT_VALUES[announced] - LOOT_VALUES[card]
                c["loot"] += 1
                c["loot_false"] += card != announced
                c["loot_excess"] += excess
                c["loot_excess_sq"] += excess * excess
            elif A.PLANK_BASE < action <= A.EYP_BASE:
                victim = (seat + action - A.PLANK_BASE) % num_players
                mutineer = roles[victim] == Role.MUTINEER
                c["plank"] += 1
                c["plank_on_mutineer"] += mutineer
                c["plank_chance"] += target_chance(state, seat)
                if state.planks[victim] == PLANKS_TO_OVERBOARD - 1:  # this Plank throws them overboard (R11)
                    c["overboard"] += 1
                    c["overboard_mutineer"] += mutineer
            elif A.EYP_BASE < action < A.GOOD_RIDDANCE:
                victim = (seat + action - A.EYP_BASE) % num_players
                c["eyp"] += 1
                c["eyp_on_mutineer"] += roles[victim] == Role.MUTINEER
                c["eyp_chance"] += target_chance(state, seat)
            elif action == A.OPEN_CHEST:
                margin = state.chest_value() - target
                c["open"] += 1
                c["open_won"] += margin >= 0
                c["open_margin"] += margin
                c["open_margin_sq"] += margin * margin
            elif action == A.SPYGLASS:
                taken = min(3, len(state.chest))  # R07: the cards it shows
                seen = tuple(sorted(card.kind for card in state.chest[len(state.chest) - taken :]))
        elif phase is Phase.CLAIM:
            c["claim_steps"] += 1
            if action == A.CLAIM_NONE:
                c["claim_none"] += 1
            elif action < A.CLAIM_VOUCH_BASE:
                c["claim_accuse"] += 1
                c["accuse_true"] += roles[(seat + action - A.CLAIM_ACCUSE_BASE) % num_players] == Role.MUTINEER
            elif action < A.CLAIM_HAND_BASE:
                c["claim_vouch"] += 1
                c["vouch_true"] += roles[(seat + action - A.CLAIM_VOUCH_BASE) % num_players] == Role.PIRATE
            elif action < A.CLAIM_CHEST_BASE:
                hand = tuple(kind for kind, count in enumerate(state.hands[seat]) for _ in range(count))
                c["claim_hand"] += 1
                c["hand_true"] += A.HAND_MULTISETS[action - A.CLAIM_HAND_BASE] == hand
            else:
                c["claim_chest_top"] += 1
                c["chest_top_true"] += A.CHEST_MULTISETS[action - A.CLAIM_CHEST_BASE] == seen
        try:
            state.apply_action(action)
        except IllegalActionError as error:
            raise ValueError(f"step {step}: {error}") from None
    if state.is_terminal:
        for role, team in TEAMS.items():
            tallies[team]["games"] += 1
            tallies[team]["wins"] += state.winner == role
    return tallies


def tally_record(record) -> dict[str, Counter]:
    """:func:`tally_game` of a :class:`~traitors_env.games.traitors_aboard.records.GameRecord` (or a path/JSON/dict).

    The replay uses the record's seed, options and actions; a finished record's result must match the
    replay's winner.

    Raises:
        RecordError: for an unreadable record, a decision the engine refuses, or another winner.
    """
    from .records import GameRecord, RecordError, load_record

    if not isinstance(record, GameRecord):
        record = load_record(record)
    history = []
    for decision in record.decisions:
        if not decision.agent.startswith("player_") or not decision.agent[7:].isdigit():
            raise RecordError(f"step {decision.step}: agent {decision.agent!r} is not a seat name player_<k>")
        history.append((int(decision.agent[7:]), decision.action))
    try:
        tallies = tally_game(
            record.num_players, record.options.claims, record.seed, history, record.options.first_player
        )
    except ValueError as error:
        raise RecordError(f"the record does not replay: {error}") from None
    if record.result is not None:
        won = "pirates" if tallies["pirates"]["wins"] else "mutineers" if tallies["mutineers"]["wins"] else None
        if won is None or won[:-1] != record.result["winner"].lower():
            raise RecordError(f"the record's winner {record.result['winner']!r} differs from the replay's ({won})")
    return tallies


def tally_state(state: GameState, seed: int) -> dict[str, Counter]:
    """:func:`tally_game` of a game played from ``GameState.new(state.config, seed=seed)``, or from the small
    variant's deal that the state records (the kit's finished games).

    Raises:
        ValueError: if ``state``'s history does not replay from ``seed``.
    """
    config = state.config
    return tally_game(config.num_players, config.claims, seed, state.history, config.first_player, state.small_variant)
