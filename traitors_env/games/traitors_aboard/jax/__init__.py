"""The batched JAX twin of *Traitors Aboard* (optional extra ``jax``: ``pip install -e ".[jax]"``).

Pure functions of fixed-shape arrays that run under ``jit``, ``vmap`` and ``lax.scan``; every table
size 3–8 and both claim settings in one compiled function. Held equal to the reference engine and
observation by tests that replay thousands of its games there (``tests/games/traitors_aboard/test_jax_engine.py``).

- :mod:`.env`: pgx's API: :class:`TraitorsAboard` (a ``pgx.Env``), :class:`State`, and the
  functions ``init(key, num_players, claims=True) -> State``, ``step(state, action, key) -> State``,
  ``observe(state, player) -> float32[1228]``, ``seat_sides(state) -> int8[8]`` (the deal, for a game master),
  ``variant_twin(name)``: the same API dealing a small variant (``traitors_aboard:mini3``);
- :mod:`.position`: a reference position as a :class:`Game`, and the small variants' deals (``init_variant``);
- :mod:`.engine`: the rules on the bare game state :class:`Game` (``init``, ``step``,
  ``legal_action_mask``, ``returns``), for loops that need no observation;
- :mod:`.observation`: the observation of any seat, equal to ``observation.encode``;
- :mod:`.state`: the :class:`Game` pytree;
- :mod:`.heuristic`: the heuristic bot as a pure JAX function of (observation, mask, memory, key).

Example (a jitted batch of random games, mixed table sizes)::

    import jax, jax.numpy as jnp
    from traitors_env.games.traitors_aboard import jax as tj

    keys = jax.random.split(jax.random.PRNGKey(0), 1024)
    state = jax.vmap(tj.init)(keys, jnp.arange(1024) % 6 + 3)
    state = jax.jit(jax.vmap(tj.step))(state, jnp.argmax(state.legal_action_mask, -1), keys)
"""

from .engine import legal_action_mask, returns
from .state import Game

_ENV_NAMES = ("State", "TraitorsAboard", "init", "observe", "seat_sides", "step", "variant_twin")


def __getattr__(name: str):
    # The pgx API loads pgx on first use, so the engine and the heuristic need jax alone.
    if name in _ENV_NAMES:
        from . import env

        return getattr(env, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Game", "legal_action_mask", "returns", *_ENV_NAMES]
