"""``longcat-plugins proxy`` with the repair's reasoning option on (``RepairOptions(reasoning=True)``: ``<think>``
left in the answer's text becomes the API's reasoning). Run as ``python tests/proxy/reasoning_proxy.py --upstream
URL ...`` (the proxy's arguments)."""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

import longcat_plugins.proxy.server as server
from longcat_plugins.client.options import RepairOptions

_Config = server.ProxyConfig


def _with_reasoning(*args: Any, **kwargs: Any) -> server.ProxyConfig:
    return dataclasses.replace(_Config(*args, **kwargs), options=RepairOptions(reasoning=True))


server.ProxyConfig = _with_reasoning  # type: ignore[misc, assignment]

if __name__ == "__main__":
    from longcat_plugins.cli import main

    sys.exit(main(["proxy", *sys.argv[1:]]))
