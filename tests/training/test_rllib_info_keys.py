"""The RLlib game master's end-of-game info uses the keys of the other game masters (issue 49): ``won``, as the
CHANGELOG's rename ``team_won`` → ``won`` says, beside ``num_players`` and ``table_rewards``."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from training.rllib.env import GameMasterEnv  # noqa: E402


@pytest.mark.parametrize("game", ["traitors_aboard", "avalon"])
def test_every_seat_s_final_info_says_won_as_the_other_game_masters_do(game):
    env = GameMasterEnv({"game": game, "seed": 0})
    rng = np.random.default_rng(0)
    for seed in range(3):
        observations, _ = env.reset(seed=seed)
        done = False
        while not done:
            (agent,) = observations
            legal = np.flatnonzero(observations[agent]["action_mask"])
            observations, rewards, terminateds, _, infos = env.step({agent: int(rng.choice(legal))})
            done = terminateds["__all__"]
        for agent, info in infos.items():
            assert "team_won" not in info
            assert info["won"] is (rewards[agent] > 0) and info["num_players"] == len(infos)
