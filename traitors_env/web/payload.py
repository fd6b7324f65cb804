"""The viewer's data: each step of a game record as one viewpoint may see it, built on the server side.

A viewpoint is ``spectator`` (the public table), ``seatK`` (what ``player_K`` observed) or ``all`` (everything).
A step's payload (:meth:`ReplayData.step`) holds only what its viewpoint may know at that step:

- ``content``: the step as ``traitors-replay`` draws it for that viewpoint (:func:`traitors_env.table.replay.step_view`,
  the game's own terminal view, rendered to plain text), the result with every role once the game is over;
- ``event``: the step's decision as the viewpoint saw it (the view's ``event_text``; ``None``: not listed);
- ``seats``: per seat its name, who played it, and its role as the viewpoint knows it (the view's ``seat_roles``:
  ``None`` where unknown);
- ``beliefs`` (``--beliefs``, a seat's viewpoint): the agent's P(hidden side) per absolute seat, read from that
  seat's own observation at that step.

The record's own result and the decisions' meanings are never sent as such: they reveal everything.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from functools import lru_cache

from rich.console import Console, RenderableType

from ..core.agent import agent_beliefs
from ..core.game import Game
from ..table.replay import record_states, seat_labels, step_view
from ..table.text_view import view_of

__all__ = ["ALL", "SPECTATOR", "RecordShelf", "absolute_beliefs", "ReplayData", "ViewError", "parse_view", "render_text", "view_names"]

SPECTATOR = "spectator"
ALL = "all"
#: The width the terminal view is drawn at (its tables wrap to it).
WIDTH = 110


class ViewError(ValueError):
    """A viewpoint or step the record does not have; the message names the bad value and what was expected."""


def view_names(num_players: int) -> list[str]:
    """Every viewpoint of a table of ``num_players``: spectator, each seat, everything."""
    return [SPECTATOR, *(f"seat{k}" for k in range(num_players)), ALL]


def parse_view(name: str, num_players: int) -> tuple[int | None, bool]:
    """``(seat, reveal)`` of a viewpoint name: ``spectator`` is ``(None, False)``, ``seatK`` ``(K, False)``, ``all``
    ``(None, True)``.

    Raises:
        ViewError: naming ``name`` and the viewpoints of the table.
    """
    if name == SPECTATOR:
        return None, False
    if name == ALL:
        return None, True
    digits = name.removeprefix("seat") if isinstance(name, str) else ""
    if name != digits and digits.isascii() and digits.isdigit() and int(digits) < num_players and str(int(digits)) == digits:
        return int(digits), False
    shown = name if len(str(name)) <= 40 else str(name)[:40] + "…"
    raise ViewError(f"view {shown!r} is not a viewpoint of this record; expected spectator, seat0–seat{num_players - 1} "
                    "or all")


def render_text(renderable: RenderableType, width: int = WIDTH) -> str:
    """``renderable`` as the terminal shows it, in plain text (no colours, no escape sequences)."""
    console = Console(file=io.StringIO(), width=width, color_system=None, highlight=False, record=True)
    console.print(renderable)
    return console.export_text(styles=False)


class ReplayData:
    """A checked record and its payloads, built on request and kept (each viewpoint's steps are asked in any order).

    Args:
        record: a game record of ``game`` (``game.records.load_record``).
        game: the record's game.
        beliefs: ``(label, make)``: an agent maker (:func:`traitors_env.agents.spec.agent_maker`) whose agents have
            ``beliefs(observation)``; one agent per seat is asked at every step, in order, from that seat's
            observation. ``None``: no beliefs.
        states: the replay's states (default: replayed from ``record``, which checks it); a test may pass others.

    Raises:
        RecordError: (the game's) naming the first step of ``record`` that does not replay.
    """

    def __init__(self, record, game: Game, beliefs: tuple[str, Callable] | None = None, states=None) -> None:
        self.record, self.game = record, game
        self.states = list(states) if states is not None else record_states(record, game)
        self.num_players = record.num_players
        self.last = len(self.states) - 1
        self.view = view_of(game)
        self.beliefs_label, self._make_agent = beliefs if beliefs is not None else (None, None)
        self._belief_series: dict[int, list[list[float | None]]] = {}
        self.step = lru_cache(maxsize=None)(self._step)  # per instance, so a test's instance keeps its own

    # ------------------------------------------------------------------ the record as a whole
    def meta(self) -> dict:
        """What every viewpoint may know about the record: the game, the table, how many steps; who played only where
        the labels cannot tell the sides apart. No seed: it recomputes the deal (the ``all`` steps and the end name
        it)."""
        game = self.game
        hidden = game.hidden_side
        return {
            "game": game.type.env_id,
            "num_players": self.num_players,
            "steps": self.last,
            "seats": [f"player_{s}" for s in range(self.num_players)],
            "players": seat_labels(self.record, False),
            "views": view_names(self.num_players),
            "finished": self.record.finished,
            "beliefs": None if self._make_agent is None else {
                "label": self.beliefs_label,
                "hidden": game.type.side_labels[hidden] if hidden is not None else "hidden side",
            },
        }

    # ------------------------------------------------------------------ one step of one viewpoint
    def check_step(self, step: object) -> int:
        """``step`` as an int in 0–last.

        Raises:
            ViewError: naming ``step`` and the record's steps.
        """
        if isinstance(step, str):
            step = int(step) if step.isascii() and step.isdigit() and len(step) < 10 else step
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= self.last:
            shown = step if len(str(step)) <= 20 else str(step)[:20] + "…"
            raise ViewError(f"step {shown!r} is not a step of this record; expected 0–{self.last}")
        return step

    def _step(self, view: str, step: int) -> dict:
        seat, reveal = parse_view(view, self.num_players)
        step = self.check_step(step)
        state = self.states[step]
        event, actor = None, None
        if step:
            decision = self.record.decisions[step - 1]
            actor = int(decision.agent.removeprefix("player_"))
            event = (f"player_{actor}: {decision.meaning}" if reveal
                     else self.view.event_text(actor, decision.action, self.num_players, seat))
        roles = self.view.seat_roles(state, seat, reveal)
        told = reveal or bool(state.is_terminal)
        players = seat_labels(self.record, told)
        return {
            "view": view,
            "step": step,
            "last": self.last,
            "title": f"step {step}/{self.last}" if step else (f"the deal (seed {self.record.seed})"
                                                              if told else "the deal"),
            "event": event,
            "content": render_text(step_view(self.record, self.states, step, seat, reveal, self.game)),
            "finished": bool(state.is_terminal),
            "seats": [{
                "name": f"player_{s}",
                "player": players[s] if players is not None else None,
                "role": roles[s],
                "you": s == seat,
                "acted": event is not None and s == actor,  # only where the view lists the decision
            } for s in range(self.num_players)],
            "beliefs": self.beliefs(seat, step) if seat is not None else None,
        }

    def step_with_history(self, view: str, step: object) -> dict:
        """:meth:`step` with the log (the listed events of steps 1–``step``) and the beliefs of steps 0–``step``: what
        the server sends for one step."""
        step = self.check_step(step)
        payload = dict(self.step(view, step))
        earlier = [self.step(view, s) for s in range(step + 1)]
        payload["log"] = [[s["step"], s["event"]] for s in earlier[1:] if s["event"] is not None]
        payload["belief_history"] = [s["beliefs"] for s in earlier] if payload["beliefs"] is not None else None
        return payload

    def view_steps(self, view: str) -> list[dict]:
        """Every step of one viewpoint (the static export; the page builds the log and history from them)."""
        return [self.step(view, s) for s in range(self.last + 1)]

    # ------------------------------------------------------------------ beliefs
    def beliefs(self, seat: int, step: int) -> list[float | None] | None:
        """The agent's P(hidden side) per absolute seat at ``step``, read from ``seat``'s observation (``None`` at
        ``seat`` itself and where it has none); ``None`` without ``--beliefs``."""
        if self._make_agent is None:
            return None
        series = self._belief_series.get(seat)
        if series is None:
            # One agent per seat, asked at every step in order, as it would be at the table (an agent may remember).
            agent = self._make_agent(seat)
            size = self.game.belief_size
            series = [absolute_beliefs(agent_beliefs(agent, self.game.encode(state, seat), size), seat, self.num_players)
                      for state in self.states]
            self._belief_series[seat] = series
        return series[step]



def absolute_beliefs(relative, seat: int, n: int) -> list[float | None]:
    """An agent's beliefs relative to ``seat`` (index 1 the next seat, :class:`~traitors_env.core.agent.BeliefAgent`)
    as a list per absolute seat, rounded; ``None`` at ``seat``, where it has none, and everywhere without beliefs."""
    out: list[float | None] = [None] * n
    if relative is None:
        return out
    for r in range(1, n):
        p = float(relative[r])
        out[(seat + r) % n] = round(p, 4) if math.isfinite(p) else None
    return out


class RecordShelf:
    """The records ``traitors-view`` serves: one, or a folder's, each replayed when first asked for.

    Args:
        entries: per record ``(name, record, game, beliefs)``: its name in the list (its path in the folder), the
            loaded record, its game and the ``(label, make)`` of ``--beliefs`` for that game (or ``None``).
    """

    def __init__(self, entries) -> None:
        self.entries = list(entries)
        self._data: dict[int, ReplayData] = {}

    @classmethod
    def of(cls, data: ReplayData, name: str) -> RecordShelf:
        """A shelf of one record, already replayed."""
        shelf = cls([(name, data.record, data.game, None)])
        shelf._data[0] = data
        return shelf

    def listing(self) -> list[dict]:
        """What the page's record menu shows: name, game, table size, finished; nothing a viewpoint may not know."""
        return [{"index": i, "name": name, "game": game.type.env_id, "num_players": record.num_players,
                 "finished": record.finished} for i, (name, record, game, _) in enumerate(self.entries)]

    def check_index(self, index: object) -> int:
        """``index`` as an int in 0–(records − 1).

        Raises:
            ViewError: naming ``index`` and the records' indices.
        """
        if isinstance(index, str) and index.isascii() and index.isdigit() and len(index) < 10:
            index = int(index)
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(self.entries):
            shown = index if len(str(index)) <= 20 else str(index)[:20] + "…"
            raise ViewError(f"record {shown!r} is not a record of this viewer; expected 0–{len(self.entries) - 1}")
        return index

    def data(self, index: object) -> ReplayData:
        """The replay of record ``index`` (replayed, which checks it, on first use).

        Raises:
            ViewError: for an index that is no record's.
            RecordError: (the game's) where the record does not replay.
        """
        index = self.check_index(index)
        if index not in self._data:
            _, record, game, beliefs = self.entries[index]
            self._data[index] = ReplayData(record, game, beliefs)
        return self._data[index]
