"""What every game's engine does with an action it is given: an index taken as a Python ``int``, or an
``IllegalActionError`` in words (pure: no gymnasium import)."""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType

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


def as_index(action: object) -> object:
    """``action`` with numpy integers and 0-d integer arrays (SB3's ``predict``) as a Python ``int``; anything else
    unchanged (an engine then refuses it: only Python ints are action indices, not bool or float, even where they
    compare equal to one)."""
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        action = action.item()
    if isinstance(action, np.integer):
        action = int(action)
    return action


def illegal_action(state, action: object, legal: Sequence[int], actions: ModuleType, error: type[Exception]) -> Exception:
    """The ``error`` (the game's ``IllegalActionError``) for an ``action`` not in ``legal`` in ``state``, naming the
    action in the rulebook's words (``actions.describe_action``), the player, the phase and the legal set.

    ``state`` is an engine's ``GameState`` (``is_terminal``, ``current_player``, ``num_players``, ``phase``);
    ``actions`` the game's actions module (``NUM_ACTIONS``, ``describe_action(action, seat, num_players)``).
    """
    if state.is_terminal:
        return error(f"action {action!r} given after the game ended; no action is legal")
    if is_index(action, actions.NUM_ACTIONS):
        what = f"action {int(action)} ({actions.describe_action(action, state.current_player, state.num_players)})"
    else:
        what = not_an_index(action, actions.NUM_ACTIONS)
    return error(
        f"{what} is not legal for player_{state.current_player} in phase {state.phase.name}; "
        f"legal actions: {list(legal)}"
    )
