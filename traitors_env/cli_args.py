"""Argument types shared by the command-line tools (``traitors-eval``, ``traitors-exploit``, …).

An ``argparse`` type that raises :class:`argparse.ArgumentTypeError` makes argparse name the option and its value
(``argument --seed: -1: expected a whole number >= 0``) and exit with status 2 before anything runs.
"""

from __future__ import annotations

import argparse

__all__ = ["seed"]


def seed(text: str) -> int:
    """A seed: a whole number ``>= 0`` (numpy's ``SeedSequence`` takes no negative entropy).

    Raises:
        argparse.ArgumentTypeError: naming ``text`` and what was expected.
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number >= 0") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value}: expected a whole number >= 0")
    return value
