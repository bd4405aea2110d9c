"""The matrix on SGLang: each cell is served by SGLang's own ``OpenAIServingChat`` (Chat Completions),
``OpenAIServingResponses`` (Responses) or ``AnthropicServing`` (Messages) as a server builds it (real ``ServerArgs``
with the cell's ``--tool-call-parser`` / ``--reasoning-parser``, ``TemplateManager``, chat template, tokenizer, our
plugin loaded); the tokenizer manager (the bridge to the scheduler and the detokenizer) is a stand-in that generates the
text's tokens, ``group`` per step, and detokenizes them as SGLang's detokenizer does for the request:
``skip_special_tokens`` as the request's sampling parameters say, ``max_new_tokens`` and stop strings (the matched
string trimmed) ending the output with SGLang's finish reasons.
"""

from __future__ import annotations

import asyncio
import json
import logging
import tempfile
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from sglang_support import ModelConfig, TokenizerManagerStandIn

from tests.served.cells import Cell
from tests.served.fold import sse_events
from tests.served.oracle import keeps_special_tokens
from tests.served.requests import API_PATHS
from tests.served.texts import Text, all_texts, constrained_texts
from tests.served.tokenizer import served_tokenizer


class GeneratingTokenizerManager(TokenizerManagerStandIn):
    """Stands in for SGLang's TokenizerManager: generates a set output for each request (see the module docstring)."""

    def __init__(self, server_args: Any, tokenizer: Any) -> None:
        super().__init__(server_args, tokenizer, ModelConfig("qwen3", "Qwen3ForCausalLM", 65536), "m")
        self.output = ""
        self.group = 1

    def generate_request(self, obj: Any, request: Any = None) -> AsyncIterator[dict[str, Any]]:
        self.requests.append(obj)
        steps = self._steps(obj)
        if not obj.stream:
            steps = steps[-1:]

        async def replay() -> AsyncIterator[dict[str, Any]]:
            for step in steps:
                yield step

        return replay()

    def _steps(self, obj: Any) -> list[dict[str, Any]]:
        params = obj.sampling_params or {}
        skip = params.get("skip_special_tokens", True)
        stops = params.get("stop") or []
        stops = [stops] if isinstance(stops, str) else list(stops)
        limit = params.get("max_new_tokens")
        ids = list(self.tokenizer.encode(self.output, add_special_tokens=False))
        if not ids or ids[-1] != self.tokenizer.eos_token_id:  # (an output may end with it, as a model ends)
            ids.append(self.tokenizer.eos_token_id)
        finish: dict[str, Any] = {"type": "stop", "matched": self.tokenizer.eos_token_id}
        if limit is not None and limit < len(ids):
            ids, finish = ids[:limit], {"type": "length", "length": limit}
        else:
            ids = ids[:-1]  # the end-of-sequence token is not part of the text
        steps: list[dict[str, Any]] = []
        text, decoded_to, decoded_before = "", 0, 0
        for end in range(self.group, len(ids) + self.group, self.group):
            end = min(end, len(ids))
            new = text + self._decode_more(ids, decoded_before, decoded_to, end, skip)
            last = end >= len(ids)
            hit = next(((s, new.find(s)) for s in stops if s in new), None)
            if hit is not None:
                new, last, finish = new[: hit[1]], True, {"type": "stop", "matched": hit[0]}
            if "\ufffd" in new[len(text) :] and not last:
                continue  # (a character whose bytes are not all there yet)
            # (at the end the detokenizer shows the text whole, a character cut short by max_tokens as U+FFFD:
            # DetokenizerManager._decode_batch_token_id_output, "Finished: materialize once")
            text, decoded_before, decoded_to = new, decoded_to, end
            steps.append(self._step(text, len(steps) + 1, finish if last else None))
            if last:
                break
        if not steps:
            steps.append(self._step("", 0, finish))
        return steps

    def _decode_more(self, ids: list[int], context: int, start: int, end: int, skip: bool) -> str:
        """The text ``ids[start:end]`` add to the text of ``ids[:start]``, decoded with the tokens from ``context``
        (where the step before began: a character boundary, as SGLang's detokenizer keeps its surrounding offset),
        so that a character split across tokens comes out whole, in time proportional to the last steps. (A few
        tokens before ``start`` may begin inside a character, and a skipped special token may follow its last
        bytes: they decode as U+FFFD only, which is not text of the answer.)"""
        before = self.tokenizer.decode(ids[context:start], skip_special_tokens=skip) if start > context else ""
        both = self.tokenizer.decode(ids[context:end], skip_special_tokens=skip)
        return str(both[len(before) :]) if both.startswith(before) else str(both)

    @staticmethod
    def _step(text: str, tokens: int, finish: dict[str, Any] | None) -> dict[str, Any]:
        return {
            "text": text,
            "index": 0,
            "meta_info": {
                "id": "chatcmpl-served",
                "prompt_tokens": 8,
                "completion_tokens": tokens,
                "cached_tokens": 0,
                "weight_version": "default",
                "finish_reason": finish,
            },
        }

    def create_abort_task(self, obj: Any) -> None:
        return None


def parser_names(parsers: str) -> tuple[str | None, str | None]:
    """The tool and reasoning parsers of a matrix cell's ``parsers`` (``both``, ``tool``, ``reasoning``: ours) or of
    a mix, ``TOOL+REASONING`` (the parsers' names, either one empty for none)."""
    if "+" in parsers:
        tool, _, reasoning = parsers.partition("+")
        return tool or None, reasoning or None
    return (
        "longcat" if parsers in ("both", "tool") else None,
        "longcat" if parsers in ("both", "reasoning") else None,
    )


class SglangDriver:
    """The matrix's driver for SGLang's Chat Completions, Responses and Messages (see :mod:`tests.served.run`)."""

    engine = "sglang"
    apis = ("chat", "responses", "messages")

    def __init__(self) -> None:
        import importlib.util
        import os
        import sys

        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        if importlib.util.find_spec("torchvision") is None:  # (as the suite's conftest)
            sys.path.insert(0, str(Path(__file__).parent / "_standins"))
        from sglang.srt.plugins import load_plugins

        load_plugins()
        self._tmp = tempfile.TemporaryDirectory(prefix="longcat-served-sglang-")
        self._warnings: list[str] = []
        self._recorder = _Recorder(self._warnings)
        logging.getLogger("sglang").addHandler(self._recorder)
        self._tokenizers: dict[str, Any] = {}
        self._managers: dict[tuple[str, str], tuple[GeneratingTokenizerManager, Any]] = {}
        self._servings: dict[tuple[str, str, str], tuple[Any, GeneratingTokenizerManager]] = {}

    def close(self) -> None:
        logging.getLogger("sglang").removeHandler(self._recorder)
        self._tmp.cleanup()

    def tokenizer(self, tokens: str) -> Any:
        if tokens not in self._tokenizers:
            self._tokenizers[tokens] = served_tokenizer(tokens)
        return self._tokenizers[tokens]

    def _manager(self, cell: Cell) -> tuple[GeneratingTokenizerManager, Any]:
        """The tokenizer manager and template manager of a server run with the cell's parsers and tokenization."""
        key = (cell.tokens, cell.parsers)
        if key not in self._managers:
            from sglang.srt.parser.template_manager import TemplateManager
            from sglang.srt.runtime_context import publish
            from sglang.srt.server_args import ServerArgs
            from transformers import Qwen3Config

            root = Path(self._tmp.name) / f"{cell.tokens}-{cell.parsers}"
            config = Qwen3Config(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2)
            config.architectures = ["Qwen3ForCausalLM"]
            config.save_pretrained(root)
            self.tokenizer(cell.tokens).save_pretrained(root)
            tool, reasoning = parser_names(cell.parsers)
            args = ServerArgs(model_path=str(root), device="cpu", tool_call_parser=tool, reasoning_parser=reasoning)
            publish(args, role="test")
            manager = GeneratingTokenizerManager(args, self.tokenizer(cell.tokens))
            templates = TemplateManager()
            templates.initialize_templates(manager, manager.model_path)
            self._managers[key] = (manager, templates)
        return self._managers[key]

    def _serving(self, cell: Cell) -> tuple[Any, GeneratingTokenizerManager]:
        key = (cell.api, cell.tokens, cell.parsers)
        if key not in self._servings:
            from sglang.srt.entrypoints.anthropic.serving import AnthropicServing
            from sglang.srt.entrypoints.openai.serving_chat import OpenAIServingChat
            from sglang.srt.entrypoints.openai.serving_responses import OpenAIServingResponses

            manager, templates = self._manager(cell)
            serving: Any  # (each as SGLang's HTTP server builds it)
            if cell.api == "responses":
                serving = OpenAIServingResponses(manager, templates, enable_prompt_tokens_details=True)
            elif cell.api == "messages":
                serving = AnthropicServing(OpenAIServingChat(manager, templates))
            else:
                serving = OpenAIServingChat(manager, templates)
            self._servings[key] = (serving, manager)
        return self._servings[key]

    def dialect(self, cell: Cell) -> str:
        """SGLang's detector has no tokenizer: the dialect is ``LONGCAT_TOOL_DIALECT``'s, else LongCat JSON."""
        from longcat_plugins.sglang.dialect import dialect_from_env

        return dialect_from_env().name

    def texts_for(self, cell: Cell) -> list[Text]:
        if cell.stream and cell.finish == "stop":
            # SGLang's detokenizer, not modelled here, decides how much of a stop string a stream shows before the
            # string is complete; the whole-answer cells cover stop strings
            return []
        if cell.api == "responses" and not cell.tool_parser and cell.tool_choice in ("required", "named"):
            # Without a tool-call parser SGLang constrains such a request to a JSON array of calls (a json_schema
            # grammar), and its Responses serving reads that array itself: no text of ours can be generated there
            return []
        if cell.constrained:
            return constrained_texts(self.dialect(cell), cell.tool_choice, cell.parallel, cell.reasoning_parser)
        return list(all_texts())

    def serve(self, cell: Cell, output: str, body: dict[str, Any]) -> tuple[int, Any]:
        from sglang.srt.entrypoints.anthropic.protocol import AnthropicMessagesRequest
        from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest, ResponsesRequest
        from starlette.requests import Request

        serving, manager = self._serving(cell)
        manager.output, manager.group = output, cell.group
        if cell.api == "messages":
            body = _with_anthropic_thinking(body, cell)
        # each API's request model and the serving's handler, as SGLang's HTTP routes call them
        model, handler = {
            "chat": (ChatCompletionRequest, "handle_request"),
            "responses": (ResponsesRequest, "create_responses"),
            "messages": (AnthropicMessagesRequest, "handle_messages"),
        }[cell.api]
        try:
            request = model(**body)
        except Exception as e:
            return 400, str(e)
        http = Request({"type": "http", "method": "POST", "path": API_PATHS[cell.api], "headers": []})

        async def run() -> tuple[int, Any]:
            response = await getattr(serving, handler)(request, http)
            if hasattr(response, "__aiter__"):  # (a Responses stream: SGLang's route wraps it in a StreamingResponse)
                frames = response
            elif cell.stream and hasattr(response, "body_iterator"):
                frames = response.body_iterator
            else:
                status = getattr(response, "status_code", 200)
                payload = response.model_dump() if hasattr(response, "model_dump") else json.loads(response.body)
                return status, payload
            return 200, sse_events("".join([f if isinstance(f, str) else f.decode() async for f in frames]))

        self._warnings.clear()
        try:
            return asyncio.run(run())
        except Exception as e:
            return 500, f"the server failed: {e!r}"

    def engine_warnings(self) -> list[str]:
        return list(self._warnings)

    def max_tokens_to_ask(self, cell: Cell, tokens: int) -> int:
        """SGLang's Responses serving generates 2 tokens fewer than ``max_output_tokens`` ("headroom for BOS/EOS",
        ``ResponsesRequest.to_sampling_params``)."""
        return tokens + 2 if cell.api == "responses" else tokens

    def token_ids(self, cell: Cell, output: str) -> list[int]:
        return list(self.tokenizer(cell.tokens).encode(output, add_special_tokens=False))

    def decode(self, cell: Cell, token_ids: Sequence[int]) -> str:
        keep = keeps_special_tokens(self.engine, cell)
        text = self.tokenizer(cell.tokens).decode(list(token_ids), skip_special_tokens=not keep)
        return str(text)  # (a character cut short stays U+FFFD, as SGLang's detokenizer shows it at the end)

    def grammar_refusals(self, cell: Cell, output: str) -> list[int] | None:
        """Whether the request the server made carries a grammar (SGLang's grammar is checked by its own tests)."""
        obj = self._serving(cell)[1].requests[-1]
        params = obj.sampling_params or {}
        constrained = any(params.get(k) for k in ("structural_tag", "json_schema", "ebnf", "regex"))
        return [] if constrained else None


class _Recorder(logging.Handler):
    """Keeps the warnings SGLang logs while a request is served."""

    def __init__(self, into: list[str]) -> None:
        super().__init__(logging.WARNING)
        self.into = into

    def emit(self, record: logging.LogRecord) -> None:
        self.into.append(record.getMessage())


def _with_anthropic_thinking(body: dict[str, Any], cell: Cell) -> dict[str, Any]:
    """SGLang's Messages API takes no ``chat_template_kwargs``: whether the prompt opens reasoning is said with
    Anthropic's ``thinking`` (which SGLang refuses on a server without a reasoning parser, and which does not matter
    there: nothing reads reasoning)."""
    body = dict(body)
    kwargs = body.pop("chat_template_kwargs", None) or {}
    if "enable_thinking" in kwargs and cell.reasoning_parser:
        enabled = kwargs["enable_thinking"]
        body["thinking"] = {"type": "enabled", "budget_tokens": 1024} if enabled else {"type": "disabled"}
    return body
