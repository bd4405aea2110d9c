"""Assembly of the replay server: vLLM's own OpenAI-compatible API server over :class:`ReplayEngineClient`.

This is what ``vllm serve`` does (``run_server`` / ``build_and_serve`` in ``vllm.entrypoints.launchers``),
step by step, with the engine client replaced: vLLM's argument parser and checks, its socket set-up,
``build_app`` (FastAPI app, routers, error handlers, middleware), ``init_app_state`` (``OpenAIServingChat``,
the renderer, parser selection through ``ParserManager``), and ``serve_http`` (uvicorn, SIGINT/SIGTERM
shutdown). Nothing in vLLM is patched. The parsers are ours because ``load_general_plugins()`` runs our
``vllm.general_plugins`` entry point, as in any vLLM process. No GPU: vLLM's platform is set to its CPU
platform first (:mod:`.platform`: without its model-runner set-up, which needs Triton since vLLM 0.34).
"""

from __future__ import annotations

import asyncio
import importlib
import tempfile
from argparse import Namespace
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from longcat_plugins.templates import template_path

from .model_dir import TEMPLATE_NAME, build_model_dir, family
from .platform import use_cpu_platform
from .recording import Script, Turn

if TYPE_CHECKING:
    from .engine import ReplayEngineClient

DEFAULT_MODEL_NAME = "LongCat-Flash-Chat"
TOOL_PARSER = "longcat"
REASONING_PARSER = "longcat"


def _cli_args() -> ModuleType:
    """vLLM's ``vllm serve`` argument module, wherever this vLLM has it (``vllm.entrypoints.common.cli_args``;
    ``vllm.entrypoints.launchers.cli_args`` in 0.32)."""
    try:
        return importlib.import_module("vllm.entrypoints.common.cli_args")
    except ImportError:
        return importlib.import_module("vllm.entrypoints.launchers.cli_args")


def serve_args(
    model_dir: Path,
    host: str,
    port: int,
    served_model_name: str,
    extra: Sequence[str] = (),
    template: str = TEMPLATE_NAME,
    parsers: bool = True,
) -> Namespace:
    """The ``vllm serve`` command line of the replay, parsed and checked by vLLM's own parser. ``extra`` are more
    ``vllm serve`` flags (they come last, so they win over the replay's own). Without ``parsers``, no tool-call
    or reasoning parser (and no auto tool choice: :func:`serve_replay` turns it on)."""
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    cli_args = _cli_args()
    make_arg_parser, validate_parsed_serve_args = cli_args.make_arg_parser, cli_args.validate_parsed_serve_args

    argv = [
        "--model", str(model_dir),
        "--served-model-name", served_model_name,
        "--host", host,
        "--port", str(port),
        *(["--enable-auto-tool-choice", "--tool-call-parser", TOOL_PARSER, "--reasoning-parser", REASONING_PARSER]
          if parsers else []),
        "--chat-template", str(template_path(template)),
        "--generation-config", "vllm",
        *extra,
    ]  # fmt: skip
    parser = make_arg_parser(FlexibleArgumentParser(prog="longcat-plugins serve"))
    args: Namespace = parser.parse_args(argv)
    validate_parsed_serve_args(args)
    return args


def corpus(turns: Sequence[Turn]) -> list[str]:
    """Text to train the replay tokenizer on: every output and expected prompt, a few times."""
    texts = [t.output for t in turns] + [t.expect_prompt for t in turns if t.expect_prompt]
    return texts * 3


def build_engine(
    args: Namespace,
    script: Script,
    *,
    token_delay: float = 0.0,
    engine_class: type[ReplayEngineClient] | None = None,
) -> ReplayEngineClient:
    """The replay engine client for parsed ``vllm serve`` arguments (what ``AsyncLLM.from_vllm_config`` is to
    ``vllm serve``): vLLM's model, logging and structured-output configs, no KV cache. ``engine_class``: a subclass
    of :class:`ReplayEngineClient` to build instead."""
    import vllm.envs as envs
    from vllm.config import VllmConfig
    from vllm.engine.arg_utils import AsyncEngineArgs

    from .engine import ReplayEngineClient

    engine_args = AsyncEngineArgs.from_cli_args(args)
    envs.VLLM_CPU_KVCACHE_SPACE = 0  # no KV cache: no CPU KV-cache size warning
    vllm_config = VllmConfig(
        model_config=engine_args.create_model_config(),
        logging_config=engine_args.create_logging_config(),
        structured_outputs_config=engine_args.create_structured_outputs_config(),
    )
    # --stream-interval: the output processor hands the tokens on in steps of that many, as AsyncLLM's does
    vllm_config.scheduler_config.stream_interval = getattr(engine_args, "stream_interval", 1)
    return (engine_class or ReplayEngineClient)(
        vllm_config,
        script,
        token_delay=token_delay,
        log_requests=bool(engine_args.enable_log_requests),
        log_stats=not engine_args.disable_log_stats,
    )


async def serve_replay(
    args: Namespace,
    script: Script,
    *,
    token_delay: float = 0.0,
    on_ready: Callable[[str], None] | None = None,
    parsers: bool = True,
) -> None:
    """Serve until SIGINT/SIGTERM: vLLM's ``run_server_worker`` and ``build_and_serve``, with the replay. Without
    ``parsers`` (and their flags in ``args``), auto tool choice is on all the same, set after vLLM's checks (which
    refuse it without a tool-call parser): requests with tools are answered with the model's markup in the
    content, as a server that does not read it answers them."""
    import vllm.envs as envs

    # (0.32 has none: its setup_server imports the parser plugins itself)
    init_parser_plugin = getattr(_cli_args(), "init_parser_plugin", None)
    from vllm.entrypoints.launchers.api_server.app_state import init_app_state
    from vllm.entrypoints.launchers.app import build_app
    from vllm.entrypoints.launchers.launcher import serve_http, setup_server
    from vllm.entrypoints.launchers.utils.server_utils import get_uvicorn_log_config
    from vllm.logger import init_logger

    logger = init_logger("vllm.longcat_replay.server")
    if init_parser_plugin is not None:
        init_parser_plugin(args)
    listen_address, sock = setup_server(args, reuse_port=False)
    if not parsers:
        args.enable_auto_tool_choice = True
    host, port = sock.getsockname()[:2]
    engine = build_engine(args, script, token_delay=token_delay)
    uvicorn_kwargs: dict[str, Any] = {}
    log_config = get_uvicorn_log_config(args)
    if log_config is not None:
        uvicorn_kwargs["log_config"] = log_config
    supported_tasks = await engine.get_supported_tasks()
    logger.info("Supported tasks: %s", supported_tasks)
    app = build_app(args, supported_tasks, engine.model_config)
    await init_app_state(engine, app.state, args, supported_tasks)
    logger.info("Starting vLLM server on %s", listen_address)

    async def announce() -> None:
        while not getattr(getattr(app.state, "server", None), "started", False):
            await asyncio.sleep(0.05)
        if on_ready is not None:
            on_ready(f"http://{host}:{port}/v1")

    ready = asyncio.get_running_loop().create_task(announce())
    try:
        shutdown = await serve_http(
            app,
            sock=sock,
            enable_ssl_refresh=args.enable_ssl_refresh,
            host=args.host,
            port=port,
            log_level=args.uvicorn_log_level,
            access_log=not args.disable_uvicorn_access_log,
            timeout_keep_alive=envs.VLLM_HTTP_TIMEOUT_KEEP_ALIVE,
            ssl_keyfile=args.ssl_keyfile,
            ssl_certfile=args.ssl_certfile,
            ssl_ca_certs=args.ssl_ca_certs,
            ssl_cert_reqs=args.ssl_cert_reqs,
            ssl_ciphers=args.ssl_ciphers,
            h11_max_incomplete_event_size=args.h11_max_incomplete_event_size,
            h11_max_header_count=args.h11_max_header_count,
            **uvicorn_kwargs,
        )
        await shutdown
    finally:
        ready.cancel()
        sock.close()
        engine.shutdown()


def run_replay_server(
    turns: Sequence[Turn],
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    served_model_name: str | None = None,
    token_delay: float = 0.0,
    template: str = TEMPLATE_NAME,
    vllm_args: Sequence[str] = (),
    on_ready: Callable[[str], None] | None = None,
    parsers: bool = True,
    response_template: Mapping[str, Any] | None = None,
) -> None:
    """Build the model directory for ``template`` and serve ``turns`` until interrupted (blocking). The served
    model name defaults to the template's model family's; ``vllm_args`` are more ``vllm serve`` flags; logging
    is set up from them as ``vllm serve`` does; without ``parsers``, see :func:`serve_args`; ``response_template``:
    the tokenizer's (see :func:`~.model_dir.build_model_dir`)."""
    name = served_model_name or family(template).served_model_name
    with tempfile.TemporaryDirectory(prefix="longcat-replay-") as tmp:
        model_dir = build_model_dir(Path(tmp) / "model", corpus(turns), template, response_template=response_template)
        use_cpu_platform()
        from vllm.logger import configure_logging_from_args
        from vllm.plugins import load_general_plugins
        from vllm.utils.system_utils import decorate_logs

        load_general_plugins()
        args = serve_args(model_dir, host, port, name, vllm_args, template, parsers)
        configure_logging_from_args(args)
        decorate_logs("APIServer", skip_if_decorated=True)
        asyncio.run(
            serve_replay(args, Script(list(turns)), token_delay=token_delay, on_ready=on_ready, parsers=parsers)
        )
