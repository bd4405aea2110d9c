"""``longcat-plugins serve --replay FILE --engine sglang``: the replay on SGLang's HTTP server."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Sequence

from longcat_plugins.commands.errors import UsageError
from longcat_plugins.replay.recording import Turn


def run_sglang(args: argparse.Namespace, turns: Sequence[Turn]) -> int:
    if importlib.util.find_spec("sglang") is None:
        raise UsageError(
            "SGLang is not installed: pip install 'longcat-plugins[sglang]' (or run bash scripts/env_sglang.sh)"
        )
    from importlib.metadata import version

    from .scheduler import SGLANG_VERSION
    from .server import DEFAULT_MODEL_NAME, run_sglang_replay_server

    installed = version("sglang")
    if installed != SGLANG_VERSION:
        raise UsageError(
            f"the SGLang replay speaks the scheduler IPC of SGLang {SGLANG_VERSION}, and SGLang {installed} is "
            f"installed: pip install 'sglang=={SGLANG_VERSION}'"
        )
    if args.tokenizer_worker_num < 1:
        raise UsageError("--tokenizer-worker-num must be at least 1")

    def ready(url: str) -> None:
        print(f"longcat-plugins serve: replaying {len(turns)} turn(s) of {args.replay} at {url}", flush=True)

    try:
        run_sglang_replay_server(
            turns,
            host=args.host,
            port=args.port,
            served_model_name=args.served_model_name or DEFAULT_MODEL_NAME,
            token_delay=args.token_delay,
            tokenizer_workers=args.tokenizer_worker_num,
            on_ready=ready,
        )
    except KeyboardInterrupt:
        pass
    except OSError as e:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}") from None
    print("longcat-plugins serve: stopped", file=sys.stderr, flush=True)
    return 0
