"""A declared observation layout: named blocks in order, and what follows from them.

Each game declares its observation once, as a tuple of :class:`Piece` (name, shape, bounds,
meaning); :class:`Layout` derives the offsets, the vector's size, its ``Box`` bounds, the
markdown table of the docs pages and views of a block. Every encoder of a game (Python reference,
compiled twin, JAX twin) reads its offsets from here, never from numbers of its own.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Piece:
    """One named block of the observation vector: ``shape``, bounds ``low``/``high`` of every entry, ``meaning``."""

    name: str
    shape: tuple[int, ...]
    low: float
    high: float
    meaning: str

    @property
    def size(self) -> int:
        return math.prod(self.shape)  # math, not numpy: read on every piece() call of a bot's decision


def starts(sizes: Iterable[tuple[str, int]]) -> tuple[dict[str, int], int]:
    """The first index of each named block of consecutive indices, and the total: ``({name: start}, total)``.

    Raises:
        ValueError: for a name given twice or a negative size.
    """
    first: dict[str, int] = {}
    total = 0
    for name, size in sizes:
        if name in first or size < 0:
            raise ValueError(f"block {name!r} (size {size}) is repeated or negative; names must be unique, sizes >= 0")
        first[name] = total
        total += size
    return first, total


class Layout:
    """The layout of a flat ``float32`` observation declared by ``pieces`` (in order).

    Attributes:
        pieces: the declaration. ``offsets``: first index of each piece, by name. ``size``: the vector's length.
        ``low``/``high``: float32 ``(size,)``, each entry's bounds (the observation ``Box``).
    """

    def __init__(self, pieces: Iterable[Piece]) -> None:
        self.pieces = tuple(pieces)
        self.offsets, self.size = starts((p.name, p.size) for p in self.pieces)
        self._by_name = {p.name: p for p in self.pieces}
        self._sizes = {p.name: p.size for p in self.pieces}
        self.low = np.concatenate([np.full(p.size, p.low, dtype=np.float32) for p in self.pieces])
        self.high = np.concatenate([np.full(p.size, p.high, dtype=np.float32) for p in self.pieces])

    def table(self) -> str:
        """The layout as a markdown table: slice, name, shape, meaning."""
        rows = ["| slice | name | shape | meaning |", "|---|---|---|---|"]
        for p in self.pieces:
            start = self.offsets[p.name]
            rows.append(f"| {start}:{start + p.size} | `{p.name}` | {p.shape} | {p.meaning} |")
        return "\n".join(rows)

    def piece(self, observation: np.ndarray, name: str) -> np.ndarray:
        """The view of block ``name`` of a flat observation (or of a batch of them, last axis), in its declared shape.

        Raises:
            KeyError: for a name that is not declared (the message lists the names).
        """
        try:
            p = self._by_name[name]
        except KeyError:
            raise KeyError(f"no observation block {name!r}; declared: {sorted(self._by_name)}") from None
        start = self.offsets[name]
        return observation[..., start : start + self._sizes[name]].reshape(observation.shape[:-1] + p.shape)
