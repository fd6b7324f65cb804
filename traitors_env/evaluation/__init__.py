"""Evaluation and the benchmark kit (no ``train`` extra needed for bots and user agents).

- :mod:`.games`: one game with one agent per seat; baseline match-ups with Wilson intervals.
- :mod:`.crossplay`: seeded cross-play over worker processes (identical for any worker count).
- :mod:`.metrics`: hidden-role metrics (deception, deduction, judgement) from replayed game records.
- :mod:`.ratings`: openskill team ratings; :mod:`.metagame`: the Nash equilibrium of the meta-game.
- :mod:`.population`: agents by spec and seed groups; :mod:`.report`, :mod:`.plots`: report.json/.md, PNGs.
- :mod:`.cli`: ``traitors-eval --agents …``; :mod:`.compare`: two reports side by side.
- :mod:`.kit_games`: the games the kit plays (``--game traitors_aboard`` or ``the_traitors``).
- :mod:`.the_traitors_games`: one agent in a role of ``the_traitors_v0`` against opponents.
"""

from ..core.stats import wilson_interval
from .games import MatchupResult, evaluate, play_game

__all__ = ["MatchupResult", "evaluate", "play_game", "wilson_interval"]
