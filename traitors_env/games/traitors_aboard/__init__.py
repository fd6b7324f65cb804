"""Traitors Aboard, the card game: its rules and its PettingZoo environment.

- :mod:`.cards`: card kinds, roles, the setup table (rulebook "Setup");
- :mod:`.actions`: the one ``Discrete`` action table of every decision;
- :mod:`.engine`: the pure rules engine (no gymnasium/pettingzoo import);
- :mod:`.observation`: the declared observation layout, its Python encoder and the compiled twin;
- :mod:`.env`: the PettingZoo AEC environment (public as :mod:`traitors_env.traitors_aboard_v0`);
- :mod:`.render`, :mod:`.records`: the text table and seeded game records.
"""
