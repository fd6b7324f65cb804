"""The text view of every registered game (``traitors_env.core.text``), issue 29 items 1–2.

Over every registered game and the toy game (``tests/toy_game.py``, which declares no text renderer and gets the
generic one): each prompt's numbered list is the action mask exactly; a reply is read as a number, the canonical
text (case and spaces ignored) or a tool call, anything else is refused with the options listed; ``TextAgent``
retries, then falls back to a seeded uniformly random legal action and counts it; full games played by text agents
finish; a seat's conversation starts over exactly at each new game.
"""

from __future__ import annotations

import dataclasses
import json
import re

import numpy as np
import pytest
import toy_game

from traitors_env.core.registry import load_game, register_game, registered_games, unregister_game
from traitors_env.core.text import (
    LEGAL_HEADER,
    GenericText,
    InvalidReply,
    TextAgent,
    TextDecision,
    TextView,
    normalize,
    text_of,
)
from traitors_env.evaluation.games import play_game

GAMES = [*registered_games(), "toy"] if "toy" not in registered_games() else list(registered_games())


@pytest.fixture(scope="module", autouse=True)
def _toy_registered():
    register_game("toy", toy_game.GAME, override=True)
    yield
    unregister_game("toy")


def listed(prompt: str) -> list[tuple[int, str]]:
    """The numbered list of a prompt, read as a client would: the lines ``  N. text`` after ``Legal actions:``."""
    lines = prompt.split(LEGAL_HEADER + "\n", 1)[1].splitlines()
    items = []
    for line in lines:
        match = re.fullmatch(r"  (\d+)\. (.+)", line)
        if not match:
            break
        items.append((int(match.group(1)), match.group(2)))
    return items


def decisions(game, n, seed, claims=True):
    """Every decision of a random game: ``(agent, observation, mask, TextDecision)`` from each seat's own view."""
    env = game.raw_env(num_players=n, claims=claims)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    views = {agent: TextView(game, n) for agent in env.possible_agents}
    for agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        obs, mask = observation["observation"], observation["action_mask"]
        yield agent, obs, mask, views[agent].decide(obs, mask)
        env.step(int(rng.choice(np.flatnonzero(mask))))


@pytest.mark.parametrize("name", GAMES)
def test_every_prompt_lists_exactly_the_legal_actions(name):
    """The numbered list (1…k, after 'Legal actions:') is the mask's legal actions in index order, the texts unique and
    none a bare number; the tool's enum is the same texts; every table size, claims on and off."""
    game = load_game(name)
    checked = 0
    for n in game.type.player_counts:
        for claims in (True, False):
            for _, _, mask, decision in decisions(game, n, seed=n, claims=claims):
                legal = np.flatnonzero(mask).tolist()
                assert [o.action for o in decision.options] == legal
                items = listed(decision.prompt)
                assert items == [(o.number, o.text) for o in decision.options]
                assert [number for number, _ in items] == list(range(1, len(legal) + 1))
                keys = [normalize(o.text) for o in decision.options]
                assert len(set(keys)) == len(keys) and not any(key.isdigit() for key in keys)
                choice = decision.tool["function"]["parameters"]["properties"]["choice"]
                assert decision.tool["function"]["name"] == "act" and decision.tool["type"] == "function"
                assert choice["enum"] == [o.text for o in decision.options]
                assert decision.tool["function"]["parameters"]["required"] == ["choice"]
                checked += 1
    assert checked > 0


def _a_decision(name: str) -> tuple[TextView, TextDecision]:
    game = load_game(name)
    for *_, decision in decisions(game, game.type.default_players, seed=3):
        if len(decision.options) >= 3:
            return TextView(game), decision
    raise AssertionError(f"{name}: no decision with 3 options")


@pytest.mark.parametrize("name", GAMES)
def test_a_reply_is_a_number_the_text_or_a_tool_call(name):
    view, decision = _a_decision(name)
    for option in decision.options:
        text = option.text
        assert view.parse(str(option.number), decision) == option.action
        assert view.parse(f" {option.number}. ", decision) == option.action
        assert view.parse(text, decision) == option.action
        assert view.parse(text.upper(), decision) == option.action
        assert view.parse("  " + text.replace(" ", "   ") + "\n", decision) == option.action
        assert view.parse(text.replace(" ", ""), decision) == option.action
        assert view.parse(f'"{text}"', decision) == option.action
        assert view.parse(f"{option.number}. {text}", decision) == option.action  # a line of the list
        assert view.parse(json.dumps({"choice": text}), decision) == option.action
        assert view.parse({"choice": text.swapcase()}, decision) == option.action
        assert view.parse_tool_call(json.dumps({"choice": text}), decision) == option.action
        assert view.parse_tool_call({"choice": option.number}, decision) == option.action


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("reply", ["0", "-1", "999", "", "   ", "hello", "1 2", "the first one please", "{not json",
                                   '{"pick": 1}', '{"choice": "no such action"}', '{"choice": 0}', '{"choice": true}',
                                   "[1]"])
def test_anything_else_is_refused_with_the_options_listed(name, reply):
    view, decision = _a_decision(name)
    with pytest.raises(InvalidReply) as error:
        view.parse(reply, decision)
    message = str(error.value)
    assert LEGAL_HEADER in message
    assert listed(message) == [(o.number, o.text) for o in decision.options]


def test_a_refusal_says_why():
    view, decision = _a_decision("the_traitors")
    k = len(decision.options)
    with pytest.raises(InvalidReply, match=f"999 is not the number of a legal action \\(1–{k}\\)"):
        view.parse("999", decision)
    with pytest.raises(InvalidReply, match="not valid JSON"):
        view.parse("{oops", decision)
    with pytest.raises(InvalidReply, match="neither the number nor the text"):
        view.parse("banana", decision)
    with pytest.raises(InvalidReply, match="empty"):
        view.parse("", decision)
    with pytest.raises(InvalidReply, match="gives the number of one action and the text of another"):
        view.parse(f"1. {decision.options[1].text}", decision)


def _scripted(choose):
    """A text policy that reads the numbered list of the last user message and replies ``choose(items)``."""
    def reply(messages, decision):
        assert messages[0]["role"] == "system" and messages[-1]["role"] == "user"
        return choose(listed(messages[-1]["content"]))
    return reply


@pytest.mark.parametrize("name", GAMES)
def test_text_agents_play_full_games(name):
    """Every seat a TextAgent answering from the prompt alone (number, text or tool call in turn): the games finish,
    no reply is refused, and each agent counted its decisions."""
    game = load_game(name)
    counter = iter(range(10**9))

    def choose(items):
        i = next(counter)
        number, text = items[i * 7919 % len(items)]
        return [str(number), text.upper(), {"choice": text}][i % 3]

    for n in (game.type.min_players, game.type.max_players):
        agents = [TextAgent(game, _scripted(choose), seed=seat) for seat in range(n)]
        outcome = play_game({"num_players": n}, agents, seed=n, game=game, check=True)
        assert len(outcome["rewards"]) == n
        assert sum(a.stats["decisions"] for a in agents) > 0
        for agent in agents:
            assert agent.stats["invalid_replies"] == agent.stats["fallbacks"] == agent.stats["retries"] == 0


def test_the_toy_game_is_played_through_the_generic_renderer(toy_registered):
    """A game without a text renderer: its prompt words its declared blocks and its actions with action_text."""
    agents = [TextAgent("toy", _scripted(lambda items: str(items[-1][0])), seed=s) for s in range(4)]
    play_game({"num_players": 4}, agents, seed=0, game="toy", check=True)
    prompt = agents[0].messages[1]["content"]
    assert "role: 1 0 (one-hot: Other, Spy)" in prompt or "role: 0 1 (one-hot: Other, Spy)" in prompt
    assert "accuse the player 3 seat(s) to the left" in prompt
    assert toy_game.__doc__.strip() in agents[0].messages[0]["content"]
    assert isinstance(text_of(toy_game.GAME), GenericText)


def test_an_invalid_reply_is_retried_then_a_random_legal_action_is_played():
    game = load_game("the_traitors")
    replies = []

    def stubborn(messages, decision):
        replies.append(len(messages))
        return "I would rather not say"

    agent = TextAgent(game, stubborn, retries=2, seed=7)
    env = game.raw_env(num_players=4)
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    action = agent.act(observation["observation"], observation["action_mask"])
    assert observation["action_mask"][action] == 1
    assert agent.stats == {"decisions": 1, "invalid_replies": 3, "retries": 2, "fallbacks": 1}
    assert len(replies) == 3  # the first try and two retries
    refusals = [m["content"] for m in agent.messages if m["role"] == "user"][1:]
    assert len(refusals) == 3 and all("neither the number nor the text" in r for r in refusals)
    assert LEGAL_HEADER in refusals[0] and "a random legal action was played for you" in refusals[-1]


def test_a_reply_that_becomes_valid_on_retry_is_played_and_counted():
    game = load_game("traitors_aboard")
    answers = iter(["??", "{bad json", "1"])
    agent = TextAgent(game, lambda messages, decision: next(answers), seed=0)
    env = game.raw_env(num_players=5)
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    action = agent.act(observation["observation"], observation["action_mask"])
    assert action == int(np.flatnonzero(observation["action_mask"])[0])
    assert agent.stats == {"decisions": 1, "invalid_replies": 2, "retries": 2, "fallbacks": 0}


def test_the_fallback_is_uniform_over_the_legal_actions_and_seeded():
    """retries=0: every invalid reply falls back at once; the draws cover the legal actions about equally and the
    same seed gives the same draws."""
    game = load_game("traitors_aboard")
    env = game.raw_env(num_players=5)
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    obs, mask = observation["observation"], observation["action_mask"]
    legal = np.flatnonzero(mask).tolist()

    def draws(seed):
        agent = TextAgent(game, lambda messages, decision: "nope", retries=0, seed=seed, memory=False)
        picks = [agent.act(obs, mask) for _ in range(60 * len(legal))]
        assert agent.stats["fallbacks"] == agent.stats["invalid_replies"] == len(picks)
        assert agent.stats["retries"] == 0
        return picks

    picks = draws(3)
    assert picks == draws(3) and picks != draws(4)
    counts = np.bincount(picks, minlength=mask.size)[legal]
    assert set(picks) == set(legal) and counts.min() > 25 and counts.max() < 100  # 60 expected each


@pytest.mark.parametrize("name", [n for n in GAMES if n != "toy"])
def test_a_new_game_starts_a_new_conversation(name):
    """One agent per seat plays three games in a row: its view says 'first decision' exactly at each seat's first
    decision of each game (the game's same_game), and its conversation then starts over from the system prompt."""
    game = load_game(name)
    n = game.type.default_players
    firsts: list[list[bool]] = [[] for _ in range(n)]

    class Watch(TextAgent):
        def act(self, observation, action_mask):
            action = super().act(observation, action_mask)
            firsts[self.seat].append(len(self.messages) == 3)  # system, prompt, reply: a new conversation
            return action

    agents = []
    for seat in range(n):
        agent = Watch(game, _scripted(lambda items: str(items[len(items) // 2][0])), seed=seat)
        agent.seat = seat
        agents.append(agent)
    per_game = [[0] * n for _ in range(3)]
    for g in range(3):
        before = [len(f) for f in firsts]
        play_game({"num_players": n}, agents, seed=10 + g, game=game)
        per_game[g] = [len(firsts[s]) - before[s] for s in range(n)]
    for seat in range(n):
        expected = []
        for g in range(3):
            expected += [True] + [False] * (per_game[g][seat] - 1) if per_game[g][seat] else []
        assert firsts[seat] == expected, f"seat {seat}"


def test_wrong_shapes_and_empty_masks_are_refused():
    game = load_game("the_traitors")
    view = TextView(game)
    obs = np.zeros(game.type.observation_shape, dtype=np.float32)
    with pytest.raises(ValueError, match=r"observation has shape \(3,\)"):
        view.decide(np.zeros(3, dtype=np.float32), np.ones(game.type.num_actions, dtype=np.int8))
    with pytest.raises(ValueError, match="action_mask has shape"):
        view.decide(obs, np.ones(3, dtype=np.int8))
    with pytest.raises(ValueError, match="allows no action"):
        view.decide(obs, np.zeros(game.type.num_actions, dtype=np.int8))
    with pytest.raises(ValueError, match="retries"):
        TextAgent(game, lambda m, d: "1", retries=-1)


def test_duplicate_action_texts_are_made_unique(toy_registered):
    """A game whose action_text words two actions alike (or as a number) still gets one text per option."""
    game = dataclasses.replace(toy_game.GAME, action_text=lambda a: "7" if a == 0 else "accuse")
    view = TextView(game)
    state = toy_game.ToyState(4, 0)
    decision = view.decide(toy_game.encode(state, 0), state.legal_mask())
    texts = [o.text for o in decision.options]
    assert texts == ["7 (action 0)", "accuse", "accuse (action 2)", "accuse (action 3)"]
    assert view.parse("accuse (action 2)", decision) == 2 and view.parse("3", decision) == 2
    with pytest.raises(InvalidReply):
        view.parse("7", decision)  # a number is a number: there are 4 options


def test_the_table_size_is_read_from_each_games_first_observation():
    """Without num_players the view reads the table size from a game's first observation (for the rules summary's
    row), again at a new game of another size; a given num_players is kept."""
    game = load_game("traitors_aboard")
    view, pinned = TextView(game), TextView(game, 8)
    for n in (3, 6):
        env = game.raw_env(num_players=n)
        env.reset(seed=n)
        observation = env.observe(env.agent_selection)
        for v in (view, pinned):
            assert v.decide(observation["observation"], observation["action_mask"]).first
        assert view.num_players == n and f"at a table of {n}," in view.system_prompt()
        assert pinned.num_players == 8


def test_the_system_prompt_holds_the_rules_and_how_to_reply():
    for name in ("traitors_aboard", "the_traitors"):
        game = load_game(name)
        view = TextView(game, 4)
        system = view.system_prompt()
        assert game.rules_summary(4).strip() in system and "HOW TO REPLY" in system and LEGAL_HEADER in system


@pytest.mark.parametrize("reply", ["9" * 5000, {"choice": "9" * 5000}, "9" * 5000 + ". plank seat 3", "-" + "1" * 4400])
def test_a_runaway_number_is_an_invalid_reply_not_a_crash(reply):
    """A reply of thousands of digits (past Python's int-conversion limit) is refused like any out-of-range number
    (found by a review: it raised ValueError out of the game)."""
    game = load_game("avalon")
    env = game.raw_env(num_players=5)
    env.reset(seed=0)
    observed = env.observe(env.agent_selection)
    view = TextView(game, 5)
    decision = view.decide(observed["observation"], observed["action_mask"])
    with pytest.raises(InvalidReply, match="not the number of a legal action"):
        view.parse(reply, decision)
