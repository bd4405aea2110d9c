"""The matrix on SGLang: each cell is served by SGLang's own ``OpenAIServingChat`` as a server builds it (real
``ServerArgs`` with the cell's ``--tool-call-parser`` / ``--reasoning-parser``, ``TemplateManager``, chat template,
tokenizer, our plugin loaded); the tokenizer manager (the bridge to the scheduler and the detokenizer) is a stand-in
that generates the text's tokens, ``group`` per step, and detokenizes them as SGLang's detokenizer does for the
request: ``skip_special_tokens`` as the request's sampling parameters say, ``max_new_tokens`` and stop strings (the
matched string trimmed) ending the output with SGLang's finish reasons.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from sglang_support import ModelConfig, TokenizerManagerStandIn

from tests.served.cells import Cell
from tests.served.oracle import keeps_special_tokens
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
        ids = [*self.tokenizer.encode(self.output, add_special_tokens=False), self.tokenizer.eos_token_id]
        finish: dict[str, Any] = {"type": "stop", "matched": self.tokenizer.eos_token_id}
        if limit is not None and limit < len(ids):
            ids, finish = ids[:limit], {"type": "length", "length": limit}
        else:
            ids = ids[:-1]  # the end-of-sequence token is not part of the text
        steps: list[dict[str, Any]] = []
        text, decoded_to = "", 0
        for end in range(self.group, len(ids) + self.group, self.group):
            end = min(end, len(ids))
            new = text + self._decode_more(ids, decoded_to, end, skip)
            last = end >= len(ids)
            hit = next(((s, new.find(s)) for s in stops if s in new), None)
            if hit is not None:
                new, last, finish = new[: hit[1]], True, {"type": "stop", "matched": hit[0]}
            if "\ufffd" in new[len(text) :] and not last:
                continue  # (a character whose bytes are not all there yet)
            text, decoded_to = (new.rstrip("\ufffd") if last else new), end
            steps.append(self._step(text, len(steps) + 1, finish if last else None))
            if last:
                break
        if not steps:
            steps.append(self._step("", 0, finish))
        return steps

    def _decode_more(self, ids: list[int], start: int, end: int, skip: bool) -> str:
        """The text ``ids[start:end]`` add to the text of ``ids[:start]`` (decoded with a few tokens before them,
        so that a character split across tokens comes out whole), in time proportional to the new tokens."""
        context = max(start - 4, 0)
        before = self.tokenizer.decode(ids[context:start], skip_special_tokens=skip) if start else ""
        both = self.tokenizer.decode(ids[context:end], skip_special_tokens=skip)
        return str(both[len(before.rstrip("\ufffd")) :]) if both.startswith(before.rstrip("\ufffd")) else str(both)

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


class SglangDriver:
    """The matrix's driver for SGLang's Chat Completions (see :mod:`tests.served.run`)."""

    engine = "sglang"
    apis = ("chat",)

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
        self._tokenizers: dict[str, Any] = {}
        self._servings: dict[tuple[str, str], tuple[Any, GeneratingTokenizerManager]] = {}

    def close(self) -> None:
        self._tmp.cleanup()

    def tokenizer(self, tokens: str) -> Any:
        if tokens not in self._tokenizers:
            self._tokenizers[tokens] = served_tokenizer(tokens)
        return self._tokenizers[tokens]

    def _serving(self, cell: Cell) -> tuple[Any, GeneratingTokenizerManager]:
        key = (cell.tokens, cell.parsers)
        if key not in self._servings:
            from sglang.srt.entrypoints.openai.serving_chat import OpenAIServingChat
            from sglang.srt.parser.template_manager import TemplateManager
            from sglang.srt.runtime_context import publish
            from sglang.srt.server_args import ServerArgs
            from transformers import Qwen3Config

            root = Path(self._tmp.name) / f"{cell.tokens}-{cell.parsers}"
            config = Qwen3Config(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2)
            config.architectures = ["Qwen3ForCausalLM"]
            config.save_pretrained(root)
            self.tokenizer(cell.tokens).save_pretrained(root)
            args = ServerArgs(
                model_path=str(root),
                device="cpu",
                tool_call_parser="longcat" if cell.tool_parser else None,
                reasoning_parser="longcat" if cell.reasoning_parser else None,
            )
            publish(args, role="test")
            manager = GeneratingTokenizerManager(args, self.tokenizer(cell.tokens))
            templates = TemplateManager()
            templates.initialize_templates(manager, manager.model_path)
            self._servings[key] = (OpenAIServingChat(manager, templates), manager)
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
        if cell.constrained:
            return constrained_texts(self.dialect(cell), cell.tool_choice, cell.parallel, cell.reasoning_parser)
        return list(all_texts())

    def serve(self, cell: Cell, output: str, body: dict[str, Any]) -> tuple[int, Any]:
        from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest
        from starlette.requests import Request

        serving, manager = self._serving(cell)
        manager.output, manager.group = output, cell.group
        try:
            request = ChatCompletionRequest(**body)
        except Exception as e:
            return 400, str(e)
        http = Request({"type": "http", "method": "POST", "path": "/v1/chat/completions", "headers": []})

        async def run() -> tuple[int, Any]:
            response = await serving.handle_request(request, http)
            if not cell.stream or not hasattr(response, "body_iterator"):
                status = getattr(response, "status_code", 200)
                payload = response.model_dump() if hasattr(response, "model_dump") else json.loads(response.body)
                return status, payload
            frames = [f if isinstance(f, str) else f.decode() async for f in response.body_iterator]
            events = []
            for frame in "".join(frames).split("\n\n"):
                if frame.startswith("data: ") and frame != "data: [DONE]":
                    events.append(json.loads(frame[len("data: ") :]))
            return 200, events

        try:
            return asyncio.run(run())
        except Exception as e:
            return 500, f"the server failed: {e!r}"

    def token_ids(self, cell: Cell, output: str) -> list[int]:
        return list(self.tokenizer(cell.tokens).encode(output, add_special_tokens=False))

    def decode(self, cell: Cell, token_ids: Sequence[int]) -> str:
        keep = keeps_special_tokens(self.engine, cell)
        text = self.tokenizer(cell.tokens).decode(list(token_ids), skip_special_tokens=not keep)
        return str(text).rstrip("\ufffd")

    def grammar_refusals(self, cell: Cell, output: str) -> list[int] | None:
        """Whether the request the server made carries a grammar (SGLang's grammar is checked by its own tests)."""
        obj = self._serving(cell)[1].requests[-1]
        params = obj.sampling_params or {}
        constrained = any(params.get(k) for k in ("structural_tag", "json_schema", "ebnf", "regex"))
        return [] if constrained else None
