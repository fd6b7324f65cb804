"""The Traitors board game (2nd edition): its rules and its PettingZoo environment.

- :mod:`.cards`: roles, reward cards, the static numbers of the game (T01–T04);
- :mod:`.actions`: the one ``Discrete`` action table of every decision, from one declaration;
- :mod:`.engine`: the pure rules engine (no gymnasium/pettingzoo import);
- :mod:`.observation`: the declared observation layout and its encoder;
- :mod:`.game`: ``GAME``, the game as a plug-in (what every generic layer reads);
- :mod:`.env`: the PettingZoo AEC environment (public as :mod:`traitors_env.the_traitors_v0`);
- :mod:`.render`: the table as text.

Rules: ``docs/rules/the-traitors-board-game-2nd-ed-en.txt``; rulings T01–T16 in
``docs/rules/the-traitors-RULINGS.md``.
"""

__all__ = ["GAME"]


def __getattr__(name: str):
    """``GAME`` (:mod:`.game`), imported on first use so that importing the engine alone stays light."""
    if name == "GAME":
        from .game import GAME

        return GAME
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
