"""The table's game loop: bots at their seats, people at theirs; shared by the terminal (``traitors-play``) and the
browser (``traitors-play --web``, :mod:`traitors_env.web.table`).

:class:`TableGame` plays one game of an env to its end. A bot's seat is asked ``bot.act(observation, mask)``; a
human's seat is asked through ``decide`` with the decisions since that seat's last one, as the seat saw them (an
:data:`Event` per decision, with the view's notes of what it publicly led to). A decision with one legal action is
taken for the human where the view says so (``auto_forced``), with one person at the table only: where several
people play, each is asked every decision, forced ones too, so that how long the table waits on a seat does not tell
the others that seat's side (Avalon's Good players have one quest card; an Evil one chooses). ``notify`` hears a seat's events when its view has a
message for it (Traitors Aboard: you went overboard), or after every decision with ``stream`` (the browser's live
log).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["Event", "GameAbandoned", "TableGame", "event_texts"]

#: One decision shown to a human: who, which action, and what it publicly led to (the view's notes).
Event = tuple[int, int, tuple[str, ...]]


def event_texts(view, events: Sequence[Event], num_players: int, seat: int) -> list[str]:
    """``events`` as ``seat`` saw them, one line per listed decision (the view's ``event_text``) and per note under
    it (indented): what the terminal prints and the browser's log shows."""
    lines = []
    for actor, action, notes in events:
        text = view.event_text(actor, action, num_players, seat)
        if text is not None:
            lines.append(text)
        lines.extend("  " + note for note in notes)
    return lines


class GameAbandoned(Exception):
    """The human quit (``q``, the page's Leave button), or their input ended, before the game was over."""


class TableGame:
    """One game of ``env`` with people at ``humans`` and ``bots`` (one agent per other seat).

    Args:
        env: the game's raw AEC env (reset by :meth:`play`).
        view: the game's terminal view (:func:`traitors_env.table.text_view.view_of`).
        bots: per seat an agent, ``None`` at a human's seat.
        humans: the seats played by people.

    Raises:
        ValueError: for a human seat outside the table or a seat with neither a bot nor a person.
    """

    def __init__(self, env, view, bots: Sequence[Any], humans: Sequence[int]) -> None:
        n = len(env.possible_agents)
        self.env, self.view, self.n = env, view, n
        self.humans = tuple(dict.fromkeys(humans))
        bad = [s for s in self.humans if not (isinstance(s, int) and 0 <= s < n)]
        if bad or not self.humans:
            raise ValueError(f"human seat(s) {bad or list(humans)!r}: expected seats of a {n}-player table, 0–{n - 1}")
        missing = [s for s in range(n) if s not in self.humans and (s >= len(bots) or bots[s] is None)]
        if missing:
            raise ValueError(f"no bot for seat(s) {missing}; give one agent per seat that no person plays")
        self.bots = list(bots)
        #: Whether a person's decision with one legal action is taken for them (see the module doc).
        self.auto_forced = bool(view.auto_forced) and len(self.humans) == 1
        #: Decisions played so far (the game's, every seat's).
        self.decisions = 0
        #: Per human seat, the decisions since it was last shown them.
        self.events: dict[int, list[Event]] = {s: [] for s in self.humans}

    def play(self, seed: int, decide: Callable[[int, dict, list[int], list[Event]], int],
             notify: Callable[[int, list[Event], str | None], None] | None = None, stream: bool = False,
             stepped: Callable[[], None] | None = None) -> None:
        """Reset the env with ``seed`` and play to the end.

        Args:
            decide: ``(seat, observation, legal, events) -> action`` at a human's decision: ``observation`` the env's
                (``observation`` and ``action_mask``), ``legal`` the legal actions, ``events`` those since the seat's
                last decision (taken off :attr:`events`).
            notify: ``(seat, events, message)`` where the view has a message for a human seat after a decision (its
                events so far go with it), and with ``stream`` after every decision (``message`` ``None`` mostly).
            stepped: called after each decision once every human seat's events are updated.

        Raises:
            GameAbandoned: from ``decide``, or Ctrl-C while a bot thinks.
        """
        env, view = self.env, self.view
        env.reset(seed=seed)
        agents = env.possible_agents
        before = {s: view.decode(env.observe(agents[s])["observation"]) for s in self.humans}
        for agent in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            acting = agents.index(agent)
            mask = observation["action_mask"]
            if acting in self.events:
                legal = [int(a) for a in np.flatnonzero(mask)]
                if len(legal) == 1 and self.auto_forced:
                    action = legal[0]
                else:
                    events, self.events[acting] = self.events[acting], []
                    action = decide(acting, observation, legal, events)
            else:
                try:
                    action = int(self.bots[acting].act(observation["observation"], mask))
                except KeyboardInterrupt:
                    raise GameAbandoned("interrupted") from None
            env.step(action)
            self.decisions += 1
            for seat in self.humans:
                after = view.decode(env.observe(agents[seat])["observation"])
                notes, message = view.after_step(before[seat], after, seat, env.game)
                self.events[seat].append((acting, action, tuple(notes)))
                if notify is not None and (message is not None or stream):
                    events, self.events[seat] = self.events[seat], []
                    notify(seat, events, message)
                before[seat] = after
            if stepped is not None:
                stepped()
