"""Exact solving of small variants (issue 50): our games as OpenSpiel games, exact best responses and NashConv.

- :mod:`.traitors_aboard`: *Traitors Aboard*'s small variants as an explicit game tree (:class:`~.traitors_aboard.Node`):
  the deal, the draws and the Spyglass shuffle as chance outcomes over the reference engine. Pure Python, no
  OpenSpiel.
- :mod:`.avalon`: *Avalon*'s small variants (``avalon:mini5``: a shorter quest track and rejection limit of the same
  engine, rulings S04–S06) as an explicit tree; chance is the deal only. Pure Python, no OpenSpiel.
- :mod:`.spiel`: any of those trees as a pyspiel Python game (``pyspiel.register_game``), so OpenSpiel's
  algorithms (tabular best response, ``exploitability.nash_conv``, CFR) run on it unmodified. Needs the ``solve``
  extra.
- :mod:`.openspiel_tree`: the small variants an OpenSpiel-adapted game declares (``Game.extras["small_variants"]``,
  e.g. ``openspiel_social_deduction``'s) as the same kind of tree, over pyspiel states. Needs the ``solve`` extra.
- :mod:`.exact`: the whole tree enumerated once, an agent's action probabilities at every information state, each
  seat's and each side's exact best response and NashConv. Pure Python; OpenSpiel only to cross-check.
- :func:`small_variants`: a registered game's declared small variants, whichever of the above declares them.

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


def check_installed() -> None:
    """``ImportError`` with :data:`INSTALL_HINT` where OpenSpiel is missing (for a tool, before minutes of work)."""
    require_pyspiel()


#: Games whose small variants' trees live here (game name → module with ``VARIANTS``): Traitors Aboard declares its
#: variants in its own folder (``games/traitors_aboard/small.py``, also its ``Game.variants``), and their tree
#: subclasses its engine (:mod:`.traitors_aboard`), which games never import; Avalon's are variants of its
#: ``Game.variants`` (:mod:`.avalon`). An OpenSpiel-adapted game's tree is :mod:`.openspiel_tree`.
_DECLARED_HERE = {"traitors_aboard": "traitors_aboard", "avalon": "avalon"}


def small_variants(game) -> dict:
    """The small variants of the registered ``game`` (a :class:`~traitors_env.core.game.Game`): name → a variant with
    ``name``, ``description``, ``num_players`` and ``root()`` (the tree of :func:`.exact.build_tree`); empty where the game declares none. An OpenSpiel game's need the
    ``solve`` extra (``ImportError`` with :data:`INSTALL_HINT`)."""
    if game.extras.get("small_variants"):
        from .openspiel_tree import variants

        return variants(game.extras["spiel_spec"])
    if game.name in _DECLARED_HERE:
        import importlib

        return dict(importlib.import_module(f"{__name__}.{_DECLARED_HERE[game.name]}").VARIANTS)
    return {}


def small_variant_names(game) -> tuple[str, ...]:
    """The names of :func:`small_variants` of ``game``, without OpenSpiel (a config check needs no ``solve`` extra)."""
    if game.extras.get("small_variants"):
        return tuple(game.extras["small_variants"])
    return tuple(small_variants(game)) if game.name in _DECLARED_HERE else ()


def is_small_variant(name: str) -> bool:
    """Whether ``name`` is ``"<game>:<variant>"`` with ``<variant>`` a declared small variant (no OpenSpiel needed)."""
    from ..core import load_game

    base, _, variant = name.partition(":")
    return bool(variant) and variant in small_variant_names(load_game(base))


def openspiel_nash_conv(variant, tree, probabilities) -> dict:
    """OpenSpiel's ``exploitability.nash_conv`` of the profile ``probabilities`` (per information state of ``tree``)
    on the variant's pyspiel game: an OpenSpiel game's own (:mod:`.openspiel_tree`), or our game's as a pyspiel
    game (:mod:`.spiel`). A cross-check of :func:`.exact.evaluate`'s seat NashConv; needs the ``solve`` extra."""
    if hasattr(variant, "pyspiel_game"):
        from .openspiel_tree import openspiel_nash_conv as nash_conv

        return nash_conv(variant, tree, probabilities)
    from .spiel import openspiel_nash_conv as nash_conv

    return nash_conv(variant, tree, probabilities)
