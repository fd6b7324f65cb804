"""Scripted probes as pure JAX functions, for the league of the JAX training backend (``league.fixed``).

A probe is a fixed, deliberately simple strategy kept in a league's population so that a trained policy that
loses to it keeps being punished for it (issue 27). :data:`PROBES` maps a probe's name to ``(side, act)``: the
side index it plays (``GameType.sides``: 0 the Pirates) and ``act(observation, action_mask, key) -> int32``, the
action for the raw ``float32 (OBS_SIZE,)`` observation and ``bool (NUM_ACTIONS,)`` mask of one decision (``vmap``
it for a batch; stateless).

``plank``: the Pirates of ``examples/plank_pirate.py`` (the kit's "benchmark your own agent" example): Plank the
relative seat with the lowest announced loot total (the lowest offset among ties, as Python's ``min``); else
announce a loot card as +1 (drawn uniformly among the legal ones); else any legal action but opening the chest;
else any legal action. The same distribution as the Python script for every observation (its draws come from a
JAX key instead of a NumPy generator); ``tests/training/test_league.py`` checks the two against each other in
cross-play.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import actions as A
from ..cards import MAX_PLAYERS
from ..observation import BLOCKS, SEAT_COLUMNS

__all__ = ["PROBES", "plank_pirate_act"]

_ACTIONS = np.arange(A.NUM_ACTIONS)
#: Plank on relative seat 1..7 (``PLANK_BASE + offset``)
_PLANK = (_ACTIONS > A.PLANK_BASE) & (_ACTIONS <= A.EYP_BASE)
#: a loot card announced as +1 (announced index 0)
_PLUS_ONE = (_ACTIONS >= A.LOOT_BASE) & (_ACTIONS <= A.PLANK_BASE) & ((_ACTIONS - A.LOOT_BASE) % 3 == 0)
_ANNOUNCED = SEAT_COLUMNS["announced total of those loot cards"]


def _uniform(key, allowed):
    return jax.random.categorical(key, jnp.where(allowed, 0.0, -jnp.inf)).astype(jnp.int32)


def plank_pirate_act(observation, action_mask, key):
    """``examples/plank_pirate.py``'s Pirate on one decision: ``observation`` float32 ``(OBS_SIZE,)`` (raw, as the
    environment gives it), ``action_mask`` bool/int8 ``(NUM_ACTIONS,)``; returns the action, int32 scalar (0 for an
    all-zero mask: no decision)."""
    legal = action_mask.astype(bool)
    rows = observation[BLOCKS["seats"]].reshape(MAX_PLAYERS, len(SEAT_COLUMNS))
    offsets = jnp.clip(jnp.arange(A.NUM_ACTIONS) - A.PLANK_BASE, 0, MAX_PLAYERS - 1)
    planks = legal & _PLANK
    totals = jnp.where(planks, rows[offsets, _ANNOUNCED], jnp.inf)
    plank = jnp.argmin(totals).astype(jnp.int32)  # the first (lowest offset) of the lowest totals
    plus_one = legal & _PLUS_ONE
    not_open = legal & (jnp.arange(A.NUM_ACTIONS) != A.OPEN_CHEST)
    fallback = jnp.where(plus_one.any(), plus_one, jnp.where(not_open.any(), not_open, legal))
    other = jnp.where(fallback.any(), _uniform(key, fallback), 0)
    return jnp.where(planks.any(), plank, other).astype(jnp.int32)


#: name -> (side index it plays, act(observation, action_mask, key) -> int32)
PROBES = {"plank": (0, plank_pirate_act)}
