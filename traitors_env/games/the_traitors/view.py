"""The Traitors' terminal view (``GAME.terminal_view``), for ``traitors-play --game the_traitors``.

At each of the human's decisions with a choice the terminal shows the table as everyone sees it
(:func:`traitors_env.games.the_traitors.render.render_text`: gold, the pot, signals, claims, revealed votes,
the Armoury, the Night), then what only the human knows (:func:`private_lines`: their role, their Shields
and Daggers, as Traitor this round's assignment), then the legal choices in words. Decisions with one legal
choice (a Faithful's "no attempt" and "no murder", asked of everyone so that turns do not reveal the
Traitor) are taken for the human (:data:`auto_forced`). The other players' decisions are not listed one by
one: the public table shows what they did.

The functions here follow the terminal game's view protocol (:mod:`traitors_env.table.text_view`); what
this module does not define (the opening, the prompts) is the table's generic view.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.text import Text

from .cards import NUM_ROUNDS, ROLE_NAMES, Role
from .engine import GameState
from .render import render_text

#: A decision with one legal action is taken for the human, without asking.
auto_forced = True


def private_lines(state: GameState, seat: int) -> list[str]:
    """What only ``seat`` knows: role, Shields and Daggers, and as Traitor this round's assignment (T06)."""
    lines = [f"You are player_{seat}, {ROLE_NAMES[state.roles[seat]]}."]
    shields, daggers = state.hands[seat]
    lines.append(f"In your hand: {shields} Shield(s), {daggers} Dagger(s).")
    r = min(state.round, NUM_ROUNDS) - 1
    if state.roles[seat] == Role.TRAITOR and state.signals[r] is not None and state.round <= NUM_ROUNDS:
        if state.attempted[r]:
            lines.append(f"Secret assignment this round: {'succeeded' if state.succeeded[r] else 'failed'}.")
        else:
            lines.append("Secret assignment this round: not attempted.")
    return lines


def frame_title(state: GameState, seat: int) -> str:
    """The title of a decision's screen: the phase and the round."""
    return f"{state.phase.name.lower()} · round {min(state.round, NUM_ROUNDS)}"


def event_text(actor: int, action: int, num_players: int, viewer: int | None) -> None:
    """No list of decisions: the public table (:func:`table_view`) shows what the others did."""
    return None


def table_view(observation, seat: int, legal: Sequence[int], state: GameState) -> list[RenderableType]:
    """The public table, then what only the human knows."""
    return [Text(render_text(state)), *(Text(line) for line in private_lines(state, seat))]


def menu(observation, seat: int, legal: Sequence[int], state: GameState) -> list[tuple[str, int]]:
    """The legal actions in words, seats named ``player_k``."""
    return [(state.action_to_string(action), action) for action in legal]


def result_view(state: GameState, seat: int | None = None) -> RenderableType:
    """The end: the table with every role revealed (the End Game shows them), and whether the human won (T16)."""
    parts: list[RenderableType] = [Rule("game over"), Text(render_text(state))]
    if seat is not None:
        parts.append(Text("You win!" if state.winners[seat] else "You do not win this time."))
    return Group(*parts)
