"""One request's answer to its client: sending it, how the request ended, its access-log line, and the proxy's own
errors in the OpenAI API's shape.

Every write to the client goes through an :class:`Exchange`, which turns the client's going away (its connection
closed, at any point) into :class:`ClientGone`: not a fault, one of the ways a request ends. However it ends (its
answer sent, the client gone, the upstream's answer broken off, a fault of the proxy, the handler cancelled), a
request gets one access-log line: method, path (without the query: it may hold a key), status (``-``: none was
sent), bytes sent (headers included), seconds, and how it ended when that was not its answer's end.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aiohttp import web

if TYPE_CHECKING:
    from .apis import RepairedAPI

logger = logging.getLogger("longcat_plugins.proxy")
access_logger = logging.getLogger("longcat_plugins.proxy.access")

#: how a request ended, when not by its answer's end
CLIENT_CLOSED = "client closed"
UPSTREAM_BROKE_OFF = "upstream broke off"
INTERNAL_ERROR = "internal error"
CANCELLED = "cancelled"

#: the OpenAI API's error types, by the status of an error the proxy answers itself
_KINDS = {500: "server_error", 502: "upstream_error"}


def error_body(message: str, kind: str, code: int | str | None) -> dict[str, Any]:
    """An error in the OpenAI API's shape."""
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def error_kind(status: int) -> str:
    return _KINDS.get(status, "invalid_request_error" if status < 500 else "server_error")


ErrorShape = Callable[[str, str, "int | str | None"], dict[str, Any]]


def error_response(status: int, message: str, shape: ErrorShape | None = None) -> web.Response:
    """An error the proxy answers itself: JSON, in the API's shape (by default the OpenAI API's), its status as the
    code."""
    return web.json_response((shape or error_body)(message, error_kind(status), status), status=status)


def log_access(method: str, path: str, status: int | str, size: int, seconds: float, ending: str = "") -> None:
    access_logger.info("%s %s %s %d %.3fs%s", method, path, status, size, seconds, f" {ending}" if ending else "")


class ClientGone(Exception):
    """The client closed its connection before the end of its answer."""


class Exchange:
    """One request and its answer: what was sent, and how the request ended."""

    def __init__(self, request: web.BaseRequest) -> None:
        self.request = request
        self.started = asyncio.get_running_loop().time()
        #: the answer, once started
        self.response: web.StreamResponse | None = None
        #: how the request ended, when not by its answer's end
        self.ending = ""
        #: nothing more can be sent: the answer's end was written, or the connection cut
        self.finished = False
        #: the API the request is to, when the proxy repairs that API (its errors are in that API's shape)
        self.api: RepairedAPI | None = None

    def client_lost(self) -> bool:
        """Whether the client's connection is gone (or going)."""
        transport = self.request.transport
        return transport is None or transport.is_closing()

    async def start(self, response: web.StreamResponse) -> None:
        """Send the status and headers."""
        self.response = response
        try:
            await response.prepare(self.request)
        except ConnectionError as e:
            raise ClientGone from e

    async def send(self, data: bytes) -> None:
        """Send part of the body of the answer started."""
        assert self.response is not None, "the answer has not started"
        if not data:
            return
        try:
            await self.response.write(data)
        except ConnectionError as e:
            raise ClientGone from e

    async def finish(self, response: web.StreamResponse) -> None:
        """Send ``response`` to its end (its start first, when it has not started)."""
        if self.finished:
            return
        if self.response is None:
            await self.start(response)
        try:
            await response.write_eof()
        except ConnectionError as e:
            raise ClientGone from e
        self.finished = True

    def cut(self, ending: str) -> None:
        """Cut the client's connection: the client sees an answer that broke off, not a shorter complete one."""
        self.ending = ending
        self.finished = True
        if self.request.transport is not None:
            self.request.transport.abort()

    def log(self) -> None:
        """The request's access-log line (once, when it has ended)."""
        status: int | str = self.response.status if self.response is not None else "-"
        seconds = asyncio.get_running_loop().time() - self.started
        size = self.request.writer.output_size
        log_access(self.request.method, self.request.path, status, size, seconds, self.ending)
