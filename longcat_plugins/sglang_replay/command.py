"""``longcat-plugins serve --replay FILE --engine sglang``: the replay on SGLang's HTTP server."""

from __future__ import annotations

import argparse
import functools
import importlib.util
from collections.abc import Callable

from longcat_plugins.commands.errors import UsageError


def sglang_replay_server(args: argparse.Namespace) -> Callable[..., None]:
    """The SGLang replay's server function, once SGLang is there in the release whose IPC it speaks."""
    if importlib.util.find_spec("sglang") is None:
        raise UsageError(
            "SGLang is not installed in this environment: run serve where SGLang is (see deployment_guide.md, "
            "section 1; in a checkout, bash scripts/env_sglang.sh builds one)"
        )
    from importlib.metadata import version

    from .scheduler import SGLANG_VERSION
    from .server import run_sglang_replay_server

    installed = version("sglang")
    if installed != SGLANG_VERSION:
        raise UsageError(
            f"the SGLang replay speaks the scheduler IPC of SGLang {SGLANG_VERSION}, and SGLang {installed} is "
            f"installed: pip install 'sglang=={SGLANG_VERSION}'"
        )
    if args.tokenizer_worker_num < 1:
        raise UsageError("--tokenizer-worker-num must be at least 1")
    return functools.partial(
        run_sglang_replay_server, tokenizer_workers=args.tokenizer_worker_num, sglang_args=args.engine_args
    )
