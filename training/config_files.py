"""The run configs the package ships, chosen by name: ``traitors-train --config quick``.

The repository's ``configs/`` folder is installed as the package ``training.configs`` (setup.py maps it), so a wheel
carries it and :mod:`importlib.resources` finds it from any folder: ``quick`` is ``configs/quick.yaml``,
``ablation/claims-on`` is ``configs/ablation/claims-on.yaml``. A path to a YAML file still works and wins over a
name (``--config ./quick.yaml``, ``--config configs/quick.yaml`` inside the checkout).

Only a source checkout that is not installed at all (``PYTHONPATH=.``) has no ``training.configs``; there the
checkout's own ``configs/`` folder stands in, found beside the ``training`` package and only when that folder is a
checkout (``pyproject.toml`` beside it). An installed package never reads the current folder or the repository.

This module imports nothing of :mod:`training.config` (which calls it): errors are :class:`UnknownConfigError`,
a ``ValueError`` that :func:`training.config.load_config` turns into its ``ConfigError``.
"""

from __future__ import annotations

import difflib
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path

__all__ = ["CONFIG_PACKAGE", "UnknownConfigError", "config_names", "list_configs", "resolve_config"]

#: The package the configs are installed as (setup.py: ``configs/`` -> ``training.configs``).
CONFIG_PACKAGE = "training.configs"
_SUFFIXES = (".yaml", ".yml")


class UnknownConfigError(ValueError):
    """``--config`` names neither an existing file nor a config the package ships (the message lists the names)."""


def _root() -> Traversable:
    """The folder of shipped configs: the installed ``training.configs``, or an uninstalled checkout's ``configs/``."""
    try:
        return resources.files(CONFIG_PACKAGE)
    except ModuleNotFoundError:
        # Not installed (PYTHONPATH=. in a checkout): the folder setup.py maps, if this is a checkout.
        checkout = Path(__file__).resolve().parent.parent
        if (checkout / "pyproject.toml").is_file() and (checkout / "configs").is_dir():
            return checkout / "configs"
        raise UnknownConfigError(
            f"the package {CONFIG_PACKAGE!r} is not installed, so no config can be chosen by name; "
            "reinstall the package (pip install traitors-aboard-rl) or pass a path to a YAML file"
        ) from None


def _walk(folder: Traversable, prefix: str = ""):
    """``(name, file)`` for every YAML file under ``folder``, names like ``quick`` or ``ablation/claims-on``."""
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.is_dir() and not entry.name.startswith(("_", ".")):
            yield from _walk(entry, f"{prefix}{entry.name}/")
        elif entry.is_file() and entry.name.endswith(_SUFFIXES):
            yield prefix + entry.name.rsplit(".", 1)[0], entry


def _shipped() -> list:
    """:func:`_walk` of the shipped configs sorted by name: by file name, ``x-half.yaml`` would come before
    ``x.yaml``."""
    return sorted(_walk(_root()), key=lambda item: item[0])


def config_names() -> list[str]:
    """The names of the shipped configs, sorted (``["ablation/claims-off", …, "quick", "tiny"]``).

    Raises:
        UnknownConfigError: the package's configs are not installed (nor is this an uninstalled checkout).
    """
    return [name for name, _ in _shipped()]


def list_configs() -> dict[str, str]:
    """Every shipped config's name -> its one-line summary (the first sentence of the file's opening comment).

    Raises:
        UnknownConfigError: as :func:`config_names`.
    """
    return {name: _summary(entry.read_text(encoding="utf-8")) for name, entry in _shipped()}


def _summary(text: str) -> str:
    comment = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        comment.append(line.lstrip("#").strip())
    words = " ".join(comment)
    first = words.split(". ", 1)[0].rstrip(".")
    return (first[:117] + "...") if len(first) > 120 else first


def resolve_config(name_or_path: str | Path) -> Path:
    """The YAML file ``name_or_path`` means: an existing path as given, else the shipped config of that name.

    Args:
        name_or_path: a path (``runs/quick/config.yaml``, ``configs/quick.yaml``), or, as a ``str`` only, a name of
            :func:`config_names` (``quick``, ``tiny``, ``ablation/claims-on``; ``quick.yaml`` too).

    Returns:
        A path of the file system: ``name_or_path`` itself when it exists (a file or a folder: the caller says
        what is wrong with a folder); else the shipped file (inside the installed package: to read, never to write).

    Raises:
        UnknownConfigError: nothing exists at ``name_or_path`` and (for a ``str``) no shipped config has that name;
            the message lists the names, the closest one first where one is close.
    """
    path = Path(name_or_path)
    if path.exists():
        return path
    if isinstance(name_or_path, Path):  # a Path is a path (a run folder's config.yaml), never a name
        raise UnknownConfigError(f"config file {str(path)!r} does not exist")
    text = str(name_or_path).replace("\\", "/")
    name = text[: -len(path.suffix)] if path.suffix in _SUFFIXES else text
    shipped = dict(_walk(_root()))
    if name in shipped:
        entry = shipped[name]
        if not isinstance(entry, Path):  # a package imported from a zip archive: no file to hand out
            raise UnknownConfigError(f"config {name!r}: the package is installed in an archive ({entry}); install it unzipped")
        return entry
    bare = name.removeprefix("configs/")
    close = difflib.get_close_matches(bare, list(shipped), n=1)
    if bare in shipped:  # the checkout's path, typed outside the checkout
        hint = f"; the package ships it as the config named {bare!r}: --config {bare}"
    elif close:
        hint = f"; did you mean the shipped config {close[0]!r}? Shipped: {', '.join(shipped)}"
    else:
        hint = f"; expected a path to a YAML file or a shipped config's name: {', '.join(shipped)}"
    raise UnknownConfigError(f"config file {text!r} does not exist{hint}")
