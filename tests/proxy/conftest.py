"""The proxy's tests: ``longcat-plugins proxy`` as a process, in front of the replay server without our parsers
(real clients, the replay server with our parsers as the oracle) or of a tiny aiohttp app standing for a broken HTTP
server. Run with ``.venvs/clients/bin/python`` (the clients suite); without aiohttp and the clients the directory is
skipped, unless ``LONGCAT_REQUIRE_CLIENTS=1`` makes that an error.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

MODULES = ("aiohttp", "httpx", "openai", "langchain_openai")
_MISSING = [name for name in MODULES if importlib.util.find_spec(name) is None]

if _MISSING:
    if os.environ.get("LONGCAT_REQUIRE_CLIENTS", "").strip() == "1":
        raise ImportError(
            f"LONGCAT_REQUIRE_CLIENTS=1 but {', '.join(_MISSING)} missing: run the proxy tests with "
            ".venvs/clients/bin/python (scripts/env_clients.sh)"
        )
    collect_ignore_glob = ["test_*.py"]
