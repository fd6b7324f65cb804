"""Every registered game as a TextArena environment (traitors_env/textarena_envs.py; issue 29 item 4), played through
TextArena's own loop (``ta.make``, ``reset``, ``get_observation``, ``step``, ``close``) by agents written for
TextArena (``__call__(observation: str) -> str``)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

ta = pytest.importorskip("textarena")

from traitors_env import textarena_envs  # noqa: E402
from traitors_env.core.registry import load_game, registered_games  # noqa: E402
from traitors_env.core.text import TextView  # noqa: E402


class Picker(ta.Agent):
    """A TextArena agent: picks a number of the observation's last ``Legal actions:`` list (seeded)."""

    def __init__(self, seed: int, style: str = "number") -> None:
        self.rng = np.random.default_rng(seed)
        self.style = style

    def __call__(self, observation) -> str:
        if not isinstance(observation, str):  # an unwrapped env's messages: (sender, text, type) each
            observation = "\n".join(message[1] for message in observation)
        block = observation.rpartition("Legal actions:")[2]
        options = re.findall(r"^  (\d+)\. (.+)$", block, re.M)
        number, text = options[int(self.rng.integers(len(options)))]
        return {"number": number, "text": f"I choose [{text.upper()}]", "json": json.dumps({"choice": text})}[self.style]


def play(env_id: str, players: int, seed: int, agents) -> tuple[dict, dict, int, list, object]:
    env = ta.make(env_id)
    env.reset(num_players=players, seed=seed)
    done, steps, seen = False, 0, []
    while not done:
        player_id, observation = env.get_observation()
        seen.append((player_id, observation))
        done, _ = env.step(action=agents[player_id](observation))
        steps += 1
        assert steps < 5000, "the game stalls"
    rewards, info = env.close()
    return rewards, info, steps, seen, env


@pytest.mark.every_extra
def test_ids_from_the_games_long_names():
    assert textarena_envs.textarena_id("traitors_aboard") == "TraitorsAboard-v0"
    assert textarena_envs.textarena_id("the_traitors") == "TheTraitors-v0"
    registry = ta.envs.registration.ENV_REGISTRY
    for name in registered_games():
        env_id = textarena_envs.textarena_id(name)
        assert env_id in registry and f"{env_id}-raw" in registry


@pytest.mark.parametrize("style", ["number", "text", "json"])
@pytest.mark.parametrize("name", registered_games())
def test_textarenas_loop_plays_every_game_to_its_end(name, style):
    """Every reply form through TextArena's wrappers (the action in brackets); rewards +1 for the seats that won
    (game.seat_won), -1 for the rest; each player's role revealed at the end; no invalid reply."""
    game = load_game(name)
    n = game.type.default_players
    rewards, info, steps, _, _ = play(textarena_envs.textarena_id(name), n, 3, [Picker(i, style) for i in range(n)])
    assert set(rewards) == set(range(n)) and set(rewards.values()) <= {1, -1} and 1 in rewards.values()
    assert sum(info[p]["turn_count"] for p in range(n)) == steps
    assert all(info[p]["invalid_replies"] == info[p]["fallbacks"] == 0 for p in range(n))
    assert {info[p]["role"] for p in range(n)} <= set(game.type.side_labels)


def test_same_seed_same_game_and_a_player_sees_only_its_own_text_view():
    """A player's observation is its own seat's TextView prompts (the system prompt once, then each decision), the
    same for the same seed: what the view shows (the secrets test covers it), never another seat's."""
    n = 5
    first = play("TraitorsAboard-v0-raw", n, 11, [Picker(i) for i in range(n)])
    second = play("TraitorsAboard-v0-raw", n, 11, [Picker(i) for i in range(n)])
    assert first[0] == second[0] and first[2] == second[2]
    assert [(p, [m[1] for m in o]) for p, o in first[3]] == [(p, [m[1] for m in o]) for p, o in second[3]]
    game = load_game("traitors_aboard")
    env, views = game.raw_env(num_players=n), [TextView(game, n) for _ in range(n)]
    env.reset(seed=11)
    agents = [Picker(i) for i in range(n)]
    expected = []  # what each decision should show: the seat's own view's prompt, replayed through the AEC env
    for agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        seat = env.possible_agents.index(agent)
        decision = views[seat].decide(observation["observation"], observation["action_mask"])
        expected.append((seat, decision.prompt))
        env.step(decision.options[int(agents[seat](decision.prompt)) - 1].action)
    assert [(p, o[-1][1]) for p, o in first[3]] == expected
    assert all(o[0][1] == views[p].system_prompt() for p, o in first[3][:1])


def test_invalid_replies_are_answered_then_fall_back():
    """An invalid reply gets a GAME_ADMIN message listing the legal actions and the same player is asked again;
    after ``retries`` more, a random legal action is played and counted (the game never stalls)."""
    n = 5
    answers = iter(["pass the rum", "[99]"] * 10_000)

    def stubborn(observation: str) -> str:
        return next(answers)

    good = [Picker(i) for i in range(n)]
    agents = [stubborn] + good[1:]
    rewards, info, steps, seen, env = play("TraitorsAboard-v0", n, 2, agents)
    asked = [o for p, o in seen if p == 0]
    told = "\n".join(text for _, text, _ in env.state.observations[0])  # not yet shown when the game ended
    assert "random legal action was played" in (asked[3] if len(asked) > 3 else told)
    assert info[0]["fallbacks"] >= 1 and info[0]["invalid_replies"] == 3 * info[0]["fallbacks"]
    assert info[0]["invalid_move"] is True and all(info[p]["invalid_replies"] == 0 for p in range(1, n))
    assert "is neither the number nor the text of a legal action" in asked[1]
    assert "99 is not the number of a legal action" in asked[2] and "Legal actions:\n  1. " in asked[2]
    assert sum(info[p]["turn_count"] for p in range(n)) == steps - 2 * info[0]["fallbacks"]


def test_a_game_registered_later_is_added(toy_registered):
    added = textarena_envs.register_all()
    assert "OddOneOut-v0" in added and "OddOneOut-v0-raw" in added
    rewards, info, _, _, _ = play("OddOneOut-v0", 4, 0, [Picker(i) for i in range(4)])
    assert set(rewards.values()) <= {1, -1}


def test_errors_name_the_bad_value():
    env = ta.make("TheTraitors-v0-raw")
    with pytest.raises(ValueError, match="players"):
        env.reset(num_players=99, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        textarena_envs.TextArenaGame("the_traitors").step("1")


@pytest.mark.every_extra
def test_a_language_model_through_textarenas_loop():
    """The issue's "the same through TextArena's loop": a TextArena agent that asks a chat model (the official
    ``openai`` client against the stand-in server of tests/llm_server.py) plays a seat of every game."""
    openai = pytest.importorskip("openai")
    from llm_server import ScriptedServer

    with ScriptedServer(seed=4, style="mixed") as server:
        client = openai.OpenAI(base_url=server.url, api_key="no-key", max_retries=0, timeout=5)

        def model(observation: str) -> str:
            reply = client.chat.completions.create(model="local-test",
                                                   messages=[{"role": "user", "content": observation}])
            message = reply.choices[0].message
            return message.tool_calls[0].function.arguments if message.tool_calls else message.content

        for name in registered_games():
            n = load_game(name).type.default_players
            rewards, info, _, _, _ = play(textarena_envs.textarena_id(name), n, 1, [model] + [Picker(i) for i in range(1, n)])
            assert info[0]["turn_count"] >= 1 and info[0]["invalid_replies"] == 0 and set(rewards) == set(range(n))
        assert server.requests >= 2
