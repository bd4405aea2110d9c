"""Shared material for the vLLM suite: a real (small) HF tokenizer, model outputs in every dialect, and drivers
that push a token stream through vLLM's own ``Parser`` the way the serving layer does."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from longcat_plugins.core import ParserOptions, parse
from longcat_plugins.replay.tokenizer import train_bpe_tokenizer
from tests.support.model_dir import save_qwen3_dir
from tests.support.reply import Reply
from tests.support.tools import function_tool

WEATHER = function_tool(
    "get_weather",
    {
        "city": {"type": "string"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        "days": {"type": "integer"},
    },
    ["city"],
    "Weather for a city",
)
WRITE_FILE = function_tool(
    "write_file",
    {
        "path": {"type": "string"},
        "content": {"type": "string"},
        "mode": {"type": "integer"},
        "overwrite": {"type": "boolean"},
    },
    ["path", "content"],
    "Write a file",
)
TOOLS = [WEATHER, WRITE_FILE]

#: Tags that are single (special) tokens in the test tokenizer; every other tag arrives split into pieces.
SINGLE_TOKEN_TAGS = [
    "<|im_start|>",
    "<|im_end|>",
    "</longcat_s>",
    "<longcat_tool_call>",
    "</longcat_tool_call>",
    "<think>",
    "</think>",
    "<longcat_arg_key>",
    "</longcat_arg_key>",
]
SPLIT_TAGS = ["<tool_call>", "</tool_call>", "<longcat_think>", "</longcat_think>", "<longcat_arg_value>", "<function="]

PROMPT = "<|im_start|>user\nWhat is the weather?<|im_end|>\n<|im_start|>assistant\n"


@dataclass(frozen=True)
class Case:
    name: str
    output: str
    reasoning_open: bool = False  # the prompt ends inside reasoning (template pre-filled the opening tag)
    think_tag: str = "<think>"

    @property
    def prompt(self) -> str:
        return PROMPT + (self.think_tag + "\n" if self.reasoning_open else "")

    @property
    def template_kwargs(self) -> dict[str, bool]:
        """The request's ``enable_thinking``: what the case says of where its output starts."""
        return {"enable_thinking": self.reasoning_open}


CASES = [
    Case(
        "json_two_calls_text_between",
        "I will check both.\n<longcat_tool_call>\n"
        '{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}\n'
        "</longcat_tool_call>\nAnd then the other one:\n<longcat_tool_call>\n"
        '{"arguments": {"city": "Tokyo", "days": 3}, "name": "get_weather"}\n</longcat_tool_call>',
    ),
    Case(
        "hermes_json",
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n<tool_call>\n'
        '{"name": "write_file", "arguments": {"path": "a.txt", "content": "x\\ny \\"q\\"", "mode": 420}}\n</tool_call>',
    ),
    Case(
        "xml_function",
        "Writing it now.\n<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/app.py\n</parameter>\n"
        '<parameter=content>\nprint("hi")\nx = {"a": 1}\n</parameter>\n<parameter=mode>\n420\n</parameter>\n'
        "<parameter=overwrite>\ntrue\n</parameter>\n</function>\n</tool_call>\n"
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
    ),
    Case(
        "xml_in_longcat_wrapper",
        "<longcat_tool_call>\n<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n</function>\n"
        "</longcat_tool_call>",
    ),
    Case("bare_function", "Sure.\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>"),
    Case(
        "longcat_kv",
        "<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n"
        "<longcat_arg_value>Paris</longcat_arg_value>\n<longcat_arg_key>days</longcat_arg_key>\n"
        "<longcat_arg_value>3</longcat_arg_value>\n</longcat_tool_call>\n<longcat_tool_call>write_file\n"
        "<longcat_arg_key>path</longcat_arg_key>\n<longcat_arg_value>b.md</longcat_arg_value>\n"
        "<longcat_arg_key>content</longcat_arg_key>\n<longcat_arg_value># Title\nbody</longcat_arg_value>\n"
        "</longcat_tool_call>",
    ),
    Case(
        "reasoning_then_tools",
        "<think>The user wants the weather, so I call the tool.</think>\n\n<longcat_tool_call>\n"
        '{"name": "get_weather", "arguments": {"city": "Paris"}}\n</longcat_tool_call>',
    ),
    Case(
        "prefilled_reasoning_then_xml",
        "I need the weather for Paris.\n</think>\n\nChecking.\n<tool_call>\n<function=get_weather>\n"
        "<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
        reasoning_open=True,
    ),
    Case(
        "prefilled_longcat_think_ended_by_call",
        'plan: call the tool<longcat_tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
        "</longcat_tool_call></longcat_s>",
        reasoning_open=True,
        think_tag="<longcat_think>",
    ),
    Case(
        "longcat_think_then_text",
        "<longcat_think>short thought</longcat_think>The answer is 42 < 43.</longcat_s>",
    ),
    Case(
        "truncated_json_string",
        '<longcat_tool_call>\n{"name": "write_file", "arguments": {"path": "notes.md", "content": "line one\\nline tw',
    ),
    Case(
        "truncated_xml_value",
        "<tool_call>\n<function=write_file>\n<parameter=path>\nx.py\n</parameter>\n<parameter=content>\n"
        "def f():\n    return 1",
    ),
    Case("plain_text", "Just text with a < sign, <b>html</b> and a <tool_call mention."),
]

GROUPS = [1, 2, 5, 64]


def _corpus() -> list[str]:
    lines = [c.output for c in CASES] + [c.prompt for c in CASES]
    lines += [json.dumps(t) for t in TOOLS]
    return lines * 4


def build_tokenizer(
    special_tags: Sequence[str] = SINGLE_TOKEN_TAGS, chat_template: str | None = None, vocab_size: int = 600
) -> Any:
    """A byte-level BPE trained in a second; ``special_tags`` become single special tokens."""
    return train_bpe_tokenizer(
        _corpus(),
        ["<s>", "</s>", *special_tags],
        vocab_size=vocab_size,
        eos_token="</s>",
        additional_special_tokens=special_tags,
        chat_template=chat_template,
    )


def save_model_dir(root: Path, tokenizer: Any, model_type: str = "qwen3") -> Path:
    """A model directory with no weights, enough for vLLM's ``ModelConfig`` and renderer."""
    return save_qwen3_dir(root, tokenizer, model_type)


def chunks(tokenizer: Any, token_ids: Sequence[int], group: int) -> list[tuple[str, list[int]]]:
    """Text deltas for ``token_ids`` decoded ``group`` tokens at a time (as with ``--stream-interval``).

    Like vLLM's detokenizer, a delta that would end inside a multi-byte character waits for the next tokens.
    """
    out: list[tuple[str, list[int]]] = []
    emitted = ""
    pending: list[int] = []
    n = len(token_ids)
    for start in range(0, n, group):
        pending += list(token_ids[start : start + group])
        end = min(start + group, n)
        text = tokenizer.decode(list(token_ids[:end]), skip_special_tokens=False)
        if text.endswith("\ufffd") and end < n:
            continue
        assert text.startswith(emitted)
        out.append((text[len(emitted) :], pending))
        emitted, pending = text, []
    return out


@dataclass
class Result(Reply):
    """A reply from vLLM's serving layer or parser."""

    def normalized(self) -> tuple[str, str, list[tuple[str, str]]]:
        # vLLM reports whitespace-only content next to tool calls as no content
        content = self.content if self.content.strip() else ""
        return content, self.reasoning, self.calls


def stream_result(deltas: Iterable[Any]) -> Result:
    """Fold ``DeltaMessage``s into a message, checking the stream's shape on the way."""
    result = Result()
    args: dict[int, list[str]] = {}
    names: dict[int, str] = {}
    for delta in deltas:
        if delta is None:
            continue
        result.content += delta.content or ""
        result.reasoning += delta.reasoning or ""
        for call in delta.tool_calls or []:
            if call.index not in names:
                assert call.index == len(names), "calls are numbered 0, 1, 2 ... in order"
                assert call.id and call.function is not None and call.function.name, "first fragment: id + name"
                assert call.type == "function"
                names[call.index] = call.function.name
                result.ids.append(call.id)
                args[call.index] = []
            else:
                assert call.id is None, "only the first fragment of a call carries its id"
                assert call.function is None or not call.function.name, "only the first fragment has a name"
            if call.function is not None and call.function.arguments:
                args[call.index].append(call.function.arguments)
    result.calls = [(names[i], "".join(args[i])) for i in range(len(names))]
    return result


def core_result(case: Case, tools: Any = TOOLS, reasoning: bool = True) -> Result:
    options = ParserOptions(reasoning=reasoning, tools=True, reasoning_open=case.reasoning_open)
    message = parse(case.output, tools, options)
    return Result(
        content=message.content,
        reasoning=message.reasoning,
        calls=[(c.name, c.arguments) for c in message.tool_calls],
    )


def chat_request(tools: Any = TOOLS, **kwargs: Any) -> Any:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    return ChatCompletionRequest(
        model="longcat-test", messages=[{"role": "user", "content": "What is the weather?"}], tools=tools, **kwargs
    )


def assert_valid_arguments(result: Result) -> None:
    for name, arguments in result.calls:
        value = json.loads(arguments)
        assert isinstance(value, dict), (name, arguments)


# -- vLLM's serving layer with a scripted engine --------------------------------------------------------------


def use_cpu_platform() -> None:
    """vLLM's config classes need a platform; this machine has no GPU."""
    from longcat_plugins.replay.platform import use_cpu_platform as use

    use()


@dataclass
class EngineCall:
    """What the serving layer handed the engine for one request."""

    prompt_token_ids: list[int]
    sampling_params: Any
    kwargs: dict[str, Any]


class RecordingEngine:
    """An ``EngineClient`` stand-in: records each call and "generates" ``output``, ``group`` tokens per step (one
    final output for non-streaming requests), as vLLM's engine does."""

    errored = False
    dead_error = RuntimeError("engine dead")

    def __init__(self, model_config: Any, vllm_config: Any, renderer: Any) -> None:
        self.model_config = model_config
        self.vllm_config = vllm_config
        self.renderer = renderer
        self.input_processor = None
        self.output = ""
        self.group = 1
        self.finish_reason = "stop"
        self.calls: list[EngineCall] = []

    def check_admission(self, n: int) -> None:
        return None

    async def generate(self, engine_input: Any, sampling_params: Any, request_id: str, **kwargs: Any) -> Any:
        from vllm.outputs import CompletionOutput, RequestOutput
        from vllm.sampling_params import RequestOutputKind

        prompt_ids = list(engine_input["prompt_token_ids"])
        self.calls.append(EngineCall(prompt_ids, sampling_params, kwargs))
        tokenizer = self.renderer.tokenizer
        token_ids = tokenizer.encode(self.output, add_special_tokens=False)
        if sampling_params.output_kind == RequestOutputKind.DELTA:
            pieces = chunks(tokenizer, token_ids, self.group)
        else:
            pieces = [(tokenizer.decode(token_ids, skip_special_tokens=False), token_ids)]
        for i, (text, ids) in enumerate(pieces):
            last = i == len(pieces) - 1
            output = CompletionOutput(
                index=0,
                text=text,
                token_ids=ids,
                cumulative_logprob=None,
                logprobs=None,
                finish_reason=self.finish_reason if last else None,
            )
            yield RequestOutput(
                request_id=request_id,
                prompt=None,
                prompt_token_ids=prompt_ids,
                prompt_logprobs=None,
                outputs=[output],
                finished=last,
            )


@dataclass
class Serving:
    chat: Any  # OpenAIServingChat
    engine: RecordingEngine
    vllm_config: Any
    tokenizer: Any
    responses: Any = None  # OpenAIServingResponses


def make_serving(
    root: Path, *, tool_parser: str | None = "longcat", reasoning_parser: str | None = "longcat"
) -> Serving:
    """``OpenAIServingChat`` and ``OpenAIServingResponses`` for the model directory ``root``, as ``vllm serve
    --enable-auto-tool-choice --tool-call-parser longcat --reasoning-parser longcat`` builds them (the engine is a
    :class:`RecordingEngine`)."""
    use_cpu_platform()
    from vllm.config import ModelConfig, StructuredOutputsConfig, VllmConfig
    from vllm.entrypoints.openai.chat_completion.serving import OpenAIServingChat
    from vllm.entrypoints.openai.models.serving import BaseModelPath, OpenAIServingModels
    from vllm.entrypoints.openai.responses.serving import OpenAIServingResponses
    from vllm.renderers.online_renderer import OnlineRenderer
    from vllm.renderers.registry import renderer_from_config

    model_config = ModelConfig(model=str(root), tokenizer=str(root))
    outputs_config = StructuredOutputsConfig(reasoning_parser=reasoning_parser or "")
    vllm_config = VllmConfig(model_config=model_config, structured_outputs_config=outputs_config)
    renderer = renderer_from_config(vllm_config)
    engine = RecordingEngine(model_config, vllm_config, renderer)
    models = OpenAIServingModels(engine_client=engine, base_model_paths=[BaseModelPath(name="m", model_path=str(root))])
    parsers: dict[str, Any] = {
        "enable_auto_tools": tool_parser is not None,
        "tool_parser": tool_parser,
        "reasoning_parser": reasoning_parser,
    }
    common: dict[str, Any] = {"request_logger": None, "chat_template": None, "chat_template_content_format": "auto"}
    online = OnlineRenderer(model_config, renderer, **common, **parsers)
    chat = OpenAIServingChat(engine, models, "assistant", online_renderer=online, **common, **parsers)
    responses = OpenAIServingResponses(engine, models, online, **common, **parsers)
    return Serving(chat, engine, vllm_config, renderer.tokenizer, responses)


def chat_completion(chat: Any, request: Any) -> Any:
    """Run ``create_chat_completion``: the response, or for a streaming request the SSE chunks (parsed JSON)."""
    import asyncio

    async def run() -> Any:
        result = await chat.create_chat_completion(request)
        if not request.stream:
            return result
        return [frame async for frame in result]

    result = asyncio.run(run())
    if not request.stream:
        return result
    assert result[-1] == "data: [DONE]\n\n"
    out = []
    for frame in result[:-1]:
        assert frame.startswith("data: ") and frame.endswith("\n\n")
        out.append(json.loads(frame[len("data: ") :]))
    return out


def create_response(serving: Serving, request: Any) -> Any:
    """Run ``create_responses`` for a non-streaming Responses request: the response."""
    import asyncio

    return asyncio.run(serving.responses.create_responses(request))


def fold_chunks(chunks_: list[dict[str, Any]]) -> Result:
    """Fold streamed chat-completion chunks into a message, checking the stream's shape on the way."""
    result = Result()
    calls: dict[int, list[str]] = {}
    names: dict[int, str] = {}
    for chunk in chunks_:
        assert "error" not in chunk, chunk
        for choice in chunk["choices"]:
            delta = choice["delta"]
            result.content += delta.get("content") or ""
            result.reasoning += delta.get("reasoning") or ""
            for call in delta.get("tool_calls") or []:
                index, function = call["index"], call.get("function") or {}
                if index not in names:
                    assert index == len(names) and call["id"] and function["name"]
                    names[index], calls[index] = function["name"], []
                    result.ids.append(call["id"])
                else:
                    assert "id" not in call and not function.get("name")
                calls[index].append(function.get("arguments") or "")
    result.calls = [(names[i], "".join(calls[i])) for i in range(len(names))]
    return result


def message_result(response: Any) -> Result:
    """A non-streaming chat-completion response as a :class:`Result`."""
    message = response.choices[0].message
    calls = message.tool_calls or []
    return Result(
        content=message.content or "",
        reasoning=message.reasoning or "",
        calls=[(c.function.name, c.function.arguments) for c in calls],
        ids=[c.id for c in calls],
    )


def template_serving(root: Path, tags: Sequence[str], template: str, **parsers: str | None) -> Serving:
    """:func:`make_serving` for a model directory at ``root`` whose tokenizer has ``tags`` as single tokens and the
    chat template of the shipped template named ``template``."""
    from longcat_plugins.templates import template_path

    text = Path(template_path(template)).read_text(encoding="utf-8")
    save_model_dir(root, build_tokenizer(list(tags), chat_template=text))
    return make_serving(root, **parsers)


def answer(serving: Serving, request: Any) -> Result:
    """What a client gets for ``request``: the response, or the streamed chunks folded."""
    result = chat_completion(serving.chat, request)
    return fold_chunks(result) if request.stream else message_result(result)
