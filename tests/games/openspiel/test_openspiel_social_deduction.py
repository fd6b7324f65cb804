"""OpenSpiel's ``social_deduction`` through the adapter (``openspiel_social_deduction_v0``): the env plays OpenSpiel's
game exactly (legal sets, returns), the observation is the seat's information state, the secrets test's
perturbation goes through the roles' chance outcome, bad options are refused in words. Needs the ``[solve]`` extra."""

from __future__ import annotations

import copy

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from pettingzoo.test import api_test  # noqa: E402

from traitors_env.core.registry import load_game, registered_games  # noqa: E402
from traitors_env.games.openspiel import social_deduction as sd  # noqa: E402
from traitors_env.games.openspiel.adapter import IllegalActionError, SpielState, hidden_variant  # noqa: E402

GAME = sd.GAME


def _play(state: SpielState, rng: np.random.Generator, on_decision=None) -> SpielState:
    while not state.is_terminal:
        if on_decision is not None:
            on_decision(state)
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def test_it_is_registered_under_its_env_id_with_openspiel_defaults():
    assert "openspiel_social_deduction" in registered_games()
    game = load_game("openspiel_social_deduction_v0")
    assert game is GAME and game.type.player_counts == tuple(range(3, 11)) and game.type.default_players == 6
    assert game.type.sides == ("innocents", "imposters") and game.hidden_side == 1
    env = game.raw_env()
    assert env.num_players == 6 and env.options == {"imposters": 1, "max_rounds": 10, "observation_noise": 0.1}


@pytest.mark.parametrize("num_players", [3, 6, 10])
def test_the_mask_is_openspiel_legal_set_and_actions_map_both_ways(num_players):
    rng = np.random.default_rng(num_players)
    state = GAME.new_initial_state(num_players, 3)

    def check(state):
        spiel_legal = sorted(state.spiel.legal_actions())
        ours = state.legal_actions()
        assert sorted(sd.to_spiel(state.spiel, a) for a in ours) == spiel_legal
        assert [sd.from_spiel(state.spiel, sd.to_spiel(state.spiel, a)) for a in ours] == ours
        assert all(isinstance(sd.action_text(a), str) for a in ours)

    _play(state, rng, check)
    assert state.returns() == list(state.spiel.returns())


def test_returns_are_plus_one_for_the_winning_side_and_the_outcome_is_named():
    outcomes = set()
    for seed in range(40):
        state = _play(GAME.new_initial_state(5, seed), np.random.default_rng(seed))
        sides, returns = state.sides(), state.returns()
        winner = 0 if GAME.end_condition(state) == "imposters_eliminated" else 1
        assert returns == [1.0 if side == winner else -1.0 for side in sides]
        outcomes.add(GAME.end_condition(state))
    assert outcomes == {"imposters_eliminated", "parity", "round_limit"} or outcomes >= {"imposters_eliminated"}


def test_the_observation_is_read_from_the_information_state_only():
    """Two games with the same information state for a seat encode the same; the encoding shows what the string says."""
    state = GAME.new_initial_state(6, 11)
    rng = np.random.default_rng(0)
    for _ in range(9):
        state.apply_action(int(rng.choice(state.legal_actions())))
    seat = state.current_player
    info = sd.parse_information_state(state.spiel.information_state_string(seat))
    observation = GAME.encode(state, seat)
    role = sd.LAYOUT.piece(observation, "role")
    assert role[int(info["role"] == "Imposter")] == 1 and role.sum() == 1
    assert sd.LAYOUT.piece(observation, "alive")[:6].sum() == len(info["alive"])
    assert sd.LAYOUT.piece(observation, "num_players")[6 - 3] == 1
    signal = info["rounds"][-1]["signal"]
    assert sd.LAYOUT.piece(observation, "signal_seat")[0, (signal[0] - seat) % 6] == 1
    assert GAME.side_of_observation(observation) == state.sides()[seat]


def test_the_secrets_perturbation_redraws_the_roles_an_innocent_cannot_know_and_nothing_an_imposter_cannot():
    rng = np.random.default_rng(5)
    state = GAME.new_initial_state(6, 4)
    for _ in range(8):
        state.apply_action(int(rng.choice(state.legal_actions())))
    imposter = state.sides().index(1)
    innocent = state.sides().index(0)
    redrawn = {tuple(hidden_variant(state, innocent, rng).sides()) for _ in range(20)}
    assert len(redrawn) > 1 and all(sides[innocent] == 0 and sum(sides) == 1 for sides in redrawn)
    # The signals are public: never redrawn; the Imposter knows the whole deal: nothing to redraw.
    for _ in range(5):
        variant = hidden_variant(state, innocent, rng)
        assert variant.spiel.history()[1:] == state.spiel.history()[1:]
        assert hidden_variant(state, imposter, rng).spiel.history() == state.spiel.history()


def test_a_game_is_its_seed_and_its_actions():
    a, b = GAME.new_initial_state(7, 123), GAME.new_initial_state(7, 123)
    _play(a, np.random.default_rng(1))
    _play(b, np.random.default_rng(1))
    assert a.spiel.history() == b.spiel.history()
    clone = copy.deepcopy(a)
    assert clone.spiel.history() == a.spiel.history() and clone.spiel is not a.spiel


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"num_players": 2}, r"no table of 2 players; expected a table size in 3–10"),
    ({"num_players": 11}, r"no table of 11 players"),
    ({"imposters": 0}, r"imposters=0 is not valid; expected an int from 1 to"),
    ({"num_players": 6, "imposters": 3}, r"imposters=3 is not valid at 6 players; expected fewer Imposters than Innocents: 1–2"),
    ({"max_rounds": 0}, r"max_rounds=0 is not valid"),
    ({"max_rounds": 2.5}, r"max_rounds=2.5 is not valid"),
    ({"max_rounds": 2**31}, r"max_rounds=2147483648 is not valid; expected an int from 1 to 2,147,483,647"),
    ({"observation_noise": 1.5}, r"observation_noise=1.5 is not valid; expected a number in \[0, 1\]"),
    ({"players": 5}, r"unknown option\(s\) \['players'\].*expected keyword arguments among"),
    ({"claims": "yes"}, r"claims='yes' is not supported"),
])
def test_bad_options_are_refused_naming_the_value(kwargs, message):
    with pytest.raises(ValueError, match=message):
        GAME.raw_env(**kwargs)


def test_an_illegal_action_names_the_action_and_the_legal_set():
    env = GAME.raw_env(num_players=4)
    env.reset(seed=0)
    legal = env.game.legal_actions()
    bad = next(a for a in range(sd.NUM_ACTIONS) if a not in legal)
    with pytest.raises(IllegalActionError, match=rf"action {bad} is not legal for seat \d; legal actions: "):
        env.step(bad)
    with pytest.raises(ValueError, match="expected an int 0–30"):
        sd.action_text(31)


@pytest.mark.parametrize(("num_players", "imposters"), [(6, 2), (10, 4)])
def test_more_imposters_play_through_the_api_test(num_players, imposters):
    api_test(GAME.env(num_players=num_players, imposters=imposters), num_cycles=100)
    state = _play(GAME.new_initial_state(num_players, 0, imposters=imposters), np.random.default_rng(0))
    assert sum(state.sides()) == imposters
    imposter = state.sides().index(1)
    known = sd.LAYOUT.piece(GAME.encode(state, imposter), "known_imposters")
    assert known.sum() == imposters  # an Imposter knows its whole team (itself included)


@pytest.mark.parametrize("noise", [0.1, 0.9])
def test_the_heuristic_reads_the_signals_at_any_noise(noise):
    """Above noise ½ a "suspicious" signal points at the Innocents, as informative as below it (a fault found by
    attack: the heuristic weighed the signals 0 there and played no better than random). 5 players, 100 games a cell."""
    def innocents_win(agent_of_innocents) -> float:
        wins = 0
        for g in range(100):
            state = GAME.new_initial_state(5, 2000 + g, observation_noise=noise)
            agents = [agent_of_innocents(g * 10 + s) if state.sides()[s] == 0 else sd.RandomAgent(g * 10 + s)
                      for s in range(5)]
            while not state.is_terminal:
                seat = state.current_player
                state.apply_action(agents[seat].act(GAME.encode(state, seat), state.legal_mask()))
            wins += GAME.seat_won(state, state.sides().index(0))
        return wins / 100

    assert innocents_win(sd.SocialDeductionHeuristic) > innocents_win(sd.RandomAgent) + 0.2


def test_the_heuristic_beats_random_on_both_sides():
    """A cheap check of the heuristic (the figures are in the docs), 6 players, 60 games a cell: its Innocents beat
    random Imposters more often than random Innocents do. Its Imposters never vote for or accuse a teammate."""
    def win_rate(side: int, agent_of_side, other_of_side, seed: int) -> float:
        wins = 0
        for g in range(60):
            state = GAME.new_initial_state(6, seed + g)
            agents = [agent_of_side(g * 10 + s) if state.sides()[s] == side else other_of_side(g * 10 + s)
                      for s in range(6)]
            while not state.is_terminal:
                seat = state.current_player
                state.apply_action(agents[seat].act(GAME.encode(state, seat), state.legal_mask()))
            wins += GAME.seat_won(state, state.sides().index(side))
        return wins / 60

    heuristic, random = sd.SocialDeductionHeuristic, sd.RandomAgent
    assert win_rate(0, heuristic, random, 1000) > win_rate(0, random, random, 1000) + 0.15
    bot = heuristic(0)
    for seed in range(10):
        state = GAME.new_initial_state(8, seed, imposters=3)
        rng = np.random.default_rng(seed)
        while not state.is_terminal:
            seat = state.current_player
            if state.sides()[seat] == 1:
                action = bot.act(GAME.encode(state, seat), state.legal_mask())
                target = None
                if action >= sd.VOTE:
                    target = (seat + action - sd.VOTE + 1) % 8
                elif sd.ACCUSE <= action < sd.DEFEND:
                    target = (seat + action - sd.ACCUSE) % 8
                assert target is None or state.sides()[target] == 0, (seed, seat, action)
            else:
                action = int(rng.choice(state.legal_actions()))
            state.apply_action(action)


def test_the_docs_page_shows_the_declared_layout_and_action_table():
    """The page is written by hand (the game is not in the generated tables: it is registered only with the extra);
    its tables must be the declarations'."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[3] / "docs" / "games" / "openspiel_social_deduction.md").read_text(
        encoding="utf-8")
    assert sd.LAYOUT.table() in page and sd.action_table() in page
    assert f"Discrete({sd.NUM_ACTIONS})" in page and f"Box({sd.LAYOUT.size},)" in page
