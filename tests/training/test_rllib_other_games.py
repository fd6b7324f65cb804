"""RLlib trains and evaluates any zero-sum team game, not only the default one (issue 50: OpenSpiel's
``social_deduction`` "trains with the SB3 backend and RLlib").

Found by running it: a ``backend: rllib`` run of ``openspiel_social_deduction`` trained, then its own evaluation
refused the modules it had just written ("trained on observations (2677,) and 31 actions; traitors_aboard_v0 has
…"): the evaluation's module recipe loaded them for the default game. Skipped without the ``rllib`` extra (and,
for OpenSpiel's game, the ``solve`` extra).
"""

from __future__ import annotations

import pytest

pytest.importorskip("ray.rllib")
pytest.importorskip("PIL")

from rllib_helpers import rllib_config, running_local_ray  # noqa: E402

from training.config import config_from_dict  # noqa: E402
from training.evaluate import evaluate_run  # noqa: E402
from training.rllib.runner import train_rllib  # noqa: E402
from traitors_env.agents.spec import agent_maker  # noqa: E402

GAMES = {  # game -> table sizes its rules allow, small ones
    "avalon": [5],
    "openspiel_social_deduction": [4],
}


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(GAMES))
def test_an_rllib_run_of_another_game_evaluates_and_loads_as_that_game(game, tmp_path):
    if game.startswith("openspiel"):
        pytest.importorskip("pyspiel")
    data = rllib_config(tmp_path).model_dump(mode="json")
    sizes = GAMES[game]
    data.update(name=f"rllib_{game}", env={"name": game, "player_counts": sizes, "claims": False})
    data["training"]["generations"] = 1
    data["evaluation"].update(games=2, player_counts=sizes)
    config = config_from_dict(data)
    with running_local_ray():
        run = train_rllib(config)
        report = evaluate_run(config, run)
    assert report["backend"] == "rllib"
    label, make = agent_maker(str(run.path), game=game)  # the run folder as an agent spec of its own game
    assert label.startswith("rllib:")
    agent = make(0)
    from traitors_env.core import load_game

    env = load_game(game).env(num_players=sizes[0])
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    action = agent.act(observation["observation"], observation["action_mask"])
    assert observation["action_mask"][action] == 1
