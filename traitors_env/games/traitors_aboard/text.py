"""Traitors Aboard in words for language-model agents (``GAME.text``; the protocol of :mod:`traitors_env.core.text`).

Everything here reads one seat's observation (:func:`~traitors_env.games.traitors_aboard.observation.decode`),
never the engine's state: the seat's role and hand, the table as public (aboard, Planks, revealed roles, loot
placed and announced, action cards played and at whom, R10, R11), the chest as announced with the values the
seat knows (its own placements and Spyglass, R07), the latest claims (R16) and the draw-pile cards it returned
(R09). Seats are named relative to the reader, as the observation and the actions are: *you* are seat 0,
*seat 1* plays after you (to your left, R02), *seat n-1* just before you; so ``plank seat 3`` is a Plank for the
player three seats to your left.

Canonical action texts (:func:`action_text`): ``open the chest``, ``place -2 announce +1``, ``plank seat 3``,
``empty pockets of seat 2``, ``play Good Riddance``, ``play Spyglass``, ``play Miraculous Catch``, ``put back top
first: #2 (+1), #1 (-2), #3 (0)``, ``return Plank to the draw pile``, ``claim: nothing``, ``claim: seat 2 is a
Mutineer``, ``claim: I am a Pirate``, ``claim: seat 4 is a Pirate``, ``claim: my hand is +1, 0, Plank``, ``claim: the
top of the chest is +1, -2``.

Events (:func:`events`) are what changed between two observations of the seat, in the words ``traitors-replay``
uses (:func:`traitors_env.games.traitors_aboard.actions.public_description`), in seat order from seat 1: a seat
whose claim repeats its previous one of the same kind shows nothing new (the observation keeps each seat's latest
claim of each kind, R16).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import actions as A
from .cards import CARD_NAMES, HAND_SIZE, PLANKS_TO_OVERBOARD, ROLE_NAMES, CardKind, Role
from .engine import Phase
from .observation import DecodedObservation, decode

__all__ = ["action_text", "action_texts", "conventions", "decision_kind", "decision_text", "events", "num_players", "private_text",
           "same_game", "state_text"]

LOOT = ("+1", "0", "-2")
#: A hand card's short name in claims and hands: loot by its value, action cards by name.
CARD_WORD = {CardKind(k): (LOOT[k] if k < 3 else CARD_NAMES[CardKind(k)]) for k in range(len(CardKind))}
_ACTION_CARDS = (CardKind.PLANK, CardKind.GOOD_RIDDANCE, CardKind.SPYGLASS, CardKind.MIRACULOUS_CATCH,
                 CardKind.EMPTY_YOUR_POCKETS)

#: The decision asked, per phase (the main turn's options are named from the legal actions).
PHASE_TEXT = {
    Phase.SPYGLASS_ORDER: "Spyglass: put the cards you took back on the chest, in the order you choose: the first "
                          "listed goes on top (R07).",
    Phase.CATCH_RETURN_1: "Miraculous Catch: put a first card from your hand back on the draw pile (it ends up under "
                          "the second, R09).",
    Phase.CATCH_RETURN_2: "Miraculous Catch: put a second card from your hand back on the draw pile (R09).",
    Phase.CLAIM: "Your claim to the table: everybody sees it, and it may be false (R14–R16).",
}


def seat(relative: int) -> str:
    """The name of the seat ``relative`` places to the reader's left: ``you`` for 0, else ``seat k``."""
    return "you" if relative == 0 else f"seat {relative}"


def _signed(value: int) -> str:
    return f"{value:+d}" if value else "0"


def _cards(kinds: Sequence[int]) -> str:
    return ", ".join(CARD_WORD[CardKind(k)] for k in kinds)


def _hand(counts: Sequence[int]) -> str:
    """A hand given as counts per card kind, in words ("Loot +1, Plank, Spyglass")."""
    return ", ".join(CARD_NAMES[CardKind(k)] for k in range(len(counts)) for _ in range(counts[k])) or "no cards"


# ------------------------------------------------------------------------------------------------ actions
def action_text(action: int, spyglass_view: Sequence[int] = ()) -> str:
    """The canonical text of ``action``; seats relative to the actor (``seat k``: k seats to its left).

    ``spyglass_view``: the true loot values (0 +1, 1 0, 2 −2) of the cards seen through the Spyglass in the order
    seen, to show them in an order's text (R07).

    Raises:
        ValueError: if ``action`` is not in ``range(NUM_ACTIONS)``.
    """
    a = int(action)
    if not 0 <= a < A.NUM_ACTIONS:
        raise ValueError(f"action {action!r} is outside the action space range(0, {A.NUM_ACTIONS})")
    if a == A.OPEN_CHEST:
        return "open the chest"
    if a <= A.PLANK_BASE:
        card, announced = divmod(a - A.LOOT_BASE, 3)
        return f"place {LOOT[card]} announce {LOOT[announced]}"
    if a <= A.EYP_BASE:
        return f"plank seat {a - A.PLANK_BASE}"
    if a < A.GOOD_RIDDANCE:
        return f"empty pockets of seat {a - A.EYP_BASE}"
    if a in (A.GOOD_RIDDANCE, A.SPYGLASS, A.MIRACULOUS_CATCH):
        return "play " + CARD_NAMES[CardKind(CardKind.GOOD_RIDDANCE + a - A.GOOD_RIDDANCE)]
    if a < A.RETURN_BASE:
        perm = A.SPYGLASS_PERMUTATIONS[a - A.SPYGLASS_ORDER_BASE]
        if spyglass_view:
            perm = perm[: len(spyglass_view)]
            return "put back top first: " + ", ".join(f"#{p + 1} ({LOOT[spyglass_view[p]]})" for p in perm)
        return "put back top first: " + ", ".join(f"#{p + 1}" for p in perm)
    if a < A.CLAIM_NONE:
        return f"return {CARD_NAMES[CardKind(a - A.RETURN_BASE)]} to the draw pile"
    if a == A.CLAIM_NONE:
        return "claim: nothing"
    if a < A.CLAIM_VOUCH_BASE:
        return f"claim: seat {a - A.CLAIM_ACCUSE_BASE} is a Mutineer"
    if a < A.CLAIM_HAND_BASE:
        offset = a - A.CLAIM_VOUCH_BASE
        return "claim: I am a Pirate" if offset == 0 else f"claim: seat {offset} is a Pirate"
    if a < A.CLAIM_CHEST_BASE:
        return "claim: my hand is " + _cards(A.HAND_MULTISETS[a - A.CLAIM_HAND_BASE])
    return "claim: the top of the chest is " + ", ".join(LOOT[v] for v in A.CHEST_MULTISETS[a - A.CLAIM_CHEST_BASE])


def action_texts(observation: np.ndarray, legal: Sequence[int]) -> list[str]:
    """The canonical text of each legal action (:func:`action_text`; a Spyglass order shows the values seen)."""
    view = decode(observation)
    return [action_text(a, view.spyglass_view) for a in legal]


# ------------------------------------------------------------------------------------------------ the seat's view
def conventions(num_players: int | None = None) -> str:
    """How the text names seats and cards (for the system prompt)."""
    last = f"seat {num_players - 1}" if num_players else "the last seat"
    return (f"Seats are named from where you sit: you are seat 0 (\"you\"); seat 1 plays after you (to your left, "
            f"R02), seat 2 after seat 1, and so on; {last} plays just before you. So \"plank seat 3\" gives a Plank to "
            "the player three seats to your left. Loot cards are named by their value (+1, 0, -2); a placed loot "
            "card lies face down, so only its announcement is public and it may be a lie (R04).")


def num_players(observation: np.ndarray) -> int:
    """The table size the observation shows."""
    return decode(observation).num_players


def private_text(observation: np.ndarray) -> str:
    """The seat's role and what its side wants (rulebook "Goal of the Game"): shown at its first decision."""
    view = decode(observation)
    goal = ("Pirates want the true values in the chest to reach the target when it is opened"
            if view.role == Role.PIRATE else "Mutineers want the chest to fall short of the target")
    return (f"You are a {ROLE_NAMES[view.role]} ({goal}). Nobody else knows your role until you go overboard or the "
            "game ends; you do not know the others' roles.")


def _played(view: DecodedObservation, relative: int) -> str:
    n = view.num_players
    parts = []
    for index, count in enumerate(view.seats[relative].actions_played):
        if not count:
            continue
        kind = _ACTION_CARDS[index]
        text = CARD_NAMES[kind]
        if kind in (CardKind.PLANK, CardKind.EMPTY_YOUR_POCKETS):
            card = 0 if kind == CardKind.PLANK else 1
            hits = [seat(t) + (f" ×{c}" if c > 1 else "") for t in range(n)
                    if (c := int(view.targeted[relative, t, card]))]
            text += " on " + ", ".join(hits)
        elif count > 1:
            text += f" ×{count}"
        parts.append(text)
    return "; ".join(parts)


def _claims(view: DecodedObservation, relative: int) -> list[str]:
    claim = view.claims[relative]
    texts = []
    if claim.accused is not None:
        texts.append(f"{seat(claim.accused)} {'are' if claim.accused == 0 else 'is'} a Mutineer")
    if claim.vouched is not None:
        texts.append("I am a Pirate" if claim.vouched == relative
                     else f"{seat(claim.vouched)} {'are' if claim.vouched == 0 else 'is'} a Pirate")
    if claim.hand is not None:
        texts.append("my hand is " + _cards(claim.hand))
    if claim.chest_top is not None:
        texts.append("the top of the chest is " + ", ".join(LOOT[v] for v in claim.chest_top))
    return texts


def _chest(view: DecodedObservation) -> list[str]:
    cards = f"{view.chest_size} card{'s' if view.chest_size != 1 else ''}"
    if not view.chest:
        return [f"Chest: empty (target {view.target})."]
    counts = view.scrambled_announced
    if view.scrambled == 0 or counts is not None:
        scrambled = 0 if counts is None else sum(c * v for c, v in zip(counts, (1, 0, -2)))
        line = f"Chest: {cards}, announced {_signed(view.attributable_announced_total + scrambled)} in all"
    else:
        line = (f"Chest: {cards}; those whose placer is known were announced as "
                f"{_signed(view.attributable_announced_total)} in all")
    line += f" (target {view.target})."
    if view.scrambled:
        if counts is None:
            line += f" {view.scrambled} were scrambled by a Spyglass: their announcements are no longer known (R07)."
        else:
            line += (f" {view.scrambled} were scrambled by a Spyglass (R07), announced together as "
                     + ", ".join(f"{c}× {LOOT[v]}" for v, c in enumerate(counts) if c) + ".")
    entries = []
    for card in view.chest:
        entry = "? (scrambled)" if card.scrambled else f"{LOOT[card.announced]} announced by {seat(card.placer)}"
        if card.known is not None:
            entry += f" [you know it is {LOOT[card.known]}]"
        entries.append(entry)
    return [line, "  From the top: " + " | ".join(entries)]


def state_text(observation: np.ndarray) -> str:
    """The table as the seat knows it: sizes and target, each seat's public row, the claims, the chest, its hand
    and what it privately knows of the draw pile and (choosing an order) the Spyglass cards."""
    view = decode(observation)
    n = view.num_players
    lines = [f"{n} players; chest target {view.target}; {PLANKS_TO_OVERBOARD} Planks send a player overboard (R11). "
             f"Draw pile {view.draw_pile_size} cards, discard pile {view.discard_size}."]
    for relative in range(n):
        row = view.seats[relative]
        name = f"seat 0 (you, {ROLE_NAMES[view.role]})" if relative == 0 else f"seat {relative}"
        facts = ["aboard" if row.aboard else "OVERBOARD"]
        if relative and row.revealed is not None:
            facts.append(f"revealed {ROLE_NAMES[row.revealed]}")
        facts.append(f"{row.planks} Plank{'s' if row.planks != 1 else ''} in front")
        if row.loot_placed:
            facts.append(f"placed {row.loot_placed} loot card{'s' if row.loot_placed != 1 else ''} announced "
                         f"{_signed(row.announced_total)} in all")
        played = _played(view, relative)
        if played:
            facts.append("played " + played)
        if row.pockets_emptied:
            facts.append(f"pockets emptied ×{row.pockets_emptied}")
        lines.append(f"- {name}: " + "; ".join(facts))
    claims = [f"- {seat(r)}: " + "; ".join(texts) for r in range(n) if (texts := _claims(view, r))]
    if claims:
        lines += ["Latest claims of each seat (R16; claims may be false):", *claims]
    lines += _chest(view)
    lines.append(f"Your hand: {_hand(view.hand)}.")
    known = [(i, k) for i, k in enumerate(view.draw_pile_known) if k is not None]
    if known:
        lines.append("You know the draw pile (you put these back, R09): "
                     + ", ".join(f"#{i + 1} from the top is {CARD_NAMES[CardKind(k)]}" for i, k in known) + ".")
    if view.phase is Phase.SPYGLASS_ORDER and view.spyglass_view:
        lines.append("Through the Spyglass you see, in the shuffled order: "
                     + ", ".join(f"#{i + 1}: {LOOT[v]}" for i, v in enumerate(view.spyglass_view)) + ".")
    return "\n".join(lines)


def decision_text(observation: np.ndarray, legal: Sequence[int]) -> str:
    """The decision asked in words; a main turn names the kinds of choice it has (R03, R04)."""
    view = decode(observation)
    if view.phase is not Phase.MAIN:
        return PHASE_TEXT.get(view.phase, "Your decision.")
    kinds = set(legal)
    options = [text for text, actions in (
        ("open the chest (ends the game at once, R03)", {A.OPEN_CHEST}),
        ("place a loot card and announce a value (R04)", set(range(A.LOOT_BASE, A.PLANK_BASE + 1))),
        ("play an action card", set(range(A.PLANK_BASE + 1, A.SPYGLASS_ORDER_BASE))),
    ) if kinds & actions]
    return "Your turn: " + (", ".join(options[:-1]) + " or " + options[-1] if len(options) > 1 else options[0]) + "."


#: The kind of each decision, in words (the docs show one prompt of each).
PHASE_KIND = {Phase.MAIN: "main turn", Phase.SPYGLASS_ORDER: "Spyglass order", Phase.CATCH_RETURN_1:
              "Miraculous Catch, first return", Phase.CATCH_RETURN_2: "Miraculous Catch, second return",
              Phase.CLAIM: "claim"}


def decision_kind(observation: np.ndarray) -> str:
    """The kind of decision asked: its phase in words (:data:`PHASE_KIND`)."""
    return PHASE_KIND.get(decode(observation).phase, "no decision")


# ------------------------------------------------------------------------------------------------ events
def events(previous: np.ndarray | None, current: np.ndarray) -> list[str]:
    """What the seat saw happen between two of its observations (``previous`` ``None``: since the deal), in seat
    order from seat 1 (then its own): loot placed with its announcement, action cards played and at whom, claims,
    seats gone overboard with their revealed role (R04, R07–R11, R16)."""
    now = decode(current)
    before = decode(previous) if previous is not None else None
    n = now.num_players
    texts = []
    for relative in [*range(1, n), 0]:
        who = seat(relative)
        subject = who.capitalize() if relative == 0 else who
        row = now.seats[relative]
        old = before.seats[relative] if before is not None else None
        placed = row.loot_placed - (old.loot_placed if old else 0)
        announced = row.announced_total - (old.announced_total if old else 0)
        if placed == 1 and relative:
            texts.append(f"{who} puts a loot card face down in the chest, announcing {_signed(announced)}")
        elif placed > 1 and relative:
            texts.append(f"{who} puts {placed} loot cards face down in the chest, announcing {_signed(announced)} in "
                         "all")
        for index, kind in enumerate(_ACTION_CARDS):
            played = row.actions_played[index] - (old.actions_played[index] if old else 0)
            if played <= 0 or not relative:
                continue
            if kind in (CardKind.PLANK, CardKind.EMPTY_YOUR_POCKETS):
                card = 0 if kind == CardKind.PLANK else 1
                for target in range(n):
                    hits = int(now.targeted[relative, target, card]) - (
                        int(before.targeted[relative, target, card]) if before is not None else 0)
                    for _ in range(max(hits, 0)):
                        if kind == CardKind.PLANK:
                            texts.append(f"{who} plays a Plank on {seat(target)}")
                        else:
                            texts.append(f"{who} plays Empty Your Pockets on {seat(target)}" + (
                                f": you discard your hand and draw {HAND_SIZE} new cards" if target == 0 else ""))
            else:
                effect = {CardKind.GOOD_RIDDANCE: "the top 2 chest cards are discarded unseen (R08)",
                          CardKind.SPYGLASS: "takes the top 3 chest cards, looks at them and puts them back in an "
                                             "order of their choice (R07)",
                          CardKind.MIRACULOUS_CATCH: "draws 3 cards and puts 2 back on the draw pile (R09)"}[kind]
                texts += [f"{who} plays {CARD_NAMES[kind]}: {effect}"] * played
        if relative:
            new_claims = set(_claims(now, relative)) - set(_claims(before, relative) if before is not None else ())
            texts += [f"{who} claims: {claim}" for claim in _claims(now, relative) if claim in new_claims]
        if not row.aboard and (old is None or old.aboard):
            role = f": a {ROLE_NAMES[row.revealed]}" if row.revealed is not None else ""
            texts.append(f"{subject} {'go' if relative == 0 else 'goes'} overboard{role} (R11)")
        elif row.revealed is not None and (old is None or old.revealed is None) and row.aboard and relative:
            texts.append(f"{who} is revealed as a {ROLE_NAMES[row.revealed]}")
    return texts


def same_game(previous: np.ndarray, current: np.ndarray) -> bool:
    """Whether ``current`` follows ``previous`` in one game of the seat: the same table and role, and the seat's own
    count of main actions (loot placed + action cards played) is what its previous decision leaves (one more after
    a main decision, the same after a Spyglass order, a Catch return or a claim). A new game's first decision is a
    main decision with a count of 0, which no decision of the same game can be followed by."""
    before, now = decode(previous), decode(current)
    if (before.num_players, before.role) != (now.num_players, now.role):
        return False
    count = [v.seats[0].loot_placed + sum(v.seats[0].actions_played) for v in (before, now)]
    return count[1] == count[0] + (before.phase is Phase.MAIN)
