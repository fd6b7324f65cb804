"""The JAX backend of ``traitors-train`` (``backend: jax`` in the config; needs the ``jax`` extra).

The whole rollout — the learner's team, the opponents, the resets — runs inside one jitted
``lax.scan`` over a batch of games with mixed table sizes, and masked PPO (flax + optax,
PureJaxRL-style) updates in the same compiled function. Modules, one job each:

- :mod:`.engine`: the pgx-style engine interface the backend drives (the real JAX engine of
  :mod:`traitors_env.games.traitors_aboard.jax`, or the stand-in of :mod:`.standin` for tests);
- :mod:`.ppo`: the actor-critic network and the masked PPO loss and update;
- :mod:`.rollout`: the team game master (one trajectory per team per game) and the team GAE;
- :mod:`.train`: the generation loop, checkpoints, ``--resume``, logging.

Nothing here is imported by the SB3 backend unless the config says ``backend: jax``.
"""
