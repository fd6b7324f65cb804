"""Games of ``the_traitors_v0``: one agent in a seat of a given role against opponents, win rates.

Rewards are individual (T16), so an agent is judged *in a role*: :func:`evaluate_role` seats the
evaluated agent at the Traitor's seat (``role="traitor"``) or at one Faithful seat drawn from the
game's seed (``role="faithful"``), every other seat is played by the opponents, and reports the
evaluated seat's win rate (a win = the +1 reward of T16) with a 95 % Wilson interval. The
evaluator reads the deal only to seat the agent, like a game master. Game ``g`` uses seed
``seed + g``, so two agents evaluated with the same seed meet the same deals and chance.

``python -m traitors_env.evaluation.the_traitors_games`` prints the baselines' table per table size.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .. import the_traitors_v0
from ..agents import make_agent
from ..core.stats import wilson_interval
from ..games.the_traitors.cards import MAX_PLAYERS, MIN_PLAYERS

__all__ = ["ROLES", "RoleResult", "evaluate_role", "learner_seat", "play_the_traitors_game"]

ROLES = ("faithful", "traitor")


def learner_seat(traitor: int, num_players: int, role: str, seed: int) -> int:
    """The seat an agent evaluated (or trained) in ``role`` plays: the Traitor's, or a Faithful seat drawn from ``seed``.

    Raises:
        ValueError: for a role other than ``"faithful"`` or ``"traitor"``.
    """
    if role == "traitor":
        return traitor
    if role == "faithful":
        offset = 1 + int(np.random.default_rng([seed, 15]).integers(num_players - 1))
        return (traitor + offset) % num_players
    raise ValueError(f"role {role!r} is not a role; expected one of {ROLES}")


def play_the_traitors_game(env, agents: Sequence, seed: int) -> dict:
    """Play one game through the AEC loop, seat ``i`` by ``agents[i]``; returns every seat's final ``info``.

    Raises:
        ValueError: if ``len(agents)`` differs from the number of seats.
    """
    names = env.possible_agents
    if len(agents) != len(names):
        raise ValueError(f"got {len(agents)} agents for {len(names)} seats; give one agent per seat")
    env.reset(seed=seed)
    seat_of = {name: i for i, name in enumerate(names)}
    infos: dict = {}
    for name in env.agent_iter():
        observation, _, termination, truncation, info = env.last()
        if termination or truncation:
            infos[name] = info
            env.step(None)
        else:
            env.step(agents[seat_of[name]].act(observation["observation"], observation["action_mask"]))
    return infos


@dataclass(frozen=True)
class RoleResult:
    """Wins of the evaluated seat over ``games`` games, with the 95 % Wilson interval."""

    agent: str
    opponents: str
    role: str
    num_players: int
    games: int
    wins: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.games

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)


def evaluate_role(
    agent,
    opponents,
    role: str,
    num_players: int = 5,
    games: int = 500,
    seed: int = 0,
    claims: bool = True,
    agent_label: str = "agent",
    opponents_label: str = "opponents",
    seat_of: Callable[[int, int, str, int], int] = learner_seat,
) -> RoleResult:
    """Play ``games`` games with ``agent`` in a seat of ``role`` and ``opponents`` in all other seats.

    ``agent`` and ``opponents`` follow :class:`traitors_env.agents.Agent`; the opponents' agent sees
    its own role in each observation (use :class:`~traitors_env.agents.SideAgent`
    to give each role its own policy).

    Raises:
        ValueError: for a bad role or table size.
    """
    env = the_traitors_v0.raw_env(num_players=num_players, claims=claims)
    wins = 0
    for g in range(games):
        env.reset(seed=seed + g)
        seat = seat_of(env.game.traitor, num_players, role, seed + g)
        agents = [agent if s == seat else opponents for s in range(num_players)]
        infos = play_the_traitors_game(env, agents, seed + g)
        wins += bool(infos[f"player_{seat}"]["won"])
    return RoleResult(agent_label, opponents_label, role, num_players, games, wins)


def main(argv: Sequence[str] | None = None) -> None:
    """Print each baseline's win rate per role and table size against heuristic opponents (and random's against random)."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, nargs="*", default=list(range(MIN_PLAYERS, MAX_PLAYERS + 1)))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-claims", action="store_true")
    args = parser.parse_args(argv)
    pairs = [("heuristic", "heuristic"), ("random", "heuristic"), ("heuristic", "random"), ("random", "random")]
    print("| players | role | agent | opponents | games | win rate | 95 % CI |")
    print("|---|---|---|---|---|---|---|")
    for n in args.players:
        for role in ROLES:
            for name, opponents in pairs:
                result = evaluate_role(
                    make_agent(name, args.seed, game="the_traitors"),
                    make_agent(opponents, args.seed + 1, game="the_traitors"),
                    role,
                    n,
                    args.games,
                    args.seed,
                    claims=not args.no_claims,
                    agent_label=name,
                    opponents_label=opponents,
                )
                low, high = result.interval
                print(
                    f"| {n} | {role} | {name} | {opponents} | {result.games} | {result.win_rate:.3f} | "
                    f"{low:.3f}–{high:.3f} |"
                )


if __name__ == "__main__":
    main()
