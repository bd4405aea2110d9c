"""``longcat-plugins proxy`` whose repair fails (every call of the client library's repair raises): how the proxy
answers a fault of its own. Run as ``python tests/proxy/faulty_proxy.py --upstream URL ...`` (the proxy's
arguments)."""

from __future__ import annotations

import sys
from typing import Any, NoReturn

import longcat_plugins.client as client


class InjectedFault(RuntimeError):
    """The fault this script puts into the repair."""


def fail(*args: Any, **kwargs: Any) -> NoReturn:
    raise InjectedFault("a fault injected into the repair")


client.repair_chat_completion = fail
client.ChatStreamRepair.feed = fail  # type: ignore[method-assign]
client.repair_response = fail
client.ResponseStreamRepair.feed = fail  # type: ignore[method-assign]
client.repair_message = fail
client.MessageStreamRepair.feed = fail  # type: ignore[method-assign]

if __name__ == "__main__":
    from longcat_plugins.cli import main

    sys.exit(main(["proxy", *sys.argv[1:]]))
