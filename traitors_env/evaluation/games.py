"""Playing games with one agent per seat through the PettingZoo AEC loop, and baseline match-ups.

:func:`play_game` plays one full game; :func:`evaluate` plays many and reports the Pirates'
win rate with a 95 % Wilson interval. ``python -m traitors_env.evaluation.games`` prints the
baseline match-ups.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass

from pettingzoo import AECEnv

from .. import traitors_aboard_v0
from ..agents import Agent, TeamAgent, make_agent
from ..core.stats import wilson_interval
from ..games.traitors_aboard.cards import MAX_PLAYERS, MIN_PLAYERS

__all__ = ["MatchupResult", "evaluate", "play_game"]


def play_game(env_or_kwargs: AECEnv | dict, agents: Sequence[Agent], seed: int | None = None) -> dict:
    """Play one full game through the PettingZoo AEC loop, seat ``i`` played by ``agents[i]``.

    Args:
        env_or_kwargs: a ``traitors_aboard_v0`` env (``env()`` or ``raw_env()``; it is reset)
            or a dict of keyword arguments for ``traitors_aboard_v0.env``.
        agents: one :class:`Agent` per seat (``player_0`` first); the same object may play several seats.
        seed: passed to ``env.reset(seed=...)``.

    Returns:
        ``{"result": result, "rewards": [per-seat total reward]}`` where ``result`` is the
        game's full result (``env.unwrapped.result``: ``winner``, ``end_condition``, ``roles``,
        ``chest_value`` …), or the last agent's ``info`` for a game stopped by an illegal move.

    Raises:
        ValueError: if ``len(agents)`` differs from the number of seats.
    """
    env = traitors_aboard_v0.env(**env_or_kwargs) if isinstance(env_or_kwargs, dict) else env_or_kwargs
    names = env.possible_agents
    if len(agents) != len(names):
        raise ValueError(f"got {len(agents)} agents for {len(names)} seats; give one agent per seat")
    env.reset(seed=seed)
    seat_of = {name: i for i, name in enumerate(names)}
    rewards = [0.0] * len(names)
    info: dict = {}
    for name in env.agent_iter():
        observation, reward, termination, truncation, info_ = env.last()
        rewards[seat_of[name]] += float(reward)
        if termination or truncation:
            info = info_ or info
            action = None
        else:
            action = agents[seat_of[name]].act(observation["observation"], observation["action_mask"])
        env.step(action)
    return {"result": env.unwrapped.result or info, "rewards": rewards}



@dataclass(frozen=True)
class MatchupResult:
    """Pirate wins over ``games`` games, with the 95 % Wilson interval of the win rate."""

    pirates: str
    mutineers: str
    num_players: int
    claims: bool
    games: int
    pirate_wins: int
    end_conditions: dict

    @property
    def win_rate(self) -> float:
        return self.pirate_wins / self.games

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.pirate_wins, self.games)


def evaluate(
    pirates: str,
    mutineers: str,
    num_players: int = 5,
    games: int = 1000,
    seed: int = 0,
    claims: bool = True,
) -> MatchupResult:
    """Play ``games`` games, Pirate seats by agent ``pirates``, Mutineer seats by agent ``mutineers``.

    Every seat is played by a :class:`TeamAgent` that hands the decision to the agent of the
    role its observation shows; game ``g`` is reset with seed ``seed + g``.

    Raises:
        ValueError: for an unknown agent name.
    """
    env = traitors_aboard_v0.env(num_players=num_players, claims=claims)
    team = TeamAgent(make_agent(pirates, seed), make_agent(mutineers, seed + 1))
    agents = [team] * num_players
    wins = 0
    ends: dict[str, int] = {}
    for g in range(games):
        out = play_game(env, agents, seed=seed + g)
        result = out["result"]
        wins += result["winner"] == "Pirate"
        key = f"{result['end_condition']} ({result['winner']}s)"
        ends[key] = ends.get(key, 0) + 1
    return MatchupResult(pirates, mutineers, num_players, claims, games, wins, ends)


def main(argv: Sequence[str] | None = None) -> None:
    """Print the Pirates' win rate of the baseline match-ups per table size."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, nargs="*", default=list(range(MIN_PLAYERS, MAX_PLAYERS + 1)))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-claims", action="store_true")
    args = parser.parse_args(argv)
    pairs = [("random", "random"), ("heuristic", "heuristic"), ("heuristic", "random"), ("random", "heuristic")]
    print("| players | Pirates | Mutineers | games | Pirate win rate | 95 % CI | end conditions |")
    print("|---|---|---|---|---|---|---|")
    for n in args.players:
        for pirates, mutineers in pairs:
            r = evaluate(pirates, mutineers, n, args.games, args.seed, claims=not args.no_claims)
            low, high = r.interval
            ends = ", ".join(f"{k}: {v}" for k, v in sorted(r.end_conditions.items()))
            print(f"| {n} | {pirates} | {mutineers} | {r.games} | {r.win_rate:.3f} | {low:.3f}–{high:.3f} | {ends} |")


if __name__ == "__main__":
    main()
