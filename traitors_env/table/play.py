"""``traitors-play``: a human at one seat in the terminal, bots or trained policies at the others.

Usage::

    traitors-play --players 5 --seat 0                       # heuristic bots at the other seats
    traitors-play --players 8 --seat 3 --bots random --bot 5=runs/quick --seed 7

At each of the human's decisions the terminal shows what happened since their last one (the
other players' decisions as the table sees them: a loot card's announced value, never the card,
R04), then the table exactly as the human's observation has it (:mod:`traitors_env.table.view`) and a
numbered list of the legal choices in words. ``?`` shows the rules in short
(:mod:`traitors_env.games.traitors_aboard.rules_text`); opening the chest, which ends the game, asks for a
confirmation first; anything but one of the numbers is answered with the list again; ``q`` abandons
the game. At the end the chest and the roles are revealed and the game record is saved
(:mod:`traitors_env.games.traitors_aboard.records`); an abandoned game's record is saved too, unfinished.

Bots (``--bots`` for every other seat, ``--bot SEAT=SPEC`` for one): ``random``, ``heuristic``
(:mod:`traitors_env.agents`), or a trained checkpoint by path (needs the ``train`` extra): a
``MaskablePPO`` ``.zip`` (plays whichever role its seat has), a generation folder holding
``pirates.zip`` and ``mutineers.zip`` (each role played by its team's policy), or a run folder
(its newest completed generation). Bots are seeded from the game seed, so a seed and the human's answers
replay the same game.
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

import numpy as np
from rich.columns import Columns
from rich.console import Console, Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from .. import traitors_aboard_v0
from ..agents import Agent
from ..agents.spec import AgentSpecError as BotSpecError  # a bot is an agent by spec
from ..agents.spec import load_agent as make_bot
from ..games.traitors_aboard import actions as A
from ..games.traitors_aboard.cards import MAX_PLAYERS, MIN_PLAYERS
from ..games.traitors_aboard.observation import DecodedObservation, decode
from ..games.traitors_aboard.records import GameRecord
from ..games.traitors_aboard.rules_text import rules_summary
from .view import agent_view, choice_texts, event_text, overboard_texts, phase_text, result_view

PROMPT = "Your choice (1–{k}, ? for the rules, q to quit): "
HAND_PROMPT = "Your hand claim (1–{k}, 0 to go back, ? for the rules, q to quit): "
CONFIRM_PROMPT = "Open the chest? (1–{k}, ? for the rules, q to quit): "
CONFIRM_CHOICES = ("yes: open the chest and end the game", "no: back to my choices")
#: Answers that show the rules at any prompt (``help`` once said "not one of the choices").
RULES_KEYS = ("?", "r", "rules", "h", "help")


class GameAbandoned(Exception):
    """The human quit (``q``), or their input ended, before the game was over."""


#: One decision shown to the human: who, which action, and what it publicly led to (overboard).
Event = tuple[int, int, tuple[str, ...]]


class PlaySession:
    """One game with a human at ``human_seat``; :meth:`run` plays it to the end.

    Args:
        num_players: 3–8.
        human_seat: the human's seat.
        bots: one agent per seat (``None`` at the human's seat).
        seed: the game's seed (:meth:`raw_env.reset`).
        console: where everything is shown (a rich ``Console``).
        read_line: shows the prompt it is given and returns the human's next line; raises ``EOFError``
            when input ends.
        claims: the claim step (R14).
        seat_labels: per seat, who plays it (written into the record).

    Raises:
        ValueError: for a seat outside the table or a missing bot.
    """

    def __init__(
        self,
        num_players: int,
        human_seat: int,
        bots: Sequence[Agent | None],
        seed: int,
        console: Console,
        read_line: Callable[[str], str],
        claims: bool = True,
        seat_labels: Sequence[str] | None = None,
    ) -> None:
        self.env = traitors_aboard_v0.raw_env(num_players=num_players, claims=claims)
        if not (isinstance(human_seat, int) and 0 <= human_seat < num_players):
            raise ValueError(f"seat {human_seat!r} is not a seat of a {num_players}-player table; expected 0–{num_players - 1}")
        missing = [s for s in range(num_players) if s != human_seat and (s >= len(bots) or bots[s] is None)]
        if missing:
            raise ValueError(f"no bot for seat(s) {missing}; give one agent per seat other than the human's")
        self.n = num_players
        self.human_seat = human_seat
        self.bots = list(bots)
        self.seed = seed
        self.console = console
        self.read_line = read_line
        self.seat_labels = list(seat_labels) if seat_labels is not None else None
        #: The decisions shown in the latest frame, for tests and tools.
        self.frame_events: list[Event] = []
        #: The game's record once :meth:`run` has returned or raised (unfinished if abandoned).
        self.record: GameRecord | None = None

    # --------------------------------------------------------------- what is shown
    def frame(self, events: Sequence[Event], view: DecodedObservation, legal: Sequence[int]) -> RenderableType:
        """What the human is shown at a decision: the decisions since their last one, their view
        and the choices. A function of the human's (decoded) observation and the public part of
        others' decisions only."""
        parts: list[RenderableType] = [Rule()]
        parts.extend(self.event_lines(events))
        parts.append(agent_view(view, self.human_seat))
        parts.append(Text(phase_text(view, legal)))
        parts.append(self.choices([text for text, _ in self.menu(view, legal)]))
        return Group(*parts)

    def event_lines(self, events: Sequence[Event]) -> list[Text]:
        lines = []
        for actor, action, notes in events:
            lines.append(Text(event_text(actor, action, self.n, self.human_seat)))
            lines.extend(Text("  " + note) for note in notes)
        return lines

    def menu(self, view: DecodedObservation, legal: Sequence[int]) -> list[tuple[str, int | None]]:
        """The numbered choices: ``(text, action)``; the 120 hand claims fold into one entry
        (``action`` ``None``) that opens their own list, so the claim step fits a screen."""
        seat = self.human_seat
        hands = [a for a in legal if A.CLAIM_HAND_BASE <= a < A.CLAIM_CHEST_BASE]
        others = [a for a in legal if not A.CLAIM_HAND_BASE <= a < A.CLAIM_CHEST_BASE]
        entries: list[tuple[str, int | None]] = list(zip(choice_texts(view, seat, others), others))
        if hands:
            entries.append(("my hand is {…}: choose three cards from a list", None))
        return entries

    @staticmethod
    def choices(texts: Sequence[str]) -> RenderableType:
        """The numbered list of choices (in columns when long, e.g. the 120 hand claims)."""
        items = [f"{i + 1:>3}. {t}" for i, t in enumerate(texts)]
        if len(items) <= 16:
            return Text("\n".join(items))
        return Columns(items, equal=True, column_first=True)

    def ask(self, texts: Sequence[str], prompt: str = PROMPT, allow_back: bool = False) -> int | None:
        """The index of the human's choice among ``texts`` (``None`` for 0 when ``allow_back``);
        ``?`` shows the rules, then the list again; anything else gets the list again.

        Raises:
            GameAbandoned: on ``q``, Ctrl-C or when input ends.
        """
        k = len(texts)
        while True:
            try:
                line = self.read_line(prompt.format(k=k))
            except EOFError:
                raise GameAbandoned("input ended") from None
            except KeyboardInterrupt:
                raise GameAbandoned("interrupted") from None
            answer = line.strip()
            if answer.lower() in ("q", "quit", "exit"):
                raise GameAbandoned("quit at the prompt")
            if answer.lower() in RULES_KEYS:
                self.console.print(Text(rules_summary(self.n)))
                self.console.print(self.choices(texts))
                continue
            # ASCII digits only, and short: int() of a 5000-digit line would raise.
            if answer.isascii() and answer.isdigit() and len(answer) <= 4:
                if 1 <= int(answer) <= k:
                    return int(answer) - 1
                if allow_back and int(answer) == 0:
                    return None
            back = ", 0 to go back" if allow_back else ""
            shown = answer if len(answer) <= 20 else answer[:20] + "…"
            self.console.print(
                Text(f"{shown!r} is not one of the choices: enter a number from 1 to {k}{back}, ? for the rules, or q to quit.")
            )
            self.console.print(self.choices(texts))

    def choose(self, view: DecodedObservation, legal: Sequence[int]) -> int:
        """The human's action: from the menu, through the list of hand claims if asked for."""
        entries = self.menu(view, legal)
        while True:
            _, action = entries[self.ask([text for text, _ in entries])]
            if action == A.OPEN_CHEST and not self.confirm_open(view):
                self.console.print(self.choices([text for text, _ in entries]))
                continue
            if action is not None:
                return action
            hands = [a for a in legal if A.CLAIM_HAND_BASE <= a < A.CLAIM_CHEST_BASE]
            texts = [text.removeprefix("my hand is ") for text in choice_texts(view, self.human_seat, hands)]
            self.console.print(Text("Which hand do you claim (it may be false)? My hand is …"))
            self.console.print(self.choices(texts))
            index = self.ask(texts, HAND_PROMPT, allow_back=True)
            if index is not None:
                return hands[index]
            self.console.print(self.choices([text for text, _ in entries]))

    def confirm_open(self, view: DecodedObservation) -> bool:
        """Whether the human, warned that opening the chest ends the game (R03), confirms it."""
        self.console.print(
            Text(
                f"Opening the chest ends the game at once: the Pirates win if the true values of the loot in it "
                f"add up to {view.target} or more, otherwise the Mutineers win (R03)."
            )
        )
        self.console.print(self.choices(CONFIRM_CHOICES))
        return self.ask(CONFIRM_CHOICES, CONFIRM_PROMPT) == 0

    def opening(self) -> RenderableType:
        """The opening screen: the table size, the human's seat and who plays every other seat."""
        seats = Table(show_edge=False, pad_edge=False, box=None)
        seats.add_column("seat")
        seats.add_column("played by")
        for seat in range(self.n):
            if seat == self.human_seat:
                who = "you"
            elif self.seat_labels is not None:
                who = self.seat_labels[seat]
            else:
                who = type(self.bots[seat]).__name__
            seats.add_row(f"player_{seat}", who)
        return Group(
            Rule(f"Traitors Aboard · {self.n} players"),
            Text(
                f"You play player_{self.human_seat}. Play passes to the left: player_k is followed by player_k+1 (R02). "
                "Enter ? at any prompt for the rules."
            ),
            seats,
        )

    # --------------------------------------------------------------- the game
    def run(self) -> GameRecord:
        """Play the game to its end (or until the human quits) and return its record.

        Raises:
            GameAbandoned: if the human quit or input ended; :attr:`record` then holds the
                unfinished record (as it does if a bot raises).
        """
        env = self.env
        env.reset(seed=self.seed)
        seat = self.human_seat
        human = env.possible_agents[seat]
        console = self.console
        # The seed is shown only at the end: with it the deal can be recomputed.
        console.print(self.opening())
        events: list[Event] = []
        before = decode(env.observe(human)["observation"])
        try:
            for agent in env.agent_iter():
                observation, _, termination, truncation, _ = env.last()
                if termination or truncation:
                    env.step(None)
                    continue
                acting = env.possible_agents.index(agent)
                mask = observation["action_mask"]
                if acting == seat:
                    legal = [int(a) for a in np.flatnonzero(mask)]
                    self.frame_events = list(events)
                    view = decode(observation["observation"])
                    console.print(self.frame(events, view, legal))
                    action = self.choose(view, legal)
                    events = []
                else:
                    try:
                        action = int(self.bots[acting].act(observation["observation"], mask))
                    except KeyboardInterrupt:
                        raise GameAbandoned("interrupted") from None
                env.step(action)
                after = decode(env.observe(human)["observation"])
                events.append((acting, action, tuple(overboard_texts(before, after, seat))))
                if before.seats[0].aboard and not after.seats[0].aboard and not env.game.is_terminal:
                    console.print(Group(Rule(), *self.event_lines(events)))
                    console.print(Text("You are overboard (R11): no more turns for you, but you share your team's result."))
                    events = []
                before = after
        except BaseException as error:
            self.record = env.record(seats=self.seat_labels)
            if isinstance(error, KeyboardInterrupt):  # Ctrl-C anywhere in the game: abandoned, record kept
                console.print()
                error = GameAbandoned("interrupted")
            if isinstance(error, GameAbandoned):
                console.print(Text(f"Game abandoned ({error}) after {len(self.record.decisions)} decisions."))
                raise error from None
            raise
        self.record = env.record(seats=self.seat_labels)  # first: an interrupt while printing loses nothing
        console.print(Group(Rule(), *self.event_lines(events)))
        console.print(result_view(env.game, seat))
        console.print(Text(f"Seed {self.seed}."))
        return self.record


# ------------------------------------------------------------------ command line
def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="traitors-play",
        description="Play Traitors Aboard in the terminal against bots or trained policies.",
    )
    parser.add_argument(
        "--game",
        choices=["traitors_aboard", "the_traitors"],
        default="traitors_aboard",
        help="the game: traitors_aboard (default) or the_traitors (The Traitors board game, 3–6 players; "
        "see traitors-play --game the_traitors --help)",
    )
    parser.add_argument("--players", type=int, default=5, help="table size, 3–8 (default 5)")
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0–players-1 (default 0)")
    parser.add_argument(
        "--bots",
        default="heuristic",
        metavar="SPEC",
        help="bot for every other seat: random, heuristic (default), a checkpoint .zip, a generation folder or a run folder",
    )
    parser.add_argument(
        "--bot", action="append", default=[], metavar="SEAT=SPEC", help="bot for one seat (repeatable), e.g. 2=random"
    )
    parser.add_argument("--seed", type=int, default=None, help="game seed (default: drawn at random and shown)")
    parser.add_argument("--no-claims", action="store_true", help="play without the claim step (R14)")
    parser.add_argument(
        "--record",
        default=None,
        metavar="PATH",
        help="where to save the game record (default records/game-<time>.json; never an existing file)",
    )
    return parser


def _bot_specs(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict[int, str]:
    specs = {s: args.bots for s in range(args.players) if s != args.seat}
    given: set[int] = set()
    for item in args.bot:
        seat_text, sep, spec = item.partition("=")
        if not sep or not seat_text.strip().isdigit() or not spec:
            parser.error(f"--bot {item!r}: expected SEAT=SPEC, e.g. --bot 2=random")
        seat = int(seat_text)
        if not 0 <= seat < args.players:
            parser.error(f"--bot {item!r}: seat {seat} is not a seat of a {args.players}-player table (0–{args.players - 1})")
        if seat == args.seat:
            parser.error(f"--bot {item!r}: seat {seat} is yours (--seat {args.seat})")
        if seat in given:
            parser.error(f"--bot {item!r}: seat {seat} was given a bot already")
        given.add(seat)
        specs[seat] = spec
    return specs


def main(argv: Sequence[str] | None = None, console: Console | None = None, stdin: TextIO | None = None) -> int:
    """Run ``traitors-play``; returns the exit status (0 finished, 1 abandoned, 2 bad arguments)."""
    parser = _parser()
    known, _ = parser.parse_known_args(argv)
    if known.game == "the_traitors":  # the second game has its own, simpler view (issue 15)
        from .the_traitors_play import main as play_the_traitors

        return play_the_traitors(argv, console, stdin)
    args = parser.parse_args(argv)
    if not MIN_PLAYERS <= args.players <= MAX_PLAYERS:
        parser.error(f"--players {args.players}: expected {MIN_PLAYERS}–{MAX_PLAYERS}")
    if not 0 <= args.seat < args.players:
        parser.error(f"--seat {args.seat}: expected a seat in 0–{args.players - 1}")
    if args.seed is not None and args.seed < 0:
        parser.error(f"--seed {args.seed}: expected a non-negative integer")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    # No seed in the name: it is shown at the end of a game, not before (it gives the deal away).
    default_name = f"game-{datetime.datetime.now():%Y%m%d-%H%M%S-%f}.json"
    if args.record is not None and not args.record.strip():
        parser.error("--record '': expected a file path")
    record_path = Path(args.record) if args.record is not None else Path("records") / default_name
    problem = _unwritable(record_path)
    if problem:  # found before the game, not after an hour of play
        parser.error(f"--record {record_path}: {problem}")
    console = console or Console(highlight=False)
    stream = stdin if stdin is not None else sys.stdin
    if stream is None:
        parser.error("there is no standard input to read your answers from")
    specs = _bot_specs(args, parser)
    bots: list[Agent | None] = [None] * args.players
    labels = ["human"] * args.players
    try:
        for seat, spec in specs.items():
            labels[seat], bots[seat] = make_bot(spec, np.random.default_rng([seed, seat]))
    except BotSpecError as error:
        parser.error(str(error))
    except KeyboardInterrupt:
        console.print(Text("Interrupted while loading the bots; no game was started."))
        return 130

    if stdin is None and stream.isatty():

        def read_line(prompt: str) -> str:
            return console.input(prompt)

    else:

        def read_line(prompt: str) -> str:
            console.print(prompt, end="")
            line = stream.readline()
            if not line:
                console.print()
                raise EOFError
            console.print(line.rstrip("\n"), markup=False)  # echo piped input, as a terminal would
            return line

    session = PlaySession(args.players, args.seat, bots, seed, console, read_line, not args.no_claims, labels)
    status = 0
    try:
        session.run()
    except GameAbandoned:
        status = 1
    except KeyboardInterrupt:  # after the game, while its end was shown
        status = 130
    finally:  # also when a bot fails: what was played is kept
        if session.record is not None:
            _save(session.record, record_path, default_name, console)
    return status


def _save(record: GameRecord, path: Path, default_name: str, console: Console) -> None:
    try:
        record.save(path)
    except OSError as error:  # e.g. the folder went away during the game: keep the record anyway
        fallback = Path(tempfile.gettempdir()) / default_name
        record.save(fallback)
        console.print(Text(f"Could not write {path} ({error.strerror or error}); the record is in {fallback} instead."))
        path = fallback
    console.print(Text(f"Game record saved to {path} (replay: traitors-replay {path})"))


def _unwritable(path: Path) -> str | None:
    """Why a record cannot be written at ``path`` (``None`` if it can). Nothing is created here."""
    if path.is_dir():
        return "is a folder; expected a file name such as game.json"
    if path.exists() or path.is_symlink():
        kind = "file" if path.is_file() else "special file"
        return f"a {kind} is already there; records never replace a file, so give a new name"
    folder = path.parent
    while not folder.exists():  # the folders missing are made when the record is saved
        folder = folder.parent
    if not folder.is_dir():
        return f"{str(folder)!r} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"the folder {str(folder)!r} is not writable"
    return None
