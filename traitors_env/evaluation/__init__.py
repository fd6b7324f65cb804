"""Evaluation and the benchmark kit, generic over the game registry (no ``train`` extra needed for bots and user agents).

Every module reads the game it plays from :func:`traitors_env.core.load_game` (``--game NAME``): team sizes,
which side a seat plays, the outcome, side keys and labels, and the hidden-role metrics where the game has them.

- :mod:`.games`: the one play loop (:func:`play_game`) and one agent's win rate in a side (:func:`evaluate`).
- :mod:`.crossplay`: seeded cross-play over worker processes (identical for any worker count).
- :mod:`.metrics`: hidden-role metrics (a game's ``metrics`` capability) summarized with intervals.
- :mod:`.ratings`: openskill team ratings; :mod:`.metagame`: the Nash equilibrium of the meta-game.
- :mod:`.population`: agents by spec and seed groups; :mod:`.report`, :mod:`.plots`: report.json/.md, PNGs;
  :mod:`.summary`: the report's per-agent summary (who plays the game better); :mod:`.deduction`: role beliefs.
- :mod:`.cli`: ``traitors-eval --agents … --game NAME``; :mod:`.compare`: two reports side by side.
"""

from ..core.stats import wilson_interval
from .games import MatchupResult, agent_seats, evaluate, play_game

__all__ = ["MatchupResult", "agent_seats", "evaluate", "play_game", "wilson_interval"]
