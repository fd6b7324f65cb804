"""The terminal view protocol, and the generic view of a game that declares none.

A game's ``terminal_view`` (:class:`traitors_env.core.game.Game`) is a zero-argument loader of its view:
an object, usually the module ``traitors_env/games/<name>/view.py``, with any of the functions below.
:func:`view_of` completes it with :class:`GenericView`, so a view defines only what it draws differently,
and a game without a view (``terminal_view=None``) is played through :class:`GenericView` alone: its rules
summary (``game.rules_summary``, on ``?``), the human's observation summarized from the declared layout
(``game.layout``), and the legal actions numbered in the game's words (``game.action_text``).

The protocol (``decoded`` is what ``decode`` returned for the human's observation; ``state`` the engine
state, for views that draw from it; ``seat`` the human's seat, ``viewer`` ``None`` for a spectator):

- ``decode(observation) -> decoded``: the observation as the view reads it;
- ``opening_note(num_players, seat) -> str``: the opening screen's sentence after "You play player_k." (the game's
  own; the front end adds how to ask for the rules);
- ``frame_title(state, seat) -> str``: the title of the rule that opens each decision's screen;
- ``event_text(actor, action, num_players, viewer) -> str | None``: one decision as ``viewer`` saw it
  (``None``: not listed);
- ``table_view(decoded, seat, legal, state) -> list[renderable]``: what the human sees before the choices;
- ``menu(decoded, seat, legal, state) -> [(text, action | None)]``: the numbered choices; an entry with
  ``action`` ``None`` opens ``submenu(decoded, seat, legal) -> (intro, prompt, [(text, action)])``;
- ``confirm(decoded, action) -> (warning, (yes, no), prompt) | None``: a choice confirmed before it is played;
- ``after_step(before, after, seat, state) -> (notes, message | None)``: what a decision publicly led to
  (shown under it) and a message that interrupts the game (both decoded observations of the human);
- ``auto_forced: bool``: a decision with one legal action is taken for the human without asking;
- ``result_view(state, seat | None) -> renderable``: the finished game, everything revealed;
- ``beliefs_view(beliefs, seat, num_players, label) -> renderable``: role beliefs (``traitors-play
  --show-beliefs``): ``beliefs`` per seat relative to ``seat`` (:class:`traitors_env.core.agent.BeliefAgent`),
  P(the game's hidden side), held by the agent named ``label``;
- ``observer_view(state, observer, private) -> renderable``, ``revealed_view(state) -> renderable``: a
  replay's step as a seat (or, ``private=False``, a spectator) saw it, and with everything revealed;
- ``seat_roles(state, viewer, reveal) -> [str | None]``: per seat, its role as ``viewer`` (``None``: a spectator)
  knows it at ``state``, ``None`` where unknown; everything at ``reveal`` or at the end (``traitors-view``'s table).

A view shows only what its seat may know: the screen is a function of the human's observation, the
public part of others' decisions, and (``state``) what the game makes public.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from ..core.game import Game

__all__ = ["GenericView", "observation_summary", "view_of"]


def observation_summary(game: Game, observation: np.ndarray) -> str:
    """The observation in words, one line per declared block of ``game.layout`` that is not all zero
    (``name: values`` and the block's meaning)."""
    lines = []
    for piece in game.layout.pieces:
        values = np.asarray(game.layout.piece(np.asarray(observation), piece.name))
        if not np.any(values):
            continue
        flat = values.ravel()
        shown = " ".join(f"{v:g}" for v in flat[:24]) + (" …" if flat.size > 24 else "")
        lines.append(f"{piece.name}: {shown}  ({piece.meaning})")
    return "\n".join(lines) or "(an observation of zeros)"


class GenericView:
    """The view of a game without a terminal view, and the defaults of every other (see the module doc)."""

    auto_forced = False

    def __init__(self, game: Game) -> None:
        self.game = game

    def decode(self, observation):
        return observation

    def opening_note(self, num_players: int, seat: int) -> str:
        return ""

    def defines(self, name: str) -> bool:
        """Whether the game's own view draws ``name``: never, for the generic view alone."""
        return False

    def frame_title(self, state, seat: int) -> str:
        return ""

    def event_text(self, actor: int, action: int, num_players: int, viewer: int | None) -> str | None:
        """The viewer's own decisions in full; another player's only as a decision (the game declares no
        public part of an action, so none is shown)."""
        if viewer is not None and actor == viewer:
            return f"You (player_{actor}): {self.game.action_text(action)}"
        return f"player_{actor} made a decision"

    def table_view(self, decoded, seat: int, legal: Sequence[int], state=None) -> list[RenderableType]:
        return [Text(f"You are player_{seat}. Your observation:\n{observation_summary(self.game, decoded)}")]

    def menu(self, decoded, seat: int, legal: Sequence[int], state=None) -> list[tuple[str, int | None]]:
        return [(self.game.action_text(action), action) for action in legal]

    def submenu(self, decoded, seat: int, legal: Sequence[int]):
        raise NotImplementedError("a menu entry without an action needs the view's submenu")

    def confirm(self, decoded, action: int):
        return None

    def after_step(self, before, after, seat: int, state) -> tuple[tuple[str, ...], str | None]:
        return (), None

    def result_view(self, state, seat: int | None = None) -> RenderableType:
        game = self.game
        winners = [s for s in range(state.num_players) if game.seat_won(state, s)]
        parts: list[RenderableType] = [
            Rule("game over"),
            Text(f"The game ended: {game.end_condition(state)}. Winners: "
                 + (", ".join(f"player_{s}" for s in winners) or "nobody") + "."),
            Text("Sides: " + ", ".join(f"player_{s} {game.type.side_labels[game.side_of_seat(state, s)]}"
                                       for s in range(state.num_players)) + "."),
        ]
        if seat is not None:
            parts.append(Text("You win!" if seat in winners else "You do not win this time."))
        return Group(*parts)

    def beliefs_view(self, beliefs: np.ndarray | None, seat: int, num_players: int, label: str) -> RenderableType:
        """One line per other seat (absolute ``player_k``, relative seat ``r`` is ``(seat + r) % num_players``):
        ``label``'s P(hidden side) in %, with a bar; a note where ``beliefs`` is ``None``."""
        game = self.game
        hidden = game.type.side_labels[game.hidden_side] if game.hidden_side is not None else "hidden side"
        if beliefs is None:
            return Text(f"({label} has no beliefs about this position)")
        table = Table(show_edge=False, pad_edge=False, box=None)
        table.add_column("seat")
        table.add_column(f"P({hidden})", justify="right")
        table.add_column("")
        for r in range(1, num_players):
            p = float(beliefs[r]) if r < len(beliefs) else float("nan")
            shown = "–" if not np.isfinite(p) else f"{100 * p:.0f} %"
            bar = "" if not np.isfinite(p) else "█" * int(round(10 * p)) + "·" * (10 - int(round(10 * p)))
            table.add_row(f"player_{(seat + r) % num_players}", shown, bar)
        return Group(Text(f"{label}'s beliefs, read from your observation only: P({hidden}) per seat"), table)

    def observer_view(self, state, observer: int, private: bool) -> RenderableType:
        if not private:
            return Text(f"({self.game.type.env_id} declares no public view; replay with --seat K or --reveal)")
        observation = self.game.encode(state, observer)
        return Text(f"player_{observer} observes:\n{observation_summary(self.game, observation)}")

    def seat_roles(self, state, viewer: int | None, reveal: bool) -> list[str | None]:
        """Each seat's side: all of them revealed or at the end, else only the viewer's own (the game declares nothing
        else public)."""
        labels = self.game.type.side_labels
        return [labels[self.game.side_of_seat(state, s)] if reveal or state.is_terminal or s == viewer else None
                for s in range(state.num_players)]

    def revealed_view(self, state) -> RenderableType:
        return Group(*(Text(f"player_{s} observes:\n{observation_summary(self.game, self.game.encode(state, s))}")
                       for s in range(state.num_players)))


class _Completed:
    """A game's view with :class:`GenericView` behind it: each name is looked up on the game's view first
    (at every call, so a test may patch the view module), then on the generic view."""

    def __init__(self, own, fallback: GenericView) -> None:
        self._own, self._fallback = own, fallback

    def __getattr__(self, name: str):
        value = getattr(self._own, name, _MISSING)
        return getattr(self._fallback, name) if value is _MISSING else value

    def defines(self, name: str) -> bool:
        """Whether the game's own view draws ``name`` (not the generic view)."""
        return hasattr(self._own, name)


_MISSING = object()


def view_of(game: Game):
    """``game``'s terminal view completed with the generic one (the generic one alone for a game without a view)."""
    fallback = GenericView(game)
    if game.terminal_view is None:
        return fallback
    return _Completed(game.terminal_view(), fallback)
