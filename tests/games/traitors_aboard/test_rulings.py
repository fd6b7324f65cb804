"""One or more tests per ruling R01–R17 of ``docs/rules/RULINGS.md`` and per rulebook section.

Explicit positions are built with ``GameState.from_position`` (via ``game_helpers.position``);
the expected results come from the rulebook and the rulings, not from the engine.
"""

from __future__ import annotations

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
    ZERO,
    M,
    P,
    any_loot,
    chest_top_first,
    default_roles,
    draw_top_first,
    expected_legal,
    hand_list,
    offset,
    play_claim_none,
    position,
    random_action,
)

from traitors_env import traitors_aboard_v0
from traitors_env.games.traitors_aboard import actions as A
from traitors_env.games.traitors_aboard.cards import SETUP_TABLE, EndCondition, Role, table_setup
from traitors_env.games.traitors_aboard.engine import GameConfig, GameState, IllegalActionError, Phase, PositionError
from traitors_env.games.traitors_aboard.observation import encode, piece

# Rulebook "Setup" and "End of the Game": players → (pirates, mutineers, planks, target).
RULEBOOK_TABLE = {
    3: (2, 1, 12, 5),
    4: (3, 1, 14, 8),
    5: (4, 1, 16, 11),
    6: (4, 2, 18, 6),
    7: (5, 2, 20, 9),
    8: (6, 2, 22, 12),
}
NON_CLAIM_PHASES = (Phase.MAIN, Phase.SPYGLASS_ORDER, Phase.CATCH_RETURN_1, Phase.CATCH_RETURN_2)


def obs(state: GameState, seat: int) -> np.ndarray:
    return encode(state, seat)


def chest_rows(state: GameState, seat: int) -> np.ndarray:
    """Rows of the chest as ``seat`` sees it, top first: present, announced(3), placer(8), scrambled, value(3)."""
    return piece(obs(state, seat), "chest_cards")[: len(state.chest)]


def known_values(state: GameState, seat: int) -> list[int | None]:
    """Per chest card from the top, the loot kind ``seat``'s observation shows, or None."""
    values = []
    for row in chest_rows(state, seat):
        hot = np.flatnonzero(row[13:16])
        values.append(int(hot[0]) if len(hot) else None)
    return values


# ====================================================================== Setup (rulebook "Contents", "Setup")
@pytest.mark.parametrize("num_players", sorted(RULEBOOK_TABLE))
def test_setup_table_matches_rulebook(num_players):
    pirates, mutineers, planks, target = RULEBOOK_TABLE[num_players]
    setup = table_setup(num_players)
    assert (setup.pirates, setup.mutineers, setup.planks, setup.target) == (pirates, mutineers, planks, target)
    counts = setup.deck_counts()
    assert (counts[PLUS], counts[ZERO], counts[MINUS]) == (20, 10, 12)  # 42 loot cards
    assert counts[PL] == planks
    assert (counts[GR], counts[SG], counts[MC], counts[EYP]) == (3, 3, 3, 3)


def test_setup_deck_sizes_66_with_3_players_76_with_8():
    assert sum(table_setup(3).deck_counts()) == 66
    assert sum(table_setup(8).deck_counts()) == 76
    for n in range(3, 9):
        assert sum(table_setup(n).deck_counts()) == 42 + RULEBOOK_TABLE[n][2] + 12


@pytest.mark.parametrize("num_players", sorted(RULEBOOK_TABLE))
def test_setup_new_game_deals_roles_and_three_cards(num_players):
    pirates, mutineers, _, _ = RULEBOOK_TABLE[num_players]
    deck = table_setup(num_players).deck_counts()
    for seed in range(5):
        state = GameState.new(GameConfig(num_players=num_players), seed=seed)
        assert state.roles.count(Role.PIRATE) == pirates
        assert state.roles.count(Role.MUTINEER) == mutineers
        assert all(sum(hand) == 3 for hand in state.hands)
        assert len(state.draw_pile) == sum(deck) - 3 * num_players
        assert state.chest == [] and sum(state.discard) == 0 and state.planks == [0] * num_players
        assert all(state.aboard) and not any(state.revealed)
        assert state.phase is Phase.MAIN and state.winner is None
        locations = state.card_locations()
        assert [sum(place[k] for place in locations.values()) for k in range(8)] == list(deck)


def test_setup_roles_and_deal_are_shuffled():
    """Role cards and the deck are shuffled: the Mutineer's seat and the hands vary with the seed."""
    mutineer_seats = set()
    first_hands = set()
    for seed in range(40):
        state = GameState.new(GameConfig(num_players=5), seed=seed)
        mutineer_seats.add(state.roles.index(Role.MUTINEER))
        first_hands.add(tuple(state.hands[0]))
    assert mutineer_seats == set(range(5))
    assert len(first_hands) > 5


# ====================================================================== R01 first player
def test_r01_first_player_drawn_from_seed():
    firsts = {GameState.new(GameConfig(num_players=5), seed=seed).current_player for seed in range(60)}
    assert firsts == set(range(5))  # every seat can start


def test_r01_first_player_fixed_for_a_seed():
    for seed in range(10):
        a = GameState.new(GameConfig(num_players=6), seed=seed).current_player
        b = GameState.new(GameConfig(num_players=6), seed=seed).current_player
        assert a == b


def test_r01_first_player_configurable():
    for seat in range(4):
        for seed in range(10):
            assert GameState.new(GameConfig(num_players=4, first_player=seat), seed=seed).current_player == seat
        environment = traitors_aboard_v0.raw_env(num_players=4, first_player=seat)
        environment.reset(seed=3)
        assert environment.agent_selection == f"player_{seat}"


def test_r01_env_first_agent_is_the_games_first_player():
    selected = set()
    for seed in range(30):
        environment = traitors_aboard_v0.raw_env(num_players=3)
        environment.reset(seed=seed)
        assert environment.agent_selection == f"player_{environment.game.current_player}"
        selected.add(environment.agent_selection)
    assert selected == {"player_0", "player_1", "player_2"}


# ====================================================================== R02 turn order
@pytest.mark.parametrize("claims", [True, False])
def test_r02_turn_passes_to_the_left(claims):
    state = position(4, claims=claims, current_player=0, draw_pile=(PL,) * 8)
    order = [state.current_player]
    for _ in range(5):
        state.apply_action(any_loot(state))
        play_claim_none(state)
        order.append(state.current_player)
    assert order == [0, 1, 2, 3, 0, 1]


@pytest.mark.parametrize("claims", [True, False])
def test_r02_turn_order_skips_overboard_seats(claims):
    # 6 players (4 Pirates, 2 Mutineers); seats 1 and 4 overboard; play wraps 5 → 0 and skips 1, 4.
    state = position(6, claims=claims, overboard=(1, 4), current_player=0, draw_pile=(PL,) * 8)
    order = [state.current_player]
    for _ in range(6):
        state.apply_action(any_loot(state))
        play_claim_none(state)
        order.append(state.current_player)
    assert order == [0, 2, 3, 5, 0, 2, 3]


# ====================================================================== R03 opening the chest
@pytest.mark.parametrize("num_players", sorted(RULEBOOK_TABLE))
def test_r03_chest_worth_exactly_the_target_wins_for_pirates(num_players):
    target = RULEBOOK_TABLE[num_players][3]
    chest = [(PLUS, 1, ZERO)] * target
    state = position(num_players, chest=chest, current_player=0)
    assert A.OPEN_CHEST in state.legal_actions()
    state.apply_action(A.OPEN_CHEST)
    assert state.is_terminal and state.winner == Role.PIRATE
    assert state.end_condition == EndCondition.CHEST_OPENED
    assert state.revealed[0]  # the opener reveals their role
    assert state.result()["chest_value"] == target
    assert state.returns() == [1 if role == P else -1 for role in state.roles]


@pytest.mark.parametrize("num_players", sorted(RULEBOOK_TABLE))
def test_r03_chest_one_below_the_target_loses(num_players):
    target = RULEBOOK_TABLE[num_players][3]
    chest = [(PLUS, 1, PLUS)] * (target - 1) + [(ZERO, 1, PLUS)]
    state = position(num_players, chest=chest, current_player=0)
    state.apply_action(A.OPEN_CHEST)
    assert state.winner == Role.MUTINEER and state.end_condition == EndCondition.CHEST_OPENED
    assert state.result()["chest_value"] == target - 1


def test_r03_true_values_count_not_announcements():
    # 3 players, target 5. Five +1 announced as −2 → Pirates; the same chest plus a −2 announced +1 → Mutineers.
    state = position(3, chest=[(PLUS, 2, MINUS)] * 5)
    state.apply_action(A.OPEN_CHEST)
    assert state.winner == Role.PIRATE
    state = position(3, chest=[(MINUS, 2, PLUS)] + [(PLUS, 1, PLUS)] * 5)
    state.apply_action(A.OPEN_CHEST)
    assert state.winner == Role.MUTINEER and state.result()["chest_value"] == 3


def test_r03_opening_an_empty_chest_is_legal_and_loses():
    state = position(4, current_player=1)
    assert A.OPEN_CHEST in state.legal_actions()
    state.apply_action(A.OPEN_CHEST)
    assert state.winner == Role.MUTINEER and state.result()["chest_value"] == 0


@pytest.mark.parametrize("num_players", sorted(RULEBOOK_TABLE))
def test_r03_mutineer_can_never_open(num_players):
    target = RULEBOOK_TABLE[num_players][3]
    for seat, role in enumerate(default_roles(num_players)):
        state = position(num_players, chest=[(PLUS, 0, PLUS)] * target, current_player=seat)
        if role == M:
            assert A.OPEN_CHEST not in state.legal_actions()
            assert state.legal_mask()[A.OPEN_CHEST] == 0
            with pytest.raises(IllegalActionError):
                state.apply_action(A.OPEN_CHEST)
        else:
            assert A.OPEN_CHEST in state.legal_actions()


def test_r03_opening_only_as_the_first_decision_of_the_turn():
    chest = [(PLUS, 1, PLUS)] * 2
    # After the card (claim step): not legal.
    state = position(3, chest=chest)
    state.apply_action(A.loot_action(PLUS, PLUS))
    assert state.phase is Phase.CLAIM and state.current_player == 0
    assert A.OPEN_CHEST not in state.legal_actions()
    with pytest.raises(IllegalActionError):
        state.apply_action(A.OPEN_CHEST)
    # While ordering Spyglass cards: not legal.
    state = position(3, chest=chest, hands={0: (SG, PLUS, ZERO)})
    state.apply_action(A.SPYGLASS)
    assert state.phase is Phase.SPYGLASS_ORDER and A.OPEN_CHEST not in state.legal_actions()
    # While returning Miraculous Catch cards: not legal.
    state = position(3, chest=chest, hands={0: (MC, PLUS, ZERO)})
    state.apply_action(A.MIRACULOUS_CATCH)
    for phase in (Phase.CATCH_RETURN_1, Phase.CATCH_RETURN_2):
        assert state.phase is phase and A.OPEN_CHEST not in state.legal_actions()
        state.apply_action(A.return_action(PL))
    # The next Pirate may open at the very beginning of their turn.
    play_claim_none(state)
    assert state.current_player == 1 and state.phase is Phase.MAIN
    assert A.OPEN_CHEST in state.legal_actions()


# ====================================================================== R04 placing loot
def test_r04_loot_goes_on_top_with_any_announcement():
    state = position(3, hands={0: (PLUS, PL, GR)}, chest=[(ZERO, 2, ZERO)], draw_pile=(SG, PL, PL))
    legal = set(state.legal_actions())
    assert {A.loot_action(PLUS, a) for a in range(3)} <= legal
    assert not {A.loot_action(card, a) for card in (ZERO, MINUS) for a in range(3)} & legal  # not held
    state.apply_action(A.loot_action(PLUS, MINUS))  # a lie: +1 announced as −2
    assert chest_top_first(state) == [(PLUS, 0, MINUS), (ZERO, 2, ZERO)]
    assert state.loot_placed[0] == 1 and state.announced_sum[0] == -2
    # The public sees the announcement and the placer, not the value; the placer knows the value.
    row = chest_rows(state, 1)[0]
    assert row[1 + MINUS] == 1 and row[4 + offset(1, 0, 3)] == 1 and not row[13:16].any()
    assert known_values(state, 0)[0] == PLUS


def test_r04_action_cards_never_go_into_the_chest():
    state = position(3, hands={0: (PL, GR, SG)})
    assert not any(A.LOOT_BASE <= a < A.LOOT_BASE + 9 for a in state.legal_actions())
    for card in (PL, GR, SG, MC, EYP):
        with pytest.raises(PositionError, match="action card"):
            position(3, chest=[(card, 1, ZERO)])


# ====================================================================== R05 drawing at the end of the turn
@pytest.mark.parametrize(
    "hand,action",
    [
        ((PLUS, ZERO, MINUS), A.loot_action(ZERO, ZERO)),
        ((GR, ZERO, MINUS), A.GOOD_RIDDANCE),
        ((SG, ZERO, MINUS), A.SPYGLASS),
        ((PL, ZERO, MINUS), A.plank_action(1)),
    ],
)
def test_r05_player_draws_the_top_card_back_to_three(hand, action):
    state = position(3, hands={0: hand}, draw_pile=(EYP, MC, PL, PL))
    state.apply_action(action)
    assert state.phase is Phase.CLAIM  # the chest is empty: the Spyglass takes nothing to order
    assert sum(state.hands[0]) == 3 and state.hands[0][EYP] == 1
    assert draw_top_first(state) == [MC, PL, PL]


# ====================================================================== R06 draw pile empty
def test_r06_end_of_turn_draw_emptying_the_pile_ends_the_game():
    state = position(3, draw_pile=(SG,), current_player=0)
    state.apply_action(A.loot_action(PLUS, PLUS))
    assert state.is_terminal and state.winner == Role.MUTINEER
    assert state.end_condition == EndCondition.DRAW_PILE_EMPTY
    assert state.draw_pile == [] and state.phase is Phase.GAME_OVER  # no claim step (R14)
    assert state.legal_actions() == ()


@pytest.mark.parametrize("pile", [1, 2, 3])
def test_r06_miraculous_catch_emptying_the_pile_ends_the_game_at_once(pile):
    draw = (PLUS, ZERO, MINUS)[:pile]
    state = position(3, hands={0: (MC, PL, PL)}, draw_pile=draw)
    state.apply_action(A.MIRACULOUS_CATCH)
    assert state.is_terminal and state.winner == Role.MUTINEER
    assert state.end_condition == EndCondition.DRAW_PILE_EMPTY
    # Cards are drawn one at a time until the pile is empty; nothing after that is resolved.
    assert hand_list(state, 0) == sorted([PL, PL, *draw])
    assert state.returns() == [-1, -1, 1]


def test_r06_miraculous_catch_with_four_cards_goes_on():
    state = position(3, hands={0: (MC, PL, PL)}, draw_pile=(PLUS, ZERO, MINUS, SG))
    state.apply_action(A.MIRACULOUS_CATCH)
    assert not state.is_terminal and state.phase is Phase.CATCH_RETURN_1
    assert draw_top_first(state) == [SG]


@pytest.mark.parametrize("pile", [1, 2, 3])
def test_r06_empty_your_pockets_emptying_the_pile_mid_effect(pile):
    draw = (SG, GR, MC)[:pile]
    state = position(3, hands={0: (EYP, PLUS, ZERO)}, draw_pile=draw)
    state.apply_action(A.empty_your_pockets_action(1))
    assert state.is_terminal and state.winner == Role.MUTINEER
    assert state.end_condition == EndCondition.DRAW_PILE_EMPTY
    assert hand_list(state, 1) == sorted(draw)  # the target drew until the pile ran out
    assert hand_list(state, 0) == sorted([PLUS, ZERO])  # the player's own draw never happened


def test_r06_empty_your_pockets_then_the_players_draw_empties_it():
    state = position(3, hands={0: (EYP, PLUS, ZERO)}, draw_pile=(SG, GR, MC, PL))
    state.apply_action(A.empty_your_pockets_action(2))
    assert state.end_condition == EndCondition.DRAW_PILE_EMPTY
    assert hand_list(state, 2) == sorted([SG, GR, MC]) and hand_list(state, 0) == sorted([PLUS, ZERO, PL])


def test_r06_overboard_end_is_checked_before_the_draw():
    # The third Plank on the only Mutineer ends the game (R12) before the end-of-turn draw.
    state = position(3, hands={0: (PL, PLUS, ZERO)}, planks=[0, 0, 2], draw_pile=(SG,))
    state.apply_action(A.plank_action(2))
    assert state.winner == Role.PIRATE and state.end_condition == EndCondition.ALL_MUTINEERS_OVERBOARD
    assert draw_top_first(state) == [SG]


# ====================================================================== R07 Spyglass
TWO_CARD_CHEST = [(PLUS, 1, MINUS), (MINUS, 2, PLUS)]  # top first: seat 1's +1 announced −2, seat 2's −2 announced +1


@pytest.mark.parametrize("perm", [(0, 1, 2), (1, 0, 2)])
def test_r07_spyglass_on_two_card_chest(perm):
    state = position(3, hands={0: (SG, ZERO, ZERO)}, chest=TWO_CARD_CHEST, draw_pile=(GR, PL, PL))
    before = list(state.discard)
    state.apply_action(A.SPYGLASS)
    assert state.phase is Phase.SPYGLASS_ORDER and state.current_player == 0
    # Only the 2 orders of the 2 taken cards are legal.
    assert set(state.legal_actions()) == {A.spyglass_order_action((0, 1, 2)), A.spyglass_order_action((1, 0, 2))}
    seen = [card.kind for card in state.spyglass_seen]
    assert sorted(seen) == sorted([PLUS, MINUS])
    # Only the Spyglass player sees the values, in the shuffled order.
    view = piece(obs(state, 0), "spyglass_view")
    assert [int(np.flatnonzero(view[i])[0]) for i in range(2)] == seen and not view[2].any()
    for other in (1, 2):
        assert not piece(obs(state, other), "spyglass_view").any()
    # The choice in words names the two cards taken, not a third position (R07: min(3, chest size)).
    text = state.action_to_string(A.spyglass_order_action(perm))
    assert "#3" not in text and f"seen #{perm[0] + 1}, #{perm[1] + 1} (top first: " in text
    state.apply_action(A.spyglass_order_action(perm))
    # The cards go back in the chosen order: seen[perm[0]] on top.
    assert [kind for kind, _, _ in chest_top_first(state)] == [seen[perm[0]], seen[perm[1]]]
    assert state.phase is Phase.CLAIM and hand_list(state, 0) == sorted([ZERO, ZERO, GR])
    assert state.discard[SG] == before[SG] + 1 and sum(state.discard) == sum(before) + 1
    # The Spyglass player knows both values at their new positions; nobody else knows any.
    assert known_values(state, 0) == [seen[perm[0]], seen[perm[1]]]
    for other in (1, 2):
        assert known_values(state, other) == [None, None]  # even the placers lost track
        rows = chest_rows(state, other)
        assert not rows[:, 1:12].any() and rows[:, 12].all()  # no announcement/placer; scrambled
        summary = piece(obs(state, other), "chest_summary")
        # The public keeps the multiset of announcements: one +1, one −2.
        assert list(summary) == [0, 2, 1, 0, 1, 1]
    # The public record of who announced what overall does not change.
    assert state.announced_sum[1] == -2 and state.announced_sum[2] == 1


@pytest.mark.parametrize("seed", range(12))
def test_r07_spyglass_order_phase_does_not_undo_the_shuffle(seed):
    # While choosing the order, nobody may know a value at a chest position: the Spyglass player
    # knows the values only in the shuffled order it saw them. Knowing them at the old positions
    # (where placer and announcement were public a moment before) would reveal who lied.
    chest = [(MINUS, 1, PLUS), (PLUS, 2, PLUS), (ZERO, 1, ZERO)]
    state = position(3, hands={0: (SG, ZERO, ZERO)}, chest=chest, seed=seed)
    state.apply_action(A.SPYGLASS)
    assert state.phase is Phase.SPYGLASS_ORDER
    for seat in range(3):
        assert known_values(state, seat) == [None, None, None]
    # Swapping the true values of two taken cards changes nothing but the (shuffled) view.
    view = piece(obs(state, 0), "spyglass_view").copy()
    swapped = position(3, hands={0: (SG, ZERO, ZERO)}, chest=[(PLUS, 1, PLUS), (MINUS, 2, PLUS), (ZERO, 1, ZERO)], seed=seed)
    swapped.apply_action(A.SPYGLASS)
    a, b = obs(state, 0), obs(swapped, 0)
    piece(a, "spyglass_view")[:] = 0
    piece(b, "spyglass_view")[:] = 0
    assert np.array_equal(a, b)
    assert sorted(map(tuple, view.tolist())) == sorted(map(tuple, piece(obs(swapped, 0), "spyglass_view").tolist()))


def test_r07_spyglass_shuffle_comes_from_the_seeded_rng():
    orders = {}
    for seed in range(30):
        state = position(3, hands={0: (SG, ZERO, ZERO)}, chest=TWO_CARD_CHEST, seed=seed)
        state.apply_action(A.SPYGLASS)
        orders[seed] = tuple(card.kind for card in state.spyglass_seen)
        again = position(3, hands={0: (SG, ZERO, ZERO)}, chest=TWO_CARD_CHEST, seed=seed)
        again.apply_action(A.SPYGLASS)
        assert tuple(card.kind for card in again.spyglass_seen) == orders[seed]
    assert set(orders.values()) == {(PLUS, MINUS), (MINUS, PLUS)}


def test_r07_spyglass_takes_only_the_top_three():
    chest = [(PLUS, 1, PLUS), (ZERO, 2, MINUS), (MINUS, 1, ZERO), (PLUS, 2, ZERO)]
    state = position(3, hands={0: (SG, ZERO, ZERO)}, chest=chest)
    state.apply_action(A.SPYGLASS)
    assert len(state.legal_actions()) == 6  # every order of 3 cards
    assert sorted(card.kind for card in state.spyglass_seen) == sorted([PLUS, ZERO, MINUS])
    seen = [card.kind for card in state.spyglass_seen]
    state.apply_action(A.spyglass_order_action((2, 0, 1)))
    assert [kind for kind, _, _ in chest_top_first(state)[:3]] == [seen[2], seen[0], seen[1]]
    assert chest_top_first(state)[3] == (PLUS, 2, ZERO)  # the 4th card is untouched
    for other in (1, 2):
        rows = chest_rows(state, other)
        assert rows[:3, 12].all() and not rows[3, 12]
        assert rows[3, 1 + ZERO] == 1 and rows[3, 4 + offset(other, 2, 3)] == 1  # still attributable
        assert list(piece(obs(state, other), "chest_summary")) == [0, 3, 1, 1, 1, 1]
    # Exactly the chest claims of three values are legal on this turn (R15).
    chest_claims = {a for a in state.legal_actions() if a >= A.CLAIM_CHEST_BASE}
    assert chest_claims == {A.chest_claim_action(m) for m in A.CHEST_MULTISETS if len(m) == 3}


def test_r07_spyglass_on_one_card_chest():
    state = position(3, hands={0: (SG, ZERO, ZERO)}, chest=[(MINUS, 1, PLUS)])
    state.apply_action(A.SPYGLASS)
    assert state.phase is Phase.CLAIM  # nothing to order
    assert chest_top_first(state) == [(MINUS, 1, PLUS)]
    assert known_values(state, 0) == [MINUS]  # the Spyglass player learned it
    assert known_values(state, 1) == [MINUS]  # the placer still knows it
    assert known_values(state, 2) == [None]
    row = chest_rows(state, 2)[0]
    assert row[1 + PLUS] == 1 and row[4 + offset(2, 1, 3)] == 1 and not row[12]  # still attributable
    chest_claims = {a for a in state.legal_actions() if a >= A.CLAIM_CHEST_BASE}
    assert chest_claims == {A.chest_claim_action(m) for m in A.CHEST_MULTISETS if len(m) == 1}


@pytest.mark.parametrize("claims", [True, False])
def test_r07_spyglass_on_empty_chest(claims):
    state = position(3, hands={0: (SG, ZERO, ZERO)}, claims=claims, draw_pile=(GR, PL))
    before = list(state.discard)
    state.apply_action(A.SPYGLASS)
    assert state.chest == [] and state.hands[0][GR] == 1
    assert state.discard[SG] == before[SG] + 1 and sum(state.discard) == sum(before) + 1
    if claims:
        assert state.phase is Phase.CLAIM and state.current_player == 0
        assert not any(a >= A.CLAIM_CHEST_BASE for a in state.legal_actions())  # no chest claim (R15)
    else:
        assert state.phase is Phase.MAIN and state.current_player == 1


def test_r07_spyglass_player_is_public_but_values_are_not():
    state = position(3, hands={0: (SG, ZERO, ZERO)}, chest=TWO_CARD_CHEST)
    state.apply_action(A.SPYGLASS)
    state.apply_action(A.spyglass_order_action((0, 1, 2)))
    for other in (1, 2):
        seats = piece(obs(state, other), "seats")
        assert seats[offset(other, 0, 3), 11] == 1  # everyone saw seat 0 play a Spyglass


def summary(state: GameState, seat: int) -> list[int]:
    """chest_summary: attributable announced total, scrambled cards, their announcement counts (+1, 0, −2), known flag."""
    return [int(x) for x in piece(obs(state, seat), "chest_summary")]


def scrambled_then(first_chest, hands, second_action):
    """Seat 0 plays Spyglass (order kept), then seat 1 places 0 announced 0, then seat 2 plays ``second_action``."""
    state = position(3, hands=hands, chest=first_chest, draw_pile=(PL,) * 6)
    state.apply_action(A.SPYGLASS)
    state.apply_action(A.spyglass_order_action((0, 1, 2)))
    state.apply_action(A.CLAIM_NONE)
    state.apply_action(A.loot_action(ZERO, ZERO))
    state.apply_action(A.CLAIM_NONE)
    state.apply_action(second_action)
    if state.phase is Phase.SPYGLASS_ORDER:
        state.apply_action(A.spyglass_order_action((0, 1, 2)))
    return state


SPY_HANDS = {0: (SG, ZERO, ZERO), 1: (ZERO, ZERO, PLUS), 2: (SG, GR, ZERO)}


def test_r07_second_spyglass_taking_a_whole_group_keeps_the_multiset():
    # Group {+1, −2} of two cards, then a 0 on top; a Spyglass on three takes the 0 and the whole group.
    state = scrambled_then(TWO_CARD_CHEST, SPY_HANDS, A.SPYGLASS)
    for seat in range(3):
        assert summary(state, seat) == [0, 3, 1, 1, 1, 1]
    assert known_values(state, 2) == [card.kind for card in reversed(state.chest)]  # seat 2 saw all three
    assert known_values(state, 0) == [None, None, None]  # seat 0's earlier look no longer places them


def test_r07_second_spyglass_on_part_of_a_uniform_group():
    chest = [(PLUS, 1, PLUS), (MINUS, 2, PLUS), (ZERO, 1, PLUS)]  # all announced +1
    state = scrambled_then(chest, SPY_HANDS, A.SPYGLASS)
    # Top 3 = the new 0 and two of the group; the fourth card is the rest of the group: all still known.
    for seat in range(3):
        assert summary(state, seat) == [0, 4, 3, 1, 0, 1]
    assert known_values(state, 0)[3] is not None  # seat 0 still knows the card its Spyglass left in place


def test_r07_second_spyglass_on_part_of_a_mixed_group_keeps_the_combined_multiset():
    # Group {+1, −2, 0} (mixed) of three cards, then a 0 on top; a Spyglass on three takes the 0 and two of
    # the group. The public still knows the multiset of those three and the group's last card together.
    chest = [(PLUS, 1, PLUS), (MINUS, 2, MINUS), (ZERO, 1, ZERO)]
    state = scrambled_then(chest, SPY_HANDS, A.SPYGLASS)
    for seat in range(3):
        assert summary(state, seat) == [0, 4, 1, 2, 1, 1]


def test_r07_r08_good_riddance_on_part_of_a_uniform_group():
    chest = [(PLUS, 1, PLUS), (MINUS, 2, PLUS), (ZERO, 1, PLUS)]  # all announced +1
    hands = {0: (SG, ZERO, ZERO), 1: (GR, ZERO, PLUS)}
    state = position(3, hands=hands, chest=chest)
    state.apply_action(A.SPYGLASS)
    state.apply_action(A.spyglass_order_action((0, 1, 2)))
    state.apply_action(A.CLAIM_NONE)
    state.apply_action(A.GOOD_RIDDANCE)  # two of the three leave: the last one was announced +1, as all were
    for seat in range(3):
        assert summary(state, seat) == [0, 1, 1, 0, 0, 1]


def test_r07_r08_good_riddance_on_part_of_a_mixed_group():
    chest = [(PLUS, 1, PLUS), (MINUS, 2, MINUS), (ZERO, 1, ZERO), (ZERO, 2, ZERO)]
    hands = {0: (SG, ZERO, ZERO), 1: (GR, ZERO, PLUS)}
    state = position(3, hands=hands, chest=chest)
    state.apply_action(A.SPYGLASS)
    state.apply_action(A.spyglass_order_action((0, 1, 2)))
    state.apply_action(A.CLAIM_NONE)
    state.apply_action(A.GOOD_RIDDANCE)  # two of {+1, −2, 0} leave unseen: the last one is unknown
    for seat in range(3):
        assert summary(state, seat) == [0, 1, 0, 0, 0, 0]
        row = chest_rows(state, seat)[1]
        assert row[1 + ZERO] == 1 and row[4 + offset(seat, 2, 3)] == 1  # the 4th card stays attributable


def test_r07_r08_good_riddance_taking_a_whole_group():
    hands = {0: (SG, ZERO, ZERO), 1: (GR, ZERO, PLUS)}
    state = position(3, hands=hands, chest=TWO_CARD_CHEST)
    state.apply_action(A.SPYGLASS)
    state.apply_action(A.spyglass_order_action((1, 0, 2)))
    state.apply_action(A.CLAIM_NONE)
    state.apply_action(A.GOOD_RIDDANCE)
    assert state.chest == []
    for seat in range(3):
        assert summary(state, seat) == [0, 0, 0, 0, 0, 1]


def test_r07_public_chest_summary_is_always_true():
    """Whatever the Spyglass/Good Riddance history, a multiset the observation calls known is the true one."""
    checked = 0
    for seed in range(60):
        state = GameState.new(GameConfig(num_players=3 + seed % 6), seed=seed)
        rng = np.random.default_rng(seed)
        while not state.is_terminal:
            state.apply_action(random_action(state, rng, open_prob=0.0))
            grouped = [card for card in state.chest if card.group is not None]
            attributed = sum((1, 0, -2)[card.announced] for card in state.chest if card.group is None)
            for seat in range(state.num_players):
                got = summary(state, seat)
                assert got[:2] == [attributed, len(grouped)]
                if got[5]:
                    truth = [sum(1 for card in grouped if card.announced == v) for v in range(3)]
                    assert got[2:5] == truth
                    checked += bool(grouped)
    assert checked > 100


# ====================================================================== R08 Good Riddance
def test_r08_good_riddance_on_empty_chest():
    state = position(3, hands={0: (GR, ZERO, ZERO)}, draw_pile=(SG, PL))
    before = list(state.discard)
    assert A.GOOD_RIDDANCE in state.legal_actions()
    state.apply_action(A.GOOD_RIDDANCE)
    assert state.chest == [] and hand_list(state, 0) == sorted([ZERO, ZERO, SG])
    assert sum(state.discard) == sum(before) + 1 and state.discard[GR] == before[GR] + 1  # only the card itself


def test_r08_good_riddance_on_one_card_chest():
    state = position(3, hands={0: (GR, ZERO, ZERO)}, chest=[(MINUS, 1, PLUS)])
    before = list(state.discard)
    state.apply_action(A.GOOD_RIDDANCE)
    assert state.chest == []
    assert state.discard[MINUS] == before[MINUS] + 1 and state.discard[GR] == before[GR] + 1


def test_r08_good_riddance_discards_the_top_two_unseen():
    chest = [(PLUS, 1, PLUS), (MINUS, 2, PLUS), (ZERO, 1, ZERO)]
    state = position(3, hands={0: (GR, ZERO, ZERO)}, chest=chest)
    before = list(state.discard)
    state.apply_action(A.GOOD_RIDDANCE)
    assert chest_top_first(state) == [(ZERO, 1, ZERO)]
    assert state.discard[PLUS] == before[PLUS] + 1 and state.discard[MINUS] == before[MINUS] + 1
    assert known_values(state, 0) == [None]  # the player did not look
    assert known_values(state, 1) == [ZERO]


# ====================================================================== R09 Miraculous Catch
@pytest.mark.parametrize("claims", [True, False])
def test_r09_miraculous_catch_draws_three_returns_two(claims):
    draw = (PLUS, ZERO, MINUS, SG, EYP)
    state = position(3, hands={0: (MC, PL, GR)}, draw_pile=draw, claims=claims)
    before = list(state.discard)
    state.apply_action(A.MIRACULOUS_CATCH)
    assert state.phase is Phase.CATCH_RETURN_1 and state.current_player == 0
    assert hand_list(state, 0) == sorted([PL, GR, PLUS, ZERO, MINUS])  # five cards
    assert set(state.legal_actions()) == {A.return_action(k) for k in (PL, GR, PLUS, ZERO, MINUS)}
    with pytest.raises(IllegalActionError):
        state.apply_action(A.return_action(SG))  # not in hand
    state.apply_action(A.return_action(ZERO))
    assert state.phase is Phase.CATCH_RETURN_2 and sum(state.hands[0]) == 4
    state.apply_action(A.return_action(MINUS))
    # The first returned lies under the second; no draw at the end of the turn.
    assert draw_top_first(state) == [MINUS, ZERO, SG, EYP]
    assert hand_list(state, 0) == sorted([PL, GR, PLUS])
    assert state.discard[MC] == before[MC] + 1 and sum(state.discard) == sum(before) + 1
    if claims:
        assert state.phase is Phase.CLAIM and state.current_player == 0
    else:
        assert state.phase is Phase.MAIN and state.current_player == 1


def test_r09_returned_cards_are_known_to_the_returner_only():
    state = position(3, hands={0: (MC, PL, GR)}, draw_pile=(PLUS, ZERO, MINUS, SG, EYP))
    state.apply_action(A.MIRACULOUS_CATCH)
    state.apply_action(A.return_action(ZERO))
    state.apply_action(A.return_action(MINUS))
    known = piece(obs(state, 0), "draw_pile_known")
    assert known[0, MINUS] == 1 and known[1, ZERO] == 1 and known.sum() == 2
    for other in (1, 2):
        assert not piece(obs(state, other), "draw_pile_known").any()
    # Seat 1 draws the top card at the end of its turn: seat 0 still knows the next one.
    state.apply_action(A.CLAIM_NONE)
    state.apply_action(A.loot_action(PLUS, PLUS))
    assert state.hands[1][MINUS] == 2
    known = piece(obs(state, 0), "draw_pile_known")
    assert known[0, ZERO] == 1 and known.sum() == 1


def test_r09_returning_two_cards_of_one_kind():
    state = position(3, hands={0: (MC, PL, PL)}, draw_pile=(PL, SG, GR, EYP))
    state.apply_action(A.MIRACULOUS_CATCH)
    state.apply_action(A.return_action(PL))
    state.apply_action(A.return_action(PL))
    assert draw_top_first(state) == [PL, PL, EYP] and hand_list(state, 0) == sorted([PL, SG, GR])


# ====================================================================== R10 Empty Your Pockets
def test_r10_empty_your_pockets_target_discards_and_draws_three():
    state = position(4, hands={0: (EYP, PLUS, ZERO), 2: (SG, GR, MC)}, draw_pile=(PL, PLUS, MINUS, ZERO, PL))
    before = list(state.discard)
    state.apply_action(A.empty_your_pockets_action(2))
    assert hand_list(state, 2) == sorted([PL, PLUS, MINUS])  # the target draws first
    assert hand_list(state, 0) == sorted([PLUS, ZERO, ZERO])  # then the player draws (R05)
    assert draw_top_first(state) == [PL]
    for kind in (SG, GR, MC, EYP):
        assert state.discard[kind] == before[kind] + 1
    assert state.pockets_emptied[2] == 1
    for seat in range(4):
        assert piece(obs(state, seat), "seats")[offset(seat, 2, 4), 14] == 1  # public


def test_r10_empty_your_pockets_targets_only_others_aboard():
    state = position(6, hands={0: (EYP, PLUS, ZERO)}, overboard=(2,))
    targets = {a - A.EYP_BASE for a in state.legal_actions() if A.EYP_BASE < a < A.GOOD_RIDDANCE}
    assert targets == {1, 3, 4, 5}
    with pytest.raises(IllegalActionError):
        state.apply_action(A.empty_your_pockets_action(2))
    with pytest.raises(IllegalActionError):
        state.apply_action(A.empty_your_pockets_action(6))  # no seat at offset 6 with 6 players


# ====================================================================== R11 Plank
def test_r11_plank_in_front_of_another_player():
    state = position(4, hands={0: (PL, PLUS, ZERO)})
    targets = {a - A.PLANK_BASE for a in state.legal_actions() if A.PLANK_BASE < a <= A.EYP_BASE}
    assert targets == {1, 2, 3}  # never oneself
    state.apply_action(A.plank_action(3))
    assert state.planks == [0, 0, 0, 1] and state.aboard[3]
    for seat in range(4):
        row = piece(obs(state, seat), "seats")[offset(seat, 3, 4)]
        assert row[3] == 1 and row[2] == 0  # "1 Plank in front", public


def test_r11_third_plank_throws_overboard():
    # 5 players: seats 0–3 Pirates, 4 Mutineer. Seat 1 has 2 Planks.
    state = position(
        5,
        hands={0: (PL, PLUS, ZERO), 1: (SG, GR, MINUS)},
        planks=[0, 2, 0, 0, 0],
        draw_pile=(EYP,) + (PL,) * 10 + (PLUS,) * 10,
    )
    discard_before = list(state.discard)
    state.apply_action(A.plank_action(1))
    assert not state.aboard[1] and state.revealed[1]
    assert state.planks[1] == 0 and sum(state.hands[1]) == 0
    # Three Planks and the whole hand go to the discard pile.
    assert state.discard[PL] == discard_before[PL] + 3
    for kind in (SG, GR, MINUS):
        assert state.discard[kind] == discard_before[kind] + 1
    assert not state.is_terminal and state.hands[0][EYP] == 1  # play goes on; the player draws
    for seat in range(5):
        row = piece(obs(state, seat), "seats")[offset(seat, 1, 5)]
        assert row[1] == 0 and row[5] == 1  # not aboard; revealed Pirate
    # Never selected again, never a target again, whatever happens later.
    rng = np.random.default_rng(0)
    while not state.is_terminal:
        assert state.current_player != 1
        actor = state.current_player
        for a in state.legal_actions():
            if A.PLANK_BASE < a < A.GOOD_RIDDANCE:
                target = (actor + (a - A.PLANK_BASE if a <= A.EYP_BASE else a - A.EYP_BASE)) % 5
                assert target != 1
            if A.CLAIM_ACCUSE_BASE < a < A.CLAIM_HAND_BASE:
                base = A.CLAIM_ACCUSE_BASE if a < A.CLAIM_VOUCH_BASE else A.CLAIM_VOUCH_BASE
                assert (actor + a - base) % 5 != 1
        state.apply_action(random_action(state, rng))
    assert state.returns()[1] == (1 if state.winner == Role.PIRATE else -1)  # shares its team's result (R17)


def test_r11_overboard_agent_is_never_selected_by_the_env():
    state = position(5, hands={0: (PL, PLUS, ZERO)}, planks=[0, 2, 0, 0, 0], draw_pile=(PL, PLUS) * 10, seed=1)
    environment = traitors_aboard_v0.raw_env(num_players=5)
    environment.reset_to_position(state)
    environment.step(A.plank_action(1))
    rng = np.random.default_rng(2)
    selected = set()
    for agent in environment.agent_iter(max_iter=10_000):
        observation, reward, termination, truncation, info = environment.last()
        if termination or truncation:
            environment.step(None)
            continue
        assert agent != "player_1" and "player_1" in environment.agents
        selected.add(agent)
        environment.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert "player_1" not in selected and environment.agents == []


# ====================================================================== R12 end checks after an overboard
def test_r12_all_mutineers_overboard_pirates_win():
    # 6 players: seats 4, 5 Mutineers; seat 5 already overboard, seat 4 gets the third Plank.
    state = position(6, hands={0: (PL, PLUS, ZERO)}, planks=[0, 0, 0, 0, 2, 0], overboard=(5,))
    state.apply_action(A.plank_action(4))
    assert state.winner == Role.PIRATE and state.end_condition == EndCondition.ALL_MUTINEERS_OVERBOARD
    assert state.phase is Phase.GAME_OVER  # at once: no draw, no claim
    assert state.returns() == [1, 1, 1, 1, -1, -1]


def test_r12_parity_mutineers_win():
    # 6 players (4 Pirates, 2 Mutineers); Pirate seat 3 already overboard → 3 vs 2.
    # Mutineer seat 4 throws Pirate seat 1 overboard → 2 vs 2: the Mutineers are no longer outnumbered.
    state = position(6, hands={4: (PL, PLUS, ZERO)}, planks=[0, 2, 0, 0, 0, 0], overboard=(3,), current_player=4)
    draw_before = list(state.draw_pile)
    state.apply_action(A.plank_action(offset(4, 1, 6)))
    assert state.winner == Role.MUTINEER and state.end_condition == EndCondition.MUTINEERS_NOT_OUTNUMBERED
    assert state.draw_pile == draw_before and state.phase is Phase.GAME_OVER
    assert state.returns() == [-1, -1, -1, -1, 1, 1]


def test_r12_play_goes_on_while_pirates_outnumber_mutineers():
    # 8 players (6 Pirates, 2 Mutineers): a Pirate overboard leaves 5 vs 2.
    state = position(8, hands={0: (PL, PLUS, ZERO)}, planks=[0, 2] + [0] * 6)
    state.apply_action(A.plank_action(1))
    assert not state.is_terminal and not state.aboard[1] and state.phase is Phase.CLAIM


def test_r12_three_player_game_ends_on_any_overboard():
    for target, winner in ((1, Role.MUTINEER), (2, Role.PIRATE)):
        state = position(3, hands={0: (PL, PLUS, ZERO)}, planks=[0, 2, 2])
        state.apply_action(A.plank_action(target))
        assert state.winner == winner


# ====================================================================== R13 always a legal move
def test_r13_every_held_card_is_playable():
    # 8 players, three Pirates overboard: 3 Pirates and 2 Mutineers aboard.
    state = position(8, hands={0: (PL, EYP, GR)}, overboard=(1, 2, 3))
    legal = set(state.legal_actions())
    assert legal == expected_legal(state)
    assert {a - A.PLANK_BASE for a in legal if A.PLANK_BASE < a <= A.EYP_BASE} == {4, 5, 6, 7}
    assert {a - A.EYP_BASE for a in legal if A.EYP_BASE < a < A.GOOD_RIDDANCE} == {4, 5, 6, 7}
    assert A.GOOD_RIDDANCE in legal and A.OPEN_CHEST in legal
    state = position(4, hands={0: (SG, MC, GR)}, current_player=3)
    assert set(state.legal_actions()) == expected_legal(state)


# ====================================================================== R14 when claims are made
def test_r14_one_claim_after_the_card_and_its_draw():
    state = position(3, draw_pile=(SG, PL, PL))
    state.apply_action(A.loot_action(PLUS, PLUS))
    assert state.phase is Phase.CLAIM and state.current_player == 0
    assert state.hands[0][SG] == 1 and len(state.draw_pile) == 2  # the draw came first
    assert all(a >= A.CLAIM_NONE for a in state.legal_actions())  # nothing but claims now
    state.apply_action(A.CLAIM_NONE)
    assert state.phase is Phase.MAIN and state.current_player == 1  # exactly one claim
    assert not any(a >= A.CLAIM_NONE for a in state.legal_actions())  # no claim in MAIN


@pytest.mark.parametrize("claims", [True, False])
def test_r14_turn_structure_in_random_games(claims):
    """Each turn: MAIN, then the card's own decisions, then exactly one CLAIM (none once the game is over)."""
    for seed in range(30):
        state = GameState.new(GameConfig(num_players=3 + seed % 6, claims=claims), seed=seed)
        rng = np.random.default_rng(seed)
        turns: list[list[Phase]] = []
        while not state.is_terminal:
            if state.phase is Phase.MAIN:
                turns.append([])
            turns[-1].append(state.phase)
            state.apply_action(random_action(state, rng))
        for i, phases in enumerate(turns):
            last_turn = i == len(turns) - 1
            claim_steps = phases.count(Phase.CLAIM)
            if not claims:
                assert claim_steps == 0
            elif not last_turn:
                assert claim_steps == 1 and phases[-1] is Phase.CLAIM
            assert phases[0] is Phase.MAIN and phases.count(Phase.MAIN) == 1
            body = [p for p in phases[1:] if p is not Phase.CLAIM]
            assert body in ([], [Phase.SPYGLASS_ORDER], [Phase.CATCH_RETURN_1, Phase.CATCH_RETURN_2])


def test_r14_no_claim_when_the_game_ended():
    for state, action in (
        (position(3, draw_pile=(SG,)), A.loot_action(PLUS, PLUS)),  # R06
        (position(3, hands={0: (PL, PLUS, ZERO)}, planks=[0, 0, 2]), A.plank_action(2)),  # R12
        (position(3), A.OPEN_CHEST),  # R03
    ):
        state.apply_action(action)
        assert state.is_terminal and state.phase is Phase.GAME_OVER and state.legal_actions() == ()
        with pytest.raises(IllegalActionError):
            state.apply_action(A.CLAIM_NONE)


def test_r14_claims_off_skips_the_step():
    state = position(3, claims=False)
    state.apply_action(A.loot_action(PLUS, PLUS))
    assert state.phase is Phase.MAIN and state.current_player == 1
    rng = np.random.default_rng(0)
    state = GameState.new(GameConfig(num_players=5, claims=False), seed=1)
    while not state.is_terminal:
        assert state.phase is not Phase.CLAIM
        assert not any(a >= A.CLAIM_NONE for a in state.legal_actions())
        state.apply_action(random_action(state, rng))


# ====================================================================== R15 claim vocabulary
def test_r15_claim_vocabulary():
    # 6 players, seat 2 overboard; seat 0 claims.
    state = position(6, overboard=(2,))
    state.apply_action(A.loot_action(ZERO, ZERO))
    legal = set(state.legal_actions())
    assert legal == expected_legal(state)
    assert A.CLAIM_NONE in legal
    accused = {a - A.CLAIM_ACCUSE_BASE for a in legal if A.CLAIM_ACCUSE_BASE < a < A.CLAIM_VOUCH_BASE}
    vouched = {a - A.CLAIM_VOUCH_BASE for a in legal if A.CLAIM_VOUCH_BASE <= a < A.CLAIM_HAND_BASE}
    assert accused == {1, 3, 4, 5}  # others aboard
    assert vouched == {0, 1, 3, 4, 5}  # vouching for oneself is allowed
    hand_claims = {a for a in legal if A.CLAIM_HAND_BASE <= a < A.CLAIM_CHEST_BASE}
    assert len(hand_claims) == 120 and len(A.HAND_MULTISETS) == 120  # any multiset of three kinds, true or not
    assert not any(a >= A.CLAIM_CHEST_BASE for a in legal)  # no Spyglass this turn


def test_r15_hand_claim_may_be_a_lie():
    state = position(3)
    state.apply_action(A.loot_action(PLUS, PLUS))
    state.apply_action(A.hand_claim_action([SG, SG, SG]))  # holds no Spyglass at all
    assert state.claim_hand[0] == A.HAND_MULTISETS.index((SG, SG, SG))
    assert state.current_player == 1


@pytest.mark.parametrize("chest_size,taken", [(1, 1), (2, 2), (3, 3), (5, 3)])
def test_r15_chest_top_claim_only_after_spyglass_with_as_many_values(chest_size, taken):
    chest = [(PLUS, 1, PLUS)] * chest_size
    state = position(3, hands={0: (SG, ZERO, ZERO)}, chest=chest)
    state.apply_action(A.SPYGLASS)
    if state.phase is Phase.SPYGLASS_ORDER:
        state.apply_action(A.spyglass_order_action((0, 1, 2)))
    chest_claims = {a for a in state.legal_actions() if a >= A.CLAIM_CHEST_BASE}
    expected = {A.chest_claim_action(m) for m in A.CHEST_MULTISETS if len(m) == taken}
    assert chest_claims == expected and len(expected) == {1: 3, 2: 6, 3: 10}[taken]
    wrong_size = next(m for m in A.CHEST_MULTISETS if len(m) != taken)
    with pytest.raises(IllegalActionError):
        state.apply_action(A.chest_claim_action(wrong_size))
    state.apply_action(A.chest_claim_action([MINUS] * taken))  # a lie is fine
    # Next turn, no Spyglass: no chest claim.
    state.apply_action(A.loot_action(PLUS, PLUS))
    assert not any(a >= A.CLAIM_CHEST_BASE for a in state.legal_actions())


def test_r15_no_chest_claim_after_other_cards():
    for hand, action in (((GR, ZERO, ZERO), A.GOOD_RIDDANCE), ((PL, ZERO, ZERO), A.plank_action(1))):
        state = position(3, hands={0: hand}, chest=[(PLUS, 1, PLUS)] * 3)
        state.apply_action(action)
        assert state.phase is Phase.CLAIM
        assert not any(a >= A.CLAIM_CHEST_BASE for a in state.legal_actions())


# ====================================================================== R16 claims are public
def claim_row(state: GameState, observer: int, claimant: int) -> np.ndarray:
    return piece(obs(state, observer), "claims")[offset(observer, claimant, state.num_players)]


def test_r16_latest_claim_of_each_kind_is_visible_to_every_agent():
    n = 4
    state = position(
        n, hands={0: (SG, ZERO, ZERO)}, chest=[(PLUS, 1, ZERO), (MINUS, 2, ZERO)], draw_pile=(PLUS,) * 8 + (PL,) * 12
    )
    # Round 1: seat 0 accuses seat 2; seat 1 vouches for itself; seat 2 claims a hand; seat 3 says nothing.
    state.apply_action(any_loot(state))
    state.apply_action(A.accuse_action(2))
    state.apply_action(any_loot(state))
    state.apply_action(A.vouch_action(0))
    state.apply_action(any_loot(state))
    state.apply_action(A.hand_claim_action([PL, PL, GR]))
    state.apply_action(any_loot(state))
    state.apply_action(A.CLAIM_NONE)
    # Round 2: seat 0 plays Spyglass on three cards, then vouches for seat 1.
    state.apply_action(A.SPYGLASS)
    state.apply_action(A.spyglass_order_action((0, 1, 2)))
    state.apply_action(A.vouch_action(1))
    for observer in range(n):
        row = claim_row(state, observer, 0)
        assert np.flatnonzero(row[0:8]).tolist() == [offset(observer, 2, n)]  # earlier accusation kept
        assert np.flatnonzero(row[8:16]).tolist() == [offset(observer, 1, n)]  # latest vouch
        assert not row[24] and not row[28]
        row = claim_row(state, observer, 1)
        assert np.flatnonzero(row[8:16]).tolist() == [offset(observer, 1, n)]
        row = claim_row(state, observer, 2)
        assert row[16 + PL] == 2 and row[16 + GR] == 1 and row[24] == 1 and row[16:24].sum() == 3
        assert not claim_row(state, observer, 3).any()
    # Round 3: seat 1 accuses seat 0; seat 0's new accusation replaces its old one.
    state.apply_action(any_loot(state))
    state.apply_action(A.accuse_action(3))  # seat 1 accuses seat 0
    state.apply_action(any_loot(state))
    state.apply_action(A.CLAIM_NONE)
    state.apply_action(any_loot(state))
    state.apply_action(A.CLAIM_NONE)
    state.apply_action(any_loot(state))
    state.apply_action(A.accuse_action(3))  # seat 0 now accuses seat 3
    for observer in range(n):
        row = claim_row(state, observer, 0)
        assert np.flatnonzero(row[0:8]).tolist() == [offset(observer, 3, n)]
        assert np.flatnonzero(row[8:16]).tolist() == [offset(observer, 1, n)]
        assert np.flatnonzero(claim_row(state, observer, 1)[0:8]).tolist() == [offset(observer, 0, n)]


def test_r16_chest_claims_are_visible_through_the_env():
    state = position(3, hands={0: (SG, ZERO, ZERO)}, chest=[(PLUS, 1, ZERO), (MINUS, 2, ZERO)])
    environment = traitors_aboard_v0.raw_env(num_players=3)
    environment.reset_to_position(state)
    environment.step(A.SPYGLASS)
    environment.step(A.spyglass_order_action((1, 0, 2)))
    environment.step(A.chest_claim_action([PLUS, PLUS]))  # a false claim: the truth is {+1, −2}
    for seat, agent in enumerate(environment.possible_agents):
        row = piece(environment.observe(agent)["observation"], "claims")[offset(seat, 0, 3)]
        assert row[25 + PLUS] == 2 and row[28] == 1 and row[25:28].sum() == 2


# ====================================================================== R17 rewards
def play_env_to_end(environment, first_action: int, seed: int = 0) -> dict[str, float]:
    """Step ``first_action``, then random moves; the reward each agent sees at its final ``last()``."""
    environment.step(first_action)
    rng = np.random.default_rng(seed)
    final = {}
    for agent in environment.agent_iter(max_iter=100_000):
        observation, reward, termination, truncation, info = environment.last()
        if termination or truncation:
            final[agent] = reward
            assert info["winner"] in ("Pirate", "Mutineer")
            environment.step(None)
            continue
        assert reward == 0  # no reward while the game runs (R17)
        environment.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return final


@pytest.mark.parametrize("value,winner", [(11, "Pirate"), (10, "Mutineer")])
def test_r17_rewards_by_team_including_overboard_agents(value, winner):
    # 5 players: seats 0–3 Pirates, 4 Mutineer; Pirate seat 2 overboard. Seat 0 opens a chest worth ``value``.
    chest = [(PLUS, 1, PLUS)] * value
    state = position(5, chest=chest, overboard=(2,))
    environment = traitors_aboard_v0.raw_env(num_players=5)
    environment.reset_to_position(state)
    final = play_env_to_end(environment, A.OPEN_CHEST)
    sign = 1 if winner == "Pirate" else -1
    assert final == {
        "player_0": sign,
        "player_1": sign,
        "player_2": sign,
        "player_3": sign,
        "player_4": -sign,
    }


@pytest.mark.parametrize("seed", range(6))
def test_r17_rewards_match_winner_in_random_games(seed):
    environment = traitors_aboard_v0.env(num_players=3 + seed)
    environment.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rewards, expected = {}, {}
    for agent in environment.agent_iter():
        observation, reward, termination, truncation, info = environment.last()
        if termination or truncation:
            rewards[agent] = reward
            expected[agent] = 1 if info["role"] == info["winner"] else -1  # each agent's own role, revealed
            environment.step(None)
        else:
            environment.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    roles = environment.unwrapped.result["roles"]
    assert rewards == expected == {f"player_{i}": (1 if role == info["winner"] else -1) for i, role in enumerate(roles)}


# ====================================================================== End of the Game (rulebook)
def test_end_conditions_are_the_rulebooks_four():
    assert [c.name for c in EndCondition] == [
        "CHEST_OPENED",
        "ALL_MUTINEERS_OVERBOARD",
        "MUTINEERS_NOT_OUTNUMBERED",
        "DRAW_PILE_EMPTY",
    ]


def test_end_of_game_result_reveals_the_chest():
    chest = [(PLUS, 1, MINUS), (MINUS, 2, PLUS), (ZERO, 1, ZERO)]
    state = position(3, chest=chest)
    with pytest.raises(RuntimeError):
        state.result()
    state.apply_action(A.OPEN_CHEST)
    result = state.result()
    assert result["chest"] == [
        {"value": 1, "announced": -2, "placer": 1},
        {"value": -2, "announced": 1, "placer": 2},
        {"value": 0, "announced": 0, "placer": 1},
    ]
    assert result["roles"] == ["Pirate", "Pirate", "Mutineer"] and result["target"] == 5
    assert result["winner"] == "Mutineer" and result["end_condition"] == "chest_opened"


def test_end_target_values_match_the_rulebook():
    assert {n: SETUP_TABLE[n].target for n in SETUP_TABLE} == {n: row[3] for n, row in RULEBOOK_TABLE.items()}


def test_r10_r11_targets_of_planks_and_empty_your_pockets_are_public():
    # Action cards are shown to all (rulebook "Use an Action card"): who Planked or emptied whom is public.
    state = position(4, hands={0: (PL, ZERO, ZERO), 1: (EYP, ZERO, ZERO)}, draw_pile=(PL,) * 8)
    state.apply_action(A.plank_action(2))  # seat 0 Planks seat 2
    state.apply_action(A.CLAIM_NONE)
    state.apply_action(A.empty_your_pockets_action(3))  # seat 1 empties seat 0's pockets
    state.apply_action(A.CLAIM_NONE)
    for seat in range(4):
        targeted = piece(obs(state, seat), "targeted")
        assert targeted.sum() == 2
        assert targeted[offset(seat, 0, 4), offset(seat, 2, 4), 0] == 1
        assert targeted[offset(seat, 1, 4), offset(seat, 0, 4), 1] == 1
