"""``traitors-play``: a human at one seat in the terminal, bots or trained policies at the others, for any game.

Usage::

    traitors-play --players 5 --seat 0                       # heuristic bots at the other seats
    traitors-play --players 8 --seat 3 --bots random --bot 5=runs/quick --seed 7
    traitors-play --players 6 --seat 0 --show-beliefs        # the heuristic's role beliefs from your observation
    traitors-play --game the_traitors --players 5 --seat 0   # any registered game (--game NAME)

One terminal game over the game's terminal view (``game.terminal_view``; the generic view of
:mod:`traitors_env.table.text_view` for a game that declares none). At each of the human's decisions the
terminal shows what happened since their last one as the table saw it (the view's ``event_text``: for
Traitors Aboard a loot card's announced value, never the card, R04), then what the human observes and a
numbered list of the legal choices in words. ``?`` shows the rules in short (``game.rules_summary``); a
choice the view marks (Traitors Aboard: opening the chest, which ends the game) asks for a confirmation
first; anything but one of the numbers is answered with the list again; ``q`` abandons the game. At the
end everything is revealed; for a game with records (``game.records``) the game record is saved, an
abandoned game's too, unfinished.

Beliefs (``--show-beliefs [SPEC]``, default the game's heuristic): at each of the human's decisions the terminal
also shows an agent's role beliefs (:class:`traitors_env.core.agent.BeliefAgent`): that agent reads the *human's*
observation, so it sees only what the human sees, and its P(hidden side) per other seat (the view's
``beliefs_view``) is what it would believe in the human's seat: a trained policy's or the heuristic's deduction,
watched at the table. For a game that declares a hidden side (``Game.hidden_side``) and an agent with beliefs.

Bots (``--bots`` for every other seat, ``--bot SEAT=SPEC`` for one): an agent by spec of the game
(:func:`traitors_env.agents.spec.agent_maker`): a bot name (``random``, ``heuristic``), a trained checkpoint,
generation folder or run folder (needs the ``train`` extra), ``openai:MODEL`` (a language model behind an
OpenAI-compatible server, with the ``--llm-*`` options; one agent and conversation per seat), or
``package.module:function``. Bots are seeded
from the game seed, so a seed and the human's answers replay the same game.
"""

from __future__ import annotations

import argparse
import datetime
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np
from rich.columns import Columns
from rich.console import Console, Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from ..agents.llm import add_llm_arguments, llm_options_from_args
from ..agents.spec import AgentSpecError as BotSpecError  # a bot is an agent by spec
from ..cli_args import GameOption, add_serve_arguments
from ..core.agent import Agent, agent_beliefs
from ..core.game import Game, add_claims_arguments, claims_from_args, sizes_text
from ..core.registry import DEFAULT_GAME, load_game
from .driver import Event, GameAbandoned, TableGame, event_texts
from .saving import save_record, unwritable
from .text_view import view_of

__all__ = ["BotSpecError", "GameAbandoned", "PlaySession", "main", "make_bot"]

PROMPT = "Your choice (1–{k}, ? for the rules, q to quit): "
#: Answers that show the rules at any prompt (``help`` once said "not one of the choices").
RULES_KEYS = ("?", "r", "rules", "h", "help")


def make_bot(spec: str, seed: int | np.random.Generator | None, game: str | Game = DEFAULT_GAME,
             llm=None) -> tuple[str, Agent]:
    """``(label, agent)`` for a bot spec of ``game`` (:func:`traitors_env.agents.spec.agent_maker`; ``llm``: the
    :class:`~traitors_env.agents.llm.LLMOptions` of an ``openai:MODEL`` spec).

    Raises:
        BotSpecError: naming the spec and what was expected.
    """
    from ..agents.spec import agent_maker

    label, make = agent_maker(spec, game=load_game(game).name, llm=llm)
    return label, make(seed)


class PlaySession:
    """One game with a human at ``human_seat``; :meth:`run` plays it to the end.

    Args:
        num_players: a table size of the game.
        human_seat: the human's seat.
        bots: one agent per seat (``None`` at the human's seat).
        seed: the game's seed (``raw_env.reset``).
        console: where everything is shown (a rich ``Console``).
        read_line: shows the prompt it is given and returns the human's next line; raises ``EOFError``
            when input ends.
        claims: the game's claims option.
        seat_labels: per seat, who plays it (written into the record).
        game: a registry name (default :data:`~traitors_env.core.registry.DEFAULT_GAME`) or a :class:`Game`.
        advisor: an agent with role beliefs shown at each of the human's decisions, read from the human's own
            observation (``--show-beliefs``); advisor_label: its name on screen.

    Raises:
        ValueError: for a table size the game does not allow, a seat outside the table or a missing bot.
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
        game: str | Game = DEFAULT_GAME,
        advisor: Agent | None = None,
        advisor_label: str = "advisor",
    ) -> None:
        self.game = load_game(game)
        self.env = self.game.raw_env(num_players=self.game.check_players(num_players), claims=claims)
        if not (isinstance(human_seat, int) and 0 <= human_seat < num_players):
            raise ValueError(f"seat {human_seat!r} is not a seat of a {num_players}-player table; expected 0–{num_players - 1}")
        missing = [s for s in range(num_players) if s != human_seat and (s >= len(bots) or bots[s] is None)]
        if missing:
            raise ValueError(f"no bot for seat(s) {missing}; give one agent per seat other than the human's")
        self.view = view_of(self.game)
        self.n = num_players
        self.human_seat = human_seat
        self.bots = list(bots)
        self.seed = seed
        self.console = console
        self.read_line = read_line
        self.seat_labels = list(seat_labels) if seat_labels is not None else None
        self.advisor = advisor
        self.advisor_label = advisor_label
        #: The advisor's beliefs shown in the latest frame (``None`` without ``advisor``), for tests and tools.
        self.frame_beliefs: np.ndarray | None = None
        #: The decisions shown in the latest frame, for tests and tools.
        self.frame_events: list[Event] = []
        #: The game's record once :meth:`run` has returned or raised (unfinished if abandoned); ``None`` for a
        #: game without records.
        self.record: Any = None

    # --------------------------------------------------------------- what is shown
    def frame(self, events: Sequence[Event], view: Any, legal: Sequence[int]) -> RenderableType:
        """What the human is shown at a decision: the decisions since their last one, what they observe
        (``view``: their decoded observation) and the choices. A function of the human's observation, the
        public part of others' decisions and what the game makes public only."""
        state, seat = self.env.game, self.human_seat
        parts: list[RenderableType] = [Rule(self.view.frame_title(state, seat))]
        parts.extend(self.event_lines(events))
        parts.extend(self.view.table_view(view, seat, legal, state))
        if self.advisor is not None:
            parts.append(self.view.beliefs_view(self.frame_beliefs, seat, self.n, self.advisor_label))
        parts.append(self.choices([text for text, _ in self.view.menu(view, seat, legal, state)]))
        return Group(*parts)

    def event_lines(self, events: Sequence[Event]) -> list[Text]:
        return [Text(line) for line in event_texts(self.view, events, self.n, self.human_seat)]

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
                self.console.print(Text(self.game.rules_summary(self.n)))
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

    def choose(self, view: Any, legal: Sequence[int]) -> int:
        """The human's action: from the menu, through the view's second list if an entry opens one, confirmed
        where the view asks for it."""
        seat = self.human_seat
        entries = self.view.menu(view, seat, legal, self.env.game)
        while True:
            _, action = entries[self.ask([text for text, _ in entries])]
            if action is not None:
                check = self.view.confirm(view, action)
                if check is not None and not self.confirm(*check):
                    self.console.print(self.choices([text for text, _ in entries]))
                    continue
                return action
            intro, prompt, listed = self.view.submenu(view, seat, legal)
            texts = [text for text, _ in listed]
            self.console.print(Text(intro))
            self.console.print(self.choices(texts))
            index = self.ask(texts, prompt, allow_back=True)
            if index is not None:
                return listed[index][1]
            self.console.print(self.choices([text for text, _ in entries]))

    def confirm(self, warning: str, answers: Sequence[str], prompt: str) -> bool:
        """Whether the human, shown ``warning``, picks the first of ``answers`` (yes, no)."""
        self.console.print(Text(warning))
        self.console.print(self.choices(answers))
        return self.ask(answers, prompt) == 0

    def opening(self) -> RenderableType:
        """The opening screen: the game and table size, the human's seat and who plays every other seat."""
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
            Rule(f"{self.game.type.long_name} · {self.n} players"),
            Text(" ".join(filter(None, (f"You play player_{self.human_seat}.",
                                        self.view.opening_note(self.n, self.human_seat),
                                        "Enter ? at any prompt for the rules.")))),
            seats,
        )

    def _record(self):
        if self.game.records is None:
            return None
        return self.game.records.record_game(self.env.game, self.env.episode_seed, seats=self.seat_labels)

    # --------------------------------------------------------------- the game
    def run(self):
        """Play the game to its end (or until the human quits) and return its record (``None`` for a game
        without records).

        Raises:
            GameAbandoned: if the human quit or input ended; :attr:`record` then holds the
                unfinished record (as it does if a bot raises).
        """
        seat, console = self.human_seat, self.console
        # The seed is shown only at the end: with it the deal can be recomputed.
        console.print(self.opening())
        table = TableGame(self.env, self.view, self.bots, [seat])
        try:
            table.play(self.seed, self._decide, self._notify)
        except BaseException as error:
            self.record = self._record()
            if isinstance(error, KeyboardInterrupt):  # Ctrl-C anywhere in the game: abandoned, record kept
                console.print()
                error = GameAbandoned("interrupted")
            if isinstance(error, GameAbandoned):
                console.print(Text(f"Game abandoned ({error}) after {table.decisions} decisions. The same deal and "
                                   f"bots again: --seed {self.seed}."))
                raise error from None
            raise
        self.record = self._record()  # first: an interrupt while printing loses nothing
        lines = self.event_lines(table.events[seat])
        if lines:  # the decisions since the human's last one (a view may list none)
            console.print(Group(Rule(), *lines))
        console.print(self.view.result_view(self.env.game, seat))
        console.print(Text(f"Seed {self.seed}."))
        return self.record

    def _decide(self, seat: int, observation: dict, legal: list[int], events: list[Event]) -> int:
        self.frame_events = list(events)
        if self.advisor is not None:
            self.frame_beliefs = agent_beliefs(self.advisor, observation["observation"], self.game.belief_size)
        decoded = self.view.decode(observation["observation"])
        self.console.print(self.frame(events, decoded, legal))
        return self.choose(decoded, legal)

    def _notify(self, seat: int, events: list[Event], message: str | None) -> None:
        self.console.print(Group(Rule(), *self.event_lines(events)))
        self.console.print(Text(message))


# ------------------------------------------------------------------ command line
def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="traitors-play",
        description="Play a registered game in the terminal against bots or trained policies.",
    )
    parser.add_argument("--game", action=GameOption, default=DEFAULT_GAME,
                        help=f"the game (a registered name; default {DEFAULT_GAME})")
    parser.add_argument("--players", type=int, default=None,
                        help="table size (default: the game's default table; its range is the game's)")
    parser.add_argument("--seat", type=int, action="append", default=None,
                        help="your seat, 0–players-1 (default 0); with --web, repeat it to seat several people "
                        "(one page each)")
    parser.add_argument("--name", action="append", default=[], metavar="NAME",
                        help="the name of the person at --seat (in the same order when repeated): the record labels "
                        "the seat human:NAME (default: human), as traitors-eval --played reports it")
    parser.add_argument("--web", action="store_true",
                        help="play in the browser: serve each person's seat as a page (the web extra); the "
                        "addresses are printed")
    add_serve_arguments(parser)
    parser.add_argument(
        "--bots",
        default="heuristic",
        metavar="SPEC",
        help="bot for every other seat: random, heuristic (default), a checkpoint .zip, a generation folder or a run "
        "folder, openai:MODEL (a language model, see --llm-*)",
    )
    parser.add_argument(
        "--bot", action="append", default=[], metavar="SEAT=SPEC", help="bot for one seat (repeatable), e.g. 2=random"
    )
    parser.add_argument(
        "--show-beliefs", nargs="?", const="heuristic", default=None, metavar="SPEC",
        help="at each of your decisions, show an agent's role beliefs (P(hidden side) per seat) read from your own "
        "observation: SPEC an agent with beliefs (default: heuristic)",
    )
    parser.add_argument("--seed", type=int, default=None, help="game seed (default: drawn at random and shown)")
    add_claims_arguments(parser)
    parser.add_argument(
        "--record",
        default=None,
        metavar="PATH",
        help="where to save the game record, for a game with records (default records/game-<time>.json; never an "
        "existing file)",
    )
    add_llm_arguments(parser, concurrency=False)  # one game: the model's seats answer in turn
    return parser


def _bot_specs(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict[int, str]:
    specs = {s: args.bots for s in range(args.players) if s not in args.seats}
    given: set[int] = set()
    for item in args.bot:
        seat_text, sep, spec = item.partition("=")
        if not sep or not seat_text.strip().isdigit() or not spec:
            parser.error(f"--bot {item!r}: expected SEAT=SPEC, e.g. --bot 2=random")
        seat = int(seat_text)
        if not 0 <= seat < args.players:
            parser.error(f"--bot {item!r}: seat {seat} is not a seat of a {args.players}-player table (0–{args.players - 1})")
        if seat in args.seats:
            parser.error(f"--bot {item!r}: seat {seat} is yours (--seat {seat}), not another seat of this table")
        if seat in given:
            parser.error(f"--bot {item!r}: seat {seat} was given a bot already")
        given.add(seat)
        specs[seat] = spec
    return specs


def main(argv: Sequence[str] | None = None, console: Console | None = None, stdin: TextIO | None = None) -> int:
    """Run ``traitors-play``; returns the exit status (0 finished, 1 abandoned, 2 bad arguments)."""
    parser = _parser()
    args = parser.parse_args(argv)
    game = load_game(args.game)
    if args.players is None:
        args.players = game.type.default_players
    if args.players not in game.type.player_counts:
        parser.error(f"--players {args.players}: expected {sizes_text(game.type)} ({game.type.env_id})")
    args.seats = args.seat or [0]
    for seat in args.seats:
        if not 0 <= seat < args.players:
            parser.error(f"--seat {seat}: expected a seat in 0–{args.players - 1}")
    if len(set(args.seats)) < len(args.seats):
        parser.error(f"--seat {args.seats}: a seat is given twice; expected each person at a seat of their own")
    if len(args.seats) > 1 and not args.web:
        parser.error(f"--seat given {len(args.seats)} times: several people at one table play in the browser, "
                     "with --web (the terminal seats one)")
    args.seat = args.seats[0]
    labels = ["human"] * args.players
    if len(args.name) > len(args.seats):
        parser.error(f"--name given {len(args.name)} times for {len(args.seats)} seat(s); expected one name per --seat")
    for seat, name in zip(args.seats, args.name):
        if not name.strip() or len(name) > 40 or not name.isprintable():
            parser.error(f"--name {name[:40]!r}: expected a short name (1–40 printable characters)")
        labels[seat] = f"human:{name.strip()}"
    if args.seed is not None and args.seed < 0:
        parser.error(f"--seed {args.seed}: expected a non-negative integer")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    # No seed in the name: it is shown at the end of a game, not before (it gives the deal away).
    default_name = f"game-{datetime.datetime.now():%Y%m%d-%H%M%S-%f}.json"
    record_path = None
    if game.records is None:
        if args.record is not None:
            parser.error(f"--record {args.record}: {game.type.env_id} has no game records")
    else:
        if args.record is not None and not args.record.strip():
            parser.error("--record '': expected a file path")
        record_path = Path(args.record) if args.record is not None else Path("records") / default_name
        problem = unwritable(record_path)
        if problem:  # found before the game, not after an hour of play
            parser.error(f"--record {record_path}: {problem}")
    console = console or Console(highlight=False)
    stream = stdin if stdin is not None else sys.stdin
    if stream is None and not args.web:
        parser.error("there is no standard input to read your answers from")
    specs = _bot_specs(args, parser)
    bots: list[Agent | None] = [None] * args.players
    try:
        llm = llm_options_from_args(args)
        for seat, spec in specs.items():
            labels[seat], bots[seat] = make_bot(spec, np.random.default_rng([seed, seat]), game, llm=llm)
    except (BotSpecError, ValueError) as error:
        parser.error(str(error))
    except KeyboardInterrupt:
        console.print(Text("Interrupted while loading the bots; no game was started."))
        return 130
    advisors: dict[int, Agent] = {}  # one per person's seat, reading that seat's observation only
    advisor_label = ""
    if args.show_beliefs is not None:
        if game.hidden_side is None:
            parser.error(f"--show-beliefs: {game.type.env_id} declares no hidden side (Game.hidden_side)")
        for index, seat in enumerate(args.seats):
            try:
                advisor_label, advisors[seat] = make_bot(
                    args.show_beliefs, np.random.default_rng([seed, args.players + index]), game)
            except BotSpecError as error:
                parser.error(f"--show-beliefs: {error}")
            if not callable(getattr(advisors[seat], "beliefs", None)):
                parser.error(f"--show-beliefs {args.show_beliefs}: this agent has no role beliefs (a "
                             "beliefs(observation) method); expected e.g. heuristic")
    if args.web:
        from .play_web import play_in_browser

        return play_in_browser(game, args, bots, labels, seed, claims_from_args(args, game), advisors, advisor_label,
                               record_path, default_name, console)

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

    session = PlaySession(args.players, args.seat, bots, seed, console, read_line, claims_from_args(args, game), labels,
                          game, advisor=advisors.get(args.seat), advisor_label=advisor_label)
    status = 0
    try:
        session.run()
    except GameAbandoned:
        status = 1
    except KeyboardInterrupt:  # after the game, while its end was shown
        status = 130
    finally:  # also when a bot fails: what was played is kept
        if session.record is not None and record_path is not None:
            save_record(session.record, record_path, default_name, console, game)
    return status


if __name__ == "__main__":  # python -m traitors_env.table.play (the console script is traitors-play)
    sys.exit(main())
