"""``traitors-play --web``'s server (Starlette, uvicorn; the ``web`` extra): each human seat's page and its answers.

Routes: ``/`` the page (:func:`~traitors_env.web.page.play_html`), ``/static/…`` its files, ``GET /api/state?since=V``
(the seat's data once its version is past ``V``: a long poll), ``POST /api/act`` (``{"decision": id, "action": a}``)
and ``POST /api/leave`` (abandon the game). Every ``/api`` request carries its seat's token in the ``X-Seat-Token``
header: the server answers a seat's data to that seat's token only (403 otherwise), so a page is never sent another
seat's hidden state. A cross-site page can send neither that header nor a JSON body without the browser asking
first, and the host check refuses any other site's name (:func:`~traitors_env.web.server.allowed_hosts`).
"""

from __future__ import annotations

import asyncio
import json

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from .page import PLAY_ASSETS, play_html
from .server import HEADERS, AppServer, allowed_hosts, static_route
from .table import PlayError, WebTable

__all__ = ["PlayServer", "make_play_app"]

#: The longest a state request waits for a change (seconds); the page asks again at once.
LONG_POLL = 20.0
#: The largest answer body read (bytes); an answer is a few dozen.
MAX_BODY = 4096


async def _body(request: Request, limit: int) -> bytes | None:
    """The request's body, or ``None`` once it passes ``limit`` bytes (read no further: a seat's holder cannot make
    the server hold a huge body)."""
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > limit:
        return None
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=HEADERS)


def make_play_app(table: WebTable, title: str, host: str = "127.0.0.1", long_poll: float = LONG_POLL) -> Starlette:
    """The Starlette app of ``table``'s pages, bound to ``host`` (other ``Host`` headers are answered 400)."""
    index = play_html(title)

    async def page(request: Request) -> Response:
        return HTMLResponse(index, headers=HEADERS)

    def seated(handler):
        """``handler(request, seat)`` for the seat whose token the request carries; 403 for any other token, and
        :class:`PlayError`'s status and words for a refused answer."""

        async def endpoint(request: Request) -> Response:
            try:
                return await handler(request, table.seat_of(request.headers.get("x-seat-token")))
            except PlayError as error:
                return _error(error.status, str(error))

        return endpoint

    @seated
    async def state(request: Request, seat: int) -> Response:
        since = request.query_params.get("since", "0")
        if not (since.isascii() and since.isdigit() and len(since) < 10):
            return _error(400, f"since {since[:20]!r} is not a version; expected a whole number such as 0")
        # Waits on the event loop, not in a thread: an open page costs no thread of the server's pool.
        deadline = asyncio.get_running_loop().time() + long_poll
        while table.published <= int(since) and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.05)
        return JSONResponse(table.payload(seat), headers=HEADERS)

    @seated
    async def act(request: Request, seat: int) -> Response:
        if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
            return _error(415, "expected a JSON body (Content-Type: application/json)")
        body = await _body(request, MAX_BODY)
        if body is None:
            return _error(413, f"a body over {MAX_BODY} bytes; an answer is {{\"decision\": id, \"action\": a}}")
        try:
            answer = json.loads(body)
            decision, action = answer["decision"], answer["action"]
        except (ValueError, KeyError, TypeError, RecursionError):  # RecursionError: JSON nested too deep
            return _error(400, "expected a JSON object {\"decision\": id, \"action\": a}")
        table.answer(seat, decision, action)
        return JSONResponse({"ok": True}, headers=HEADERS)

    @seated
    async def leave(request: Request, seat: int) -> Response:
        table.abandon(f"player_{seat} left the table")
        return JSONResponse({"ok": True}, headers=HEADERS)

    return Starlette(routes=[
        Route("/", page),
        static_route(PLAY_ASSETS),
        Route("/api/state", state),
        Route("/api/act", act, methods=["POST"]),
        Route("/api/leave", leave, methods=["POST"]),
    ], middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts(host))])


class PlayServer(AppServer):
    """``traitors-play --web``'s server: :func:`make_play_app` for ``table`` on ``host:port`` (see
    :class:`~traitors_env.web.server.AppServer`); :meth:`seat_url` is the address a seat's person opens."""

    name = "table's server"

    def __init__(self, table: WebTable, title: str, host: str = "127.0.0.1", port: int = 0,
                 long_poll: float = LONG_POLL) -> None:
        super().__init__(make_play_app(table, title, host, long_poll), host, port)
        self.table = table

    def seat_url(self, seat: int) -> str:
        """The address of ``seat``'s page, its token in the fragment (which the browser does not send anywhere)."""
        return f"{self.url}#seat={seat}&token={self.table.tokens[seat]}"
