"""Training of both sides of any registered game, with three backends behind one command and one config.

- :mod:`training.config`: the YAML run config, validated into a typed object (game checks read the registry).
- :mod:`training.run`: the run folder, seeds, errors, logs every backend shares (a leaf below them all).
- :mod:`training.train`: ``traitors-train``: reads the config, maps ``backend:`` to its module, evaluates.
- :mod:`training.sb3`: the SB3 backend (sb3-contrib ``MaskablePPO``): alternating generations, ``--resume``.
- :mod:`training.jax_backend`, :mod:`training.rllib`: the JAX and Ray RLlib backends.
- :mod:`training.team_env`: the one game master: the learner's gymnasium view of one side (opponents act inside).
- :mod:`training.agents`: the opponent pool, agent recipes, the observation scale.
- :mod:`training.evaluate`: ``traitors-eval --run``: win rates with 95% Wilson intervals, plot.
- :mod:`training.exploit`: ``traitors-exploit``: a best response's gain against a frozen side.
- :mod:`training.storage`, :mod:`training.resume`: the run folder's atomic writes; stopping and resuming.
"""
