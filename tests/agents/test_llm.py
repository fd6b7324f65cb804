"""Language-model agents (``openai:MODEL``, traitors_env/agents/llm.py) with the real ``openai`` client against the
scripted stand-in server of tests/llm_server.py on loopback (issue 29: a language model at the table through
``act(observation, action_mask)``; retries with backoff on 429/5xx; every fault counted; the key never logged)."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("openai")

from llm_server import FAULT_KINDS, ScriptedServer, legal_options  # noqa: E402

from traitors_env.agents.llm import LLMAgent, LLMOptions, LLMRequestError, llm_options_from_args  # noqa: E402
from traitors_env.agents.spec import AgentSpecError, agent_maker, load_agent  # noqa: E402
from traitors_env.core.registry import load_game, registered_games  # noqa: E402
from traitors_env.core.text import TextAgent  # noqa: E402
from traitors_env.evaluation.games import play_game  # noqa: E402

#: The agent's fault counter (``stats["api_<kind>"]`` or ``invalid_replies``) each injected fault kind lands in.
COUNTED_AS = {"malformed_json": "api_bad_response", "bad_arguments": "invalid_replies", "illegal": "invalid_replies",
              "timeout": "api_timeout", "429": "api_rate_limited", "500": "api_server_error", "drop": "api_connection"}


@pytest.fixture
def server():
    with ScriptedServer(seed=3) as running:
        yield running


def options(server: ScriptedServer, **changes) -> LLMOptions:
    return LLMOptions(base_url=server.url, timeout=changes.pop("timeout", 2.0), backoff=0.0, **changes)


def one_game(game_name: str, agent_of, seed: int = 5, players: int = 5):
    """One game with a fresh LLM agent at every seat of ``agent_of(seat) is True`` (heuristic elsewhere)."""
    game = load_game(game_name)
    agents = [agent_of(s) or game.make_bot("heuristic", s) for s in range(players)]
    result = play_game({"num_players": players}, agents, seed=seed, game=game, check=True)
    return result, [a for a in agents if isinstance(a, LLMAgent)]


def test_the_server_reads_the_prompts_numbered_list():
    messages = [{"role": "user", "content": "intro\nLegal actions:\n  1. plank seat 3\n  2. pass\n\nReply."},
                {"role": "assistant", "content": "7"},
                {"role": "user", "content": "7 is not legal.\nLegal actions:\n  1. plank seat 3\n  2. pass"}]
    assert legal_options(messages) == [(1, "plank seat 3"), (2, "pass")]
    assert legal_options([{"role": "user", "content": "no list"}]) == []


@pytest.mark.parametrize("style", ["tool", "number", "text"])
@pytest.mark.parametrize("game_name", registered_games())
def test_an_llm_seat_plays_a_whole_game_of_every_game(game_name, style):
    """Each reply form is accepted (a tool call's choice, the number, the canonical text; issue 29 item 1) and the
    agent's tokens are the server's (whitespace words, summed over the requests)."""
    with ScriptedServer(seed=1, style=style) as server:
        result, (agent,) = one_game(game_name, lambda s: s == 0 and LLMAgent("local-test", game_name, options(server),
                                                                               seed=0))
        stats = agent.stats
    assert result["result"] and stats["decisions"] >= 1
    assert stats["invalid_replies"] == stats["fallbacks"] == stats["api_retries"] == 0
    assert stats["requests"] == stats["decisions"] == server.requests
    bodies = [json.loads(b) for b in server.bodies]
    assert stats["prompt_tokens"] == sum(len(str(m["content"] or "").split()) for b in bodies for m in b["messages"])
    assert stats["completion_tokens"] >= stats["decisions"] and stats["seconds"] > 0
    assert all(("tools" in b) for b in bodies) and bodies[0]["tools"][0]["function"]["name"] == "act"
    assert bodies[0]["messages"][0]["role"] == "system" and bodies[0]["max_tokens"] == 256
    assert "temperature" not in bodies[0]  # None: the server's default


@pytest.mark.parametrize("kind", FAULT_KINDS)
def test_each_fault_is_retried_and_counted(kind):
    """Every new request content is faulted once (429, 500, a timeout, a dropped connection, a malformed body, bad
    tool arguments, an illegal choice) and each fault is counted under its kind. A transport fault is retried with
    backoff (the same request, then answered: no fallback); an invalid reply is answered with the legal list (a new
    request, faulted again: after the retries, the fallback)."""
    with ScriptedServer(seed=2, style="tool", faults={kind: 1.0}, timeout_sleep=2.0) as server:
        result, (agent,) = one_game("traitors_aboard", lambda s: s == 1 and LLMAgent(
            "local-test", "traitors_aboard", options(server, timeout=1.0, retries=2), seed=1), seed=8)
        stats = agent.stats
    assert result["result"] and server.injected[kind] >= stats["decisions"] >= 1
    assert stats[COUNTED_AS[kind]] == server.injected[kind]
    assert stats["api_failures"] == 0
    if COUNTED_AS[kind] == "invalid_replies":
        assert stats["fallbacks"] == stats["decisions"] and stats["api_retries"] == 0
        assert stats["invalid_replies"] == stats["retries"] + stats["fallbacks"] == 3 * stats["decisions"]
    else:
        assert stats["api_retries"] == server.injected[kind] == stats["decisions"]
        assert stats["invalid_replies"] == stats["fallbacks"] == 0


def test_a_server_that_stays_down_falls_back_to_random_legal_actions():
    """Retries spent (each request answered 500): a random legal action per decision, counted; the game ends."""
    with ScriptedServer(faults={"500": 1.0}, fault_repeats=10**6) as server:
        result, (agent,) = one_game("the_traitors", lambda s: s == 2 and LLMAgent(
            "local-test", "the_traitors", options(server, retries=1), seed=4))
        stats = agent.stats
    assert result["result"] and stats["decisions"] >= 1
    assert stats["fallbacks"] == stats["api_failures"] == stats["decisions"]
    assert stats["api_server_error"] == 2 * stats["decisions"] == server.requests  # 1 try + 1 retry each
    assert "random legal action was played for you" in agent.messages[-1]["content"]


def test_invalid_replies_past_the_retries_fall_back():
    with ScriptedServer(faults={"illegal": 1.0}, fault_repeats=10**6) as server:
        result, (agent,) = one_game("traitors_aboard", lambda s: s == 0 and LLMAgent(
            "local-test", "traitors_aboard", options(server, reply_retries=1), seed=4))
        stats = agent.stats
    assert stats["fallbacks"] == stats["decisions"] and stats["invalid_replies"] == 2 * stats["decisions"]
    assert stats["retries"] == stats["decisions"]


def test_a_refused_request_stops_the_agent_without_the_key(monkeypatch, server):
    """A 404 (a wrong URL or model) is not retried: LLMRequestError names the status, never the key."""
    monkeypatch.setenv("TRAITORS_TEST_KEY", "sk-secret-0123456789")
    agent = LLMAgent("local-test", "traitors_aboard", LLMOptions(base_url=server.url.replace("/v1", "/nowhere"),
                                                                api_key_env="TRAITORS_TEST_KEY", backoff=0.0), seed=0)
    game = load_game("traitors_aboard")
    env = game.raw_env(num_players=5)
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    with pytest.raises(LLMRequestError, match="404") as error:
        agent.act(observation["observation"], observation["action_mask"])
    assert "sk-secret" not in str(error.value) and len(server.bodies) == 1  # not retried
    assert server.headers.get("authorization") == "Bearer sk-secret-0123456789"  # sent, as it should be


def test_specs_and_options():
    game = load_game("traitors_aboard")
    label, make = agent_maker("openai:local-test", game="traitors_aboard", llm=LLMOptions(base_url="http://127.0.0.1:9/v1"))
    agent = make(0)
    assert label == "openai:local-test" and isinstance(agent, TextAgent) and agent.model == "local-test"
    label, agent = load_agent("openai:some/model-7b", seed=1, game=game, llm=LLMOptions(base_url="http://127.0.0.1:9/v1"))
    assert agent.model == "some/model-7b"
    with pytest.raises(AgentSpecError, match="expected openai:MODEL"):
        agent_maker("openai:", game="traitors_aboard")
    for bad, flag in ((dict(temperature=5.0), "temperature"), (dict(timeout=0), "timeout"), (dict(retries=-1), "retries"),
                      (dict(api_key_env="not a name"), "api_key_env")):
        with pytest.raises(ValueError, match=flag):
            LLMOptions(**bad)
    assert LLMOptions(base_url="http://user:pw@host:1/v1").public()["base_url"] == "http://***@host:1/v1"


def test_openai_without_a_key_or_server_is_refused_before_any_game(monkeypatch):
    from traitors_env.agents import llm

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setattr(llm, "_CLIENTS", {})
    with pytest.raises(AgentSpecError, match=r"need a key in \$OPENAI_API_KEY"):
        agent_maker("openai:gpt-test", game="traitors_aboard")


def test_option_errors_name_the_flag():
    import argparse

    from traitors_env.agents.llm import add_llm_arguments

    parser = argparse.ArgumentParser()
    add_llm_arguments(parser)
    args = parser.parse_args(["--llm-max-tokens", "0", "--llm-cost-per-1k", "0.5", "1.5"])
    with pytest.raises(ValueError, match="--llm-max-tokens"):
        llm_options_from_args(args)
    args = parser.parse_args(["--llm-cost-per-1k", "0.5", "1.5", "--llm-no-tools", "--llm-temperature", "0.2"])
    opts = llm_options_from_args(args)
    assert (opts.prompt_cost, opts.completion_cost, opts.tools, opts.temperature) == (0.5, 1.5, False, 0.2)


def test_costs_and_no_tools(server):
    opts = options(server, tools=False, prompt_cost=2.0, completion_cost=10.0, temperature=0.3, memory=False)
    result, (agent,) = one_game("traitors_aboard", lambda s: s == 3 and LLMAgent("local-test", "traitors_aboard", opts,
                                                                                 seed=0))
    stats = agent.stats
    assert stats["cost"] == pytest.approx((2.0 * stats["prompt_tokens"] + 10.0 * stats["completion_tokens"]) / 1000)
    bodies = [json.loads(b) for b in server.bodies]
    assert all("tools" not in b and b["temperature"] == 0.3 for b in bodies)
    assert all(len(b["messages"]) == 2 for b in bodies)  # no memory: the system prompt and the decision alone


def test_fallback_draws_are_seeded():
    """Two agents with the same seed against a server that is always down play the same actions."""
    with ScriptedServer(faults={"drop": 1.0}, fault_repeats=10**6) as server:
        runs = [one_game("traitors_aboard", lambda s: s == 0 and LLMAgent(
            "local-test", "traitors_aboard", options(server, retries=0), seed=9), seed=2)[0] for _ in range(2)]
    assert runs[0]["rewards"] == runs[1]["rewards"]
    assert np.array_equal(runs[0]["result"]["roles"], runs[1]["result"]["roles"])


def test_a_server_that_nothing_listens_at_stops_the_agent_with_the_reason():
    """A refused connection at a URL that never answered is a wrong --llm-base-url: the agent raises
    LLMRequestError naming the URL (the kit stops its games, keeping finished ones) instead of playing every
    decision at random after its retries (found by a review: a 5-game run took minutes, every move random)."""
    import socket

    with socket.socket() as probe:  # a free loopback port with nothing listening on it
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    agent = LLMAgent("local-test", "avalon", LLMOptions(base_url=f"http://127.0.0.1:{port}/v1", timeout=2.0,
                                                       backoff=0.0, retries=1), seed=0)
    game = load_game("avalon")
    env = game.raw_env(num_players=5)
    env.reset(seed=0)
    observed = env.observe(env.agent_selection)
    with pytest.raises(LLMRequestError, match=f"cannot reach the server at http://127.0.0.1:{port}/v1"):
        agent.act(observed["observation"], observed["action_mask"])
    assert agent.stats["api_connection"] == 2 and agent.stats["fallbacks"] == 0
