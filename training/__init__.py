"""Team training of *Traitors Aboard* with stable-baselines3 / sb3-contrib ``MaskablePPO``.

- :mod:`training.config`: the YAML run config, validated into a typed object.
- :mod:`training.team_env`: the learner's gymnasium view of one team (opponents act inside it).
- :mod:`training.agents`: trained snapshots as fast numpy agents, baselines, the opponent pool.
- :mod:`training.train`: ``traitors-train``: alternating generations, checkpoints, ``--resume``.
- :mod:`training.evaluate`: ``traitors-eval``: win-rate tables with 95% Wilson intervals, plot.
- :mod:`training.storage`: the run folder and its atomic writes.
"""
