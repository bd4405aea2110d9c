"""The matrix on vLLM: each cell is served by vLLM's own OpenAI-compatible server (``build_app`` and
``init_app_state``, as ``vllm serve`` builds them, with our plugin loaded), over HTTP in-process (an ASGI
transport), by the replay engine: vLLM's own input processor and output processor (incremental detokenizer,
``skip_special_tokens``, stop strings, ``max_tokens``, several tokens per step). Only the model is scripted.

For a constrained cell, the engine core's structured-output gate (vLLM's ``StructuredOutputManager``, with our
reasoning parser) runs over the generated tokens with the grammar the server compiled, as the scheduler drives it:
every token of the intended output must be one the grammar allows.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from longcat_plugins.replay.recording import Script, Turn
from tests.served.cells import Cell
from tests.served.fold import sse_events
from tests.served.oracle import keeps_special_tokens
from tests.served.requests import API_PATHS
from tests.served.texts import Text, all_texts, constrained_texts
from tests.served.tokenizer import served_tokenizer
from tests.support.model_dir import save_qwen3_dir

MODEL = "m"


def _model_dir(root: Path, tokens: str) -> Path:
    """A weight-less Qwen3 model directory whose tokenizer has the tags as special tokens, as ordinary tokens, or
    not at all (each tag then several tokens)."""
    tokenizer = served_tokenizer(tokens)
    return save_qwen3_dir(root, tokenizer, max_position_embeddings=65536, eos_token_id=tokenizer.eos_token_id)


def _serve_args(model_dir: Path, parsers: str, stream_interval: int = 1) -> Any:
    """``parsers``: a matrix cell's (``both``, ``tool``, ``reasoning``: ours) or a mix, ``TOOL+REASONING`` (the
    parsers' names, either one empty for none); ``stream_interval``: ``--stream-interval``."""
    from vllm.entrypoints.common.cli_args import make_arg_parser, validate_parsed_serve_args
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    argv = ["--model", str(model_dir), "--served-model-name", MODEL, "--generation-config", "vllm"]
    if "+" in parsers:
        tool, _, reasoning = parsers.partition("+")
    else:
        tool = "longcat" if parsers in ("both", "tool") else ""
        reasoning = "longcat" if parsers in ("both", "reasoning") else ""
    if tool:
        argv += ["--enable-auto-tool-choice", "--tool-call-parser", tool]
    if reasoning:
        argv += ["--reasoning-parser", reasoning]
    if stream_interval > 1:
        argv += ["--stream-interval", str(stream_interval)]
    parser = make_arg_parser(FlexibleArgumentParser(prog="vllm serve"))
    args = parser.parse_args(argv)
    validate_parsed_serve_args(args)
    return args


@dataclass
class Server:
    """One configured server: its app, its engine, and the last request the engine took."""

    app: Any
    engine: Any
    tokenizer: Any
    vllm_config: Any
    requests: list[Any]


class VllmServers:
    """A server per (tokenization, parsers), built when first needed."""

    def __init__(self) -> None:
        from vllm.plugins import load_general_plugins

        from longcat_plugins.replay.server import use_cpu_platform

        use_cpu_platform()
        load_general_plugins()
        self._tmp = tempfile.TemporaryDirectory(prefix="longcat-served-")
        self._dirs: dict[str, Path] = {}
        self._servers: dict[tuple[str, str, int], Server] = {}
        self.loop = asyncio.new_event_loop()

    def close(self) -> None:
        async def stop() -> None:
            for server in self._servers.values():
                server.engine.shutdown()  # (in the loop: it stops the engine's stepping task)
            await asyncio.sleep(0)

        self.loop.run_until_complete(stop())
        self.loop.close()
        self._tmp.cleanup()

    def model_dir(self, tokens: str) -> Path:
        if tokens not in self._dirs:
            self._dirs[tokens] = _model_dir(Path(self._tmp.name) / tokens, tokens)
        return self._dirs[tokens]

    def server(self, tokens: str, parsers: str, stream_interval: int = 1) -> Server:
        key = (tokens, parsers, stream_interval)
        if key not in self._servers:
            self._servers[key] = self.loop.run_until_complete(self._build(tokens, parsers, stream_interval))
        return self._servers[key]

    async def _build(self, tokens: str, parsers: str, stream_interval: int = 1) -> Server:
        from vllm.entrypoints.common.cli_args import init_parser_plugin
        from vllm.entrypoints.launchers.api_server.app_state import init_app_state
        from vllm.entrypoints.launchers.app import build_app

        from longcat_plugins.replay.server import build_engine

        args = _serve_args(self.model_dir(tokens), parsers, stream_interval)
        init_parser_plugin(args)
        engine = build_engine(args, Script([Turn("")]))
        requests: list[Any] = []
        process_inputs = engine.input_processor.process_inputs

        def capture(*a: Any, **kw: Any) -> Any:
            request = process_inputs(*a, **kw)
            requests.append(request)
            return request

        engine.input_processor.process_inputs = capture
        tasks = await engine.get_supported_tasks()
        app = build_app(args, tasks, engine.model_config)
        await init_app_state(engine, app.state, args, tasks)
        return Server(app, engine, engine.tokenizer, engine.vllm_config, requests)

    def serve(self, cell: Cell, output: str, body: dict[str, Any], stream_interval: int = 1) -> tuple[int, Any]:
        """Serve ``output`` for one request: (HTTP status, the JSON body or the list of streamed events), by a server
        started with ``--stream-interval stream_interval``."""
        server = self.server(cell.tokens, cell.parsers, stream_interval)
        server.engine.script = Script([Turn(output)])
        server.engine.tokens_per_step = cell.group
        return self.loop.run_until_complete(_post(server.app, cell, body))


async def _post(app: Any, cell: Cell, body: dict[str, Any]) -> tuple[int, Any]:
    import httpx

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://served") as client:
        try:
            response = await client.post(API_PATHS[cell.api], json=body, timeout=60)
        except Exception as e:  # the server failed after it started the response: the client sees a broken stream
            cause: BaseException = e
            while cause.__cause__ is not None:
                cause = cause.__cause__
            return 500, f"the server failed mid-response: {cause!r}"
        if response.status_code != 200 or not cell.stream:
            return response.status_code, response.json()
        return 200, sse_events(response.text)


def output_token_ids(server: Server, output: str) -> list[int]:
    return list(server.tokenizer.encode(output, add_special_tokens=False))


def grammar_refusals(server: Server, output: str, group: int) -> list[int] | None:
    """The tokens of ``output`` the engine core's gate refuses under the last request's grammar (None: the request
    was not constrained)."""
    checked = grammar_check(server, output, group)
    return None if checked is None else checked[0]


def grammar_check(server: Server, output: str, group: int) -> tuple[list[int], int] | None:
    """The tokens of ``output`` the engine core's gate refuses under the last request's grammar, and how many tokens
    the grammar was applied to (None: the request was not constrained)."""
    from vllm.v1.request import Request
    from vllm.v1.structured_output import StructuredOutputManager

    engine_request = server.requests[-1]
    params = engine_request.sampling_params
    if params is None or params.structured_outputs is None:
        return None
    manager = StructuredOutputManager(server.vllm_config)
    request = Request(
        "r",
        engine_request.prompt_token_ids,
        params,
        None,
        reasoning_ended=engine_request.reasoning_ended,
        reasoning_parser_kwargs=engine_request.reasoning_parser_kwargs,
    )
    manager.grammar_init(request)
    structured = request.structured_output_request
    assert structured is not None
    if hasattr(structured._grammar, "result"):
        structured._grammar.result()  # (compiled in the background)
    grammar = structured.grammar
    assert grammar is not None
    rows: set[int] = set()
    fill = grammar.fill_bitmask

    def fill_bitmask(bitmask: Any, index: int) -> None:
        rows.add(index)
        fill(bitmask, index)

    grammar.fill_bitmask = fill_bitmask  # type: ignore[method-assign]
    refused: list[int] = []
    constrained = 0
    ids = [*output_token_ids(server, output), server.tokenizer.eos_token_id]
    for start in range(0, len(ids), group):
        step = ids[start : start + group]
        drafts = step[:-1]
        rows.clear()
        manager.grammar_bitmask({"r": request}, ["r"], {"r": drafts} if drafts else {})
        constrained += len(rows)
        bitmask = manager._grammar_bitmask.numpy()
        for row, token in enumerate(step):
            if row in rows and not (int(bitmask[row][token >> 5]) >> (token & 31)) & 1:
                refused.append(token)
        for token in step:
            request.append_output_token_ids(token)
        if not manager.accept_tokens(request, list(step)):
            refused.extend(step)
            break
    return refused, constrained


class VllmDriver:
    """The matrix's driver for vLLM (see :mod:`tests.served.run`)."""

    engine = "vllm"
    apis = ("chat", "responses", "messages")

    def __init__(self) -> None:
        self.servers = VllmServers()

    def close(self) -> None:
        self.servers.close()

    def _server(self, cell: Cell) -> Server:
        return self.servers.server(cell.tokens, cell.parsers)

    def dialect(self, cell: Cell) -> str:
        from longcat_plugins.vllm.tokenizer_facts import tokenizer_facts

        return tokenizer_facts(self._server(cell).tokenizer).dialect

    def texts_for(self, cell: Cell) -> list[Text]:
        if cell.constrained:
            return constrained_texts(self.dialect(cell), cell.tool_choice, cell.parallel, cell.reasoning_parser)
        return list(all_texts())

    def serve(self, cell: Cell, output: str, body: dict[str, Any]) -> tuple[int, Any]:
        return self.servers.serve(cell, output, body)

    def token_ids(self, cell: Cell, output: str) -> list[int]:
        return output_token_ids(self._server(cell), output)

    def decode(self, cell: Cell, token_ids: Sequence[int]) -> str:
        """The text vLLM's detokenizer makes of ``token_ids``: special tokens are kept when our parsers ask for them
        (see :func:`tests.served.oracle.keeps_special_tokens`)."""
        keep = keeps_special_tokens(self.engine, cell)
        tokenizer = self._server(cell).tokenizer
        ids = list(token_ids)
        text = str(tokenizer.decode(ids, skip_special_tokens=not keep))
        # The detokenizer holds back a token whose bytes end inside a character, whole (what it holds with it is
        # not shown either), and never shows it if the output ends there: the text stops at the last token whose
        # text ends whole.
        while ids and text.endswith("\ufffd"):
            ids.pop()
            text = str(tokenizer.decode(ids, skip_special_tokens=not keep))
        return text

    def grammar_refusals(self, cell: Cell, output: str) -> list[int] | None:
        return grammar_refusals(self._server(cell), output, cell.group)

    def schema_refused(self, cell: Cell, output: str) -> bool | None:
        """Whether the gate refuses a token of ``output`` (None: the grammar applies to none of its tokens, as when
        a call tag split into several tokens ends the reasoning the prompt opened)."""
        checked = grammar_check(self._server(cell), output, cell.group)
        if checked is None or checked[1] == 0:
            return None
        return bool(checked[0])
