"""``longcat-plugins serve --replay FILE``: a GPU-free OpenAI-compatible server replaying recorded model
turns.

vLLM's own API server (its FastAPI app, chat serving, renderer) with ``--tool-call-parser longcat
--reasoning-parser longcat --enable-auto-tool-choice``, over a scripted engine; with ``--engine sglang``, SGLang's
own HTTP server over a stand-in scheduler. Needs the engine installed.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

from longcat_plugins import response_templates
from longcat_plugins.examples import UnknownExampleError, recordings, shipped_path

from .errors import UsageError


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "serve",
        help="serve recorded model turns over vLLM's or SGLang's OpenAI API (no GPU, no model)",
        description=(
            "Start vLLM's (with --engine sglang, SGLang's) OpenAI-compatible server (chat completions with the "
            "longcat tool-call and reasoning parsers) backed by a scripted engine: each request gets the next "
            'recorded model turn, streamed token by token. The recording is JSON lines: {"output": RAW_MODEL_TEXT, '
            '"expect_prompt": PROMPT}, expect_prompt optional. Flags after -- go to vLLM\'s own `vllm serve` '
            "parser. Stop with Ctrl-C or SIGTERM."
        ),
    )
    p.add_argument(
        "--replay",
        required=True,
        metavar="FILE",
        help="the recording (.jsonl, one model turn a line), or the name of a shipped one: "
        + ", ".join(recordings()),
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    p.add_argument(
        "--template",
        default=None,
        metavar="NAME",
        help="chat template (and model family) to serve: longcat-flash-chat, qwen3-tools-first or "
        "xml-function-thinking (default: the recording's header line, else longcat-flash-chat)",
    )
    p.add_argument(
        "--served-model-name",
        default=None,
        help="model name clients use (default: the template's model, e.g. LongCat-Flash-Chat)",
    )
    p.add_argument("--token-delay", type=float, default=0.0, metavar="SECONDS", help="pause between tokens")
    p.add_argument(
        "--engine", choices=("vllm", "sglang"), default="vllm", help="whose HTTP server to run (default vllm)"
    )
    p.add_argument(
        "--no-parsers",
        action="store_true",
        help="serve without the longcat tool-call and reasoning parsers (vLLM only): requests with tools are "
        "accepted (auto tool choice), and the model's markup stays in the message's content, as from a server "
        "whose tool parser does not read the model's dialect; for testing `longcat-plugins proxy`",
    )
    p.add_argument(
        "--response-template",
        default=None,
        metavar="NAME|FILE",
        help="a response template (the transformers standard) for the model's tokenizer_config.json, for the "
        "engine's own template parsers: a shipped one ("
        + ", ".join(response_templates.names())
        + ") or a JSON file; its chat template is the default --template. Select the parsers after --: "
        "-- --tool-call-parser hf --reasoning-parser hf (vLLM), -- --tool-call-parser response_template "
        "--reasoning-parser response_template (SGLang)",
    )
    p.add_argument("--tokenizer-worker-num", type=int, default=1, metavar="N", help="SGLang's HTTP workers (sglang)")
    p.add_argument(
        "engine_args",
        nargs="*",
        metavar="-- ENGINE_FLAGS",
        help="after --, more flags for the engine's server: `vllm serve` flags (e.g. -- --enable-log-requests) or "
        "`sglang.launch_server` flags (e.g. -- --enable-http-worker-reuseport)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from longcat_plugins.replay import RecordingError, read_recording
    from longcat_plugins.replay.model_dir import FAMILIES, TEMPLATE_NAME

    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: expected 0..65535")
    if args.token_delay < 0:
        raise UsageError("--token-delay must not be negative")
    args.replay = _recording_path(args.replay)
    try:
        recording = read_recording(args.replay)
    except RecordingError as e:
        raise UsageError(str(e)) from None
    turns = recording.turns
    response_template, chat_template = _response_template(args.response_template)
    args.template = args.template or recording.template or chat_template or TEMPLATE_NAME
    if args.template not in FAMILIES:
        raise UsageError(f"unknown template {args.template!r}; known: {', '.join(sorted(FAMILIES))}")
    if args.engine == "vllm" and args.tokenizer_worker_num != 1:
        raise UsageError("--tokenizer-worker-num is an SGLang option (with --engine sglang)")
    if args.engine == "sglang" and args.no_parsers:
        raise UsageError("--no-parsers is a vLLM option (without --engine sglang)")
    if args.engine == "sglang":
        from longcat_plugins.sglang_replay.command import sglang_replay_server

        serve = sglang_replay_server(args)
    else:
        if importlib.util.find_spec("vllm") is None:
            raise UsageError(
                "vLLM is not installed in this environment: run serve where vLLM is (see deployment_guide.md, "
                "section 1; in a checkout, bash scripts/env_vllm.sh builds one)"
            )
        from longcat_plugins.replay.server import run_replay_server

        serve = functools.partial(run_replay_server, vllm_args=args.engine_args, parsers=not args.no_parsers)

    def ready(url: str) -> None:
        print(
            f"longcat-plugins serve: replaying {len(turns)} turn(s) of {args.replay} ({args.template}"
            f"{', no parsers' if getattr(args, 'no_parsers', False) else ''}) at {url}",
            flush=True,
        )

    try:
        serve(
            turns,
            host=args.host,
            port=args.port,
            served_model_name=args.served_model_name,
            token_delay=args.token_delay,
            template=args.template,
            on_ready=ready,
            response_template=response_template,
        )
    except KeyboardInterrupt:
        pass
    except OSError as e:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}") from None
    print("longcat-plugins serve: stopped", file=sys.stderr, flush=True)
    return 0


def _response_template(value: str | None) -> tuple[dict[str, Any] | None, str | None]:
    """The response template ``value`` names (a shipped one, else a JSON file) and the chat template it goes with
    (a shipped one's, when it has one)."""
    if value is None:
        return None, None
    if not os.path.exists(value) and os.sep not in value:
        try:
            spec = response_templates.spec(value)
        except response_templates.UnknownResponseTemplateError as e:
            raise UsageError(f"--response-template: {e}") from None
        return response_templates.load(value), spec.chat_template
    try:
        loaded = json.loads(Path(value).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise UsageError(f"--response-template {value}: cannot read a JSON object ({e})") from None
    if not isinstance(loaded, dict):
        raise UsageError(f"--response-template {value}: expected a JSON object, the response_template")
    return loaded, None


def _recording_path(value: str) -> str:
    """``value`` itself when it is a file (or looks like a path), else the shipped recording of that name."""
    if os.path.exists(value) or os.sep in value:
        return value
    try:
        path = shipped_path(value)
    except UnknownExampleError:
        return value
    return str(path) if path.suffix == ".jsonl" else value
