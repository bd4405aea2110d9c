"""``longcat-plugins proxy`` that leaks: it keeps every stream's repair and every chunk it was fed, as a registry
that is never cleaned would (what the load script's memory verdict must catch). Run as ``python
tests/proxy/leaky_proxy.py --upstream URL ...`` (the proxy's arguments)."""

from __future__ import annotations

import sys
from typing import Any

import longcat_plugins.client as client

KEPT: list[Any] = []
_feed = client.ChatStreamRepair.feed


def feed(self: Any, chunk: Any) -> Any:
    KEPT.append((self, chunk))
    return _feed(self, chunk)


client.ChatStreamRepair.feed = feed  # type: ignore[method-assign]

if __name__ == "__main__":
    from longcat_plugins.cli import main

    sys.exit(main(["proxy", *sys.argv[1:]]))
