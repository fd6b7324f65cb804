"""OpenSpiel games as plug-ins: pyspiel games with imperfect information and two sides, registered as :class:`Game`.

- :mod:`.adapter`: the generic half (a pyspiel state in our engine protocol, chance outcomes drawn from a seeded
  generator, the secrets test's perturbation through chance outcomes, the PettingZoo env of a declaration);
- :mod:`.social_deduction`: OpenSpiel's ``social_deduction`` as ``openspiel_social_deduction_v0``.

Needs the ``[solve]`` extra (``pip install -e ".[solve]"``, open-spiel ≥ 2.0.2); this folder is the only part of
the package that imports ``pyspiel``, and importing the folder itself imports nothing (``GAME`` loads on first use).
"""

__all__ = ["GAME"]


def __getattr__(name: str):
    """``GAME`` (:mod:`.social_deduction`), imported on first use."""
    if name == "GAME":
        from .social_deduction import GAME

        return GAME
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
