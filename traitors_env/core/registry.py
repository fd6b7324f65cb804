"""The one registry of games: ``register_game``, ``registered_games``, ``load_game``.

Entry points are strings (``"package.module:GAME"``) imported on first use, as in Gymnasium,
PettingZoo and TextArena, so registering costs nothing. A game in another installed package
registers itself through the entry-point group ``traitors_env.games`` (as pytest plugins do)::

    [project.entry-points."traitors_env.games"]
    my_game = "my_package.my_game:GAME"

The built-in games are the lines of :data:`BUILTIN_GAMES` and :data:`OPTIONAL_GAMES`; this is the only place that
names them. An optional game needs an optional extra (OpenSpiel's games: ``[solve]``): where the module that extra
installs is absent, the game is not registered (no tool lists it, :func:`loadable_games` warns of nothing, as for a
game that does not exist) and :func:`load_game` of its name raises :class:`MissingExtraError`, saying how to install
the extra. Whether the module is there is asked of the import system (``importlib.util.find_spec``), without
importing it.
"""

from __future__ import annotations

import copyreg
import importlib
import importlib.util
import re
import warnings
from collections.abc import Callable, Iterator
from importlib import metadata

from .game import Game

__all__ = ["BUILTIN_GAMES", "DEFAULT_GAME", "ENTRY_POINT_GROUP", "OPTIONAL_GAMES", "GameLoadError", "MissingExtraError",
           "UnknownGameError", "game_of_record", "load_game", "load_game_record", "loadable_games", "missing_extra", "on_register", "register_game",
           "registered_env_ids", "registered_games", "shipped_games", "unregister_game"]

#: The games that ship with the package: name → entry point.
BUILTIN_GAMES = {
    "traitors_aboard": "traitors_env.games.traitors_aboard.game:GAME",
    "the_traitors": "traitors_env.games.the_traitors.game:GAME",
    "avalon": "traitors_env.games.avalon.game:GAME",
}

#: Built-in games that need an optional extra: name → (entry point, the top-level module the extra installs, the extra).
OPTIONAL_GAMES = {
    "openspiel_social_deduction": ("traitors_env.games.openspiel.social_deduction:GAME", "pyspiel", "solve"),
}

#: The game a tool plays when none is named (the package's first game).
DEFAULT_GAME = "traitors_aboard"

#: The entry-point group through which other installed packages register games.
ENTRY_POINT_GROUP = "traitors_env.games"

_entry_points: dict[str, str | Game | Callable[[], Game]] = dict(BUILTIN_GAMES)
_env_ids: dict[str, str] = {name: f"{name}_v0" for name in BUILTIN_GAMES}
_loaded: dict[str, Game] = {}
_plugins_read = False
_warned: set[str] = set()  # games whose load failure loadable_games() has reported (once per process and entry point)
_listeners: list[Callable[[], object]] = []  # called after every register_game (PettingZoo's registry: on_register)
_NAME = re.compile(r"[a-z0-9_]+")


class UnknownGameError(ValueError):
    """A game name (or environment id) that is not registered."""


class GameLoadError(ValueError):
    """A registered game whose entry point cannot be imported or called (a plug-in installed without what it needs),
    or gives something other than the game registered (not a :class:`Game`, another name or env id)."""


class MissingExtraError(GameLoadError):
    """A built-in game of :data:`OPTIONAL_GAMES` asked for while its optional extra is not installed; the message
    says which extra and how to install it."""


def _module_present(module: str) -> bool:
    """Whether ``module`` can be imported here (asked of the import system, without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def missing_extra(name: str) -> str | None:
    """For the name or env id of a built-in optional game whose extra is not installed (or of one of its variants,
    ``<game>:<variant>``): the sentence saying how to install it; else ``None``."""
    name = name.partition(":")[0] if isinstance(name, str) else name
    for game, (_, module, extra) in OPTIONAL_GAMES.items():
        if name in (game, f"{game}_v0") and not _module_present(module):
            return (f"game {game!r} needs the optional extra [{extra}] (the {module!r} module is not installed): "
                    f'pip install -e ".[{extra}]" in a checkout, or pip install "traitors-aboard-rl[{extra}]"')
    return None


def register_game(name: str, entry_point: str | Game | Callable[[], Game], *, env_id: str | None = None,
                  override: bool = False) -> None:
    """Register a game under ``name``.

    Args:
        name: the registry name, ``[a-z0-9_]+`` (the game's ``GameType.short_name``).
        entry_point: ``"module:attribute"`` (imported on first :func:`load_game`), a :class:`Game`, or a
            zero-argument callable returning one.
        env_id: the PettingZoo environment name (default ``f"{name}_v0"``; checked against the game's
            ``GameType.env_id`` when it loads).
        override: replace a game registered under the same name (else ``ValueError``).

    Raises:
        ValueError: for a bad name, a malformed entry point or env id, a name already taken (unless ``override``), or
            a name or env id that another game answers to (``load_game`` takes either).
    """
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(f"game name {name!r} is not valid; expected lowercase letters, digits and '_'")
    if isinstance(entry_point, str) and not _is_entry_point(entry_point):
        raise ValueError(f"entry point {entry_point!r} of game {name!r} is not 'module:attribute'")
    if not isinstance(entry_point, (str, Game)) and not callable(entry_point):
        raise ValueError(f"entry point of game {name!r} must be 'module:attribute', a Game or a callable; got {entry_point!r}")
    if env_id is not None and (not isinstance(env_id, str) or not env_id):
        raise ValueError(f"env_id {env_id!r} of game {name!r} is not a non-empty string")
    env_id = env_id or f"{name}_v0"
    _read_plugins()
    if name in _entry_points and not override and (_entry_points[name] != entry_point or _env_ids[name] != env_id):
        raise ValueError(f"a game named {name!r} is registered already (env id {_env_ids[name]!r}); pass override=True "
                         "to replace it")
    for other, other_id in _env_ids.items():  # load_game takes a name or an env id: each must name one game
        if other != name and (env_id in (other, other_id) or name == other_id):
            raise ValueError(f"game {name!r} with env id {env_id!r} would take the name or env id of game {other!r} "
                             f"(env id {other_id!r})")
    _entry_points[name] = entry_point
    _env_ids[name] = env_id
    _loaded.clear()  # an environment id may have pointed at the replaced game
    _warned.discard(name)  # a replaced entry point that fails again is reported again
    for callback in _listeners:
        callback()


def on_register(callback: Callable[[], object]) -> None:
    """Call ``callback()`` after every :func:`register_game` (``traitors_env.registration`` puts a game registered at
    run time into PettingZoo's registry this way, without the registry importing it)."""
    if callback not in _listeners:
        _listeners.append(callback)


def _is_entry_point(value: str) -> bool:
    """Whether ``value`` is ``"package.module:attribute"`` (dotted identifiers, one colon, an identifier after it)."""
    module, colon, attribute = value.partition(":")
    return bool(colon) and attribute.isidentifier() and all(part.isidentifier() for part in module.split("."))


def unregister_game(name: str) -> None:
    """Remove a registered game (for tests that register a toy game); a built-in one may not be removed."""
    if name in BUILTIN_GAMES or name in OPTIONAL_GAMES:
        raise ValueError(f"{name!r} is a built-in game and cannot be unregistered")
    _entry_points.pop(name, None)
    _env_ids.pop(name, None)
    _loaded.clear()
    _warned.discard(name)


def _read_plugins() -> None:
    global _plugins_read
    if _plugins_read:
        return
    _plugins_read = True
    for name, (entry_point, module, _) in OPTIONAL_GAMES.items():  # registered where their extra is installed
        if name not in _entry_points and _module_present(module):
            _entry_points[name] = entry_point
            _env_ids[name] = f"{name}_v0"
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        env_id = f"{entry.name}_v0"
        taken = [other for other, other_id in _env_ids.items() if {entry.name, env_id} & {other, other_id}]
        if not _NAME.fullmatch(entry.name) or not _is_entry_point(entry.value) or taken:
            why = f"the name or env id of game {taken[0]!r}" if taken else "not a game name [a-z0-9_]+ and 'module:attribute'"
            warnings.warn(f"entry point {entry.name} = {entry.value!r} of group {ENTRY_POINT_GROUP!r} is left out: {why}",
                          stacklevel=2)
            continue
        _entry_points[entry.name] = entry.value
        _env_ids[entry.name] = env_id


def shipped_games() -> tuple[str, ...]:
    """The games this package ships that can load here: every one of :data:`BUILTIN_GAMES`, then those of
    :data:`OPTIONAL_GAMES` whose extra is installed (in :func:`registered_games` order)."""
    return (*BUILTIN_GAMES, *(name for name, (_, module, _) in OPTIONAL_GAMES.items() if _module_present(module)))


def registered_games() -> tuple[str, ...]:
    """The names of every registered game: the built-in ones first, then others in registration order."""
    _read_plugins()
    return tuple(_entry_points)


def registered_env_ids() -> dict[str, str]:
    """Environment id → game name of every registered game (without importing any of them)."""
    _read_plugins()
    return {env_id: name for name, env_id in _env_ids.items()}


def _resolve(name: str) -> Game:
    entry = _entry_points[name]
    if isinstance(entry, Game):
        game = entry
    else:
        try:
            if isinstance(entry, str):
                module, _, attribute = entry.partition(":")
                game = getattr(importlib.import_module(module), attribute)
                if callable(game) and not isinstance(game, Game):
                    game = game()
            else:
                game = entry()
        except Exception as error:  # ImportError, AttributeError, whatever the plug-in's own import raises
            raise GameLoadError(f"game {name!r} could not be loaded from its entry point {entry!r}: "
                                f"{type(error).__name__}: {error}") from error
    if not isinstance(game, Game):
        raise GameLoadError(f"entry point of game {name!r} gave {type(game).__name__}, not a traitors_env.core.Game")
    if game.type.short_name != name:
        raise GameLoadError(f"game registered as {name!r} calls itself {game.type.short_name!r}")
    if game.type.env_id != _env_ids[name]:
        raise GameLoadError(f"game {name!r} was registered with env_id {_env_ids[name]!r} but its GameType says "
                            f"{game.type.env_id!r}")
    return game


def load_game(name: str | Game) -> Game:
    """The :class:`Game` registered as ``name`` (its short name or its environment id, ``"traitors_aboard_v0"``).

    ``"<game>:<variant>"`` (``"traitors_aboard:mini3"``, ``"traitors_aboard_v0:mini3"``) is the game's declared
    variant as a game of its own (:meth:`Game.variant_game`), the same object on every call.

    Raises:
        UnknownGameError: naming ``name`` and the registered games, or the variant and the game's declared ones.
        MissingExtraError: for a built-in optional game whose extra is not installed, saying how to install it.
        GameLoadError: for a registered game whose entry point fails (the plug-in's own error, chained).
    """
    if isinstance(name, Game):
        return name
    if not isinstance(name, str):
        raise UnknownGameError(f"a game is named by a string; got {name!r}")
    _read_plugins()
    if name in _loaded:
        return _loaded[name]
    if not isinstance(name, str):
        raise UnknownGameError(f"a game is named by a string; got {name!r}")
    if ":" in name:
        base, _, variant = name.partition(":")
        game = load_game(base)
        if variant not in game.variants:
            raise UnknownGameError(f"unknown game {name!r}: {game.name} has no variant {variant!r}; declared: "
                                   f"{', '.join(sorted(game.variants)) or 'none'}")
        key = f"{game.name}:{variant}"
        if key not in _loaded:
            _loaded[key] = game.variant_game(variant)
        _loaded[name] = _loaded[key]
        return _loaded[key]
    key = name if name in _entry_points else registered_env_ids().get(name)
    if key is None:
        hint = missing_extra(name)
        if hint is not None:
            raise MissingExtraError(hint)
        raise UnknownGameError(f"unknown game {name!r}; registered games: {', '.join(registered_games())}")
    game = _loaded.get(key) or _resolve(key)
    _loaded[key] = _loaded[name] = game
    return game


def loadable_games() -> Iterator[Game]:
    """Every registered game that loads, in :func:`registered_games` order, each loaded as it is reached (a caller
    that stops early loads no more).

    What every tool that lists or loads all games uses (the JAX engines, ``traitors-replay``, TextArena's
    registration), so that one broken plug-in leaves the others working, as Gymnasium and PettingZoo keep a
    plug-in's failure local to it. A game whose entry point fails (:class:`GameLoadError`) is left out with one
    ``UserWarning`` per process naming it; :func:`load_game` of that game still raises the error.
    """
    for name in registered_games():
        try:
            game = load_game(name)
        except GameLoadError as error:
            if name not in _warned:
                _warned.add(name)
                warnings.warn(f"left out a game that does not load: {error}", stacklevel=2)
            continue
        yield game


def _reduce_game(game: Game):
    """Pickle a registered :class:`Game` by its name: a Game holds modules and functions that do not pickle, and a
    worker process (SB3's ``SubprocVecEnv``, the kit's workers) loads the same game from its own registry.

    Raises:
        pickle.PicklingError: for a game that its registry name does not load in this process (an unregistered
            ``dataclasses.replace`` copy, say: neither the registered Game nor equal to it), naming it.
    """
    import pickle

    try:
        registered = load_game(game.name)
    except (UnknownGameError, GameLoadError):
        registered = None
    if registered is not game and registered != game:  # equal: a factory entry point builds a new one per load
        raise pickle.PicklingError(
            f"game {game.name!r} is pickled by its registry name, but that name gives "
            f"{'no game' if registered is None else 'another Game'} here; register_game() it (a worker process "
            "must be able to load it by name) or keep it in one process (training: vec_env: dummy; the kit: workers=1)"
        )
    return load_game, (game.name,)


copyreg.pickle(Game, _reduce_game)


def game_of_record(source: str | object) -> Game:
    """The registered game whose records have the ``format`` that ``source`` (a path, JSON text, or a record's parsed
    JSON) names; the default game where none does.

    Raises:
        RecordError: for a missing or unreadable file or text that is not JSON.
    """
    from .records import record_format  # here: the registry needs no record code to load a game

    wanted = record_format(source)
    for game in loadable_games():  # a broken plug-in is left out with a warning, not the end of every replay
        if game.records is not None and game.records.GameRecord.model_fields["format"].default == wanted:
            return game
    return load_game(DEFAULT_GAME)


def load_game_record(path, game: Game | None = None):
    """``(record, game)``: the record in the file ``path``, of ``game`` (default: the game its format names).

    Raises:
        RecordError: for a file that cannot be read, is not JSON, is of a game without records, or is not a valid
            record of that game (the game's ``RecordError`` is a ``ValueError``: it is raised as is).
    """
    from .records import RecordError, read_record

    source = read_record(path)
    game = game or game_of_record(source)
    if game.records is None:
        raise RecordError(f"{game.type.env_id} has no game records")
    return game.records.load_record(source), game
