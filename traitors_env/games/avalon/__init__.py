"""*The Resistance: Avalon*: its rules and its PettingZoo environment (``avalon_v0``).

- :mod:`.roles`: roles, sides, the tables of Evil counts and team sizes (A01, A02, A05, A11);
- :mod:`.actions`: the one ``Discrete`` action table, from one declaration;
- :mod:`.engine`: the pure rules engine (no gymnasium/pettingzoo import);
- :mod:`.observation`: the declared observation layout and its encoder;
- :mod:`.hidden`: what a seat cannot know, redrawn (the secrets test);
- :mod:`.game`: ``GAME``, the game as a plug-in; :mod:`.env`: the PettingZoo AEC environment;
- :mod:`.render`, :mod:`.view`, :mod:`.rules_text`: text.

Rulings A01–A18: ``docs/rules/avalon-RULINGS.md``.
"""

__all__ = ["GAME"]


def __getattr__(name: str):
    """``GAME`` (:mod:`.game`), imported on first use so that importing the engine alone stays light."""
    if name == "GAME":
        from .game import GAME

        return GAME
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
