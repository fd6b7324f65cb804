"""The viewer's server (Starlette, uvicorn; the ``web`` extra): the page, and each step built for the viewpoint asked.

Routes: ``/`` the page, ``/static/…`` its files, ``/api/records`` (the records served: one, or a folder's),
``/api/meta?record=R`` (a record as every viewpoint may know it) and ``/api/step?record=R&view=seat2&step=N``
(:meth:`~traitors_env.web.payload.ReplayData.step_with_history`); ``record`` defaults to 0.
A bad view or step is answered 400 with the error in words. Nothing else in the package imports this module at
import time: only ``traitors-view`` does, when it serves.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import threading

import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from .page import ASSETS, asset_text, page_html
from .payload import RecordShelf, ReplayData

__all__ = ["HEADERS", "AppServer", "ViewerServer", "allowed_hosts", "make_app", "static_route"]

_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
# The page and its data are for this viewer only: no caching of a step, no framing by another site, nothing run or
# fetched but the page's own files (its pictures are SVG elements that the script makes).
_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        "frame-ancestors 'none'")
HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY",
            "Content-Security-Policy": _CSP}


def allowed_hosts(host: str) -> list[str]:
    """The ``Host`` headers the server answers, bound to ``host``: that address, and the loopback names where it is a
    loopback address, so that a page of another site whose name is made to resolve here (DNS rebinding) is refused.
    Bound to every interface (``0.0.0.0``, ``::``), any name may reach it: the host check cannot help there."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if address is not None and address.is_unspecified:
        return ["*"]
    hosts = [f"[{host}]" if ":" in host else host]
    if host.lower() == "localhost" or (address is not None and address.is_loopback):
        hosts += ["localhost", "127.0.0.1", "[::1]"]
    return hosts


def static_route(assets: tuple[str, ...]) -> Route:
    """``/static/{name}``: one of ``assets`` (the page's files), 404 for any other name."""

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in assets:
            return JSONResponse({"error": f"no file {name!r}"}, status_code=404, headers=HEADERS)
        return Response(asset_text(name), media_type=_TYPES[name[name.rindex("."):]], headers=HEADERS)

    return Route("/static/{name}", asset)


def make_app(data: ReplayData | RecordShelf, title: str, host: str = "127.0.0.1") -> Starlette:
    """The Starlette app serving ``data`` (one record's replay, or a shelf of records), bound to ``host`` (other
    ``Host`` headers are answered 400)."""
    shelf = data if isinstance(data, RecordShelf) else RecordShelf.of(data, title)
    index = page_html(title, "/static/")

    def replay_of(request: Request) -> ReplayData:
        return shelf.data(request.query_params.get("record", "0"))

    async def page(request: Request) -> Response:
        return HTMLResponse(index, headers=HEADERS)

    async def records(request: Request) -> Response:
        return JSONResponse(shelf.listing(), headers=HEADERS)

    async def meta(request: Request) -> Response:
        try:
            replay = await asyncio.to_thread(replay_of, request)  # a folder's record is replayed when first asked
        except ValueError as error:  # ViewError, or the game's RecordError: a record that does not replay
            return JSONResponse({"error": str(error)}, status_code=400, headers=HEADERS)
        return JSONResponse(replay.meta(), headers=HEADERS)

    async def step(request: Request) -> Response:
        view = request.query_params.get("view", "spectator")
        number = request.query_params.get("step", "0")
        try:
            replay = await asyncio.to_thread(replay_of, request)
            # Rendering a step takes a few milliseconds of CPU; off the event loop so the server stays responsive.
            payload = await asyncio.to_thread(replay.step_with_history, view, number)
        except ValueError as error:
            return JSONResponse({"error": str(error)}, status_code=400, headers=HEADERS)
        return JSONResponse(payload, headers=HEADERS)

    return Starlette(routes=[
        Route("/", page),
        static_route(ASSETS),
        Route("/api/records", records),
        Route("/api/meta", meta),
        Route("/api/step", step),
    ], middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts(host))])


class AppServer:
    """uvicorn serving ``app`` on ``host:port`` (``0``: a free port); the socket is bound at construction, so
    :attr:`url` is known before serving.

    Raises:
        OSError: where ``host:port`` cannot be bound (in use, not an address of this machine).
    """

    name = "server"

    def __init__(self, app: Starlette, host: str = "127.0.0.1", port: int = 0) -> None:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM)
        try:
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.socket.bind((host, port))
        except OSError:
            self.socket.close()
            raise
        self.host, self.port = host, self.socket.getsockname()[1]
        # A page's open long poll does not hold the shutdown up for more than a second.
        config = uvicorn.Config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1)
        self.server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None
    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def serve(self) -> None:
        """Serve until interrupted (Ctrl-C) or :meth:`stop`."""
        try:
            self.server.run(sockets=[self.socket])
        finally:
            self.socket.close()

    def start(self, timeout: float = 30.0):
        """Serve in a thread of this process; returns once the server answers (for tests and tools).

        Raises:
            RuntimeError: where it has not started within ``timeout`` seconds.
        """
        self._thread = threading.Thread(target=self.serve, name=self.name, daemon=True)
        self._thread.start()
        ready = threading.Event()
        for _ in range(int(timeout * 20)):
            if self.server.started or not self._thread.is_alive():
                ready.set()
                break
            ready.wait(0.05)
        if not self.server.started:
            self.stop()
            raise RuntimeError(f"the {self.name} at {self.url} did not start within {timeout:g} s")
        return self

    def stop(self, timeout: float = 30.0) -> None:
        """Stop serving and wait for the thread to end."""
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)
        self.socket.close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


class ViewerServer(AppServer):
    """``traitors-view``'s server: :func:`make_app` for ``data`` on ``host:port`` (see :class:`AppServer`)."""

    name = "viewer's server"

    def __init__(self, data: ReplayData | RecordShelf, title: str, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__(make_app(data, title, host), host, port)
