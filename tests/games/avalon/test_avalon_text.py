"""Avalon's text renderer (``games/avalon/text.py``, ``GAME.text``) for language-model agents.

Canonical action texts with seats relative to the actor (A06, A07, A10, A14, A16); the private knowledge is the
seat's role and exactly what A03 tells it; every decision kind (propose A06, claim A16, vote A07, quest A10,
assassinate A14) prompts with the mask's legal actions; the events since a seat's last decision are what the public
log (``GameState.events``) recorded since, seats named from the reader; a seat's view starts over exactly at a new
game; text agents play full games.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from avalon_helpers import AS, DEAL5, MD, MO, OB, M, P, S, new, propose, round_, vote

from traitors_env.core.registry import load_game
from traitors_env.core.text import TextAgent, TextView, normalize
from traitors_env.evaluation import play_game
from traitors_env.games.avalon import actions as A
from traitors_env.games.avalon import text as T
from traitors_env.games.avalon.engine import Phase
from traitors_env.games.avalon.observation import encode
from traitors_env.games.avalon.roles import ROLE_NAMES, side_of_role

GAME = load_game("avalon")


def test_the_briefs_examples_are_canonical_texts():
    assert T.action_text(A.pick_action(2)) == "pick seat 2"
    assert T.action_text(A.pick_action(0)) == "pick myself"
    assert T.action_text(A.APPROVE) == "approve" and T.action_text(A.REJECT) == "reject"
    assert T.action_text(A.SUCCESS) == "success" and T.action_text(A.FAIL) == "fail"
    assert T.action_text(A.assassinate_action(3)) == "assassinate seat 3"
    assert T.action_text(A.claim_evil_action(2)) == "claim: seat 2 is Evil"
    assert T.action_text(A.claim_good_action(0)) == "claim: I am Good"
    assert T.action_text(A.claim_good_action(4)) == "claim: seat 4 is Good"
    assert T.action_text(A.CLAIM_MERLIN) == "claim: I am Merlin"
    assert T.action_text(A.CLAIM_PERCIVAL) == "claim: I am Percival"
    assert T.action_text(A.CLAIM_NONE) == "claim: nothing"
    with pytest.raises(ValueError, match="outside the action space"):
        T.action_text(A.NUM_ACTIONS)


def test_every_action_has_its_own_text_and_no_text_is_a_number():
    texts = [normalize(T.action_text(a)) for a in range(A.NUM_ACTIONS)]
    assert len(set(texts)) == A.NUM_ACTIONS and not any(t.isdigit() for t in texts)


def _private(state, seat):
    return T.private_text(encode(state, seat))


def test_private_knowledge_is_the_role_and_what_a03_tells_it():
    """A03: Merlin sees Evil but Mordred; Evil sees Evil but Oberon; Oberon sees nobody; Percival sees Merlin and
    Morgana; a Servant nobody. Seats relative to the reader."""
    roles = (M, P, S, S, AS, MO, MD, OB, S, S)  # 10 players: 4 Evil
    state = new(10, roles=roles, percival=True, morgana=True, mordred=True, oberon=True)
    merlin = _private(state, 0)
    assert "You are Merlin, on the Good side" in merlin
    assert "(all but Mordred, A03): seat 4, seat 5, seat 7." in merlin  # Assassin, Morgana, Oberon
    percival = _private(state, 1)
    assert "Merlin and Morgana" in percival and ": seat 4, seat 9." in percival  # Morgana at 5 = +4, Merlin at 0 = +9
    assassin = _private(state, 4)
    assert "fellow Evil players (all but Oberon, A03): seat 1, seat 2." in assassin  # Morgana, Mordred
    assert "As the Assassin" in assassin
    assert "do not know the other Evil players" in _private(state, 7)
    assert "You know nobody's role" in _private(state, 2)
    assert "Good (6): Merlin, Percival, 4 Loyal Servants; Evil (4): the Assassin, Morgana, Mordred, Oberon" in merlin


def _play(seed, n, on_decision, claims=True, **flags):
    env = GAME.raw_env(num_players=n, claims=claims, **flags)
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
    return env


def test_every_decision_kind_of_each_side_prompts_with_the_legal_actions():
    """Propose (A06), claim (A16), vote (A07), quest (A10) for Good and Evil, and the Assassin's choice (A14): each
    prompt lists exactly the mask's legal actions with their canonical texts; a Good quest member is offered only
    Success."""
    seen = set()

    def check(env, seat, observation, action):
        obs, mask = observation["observation"], observation["action_mask"]
        phase = env.game.phase
        kind = T.decision_kind(obs)
        assert kind == T.PHASE_KIND[phase]
        decision = TextView(GAME).decide(obs, mask)
        assert [o.action for o in decision.options] == np.flatnonzero(mask).tolist()
        assert [o.text for o in decision.options] == [T.action_text(a) for a in np.flatnonzero(mask)]
        assert T.decision_text(obs, decision.actions) in decision.prompt
        side = env.game.side_of(seat)
        if phase is Phase.QUEST:
            assert [o.text for o in decision.options] == (["success", "fail"] if side else ["success"])
        seen.add((kind, side))

    for seed in range(12):
        _play(seed, 5 + seed % 6, check)
    assert seen >= {(kind, side) for kind in ("leader picks a team member", "claim", "vote on a team", "quest card")
                    for side in (0, 1)} | {("assassination", 1)}


def _expected_events(state, reader, start):
    """The public log ``state.events[start:]`` in the renderer's words, seats relative to ``reader``."""
    n = state.num_players

    def rel(s):
        return (s - reader) % n

    def seats(group):
        return ", ".join("you" if r == 0 else f"seat {r}" for r in sorted(rel(s) for s in group)) or "nobody"

    out = []
    proposal = None
    for event in state.events[start:]:
        kind = event["kind"]
        if kind == "proposal":
            proposal = event
            if event["leader"] != reader:
                out.append(f"quest {event['quest']}, proposal {event['number']}: seat {rel(event['leader'])} "
                           f"proposes the team {seats(event['team'])}")
        elif kind == "claim" and event["seat"] != reader and event["claim"] != "nothing":
            words = event["claim"]
            match = re.fullmatch(r"player_(\d+) is (Evil|Good)", words)
            if match:
                subject = int(match.group(1))
                words = ("you are " if subject == reader else f"seat {rel(subject)} is ") + match.group(2)
            out.append(f"seat {rel(event['seat'])} claims: {words}")
        elif kind == "votes":
            yes = [s for s, v in enumerate(event["votes"]) if v]
            no = [s for s, v in enumerate(event["votes"]) if not v]
            leader = proposal["leader"] if proposal is not None else None
            if proposal is None:  # the proposal was before ``start``: find it in the whole log
                leader = [e for e in state.events[:start] if e["kind"] == "proposal"][-1]["leader"]
                number = [e for e in state.events[:start] if e["kind"] == "proposal"][-1]["number"]
            else:
                number = proposal["number"]
            whose = "your" if leader == reader else f"seat {rel(leader)}'s"
            text = (f"the votes on {whose} proposal for quest {event['quest']}: "
                    f"{'approved' if event['approved'] else 'rejected'} ({len(yes)}–{len(no)}): approve "
                    f"{seats(yes)}; reject {seats(no)}")
            out.append(text + ("" if event["approved"] else f" (rejections in a row: {number})"))
        elif kind == "quest":
            fails = event["fails"]
            needed = state.fails_needed(event["quest"])
            out.append(f"quest {event['quest']} (team {seats(event['team'])}): "
                       f"{'succeeded' if event['success'] else 'failed'}, {fails} Fail{'s' if fails != 1 else ''} "
                       f"played" + (f" ({needed} needed to fail)" if needed > 1 else ""))
        elif kind == "assassination":
            target = "you" if event["target"] == reader else f"seat {rel(event['target'])}"
            out.append(f"the Assassin names {target} as Merlin (A14)")
        elif kind == "end":
            out.append(f"the game is over: {event['winning_side'].capitalize()} wins")
    return out


@pytest.mark.parametrize("claims", [True, False])
def test_events_are_what_the_public_log_recorded_since_the_seats_last_decision(claims):
    """At each decision, and at the end, a seat's events are the public log's entries since its previous decision
    (A06 proposals of others, A16 claims of others, A07 votes, A11 quest results, A14, A13–A15 the end), in order."""
    checked = 0
    for seed in range(10):
        n = 5 + seed % 6
        last: dict[int, tuple[np.ndarray, int]] = {}

        def check(env, seat, observation, action, last=last):
            nonlocal checked
            state = env.game
            obs = observation["observation"]
            previous, start = last.get(seat, (None, 0))
            assert T.events(previous, obs) == _expected_events(state, seat, start)
            last[seat] = (obs.copy(), len(state.events))
            checked += 1

        env = _play(100 + seed, n, check, claims=claims, **({"percival": True, "morgana": True} if n >= 7 else {}))
        state = env.game
        for seat in range(n):  # the end, as each seat observes it
            previous, start = last.get(seat, (None, 0))
            final = encode(state, seat)
            assert T.events(previous, final) == _expected_events(state, seat, start)
            assert T.events(previous, final)[-1].startswith("the game is over")
    assert checked > 500


def test_state_text_holds_the_public_record_relative_to_the_reader():
    """Seat 2's table after one approved quest and a rejected proposal: the quest's team, Fails and result (A11),
    the votes per seat (A07), the rejection count and the leadership passed on (A09), seats named from seat 2."""
    state = new(5, roles=DEAL5, leader=0)
    round_(state, [0, 3], fails=[3])  # leader 0 (seat 3 from 2); quest 1 fails with 1 Fail
    propose(state, [1, 2, 4])  # leader 1 (seat 4 from 2)
    vote(state, {1, 2})
    text = T.state_text(encode(state, 2))
    assert "quest 1 (team seat 1, seat 3): failed, 1 Fail played" in text
    assert "- quest 1 #1, seat 3: seat 1, seat 3; approved (5–0): approve you, seat 1, seat 2, seat 3, seat 4" in text
    assert ("- quest 2 #1, seat 4: you, seat 2, seat 4; rejected (2–3): approve you, seat 4; reject seat 1, seat 2, "
            "seat 3") in text
    assert "Quest 2 of 5; 0 succeeded, 1 failed" in text and "Leader: you." in text  # A09: passed left to seat 2
    assert "You are the leader: picked so far nobody (3 more to pick)." in text
    assert "Rejected proposals in a row on this quest: 1" in text


def test_same_game_is_true_within_a_game_and_false_at_a_new_one():
    """Every decision of a seat follows its previous one in one game; a new game's first decision does not follow
    the previous game's last (same seeds, table size and options: only the progress tells them apart)."""
    lasts = {}
    firsts = {}
    for game_index in range(2):
        previous: dict[int, np.ndarray] = {}

        def check(env, seat, observation, action, previous=previous, game_index=game_index):
            obs = observation["observation"]
            if seat in previous:
                assert T.same_game(previous[seat], obs)
            elif game_index:
                firsts[seat] = obs.copy()
            previous[seat] = obs.copy()

        _play(7 + game_index, 6, check)
        if not game_index:
            lasts = dict(previous)
    assert sorted(firsts) == list(range(6))
    for seat, first in firsts.items():
        assert not T.same_game(lasts[seat], first)
    # The same deal again (same role and A03 knowledge): only the record tells the games apart.
    old = new(5, roles=DEAL5, leader=0)
    for team in ([1, 2], [0, 1, 2], [0, 1]):
        round_(old, team)
    fresh = new(5, roles=DEAL5, leader=0)
    propose(fresh, [1, 2])
    assert fresh.current_player == 0 and old.phase is Phase.ASSASSINATE
    assert not T.same_game(encode(old, 0), encode(fresh, 0))
    assert T.same_game(encode(new(5, roles=DEAL5, leader=0), 0), encode(fresh, 0))


@pytest.mark.parametrize("n", [5, 8, 10])
def test_text_agents_play_full_games_and_know_their_role(n):
    """Every seat a TextAgent answering from the prompt alone (A17): the game ends, no reply is refused, and each
    seat's first prompt names its own role and side (A03)."""
    counter = iter(range(10**9))
    first_prompts: dict[int, str] = {}

    def make(seat):
        def reply(messages, decision):
            first_prompts.setdefault(seat, messages[1]["content"])
            i = next(counter)
            option = decision.options[i * 7919 % len(decision.options)]
            return [str(option.number), option.text.upper(), {"choice": option.text}][i % 3]
        return reply

    agents = [TextAgent(GAME, make(seat), seed=seat) for seat in range(n)]
    env = GAME.raw_env(num_players=n, claims=True)
    outcome = play_game(env, agents, seed=n)
    assert len(outcome["rewards"]) == n and env.game.is_terminal
    for seat, agent in enumerate(agents):
        assert agent.stats["invalid_replies"] == agent.stats["fallbacks"] == 0 and agent.stats["decisions"] > 0
        role = env.game.roles[seat]
        assert f"{ROLE_NAMES[role]}, on the {('Good', 'Evil')[side_of_role(role)]} side" in first_prompts[seat]
