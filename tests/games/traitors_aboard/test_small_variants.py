"""Traitors Aboard's small variants as environments (issue 50; rulings S01–S03 in docs/rules/small-variants.md): the
deal, the variant as a game of its own (``traitors_aboard:mini3``) and the errors."""

from __future__ import annotations

import math
import pickle
from collections import Counter

import numpy as np
import pytest

from traitors_env.core import load_game
from traitors_env.core.registry import UnknownGameError
from traitors_env.games.traitors_aboard.cards import HAND_SIZE, LOOT_KINDS, NUM_CARD_KINDS, Role
from traitors_env.games.traitors_aboard.records import RecordError
from traitors_env.games.traitors_aboard.small import VARIANTS, deal, variant


@pytest.mark.parametrize("name", list(VARIANTS))
def test_s01_s02_every_deal_is_the_variants_position(name):
    """S01/S02: the cards in play are exactly the variant's (hands, chest, pile), the chest holds loot only with the
    declared placers and announcements, one Mutineer among three seats, the declared Planks, seat 0 first."""
    v = variant(name)
    for seed in range(200):
        state = deal(v, seed)
        assert sorted(state.roles).count(Role.MUTINEER) == v.mutineers
        in_play = np.zeros(NUM_CARD_KINDS, int)
        for hand in state.hands:
            assert sum(hand) == HAND_SIZE
            in_play += hand
        for card in state.chest:
            assert card.kind in LOOT_KINDS
            in_play[card.kind] += 1
        for kind in state.draw_pile:
            in_play[kind] += 1
        assert in_play.tolist() == list(v.deck)
        assert len(state.draw_pile) == v.pile
        assert sorted((c.placer, int(c.announced)) for c in state.chest) == sorted(v.chest)
        assert list(state.planks) == list(v.planks)
        assert state.current_player == v.first_player
        assert not state.config.claims


def test_s02_the_deal_draws_roles_and_hands_as_the_trees_chance_nodes_do():
    """S02: the Mutineer's seat is uniform and seat 0's hand follows the multivariate hypergeometric law of the cards
    in play (the tree's first two chance nodes), within 5 standard errors over 6,000 seeds."""
    v = variant("mini3")
    n = 6000
    mutineer_seats, hands = Counter(), Counter()
    for seed in range(n):
        state = deal(v, seed)
        mutineer_seats[state.roles.index(Role.MUTINEER)] += 1
        hands[tuple(state.hands[0])] += 1
    for seat in range(3):
        assert abs(mutineer_seats[seat] / n - 1 / 3) < 5 * math.sqrt((1 / 3) * (2 / 3) / n)
    total = sum(v.deck)
    expected = {}
    for hand in {tuple(h) for h in hands}:
        ways = math.prod(math.comb(v.deck[k], hand[k]) for k in range(NUM_CARD_KINDS))
        expected[hand] = ways / math.comb(total, HAND_SIZE)
    assert sum(expected.values()) == pytest.approx(1.0)  # every multiset that can occur did
    for hand, p in expected.items():
        assert abs(hands[hand] / n - p) < 5 * math.sqrt(p * (1 - p) / n) + 1e-9, (hand, hands[hand] / n, p)


def test_the_same_seed_deals_the_same_game():
    env = load_game("traitors_aboard:mini3").raw_env()
    env.reset(seed=11)
    first = (list(env.game.roles), [list(h) for h in env.game.hands], list(env.game.draw_pile))
    env.reset(seed=11)
    assert (list(env.game.roles), [list(h) for h in env.game.hands], list(env.game.draw_pile)) == first


def test_a_declared_variant_is_a_game_of_its_own():
    """``<game>:<variant>`` by short name or env id gives one Game: the variant's table sizes, its claims default,
    its own JAX twin loader (dealing the variant: ``test_jax_small_variants.py``), pickled by name (worker processes
    load the same)."""
    game = load_game("traitors_aboard:mini3")
    assert load_game("traitors_aboard_v0:mini3") is game
    assert game.type.env_id == "traitors_aboard_v0:mini3"
    assert game.type.player_counts == (3,)
    assert game.type.min_players == 3 and game.type.max_players == 8  # the layout's num_players block is unchanged
    assert game.default_claims is False
    assert game.jax is not None and game.jax is not load_game("traitors_aboard").jax and not game.variants
    assert pickle.loads(pickle.dumps(game)) is game
    env = game.env()
    env.reset(seed=0)
    assert len(env.agents) == 3
    assert game.check_players(3) == 3
    with pytest.raises(ValueError, match=r"no table of 5 players; expected a table size in 3"):
        game.check_players(5)
    state = game.new_initial_state(3, 5)
    assert len(state.draw_pile) == VARIANTS["mini3"].pile


def test_bad_variant_arguments_are_refused_naming_the_value():
    with pytest.raises(UnknownGameError, match="no variant 'mini9'; declared: micro3, mini3, mini3_long"):
        load_game("traitors_aboard:mini9")
    raw_env = load_game("traitors_aboard").raw_env
    with pytest.raises(ValueError, match="played by 3 players; got num_players=5"):
        raw_env(num_players=5, small_variant="mini3")
    with pytest.raises(ValueError, match="starts with seat 0; got first_player=2"):
        raw_env(num_players=3, small_variant="mini3", first_player=2)
    with pytest.raises(ValueError, match="no small variant 'huge'"):
        raw_env(num_players=3, small_variant="huge")
    with pytest.raises(ValueError, match="small_variant=3; expected None or a variant name"):
        raw_env(num_players=3, small_variant=3)


def test_a_small_variant_game_is_not_recorded_as_a_full_game():
    """A record replays the full game's deal from its seed: a variant's game would replay as another game."""
    env = load_game("traitors_aboard:mini3").raw_env()
    env.reset(seed=0)
    with pytest.raises(RecordError, match="small variant 'mini3' cannot be recorded"):
        env.record()


def test_a_variant_game_refuses_other_table_sizes_and_has_no_records():
    game = load_game("traitors_aboard:mini3")
    with pytest.raises(ValueError, match=r"traitors_aboard_v0:mini3 has no table of 4 players; expected a table size in 3"):
        game.raw_env(num_players=4)
    assert game.records is None and load_game("traitors_aboard").records is not None


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_hidden_variant_redraws_only_among_the_variants_cards_in_play(name):
    """The secrets test's redraw of a small variant's state (``hidden_variant``): the cards the variant leaves out of
    play (declared, so known to every seat) stay in the discard pile; hands, the draw pile and the chest hold only
    cards in play, as in every game of the variant."""
    from traitors_env.games.traitors_aboard.hidden import hidden_variant

    v = variant(name)
    out_of_play = deal(v, seed=0).discard  # every card of the full deck not in play
    rng = np.random.default_rng(0)
    checked = 0
    for seed in range(12):
        state = deal(v, seed=seed)
        while not state.is_terminal:
            for seat in (None, *range(v.num_players)):
                redrawn = hidden_variant(state, seat, rng)
                places = redrawn.card_locations()
                held = [places["hands"][k] + places["draw_pile"][k] + places["chest"][k] for k in range(NUM_CARD_KINDS)]
                assert all(held[k] <= v.deck[k] for k in range(NUM_CARD_KINDS)), (name, seat, held, v.deck)
                assert all(redrawn.discard[k] >= out_of_play[k] for k in range(NUM_CARD_KINDS)), (name, seat)
                assert sum(redrawn.discard) == sum(state.discard)
                checked += 1
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.integers(len(legal))]))
    assert checked > 50
