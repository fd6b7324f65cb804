"""The policies of RLlib training: one PPO module per team, the bots as fixed modules, the policy mapping.

Module ids: ``pirates`` and ``mutineers`` (trained,
:class:`~traitors_env.agents.rllib_module.TeamPPOModule`), ``heuristic`` and ``random``
(:class:`BotModule`, never trained: RLlib's ``policies_to_train`` leaves them out).

Opponents (issue 14): :class:`TeamMapping` draws one matchup per episode from the configured
weights: ``latest`` = self-play (each team's seats are played by its own policy, both learn),
``heuristic``/``random`` = one team, drawn with equal odds, is played by that bot and the other
team's policy learns. The draw is a pure function of the episode id, so every seat of one game
maps consistently.
"""

from __future__ import annotations

import hashlib

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN

from traitors_env.agents import make_agent
from traitors_env.traitors_aboard.actions import NUM_ACTIONS

from .env import TEAMS, team_of

BOTS = ("heuristic", "random")
#: Matchup kinds of the mapping (the config's opponent weights; ``latest`` = self-play).
MATCHUPS = ("latest", "heuristic", "random")


class BotModule(TorchRLModule):
    """A scripted bot of :mod:`traitors_env.agents` as a fixed RLlib module.

    ``model_config``: ``{"bot": "heuristic" | "random", "seed": int | None}``. The forward pass
    asks the bot for each row's action (raw observation and action mask) and returns logits that
    are 0 for that action and ``FLOAT_MIN`` elsewhere, so RLlib's categorical distribution picks it.
    One unused parameter keeps RLlib's learner happy (it builds an optimizer for every torch module).
    """

    def setup(self) -> None:
        config = self.model_config or {}
        self.bot = config.get("bot", "random")
        self.agent = make_agent(self.bot, seed=config.get("seed"))
        self._unused = torch.nn.Parameter(torch.zeros(1))

    def _forward(self, batch, **kwargs):
        observation = batch[Columns.OBS]
        raw = observation["observations"].detach().cpu().numpy()
        masks = observation["action_mask"].detach().cpu().numpy().astype(np.int8)
        actions = [self.agent.act(o, m) for o, m in zip(raw, masks)]
        logits = torch.full((len(actions), NUM_ACTIONS), FLOAT_MIN)
        logits[torch.arange(len(actions)), torch.as_tensor(actions, dtype=torch.long)] = 0.0
        return {Columns.ACTION_DIST_INPUTS: logits}


class TeamMapping:
    """``policy_mapping_fn(agent_id, episode)``: the module of a seat, by its team and the episode's matchup.

    Args:
        weights: relative weights of :data:`MATCHUPS` (``latest`` = self-play).
        seed: mixed into every episode's draw.

    Raises:
        ValueError: for an unknown kind or no positive weight.
    """

    def __init__(self, weights: dict[str, float], seed: int = 0) -> None:
        unknown = set(weights) - set(MATCHUPS)
        if unknown:
            raise ValueError(f"opponent kinds {sorted(unknown)} are not known to the rllib backend; expected {MATCHUPS}")
        total = sum(max(0.0, float(weights.get(k, 0.0))) for k in MATCHUPS)
        if total <= 0:
            raise ValueError(f"opponent weights {weights} have no positive weight")
        self.kinds = list(MATCHUPS)
        self.probabilities = np.array([max(0.0, float(weights.get(k, 0.0))) / total for k in MATCHUPS])
        self.seed = int(seed)

    def matchup(self, episode_id: str) -> tuple[str, str | None]:
        """``(kind, bot_team)`` of an episode: the kind drawn and the team the bot plays (``None`` for self-play)."""
        digest = hashlib.blake2b(f"{self.seed}:{episode_id}".encode(), digest_size=8).digest()
        rng = np.random.default_rng(int.from_bytes(digest, "little"))
        kind = self.kinds[int(rng.choice(len(self.kinds), p=self.probabilities))]
        if kind == "latest":
            return kind, None
        return kind, TEAMS[int(rng.integers(2))]

    def __call__(self, agent_id, episode, **kwargs) -> str:
        team = team_of(agent_id)
        kind, bot_team = self.matchup(str(episode.id_))
        return kind if team == bot_team else team
