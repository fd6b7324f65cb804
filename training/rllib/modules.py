"""The policies of RLlib training: one PPO module per side, the bots as fixed modules, the policy mapping.

Module ids: the game's side keys (Traitors Aboard: ``pirates`` and ``mutineers``; trained,
:class:`~traitors_env.agents.rllib_module.TeamPPOModule`), ``heuristic`` and ``random``
(:class:`BotModule`, the game's bots), and, when ``opponents.past`` > 0, ``<side>_past``
(:class:`PastTeamModule`: an older snapshot of the side's module, :func:`past_module`). Only the two side modules
are trained (RLlib's ``policies_to_train``).

Opponents (issue 14): :class:`TeamMapping` maps each seat by the matchup drawn for its episode
from the configured weights: ``latest`` = self-play (each team's seats are played by its own
policy, both learn); ``past``, ``heuristic``, ``random`` = one team, drawn with equal odds, is
played by its own older snapshot, the heuristic bot or the random bot, and the other team's
policy learns. The draw is made once per episode, when RLlib creates it
(:meth:`training.rllib.callbacks.GameCallbacks.on_episode_created`), from a generator seeded by
the run seed, the env runner and the sub-env, and kept in ``episode.custom_data["matchup"]``, so
every seat of one game maps consistently and a seeded run draws the same matchups again.
"""

from __future__ import annotations

import hashlib

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN

from traitors_env.agents.rllib_module import TeamPPOModule
from traitors_env.core import load_game
from traitors_env.core.registry import DEFAULT_GAME

from .env import team_of

BOTS = ("heuristic", "random")
#: Matchup kinds of the mapping (the config's opponent weights; ``latest`` = self-play).
MATCHUPS = ("latest", "past", "heuristic", "random")


def past_module(team: str) -> str:
    """The module id of side ``team``'s older snapshot (``past`` matchups): ``"pirates_past"``."""
    return f"{team}_past"


class BotModule(TorchRLModule):
    """A bot of the game as a fixed RLlib module.

    ``model_config``: ``{"bot": "heuristic" | "random", "seed": int | None, "game": name}`` (the seed mixed with
    torch's initial seed, which RLlib sets per env runner; the game defaults to the registry's default game). The forward pass
    asks the bot for each row's action (raw observation and action mask) and returns logits that
    are 0 for that action and ``FLOAT_MIN`` elsewhere, so RLlib's categorical distribution picks it.
    One unused parameter keeps RLlib's learner happy (it builds an optimizer for every torch module).
    """

    def setup(self) -> None:
        config = self.model_config or {}
        self.bot = config.get("bot", "random")
        seed = config.get("seed")
        if seed is not None:
            # RLlib seeds torch with seed + env runner index before it builds an env runner's modules: each env
            # runner's bot then draws its own seeded stream instead of the same one everywhere.
            seed = int(np.random.SeedSequence([int(seed), torch.initial_seed()]).generate_state(1)[0])
        self.game = load_game(config.get("game", DEFAULT_GAME))
        self.agent = self.game.make_bot(self.bot, seed)
        self._unused = torch.nn.Parameter(torch.zeros(1))

    def reseed(self, seed: int) -> None:
        """A fresh bot drawing from ``seed`` (:mod:`training.rllib.reseed`, every iteration)."""
        self.agent = self.game.make_bot(self.bot, int(seed))

    def _forward(self, batch, **kwargs):
        observation = batch[Columns.OBS]
        raw = observation["observations"].detach().cpu().numpy()
        masks = observation["action_mask"].detach().cpu().numpy().astype(np.int8)
        actions = [self.agent.act(o, m) for o, m in zip(raw, masks)]
        logits = torch.full((len(actions), self.game.type.num_actions), FLOAT_MIN)
        logits[torch.arange(len(actions)), torch.as_tensor(actions, dtype=torch.long)] = 0.0
        return {Columns.ACTION_DIST_INPUTS: logits}


class PastTeamModule(TeamPPOModule):
    """A frozen older snapshot of a team module (``past`` opponents; never trained).

    The buffer ``snapshot`` (``int64`` scalar, part of the module state) holds the 1-based iteration whose
    team module was loaded into it, 0 while none is: :class:`~training.rllib.callbacks.GameCallbacks` draws
    ``past`` matchups only once a snapshot is loaded (:func:`training.rllib.runner.refresh_past_modules`).
    """

    def setup(self) -> None:
        super().setup()
        self.register_buffer("snapshot", torch.zeros((), dtype=torch.int64))


class TeamMapping:
    """``policy_mapping_fn(agent_id, episode)``: the module of a seat, by its side and the episode's matchup.

    Args:
        weights: relative weights of :data:`MATCHUPS` (``latest`` = self-play).
        seed: mixed into every episode's draw.
        sides: the game's side keys (default: the registry's default game's).

    Raises:
        ValueError: for an unknown kind or no positive weight.
    """

    def __init__(self, weights: dict[str, float], seed: int = 0, sides: tuple[str, str] | None = None) -> None:
        self.sides = tuple(sides) if sides is not None else load_game(DEFAULT_GAME).type.sides
        unknown = set(weights) - set(MATCHUPS)
        if unknown:
            raise ValueError(f"opponent kinds {sorted(unknown)} are not known to the rllib backend; expected {MATCHUPS}")
        self.kinds = list(MATCHUPS)
        self.weights = np.array([max(0.0, float(weights.get(k, 0.0))) for k in MATCHUPS])
        if self.weights[[k != "past" for k in MATCHUPS]].sum() <= 0:
            raise ValueError(f"opponent weights {weights} have no positive weight besides past (no snapshot at first)")
        self.probabilities = self.weights / self.weights.sum()
        self.seed = int(seed)

    def draw(self, rng: np.random.Generator, past_available: bool = False) -> tuple[str, str | None]:
        """``(kind, fixed_team)`` of one episode drawn with ``rng``: the kind and the team played by the fixed
        module (``None`` for self-play). Without a loaded snapshot (``past_available`` false) ``past`` drops
        out and the other weights are renormalised, as in the SB3 backend's opponent pool."""
        weights = self.weights.copy()
        if not past_available:
            weights[MATCHUPS.index("past")] = 0.0
        kind = self.kinds[int(rng.choice(len(self.kinds), p=weights / weights.sum()))]
        if kind == "latest":
            return kind, None
        return kind, self.sides[int(rng.integers(2))]

    def matchup(self, episode_id: str) -> tuple[str, str | None]:
        """The fallback for an episode without a drawn matchup: a draw seeded by the episode id (a random uuid
        in RLlib, so not reproducible; ``past`` is left out)."""
        digest = hashlib.blake2b(f"{self.seed}:{episode_id}".encode(), digest_size=8).digest()
        return self.draw(np.random.default_rng(int.from_bytes(digest, "little")))

    @staticmethod
    def module(team: str, matchup: tuple[str, str | None]) -> str:
        """The module id that plays a seat of ``team`` in an episode of ``matchup``."""
        kind, fixed_team = matchup
        if team != fixed_team:
            return team
        return past_module(team) if kind == "past" else kind

    def __call__(self, agent_id, episode, **kwargs) -> str:
        matchup = (getattr(episode, "custom_data", None) or {}).get("matchup")
        if matchup is None:
            matchup = self.matchup(str(episode.id_))
        return self.module(team_of(agent_id, self.sides), tuple(matchup))
