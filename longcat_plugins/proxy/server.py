"""The proxy's HTTP layer: an aiohttp server in front of one OpenAI-compatible upstream, and an aiohttp client to it.

The proxy's routes are its own: ``/v1/...`` goes to the upstream's base URL, other routes to the upstream server's
root when the base says where that is (:mod:`.address`). A ``POST`` to the route of an API the proxy repairs
(:mod:`.apis`: Chat Completions, the Responses API, Anthropic's Messages) whose JSON body asks for it (one that
declares tools, or with the reasoning switch, for Chat Completions and Messages, any:
:func:`longcat_plugins.client.needs_repair`) is repaired, streamed or not, by the client library; everything
else (every other route and method, a body that is not JSON, a non-2xx answer, a body in an encoding the proxy does
not read) passes through as it is, bodies streamed both ways. The errors the proxy makes itself are in the API's
shape (the OpenAI API's by default); every request has one access-log line (:mod:`.exchange`). The log never holds
a header or a body.
"""

from __future__ import annotations

import asyncio
import copy
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web
from aiohttp.abc import AbstractAccessLogger
from aiohttp.http_exceptions import HttpProcessingError
from multidict import CIMultiDict, CIMultiDictProxy

from longcat_plugins.client.options import RepairOptions

from . import DEFAULT_MAX_EVENT_BYTES, DEFAULT_TIMEOUT
from .address import API_PREFIX, UpstreamAddress
from .api_events import json_bytes, json_object
from .apis import EventRepair, RepairedAPI, repaired_apis
from .chat_api import CHAT
from .exchange import (
    CANCELLED,
    CLIENT_CLOSED,
    INTERNAL_ERROR,
    UPSTREAM_BROKE_OFF,
    ClientGone,
    Exchange,
    access_logger,
    error_response,
    log_access,
    logger,
)
from .sse import Event, EventTooLarge, SSEReader

#: headers of one connection, not of the message (RFC 9110 section 7.6.1), and those the client library sets itself
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "expect",
    }
)
READ_CHUNK = 64 * 1024
#: where a request's :class:`Exchange` is kept on it
EXCHANGE = "longcat_plugins.proxy.exchange"
#: what a client of a fault of the proxy is told (the log has the traceback)
FAULT = "longcat-plugins proxy: internal error (the proxy's log has the details)"


@dataclass(frozen=True)
class ProxyConfig:
    upstream: UpstreamAddress
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES
    #: seconds to connect, and seconds the upstream may stay silent (None: no limit)
    timeout: float | None = DEFAULT_TIMEOUT
    options: RepairOptions = field(default_factory=RepairOptions)


def forwarded_headers(
    headers: CIMultiDictProxy[str] | CIMultiDict[str], drop: frozenset[str] = frozenset()
) -> CIMultiDict[str]:
    """``headers`` without the hop-by-hop ones (and those the ``Connection`` header names) and ``drop``."""
    named = {token.strip().lower() for value in headers.getall("Connection", []) for token in value.split(",")}
    out: CIMultiDict[str] = CIMultiDict()
    for name, value in headers.items():
        lower = name.lower()
        if lower in HOP_BY_HOP or lower in named or lower in drop:
            continue
        out.add(name, value)
    return out


def _cause(error: BaseException) -> str:
    if isinstance(error, asyncio.TimeoutError):
        return "timed out"
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class _Bounded:
    """What :func:`_read_bounded` read: ``data``, and whether that is all (``complete``)."""

    def __init__(self, data: bytes, complete: bool) -> None:
        self.data = data
        self.complete = complete


async def _read_bounded(stream: aiohttp.StreamReader, limit: int) -> _Bounded:
    """At most ``limit`` bytes of ``stream`` (and one more, to tell that there are more)."""
    parts: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = await stream.read(min(READ_CHUNK, limit + 1 - size))
        if not chunk:
            return _Bounded(b"".join(parts), True)
        parts.append(chunk)
        size += len(chunk)
    return _Bounded(b"".join(parts), False)


async def _chain(head: bytes, rest: aiohttp.StreamReader) -> AsyncIterator[bytes]:
    yield head
    async for chunk in rest.iter_chunked(READ_CHUNK):
        yield chunk


def _media_type(response: aiohttp.ClientResponse) -> str:
    return response.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()


def _identity(response: aiohttp.ClientResponse) -> bool:
    return response.headers.get("Content-Encoding", "identity").strip().lower() in ("", "identity")


def _done(upstream: aiohttp.ClientResponse) -> None:
    """Back to the pool when the answer was read to its end; otherwise the connection is closed (the upstream stops:
    a client that went away, an answer cut short here)."""
    if upstream.content.is_eof():
        upstream.release()
    else:
        upstream.close()


class Proxy:
    """The request handler: one for the server, with the client session to the upstream."""

    def __init__(self, config: ProxyConfig, session: aiohttp.ClientSession) -> None:
        self.config = config
        self.session = session
        #: the upstream as messages name it
        self.upstream = config.upstream.base
        self.apis = repaired_apis()

    async def handle(self, request: web.BaseRequest) -> web.StreamResponse:
        """Answer ``request``; however that ends, its access-log line."""
        exchange = Exchange(request)
        request[EXCHANGE] = exchange
        try:
            await exchange.finish(await self._answer(exchange))
        except asyncio.CancelledError:  # the client's connection was lost, or the server stops
            exchange.ending = CLIENT_CLOSED if exchange.client_lost() else CANCELLED
            raise
        except Exception as e:
            if isinstance(e, ClientGone) or (isinstance(e, ConnectionError) and exchange.client_lost()):
                exchange.ending = CLIENT_CLOSED
            else:
                logger.exception("internal error answering %s %s", request.method, request.path)
                await self._fault(exchange)
        finally:
            exchange.log()
        # what aiohttp finishes: already sent (or the client is gone)
        return exchange.response if exchange.response is not None else error_response(500, FAULT)

    async def _answer(self, exchange: Exchange) -> web.StreamResponse:
        request = exchange.request
        url = self.config.upstream.target(request.rel_url.raw_path_qs)
        if url is None:
            return error_response(
                404,
                f"{request.path} is not served: the proxy serves the OpenAI API at {API_PREFIX}/... (the upstream's "
                f"base URL {self.upstream} does not end in {API_PREFIX}: it has no other routes)",
            )
        api = self.apis.get(request.path) if request.method == "POST" else None
        if api is not None:
            exchange.api = api
            body = await _read_bounded(request.content, self.config.max_event_bytes)
            asked = json_object(body.data) if body.complete else None
            if asked is not None and api.needs_repair(asked, self.config.options):
                return await self._repair(exchange, api, url, body.data, asked)
            data: Any = body.data if body.complete else _chain(body.data, request.content)
        else:
            data = request.content.iter_chunked(READ_CHUNK) if request.body_exists else None
        headers = forwarded_headers(request.headers)
        try:
            upstream = await self.session.request(
                request.method, url, headers=headers, data=data, allow_redirects=False
            )
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as e:
            return self._unreachable(e, api)
        try:
            return await self._relay(exchange, upstream)
        finally:
            _done(upstream)

    async def _repair(
        self, exchange: Exchange, api: RepairedAPI, url: str, body: bytes, asked: dict[str, Any]
    ) -> web.StreamResponse:
        # the answer is read here: no compression (a compressed one passes through unread)
        headers = forwarded_headers(exchange.request.headers, frozenset({"content-length", "accept-encoding"}))
        headers["Accept-Encoding"] = "identity"
        try:
            upstream = await self.session.request("POST", url, headers=headers, data=body, allow_redirects=False)
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as e:
            return self._unreachable(e, api)
        try:
            if not 200 <= upstream.status < 300 or not _identity(upstream):
                return await self._relay(exchange, upstream)
            media = _media_type(upstream)
            if media == "text/event-stream":
                return await self._repair_stream(exchange, upstream, api.stream(asked, self.config.options), api)
            if media == "application/json" or media.endswith("+json"):
                return await self._repair_whole(exchange, upstream, api, asked)
            return await self._relay(exchange, upstream)
        finally:
            _done(upstream)

    async def _fault(self, exchange: Exchange) -> None:
        """After a fault of the proxy: a 500, or when the answer has started, an error event ending an event
        stream (any other answer is cut)."""
        exchange.ending = INTERNAL_ERROR
        response = exchange.response
        try:
            api = exchange.api or CHAT
            if response is None:
                await exchange.finish(error_response(500, FAULT, api.error_body))
            elif not exchange.finished and response.content_type == "text/event-stream":
                await exchange.send(api.error_event(api.error_body(FAULT, "server_error", 500)))
                await exchange.finish(response)
            elif not exchange.finished:
                exchange.cut(INTERNAL_ERROR)
        except ClientGone:
            exchange.ending = CLIENT_CLOSED

    def _unreachable(self, error: BaseException, api: RepairedAPI | None) -> web.Response:
        message = f"the upstream server {self.upstream} could not be reached: {_cause(error)}"
        logger.warning("%s", message)
        return error_response(502, message, api.error_body if api else None)

    def _response_headers(self, upstream: aiohttp.ClientResponse, *, rewritten: bool) -> CIMultiDict[str]:
        drop = frozenset({"content-length", "content-encoding"}) if rewritten else frozenset()
        return forwarded_headers(upstream.headers, drop)

    async def _relay(
        self, exchange: Exchange, upstream: aiohttp.ClientResponse, head: bytes = b""
    ) -> web.StreamResponse:
        """The upstream's answer as it is: status, headers, then ``head`` and the rest of the body as it arrives."""
        response = web.StreamResponse(status=upstream.status, reason=upstream.reason)
        response.headers.extend(self._response_headers(upstream, rewritten=False))
        await exchange.start(response)
        await exchange.send(head)
        try:
            async for chunk in upstream.content.iter_any():
                await exchange.send(chunk)
        except (aiohttp.ClientPayloadError, aiohttp.ClientConnectionError, asyncio.TimeoutError) as e:
            logger.warning("the upstream server %s broke off its answer: %s", self.upstream, _cause(e))
            exchange.cut(UPSTREAM_BROKE_OFF)
        return response

    async def _repair_whole(
        self, exchange: Exchange, upstream: aiohttp.ClientResponse, api: RepairedAPI, asked: dict[str, Any]
    ) -> web.StreamResponse:
        try:
            body = await _read_bounded(upstream.content, self.config.max_event_bytes)
        except (aiohttp.ClientError, asyncio.TimeoutError) as e:
            message = f"the upstream server {self.upstream} broke off its answer: {_cause(e)}"
            logger.warning("%s", message)
            return error_response(502, message, api.error_body)
        if not body.complete:
            logger.warning(
                "the answer of %s is larger than %d bytes: passed through unrepaired",
                self.upstream,
                self.config.max_event_bytes,
            )
            return await self._relay(exchange, upstream, body.data)
        answer = json_object(body.data)
        out = body.data
        if answer is None:
            logger.warning("the answer of %s is not a JSON object: passed through unrepaired", self.upstream)
        else:
            repaired = api.repair_whole(copy.deepcopy(answer), asked, self.config.options)
            if repaired != answer:
                out = json_bytes(repaired)
        return web.Response(
            status=upstream.status,
            reason=upstream.reason,
            body=out,
            headers=self._response_headers(upstream, rewritten=True),
        )

    async def _repair_stream(
        self, exchange: Exchange, upstream: aiohttp.ClientResponse, repair: EventRepair, api: RepairedAPI
    ) -> web.StreamResponse:
        response = web.StreamResponse(status=upstream.status, reason=upstream.reason)
        response.headers.extend(self._response_headers(upstream, rewritten=True))
        await exchange.start(response)
        stream = _RepairedStream(repair, api, SSEReader(self.config.max_event_bytes), self.upstream)
        try:
            async for chunk in upstream.content.iter_any():
                await exchange.send(stream.feed(chunk))
                if stream.stopped:
                    break
        except (aiohttp.ClientPayloadError, aiohttp.ClientConnectionError, asyncio.TimeoutError) as e:
            await exchange.send(stream.broken_off(_cause(e)))
            exchange.cut(UPSTREAM_BROKE_OFF)
            return response
        await exchange.send(stream.end())
        return response


class _RepairedStream:
    """One streamed answer: the upstream's bytes in, the bytes to send out (repaired events, or after a problem
    the upstream's bytes as they are)."""

    def __init__(self, repair: EventRepair, api: RepairedAPI, reader: SSEReader, upstream: str) -> None:
        self.repair = repair
        self.api = api
        self.reader = reader
        self.upstream = upstream
        self.verbatim = False  # after a problem, or after the stream's end marker: the rest as it comes
        self.stopped = False  # an event over the cap: nothing more is sent
        self.released = False  # the repair's release() was called

    def feed(self, chunk: bytes) -> bytes:
        if self.stopped:
            return b""
        if self.verbatim:
            return chunk
        events = self.reader.feed(chunk)
        out = bytearray()
        for event in events:
            out += event.raw if self.verbatim else self._event(event)
        error = self.reader.error
        if self.verbatim:  # from an event of this chunk on: what the reader holds too
            out += self.reader.pending()
        elif isinstance(error, EventTooLarge):
            out += self._release()
            self._warn(f"{error}: an error event ends the stream")
            body = self.api.error_body(f"longcat-plugins proxy: {error}", "upstream_error", "event_too_large")
            out += self.api.error_event(body)
            self.stopped = True
        elif error is not None:
            out += self._give_up(str(error)) + self.reader.pending()
        return bytes(out)

    def end(self) -> bytes:
        """The upstream's answer ended."""
        if self.verbatim or self.stopped:
            return b""
        last = self.reader.close()
        if self.reader.error is not None:
            return self._give_up(str(self.reader.error)) + self.reader.pending()
        out = self._event(last) if last is not None else b""
        return out + self._release()

    def broken_off(self, cause: str) -> bytes:
        """The upstream's answer broke off (a read error, a timeout)."""
        if self.verbatim or self.stopped:
            return b""
        self._warn(f"the answer broke off ({cause})")
        out = self._release() + self.reader.pending()
        self.verbatim = True
        return out

    def _event(self, event: Event) -> bytes:
        step = self.repair.event(event)
        if step.problem is not None:
            return self._give_up(step.problem) + event.raw
        if step.verbatim:
            self.verbatim = True
            self.released = True
        return step.out

    def _release(self) -> bytes:
        """What the repair holds back, once."""
        if self.released:
            return b""
        self.released = True
        return self.repair.release()

    def _give_up(self, reason: str) -> bytes:
        self._warn(f"{reason}: the rest of the stream is passed through as received")
        out = self._release()
        self.verbatim = True
        return out

    def _warn(self, message: str) -> None:
        logger.warning("streamed answer of %s: %s", self.upstream, message)


class AccessLogger(AbstractAccessLogger):
    """The access-log line of a request that never reached the proxy's handler (aiohttp could not read it); the
    handler logs the others itself (:class:`Exchange`)."""

    def log(self, request: web.BaseRequest, response: web.StreamResponse, time: float) -> None:
        if EXCHANGE not in request:
            log_access(request.method, request.path, response.status, response.body_length, time)


class _Connection(web.RequestHandler):
    """aiohttp's handler of one connection, answering the errors it makes itself (a request that is not valid HTTP:
    400; a fault the proxy's handler let through: 500) in the OpenAI API's shape."""

    def handle_error(
        self,
        request: web.BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        if request.writer.output_size > 0:
            raise ConnectionError("the answer has started: no error answer can follow")
        if status >= 500:
            logger.error("internal error answering %s %s", request.method, request.path, exc_info=exc)
            text = FAULT
        else:
            reason = exc.message if isinstance(exc, HttpProcessingError) and exc.message else message
            text = "the request is not valid HTTP" + (f": {reason}" if reason else "")
        response = error_response(status, text)
        response.force_close()
        return response


class _Server(web.Server):
    """aiohttp's low-level server, with :class:`_Connection` for each connection and the handler cancelled when its
    client's connection is lost."""

    def __init__(self, handler: Callable[[web.BaseRequest], Awaitable[web.StreamResponse]]) -> None:
        super().__init__(handler, handler_cancellation=True)
        self.connection_loop = asyncio.get_running_loop()

    def __call__(self) -> web.RequestHandler:
        return _Connection(self, loop=self.connection_loop, access_log_class=AccessLogger, access_log=access_logger)


async def serve(config: ProxyConfig, host: str, port: int, on_ready: Callable[[str], None] | None = None) -> None:
    """Serve until SIGTERM or SIGINT (or cancellation)."""
    timeout = aiohttp.ClientTimeout(total=None, connect=config.timeout, sock_read=config.timeout)
    async with aiohttp.ClientSession(
        timeout=timeout,
        auto_decompress=False,
        connector=aiohttp.TCPConnector(limit=0),
        skip_auto_headers=("Accept-Encoding", "User-Agent", "Content-Type"),
    ) as session:
        runner = web.ServerRunner(_Server(Proxy(config, session).handle))
        await runner.setup()
        try:
            site = web.TCPSite(runner, host, port)
            await site.start()
            bound = runner.addresses[0]
            url_host = f"[{bound[0]}]" if ":" in str(bound[0]) else bound[0]
            if on_ready is not None:
                on_ready(f"http://{url_host}:{bound[1]}{API_PREFIX}")
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, stop.set)
            await stop.wait()
        finally:
            await runner.cleanup()
