"""Traitors Aboard: what one side's agent does on its turns, as shares of its main-phase actions.

Each action is shown in the game's own words (``Game.action_text``): a loot placement as the card placed and the
value announced (R04), e.g. ``place loot +1 announced as -2``; Plank and Empty Your Pockets without their target. The ``--pirates`` agent plays every Pirate seat and the
``--mutineers`` agent every Mutineer seat; the actions of ``--side`` are counted over ``--games`` seeded games per
table size::

    PYTHONPATH=. python docs/notes/lab/action_profile.py --pirates runs/jax_league \\
        --mutineers reports/exploit-league_default-pirates/best_response.msgpack --players 5 --games 40

Prints one line per action kind: its share of the side's main-phase actions, the count, the kind.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter

import numpy as np

from traitors_env.agents.spec import agent_maker
from traitors_env.core import load_game
from traitors_env.evaluation.games import play_game
from traitors_env.games.traitors_aboard import actions as A

GAME = load_game("traitors_aboard")


def action_kind(action: int) -> str | None:
    """The game's own text of a main-phase action, Plank and Empty Your Pockets without their target seat (``None``
    for the Spyglass order, the returns of a catch and claims)."""
    if action >= A.NUM_MAIN_ACTIONS:
        return None
    return re.sub(r" on seat \+\d+$", "", GAME.action_text(action))


class Counting:
    """An agent that plays as ``agent`` and counts the kinds of its main-phase actions into ``counts``."""

    def __init__(self, agent, counts: Counter) -> None:
        self.agent, self.counts = agent, counts

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        action = int(self.agent.act(observation, action_mask))
        kind = action_kind(action)
        if kind is not None:
            self.counts[kind] += 1
        return action


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pirates", required=True, help="agent spec of the Pirates")
    parser.add_argument("--mutineers", required=True, help="agent spec of the Mutineers")
    parser.add_argument("--side", choices=("pirates", "mutineers"), default="mutineers", help="the side counted")
    parser.add_argument("--players", nargs="+", type=int, default=[5], help="table sizes (default: 5)")
    parser.add_argument("--games", type=int, default=40, help="seeded games per table size")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    game = GAME
    makers = [agent_maker(args.pirates, game=game)[1], agent_maker(args.mutineers, game=game)[1]]
    counted = game.type.sides.index(args.side)
    counts: Counter = Counter()
    for n in args.players:
        env = game.raw_env(num_players=n)
        for i in range(args.games):
            seed = args.seed + i

            def seated(state, seed=seed, n=n):
                agents = [makers[0](seed), makers[1](seed + 1)]
                agents[counted] = Counting(agents[counted], counts)
                return [agents[game.side_of_seat(state, s)] for s in range(n)]

            play_game(env, seated, seed)
    total = sum(counts.values())
    print(f"{args.side}' main-phase actions: {total} in {args.games * len(args.players)} games")
    for kind, count in counts.most_common():
        print(f"{100 * count / total:5.1f} %  ({count})  {kind}")


if __name__ == "__main__":
    main()
