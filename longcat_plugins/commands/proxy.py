"""``longcat-plugins proxy --upstream URL``: an OpenAI-compatible pass-through that repairs tool calls.

For a server you do not run (a hosted API, a gateway, llama.cpp or Ollama, a server whose tool parser does not read
the model's dialect): the model's call markup arrives there as text in ``content``; the proxy hands each chat
completion that declares tools to the client library's repair, and everything else through as it is. With
``--reasoning`` (the upstream splits no reasoning either), every chat completion is repaired, its think blocks moved
from ``content`` to the reasoning field.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import logging
import sys
from typing import Any

from .errors import UsageError

INSTALL_HINT = 'pip install "longcat-plugins[proxy]"'


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "proxy",
        help="an OpenAI-compatible proxy that turns tool-call markup left in content into tool_calls",
        description=(
            "Serve an OpenAI-compatible API in front of UPSTREAM (a server without the longcat parsers): chat "
            "completions that declare tools get their tool calls and reasoning repaired, streamed or not; every "
            "other request passes through unchanged. Needs aiohttp (" + INSTALL_HINT + "). Stop with Ctrl-C or "
            "SIGTERM."
        ),
    )
    p.add_argument(
        "--upstream",
        required=True,
        metavar="URL",
        help="the upstream's OpenAI base URL, as an OpenAI client would be given it (http://host:8000/v1, "
        "https://api.example.com/v3/openai): the proxy's /v1/PATH goes to URL/PATH; a URL without a path is a "
        "server's root, whose API is at /v1. No credentials in it: clients send their own API key",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8001, help="port (default 8001; 0 picks a free one)")
    p.add_argument(
        "--max-event-bytes",
        type=int,
        default=None,
        metavar="N",
        help="the largest streamed event, request body or non-streamed answer the proxy reads (default 32 MiB); "
        "a larger request or answer passes through unrepaired, a larger event ends the stream with an error event",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="seconds to connect to the upstream, and the longest silence of its answer (default 600; 0: no limit)",
    )
    p.add_argument(
        "--reasoning",
        action="store_true",
        help="the upstream splits no reasoning from the answer (no reasoning parser): move <think>...</think> (and "
        "<longcat_think>) blocks from the content to the reasoning field (the one the upstream uses, else "
        "'reasoning', as vLLM serves it), for every chat completion, with or without tools. Without the prompt, "
        "the first think tag says whether the answer starts inside reasoning (a closer with no opener: the text "
        "before it is reasoning), so the content is held until that tag or the end, unless the request switches "
        "thinking off (chat_template_kwargs enable_thinking: false). Off by default: content stays as sent",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from longcat_plugins.proxy import DEFAULT_MAX_EVENT_BYTES, DEFAULT_TIMEOUT
    from longcat_plugins.proxy.address import AddressError, parse_upstream

    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: expected 0..65535")
    try:
        upstream = parse_upstream(args.upstream)
    except AddressError as e:
        raise UsageError(f"--upstream {e}") from None
    max_event_bytes = DEFAULT_MAX_EVENT_BYTES if args.max_event_bytes is None else args.max_event_bytes
    if max_event_bytes < 1024:
        raise UsageError(f"--max-event-bytes {max_event_bytes}: expected at least 1024")
    timeout = DEFAULT_TIMEOUT if args.timeout is None else args.timeout
    if timeout < 0:
        raise UsageError("--timeout must not be negative")
    if importlib.util.find_spec("aiohttp") is None:
        raise UsageError(f"the proxy needs aiohttp, which is not installed in this environment: {INSTALL_HINT}")
    from longcat_plugins.client.options import RepairOptions
    from longcat_plugins.proxy.server import ProxyConfig, serve

    config = ProxyConfig(upstream, max_event_bytes, timeout or None, RepairOptions(reasoning=args.reasoning))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", force=True)

    def ready(url: str) -> None:
        print(f"longcat-plugins proxy: repairing the answers of {upstream.base} at {url}", flush=True)

    try:
        asyncio.run(serve(config, args.host, args.port, on_ready=ready))
    except KeyboardInterrupt:
        pass
    except OSError as e:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}") from None
    print("longcat-plugins proxy: stopped", file=sys.stderr, flush=True)
    return 0
