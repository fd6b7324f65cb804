"""What both games' engines say of an action that is no action index (pure: no gymnasium import)."""

from __future__ import annotations

import numpy as np


def is_index(action: object, num_actions: int) -> bool:
    """Whether ``action`` is an integer (Python or numpy, not bool) in ``0 … num_actions - 1``."""
    return (
        isinstance(action, (int, np.integer))
        and not isinstance(action, (bool, np.bool_))
        and 0 <= action < num_actions
    )


def not_an_index(action: object, num_actions: int) -> str:
    """The words for an ``action`` that is no action index, for an ``IllegalActionError``: out of range, or not an
    int at all (``1.0`` or ``True`` is no index even where it equals one)."""
    if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
        return f"action {action!r} (not an index in 0–{num_actions - 1})"
    return f"action {action!r} (a {type(action).__name__}, not an index: action indices are ints 0–{num_actions - 1})"


def not_an_index_dtype(dtype: object, num_actions: int) -> str:
    """The words for an array action whose dtype is no index dtype (float or bool), for a ``TypeError`` of the JAX
    engine, which sees the dtype but not the (traced) value."""
    return f"action of dtype {dtype} (not an index: action indices are integers 0–{num_actions - 1})"
