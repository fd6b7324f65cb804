"""A game with people at seats in the browser (``traitors-play --web``): the game in a thread, each seat's page fed what
that seat may know.

:class:`WebTable` plays one game with :class:`~traitors_env.table.driver.TableGame` in a thread of its own: bots act
at once, and at a human seat's decision the thread waits for that seat's answer (:meth:`WebTable.answer`). After each
change it builds every human seat's page data (:func:`seat_payload`) from that seat's observation, the public log as
that seat saw it (the terminal view's ``event_text`` and notes) and its adviser's role beliefs; the server sends a seat
only its own (:mod:`.play_server`), so no page is ever sent another seat's hidden state. Each seat has a secret token:
a page holds its seat's token only, so one tab cannot read another seat's hand by changing a number in the address.
"""

from __future__ import annotations

import hmac
import json
import secrets
import threading
import traceback
from collections.abc import Sequence
from typing import Any

from rich.console import Group

from ..core.agent import agent_beliefs
from ..core.game import Game
from ..table.driver import Event, GameAbandoned, TableGame, event_texts
from ..table.text_view import view_of
from .payload import absolute_beliefs, render_text

__all__ = ["PlayError", "WebTable", "seat_payload"]

PLAYING, OVER, ABANDONED, FAILED = "playing", "over", "abandoned", "failed"


class PlayError(ValueError):
    """An answer the table refuses: ``status`` the HTTP status (403 not a seat's token, 409 not its turn or a decision
    already answered, 400 not a legal action), the message naming the bad value and what was expected."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _shown(value: object) -> str:
    """A value from a request, as an error message names it (short: a request may send anything)."""
    text = json.dumps(value) if isinstance(value, (int, float, str, bool, type(None))) else type(value).__name__
    return text if len(text) <= 24 else text[:24] + "…"


def decision_data(view, decoded, seat: int, legal: Sequence[int], state) -> list[dict]:
    """The choices as buttons: the view's menu in the rulebook's words, an entry's second list (``submenu``) and
    the confirmation it asks first (``confirm``)."""

    def confirmation(action: int) -> dict | None:
        check = view.confirm(decoded, action)
        if check is None:
            return None
        warning, answers, _ = check
        return {"warning": warning, "yes": answers[0], "no": answers[1]}

    choices = []
    for text, action in view.menu(decoded, seat, legal, state):
        entry: dict[str, Any] = {"text": text, "action": action, "confirm": None, "submenu": None}
        if action is None:
            intro, _, listed = view.submenu(decoded, seat, legal)
            entry["submenu"] = {"intro": intro, "choices": [
                {"text": t, "action": a, "confirm": confirmation(a)} for t, a in listed]}
        else:
            entry["confirm"] = confirmation(action)
        choices.append(entry)
    return choices


def seat_payload(table: WebTable, seat: int, state=None) -> dict:
    """What ``seat``'s page is sent now: built from ``seat``'s observation of ``state`` (default the game's), the log
    as that seat saw it, its adviser's beliefs and what every seat may know (who plays each seat). Everything about
    other seats that the game keeps secret is known only once the game is over (the result)."""
    game, view, n = table.game, table.view, table.n
    state = table.env.game if state is None else state
    pending = table.pending.get(seat)
    over = table.status != PLAYING and bool(state.is_terminal)
    decoded = view.decode(game.encode(state, seat))
    if pending is not None:
        drawn = view.table_view(decoded, seat, pending["legal"], state)
        decision = {"id": pending["id"], "choices": decision_data(view, decoded, seat, pending["legal"], state)}
    elif view.defines("observer_view"):
        drawn = [view.observer_view(state, seat, True)]  # the game's own picture of a seat's view
        decision = None
    else:  # the table as at a decision, without one (the generic observer view is the raw observation)
        drawn = view.table_view(decoded, seat, [], state)
        decision = None
    roles = view.seat_roles(state, seat, False)
    return {
        "game": game.type.long_name,
        "num_players": n,
        "seat": seat,
        "version": table.version,
        "status": table.status,
        "message": table.message,
        "opening": f"You play player_{seat}. {view.opening_note(n, seat)}".strip(),
        "rules": game.rules_summary(n),
        "title": view.frame_title(state, seat) if not state.is_terminal else "Game over",
        "seats": [{"name": f"player_{s}", "player": "you" if s == seat else table.labels[s], "role": roles[s],
                   "you": s == seat, "human": s in table.humans} for s in range(n)],
        "table": render_text(Group(*drawn)),
        "decision": decision,
        "log": list(table.logs[seat]),
        "beliefs": None if table.advisors.get(seat) is None else {
            "label": table.advisor_label,
            "hidden": table.hidden_label,
            "history": list(table.belief_history[seat]),
        },
        "result": render_text(view.result_view(state, seat)) if over else None,
        "seed": table.seed if over else None,
        "saved": table.saved if table.status != PLAYING else None,
        "final": table.final,
    }


class WebTable:
    """One game with people at ``humans`` (each from a browser page) and ``bots`` at the other seats.

    Args:
        game: the game; num_players: a table size of it; claims: its claims option.
        humans: the seats played by people.
        bots: per seat an agent (``None`` at a human's seat).
        seed: the game's seed.
        labels: per seat who plays it (written into the record: ``human`` or ``human:NAME`` at a person's seat).
        advisors: per human seat an agent with role beliefs read from that seat's own observation (``--show-beliefs``);
            advisor_label: its name on the page.

    Raises:
        ValueError: for a table size the game does not allow, a seat outside the table or a missing bot.
    """

    def __init__(self, game: Game, num_players: int, humans: Sequence[int], bots: Sequence[Any], seed: int,
                 claims: bool = True, labels: Sequence[str] | None = None, advisors: dict[int, Any] | None = None,
                 advisor_label: str = "adviser") -> None:
        self.game = game
        self.n = game.check_players(num_players)
        self.env = game.raw_env(num_players=self.n, claims=claims)
        self.view = view_of(game)
        self.driver = TableGame(self.env, self.view, bots, humans)
        self.humans = self.driver.humans
        self.seed = seed
        self.labels = list(labels) if labels is not None else ["human" if s in self.humans else "bot"
                                                                 for s in range(self.n)]
        self.advisors = dict(advisors or {})
        self.advisor_label = advisor_label
        hidden = game.hidden_side
        self.hidden_label = game.type.side_labels[hidden] if hidden is not None else "hidden side"
        self.tokens = {seat: secrets.token_urlsafe(18) for seat in self.humans}
        self.status = PLAYING
        self.message: str | None = None
        self.saved: str | None = None
        #: Set by :meth:`finish`: the game is over and its record written; the pages stop asking.
        self.final = False
        self.version = 0
        #: The version of the page data the server hands out (the data is built first, then this is set).
        self.published = 0
        self.pending: dict[int, dict | None] = {s: None for s in self.humans}
        self.logs: dict[int, list[str]] = {s: [] for s in self.humans}
        self.belief_history: dict[int, list] = {s: [] for s in self.humans}
        self.record = None
        self.error: BaseException | None = None
        self._answers: dict[int, int] = {}
        self._decisions = 0
        self._cond = threading.Condition()
        self._payloads: dict[int, dict] = {}
        self._seen: dict[int, int] = {s: -1 for s in self.humans}
        self._abandon: str | None = None  # why the game is abandoned, once it is
        #: Set once the game has ended and :attr:`record` is made (finished, abandoned or failed).
        self.done = threading.Event()
        self.env.reset(seed=seed)  # the deal, for the pages opened before the game's thread starts (it deals again)
        self._publish()

    # ------------------------------------------------------------------ what the pages are sent
    def seat_of(self, token: str | None) -> int:
        """The seat whose token ``token`` is.

        Raises:
            PlayError: (403) where it is no seat's.
        """
        if isinstance(token, str):
            for seat, secret in self.tokens.items():
                if hmac.compare_digest(token.encode(), secret.encode()):
                    return seat
        raise PlayError(403, "this page's seat token is not one of this table's; open the address traitors-play "
                             "printed for your seat")

    def payload(self, seat: int) -> dict:
        """``seat``'s page data now (built by the game's thread after each change; read without waiting for a lock,
        so the server never waits on a bot that thinks)."""
        payloads = self._payloads  # replaced whole, never changed in place
        self._seen[seat] = payloads[seat]["version"]
        return payloads[seat]

    def _publish(self) -> None:
        """Rebuild every human seat's page data."""
        with self._cond:
            self.version += 1
            self._payloads = {seat: seat_payload(self, seat) for seat in self.humans}
            self.published = self.version  # after the data: a page told of a new version gets its data
            self._cond.notify_all()

    # ------------------------------------------------------------------ answers
    def answer(self, seat: int, decision: object, action: object) -> None:
        """``seat``'s answer to its decision ``decision``: ``action``, one of that decision's legal actions.

        Raises:
            PlayError: 409 where the game is over or ``decision`` is not the seat's open decision; 400 where
                ``action`` is not one of its legal actions.
        """
        with self._cond:
            pending = self.pending.get(seat)
            if self.status != PLAYING:
                raise PlayError(409, f"the game is {self.status}; no answer is taken")
            if pending is None or type(decision) is not int or decision != pending["id"]:
                now = f"that is {pending['id']}" if pending is not None else f"player_{seat} has none now"
                raise PlayError(409, f"decision {_shown(decision)} is not player_{seat}'s open decision ({now})")
            if type(action) is not int or action not in pending["legal"]:
                raise PlayError(400, f"action {_shown(action)} is not a legal action of this decision; expected "
                                     f"one of {pending['legal']}")
            self._answers[seat] = action
            self.pending[seat] = None  # answered: a second answer to it is refused, even before the game moves on
            self._cond.notify_all()

    def abandon(self, reason: str) -> None:
        """End the game unfinished (a page's Leave button, Ctrl-C): the waiting decision raises ``GameAbandoned``."""
        with self._cond:
            if self.status == PLAYING:
                self.message = f"The game was abandoned ({reason})."
                self._abandon = reason
                self._cond.notify_all()

    # ------------------------------------------------------------------ the game's thread
    def _decide(self, seat: int, observation: dict, legal: list[int], events: list[Event]) -> int:
        advisor = self.advisors.get(seat)
        beliefs = None if advisor is None else agent_beliefs(advisor, observation["observation"], self.game.belief_size)
        with self._cond:  # the log, beliefs and decision change with the pages' data, never between
            self._log(seat, events)
            if advisor is not None:
                self.belief_history[seat].append(absolute_beliefs(beliefs, seat, self.n))
            self._decisions += 1
            self.pending[seat] = {"id": self._decisions, "legal": list(legal)}
            self._publish()
            self._cond.wait_for(lambda: seat in self._answers or self._abandon is not None)
            self.pending[seat] = None
            if self._abandon is not None:
                raise GameAbandoned(self._abandon)
            self._publish()  # the pages stop offering the decision at once
            return self._answers.pop(seat)

    def _log(self, seat: int, events: Sequence[Event], message: str | None = None) -> None:
        lines = event_texts(self.view, events, self.n, seat)
        if message is not None:
            lines.append(message)
        with self._cond:
            self.logs[seat].extend(lines)

    def make_record(self):
        """The game's record as it stands (``None`` for a game without records)."""
        if self.game.records is None:
            return None
        return self.game.records.record_game(self.env.game, self.env.episode_seed, seats=self.labels)

    def run(self) -> None:
        """Play the game to its end in this thread (:meth:`start` runs it in a thread of its own)."""
        status = OVER  # the log is streamed after every decision: no events are left to show at the end
        try:
            self.driver.play(self.seed, self._decide, self._log, stream=True, stepped=self._publish)
        except GameAbandoned:
            status = ABANDONED
        except BaseException as error:  # a bot failed: what was played is kept, the pages say so
            self.error = error
            self.message = "The game stopped: a bot failed: " + "".join(
                traceback.format_exception_only(type(error), error)).strip()
            status = FAILED
        self.record = self.make_record()
        with self._cond:
            self.status = status
        self._publish()
        self.done.set()

    def start(self) -> WebTable:
        threading.Thread(target=self.run, name="traitors-play-web", daemon=True).start()
        return self

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the game to end (its record made); whether it has. (An event, not ``Thread.join``: a join
        interrupted by Ctrl-C can report a live thread as finished.)"""
        return self.done.wait(timeout)

    def finish(self, saved: str | None) -> None:
        """Tell the pages where the record was saved (``None``: not saved)."""
        with self._cond:
            self.saved = saved
            self.final = True
        self._publish()

    def all_seen(self) -> bool:
        """Whether every human seat's page has been sent the latest data."""
        return all(seen >= self.published for seen in self._seen.values())
