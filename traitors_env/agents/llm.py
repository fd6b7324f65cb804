"""Language-model agents over any OpenAI-compatible chat server (agent spec ``openai:MODEL``).

A :class:`LLMAgent` is a :class:`~traitors_env.core.text.TextAgent` whose text policy is a chat model behind the
official ``openai`` client (``pip install -e '.[llm]'``): at each decision it sends the game's conversation
(the system prompt, then per decision the seat's prompt with the numbered legal actions) to
``/v1/chat/completions`` with one tool, ``act``, whose argument enumerates the legal choices
(``TextDecision.tool``), and accepts either a tool call or a text reply (the number or the action's text,
:meth:`TextView.parse <traitors_env.core.text.TextView.parse>`). An invalid reply is answered with the legal list
and asked again up to ``reply_retries`` times, then a uniformly random legal action is played (the fallback,
counted) — :class:`TextAgent` does both.

Transport: any OpenAI-compatible server (vLLM, llama.cpp's ``llama-server``, Ollama, a hosted API) by
``base_url``. The client's own retries are off (``max_retries=0``); this module retries a request itself, at most
``retries`` times, on a 429, a 408/409 or any 5xx status, a timeout, a dropped connection and a malformed response
body, waiting ``backoff × 2**attempt`` seconds (capped at :data:`MAX_BACKOFF`; a ``Retry-After`` header of a
429/503 is honoured up to the cap) — so that every fault is counted by kind in :attr:`LLMAgent.stats`. When the
retries are spent the decision falls back to a random legal action (``api_failures`` and ``fallbacks`` count it):
a game never stalls on the network. Other statuses (400, 401, 403, 404: a wrong model name, key or URL) raise
:class:`LLMRequestError`, which stops the agent's games (the benchmark kit reports the failure, keeping every
finished game).

The API key is read from an environment variable (``OPENAI_API_KEY``, or the one ``api_key_env`` names) when the
client is made; it is never stored in the options, written to a report or record, or put in an error message.
A server on loopback needs no key (a placeholder is sent).

Per game (an agent is built per game by the kit) :attr:`LLMAgent.stats` counts ``decisions``,
``invalid_replies``, ``retries``, ``fallbacks`` (the text layer's), ``requests``, ``prompt_tokens``,
``completion_tokens``, ``seconds`` (wall time inside :meth:`act`), ``api_retries``, ``api_failures``, one
``api_<kind>`` per transport fault (``api_rate_limited``, ``api_server_error``, ``api_timeout``,
``api_connection``, ``api_bad_response``) and, with prices given, ``cost`` (in the prices' currency).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import threading
import time
from dataclasses import dataclass, field, fields
from urllib.parse import urlsplit, urlunsplit

import numpy as np

from ..core.game import Game
from ..core.registry import load_game
from ..core.text import TextAgent, TextDecision
from .policy import AgentSpecError

__all__ = ["LLMAgent", "LLMOptions", "LLMRequestError", "LLMSpec", "LLMUnavailable", "OpenAIChat", "PREFIX",
           "add_llm_arguments", "is_llm_spec", "llm_options_from_args", "redact_url"]

#: The spec prefix of a chat model: ``openai:MODEL``.
PREFIX = "openai:"
#: The longest wait between two attempts of one request, in seconds.
MAX_BACKOFF = 30.0
#: The transport faults counted per kind (``stats["api_<kind>"]``).
FAULT_KINDS = ("rate_limited", "server_error", "timeout", "connection", "bad_response")


#: Base URLs that answered at least once in this process (a server that never did is not retried decision after
#: decision: :meth:`OpenAIChat._create`).
_ANSWERED: set[str | None] = set()


def _refused(error: BaseException) -> bool:
    """Whether a connection error was a refused connect (nothing listening), read from its chain of causes
    (the HTTP library under the client varies by version)."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, ConnectionRefusedError) or type(error).__name__ == "ConnectError":
            return True
        error = error.__cause__ or error.__context__
    return False


class LLMRequestError(RuntimeError):
    """A request the server refused for good (400, 401, 403, 404, 422: a wrong model name, key or URL); names the
    status and the server's message, never the key."""


class LLMUnavailable(RuntimeError):
    """A request that still failed after ``retries`` retries (internal: the decision falls back).

    Attributes:
        decision: the :class:`TextDecision` left unanswered.
    """

    def __init__(self, message: str, decision: TextDecision) -> None:
        super().__init__(message)
        self.decision = decision


@dataclass(frozen=True)
class LLMOptions:
    """How an ``openai:MODEL`` agent talks to its server (no secret: the key is read from ``api_key_env``).

    Attributes:
        base_url: the server's OpenAI-compatible root, e.g. ``http://127.0.0.1:8080/v1`` (``None``: the client's
            default, ``OPENAI_BASE_URL`` or OpenAI's own API).
        api_key_env: the environment variable holding the key (default ``OPENAI_API_KEY``).
        temperature: sampling temperature (``None``: the server's default).
        max_tokens: the most tokens of one reply (``None``: the server's default).
        timeout: seconds one request may take before it is abandoned (and retried).
        retries: retries of one request after a 429, 408, 409 or 5xx, a timeout, a dropped connection or a
            malformed body (0: none).
        backoff: the first wait between attempts in seconds, doubled each retry (capped at 30 s).
        reply_retries: invalid replies answered with the legal list before the fallback (the text layer's
            ``retries``; default 2).
        tools: send the ``act`` tool (``False`` for a server without function calling: text replies only).
        memory: keep the game's conversation (``False``: each decision is sent alone, the system prompt and that
            decision's prompt, for models with a short context).
        prompt_cost, completion_cost: price per 1,000 prompt / completion tokens (``None``: no cost counted).
    """

    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float | None = None
    max_tokens: int | None = 256
    timeout: float = 60.0
    retries: int = 3
    backoff: float = 1.0
    reply_retries: int = 2
    tools: bool = True
    memory: bool = True
    prompt_cost: float | None = None
    completion_cost: float | None = None

    def __post_init__(self) -> None:
        checks = [
            (self.temperature is None or 0 <= self.temperature <= 2, "temperature", "a number in 0–2"),
            (self.max_tokens is None or self.max_tokens >= 1, "max_tokens", "an integer >= 1"),
            (self.timeout > 0, "timeout", "seconds > 0"),
            (self.retries >= 0, "retries", "an integer >= 0"),
            (self.backoff >= 0, "backoff", "seconds >= 0"),
            (self.reply_retries >= 0, "reply_retries", "an integer >= 0"),
            (self.prompt_cost is None or self.prompt_cost >= 0, "prompt_cost", "a price >= 0"),
            (self.completion_cost is None or self.completion_cost >= 0, "completion_cost", "a price >= 0"),
            (bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", self.api_key_env or "")), "api_key_env",
             "an environment variable's name"),
        ]
        for ok, name, expected in checks:
            if not ok:
                raise ValueError(f"LLM option {name}={getattr(self, name)!r}: expected {expected}")

    def public(self) -> dict:
        """The options as a report writes them: the URL without user or password, the key variable's name only."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["base_url"] = redact_url(self.base_url)
        return out


#: A query parameter or ``name=value`` pair that carries a secret (``?api-key=…`` of Azure-style gateways,
#: ``?key=…``, ``api_key=…``, ``token=…``): its value.
_SECRET_PARAMETER = re.compile(
    r"(?i)\b((?:api[-_]?key|key|access[-_]?token|token|secret|password|passwd|auth|sig)=)[^&#\s'\"]+")
#: A key as a server echoes it, masked whatever its prefix: ``sk-abc****wxyz``, ``abc123********wxyz``.
_MASKED_KEY = re.compile(r"[A-Za-z0-9_\-]*\*{3,}[A-Za-z0-9_\-]*")
#: Whatever follows "API key …:" (``Incorrect API key provided: abc123…``) or "Bearer" in an echoed message.
_NAMED_KEY = re.compile(r"(?i)(\bapi[-_ ]?key\b[A-Za-z ]{0,40}:\s+|\bbearer\s+)[^\s,;]*[^\s,;.]")


def redact_url(url: str | None) -> str | None:
    """``url`` without a user name, password or secret query value (``http://u:p@host/v1`` → ``http://***@host/v1``,
    ``…/v1?api-key=abc`` → ``…/v1?api-key=***``)."""
    if not url:
        return url
    parts = urlsplit(url)
    if "@" in parts.netloc:
        parts = parts._replace(netloc="***@" + parts.netloc.rpartition("@")[2])
    parts = parts._replace(query=_SECRET_PARAMETER.sub(r"\1***", parts.query))
    return urlunsplit(parts)


def is_llm_spec(spec: object) -> bool:
    """A spec string naming a chat model (``openai:MODEL``)."""
    return isinstance(spec, str) and spec.startswith(PREFIX)


def _model_of(spec: str) -> str:
    model = spec[len(PREFIX):].strip()
    if not model:
        raise AgentSpecError(f"agent {spec!r}: expected openai:MODEL, the model name the server knows (e.g. "
                             "openai:gpt-4o-mini, openai:Qwen/Qwen2.5-7B-Instruct)")
    return model


# ------------------------------------------------------------------ the client
_CLIENTS: dict = {}
_CLIENTS_LOCK = threading.Lock()


def _client(options: LLMOptions):
    """One ``openai.OpenAI`` client per (URL, key, timeout) and process (it is thread-safe)."""
    try:
        import openai
    except ImportError as error:
        raise AgentSpecError(f"openai:MODEL agents need the llm extra (pip install -e '.[llm]'): {error}") from None
    api_key = os.environ.get(options.api_key_env)
    key = (options.base_url, options.api_key_env, api_key, options.timeout)  # in memory only, as the client holds it
    with _CLIENTS_LOCK:
        client = _CLIENTS.get(key)
        if client is None:
            if not api_key:
                if options.base_url is None and not os.environ.get("OPENAI_BASE_URL"):
                    raise AgentSpecError(
                        f"openai:MODEL agents of OpenAI's API need a key in ${options.api_key_env} (or name another "
                        "variable with --llm-api-key-env); a local server needs --llm-base-url"
                    )
                api_key = "no-key"  # a local server (vLLM, llama.cpp, Ollama) ignores it
            client = _CLIENTS[key] = openai.OpenAI(api_key=api_key, base_url=options.base_url,
                                                   timeout=options.timeout, max_retries=0)
        return client


def _redact(text: str, options: LLMOptions) -> str:
    """``text`` (a server's message) without the API key: whole, masked in any form a server echoes (``sk-…``, or
    ``abc123****wxyz`` after "Incorrect API key provided:"), and without secret values in URLs' query strings."""
    secret = os.environ.get(options.api_key_env)
    if secret:
        text = text.replace(secret, "***")
    text = re.sub(r"sk-[A-Za-z0-9_*\-]{4,}", "sk-***", text)
    text = _SECRET_PARAMETER.sub(r"\1***", text)
    text = _NAMED_KEY.sub(r"\1***", text)
    return _MASKED_KEY.sub("***", text)


def _add(stats: dict, key: str, amount) -> None:
    stats[key] = stats.get(key, 0) + amount


def _retry_after(error) -> float | None:
    response = getattr(error, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


class OpenAIChat:
    """The text policy of an :class:`LLMAgent`: ``reply(messages, decision) -> str | dict`` over one chat model.

    Returns the tool call's arguments (a dict; its raw string when it is not JSON, which the text layer then
    refuses) or the reply's text. Counts into :attr:`stats` (a dict) requests, tokens and transport faults.

    Raises:
        LLMUnavailable: when a request failed ``retries + 1`` times (the agent falls back).
        LLMRequestError: for a status that retrying cannot mend (400, 401, 403, 404, 422).
    """

    def __init__(self, model: str, options: LLMOptions, client=None) -> None:
        self.model = model
        self.options = options
        self.client = client if client is not None else _client(options)
        self.stats: dict = {}

    def __call__(self, messages: list[dict], decision: TextDecision) -> str | dict:
        request: dict = {"model": self.model, "messages": messages}
        if self.options.temperature is not None:
            request["temperature"] = self.options.temperature
        if self.options.max_tokens is not None:
            request["max_tokens"] = self.options.max_tokens
        if self.options.tools:
            request["tools"] = [decision.tool]
        response = self._create(request, decision)
        usage = getattr(response, "usage", None)
        if usage is not None:
            _add(self.stats, "prompt_tokens", int(usage.prompt_tokens or 0))
            _add(self.stats, "completion_tokens", int(usage.completion_tokens or 0))
        choices = getattr(response, "choices", None) or []
        message = choices[0].message if choices else None
        if message is None:
            return ""
        for call in message.tool_calls or ():
            function = getattr(call, "function", None)
            if function is None:
                continue
            try:
                arguments = json.loads(function.arguments or "")
            except ValueError:
                return function.arguments or ""
            return arguments if isinstance(arguments, dict) else json.dumps(arguments)
        return message.content or ""

    def _create(self, request: dict, decision: TextDecision):
        import openai

        options = self.options
        for attempt in range(options.retries + 1):
            _add(self.stats, "requests", 1)
            wait, refused = None, False
            try:
                response = self.client.chat.completions.create(**request)
                _ANSWERED.add(options.base_url)
                return response
            except openai.RateLimitError as error:
                kind, wait = "rate_limited", _retry_after(error)
            except openai.APITimeoutError:  # before APIConnectionError, its base class
                kind = "timeout"
            except openai.APIConnectionError as error:
                kind = "connection"
                refused = _refused(error)  # nothing listens there (not a dropped connection)
            except openai.APIStatusError as error:
                if not (error.status_code >= 500 or error.status_code in (408, 409)):
                    raise LLMRequestError(
                        f"the server at {redact_url(options.base_url) or 'the default OpenAI URL'} refused the request "
                        f"for model {self.model!r}: {error.status_code} {_redact(str(error.message), options)}"
                    ) from None
                kind, wait = "server_error", _retry_after(error)
            except (ValueError, openai.APIResponseValidationError):  # a body that is not the JSON expected
                kind = "bad_response"
            _add(self.stats, f"api_{kind}", 1)
            if attempt < options.retries:
                _add(self.stats, "api_retries", 1)
                delay = options.backoff * 2**attempt if wait is None else wait
                time.sleep(min(MAX_BACKOFF, delay))
        _add(self.stats, "api_failures", 1)
        if refused and options.base_url not in _ANSWERED:
            # Nothing listens at a URL that never answered: a wrong URL or a server not started. Stop the agent's
            # games with the reason (the finished ones are kept) rather than play every decision at random.
            raise LLMRequestError(
                f"cannot reach the server at {redact_url(options.base_url) or 'the default OpenAI URL'}: connection "
                f"refused ({options.retries + 1} attempts) and no answer from it yet in this run; is it running, "
                "and is --llm-base-url right?")
        raise LLMUnavailable(f"{options.retries + 1} attempts failed, the last: {kind.replace('_', ' ')}", decision)


class LLMAgent(TextAgent):
    """A chat model at the table: a :class:`TextAgent` over :class:`OpenAIChat` (see the module doc).

    Args:
        model: the model name the server knows.
        game: the game (a registry name or :class:`Game`).
        options: :class:`LLMOptions`.
        seed: the agent's own generator (the fallback's draws).
        num_players: the table size, when known (the text view's rules summary).
        client: an ``openai.OpenAI``-like client (default: one per options and process).

    ``stats``: one dict, the text layer's counts plus the chat's (module doc); ``seconds`` is the wall time in
    :meth:`act`. One agent plays one seat (it keeps that seat's conversation); the benchmark kit gives each seat
    its own.
    """

    def __init__(self, model: str, game: str | Game, options: LLMOptions | None = None, *,
                 seed: int | np.random.Generator | None = None, num_players: int | None = None, client=None) -> None:
        self.options = options or LLMOptions()
        self.model = model
        self.chat = OpenAIChat(model, self.options, client)
        super().__init__(game, self.chat, num_players=num_players, retries=self.options.reply_retries, seed=seed,
                         memory=self.options.memory)
        for key in ("requests", "prompt_tokens", "completion_tokens", "api_retries", "api_failures",
                    *(f"api_{kind}" for kind in FAULT_KINDS)):
            self.stats.setdefault(key, 0)
        self.stats["seconds"] = 0.0
        if self.options.prompt_cost is not None or self.options.completion_cost is not None:
            self.stats["cost"] = 0.0
        self.chat.stats = self.stats  # one dict: the text layer's counts and the chat's

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A legal action index (the model's, or the fallback's when the server stayed unreachable).

        Raises:
            LLMRequestError: the server refused the request for good (a wrong model, key or URL).
            ValueError: for an all-zero ``action_mask``.
        """
        started = time.perf_counter()
        try:
            return super().act(observation, action_mask)
        except LLMUnavailable as error:  # the text layer's fallback: a uniformly random legal action, counted
            options = error.decision.options
            option = options[int(self._rng.integers(len(options)))]
            _add(self.stats, "fallbacks", 1)
            self.messages.append({"role": "user", "content": f"The server could not answer ({error}): a random legal "
                                  f"action was played for you: {option.number}. {option.text}"})
            return option.action
        finally:
            stats = self.stats
            stats["seconds"] += time.perf_counter() - started
            if "cost" in stats:
                stats["cost"] = ((self.options.prompt_cost or 0) * stats["prompt_tokens"]
                                 + (self.options.completion_cost or 0) * stats["completion_tokens"]) / 1000


# ------------------------------------------------------------------ specs and options
@dataclass(frozen=True)
class LLMSpec:
    """A picklable agent spec of the benchmark kit for ``openai:MODEL`` with its options: ``build(seed)`` makes the
    agent of one game. ``threaded``: its games wait on the network, so the kit may play them in threads."""

    spec: str
    game: str
    options: LLMOptions = field(default_factory=LLMOptions)
    threaded = True

    def build(self, seed) -> LLMAgent:
        return LLMAgent(_model_of(self.spec), self.game, self.options, seed=seed)

    def __str__(self) -> str:
        return self.spec


def llm_maker(spec: str, game: Game, options: LLMOptions | None = None):
    """``(label, make)`` for ``openai:MODEL`` (:func:`traitors_env.agents.spec.agent_maker`); nothing is sent to
    the server before a game.

    Raises:
        AgentSpecError: an empty model name, or no key for OpenAI's own API.
    """
    model = _model_of(spec)
    options = options or LLMOptions()
    _client(options)  # the extra is installed and a key is at hand, before any game
    game = load_game(game)
    return spec, lambda seed: LLMAgent(model, game, options, seed=seed)


def add_llm_arguments(parser: argparse.ArgumentParser, concurrency: bool = True) -> None:
    """The ``--llm-*`` options of ``traitors-eval`` and ``traitors-play`` (for ``openai:MODEL`` agents)."""
    group = parser.add_argument_group("language-model agents (openai:MODEL; pip install -e '.[llm]')")
    group.add_argument("--llm-base-url", default=None, metavar="URL",
                       help="the OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1 (default: $OPENAI_BASE_URL, "
                       "else OpenAI's API)")
    group.add_argument("--llm-api-key-env", default="OPENAI_API_KEY", metavar="NAME",
                       help="the environment variable holding the API key (default OPENAI_API_KEY; never logged)")
    group.add_argument("--llm-temperature", type=float, default=None, help="sampling temperature (default: the server's)")
    group.add_argument("--llm-max-tokens", type=int, default=256, help="the most tokens of one reply (default 256)")
    group.add_argument("--llm-timeout", type=float, default=60.0, help="seconds per request (default 60)")
    group.add_argument("--llm-retries", type=int, default=3,
                       help="retries of a request on 429/5xx/timeout/connection errors, with backoff (default 3)")
    group.add_argument("--llm-reply-retries", type=int, default=2,
                       help="invalid replies answered with the legal list before a random legal action (default 2)")
    group.add_argument("--llm-no-tools", action="store_true", help="send no tool (servers without function calling)")
    group.add_argument("--llm-no-memory", action="store_true",
                       help="send each decision alone instead of the game's conversation (short-context models)")
    group.add_argument("--llm-cost-per-1k", type=float, nargs=2, default=None, metavar=("PROMPT", "COMPLETION"),
                       help="price per 1,000 prompt and completion tokens, for the report's cost")
    if concurrency:
        group.add_argument("--llm-concurrency", type=int, default=1, metavar="N",
                           help="games with a language-model seat played at once, in threads (default 1; results "
                           "do not depend on it)")


def llm_options_from_args(args: argparse.Namespace) -> LLMOptions:
    """:class:`LLMOptions` from :func:`add_llm_arguments`'s options.

    Raises:
        ValueError: naming the bad option and what was expected.
    """
    prompt_cost, completion_cost = args.llm_cost_per_1k or (None, None)
    try:
        return LLMOptions(base_url=args.llm_base_url, api_key_env=args.llm_api_key_env,
                          temperature=args.llm_temperature, max_tokens=args.llm_max_tokens, timeout=args.llm_timeout,
                          retries=args.llm_retries, reply_retries=args.llm_reply_retries, tools=not args.llm_no_tools,
                          memory=not args.llm_no_memory, prompt_cost=prompt_cost, completion_cost=completion_cost)
    except ValueError as error:
        flag = {"prompt_cost": "cost-per-1k", "completion_cost": "cost-per-1k"}
        raise ValueError(re.sub(r"LLM option (\w+)", lambda m: "--llm-" + flag.get(m.group(1), m.group(1).replace("_", "-")),
                                str(error))) from None

