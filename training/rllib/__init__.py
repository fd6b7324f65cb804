"""The Ray RLlib backend of ``traitors-train`` (``backend: rllib``; needs the ``rllib`` extra).

- :mod:`.env`: the game master, a ``MultiAgentEnv`` whose agent ids name the team of the seat
  for the current game (``pirates/3``), so the policy mapping maps by team;
- :mod:`.modules`: the RLModule specs (one PPO module per team with action masking; the
  heuristic and random bots as fixed modules) and the per-episode policy mapping;
- :mod:`.runner`: the training loop (checkpoints, resume, logs, evaluation).

Nothing here is imported by ``training.train`` until a config asks for ``backend: rllib``.
"""
