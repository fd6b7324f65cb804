"""A local OpenAI-compatible stand-in server for the language-model agents' tests (no model is downloaded).

:class:`ScriptedServer` serves ``POST /v1/chat/completions`` on 127.0.0.1 (a free port, in a thread of this
process) from a scripted policy: it reads the numbered legal actions of the conversation's last ``Legal
actions:`` list (lines ``  N. text``) and picks one uniformly, seeded by the request's content (so the answer to
a conversation does not depend on the order requests arrive in: games played in threads get the answers they get
when played one by one). It answers as a tool call of ``act`` (``{"choice": text}``), as the number, or as the
action's text (``style``). It counts tokens as whitespace-separated words.

The answer depends on the seed and the request's content only. Faults are injected by a seeded draw from the
request's content and how often that content was seen before (the same content sent by two games makes the
faults depend on their order; without faults the server is order-free):
``faults`` maps a kind to its probability per request; a request whose content was seen ``fault_repeats`` times
or more is answered normally (so with the default 1, a retried request succeeds). Kinds:

- ``malformed_json``: HTTP 200 with a body that is not JSON;
- ``bad_arguments``: a tool call whose arguments are not JSON;
- ``illegal``: a choice that is not one of the legal actions (a number past the list, or an unknown text);
- ``timeout``: the answer comes ``timeout_sleep`` seconds late (past the client's timeout);
- ``429`` (with ``Retry-After: 0``), ``500``;
- ``drop``: the connection is closed without an answer.

:attr:`ScriptedServer.injected` counts the faults injected per kind; :attr:`requests` the requests served;
:attr:`headers` keeps the last request's headers (lower-case names) (the tests check the key travels only there).
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

FAULT_KINDS = ("malformed_json", "bad_arguments", "illegal", "timeout", "429", "500", "drop")
_OPTION = re.compile(r"^\s+(\d+)\.\s+(.+?)\s*$")


def legal_options(messages: list[dict]) -> list[tuple[int, str]]:
    """The numbered options of the last ``Legal actions:`` list in ``messages`` (newest message first)."""
    for message in reversed(messages):
        content = message.get("content") or ""
        if not isinstance(content, str) or "Legal actions:" not in content:
            continue
        lines = content.rpartition("Legal actions:")[2].splitlines()[1:]
        options = []
        for line in lines:
            match = _OPTION.match(line)
            if not match:
                if options:
                    break
                continue
            options.append((int(match.group(1)), match.group(2)))
        if options:
            return options
    return []


class ScriptedServer:
    """The stand-in server (module doc); a context manager that starts and stops it.

    Args:
        seed: the policy's and the fault draws' seed.
        style: ``"tool"``, ``"number"``, ``"text"`` or ``"mixed"`` (one of the three per answer, seeded).
        faults: fault kind → probability per request (kinds: :data:`FAULT_KINDS`).
        fault_repeats: a content seen this many times before is answered without a fault.
        timeout_sleep: how late a ``timeout`` fault answers, in seconds.
        latency: seconds every answer waits (a model's think time, for measuring ``--llm-concurrency``).
    """

    def __init__(self, seed: int = 0, style: str = "mixed", faults: dict[str, float] | None = None,
                 fault_repeats: int = 1, timeout_sleep: float = 2.0, latency: float = 0.0) -> None:
        unknown = set(faults or {}) - set(FAULT_KINDS)
        if unknown or style not in ("tool", "number", "text", "mixed"):
            raise ValueError(f"faults {sorted(unknown)} / style {style!r}: expected kinds of {FAULT_KINDS}")
        self.seed = seed
        self.style = style
        self.faults = dict(faults or {})
        self.fault_repeats = fault_repeats
        self.timeout_sleep = timeout_sleep
        self.latency = latency
        self.injected: Counter = Counter()
        self.requests = 0
        self.headers: dict = {}
        self.bodies: list[str] = []
        self._seen: Counter = Counter()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---------------------------------------------------------- life
    @property
    def url(self) -> str:
        """The OpenAI-compatible root, ``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self._server.server_port}/v1"

    def start(self) -> ScriptedServer:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # one answer is two writes: no 40 ms delayed-ACK stall

            def log_message(self, *args) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                owner._handle(self)

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request, client_address) -> None:  # a client gone after a timeout: expected
                pass

        self._server = Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, name="scripted-llm-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(timeout=5)
            self._server = None

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # ---------------------------------------------------------- answers
    def _draw(self, body: bytes) -> tuple[np.random.Generator, str | None]:
        digest = hashlib.sha256(body).digest()
        with self._lock:
            self.requests += 1
            seen = self._seen[digest]
            self._seen[digest] += 1
        content = int.from_bytes(digest[:8], "little")
        rng = np.random.default_rng([self.seed, content])  # the answer: the content's alone (order-free)
        fault = None
        if seen < self.fault_repeats and self.faults:
            u = np.random.default_rng([self.seed, content, seen, 1]).random()
            for kind in FAULT_KINDS:
                p = self.faults.get(kind, 0.0)
                if u < p:
                    fault = kind
                    break
                u -= p
        return rng, fault

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        body = handler.rfile.read(int(handler.headers.get("Content-Length", 0)))
        with self._lock:
            self.headers = {key.lower(): value for key, value in handler.headers.items()}
            self.bodies.append(body.decode("utf-8", "replace"))
        if handler.path.rstrip("/") != "/v1/chat/completions":
            self._send(handler, 404, {"error": {"message": f"no route {handler.path}", "type": "not_found"}})
            return
        rng, fault = self._draw(body)
        if fault:
            with self._lock:
                self.injected[fault] += 1
        if fault == "drop":
            handler.close_connection = True
            handler.connection.shutdown(socket.SHUT_RDWR)
            return
        if fault == "timeout":
            time.sleep(self.timeout_sleep)
        elif self.latency:
            time.sleep(self.latency)
        if fault in ("429", "500"):
            message = "rate limited" if fault == "429" else "internal error"
            self._send(handler, int(fault), {"error": {"message": message, "type": "server_error"}},
                       {"Retry-After": "0"} if fault == "429" else None)
            return
        if fault == "malformed_json":
            self._send_raw(handler, 200, b'{"id": "chatcmpl-x", "choices": [{"index": 0, "message": {')
            return
        request = json.loads(body)
        messages = request.get("messages", [])
        options = legal_options(messages)
        style = self.style if self.style != "mixed" else ("tool", "number", "text")[int(rng.integers(3))]
        if not request.get("tools") and style == "tool":
            style = "number"
        if options:
            number, text = options[int(rng.integers(len(options)))]
        else:
            number, text = 1, "no legal actions found"
        if fault == "illegal":
            number, text = len(options) + 1 + int(rng.integers(3)), "open the hatch"
        message: dict = {"role": "assistant", "content": None}
        if style == "tool":
            arguments = json.dumps({"choice": text if fault != "illegal" or rng.random() < 0.5 else str(number)})
            if fault == "bad_arguments":
                arguments = '{"choice": "' + text[:5]
            message["tool_calls"] = [{"id": f"call_{self.requests}", "type": "function",
                                      "function": {"name": "act", "arguments": arguments}}]
            completion = arguments
        else:
            content = str(number) if style == "number" else text
            if fault == "bad_arguments":  # a text answer cannot carry bad arguments: an empty reply instead
                content = ""
            message["content"] = completion = content
        prompt_words = sum(len(str(m.get("content") or "").split()) for m in messages)
        self._send(handler, 200, {
            "id": f"chatcmpl-{self.requests}", "object": "chat.completion", "created": 0,
            "model": request.get("model", "local-test"),
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "tool_calls" if style == "tool" else "stop"}],
            "usage": {"prompt_tokens": prompt_words, "completion_tokens": len(completion.split()) or 1,
                      "total_tokens": prompt_words + (len(completion.split()) or 1)},
        })

    @staticmethod
    def _send(handler, status: int, payload: dict, headers: dict | None = None) -> None:
        ScriptedServer._send_raw(handler, status, json.dumps(payload).encode(), headers)

    @staticmethod
    def _send_raw(handler, status: int, data: bytes, headers: dict | None = None) -> None:
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                handler.send_header(key, value)
            handler.end_headers()
            handler.wfile.write(data)
        except OSError:  # the client gave up (a timeout fault)
            pass
