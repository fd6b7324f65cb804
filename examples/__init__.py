"""Example agents, installed as the package ``traitors_env.examples`` (setup.py) so that a wheel carries them.

``traitors-eval --agents heuristic traitors_env.examples.plank_pirate:make`` runs one from any folder; in the
checkout ``examples/plank_pirate.py:make`` names the same file.
"""
