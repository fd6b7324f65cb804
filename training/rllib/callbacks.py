"""Per-episode metrics of RLlib training: win rates by matchup and the node that sampled each episode."""

from __future__ import annotations

import ray
from ray.rllib.callbacks.callbacks import RLlibCallback

from .env import TEAMS, team_of


class GameCallbacks(RLlibCallback):
    """Logs, per ended game, ``win_rate/<team>_vs_<opponent>`` (opponent: ``self-play``, ``heuristic`` or
    ``random``; mean over the last 200 games) for each team played by its own policy, and
    ``episodes_per_node/<node id>`` (sum), so a cluster run shows where its games were played."""

    def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
        if metrics_logger is None:
            return
        node = ray.get_runtime_context().get_node_id() if ray.is_initialized() else "local"
        metrics_logger.log_value(("episodes_per_node", node), 1, reduce="sum")
        modules: dict[str, str] = {}
        winner = None
        for agent, sa_episode in episode.agent_episodes.items():
            team = team_of(agent)
            modules[team] = episode.module_for(agent)
            info = sa_episode.get_infos(-1) or {}
            if "team_won" in info:
                winner = team if info["team_won"] else TEAMS[1 - TEAMS.index(team)]
        if winner is None:
            return
        for team in TEAMS:
            other = TEAMS[1 - TEAMS.index(team)]
            if modules.get(team) != team or other not in modules:
                continue
            opponent = "self-play" if modules[other] == other else modules[other]
            metrics_logger.log_value(("win_rate", f"{team}_vs_{opponent}"), float(winner == team), window=200)
