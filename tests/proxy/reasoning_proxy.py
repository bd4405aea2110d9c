"""``longcat-plugins proxy`` with :attr:`RepairOptions.reasoning` on (``<think>`` blocks left in the answer's text
become the API's reasoning), set through :class:`ProxyConfig.options` as the command line's reasoning switch sets it.
Run as ``python tests/proxy/reasoning_proxy.py --upstream URL ...`` (the proxy's arguments)."""

from __future__ import annotations

import sys
from typing import Any

import longcat_plugins.proxy.server as server
from longcat_plugins.client.options import RepairOptions

_ProxyConfig = server.ProxyConfig


def with_reasoning(*args: Any, **kwargs: Any) -> server.ProxyConfig:
    kwargs.setdefault("options", RepairOptions(reasoning=True))
    return _ProxyConfig(*args, **kwargs)


server.ProxyConfig = with_reasoning  # type: ignore[assignment,misc]

if __name__ == "__main__":
    from longcat_plugins.cli import main

    sys.exit(main(["proxy", *sys.argv[1:]]))
