"""The Traitors' text renderer (``games/the_traitors/text.py``), issue 29 item 1.

Canonical action texts with seats relative to the actor; every decision kind (mission T06, claim T08, vote T09,
night T12, statement and final T15) of each side prompts with the mask's legal actions; the public record in words
is the engine's (signals T07, claims T08, votes revealed together T09, Armoury T11, Nights T12, the End Game T13–T15)
seen from the reader's seat; a seat's view starts over exactly at a new game.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from traitors_env.core.registry import load_game
from traitors_env.core.text import TextView, normalize
from traitors_env.games.the_traitors import actions as A
from traitors_env.games.the_traitors import text as T
from traitors_env.games.the_traitors.cards import NUM_ROUNDS, RewardCard
from traitors_env.games.the_traitors.engine import Phase

GAME = load_game("the_traitors")
ROOT = Path(__file__).resolve().parents[3]
SIDES = ("Faithful", "Traitor")  # Role order


def test_canonical_texts():
    assert T.action_text(A.vote_action(2)) == "vote for seat 2"
    assert T.action_text(A.vote_action(2, dagger=True)) == "vote for seat 2 with a Dagger"
    assert T.action_text(A.claim_suspect_action(1)) == "claim: I suspect seat 1"
    assert T.action_text(A.claim_faithful_action(0)) == "claim: I am Faithful"
    assert T.action_text(A.claim_faithful_action(3)) == "claim: seat 3 is Faithful"
    assert T.action_text(A.murder_action(0)) == "murder myself"
    assert T.action_text(A.statement_action(A.STATEMENT_TRAITOR)) == "statement: I will write Traitor"
    assert T.action_text(A.write_action(True)) == "write Traitor"
    texts = [normalize(T.action_text(a)) for a in range(A.NUM_ACTIONS)]
    assert len(set(texts)) == A.NUM_ACTIONS


def _play(seed, n, on_decision):
    env = GAME.raw_env(num_players=n)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        on_decision(env, int(agent.split("_")[1]), observation, action)
        env.step(action)
    return env.game


def test_every_decision_kind_of_each_side_prompts_with_the_legal_actions():
    seen = set()
    expected = {(phase, side) for phase in Phase if phase is not Phase.GAME_OVER for side in SIDES}

    def check(env, seat, observation, action):
        obs, mask = observation["observation"], observation["action_mask"]
        decision = TextView(GAME).decide(obs, mask)
        phase = env.game.phase
        assert [o.action for o in decision.options] == np.flatnonzero(mask).tolist()
        assert T.decision_kind(obs) == phase.name.lower()
        seen.add((phase, SIDES[env.game.roles[seat]]))

    for seed in range(100):
        _play(seed, 5, check)
        if seen == expected:
            break
    assert seen == expected
    page = (ROOT / "docs" / "text" / "the_traitors.md").read_text(encoding="utf-8")
    for phase, side in expected:
        assert f"### {phase.name.lower()} ({side})" in page


def test_the_record_is_the_engines_from_the_readers_seat():
    """At each seat's last decision of a game, the record in words holds the engine's signals, claims, revealed
    votes, Armoury draws (a Shield or Dagger only as a secret card, T11) and Nights, seats named from the reader."""
    for seed in range(6):
        _check_record(seed, 3 + seed % 4)


def _check_record(seed, n):
    """The record check of one game dealt from ``seed`` at ``n`` seats."""
    last = {}
    state = _play(seed, n, lambda env, seat, observation, action: last.__setitem__(
        seat, observation["observation"].copy()))
    for seat, obs in last.items():
        lines = T.record(obs)
        r = T._view(obs).round  # the round of that observation

        def name(other, seat=seat):
            rel = (other - seat) % n
            return "you" if rel == 0 else f"seat {rel}"

        for i in range(min(r, NUM_ROUNDS)):
            if state.signals[i] is not None:
                suspicious = ", ".join(name(s) for s in sorted(range(n), key=lambda s: (s - seat) % n)
                                       if state.signals[i][s]) or "nobody"
                assert any(line.startswith(f"Round {i + 1} signals (T07): suspicious: {suspicious};")
                           for line in lines)
        for i in range(min(r, NUM_ROUNDS) - 1):  # rounds finished before that observation
            for voter, vote in enumerate(state.votes[i]):
                if vote is not None:
                    text = f"{name(voter)} → {name(vote[0])}" + (" (Dagger)" if vote[1] else "")
                    assert any(line.startswith(f"Round {i + 1} votes") and text in line for line in lines)
            for claimant, action in enumerate(state.claims[i]):
                if action == A.CLAIM_NONE:
                    assert any(line == f"Round {i + 1}: {name(claimant)} make{'s' * (claimant != seat)} no claim"
                               for line in lines)
                elif 0 <= action < A.CLAIM_FAITHFUL_BASE:
                    target = name(claimant + action - A.CLAIM_SUSPECT_BASE)
                    assert f"Round {i + 1}: {name(claimant)} claim{'s' * (claimant != seat)}: I suspect {target}" \
                        in lines
            for winner, card in state.armoury[i]:
                words = ("a secret card" if card in (RewardCard.SHIELD, RewardCard.DAGGER) else
                         "nothing" if card < 0 else f"{int(card) - 1} gold")
                assert any(line.startswith(f"Round {i + 1}: {name(winner)} win") and words in line
                           for line in lines)
            victim, saved = state.night[i]
            night = [line for line in lines if line.startswith(f"Round {i + 1} Night")]
            assert night == [f"Round {i + 1} Night: no murder (T12)"] if victim < 0 else (
                len(night) == 1 and name(victim) in night[0] and ("Shield" in night[0]) == bool(saved))


def test_events_are_the_new_entries_of_the_record():
    previous = {}

    def check(env, seat, observation, action):
        obs = observation["observation"]
        events = T.events(previous.get(seat), obs)
        before = T.record(previous[seat]) if seat in previous else []
        now = T.record(obs)
        assert set(before) <= set(now)  # the record only grows
        assert events == [entry for entry in now if entry not in before] and (events or not before or before == now)
        previous[seat] = obs.copy()

    _play(0, 5, check)


def _firsts(views, seed, n):
    """Per seat, whether each of its decisions in the game dealt from ``seed`` is a first decision to its view."""
    firsts = [[] for _ in range(n)]
    _play(seed, n, lambda env, seat, observation, action: firsts[seat].append(
        views[seat].decide(observation["observation"], observation["action_mask"]).first))
    return firsts


def test_a_seats_view_starts_over_exactly_at_each_new_game():
    for n in GAME.type.player_counts:
        views = [TextView(GAME) for _ in range(n)]
        for seed in range(10):
            firsts = _firsts(views, seed, n)
            for seat in range(n):
                assert firsts[seat] == [True] + [False] * (len(firsts[seat]) - 1), (n, seed, seat)


def test_the_state_text_holds_the_seats_own_role_cards_and_assignment():
    def check(env, seat, observation, action):
        state = env.game
        prompt = TextView(GAME).decide(observation["observation"], observation["action_mask"]).prompt
        shields, daggers = state.hands[seat]
        assert f"Your secret cards: {shields} Shield{'s' * (shields != 1)}, {daggers} Dagger{'s' * (daggers != 1)}." \
            in prompt
        traitor = seat == state.traitor
        assert ("seat 0 (you, the Traitor)" if traitor else "seat 0 (you, Faithful)") in prompt
        assert ("Your secret assignment this round" in prompt) == (traitor and state.round <= NUM_ROUNDS)

    _play(2, 6, check)
