"""Avalon's terminal view (``GAME.terminal_view``), for ``traitors-play --game avalon``.

At each of the human's decisions the terminal shows the public table (:func:`render_text`: proposals, revealed
votes, quest results, claims), then what only the human knows (:func:`private_lines`: role and A03 knowledge), then
the legal choices in words. A decision with one legal choice (a Good member's Success) is taken for the human.
The functions follow the terminal view protocol (:mod:`traitors_env.table.text_view`).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.text import Text

from .engine import GameState
from .render import render_text
from .roles import ROLE_NAMES, Role

#: A decision with one legal action is taken for the human, without asking.
auto_forced = True


def private_lines(state: GameState, seat: int) -> list[str]:
    """What only ``seat`` knows (A03): its role, the seats it sees as Evil, Percival's Merlin-or-Morgana pair."""
    role = state.roles[seat]
    lines = [f"You are player_{seat}, {ROLE_NAMES[role]} ({'Evil' if state.is_evil(seat) else 'Good'})."]
    evil = sorted(state.known_evil(seat))
    if evil:
        lines.append("You see as Evil: " + ", ".join(f"player_{s}" for s in evil) + ".")
    if role == Role.PERCIVAL:
        lines.append("Merlin or Morgana: " + (", ".join(f"player_{s}" for s in sorted(state.merlin_candidates(seat)))
                                               or "none in play") + ".")
    return lines


def frame_title(state: GameState, seat: int) -> str:
    return f"{state.phase.name.lower()} · quest {state.quest}"


def event_text(actor: int, action: int, num_players: int, viewer: int | None) -> None:
    """No list of decisions: the public table shows what the others did (votes and cards stay hidden, A07, A11)."""
    return None


def table_view(observation, seat: int, legal: Sequence[int], state: GameState) -> list[RenderableType]:
    return [Text(render_text(state)), *(Text(line) for line in private_lines(state, seat))]


def menu(observation, seat: int, legal: Sequence[int], state: GameState) -> list[tuple[str, int]]:
    return [(state.action_to_string(action), action) for action in legal]


def result_view(state: GameState, seat: int | None = None) -> RenderableType:
    """The end, every role revealed, and whether the human's side won (A15)."""
    parts: list[RenderableType] = [Rule("game over"), Text(render_text(state, show_hidden=True))]
    if seat is not None:
        parts.append(Text("Your side wins!" if state.winners[seat] else "Your side loses."))
    return Group(*parts)


def observer_view(state: GameState, observer: int, private: bool) -> RenderableType:
    """A replay's step as ``observer`` saw it (``traitors-replay --seat K``): the public table and, ``private``, what
    only that seat knows (A03); votes and quest cards stay hidden as in play (A07, A11)."""
    parts: list[RenderableType] = [Text(render_text(state))]
    if private:
        parts.extend(Text(line) for line in private_lines(state, observer))
    return Group(*parts)


def revealed_view(state: GameState) -> RenderableType:
    """A replay's step with everything revealed (``traitors-replay --reveal``): every role and every card."""
    return Text(render_text(state, show_hidden=True))


def seat_roles(state: GameState, viewer: int | None, reveal: bool) -> list[str | None]:
    """Each seat's role as ``viewer`` knows it (A03): its own, the seats it sees as Evil, Percival's Merlin-or-Morgana
    pair; every role at the end."""
    n = state.num_players
    if reveal or state.is_terminal:
        return [ROLE_NAMES[state.roles[s]] for s in range(n)]
    roles: list[str | None] = [None] * n
    if viewer is not None:
        for s in state.known_evil(viewer):
            roles[s] = "Evil"
        if state.roles[viewer] == Role.PERCIVAL:
            for s in state.merlin_candidates(viewer):
                roles[s] = "Merlin or Morgana"
        roles[viewer] = ROLE_NAMES[state.roles[viewer]]
    return roles
