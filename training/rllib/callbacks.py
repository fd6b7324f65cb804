"""Per-episode bookkeeping of RLlib training: the matchup of each episode, every seat's terminal reward, win rates.

RLlib leaves a seat that never acted out of its ``MultiAgentEpisode`` (see :mod:`.env`), so its
return metrics (``agent_episode_returns``, ``module_episode_returns``) miss that seat's reward.
:class:`GameCallbacks` keeps it: the final info of every seat holds the whole table's
``table_rewards`` and the seat that ended the game always acted, so its info is in the episode.
"""

from __future__ import annotations

import math

import numpy as np
import ray
from ray.rllib.callbacks.callbacks import RLlibCallback

from .env import team_of
from .modules import TeamMapping, past_module

WIN_RATE_WINDOW = 200


def table_rewards(episode, chunks=()) -> dict[str, float] | None:
    """Every seat's terminal reward (agent id → ±1, R17) of an ended game, read from the last info of any seat
    in ``episode`` (or an earlier chunk of it); ``None`` if the game has not ended."""
    for part in (episode, *chunks):
        for sa_episode in part.agent_episodes.values():
            if len(sa_episode) and "table_rewards" in (sa_episode.get_infos(-1) or {}):
                return dict(sa_episode.get_infos(-1)["table_rewards"])
    return None


class GameCallbacks(RLlibCallback):
    """Draws each episode's matchup and logs, per ended game:

    - ``team_return_mean/<team>``: the sum of the terminal rewards of the team's seats, every seat counted;
    - ``module_return_mean/<module>``: likewise per module (RLlib's ``module_episode_return_mean``, but with
      the seats RLlib leaves out);
    - ``seats_without_transition`` (sum): seats whose only observation was the last (no decision to learn
      from; RLlib has no trajectory for them);
    - ``win_rate/<team>_vs_<opponent>`` (opponent: ``self-play``, ``past``, ``heuristic`` or ``random``;
      mean over the last 200 games) for each team played by its own policy;
    - ``episodes_per_node/<node id>`` (sum), so a cluster run shows where its games were played.

    The ended episode also keeps ``custom_data["table_rewards"]`` (agent id → reward of every seat) and
    ``custom_data["seats_without_transition"]`` (agent ids).
    """

    def __init__(self) -> None:
        super().__init__()
        self._rngs: dict[int, np.random.Generator] = {}
        self._seed: int | None = None

    def reseed(self, seed: int) -> None:
        """Draw the matchups from ``seed`` (and the sub-env index) from now on (:mod:`.reseed`, every iteration)."""
        self._seed = int(seed)
        self._rngs = {}

    def on_episode_created(self, *, episode, env_runner=None, rl_module=None, env_index: int = 0, **kwargs) -> None:
        """Draw the episode's matchup (``custom_data["matchup"]``) from the generator of its sub-env, seeded by
        (run seed, env runner index, sub-env index): the same matchups in the same order for a seeded run."""
        mapping = getattr(getattr(env_runner, "config", None), "policy_mapping_fn", None)
        if not isinstance(mapping, TeamMapping):
            return
        rng = self._rngs.get(env_index)
        if rng is None:
            seed = [mapping.seed, int(env_runner.worker_index or 0)] if self._seed is None else [self._seed]
            rng = self._rngs[env_index] = np.random.default_rng([*seed, env_index])
        episode.custom_data["matchup"] = mapping.draw(rng, past_available=_past_loaded(rl_module, mapping.sides))

    def on_episode_end(self, *, episode, env_runner=None, metrics_logger=None, prev_episode_chunks=(), **kwargs) -> None:
        rewards = table_rewards(episode, prev_episode_chunks or ())
        if rewards is None:
            return
        acted = {agent for part in (episode, *(prev_episode_chunks or ())) for agent, sa in part.agent_episodes.items() if len(sa)}
        episode.custom_data["table_rewards"] = rewards
        episode.custom_data["seats_without_transition"] = sorted(set(rewards) - acted)
        if metrics_logger is None:
            return
        runners = getattr(getattr(env_runner, "config", None), "num_env_runners", 0) or 1
        window = max(1, math.ceil(WIN_RATE_WINDOW / runners))  # RLlib's own smoothing split over the env runners
        node = ray.get_runtime_context().get_node_id() if ray.is_initialized() else "local"
        metrics_logger.log_value(("episodes_per_node", node), 1, reduce="sum")
        metrics_logger.log_value("seats_without_transition", len(set(rewards) - acted), reduce="sum")
        modules = {agent: episode.module_for(agent) for agent in rewards}
        mapping = getattr(getattr(env_runner, "config", None), "policy_mapping_fn", None)
        teams = mapping.sides if isinstance(mapping, TeamMapping) else tuple(dict.fromkeys(map(team_of, rewards)))
        team_returns = {team: 0.0 for team in teams}
        module_returns: dict[str, float] = {}
        for agent, reward in rewards.items():
            team_returns[team_of(agent)] += reward
            module_returns[modules[agent]] = module_returns.get(modules[agent], 0.0) + reward
        for team, value in team_returns.items():
            metrics_logger.log_value(("team_return_mean", team), value, window=window)
        for module, value in module_returns.items():
            metrics_logger.log_value(("module_return_mean", module), value, window=window)
        played = {team_of(agent): module for agent, module in modules.items()}
        for team in teams:
            other = next((t for t in teams if t != team), None)
            if played.get(team) != team or other not in played:
                continue
            opponent = {other: "self-play", past_module(other): "past"}.get(played[other], played[other])
            won = any(r > 0 for a, r in rewards.items() if team_of(a) == team)
            metrics_logger.log_value(("win_rate", f"{team}_vs_{opponent}"), float(won), window=WIN_RATE_WINDOW)


def _past_loaded(rl_module, sides) -> bool:
    """Whether the env runner's past modules (of ``sides``) hold a snapshot (their ``snapshot`` buffer is set)."""
    try:
        return all(past_module(team) in rl_module and int(rl_module[past_module(team)].snapshot) > 0 for team in sides)
    except (TypeError, AttributeError):  # no module (a test's bare env runner) or another module class
        return False
