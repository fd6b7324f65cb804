"""Information hiding: an observation never depends on what its agent cannot know.

For a state and an observer seat, ``hidden_variant`` builds a copy in which everything the
observer cannot know is redrawn: the other players' hands and unrevealed roles, the values of
chest cards it neither placed (while still attributable) nor saw through its own Spyglass, which
announcement belongs to which card inside a Spyglass-scrambled group (R07), the draw pile order
(except the cards it returned itself with Miraculous Catch, R09), the discard pile's contents,
the shuffled order another player's Spyglass showed, and the RNG. The observation
(``observation.encode`` and ``raw_env.observe``) must not change. Control tests check that it
does change when something the observer can know changes, so the comparison has teeth.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from game_helpers import (
    EYP,
    GR,
    MC,
    MINUS,
    PL,
    PLUS,
    SG,
    TABLE_SIZES,
    ZERO,
    M,
    P,
    explicit_positions,
    hidden_variant,
    position,
    random_action,
    random_play,
    random_states,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from traitors_env import traitors_aboard_v0
from traitors_env.games.traitors_aboard import actions as A
from traitors_env.games.traitors_aboard.engine import GameConfig, GameState, Phase
from traitors_env.games.traitors_aboard.observation import encode
from traitors_env.games.traitors_aboard.render import render_text


def assert_same_view(state: GameState, seat: int, rng: np.random.Generator, variants: int = 2) -> None:
    expected = encode(state, seat)
    for _ in range(variants):
        variant = hidden_variant(state, seat, rng)
        np.testing.assert_array_equal(encode(variant, seat), expected, err_msg=f"seat {seat} sees hidden state")


def observe_all(state: GameState) -> dict[str, dict[str, np.ndarray]]:
    environment = traitors_aboard_v0.raw_env(num_players=state.num_players, claims=state.config.claims)
    environment.reset_to_position(state)
    return {agent: environment.observe(agent) for agent in environment.possible_agents}


# ---------------------------------------------------------------------- random play
@pytest.mark.parametrize("claims", [True, False])
@pytest.mark.parametrize("num_players", TABLE_SIZES)
def test_observation_ignores_hidden_state_in_random_games(num_players, claims):
    rng = np.random.default_rng(num_players)
    for game in range(4):
        states = random_states(num_players, claims, seed=100 * num_players + game, open_prob=0.0)
        for state in states[:: max(1, len(states) // 25)]:
            for seat in range(num_players):
                assert_same_view(state, seat, rng, variants=1)


def test_env_observe_ignores_hidden_state_in_random_games():
    rng = np.random.default_rng(0)
    for num_players in TABLE_SIZES:
        states = random_states(num_players, True, seed=num_players, open_prob=0.0)
        for state in states[:: max(1, len(states) // 10)]:
            for seat in range(num_players):
                variant = hidden_variant(state, seat, rng)
                agent = f"player_{seat}"
                real, other = observe_all(state)[agent], observe_all(variant)[agent]
                np.testing.assert_array_equal(real["observation"], other["observation"])
                np.testing.assert_array_equal(real["action_mask"], other["action_mask"])


def test_spyglass_scramble_states_are_covered():
    """The random games above reach the delicate cases: Spyglass order phases, scrambled groups, Catch returns."""
    seen = set()

    def note(state: GameState) -> None:
        seen.add(state.phase)
        if any(card.group is not None for card in state.chest):
            seen.add("scrambled")
        if any(state.draw_known):
            seen.add("returned")

    for num_players in TABLE_SIZES:
        for game in range(4):
            state = GameState.new(GameConfig(num_players=num_players, claims=True), seed=100 * num_players + game)
            random_play(state, np.random.default_rng(100 * num_players + game + 1_000_003), note, open_prob=0.0)
    assert {Phase.SPYGLASS_ORDER, Phase.CATCH_RETURN_1, Phase.CATCH_RETURN_2, "scrambled", "returned"} <= seen


def test_non_acting_agent_mask_is_all_zeros():
    rng = np.random.default_rng(1)
    for num_players in (3, 6, 8):
        environment = traitors_aboard_v0.raw_env(num_players=num_players)
        environment.reset(seed=num_players)
        while not environment.game.is_terminal:
            for agent in environment.possible_agents:
                mask = environment.observe(agent)["action_mask"]
                if agent == environment.agent_selection:
                    np.testing.assert_array_equal(mask, environment.game.legal_mask())
                    assert mask.any()
                else:
                    assert not mask.any()
            environment.step(random_action(environment.game, rng))
        for agent in environment.possible_agents:
            assert not environment.observe(agent)["action_mask"].any()


def test_public_render_ignores_hidden_state():
    rng = np.random.default_rng(2)
    for num_players in (3, 5, 8):
        for state in random_states(num_players, True, seed=num_players, open_prob=0.0)[:-1]:
            assert render_text(hidden_variant(state, None, rng)) == render_text(state)


# ---------------------------------------------------------------------- explicit positions
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(state=explicit_positions(), steps=st.integers(0, 12), seed=st.integers(0, 2**16))
def test_observation_ignores_hidden_state_in_explicit_positions(state, steps, seed):
    rng = np.random.default_rng(seed)
    for _ in range(steps):  # a few random moves from the position: Spyglass groups, returns …
        if state.is_terminal:
            break
        state.apply_action(random_action(state, rng, open_prob=0.0))
    for seat in range(state.num_players):
        assert_same_view(state, seat, rng)


# ---------------------------------------------------------------------- controls: what it may know does show
def differs(a: GameState, b: GameState, seat: int) -> bool:
    return not np.array_equal(encode(a, seat), encode(b, seat))


def test_own_hand_and_role_are_seen():
    state = position(4, draw_pile=(PL, PL, SG))
    other = position(4, hands={0: (PLUS, ZERO, ZERO)}, draw_pile=(PL, PL, SG))
    assert differs(state, other, 0) and not differs(state, other, 1)
    other = position(4, roles=[M, P, P, P], draw_pile=(PL, PL, SG))  # seat 0 is a Mutineer, seat 3 a Pirate
    assert differs(state, other, 0) and differs(state, other, 3) and not differs(state, other, 1)


def test_own_chest_placement_is_seen():
    state = position(3, chest=[(PLUS, 0, ZERO), (MINUS, 1, ZERO)])
    other = position(3, chest=[(MINUS, 0, ZERO), (MINUS, 1, ZERO)])  # seat 0's card changed
    assert differs(state, other, 0) and not differs(state, other, 1) and not differs(state, other, 2)
    other = position(3, chest=[(PLUS, 0, ZERO), (PLUS, 1, ZERO)])  # seat 1's card changed
    assert differs(state, other, 1) and not differs(state, other, 0) and not differs(state, other, 2)


def test_spyglass_view_is_seen_by_its_player_only():
    chest = [(PLUS, 1, ZERO), (MINUS, 2, ZERO), (ZERO, 1, ZERO)]
    state = position(3, hands={0: (SG, ZERO, ZERO)}, chest=chest)
    state.apply_action(A.SPYGLASS)
    state.apply_action(A.spyglass_order_action((0, 1, 2)))
    variant = copy.deepcopy(state)
    top = variant.chest[-1]
    top.kind = PLUS if top.kind != PLUS else MINUS
    assert differs(state, variant, 0)  # the Spyglass player saw it
    assert not differs(state, variant, 1) and not differs(state, variant, 2)  # the others did not (placer included)
    # A leaky "hidden" change (the chest card seat 0 saw) is caught by the same comparison.
    with pytest.raises(AssertionError):
        np.testing.assert_array_equal(encode(variant, 0), encode(state, 0))


def test_returned_draw_cards_are_seen_by_the_returner_only():
    state = position(3, hands={0: (MC, PL, GR)}, draw_pile=(PLUS, ZERO, MINUS, SG, EYP))
    state.apply_action(A.MIRACULOUS_CATCH)
    state.apply_action(A.return_action(ZERO))
    state.apply_action(A.return_action(MINUS))
    variant = copy.deepcopy(state)
    variant.draw_pile[-1] = PL  # the card seat 0 put on top
    assert differs(state, variant, 0) and not differs(state, variant, 1)
    variant = copy.deepcopy(state)
    variant.draw_pile[0], variant.draw_pile[1] = variant.draw_pile[1], variant.draw_pile[0]  # below: unknown
    assert not differs(state, variant, 0)


def test_public_events_are_seen_by_everyone():
    state = position(4, hands={0: (PL, ZERO, ZERO)})
    variant = copy.deepcopy(state)
    variant.apply_action(A.plank_action(2))
    for seat in range(4):
        assert differs(state, variant, seat)
    variant = position(4, chest=[(PLUS, 1, MINUS)])
    other = position(4, chest=[(PLUS, 1, PLUS)])  # only the announcement differs
    for seat in range(4):
        assert differs(variant, other, seat)


def test_hidden_variant_really_changes_hidden_state():
    """The mutation is not a no-op: hands, roles, chest values and the draw pile do change."""
    rng = np.random.default_rng(3)
    state = GameState.new(GameConfig(num_players=6), seed=5)  # two Mutineers: some role swap always exists
    changed = set()
    for _ in range(20):
        variant = hidden_variant(state, 0, rng)
        if variant.hands[1:] != state.hands[1:]:
            changed.add("hands")
        if variant.roles != state.roles:
            changed.add("roles")
        if variant.draw_pile != state.draw_pile:
            changed.add("draw")
        assert variant.hands[0] == state.hands[0] and variant.roles[0] == state.roles[0]
    assert changed == {"hands", "roles", "draw"}
    state = position(3, chest=[(PLUS, 1, ZERO)] * 4 + [(ZERO, 0, ZERO)])
    kinds = {tuple(card.kind for card in hidden_variant(state, 0, rng).chest) for _ in range(20)}
    assert len(kinds) > 1 and all(k[0] == ZERO for k in kinds)  # seat 0's own card (bottom) stays
