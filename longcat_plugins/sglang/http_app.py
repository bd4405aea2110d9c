"""SGLang's HTTP app, importable by HTTP worker processes that do not load plugins.

With ``--tokenizer-worker-num > 1`` SGLang starts its HTTP workers from an import path and they never call
``load_plugins()``; point them here so ``longcat`` is registered before any request is parsed::

    SGLANG_HTTP_SERVER_APP_PATH=longcat_plugins.sglang.http_app:app \\
        python -m sglang.launch_server --model MODEL --tool-call-parser longcat --reasoning-parser longcat \\
        --tokenizer-worker-num 4
"""

from __future__ import annotations

from . import register

register()

from sglang.srt.entrypoints.http_server import app  # noqa: E402  (after register(), on purpose)

__all__ = ["app"]
