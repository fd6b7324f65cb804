"""``traitors-play --game the_traitors``: a human at one seat of The Traitors board game, bots at the others.

Usage::

    traitors-play --game the_traitors --players 5 --seat 0            # heuristic bots at the other seats
    traitors-play --game the_traitors --bots random --bot 2=runs/the_traitors_quick --seed 7

At each of the human's decisions with a choice the terminal shows the table as everyone sees it
(:func:`traitors_env.games.the_traitors.render.render_text`: gold, the pot, signals, claims, revealed votes,
the Armoury, the Night), then what only the human knows (their role, their Shields and Daggers, as
Traitor this round's assignment), then a numbered list of the legal choices in words. Decisions
with one legal choice (a Faithful's "no attempt" and "no murder", asked of everyone so that turns do
not reveal the Traitor) are taken for the human. ``?`` shows the rules in short, ``q`` (or Ctrl-C)
abandons the game, saying the seed that deals it again. At the end the Traitor,
the Final and the winners are shown.

Bots (``--bots`` for every other seat, ``--bot SEAT=SPEC`` for one): ``random``, ``heuristic``
(:mod:`traitors_env.games.the_traitors.bots`), or a trained run of ``the_traitors_v0`` (needs
the ``train`` extra): a run folder (its newest completed generation) or a generation folder holding
``faithful.zip`` and ``traitor.zip`` (each role played by its policy). Bots are seeded from the game
seed, so a seed and the human's answers replay the same game.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from typing import TextIO

import numpy as np
from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from .. import the_traitors_v0
from ..games.the_traitors.cards import MAX_PLAYERS, MIN_PLAYERS, NUM_ROUNDS, ROLE_NAMES, Role
from ..games.the_traitors.render import render_text
from ..games.the_traitors.rules_text import rules_summary as the_traitors_rules_summary
from .play import RULES_KEYS

PROMPT = "Your choice (1–{k}, ? for the rules, q to quit): "


class BotSpecError(ValueError):
    """A bot spec that names no agent of the_traitors_v0."""


def make_bot(spec: str, seed: np.random.Generator):
    """``(label, agent)`` for ``spec``: a baseline name, a run folder, a generation folder or a checkpoint
    (:func:`traitors_env.agents.spec.agent_maker`, shared with the benchmark kit).

    Raises:
        BotSpecError: naming the spec and what was expected.
    """
    from ..agents.spec import AgentSpecError, agent_maker

    try:
        label, make = agent_maker(spec, game="the_traitors")
    except AgentSpecError as error:
        raise BotSpecError(str(error)) from None
    return label, make(seed)


def private_lines(env, seat: int) -> list[str]:
    """What only ``seat`` knows: role, Shields and Daggers, and as Traitor this round's assignment (T06)."""
    game = env.game
    lines = [f"You are player_{seat}, {ROLE_NAMES[game.roles[seat]]}."]
    shields, daggers = game.hands[seat]
    lines.append(f"In your hand: {shields} Shield(s), {daggers} Dagger(s).")
    r = min(game.round, NUM_ROUNDS) - 1
    if game.roles[seat] == Role.TRAITOR and game.signals[r] is not None and game.round <= NUM_ROUNDS:
        if game.attempted[r]:
            lines.append(f"Secret assignment this round: {'succeeded' if game.succeeded[r] else 'failed'}.")
        else:
            lines.append("Secret assignment this round: not attempted.")
    return lines


def play(env, human_seat: int, bots: Sequence, seed: int, console: Console, read_line) -> bool:
    """Play one game; returns ``False`` if the human quit."""
    env.reset(seed=seed)
    game = env.game
    while not game.is_terminal:
        seat = game.current_player
        legal = game.legal_actions()
        if seat != human_seat:
            observation = env.observe(env.agent_selection)
            env.step(bots[seat].act(observation["observation"], observation["action_mask"]))
            continue
        if len(legal) == 1:
            env.step(legal[0])
            continue
        console.print(Rule(f"{game.phase.name.lower()} · round {min(game.round, NUM_ROUNDS)}"))
        console.print(Text(render_text(game)))
        for line in private_lines(env, seat):
            console.print(Text(line))
        for i, action in enumerate(legal, 1):
            console.print(Text(f"  {i}. {game.action_to_string(action)}"))
        while True:
            try:
                answer = read_line(PROMPT.format(k=len(legal))).strip().lower()
            except (EOFError, KeyboardInterrupt) as error:
                return _abandoned(console, game, seed, "input ended" if isinstance(error, EOFError) else "interrupted")
            if answer in ("q", "quit", "exit"):
                return _abandoned(console, game, seed, "quit at the prompt")
            if answer in RULES_KEYS:
                console.print(Text(the_traitors_rules_summary()))
                for i, action in enumerate(legal, 1):
                    console.print(Text(f"  {i}. {game.action_to_string(action)}"))
                continue
            # ASCII digits only, and short: int() of a 5000-digit line would raise.
            if answer.isascii() and answer.isdigit() and len(answer) <= 4 and 1 <= int(answer) <= len(legal):
                env.step(legal[int(answer) - 1])
                break
            console.print(Text(f"Please answer with a number from 1 to {len(legal)}, ? for the rules, or q."))
    console.print(Rule("game over"))
    console.print(Text(render_text(game)))
    console.print(Text("You win!" if game.winners[human_seat] else "You do not win this time."))
    console.print(Text(f"Game seed: {seed}"))
    return True


def _abandoned(console: Console, game, seed: int, why: str) -> bool:
    """Say that the game was abandoned, and how to play the same deal again; returns ``False``."""
    console.print(
        Text(
            f"Game abandoned ({why}) after {len(game.history)} decisions. The same deal and bots again: "
            f"--seed {seed}."
        )
    )
    return False


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="traitors-play --game the_traitors",
        description="Play The Traitors board game in the terminal against bots or trained policies.",
    )
    parser.add_argument("--game", choices=["the_traitors"], default="the_traitors", help=argparse.SUPPRESS)
    parser.add_argument("--players", type=int, default=5, help="table size, 3–6 (default 5)")
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0–players-1 (default 0)")
    parser.add_argument(
        "--bots", default="heuristic", metavar="SPEC", help="bot for every other seat (default heuristic)"
    )
    parser.add_argument("--bot", action="append", default=[], metavar="SEAT=SPEC", help="bot for one seat (repeatable)")
    parser.add_argument(
        "--seed", type=int, default=None, help="game seed (default: drawn at random and shown at the end)"
    )
    parser.add_argument("--no-claims", action="store_true", help="play without the claim step (T08)")
    return parser


def main(argv: Sequence[str] | None = None, console: Console | None = None, stdin: TextIO | None = None) -> int:
    """Run the game; returns the exit status (0 finished, 1 abandoned, 2 bad arguments)."""
    parser = _parser()
    args = parser.parse_args(argv)
    if not MIN_PLAYERS <= args.players <= MAX_PLAYERS:
        parser.error(f"--players {args.players}: The Traitors is played by {MIN_PLAYERS}–{MAX_PLAYERS} players")
    if not 0 <= args.seat < args.players:
        parser.error(f"--seat {args.seat}: expected a seat in 0–{args.players - 1}")
    if args.seed is not None and args.seed < 0:
        parser.error(f"--seed {args.seed}: expected a non-negative integer")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    specs = {s: args.bots for s in range(args.players) if s != args.seat}
    for item in args.bot:
        seat_text, sep, spec = item.partition("=")
        if not sep or not seat_text.strip().isdigit() or not spec:
            parser.error(f"--bot {item!r}: expected SEAT=SPEC, e.g. --bot 2=random")
        if int(seat_text) not in specs:
            parser.error(f"--bot {item!r}: seat {seat_text} is not another seat of this table")
        specs[int(seat_text)] = spec
    bots: list = [None] * args.players
    try:
        for seat, spec in specs.items():
            bots[seat] = make_bot(spec, np.random.default_rng([seed, seat]))[1]
    except BotSpecError as error:
        parser.error(str(error))
    console = console or Console(highlight=False)
    stream = stdin if stdin is not None else sys.stdin

    def read_line(prompt: str) -> str:
        if stdin is None and stream.isatty():
            return console.input(prompt)
        console.print(prompt, end="")
        line = stream.readline()
        if not line:
            console.print()
            raise EOFError
        console.print(line.rstrip("\n"), markup=False)
        return line

    env = the_traitors_v0.raw_env(num_players=args.players, claims=not args.no_claims)
    return 0 if play(env, args.seat, bots, seed, console, read_line) else 1
