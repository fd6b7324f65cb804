"""Traitors Aboard's terminal view (``GAME.terminal_view``): what one player sees, drawn with rich from the
observation vector alone, for ``traitors-play`` and ``traitors-replay`` (:mod:`traitors_env.table`).

:func:`agent_view` reads only a :class:`~traitors_env.games.traitors_aboard.observation.DecodedObservation` (the
observation vector read back), so a human seat is shown exactly what its agent observes: its
role and hand, the table (aboard, Planks, revealed roles, loot placed and announced, action
cards played), the chest as announced (per card from the top, and the true values it knows),
the claims (R16) and, while choosing, the Spyglass view (R07). With ``private=False`` the same
view leaves out everything private: what a spectator sees (used by ``traitors-replay``).

:func:`choice_texts` words the legal actions of a decision; :func:`event_text` words a
decision as the table sees it (:func:`traitors_env.games.traitors_aboard.actions.public_description`).

The functions the terminal game calls (its view protocol, :mod:`traitors_env.table.text_view`) are at the
end: :func:`decode`, :func:`opening_note`, :func:`table_view`, :func:`menu` (the 120 hand claims fold into
one entry that opens :func:`submenu`), :func:`confirm` (opening the chest ends the game, R03),
:func:`after_step` (who went overboard, R11), :func:`event_text`, :func:`result_view`,
:func:`observer_view` and :func:`revealed_view` (the replay).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from . import actions as A
from .cards import CARD_NAMES, CARD_SHORT, PLANKS_TO_OVERBOARD, ROLE_NAMES, CardKind, Role
from .engine import GameState, Phase
from .observation import DecodedObservation, encode
from .observation import decode as decode_observation
from .render import render_text

#: The prompts of the list of hand claims and of the chest's confirmation (the main prompt is the table's).
HAND_PROMPT = "Your hand claim (1–{k}, 0 to go back, ? for the rules, q to quit): "
CONFIRM_PROMPT = "Open the chest? (1–{k}, ? for the rules, q to quit): "
CONFIRM_CHOICES = ("yes: open the chest and end the game", "no: back to my choices")

LOOT_TEXT = ("+1", "0", "-2")
#: The decisions other than the main turn in words (:func:`phase_text` words the main turn from its options).
PHASE_TEXT = {
    Phase.SPYGLASS_ORDER: "Spyglass: put the cards back on the chest in the order you choose (R07)",
    Phase.CATCH_RETURN_1: "Miraculous Catch: put a first card back on the draw pile (it ends up under the second, R09)",
    Phase.CATCH_RETURN_2: "Miraculous Catch: put a second card back on the draw pile (R09)",
    Phase.CLAIM: "your claim to the table: everybody sees it, and it may be false (R14–R16)",
}
LEGEND = "Cards: +1, 0, -2 loot · PL Plank · GR Good Riddance · SG Spyglass · MC Miraculous Catch · EYP Empty Your Pockets"
_ACTION_CARDS = (
    CardKind.PLANK,
    CardKind.GOOD_RIDDANCE,
    CardKind.SPYGLASS,
    CardKind.MIRACULOUS_CATCH,
    CardKind.EMPTY_YOUR_POCKETS,
)


def phase_text(view: DecodedObservation, legal_actions: Sequence[int]) -> str:
    """The decision asked of the player in words; a main turn names only the options it has (a Mutineer,
    or a hand without loot or action cards, is not offered what it cannot do; R03, R04)."""
    if view.phase is not Phase.MAIN:
        return PHASE_TEXT[view.phase]
    legal = set(legal_actions)
    options = [
        text
        for text, actions in (
            ("open the chest", {A.OPEN_CHEST}),
            ("place loot", set(range(A.LOOT_BASE, A.PLANK_BASE + 1))),
            ("play an action card", set(range(A.PLANK_BASE + 1, A.SPYGLASS_ORDER_BASE))),
        )
        if legal & actions
    ]
    text = "your turn: " + (", ".join(options[:-1]) + " or " + options[-1] if len(options) > 1 else options[0])
    if view.role == Role.MUTINEER:
        text += " (a Mutineer never opens the chest, R03)"
    return text


def _signed(value: int) -> str:
    return f"{value:+d}" if value else "0"


def seat_name(seat: int, relative: int, num_players: int) -> str:
    """The name ``player_k`` of the seat ``relative`` places to the left of ``seat``."""
    return f"player_{(seat + relative) % num_players}"


def hand_text(hand: Sequence[int]) -> str:
    """A hand given as counts per :class:`CardKind`, in words ("Loot +1, Plank, Spyglass")."""
    return ", ".join(CARD_NAMES[CardKind(k)] for k in range(len(hand)) for _ in range(hand[k])) or "no cards"


def _claims_text(view: DecodedObservation, seat: int, relative: int) -> str:
    claim = view.claims[relative]
    n = view.num_players
    parts = []
    if claim.accused is not None:
        parts.append(f"accuses {seat_name(seat, claim.accused, n)}")
    if claim.vouched is not None:
        parts.append("vouches for " + ("self" if claim.vouched == relative else seat_name(seat, claim.vouched, n)))
    if claim.hand is not None:
        parts.append("hand {" + ", ".join(CARD_SHORT[CardKind(k)] for k in claim.hand) + "}")
    if claim.chest_top is not None:
        parts.append("chest top {" + ", ".join(LOOT_TEXT[v] for v in claim.chest_top) + "}")
    return "; ".join(parts) or "-"


def _played_text(view: DecodedObservation, seat: int, relative: int) -> str:
    """Action cards a seat has played: "PL → player_5 ×2, player_6; SG" (targets of Planks and
    Empty Your Pockets are public, R10, R11)."""
    n = view.num_players
    parts = []
    for index, count in enumerate(view.seats[relative].actions_played):
        if not count:
            continue
        kind = _ACTION_CARDS[index]
        text = CARD_SHORT[kind]
        if kind in (CardKind.PLANK, CardKind.EMPTY_YOUR_POCKETS):
            card = 0 if kind == CardKind.PLANK else 1
            hits = [
                seat_name(seat, t, n) + (f" ×{int(c)}" if c > 1 else "")
                for t, c in enumerate(view.targeted[relative, :, card])
                if c
            ]
            text += " → " + ", ".join(hits)
        elif count > 1:
            text += f" ×{count}"
        parts.append(text)
    return "; ".join(parts) or "-"


def _table(view: DecodedObservation, seat: int, private: bool) -> Table:
    n = view.num_players
    table = Table(show_edge=False, pad_edge=False, expand=False)
    table.add_column("seat", no_wrap=True)
    table.add_column("aboard", no_wrap=True)
    table.add_column("role", no_wrap=True)
    table.add_column(f"planks (of {PLANKS_TO_OVERBOARD})", justify="right")
    table.add_column("loot (ann.)", justify="right")
    table.add_column("cards played")
    for relative in range(n):
        row = view.seats[relative]
        name = seat_name(seat, relative, n)
        if private and relative == 0:
            name += " (you)"
            role = ROLE_NAMES[view.role]
        else:
            role = ROLE_NAMES[row.revealed] if row.revealed is not None else "?"
        played = _played_text(view, seat, relative)
        if row.pockets_emptied:
            played = ("" if played == "-" else played + "; ") + f"pockets emptied ×{row.pockets_emptied}"
        table.add_row(
            name,
            "yes" if row.aboard else "OVERBOARD",
            role,
            str(row.planks),
            f"{row.loot_placed} ({_signed(row.announced_total)})" if row.loot_placed else "-",
            played,
        )
    return table


def _chest_text(view: DecodedObservation, seat: int, private: bool) -> Text:
    n = view.num_players
    cards = f"{view.chest_size} card{'s' if view.chest_size != 1 else ''}"
    if not view.chest:
        return Text(f"Chest: {cards} (target {view.target})")
    counts = view.scrambled_announced
    if view.scrambled == 0 or counts is not None:
        scrambled_total = 0 if counts is None else sum(c * v for c, v in zip(counts, (1, 0, -2)))
        total = view.attributable_announced_total + scrambled_total
        text = Text(f"Chest: {cards}, announced {_signed(total)} in all (target {view.target})")
    else:
        text = Text(
            f"Chest: {cards}; the cards whose placer is known were announced as "
            f"{_signed(view.attributable_announced_total)} (target {view.target})"
        )
    if view.scrambled:
        if counts is None:
            text.append(f"; {view.scrambled} scrambled by Spyglass, their announcements no longer known (R07)")
        else:
            announced = ", ".join(f"{c}× {LOOT_TEXT[v]}" for v, c in enumerate(counts) if c)
            text.append(f"; {view.scrambled} scrambled by Spyglass (R07), announced together as {announced}")
    text.append("\n  from the top: ")
    entries = []
    for card in view.chest:
        if card.scrambled:
            entry = "?"
        else:
            entry = f"{LOOT_TEXT[card.announced]} by {seat_name(seat, card.placer, n)}"
        if private and card.known is not None:
            entry += f" (you know: {LOOT_TEXT[card.known]})"
        entries.append(entry)
    text.append(" | ".join(entries))
    return text


def agent_view(view: DecodedObservation, seat: int, private: bool = True) -> RenderableType:
    """The table as ``seat`` observes it (``private=False``: only the public part, for a spectator).

    Args:
        view: the decoded observation of ``seat`` (:func:`traitors_env.games.traitors_aboard.observation.decode`).
        seat: the observer's absolute seat (the observation itself is relative to it).
        private: show the observer's role, hand, the chest values it knows and its Spyglass view.
    """
    n = view.num_players
    parts: list[RenderableType] = []
    header = Text(
        f"{n} players · target {view.target} · {PLANKS_TO_OVERBOARD} Planks send a player overboard (R11) · "
        f"draw pile {view.draw_pile_size} · discard pile {view.discard_size}"
    )
    parts.append(header)
    parts.append(_table(view, seat, private))
    in_seat_order = [(other - seat) % n for other in range(n)]
    claims = [f"  {seat_name(seat, r, n)}: {text}" for r in in_seat_order if (text := _claims_text(view, seat, r)) != "-"]
    if claims:
        parts.append(Text("Latest claims (R16):\n" + "\n".join(claims)))
    parts.append(_chest_text(view, seat, private))
    parts.append(Text(LEGEND, style="dim"))
    if private:
        parts.append(Text(f"You are player_{seat}, a {ROLE_NAMES[view.role]}. Your hand: {hand_text(view.hand)}."))
        known = [(i, k) for i, k in enumerate(view.draw_pile_known) if k is not None]
        if known:
            parts.append(
                Text(
                    "You know the draw pile: "
                    + ", ".join(f"#{i + 1} from the top is {CARD_NAMES[CardKind(k)]}" for i, k in known)
                )
            )
        if view.phase is Phase.SPYGLASS_ORDER:
            seen = ", ".join(f"#{i + 1}: {LOOT_TEXT[v]}" for i, v in enumerate(view.spyglass_view))
            parts.append(Text(f"Through the Spyglass you see, in the shuffled order: {seen}"))
    return Group(*parts)


def choice_texts(view: DecodedObservation, seat: int, legal_actions: Sequence[int]) -> list[str]:
    """Each legal action of ``seat``'s decision in words (seats named ``player_k``).

    For the Spyglass order the true values come from the observer's Spyglass view (R07).
    """
    n = view.num_players
    texts = []
    for action in legal_actions:
        text = A.describe_action(action, seat, n)
        if A.SPYGLASS_ORDER_BASE <= action < A.RETURN_BASE and view.spyglass_view:
            perm = A.SPYGLASS_PERMUTATIONS[action - A.SPYGLASS_ORDER_BASE][: len(view.spyglass_view)]
            text = "put back, top first: " + ", ".join(
                f"#{p + 1} ({LOOT_TEXT[view.spyglass_view[p]]})" for p in perm
            )
        elif A.RETURN_BASE <= action < A.CLAIM_NONE:
            text = f"put {CARD_NAMES[CardKind(action - A.RETURN_BASE)]} back on the draw pile"
        texts.append(text.removeprefix("claim: "))
    return texts


def event_text(actor: int, action: int, num_players: int, viewer: int | None) -> str:
    """One decision as ``viewer`` saw it: in full for the viewer's own decisions, else the public part.

    ``viewer=None`` is a spectator (public part only).
    """
    if viewer is not None and actor == viewer:
        return f"You ({'player_' + str(actor)}): {A.describe_action(action, actor, num_players)}"
    return f"player_{actor} {A.public_description(action, actor, num_players)}"


def overboard_texts(before: DecodedObservation, after: DecodedObservation, seat: int) -> list[str]:
    """Seats that went overboard between two observations of ``seat``, with their revealed role (R11)."""
    texts = []
    for relative, row in enumerate(after.seats):
        if before.seats[relative].aboard and not row.aboard:
            role = ROLE_NAMES[row.revealed] if row.revealed is not None else "?"
            texts.append(f"{seat_name(seat, relative, after.num_players)} goes overboard: a {role}")
    return texts


def result_view(state: GameState, seat: int | None = None) -> RenderableType:
    """The end of the game, everything revealed: winner, end condition, roles and the chest (rulebook
    "End of the Game").

    Raises:
        RuntimeError: if the game is not over (nothing may be revealed before).
    """
    result = state.result()
    n = state.num_players
    lines: list[RenderableType] = []
    title = f"Game over: the {result['winner']}s win ({result['end_condition'].replace('_', ' ')})."
    if seat is not None:
        won = state.roles[seat] == state.winner
        title += f" You ({ROLE_NAMES[state.roles[seat]]}) {'win' if won else 'lose'}."
    lines.append(Text(title))
    roles = Table(show_edge=False, pad_edge=False)
    roles.add_column("seat")
    roles.add_column("role")
    roles.add_column("status")
    for s in range(n):
        roles.add_row(
            f"player_{s}" + (" (you)" if s == seat else ""),
            ROLE_NAMES[Role(state.roles[s])],
            "aboard" if state.aboard[s] else "overboard",
        )
    lines.append(roles)
    chest = Table(show_edge=False, pad_edge=False, title=None)
    for column in ("from the top", "value", "announced", "by", ""):
        chest.add_column(column, justify="right" if column != "by" else "left")
    for i, card in enumerate(result["chest"]):
        lie = "a lie" if card["value"] != card["announced"] else ""
        chest.add_row(str(i + 1), _signed(card["value"]), _signed(card["announced"]), f"player_{card['placer']}", lie)
    lines.append(Text(f"The chest holds {_signed(result['chest_value'])} (target {result['target']}):"))
    lines.append(chest if result["chest"] else Text("  (empty)"))
    return Group(*lines)


# ------------------------------------------------------------------ the terminal game's view protocol
def decode(observation) -> DecodedObservation:
    """The human's observation vector read back (what every other function here draws from)."""
    return decode_observation(observation)


def opening_note(num_players: int, seat: int) -> str:
    """The opening screen's sentence after "You play player_k."."""
    return "Play passes to the left: player_k is followed by player_k+1 (R02)."


def table_view(view: DecodedObservation, seat: int, legal: Sequence[int], state=None) -> list[RenderableType]:
    """The table as the human observes it, then the decision asked in words."""
    return [agent_view(view, seat), Text(phase_text(view, legal))]


def menu(view: DecodedObservation, seat: int, legal: Sequence[int], state=None) -> list[tuple[str, int | None]]:
    """The numbered choices ``(text, action)``; the 120 hand claims fold into one entry (``action`` ``None``)
    that opens their own list (:func:`submenu`), so the claim step fits a screen."""
    hands = [a for a in legal if A.CLAIM_HAND_BASE <= a < A.CLAIM_CHEST_BASE]
    others = [a for a in legal if not A.CLAIM_HAND_BASE <= a < A.CLAIM_CHEST_BASE]
    entries: list[tuple[str, int | None]] = list(zip(choice_texts(view, seat, others), others))
    if hands:
        entries.append(("my hand is {…}: choose three cards from a list", None))
    return entries


def submenu(view: DecodedObservation, seat: int, legal: Sequence[int]) -> tuple[str, str, list[tuple[str, int]]]:
    """The list of hand claims behind the menu's folded entry: ``(intro, prompt, [(text, action)])``."""
    hands = [a for a in legal if A.CLAIM_HAND_BASE <= a < A.CLAIM_CHEST_BASE]
    texts = [text.removeprefix("my hand is ") for text in choice_texts(view, seat, hands)]
    return "Which hand do you claim (it may be false)? My hand is …", HAND_PROMPT, list(zip(texts, hands))


def confirm(view: DecodedObservation, action: int) -> tuple[str, Sequence[str], str] | None:
    """``(warning, (yes, no), prompt)`` for an action the human confirms first (opening the chest, R03), else ``None``."""
    if action != A.OPEN_CHEST:
        return None
    return (
        f"Opening the chest ends the game at once: the Pirates win if the true values of the loot in it "
        f"add up to {view.target} or more, otherwise the Mutineers win (R03).",
        CONFIRM_CHOICES,
        CONFIRM_PROMPT,
    )


def after_step(before: DecodedObservation, after: DecodedObservation, seat: int, state) -> tuple[tuple[str, ...], str | None]:
    """What a decision publicly led to (seats overboard, R11), and a message when the human went overboard."""
    notes = tuple(overboard_texts(before, after, seat))
    if before.seats[0].aboard and not after.seats[0].aboard and not state.is_terminal:
        return notes, "You are overboard (R11): no more turns for you, but you share your team's result."
    return notes, None


def observer_view(state: GameState, observer: int, private: bool) -> RenderableType:
    """``observer``'s view of ``state`` (``private=False``: the public part of it, a spectator's)."""
    return agent_view(decode_observation(encode(state, observer)), observer, private=private)


def revealed_view(state: GameState) -> RenderableType:
    """Everything: hands, roles and chest values."""
    return Text(render_text(state, show_hidden=True))


def seat_roles(state: GameState, viewer: int | None, reveal: bool) -> list[str | None]:
    """Each seat's role as ``viewer`` knows it: its own, and those revealed overboard (R11); all at the end."""
    return [ROLE_NAMES[Role(state.roles[s])] if reveal or state.is_terminal or s == viewer or state.revealed[s] else None
            for s in range(state.num_players)]
