"""A user's agent for the benchmark kit: a 15-line scripted Pirate (docs/benchmark/index.md, "Benchmark your own agent").

Pirates: announce every loot card as +1, Plank the seat with the lowest announced total, never open the chest.
Mutineers: the heuristic. Run: traitors-eval --agents heuristic examples/plank_pirate.py:make --games 100
(in the checkout), or from any folder once installed: traitors_env.examples.plank_pirate:make (setup.py ships it).
"""

import numpy as np

from traitors_env.agents import HeuristicAgent, TeamAgent
from traitors_env.games.traitors_aboard import actions as A
from traitors_env.games.traitors_aboard.observation import decode


class PlankPirate:
    def __init__(self, seed=None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation, action_mask):
        legal = np.flatnonzero(action_mask)
        seats = decode(observation).seats  # relative seats: 1 = next to the left
        planks = [a for a in legal if A.PLANK_BASE < a <= A.EYP_BASE]
        if planks:
            return int(min(planks, key=lambda a: seats[a - A.PLANK_BASE].announced_total))
        as_plus_one = [a for a in legal if A.LOOT_BASE <= a <= A.PLANK_BASE and (a - A.LOOT_BASE) % 3 == 0]
        return int(self.rng.choice(as_plus_one or [a for a in legal if a != A.OPEN_CHEST] or legal))


def make(seed=None):
    """The factory traitors-eval calls once per game with that game's seed."""
    return TeamAgent(PlankPirate(seed), HeuristicAgent(seed))
