"""Invariants of The Traitors over many random games (issue 15).

After every decision of seeded games with uniformly random legal actions: gold is conserved with
the bank (T03; every coin in play came from the starting 8 each or from the bank, and every loss
went back to it, checked against an independent ledger read from the public record), no gold
below 0, reward cards conserved (T04), exactly one Traitor (T02), a legal action while the game
runs, observations within their bounds; every game ends after exactly four rounds and the Final,
with the winners of one of the three outcomes (T15). The default suite checks every invariant in
140 games and the end of 2000; ``-m slow`` checks every invariant in 2000 and the end of 5000.
"""

from __future__ import annotations

import numpy as np
import pytest
from the_traitors_helpers import TABLE_SIZES, random_game

from traitors_env.games.the_traitors.cards import CARD_GOLD, NUM_ROUNDS, START_GOLD, FinalOutcome, Role
from traitors_env.games.the_traitors.engine import GameState, Phase
from traitors_env.games.the_traitors.observation import OBS_HIGH, OBS_LOW, encode


class Ledger:
    """Gold in and out of the bank, rebuilt from the public record after every decision."""

    def __init__(self) -> None:
        self.gold_seen: list[int] | None = None
        self.nights_seen = 0
        self.murder_losses = 0

    def __call__(self, state: GameState) -> None:
        n = state.num_players
        assert all(g >= 0 for g in state.gold), state.gold
        assert state.roles.count(Role.TRAITOR) == 1
        # A Night just resolved: the victim (not saved) lost min(2, what they held) (T03, T12).
        nights = sum(1 for night in state.night if night is not None)
        if nights > self.nights_seen:
            night = state.night[nights - 1]
            if night[0] >= 0 and not night[1]:
                self.murder_losses += min(2, self.gold_seen[night[0]]) if self.gold_seen else 0
            self.nights_seen = nights
        self.gold_seen = list(state.gold)
        paid_in = sum(state.mission_gold) + sum(
            CARD_GOLD.get(card, 0) for draws in state.armoury for _, card in draws if card >= 0
        )
        paid_in += sum(state.end_game_gold)
        paid_back = sum(sum(lost.values()) for lost in state.banished) + self.murder_losses
        assert sum(state.gold) + state.pot == START_GOLD * n + paid_in - paid_back
        assert (state.from_bank, state.to_bank) == (paid_in, paid_back)
        assert state.pot == sum(state.mission_gold)
        # Reward cards: deck + hands + shown + gold cards drawn = 12 (T04).
        gold_cards = sum(1 for draws in state.armoury for _, card in draws if card in CARD_GOLD)
        held = sum(sum(h) for h in state.hands)
        assert all(c >= 0 for h in state.hands for c in h)
        assert len(state.deck) + held + sum(state.shields_shown) + sum(state.daggers_shown) + gold_cards == 12
        if not state.is_terminal:
            legal = state.legal_actions()
            assert legal and np.array_equal(np.flatnonzero(state.legal_mask()), legal)
        for seat in range(n):
            observation = encode(state, seat)
            assert ((observation >= OBS_LOW) & (observation <= OBS_HIGH)).all()


def check_end(state: GameState) -> None:
    """Four rounds and the Final, in exactly the decisions the rules ask for."""
    n = state.num_players
    assert state.is_terminal and state.phase is Phase.GAME_OVER
    assert all(state.votes_revealed) and all(night is not None for night in state.night)
    participants = sum(sum(vote is not None for vote in votes) for votes in state.votes)
    claims = sum(sum(claim >= 0 for claim in round_claims) for round_claims in state.claims)
    assert claims == (participants if state.config.claims else 0)
    assert len(state.history) == NUM_ROUNDS * 2 * n + participants + claims + 4
    assert NUM_ROUNDS * (n - 1) <= participants <= NUM_ROUNDS * n
    winners = [s for s in range(n) if state.winners[s]]
    if state.outcome is FinalOutcome.BOTH_FAITHFUL:
        expected = sorted(state.finalists)
    elif state.outcome is FinalOutcome.ONE_TRAITOR:
        expected = [state.finalists[list(state.final_choices).index(1)]]
    else:
        expected = [state.third]
    assert winners == expected
    ranked = sorted(state.gold, reverse=True)
    assert sorted((state.gold[s] for s in state.finalists), reverse=True) == ranked[:2]  # T14
    assert state.gold[state.third] == ranked[2]


def run_games(count: int, claims: bool = True, **options) -> None:
    for seed in range(count):
        num_players = TABLE_SIZES[seed % len(TABLE_SIZES)]
        state = random_game(num_players, seed, check=Ledger(), claims=claims, **options)
        check_end(state)


@pytest.mark.parametrize("claims", [True, False])
def test_invariants_random_games(claims):
    run_games(60, claims=claims)


def test_invariants_options():
    run_games(20, armoury="independent", reward="score", mission_gold=(2, 15))


def test_every_game_ends_after_four_rounds_and_the_final():
    for seed in range(2000):
        state = random_game(TABLE_SIZES[seed % 4], seed, claims=bool(seed % 2))
        check_end(state)


@pytest.mark.slow
@pytest.mark.parametrize("claims", [True, False])
def test_invariants_thousands_of_games(claims):
    run_games(1000, claims=claims)


@pytest.mark.slow
def test_every_game_ends_thousands():
    for seed in range(5000):
        check_end(
            random_game(
                TABLE_SIZES[seed % 4], seed, claims=bool(seed % 2), armoury=("single", "independent")[seed % 3 == 0]
            )
        )
