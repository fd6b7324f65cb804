"""No API key in an error or a report (issue 49): a key a server echoes masked but without OpenAI's ``sk-`` prefix
(``Incorrect API key provided: abc123********wxyz``), and secrets in query strings (``?api-key=…``, ``api_key=…``)
are redacted as the whole key always was."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from traitors_env.agents.llm import LLMOptions, _redact, redact_url

MASKED = "abc123********wxyz"


@pytest.mark.parametrize(("text", "secret"), [
    (f"Incorrect API key provided: {MASKED}. You can find your API key at https://platform.openai.com/api-keys.",
     MASKED),
    ("Incorrect API key provided: sk-proj-ab**********************yz.", "ab****"),
    ("Invalid API key: 9f8e7d6c5b4a", "9f8e7d6c5b4a"),
    ("POST https://gw.example.com/v1/chat/completions?api-version=2024-06-01&api-key=s3cr3tvalue failed", "s3cr3tvalue"),
    ("request to https://h.example/v1?key=AIzaSyA-s3cr3t#x refused", "AIzaSyA-s3cr3t"),
    ("client configured with api_key=s3cr3tvalue, rejected", "s3cr3tvalue"),
    ("header Authorization: Bearer tok_live_123456 rejected", "tok_live_123456"),
])
def test_server_messages_lose_every_form_of_a_key(text, secret):
    redacted = _redact(text, LLMOptions(api_key_env="TRAITORS_NO_SUCH_KEY_VARIABLE"))
    assert secret not in redacted and "***" in redacted


def test_ordinary_messages_and_urls_keep_their_words():
    text = "The model `gpt-4o` does not exist. You can find your API key at https://platform.openai.com/api-keys."
    assert _redact(text, LLMOptions(api_key_env="TRAITORS_NO_SUCH_KEY_VARIABLE")) == text
    assert redact_url("http://127.0.0.1:8000/v1?api-version=2024-06-01") == "http://127.0.0.1:8000/v1?api-version=2024-06-01"


def test_a_url_loses_its_user_password_and_secret_query_values():
    url = "https://user:pw@gw.example.com/v1?api-version=1&api-key=s3cr3t&monkey=5"
    assert redact_url(url) == "https://***@gw.example.com/v1?api-version=1&api-key=***&monkey=5"
    public = LLMOptions(base_url="https://gw.example.com/v1?api-key=s3cr3t").public()  # what a report writes
    assert "s3cr3t" not in json.dumps(public)


class _Refusing(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = json.dumps({"error": {"message": f"Incorrect API key provided: {MASKED}. You can find your API key "
                                                "at https://platform.openai.com/account/api-keys.",
                                     "type": "invalid_request_error", "code": "invalid_api_key"}}).encode()
        self.send_response(401)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):  # quiet
        pass


def test_a_refused_key_echoed_masked_by_the_server_is_not_in_the_error(monkeypatch):
    pytest.importorskip("openai")
    from traitors_env.agents.llm import LLMAgent, LLMRequestError
    from traitors_env.core.registry import load_game

    monkeypatch.setenv("TRAITORS_TEST_KEY", "abc123-the-whole-key-wxyz")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Refusing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        agent = LLMAgent("some-model", "traitors_aboard", LLMOptions(base_url=url, api_key_env="TRAITORS_TEST_KEY",
                                                                     backoff=0.0, timeout=5.0), seed=0)
        env = load_game("traitors_aboard").raw_env(num_players=5)
        env.reset(seed=0)
        observation = env.observe(env.agent_selection)
        with pytest.raises(LLMRequestError, match="401") as error:
            agent.act(observation["observation"], observation["action_mask"])
    finally:
        server.shutdown()
        server.server_close()
    assert MASKED not in str(error.value) and "wxyz" not in str(error.value)
