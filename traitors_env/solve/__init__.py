"""Exact solving of small variants (issue 50): our games as OpenSpiel games, exact best responses and NashConv.

- :mod:`.traitors_aboard`: *Traitors Aboard*'s small variants as an explicit game tree (:class:`~.traitors_aboard.Node`):
  the deal, the draws and the Spyglass shuffle as chance outcomes over the reference engine. Pure Python, no
  OpenSpiel.
- :mod:`.spiel`: any of those trees as a pyspiel Python game (``pyspiel.register_game``), so OpenSpiel's
  algorithms (tabular best response, ``exploitability.nash_conv``, CFR) run on it unmodified. Needs the ``solve``
  extra.
- :mod:`.exact`: the whole tree enumerated once, an agent's action probabilities at every information state, each
  seat's and each side's exact best response and NashConv. Pure Python; OpenSpiel only to cross-check.

Nothing outside this package imports ``open_spiel``; games and core never import this package.
"""

from __future__ import annotations

INSTALL_HINT = ("OpenSpiel is not installed; install the solve extra: pip install 'traitors-aboard-rl[solve]' "
                '(in a checkout: pip install -e ".[solve]"; open-spiel 2.0.2)')


def require_pyspiel():
    """The ``pyspiel`` module; ``ImportError`` saying how to install it where the ``solve`` extra is missing."""
    try:
        import pyspiel
    except ImportError as error:  # pragma: no cover - depends on the install
        raise ImportError(INSTALL_HINT) from error
    return pyspiel
