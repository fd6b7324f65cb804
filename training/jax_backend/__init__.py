"""The JAX backend of ``traitors-train`` (``backend: jax`` in the config; needs the ``jax`` extra): any zero-sum
team game with a JAX twin (``Game.jax``; a game without one trains with ``backend: sb3``).

The whole rollout — the learner's team, the opponents, the resets — runs inside one jitted
``lax.scan`` over a batch of games with mixed table sizes, and masked PPO (flax + optax,
PureJaxRL-style) updates in the same compiled function. Modules, one job each:

- :mod:`.engine`: the pgx-style engine interface the backend drives (a game's JAX twin, loaded through
  ``Game.jax``, or the stand-in of :mod:`.standin` for tests);
- :mod:`.ppo`: the actor-critic network and the masked PPO loss and update;
- :mod:`.rollout`: the team game master (one trajectory per team per game) and the team GAE;
- :mod:`.train`: the generation loop, checkpoints, ``--resume``, logging.

Nothing here is imported unless the config says ``backend: jax``.
"""
