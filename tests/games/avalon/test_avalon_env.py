"""The ``avalon_v0`` environment, its plug-in declaration, the secrets declaration and the simple bot."""

from __future__ import annotations

import numpy as np
import pytest
from avalon_helpers import new, round_

from traitors_env import avalon_v0
from traitors_env.core import load_game
from traitors_env.games.avalon import actions as A
from traitors_env.games.avalon.bots import AvalonLogicBot
from traitors_env.games.avalon.engine import IllegalActionError
from traitors_env.games.avalon.hidden import hidden_variant
from traitors_env.games.avalon.observation import OBS_SIZE, encode
from traitors_env.games.avalon.roles import Role


def test_game_declaration():
    game = load_game("avalon_v0")
    assert game.name == "avalon" and game.type.sides == ("good", "evil") and game.type.utility == "zero_sum_teams"
    assert game.type.observation_shape == (OBS_SIZE,) and game.type.num_actions == A.NUM_ACTIONS == 45
    assert [game.side_sizes(n) for n in range(5, 11)] == [(3, 2), (4, 2), (4, 3), (5, 3), (6, 3), (6, 4)]
    assert set(game.variants) >= {"all_roles"} and game.variant_player_counts("all_roles") == (10,)


def test_raw_env_options_render_info_and_illegal_action():
    with pytest.raises(ValueError, match="unknown option"):
        avalon_v0.raw_env(num_players=5, lancelot=True)
    env = avalon_v0.raw_env(num_players=6, render_mode="ansi", first_leader=2)
    env.reset(seed=1)
    assert env.agent_selection == "player_2" and "Avalon, 6 players" in env.render()
    with pytest.raises(IllegalActionError, match="legal actions"):
        env.step(A.APPROVE)
    bot = AvalonLogicBot(seed=0)
    for _agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        env.step(None if termination or truncation else bot.act(observation["observation"], observation["action_mask"]))
    assert info["outcome"] in ("three_fails", "five_rejections", "merlin_assassinated", "merlin_survived")
    assert info["won"] == (info["side"] == info["winning_side"]) and info["roles"].shape == (10,)
    assert "game over" in env.render() and env.result["outcome"] == info["outcome"]


def test_hidden_variant_redraws_roles_consistently_with_knowledge_and_fails():
    state = new(5, roles=(Role.MERLIN, Role.SERVANT, Role.SERVANT, Role.ASSASSIN, Role.MINION))
    round_(state, (1, 3), fails=(3,))
    rng = np.random.default_rng(0)
    seen_roles = set()
    for _ in range(50):
        variant = hidden_variant(state, 1, rng)  # a Servant: knows nothing but the one Fail on (1, 3)
        assert variant.roles[1] == Role.SERVANT and variant.is_evil(3)  # seat 3 must be Evil: 1 played Success
        assert variant.played_cards[0] == {1: False, 3: True}
        np.testing.assert_array_equal(encode(variant, 1), encode(state, 1))
        seen_roles.add(tuple(variant.roles))
        merlin_view = hidden_variant(state, 0, rng)  # Merlin: Evil stays on 3 and 4
        assert {s for s in range(5) if merlin_view.is_evil(s)} == {3, 4}
    assert len(seen_roles) > 1


def test_heuristic_plays_every_size_and_evil_fails_no_more_than_needed():
    """A10/A11: the heuristic's Evil members fail quests, but (without Oberon, A03) never more than the quest needs."""
    game = load_game("avalon")
    fails_seen = 0
    for n in range(5, 11):
        env = game.raw_env(num_players=n)
        env.reset(seed=n)
        bots = [AvalonLogicBot(seed=s) for s in range(n)]
        for agent in env.agent_iter():
            observation, reward, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            seat = env.possible_agents.index(agent)
            action = bots[seat].act(observation["observation"], observation["action_mask"])
            env.step(action)
        assert env.game.is_terminal
        for result in env.game.quests:
            assert result.fails <= env.game.fails_needed(result.quest)
            fails_seen += result.fails
    assert fails_seen > 0


def test_A16_the_tools_play_the_no_talk_game_unless_told(tmp_path):
    """A16: claims are off by default; traitors-eval and traitors-play follow the game's own default (a review found
    traitors-eval playing Avalon with claims), and --claims / --no-claims override it."""
    import argparse

    from traitors_env.core.game import add_claims_arguments, claims_from_args
    from traitors_env.core.registry import load_game
    from traitors_env.evaluation.cli import run_benchmark
    from traitors_env.evaluation.population import Population

    avalon, aboard = load_game("avalon"), load_game("traitors_aboard")
    assert avalon.default_claims is False and aboard.default_claims is True
    parser = argparse.ArgumentParser()
    add_claims_arguments(parser)
    assert claims_from_args(parser.parse_args([]), avalon) is False
    assert claims_from_args(parser.parse_args(["--claims"]), avalon) is True
    assert claims_from_args(parser.parse_args([]), aboard) is True
    assert claims_from_args(parser.parse_args(["--no-claims"]), aboard) is False
    population = Population()
    population.add("random", ["random"])
    report = run_benchmark(population, [5], 2, tmp_path, plots=False, game="avalon")
    assert report["settings"]["claims"] is False


def test_play_runs_as_a_module():
    """``python -m traitors_env.table.play --help`` prints the usage (the module had no __main__ block)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "traitors_env.table.play", "--help"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and "--game" in done.stdout and "--no-claims" in done.stdout
