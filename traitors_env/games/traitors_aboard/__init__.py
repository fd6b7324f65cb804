"""Traitors Aboard, the card game: its rules and its PettingZoo environment.

- :mod:`.cards`: card kinds, roles, the setup table (rulebook "Setup");
- :mod:`.actions`: the one ``Discrete`` action table of every decision;
- :mod:`.engine`: the pure rules engine (no gymnasium/pettingzoo import);
- :mod:`.observation`: the declared observation layout, its Python encoder and the compiled twin;
- :mod:`.game`: ``GAME``, the game as a plug-in (what every generic layer reads);
- :mod:`.env`: the PettingZoo AEC environment (public as :mod:`traitors_env.traitors_aboard_v0`);
- :mod:`.render`, :mod:`.records`: the text table and seeded game records.
"""

__all__ = ["GAME"]


def __getattr__(name: str):
    """``GAME`` (:mod:`.game`), imported on first use so that importing the engine alone stays light."""
    if name == "GAME":
        from .game import GAME

        return GAME
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
