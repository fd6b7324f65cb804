"""The games, one folder each: everything game-specific lives in ``games/<name>/``, which exports one ``GAME``.

A game plugs in by one registry line (:data:`traitors_env.core.registry.BUILTIN_GAMES`, or the entry-point group
``traitors_env.games`` from another package); nothing above this folder names a game. A game never imports
another game, nor any layer above ``core`` (``tests/core/test_imports.py``).
"""
