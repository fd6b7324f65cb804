"""Evaluation: playing games with one agent per seat, match-ups with Wilson intervals."""

from .games import MatchupResult, evaluate, play_game
from .stats import wilson_interval

__all__ = ["MatchupResult", "evaluate", "play_game", "wilson_interval"]
