"""Invariants of random games at every table size, claims on and off.

After every decision: every card is in exactly one place; hand sizes follow the rules
(3 for every player aboard when a turn starts, R13); Planks 0–2 aboard; the legal set is
exactly the one the rules give (``game_helpers.expected_legal``) and never empty while the
game runs (R13); R12 holds while the game runs. Every game ends (R06) with rewards +1/−1
by team (R17). The slow test plays 10,000 games through the env.
"""

from __future__ import annotations

import numpy as np
import pytest
from game_helpers import MINUS, TABLE_SIZES, expected_legal, random_action, random_play
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from traitors_env import traitors_aboard_v0
from traitors_env.games.traitors_aboard import actions as A
from traitors_env.games.traitors_aboard.cards import EndCondition, Role
from traitors_env.games.traitors_aboard.engine import GameConfig, GameState, Phase

HAND_SIZE_OF_ACTOR = {
    Phase.MAIN: 3,
    Phase.SPYGLASS_ORDER: 2,  # the Spyglass is out, the draw comes after the order (R05, R07)
    Phase.CATCH_RETURN_1: 5,  # R09: the Catch is out, three drawn
    Phase.CATCH_RETURN_2: 4,
    Phase.CLAIM: 3,  # R14: after the card and its draw
}


def check_invariants(state: GameState) -> None:
    n = state.num_players
    deck = state.setup.deck_counts()
    locations = state.card_locations()
    for kind in range(8):
        assert all(place[kind] >= 0 for place in locations.values())
        assert sum(place[kind] for place in locations.values()) == deck[kind], (kind, locations)
    assert all(card.kind <= MINUS and card.announced <= MINUS for card in state.chest)  # loot only (R04)
    for seat in range(n):
        if not state.aboard[seat]:
            assert sum(state.hands[seat]) == 0 and state.planks[seat] == 0 and state.revealed[seat]
        else:
            assert 0 <= state.planks[seat] <= 2
    legal = state.legal_actions()
    mask = state.legal_mask()
    assert mask.dtype == np.int8 and mask.shape == (A.NUM_ACTIONS,)
    assert list(np.flatnonzero(mask)) == list(legal) and list(legal) == sorted(legal)
    if state.is_terminal:
        assert legal == () and state.winner is not None and state.end_condition is not None
        assert state.returns() == [1 if role == state.winner else -1 for role in state.roles]
        if state.end_condition == EndCondition.DRAW_PILE_EMPTY:
            assert state.draw_pile == [] and state.winner == Role.MUTINEER
        else:
            assert state.draw_pile
        return
    # The game runs.
    assert state.draw_pile, "R06: an empty draw pile ends the game"
    assert state.returns() == [0] * n
    mutineers, pirates = state.aboard_count(Role.MUTINEER), state.aboard_count(Role.PIRATE)
    assert 0 < mutineers < pirates, "R12 should have ended the game"
    actor = state.current_player
    assert state.aboard[actor]
    for seat in range(n):
        if state.aboard[seat]:
            expected = HAND_SIZE_OF_ACTOR[state.phase] if seat == actor else 3
            assert sum(state.hands[seat]) == expected, (seat, state.phase, state.hands[seat])
    assert legal, "R13: a legal action always exists"
    assert set(legal) == expected_legal(state)


def play_checked(num_players: int, claims: bool, seed: int, policy_seed: int, open_prob: float) -> GameState:
    state = GameState.new(GameConfig(num_players=num_players, claims=claims), seed=seed)
    bound = 5 * sum(state.setup.deck_counts())  # every non-opening turn takes a card net (R06)
    return random_play(state, np.random.default_rng(policy_seed), check_invariants, open_prob, bound)


@pytest.mark.parametrize("claims", [True, False])
@pytest.mark.parametrize("num_players", TABLE_SIZES)
def test_invariants_random_games_every_table_size(num_players, claims):
    for seed in range(20):
        # open_prob 0 makes games run until R06 or R12; a few games open the chest early.
        play_checked(num_players, claims, seed, seed + 7, (0.0, 0.02, 0.3)[seed % 3])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    num_players=st.sampled_from(TABLE_SIZES),
    claims=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
    policy_seed=st.integers(0, 2**32 - 1),
    open_prob=st.sampled_from([0.0, 0.01, 0.1, 1.0]),
)
def test_invariants_hypothesis_seeds(num_players, claims, seed, policy_seed, open_prob):
    play_checked(num_players, claims, seed, policy_seed, open_prob)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(num_players=st.sampled_from(TABLE_SIZES), claims=st.booleans(), seed=st.integers(0, 2**16), data=st.data())
def test_invariants_hypothesis_chosen_actions(num_players, claims, seed, data):
    """Hypothesis picks every action (so a failing game shrinks to a short one)."""
    state = GameState.new(GameConfig(num_players=num_players, claims=claims), seed=seed)
    check_invariants(state)
    for _ in range(5 * sum(state.setup.deck_counts())):
        if state.is_terminal:
            return
        legal = [a for a in state.legal_actions() if a != A.OPEN_CHEST] or list(state.legal_actions())
        state.apply_action(data.draw(st.sampled_from(legal)))
        check_invariants(state)
    raise AssertionError("the game did not end")


def test_every_end_condition_is_reached():
    conditions = set()
    for seed in range(300):
        n = 3 + seed % 6
        state = GameState.new(GameConfig(num_players=n, claims=seed % 2 == 0), seed=seed)
        rng = np.random.default_rng(seed)
        # Plank-happy play reaches R12; no chest opening, so R06 ends the rest.
        while not state.is_terminal:
            legal = state.legal_actions()
            planks = [a for a in legal if A.PLANK_BASE < a <= A.EYP_BASE]
            if planks and rng.random() < 0.8:
                state.apply_action(int(rng.choice(planks)))
            else:
                choices = [a for a in legal if a != A.OPEN_CHEST] or list(legal)
                state.apply_action(int(rng.choice(choices)))
        conditions.add(state.end_condition)
        if len(conditions) == 3:
            break
    assert conditions == {
        EndCondition.ALL_MUTINEERS_OVERBOARD,
        EndCondition.MUTINEERS_NOT_OUTNUMBERED,
        EndCondition.DRAW_PILE_EMPTY,
    }


def test_r06_every_turn_takes_a_card_from_the_draw_pile():
    """R06: every turn other than opening the chest takes at least one card net, so every game ends."""
    for seed in range(60):
        state = GameState.new(GameConfig(num_players=3 + seed % 6, claims=seed % 2 == 0), seed=seed)
        rng = np.random.default_rng(seed)
        previous = None
        while not state.is_terminal:
            if state.phase is Phase.MAIN:
                assert previous is None or len(state.draw_pile) < previous
                previous = len(state.draw_pile)
            state.apply_action(random_action(state, rng, open_prob=0.0))


# ---------------------------------------------------------------------- through the env
def play_env_game(environment, rng: np.random.Generator, open_prob: float, check_obs: bool) -> None:
    """One random game through the AEC env: masks, rewards and infos checked."""
    unwrapped = environment.unwrapped
    n = len(unwrapped.possible_agents)
    final_rewards = {}
    winner, roles = None, None
    for agent in environment.agent_iter(max_iter=10_000):
        observation, reward, termination, truncation, info = environment.last()
        if termination or truncation:
            final_rewards[agent] = reward
            winner = info["winner"]
            assert info["role"] == unwrapped.result["roles"][unwrapped.possible_agents.index(agent)]
            environment.step(None)
            continue
        assert reward == 0 and info == {}
        mask = observation["action_mask"]
        legal = np.flatnonzero(mask)
        assert len(legal) > 0 and list(legal) == list(unwrapped.game.legal_actions())
        if check_obs:
            assert environment.observation_space(agent).contains(observation)
            for other in unwrapped.possible_agents:
                if other != agent:
                    assert not environment.observe(other)["action_mask"].any()
        choices = [a for a in legal if a != A.OPEN_CHEST] if rng.random() >= open_prob else legal
        environment.step(int(rng.choice(choices if len(choices) else legal)))
    assert environment.agents == [] and len(final_rewards) == n
    check_invariants(unwrapped.game)  # card conservation and the result at the end
    assert winner in ("Pirate", "Mutineer")
    roles = unwrapped.result["roles"]
    assert final_rewards == {f"player_{i}": (1 if role == winner else -1) for i, role in enumerate(roles)}


@pytest.mark.parametrize("claims", [True, False])
@pytest.mark.parametrize("num_players", TABLE_SIZES)
def test_env_random_games(num_players, claims):
    environment = traitors_aboard_v0.env(num_players=num_players, claims=claims)
    rng = np.random.default_rng(num_players * 2 + claims)
    for game in range(10):
        environment.reset(seed=game)
        play_env_game(environment, rng, open_prob=0.05, check_obs=game < 3)


@pytest.mark.slow
def test_env_10000_random_games():
    """10,000 random games over all table sizes through the env: nothing raises, every invariant holds."""
    environments = {
        (n, claims): traitors_aboard_v0.env(num_players=n, claims=claims)
        for n in TABLE_SIZES
        for claims in (True, False)
    }
    keys = list(environments)
    rng = np.random.default_rng(12345)
    for game in range(10_000):
        environment = environments[keys[game % len(keys)]]
        environment.reset(seed=game)
        play_env_game(environment, rng, open_prob=(0.0, 0.02, 0.2, 1.0)[game % 4], check_obs=game % 50 == 0)
