"""The Traitors in words for language-model agents (``GAME.text``; the protocol of :mod:`traitors_env.core.text`).

Everything here reads one seat's observation (:mod:`.observation`), never the engine's state: its role, its
Shields and Daggers, as Traitor this round's assignment (T06), and the public record: gold, the pot, signals (T07),
claims (T08), votes once revealed (T09), Round Table losses, Armoury draws as far as public (T11), the Nights (T12)
and the End Game (T13–T16). Seats are named relative to the reader, as the observation and the actions are: *you*
are seat 0, *seat 1* the next seat, *seat n-1* the previous one; so ``vote for seat 2`` names the player two seats
on.

Canonical action texts (:func:`action_text`): ``do not attempt the secret assignment``, ``attempt the secret
assignment``, ``claim: nothing``, ``claim: I suspect seat 2``, ``claim: I am Faithful``, ``claim: seat 3 is
Faithful``, ``vote for seat 2``, ``vote for seat 2 with a Dagger``, ``no murder``, ``murder seat 1``, ``murder
myself``, ``statement: none``, ``statement: I will write Faithful``, ``statement: I will write Traitor``, ``write
Faithful``, ``write Traitor``.

Events (:func:`events`) are the entries of the public record (:func:`record`) that a seat's observation holds and
its previous one did not, in the order of the game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import actions as A
from .cards import BANISH_LOSS, MIN_PLAYERS, MURDER_LOSS, NUM_ROUNDS, Role
from .engine import END_GAME_ROUND, Phase
from .observation import MAX_PLAYERS, OFFSETS, piece, seat_feature

__all__ = ["action_text", "action_texts", "conventions", "decision_kind", "decision_text", "events", "num_players", "private_text",
           "record", "same_game", "state_text"]

_STATEMENT = ("none", "I will write Faithful", "I will write Traitor")

PHASE_TEXT = {
    Phase.CLAIM: "Round Table: your one public claim (it may be false, T08).",
    Phase.VOTE: f"Round Table: name another player in your secret vote; all votes are revealed together and the most "
                f"named loses {BANISH_LOSS} gold (T09). A Dagger makes your vote count twice and is then shown.",
    Phase.NIGHT: f"Night: point the dagger (T12). The Traitor, after a successful assignment, may murder: the victim "
                 f"loses {MURDER_LOSS} gold unless a Shield saves them; everyone else can only choose no murder.",
    Phase.STATEMENT: "Final: your public statement of what you will write (T15).",
    Phase.FINAL: "Final: secretly write Faithful or Traitor (T15). Both finalists Faithful: they share the pot; one "
                 "Traitor: that finalist takes it all; both Traitor: the third-placed player wins.",
}


def seat(relative: int) -> str:
    """The name of the seat ``relative`` places on from the reader: ``you`` for 0, else ``seat k``."""
    return "you" if relative == 0 else f"seat {relative}"


def _seats(relatives) -> str:
    return ", ".join(seat(r) for r in relatives) or "nobody"


def _one_hot(values: np.ndarray) -> int | None:
    hits = np.flatnonzero(np.asarray(values) > 0.5)
    return int(hits[0]) if hits.size else None


@dataclass(frozen=True)
class _View:
    """The parts of an observation the text reads (seats relative to the reader)."""

    role: Role
    phase: Phase | None
    num_players: int
    round: int  # 1–4, or END_GAME_ROUND
    pot: int
    deck: int
    own: tuple[int, int]  # Shields, Daggers
    attempted: bool
    succeeded: bool
    seats: np.ndarray  # (n, features)
    obs: np.ndarray


def _view(observation: np.ndarray) -> _View:
    obs = np.asarray(observation, dtype=np.float32)
    n = _one_hot(piece(obs, "num_players")) + MIN_PLAYERS
    phase = _one_hot(piece(obs, "phase"))
    return _View(
        role=Role(_one_hot(piece(obs, "role"))),
        phase=None if phase is None else Phase(phase),
        num_players=n,
        round=_one_hot(piece(obs, "round")) + 1,
        pot=int(obs[OFFSETS["prize_pot"]]),
        deck=int(obs[OFFSETS["deck_size"]]),
        own=tuple(int(x) for x in piece(obs, "own_cards")),
        attempted=bool(piece(obs, "own_assignment")[0] > 0.5),
        succeeded=bool(piece(obs, "own_assignment")[1] > 0.5),
        seats=np.rint(piece(obs, "seats")[:n]).astype(int),
        obs=obs,
    )


def _feature(name: str) -> int:
    return seat_feature(name)


# ------------------------------------------------------------------------------------------------ actions
def action_text(action: int) -> str:
    """The canonical text of ``action``; seats relative to the actor (``seat k``: k seats on).

    Raises:
        ValueError: if ``action`` is not in ``range(NUM_ACTIONS)``.
    """
    group, k = A.group_of(action)
    if group.name == "STATEMENT":
        return f"statement: {_STATEMENT[k]}"
    return A.describe_action(action).replace("seat +", "seat ")


def action_texts(observation: np.ndarray, legal: Sequence[int]) -> list[str]:
    """The canonical text of each legal action (:func:`action_text`)."""
    return [action_text(a) for a in legal]


# ------------------------------------------------------------------------------------------------ the seat's view
def conventions(num_players: int | None = None) -> str:
    """How the text names seats (for the system prompt)."""
    last = f"seat {num_players - 1}" if num_players else "the last seat"
    return (f"Seats are named from where you sit: you are seat 0 (\"you\"); seat 1 is the next seat, seat 2 the one "
            f"after it, and so on; {last} is the seat before you. So \"vote for seat 2\" names the player two seats "
            "on. Every player is asked at every Mission and Night, so being asked reveals nothing.")


def num_players(observation: np.ndarray) -> int:
    """The table size the observation shows."""
    return _view(observation).num_players


def private_text(observation: np.ndarray) -> str:
    """The seat's role and what it wants (T02, T15, T16): shown at its first decision."""
    view = _view(observation)
    if view.role == Role.TRAITOR:
        return ("You are the Traitor. Nobody knows it until the End Game: attempt secret assignments without "
                "looking suspicious, murder after a success, avoid the votes, reach the Final and take the pot "
                "(T06, T12, T15).")
    return ("You are Faithful. One other player is the secret Traitor and you do not know who: read the signals, "
            "claims and votes, vote for the Traitor (it pays at the End Game, T13) and reach the Final with another "
            "Faithful player (T15).")


def record(observation: np.ndarray) -> list[str]:
    """The public record as the seat's observation holds it, in the order of the game, one entry a line: missions,
    signals, claims, revealed votes, Round Table losses, Armoury draws, Nights, the End Game and the Final."""
    view = _view(observation)
    obs, n = view.obs, view.num_players
    mission = piece(obs, "mission_gold")
    signals, claims, votes = piece(obs, "signals"), piece(obs, "claims"), piece(obs, "votes")
    banished, armoury, night = piece(obs, "banished"), piece(obs, "armoury"), piece(obs, "night")
    entries = []
    for i in range(min(view.round, NUM_ROUNDS)):
        r = i + 1
        if mission[i] > 0:
            entries.append(f"Round {r}: the mission adds {int(mission[i])} gold to the prize pot (T05)")
        if np.any(signals[i, :n]):
            suspicious = [s for s in range(n) if signals[i, s, 0] > 0.5]
            clear = [s for s in range(n) if signals[i, s, 1] > 0.5]
            entries.append(f"Round {r} signals (T07): suspicious: {_seats(suspicious)}; clear: {_seats(clear)}")
        for claimant in range(n):
            row = claims[i, claimant]
            if not np.any(row):
                continue
            who = seat(claimant)
            if row[0] > 0.5:
                entries.append(f"Round {r}: {who} {'make' if claimant == 0 else 'makes'} no claim")
            elif (t := _one_hot(row[1:1 + MAX_PLAYERS])) is not None:
                entries.append(f"Round {r}: {who} {'claim' if claimant == 0 else 'claims'}: I suspect {seat(t)}")
            else:
                t = _one_hot(row[1 + MAX_PLAYERS:])
                said = "I am Faithful" if t == claimant else f"{seat(t)} {'are' if t == 0 else 'is'} Faithful"
                entries.append(f"Round {r}: {who} {'claim' if claimant == 0 else 'claims'}: {said}")
        if np.any(votes[i, :n, :n]):
            cast = [f"{seat(v)} → {seat(t)}" + (" (Dagger)" if votes[i, v, t] > 1.5 else "")
                    for v in range(n) for t in range(n) if votes[i, v, t] > 0.5]
            entries.append(f"Round {r} votes, revealed together (T09): " + ", ".join(cast))
        lost = [(s, int(banished[i, s])) for s in range(n) if banished[i, s] > 0]
        if lost:
            entries.append(f"Round {r}: " + ", ".join(f"{seat(s)} {'lose' if s == 0 else 'loses'} {g} gold"
                                                       for s, g in lost) + " for the most votes (T09)")
        for s in range(n):
            drew = _one_hot(armoury[i, s])
            if drew is not None:
                words = ("draws a secret card (a Shield or a Dagger)", "draws 1 gold", "draws 2 gold",
                         "draws nothing: the deck is empty")[drew]
                if s == 0:
                    words = words.replace("draws", "draw")
                entries.append(f"Round {r}: {seat(s)} {'win' if s == 0 else 'wins'} the Armoury and {words} (T11)")
        if np.any(night[i]):
            victim = _one_hot(night[i, :MAX_PLAYERS])
            if victim is None:
                entries.append(f"Round {r} Night: no murder (T12)")
            else:
                saved = night[i, MAX_PLAYERS] > 0.5
                entries.append(f"Round {r} Night: {seat(victim)} {'are' if victim == 0 else 'is'} murdered"
                               + (", but a Shield saves them" if saved else f" and {'lose' if victim == 0 else 'loses'}"
                                  f" {MURDER_LOSS} gold") + " (T12)")
    if view.round == END_GAME_ROUND:
        rows = view.seats
        traitor = [s for s in range(n) if rows[s, _feature("revealed Traitor (End Game, T13)")]]
        entries.append(f"End Game: the Traitor is revealed: {_seats(traitor)} (T13)")
        gained = piece(obs, "end_game_gold")[:n]
        scoring = [f"{seat(s)} +{int(gained[s])}" for s in range(n) if gained[s] > 0]
        entries.append("End Game scoring (T13): " + (", ".join(scoring) or "nobody gains gold"))
        finalists = [s for s in range(n) if rows[s, _feature("finalist (T14)")]]
        third = [s for s in range(n) if rows[s, _feature("third place (T14)")]]
        entries.append(f"Finalists (T14): {_seats(finalists)}; third place: {_seats(third)}")
        first = _feature("statement: none")
        for s in finalists:
            said = _one_hot(rows[s, first:first + 3])
            if said is not None:
                entries.append(f"Final: {seat(s)} {'state' if s == 0 else 'states'}: {_STATEMENT[said]} (T15)")
        first = _feature("Final choice revealed: Faithful")
        for s in finalists:
            wrote = _one_hot(rows[s, first:first + 2])
            if wrote is not None:
                entries.append(f"Final: {seat(s)} wrote {('Faithful', 'Traitor')[wrote]} (T15)")
    return entries


def state_text(observation: np.ndarray) -> str:
    """The table as the seat knows it: the round, the pot, each seat's public row, its own cards and assignment.
    The public record is told as events (:func:`events`): all of it at a first decision, then what is new."""
    view = _view(observation)
    n = view.num_players
    where = "the End Game" if view.round == END_GAME_ROUND else f"round {view.round} of {NUM_ROUNDS}"
    lines = [f"{n} players; {where}; prize pot {view.pot} gold; {view.deck} reward cards left in the deck."]
    f = _feature
    for s in range(n):
        row = view.seats[s]
        name = f"seat 0 (you, {'the Traitor' if view.role == Role.TRAITOR else 'Faithful'})" if s == 0 else f"seat {s}"
        facts = [f"{row[f('personal gold (T03)')]} gold"]
        if view.round != END_GAME_ROUND and not row[f("takes part in this round's Round Table (T10)")]:
            facts.append("sits out this Round Table (murdered last Night, T10)")
        held = row[f("Shields and Daggers held, as far as public (drawn minus shown, T11)")]
        if held and s:
            facts.append(f"holds {held} secret card{'s' if held > 1 else ''} (Shield or Dagger)")
        for feature, words in (("Shields shown (T12)", "Shield shown"), ("Daggers shown (T09)", "Dagger shown"),
                               ("times murdered, not saved (T12)", "murdered"),
                               ("times saved by a Shield (T12)", "saved by a Shield")):
            if row[f(feature)]:
                facts.append(f"{words} ×{row[f(feature)]}")
        if row[f("revealed Traitor (End Game, T13)")]:
            facts.append("revealed Traitor")
        if row[f("finalist (T14)")]:
            facts.append("finalist")
        if row[f("third place (T14)")]:
            facts.append("third place")
        if row[f("winner")]:
            facts.append("winner")
        lines.append(f"- {name}: " + "; ".join(facts))
    shields, daggers = view.own
    lines.append(f"Your secret cards: {shields} Shield{'s' if shields != 1 else ''}, {daggers} "
                 f"Dagger{'s' if daggers != 1 else ''}.")
    if view.role == Role.TRAITOR and view.round != END_GAME_ROUND:
        assignment = ("attempted and succeeded" if view.succeeded else "attempted and failed") if view.attempted \
            else "not attempted"
        lines.append(f"Your secret assignment this round (T06): {assignment}.")
    return "\n".join(lines)


def decision_text(observation: np.ndarray, legal: Sequence[int]) -> str:
    """The decision asked in words."""
    view = _view(observation)
    if view.phase is Phase.MISSION:
        if view.role == Role.TRAITOR:
            return ("Mission (T06): attempt this round's secret assignment or not. Attempting makes your signal "
                    "suspicious more often (T07); a success lets you murder tonight (T12).")
        return "Mission (T06): every player is asked; as Faithful you cannot attempt the assignment."
    return PHASE_TEXT.get(view.phase, "Your decision.")


def decision_kind(observation: np.ndarray) -> str:
    """The kind of decision asked: its phase (mission, claim, vote, night, statement, final)."""
    phase = _view(observation).phase
    return "no decision" if phase is None else phase.name.lower()


def events(previous: np.ndarray | None, current: np.ndarray) -> list[str]:
    """The entries of the public record (:func:`record`) that ``current`` holds and ``previous`` did not
    (``previous`` ``None``: all of them)."""
    before = set(record(previous)) if previous is not None else set()
    return [entry for entry in record(current) if entry not in before]


def same_game(previous: np.ndarray, current: np.ndarray) -> bool:
    """Whether ``current`` follows ``previous`` in one game of the seat: the same table and role, and a later
    (round, phase): a seat is asked at most once per phase of a round, and a game's first decision is round 1's
    Mission, which follows nothing."""
    before, now = _view(previous), _view(current)
    if (before.num_players, before.role) != (now.num_players, now.role):
        return False
    later = (now.round, -1 if now.phase is None else int(now.phase))
    return later > (before.round, -1 if before.phase is None else int(before.phase))

