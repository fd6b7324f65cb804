"""Traitors Aboard's text renderer (``games/traitors_aboard/text.py``), issue 29 item 1.

Canonical action texts in the rulebook's words with seats relative to the actor (R02); every decision kind (the
main turn, the Spyglass order R07, the two Miraculous Catch returns R09, the claim R14) prompts with the mask's
legal actions; the events since a seat's last decision are what the other seats did, in traitors-replay's words
(R04, R07–R11, R16); a seat's view starts over exactly at a new game.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from traitors_env.core.registry import load_game
from traitors_env.core.text import TextView, normalize
from traitors_env.games.traitors_aboard import actions as A
from traitors_env.games.traitors_aboard import text as T
from traitors_env.games.traitors_aboard.cards import CARD_NAMES, ROLE_NAMES, CardKind
from traitors_env.games.traitors_aboard.engine import Phase

GAME = load_game("traitors_aboard")
ROOT = Path(__file__).resolve().parents[3]
LOOT = ("+1", "0", "-2")
SHOWN = ("Good Riddance", "Spyglass", "Miraculous Catch")  # action cards without a target: their effect follows


def test_the_issues_examples_are_canonical_texts():
    assert T.action_text(A.plank_action(3)) == "plank seat 3"
    assert T.action_text(A.loot_action(2, 0)) == "place -2 announce +1"
    assert T.action_text(A.accuse_action(2)) == "claim: seat 2 is a Mutineer"
    assert T.action_text(A.vouch_action(0)) == "claim: I am a Pirate"
    assert T.action_text(A.OPEN_CHEST) == "open the chest"
    assert T.action_text(A.hand_claim_action([CardKind.PLANK, 0, 1])) == "claim: my hand is +1, 0, Plank"
    assert T.action_text(A.chest_claim_action([2, 0])) == "claim: the top of the chest is +1, -2"
    assert T.action_text(A.return_action(CardKind.SPYGLASS)) == "return Spyglass to the draw pile"


def test_every_action_has_its_own_text():
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


def test_every_decision_kind_of_each_side_prompts_with_the_legal_actions():
    """The main turn, Spyglass order (R07), both Catch returns (R09) and the claim (R14), for Pirates and Mutineers:
    the decision is worded, its numbered list is the mask, and the docs page shows a prompt of each."""
    seen = set()

    def check(env, seat, observation, action):
        obs, mask = observation["observation"], observation["action_mask"]
        decision = TextView(GAME).decide(obs, mask)
        phase = env.game.phase
        assert [o.action for o in decision.options] == np.flatnonzero(mask).tolist()
        assert T.decision_kind(obs) == T.PHASE_KIND[phase]
        if phase is not Phase.MAIN:
            assert T.PHASE_TEXT[phase] in decision.prompt
        seen.add((phase, ROLE_NAMES[env.game.roles[seat]]))

    expected = {(phase, role) for phase in T.PHASE_KIND for role in ROLE_NAMES.values()}
    for seed in range(200):
        _play(seed, 6, check)
        if seen == expected:
            break
    assert seen == expected
    page = (ROOT / "docs" / "text" / "traitors_aboard.md").read_text(encoding="utf-8")
    for phase, role in expected:
        assert f"### {T.PHASE_KIND[phase]} ({role}s)" in page


def test_the_spyglass_order_shows_the_values_seen():
    """R07: the cards taken are seen in a shuffled order; each order names them with their true values."""
    found = []

    def check(env, seat, observation, action):
        if env.game.phase is Phase.SPYGLASS_ORDER and not found:
            seen = [card.kind for card in env.game.spyglass_seen]
            decision = TextView(GAME).decide(observation["observation"], observation["action_mask"])
            for option in decision.options:
                perm = A.SPYGLASS_PERMUTATIONS[option.action - A.SPYGLASS_ORDER_BASE][: len(seen)]
                assert option.text == "put back top first: " + ", ".join(f"#{p + 1} ({LOOT[seen[p]]})" for p in perm)
            found.append(seen)

    seed = 0
    while not found:
        _play(seed, 5, check)
        seed += 1


def _expected_event(n, observer, actor, action, last_claims):
    """The words for ``actor``'s ``action`` as ``observer`` reads it (seats relative to the observer), or ``None``
    for what the observer cannot see or that repeats the actor's latest claim of that kind (R16)."""
    rel = (actor - observer) % n
    who = f"seat {rel}"

    def seat(absolute):
        r = (absolute - observer) % n
        return "you" if r == 0 else f"seat {r}"

    def claim(kind, value, words):
        if last_claims.get((actor, kind)) == value:
            return None
        last_claims[(actor, kind)] = value
        return f"{who} claims: {words}"

    if A.LOOT_BASE <= action <= A.PLANK_BASE:
        return f"{who} puts a loot card face down in the chest, announcing {LOOT[(action - A.LOOT_BASE) % 3]}"
    if A.PLANK_BASE < action <= A.EYP_BASE:
        return f"{who} plays a Plank on {seat(actor + action - A.PLANK_BASE)}"
    if A.EYP_BASE < action < A.GOOD_RIDDANCE:
        target = seat(actor + action - A.EYP_BASE)
        return f"{who} plays Empty Your Pockets on {target}" + (": you discard your hand and draw 3 new cards"
                                                                if target == "you" else "")
    if action in (A.GOOD_RIDDANCE, A.SPYGLASS, A.MIRACULOUS_CATCH):
        return f"{who} plays {CARD_NAMES[CardKind(CardKind.GOOD_RIDDANCE + action - A.GOOD_RIDDANCE)]}:"
    if A.CLAIM_ACCUSE_BASE < action < A.CLAIM_VOUCH_BASE:
        target = seat(actor + action - A.CLAIM_ACCUSE_BASE)
        return claim("accuse", target, f"{target} {'are' if target == 'you' else 'is'} a Mutineer")
    if A.CLAIM_VOUCH_BASE <= action < A.CLAIM_HAND_BASE:
        offset = action - A.CLAIM_VOUCH_BASE
        target = seat(actor + offset)
        return claim("vouch", target, "I am a Pirate" if offset == 0 else
                     f"{target} {'are' if target == 'you' else 'is'} a Pirate")
    if A.CLAIM_HAND_BASE <= action < A.CLAIM_CHEST_BASE:
        return claim("hand", action, T.action_text(action).removeprefix("claim: "))
    if action >= A.CLAIM_CHEST_BASE:
        return claim("chest", action, T.action_text(action).removeprefix("claim: "))
    return None  # opening the chest ends the game; Spyglass orders and Catch returns are private (R07, R09)


def _check_events(seed, n):
    """Plays the game dealt from ``seed`` at ``n`` seats, checking each decision's events; the decisions checked."""
    previous: list[np.ndarray | None] = [None] * n
    pending: list[list[str]] = [[] for _ in range(n)]
    aboard: list[list[bool]] = [[True] * n for _ in range(n)]
    last_claims: list[dict] = [{} for _ in range(n)]
    checked = 0

    def check(env, seat, observation, action):
        nonlocal checked
        state = env.game
        expected = pending[seat] + [
            f"{'You go' if other == seat else f'seat {(other - seat) % n} goes'} overboard: a "
            f"{ROLE_NAMES[state.roles[other]]} (R11)"
            for other in range(n) if aboard[seat][other] and not state.aboard[other]]
        aboard[seat] = list(state.aboard)
        obs = observation["observation"]
        events = T.events(previous[seat], obs)
        short = [e.split(":")[0] + ":" if any(f"plays {card}:" in e for card in SHOWN) else e for e in events]
        assert Counter(short) == Counter(expected), f"seed {seed}, seat {seat}"
        view = TextView(GAME)
        if previous[seat] is not None:
            view._previous = previous[seat]
        prompt = view.decide(obs, observation["action_mask"]).prompt
        assert all(f"- {e}\n" in prompt for e in events)
        previous[seat] = obs.copy()
        pending[seat] = []
        for other in range(n):
            if other != seat:
                text = _expected_event(n, other, seat, action, last_claims[other])
                if text is not None:
                    pending[other].append(text)
        checked += 1

    _play(seed, n, check)
    return checked


def test_events_are_what_the_other_seats_did_since_the_last_decision():
    """Between two decisions of a seat, its prompt lists each other seat's public move exactly once, with seats
    named relative to it: loot with its announcement (R04), action cards and their targets (R07–R11), new claims
    (R16) and who went overboard with their revealed role (R11)."""
    assert sum(_check_events(seed, 3 + seed % 6) for seed in range(24)) > 300


def _firsts(views, seed, n):
    """Per seat, whether each of its decisions in the game dealt from ``seed`` is a first decision to its view."""
    firsts = [[] for _ in range(n)]
    _play(seed, n, lambda env, seat, observation, action: firsts[seat].append(
        views[seat].decide(observation["observation"], observation["action_mask"]).first))
    return firsts


def test_a_seats_view_starts_over_exactly_at_each_new_game():
    """same_game: over 20 games in a row, a seat's view reports a first decision exactly at its first decision of
    each game, at every table size."""
    for n in GAME.type.player_counts:
        views = [TextView(GAME) for _ in range(n)]
        for seed in range(20 if n == 5 else 4):
            firsts = _firsts(views, seed, n)
            for seat in range(n):
                assert firsts[seat] == ([True] + [False] * (len(firsts[seat]) - 1) if firsts[seat] else []), (n, seed)


def test_the_state_text_holds_the_seats_own_role_and_hand():
    def check(env, seat, observation, action):
        state = env.game
        prompt = TextView(GAME).decide(observation["observation"], observation["action_mask"]).prompt
        hand = ", ".join(CARD_NAMES[CardKind(k)] for k in range(8) for _ in range(state.hands[seat][k]))
        assert f"Your hand: {hand or 'no cards'}." in prompt
        assert f"seat 0 (you, {ROLE_NAMES[state.roles[seat]]})" in prompt
        assert f"chest target {state.setup.target}" in prompt

    _play(1, 7, check)
