"""Playing games of any registered game, one agent per seat, and one agent's win rate in a side.

- :func:`play_game`: one full game through the PettingZoo AEC loop (the one play loop of the package's
  evaluation: the benchmark kit's cross-play plays through it too);
- :func:`agent_seats`: the seats an agent evaluated (or trained) in a side plays in a dealt game;
- :func:`evaluate`: many seeded games of one agent in a side against opponents at every other seat, its
  win rate with a 95 % Wilson interval.

``python -m traitors_env.evaluation.games [--game NAME]`` prints the baselines' table per table size.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..cli_args import GameOption
from ..core.agent import Agent, agent_beliefs
from ..core.game import Game, add_claims_arguments, claims_from_args
from ..core.registry import DEFAULT_GAME, load_game
from ..core.stats import wilson_interval

__all__ = ["AgentError", "MatchupResult", "agent_seats", "evaluate", "play_game"]


class AgentError(RuntimeError):
    """An agent that raised in ``act`` or chose an action its mask forbids (:func:`play_game` with ``check=True``).

    Attributes:
        seat: the seat the agent played; reason: what went wrong, in words.
    """

    def __init__(self, seat: int, reason: str) -> None:
        super().__init__(f"player_{seat}: {reason}")
        self.seat = seat
        self.reason = reason


def play_game(
    env_or_kwargs: Any,
    agents: Sequence[Agent] | Callable[[Any], Sequence[Agent]],
    seed: int | None = None,
    *,
    game: str | Game = DEFAULT_GAME,
    check: bool = False,
    beliefs: Callable[..., None] | None = None,
) -> dict:
    """Play one full game through the PettingZoo AEC loop, seat ``i`` played by ``agents[i]``.

    Args:
        env_or_kwargs: an env of the game (``env()`` or ``raw_env()``; it is reset), or a dict of keyword
            arguments for ``game.env``.
        agents: one :class:`Agent` per seat (``player_0`` first; the same object may play several seats), or
            a function of the dealt engine state (``env.unwrapped.game`` after the reset) returning that list,
            for seating agents by the deal as a game master does.
        seed: passed to ``env.reset(seed=...)``.
        game: the game of ``env_or_kwargs`` when it is a dict (a registry name or a :class:`Game`).
        check: refuse what an agent does wrong: an exception in ``act`` or an action that is not an int
            its ``action_mask`` allows raises :class:`AgentError` naming the seat (the benchmark kit).
            Without it the env's own rules apply (``env()`` ends the game on an illegal action).
        beliefs: called at each decision of a seat whose agent has role beliefs
            (:func:`traitors_env.core.agent.agent_beliefs`), before it acts, as ``beliefs(seat, observation,
            action_mask, values, state, agent)``: ``values`` the agent's beliefs (``float32``, one per relative seat),
            ``state`` the engine state at the decision (``env.unwrapped.game``); the kit's deduction metrics
            (:class:`traitors_env.evaluation.deduction.Deduction`). Agents without beliefs are never asked.

    Returns:
        ``{"result": ..., "rewards": [per-seat total reward, float], "infos": {agent name: final info}}``,
        ``result`` being the game's full result (``env.unwrapped.result``: everything revealed), or the last
        agent's ``info`` for a game stopped by an illegal move.

    Raises:
        ValueError: if the number of agents differs from the number of seats.
        AgentError: with ``check=True``, for an agent that raised or chose a forbidden action.
    """
    env = load_game(game).env(**env_or_kwargs) if isinstance(env_or_kwargs, dict) else env_or_kwargs
    names = env.possible_agents
    env.reset(seed=seed)
    if callable(agents) and not isinstance(agents, Sequence):
        agents = agents(env.unwrapped.game)
    if len(agents) != len(names):
        raise ValueError(f"got {len(agents)} agents for {len(names)} seats; give one agent per seat")
    seat_of = {name: i for i, name in enumerate(names)}
    rewards = [0.0] * len(names)
    infos: dict = {}
    info: dict = {}
    for name in env.agent_iter():
        observation, reward, termination, truncation, info_ = env.last()
        seat = seat_of[name]
        rewards[seat] += float(reward)
        if termination or truncation:
            infos[name] = info_
            info = info_ or info
            env.step(None)
            continue
        if beliefs is not None:
            try:
                values = agent_beliefs(agents[seat], observation["observation"])
            except Exception as error:
                if not check:
                    raise
                raise AgentError(seat, f"beliefs raised {type(error).__name__}: {error}") from None
            if values is not None:
                beliefs(seat, observation["observation"], observation["action_mask"], values, env.unwrapped.game,
                        agents[seat])
        if not check:
            env.step(agents[seat].act(observation["observation"], observation["action_mask"]))
            continue
        mask = observation["action_mask"]
        try:
            action = agents[seat].act(observation["observation"], mask)
        except Exception as error:  # the agent's own failure, named with its seat
            raise AgentError(seat, f"act raised {type(error).__name__}: {error}") from None
        if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
            action = action.item()
        if not (isinstance(action, (int, np.integer)) and not isinstance(action, bool) and 0 <= action < mask.size
                and mask[action]):
            raise AgentError(seat, f"act returned {action!r} for {name}, which its action mask forbids; expected an "
                             f"int with action_mask[action] == 1 (legal: {np.flatnonzero(mask).tolist()})")
        env.step(int(action))
    return {"result": env.unwrapped.result or info, "rewards": rewards, "infos": infos}


def agent_seats(game: str | Game, state, side: int | str, seed: int) -> list[int]:
    """The seats an agent evaluated (or trained) in ``side`` plays in the dealt game ``state``.

    In a team game (``utility == "zero_sum_teams"``) the agent plays every seat of its side. In a
    general-sum game rewards are individual, so the agent plays one seat of its side: the only one, or one
    drawn from ``seed`` (``numpy.random.default_rng([seed, 15])``), counting the side's seats to the left
    from the first seat of the other side. Every other seat is its opponents'.

    Args:
        game: a registry name or a :class:`Game`; state: the dealt engine state; side: 0, 1 or a side's
            key or label (``GameType.side_index``); seed: the game's seed.

    Returns:
        the seats, ascending (a list of ints).

    Raises:
        ValueError: for a side the game does not have.
    """
    game = load_game(game)
    index = side if isinstance(side, int) and side in (0, 1) else game.type.side_index(side)
    seats = game.learner_seats(state, index)
    if game.type.utility == "zero_sum_teams" or len(seats) <= 1:
        return seats
    n = state.num_players
    others = [s for s in range(n) if s not in seats]
    start = others[0] if others else 0
    ordered = sorted(seats, key=lambda s: (s - start) % n)
    return [ordered[int(np.random.default_rng([seed, 15]).integers(len(ordered)))]]


@dataclass(frozen=True)
class MatchupResult:
    """Wins of the evaluated agent's seats over ``games`` games, with the 95 % Wilson interval of the win rate.

    Attributes:
        agent, opponents: the two agents' labels; side: the evaluated agent's side key; wins: games in which
        its seat (a seat of its side, in a team game) won; end_conditions: how the games ended, counted.
    """

    agent: str
    opponents: str
    side: str
    num_players: int
    claims: bool
    games: int
    wins: int
    end_conditions: dict

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else float("nan")

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)


def seat_seed(seed: int, seat: int) -> int:
    """The seed of the agent a text agent's side gives its seat ``seat`` (every seat but the side's first)."""
    return int(np.random.SeedSequence([seed, seat, 11]).generate_state(1, dtype=np.uint64)[0])


def _agent(spec, game: Game, seed: int) -> tuple[str, Agent, Callable[[int], Agent] | None]:
    if isinstance(spec, str):
        from ..agents.spec import agent_maker

        label, make = agent_maker(spec, game=game.name)
        return spec, make(seed), make
    return type(spec).__name__, spec, None


class _Seating:
    """Who plays each seat: one agent for every seat of its side, except a text agent
    (:class:`~traitors_env.core.text.TextAgent`, which keeps one seat's conversation): the side's first seat gets it,
    every other seat its own, built once per seat with ``make(seat_seed(seed, seat))``."""

    def __init__(self, agent: Agent, make, seed: int, label: str) -> None:
        from ..core.text import TextAgent

        self.agent, self.make, self.seed, self.label = agent, make, seed, label
        self.text = isinstance(agent, TextAgent)
        self.extra: dict[int, Agent] = {}

    def seat(self, seat: int, first: bool) -> Agent:
        if first or not self.text:
            return self.agent
        if self.make is None:
            raise ValueError(f"{self.label}: a text agent object keeps one seat's conversation and cannot play "
                             "several seats; give its spec string (e.g. 'openai:MODEL') so each seat gets its own")
        if seat not in self.extra:
            self.extra[seat] = self.make(seat_seed(self.seed, seat))
        return self.extra[seat]


def evaluate(
    agent: str | Agent,
    opponents: str | Agent,
    side: int | str = 0,
    num_players: int | None = None,
    games: int = 1000,
    seed: int = 0,
    claims: bool = True,
    *,
    game: str | Game = DEFAULT_GAME,
    agent_label: str | None = None,
    opponents_label: str | None = None,
) -> MatchupResult:
    """Play ``games`` games with ``agent`` at the seats of ``side`` (:func:`agent_seats`) and ``opponents`` at the rest.

    Game ``g`` is dealt from seed ``seed + g``, so two agents evaluated with the same seed meet the same
    deals and chance. An agent given as a spec string (``"heuristic"``, a checkpoint, ``pkg.mod:fn``;
    :func:`traitors_env.agents.spec.agent_maker`) is built once, ``agent`` with ``seed`` and ``opponents``
    with ``seed + 1``; an :class:`Agent` object is used as it is. The evaluator reads the deal only to
    seat the agents, as a game master does. A text agent (a language model) keeps one seat's conversation: given
    as a spec, it plays its side's first seat and every other seat of the side gets its own, built once per seat.

    Args:
        side: the evaluated agent's side: 0 (the row side, ``game.type.sides[0]``), 1, or a side's key or label.
        num_players: the table size (default: the game's ``default_players``).

    Raises:
        ValueError: for a side, table size or agent name the game does not have (``AgentSpecError`` for a spec),
            or a text agent object (not a spec) whose side has several seats.
    """
    game = load_game(game)
    index = side if isinstance(side, int) and side in (0, 1) else game.type.side_index(side)
    n = game.check_players(game.type.default_players if num_players is None else num_players)
    label, agent, make = _agent(agent, game, seed)
    opponents_name, opponents, make_opponents = _agent(opponents, game, seed + 1)
    seating = {True: _Seating(agent, make, seed, label), False: _Seating(opponents, make_opponents, seed + 1,
                                                                            opponents_name)}
    env = game.env(num_players=n, claims=claims)
    wins = 0
    ends: dict[str, int] = {}
    for g in range(games):
        seats: list[int] = []

        def seated(state, g=g, seats=seats):  # the deal seats the agents (a game master's reading)
            seats[:] = agent_seats(game, state, index, seed + g)
            first: dict[bool, int] = {}
            return [seating[s in seats].seat(s, first.setdefault(s in seats, s) == s) for s in range(n)]

        play_game(env, seated, seed + g)
        state = env.unwrapped.game
        won = any(game.seat_won(state, s) for s in seats)
        wins += won
        end = game.end_condition(state)
        if game.type.utility == "zero_sum_teams":  # one side won: name it, as "chest opened (Pirates)"
            end = f"{end} ({game.type.side_labels[index if won else 1 - index]})"
        ends[end] = ends.get(end, 0) + 1
    return MatchupResult(agent_label or label, opponents_label or opponents_name, game.type.sides[index], n, claims,
                         games, wins, ends)


def main(argv: Sequence[str] | None = None) -> None:
    """Print the baselines' win rates per table size: in a team game the row side's (every pair of bots), in a
    general-sum game each bot's in each side against each bot."""

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--game", action=GameOption, default=DEFAULT_GAME, help=f"the game (default {DEFAULT_GAME})")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, nargs="*", default=None, help="table sizes (default: every size)")
    parser.add_argument("--seed", type=int, default=0)
    add_claims_arguments(parser)
    args = parser.parse_args(argv)
    game = load_game(args.game)
    players = args.players or list(game.type.player_counts)
    claims = claims_from_args(args, game)
    row_label, column_label = game.type.side_labels
    if game.type.utility == "zero_sum_teams":
        pairs = [("random", "random"), ("heuristic", "heuristic"), ("heuristic", "random"), ("random", "heuristic")]
        print(f"| players | {row_label} | {column_label} | games | {row_label} win rate | 95 % CI | end conditions |")
        print("|---|---|---|---|---|---|---|")
        for n in players:
            for a, b in pairs:
                r = evaluate(a, b, 0, n, args.games, args.seed, claims, game=game)
                low, high = r.interval
                ends = ", ".join(f"{k}: {v}" for k, v in sorted(r.end_conditions.items()))
                print(f"| {n} | {a} | {b} | {r.games} | {r.win_rate:.3f} | {low:.3f}–{high:.3f} | {ends} |")
        return
    pairs = [("heuristic", "heuristic"), ("random", "heuristic"), ("heuristic", "random"), ("random", "random")]
    print("| players | side | agent | opponents | games | win rate | 95 % CI |")
    print("|---|---|---|---|---|---|---|")
    for n in players:
        for side in (1, 0):  # the column side first, as the baselines' tables have it
            for a, b in pairs:
                r = evaluate(a, b, side, n, args.games, args.seed, claims, game=game)
                low, high = r.interval
                print(f"| {n} | {game.type.sides[side]} | {a} | {b} | {r.games} | {r.win_rate:.3f} | {low:.3f}–{high:.3f} |")


if __name__ == "__main__":
    main()
