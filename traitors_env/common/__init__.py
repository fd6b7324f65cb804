"""What the games' packages share: the declared observation layout and the AEC environment scaffolding.

Game-independent and hidden-state-free: each game (``traitors_aboard/``, ``the_traitors/``)
declares its own layout and plugs its engine into :class:`~.aec.CardGameAECEnv`.
"""
