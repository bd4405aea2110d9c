"""Through SGLang's ``OpenAIServingChat`` as a server runs it, with ``--tool-call-parser longcat
--reasoning-parser longcat``: real ``ServerArgs``, ``TemplateManager``, chat template and tokenizer; only the
tokenizer manager (the bridge to the scheduler and the model) is a stand-in that replays a scripted generation.
The SSE chunks a client receives are checked.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest
from sglang.srt.entrypoints.openai.serving_chat import OpenAIServingChat
from sglang.srt.parser.template_manager import TemplateManager
from sglang.srt.runtime_context import publish
from sglang.srt.server_args import ServerArgs
from sglang_cases import TOOLS
from sglang_support import ModelConfig, TokenizerManagerStandIn
from starlette.requests import Request
from transformers import LlamaConfig, PreTrainedTokenizerFast

from longcat_plugins.replay.tokenizer import train_bpe_tokenizer

pytestmark = pytest.mark.sglang

SPECIAL_TOKENS = [
    "<|im_start|>",
    "<|im_end|>",
    "<longcat_tool_call>",
    "</longcat_tool_call>",
    "<think>",
    "</think>",
]
CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
#: Qwen3-thinking style: the generation prompt opens reasoning (SGLang's template detection recognises the pattern)
OPENING_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n<think>\\n' }}{% endif %}"
)
CALL_JSON = (
    '<longcat_tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}\n</longcat_tool_call>'
)
CALL_XML = (
    "<tool_call>\n<function=write_file>\n<parameter=path>\na.py\n</parameter>\n<parameter=content>\n"
    'print("hi")\n</parameter>\n</function>\n</tool_call>'
)


def build_tokenizer(chat_template: str = CHAT_TEMPLATE) -> PreTrainedTokenizerFast:
    """A small byte-level BPE with the dialect tags as special tokens (no model files can be downloaded)."""
    corpus = ["What is the weather in Paris?", CALL_JSON, CALL_XML]
    return train_bpe_tokenizer(
        corpus, SPECIAL_TOKENS, vocab_size=500, eos_token="<|im_end|>", chat_template=chat_template
    )


class ScriptedTokenizerManager(TokenizerManagerStandIn):
    """Stands in for SGLang's TokenizerManager: replays fixed generation steps instead of running a model."""

    def __init__(self, server_args: ServerArgs, tokenizer: PreTrainedTokenizerFast) -> None:
        model_config = ModelConfig("longcat_flash", "LongcatFlashForCausalLM", 4096)
        super().__init__(server_args, tokenizer, model_config, "longcat-test")
        self.steps: list[dict[str, Any]] = []
        self.token_steps: list[list[int]] | None = None

    def script(self, pieces: list[str], finish: str = "stop") -> None:
        """Generation steps as SGLang's default (non-incremental) streaming reports them: the text so far."""
        self.token_steps = None
        self.steps = self._steps(pieces, finish)

    def script_tokens(self, text: str, tokens_per_step: int) -> None:
        """Generate the tokens of ``text``, ``tokens_per_step`` at a time, detokenized per request as SGLang's
        detokenizer does it: special tokens are dropped unless the request's sampling params keep them."""
        ids = self.tokenizer.encode(text, add_special_tokens=False)
        self.token_steps = [ids[i : i + tokens_per_step] for i in range(0, len(ids), tokens_per_step)]

    def _steps(self, pieces: list[str], finish: str) -> list[dict[str, Any]]:
        steps, text = [], ""
        for i, piece in enumerate(pieces):
            text += piece
            last = i == len(pieces) - 1
            steps.append(
                {
                    "text": text,
                    "index": 0,
                    "meta_info": {
                        "id": "chatcmpl-test",
                        "prompt_tokens": 8,
                        "completion_tokens": i + 1,
                        "cached_tokens": 0,
                        "weight_version": "default",
                        "finish_reason": {"type": finish, "matched": None} if last else None,
                    },
                }
            )
        return steps

    def _detokenized_steps(self, obj: Any) -> list[dict[str, Any]]:
        assert self.token_steps is not None
        skip = obj.sampling_params.get("skip_special_tokens", True)
        ids: list[int] = []
        pieces, text = [], ""
        for step in self.token_steps:
            ids += step
            new_text = self.tokenizer.decode(ids, skip_special_tokens=skip)
            assert new_text.startswith(text), "the scripted text must decode incrementally (ASCII)"
            pieces.append(new_text[len(text) :])
            text = new_text
        return self._steps(pieces, "stop")

    def generate_request(self, obj: Any, request: Any = None) -> AsyncIterator[dict[str, Any]]:
        self.requests.append(obj)
        steps = list(self.steps) if self.token_steps is None else self._detokenized_steps(obj)
        if not obj.stream:  # a non-streaming generation reports once, at the end
            steps = steps[-1:]

        async def replay() -> AsyncIterator[dict[str, Any]]:
            for step in steps:
                yield step

        return replay()

    def create_abort_task(self, obj: Any) -> None:
        return None


def _model_dir(root: Path, tokenizer: PreTrainedTokenizerFast) -> Path:
    """A tiny local model directory (config + tokenizer): SGLang resolves its arguments against the model config."""
    config = LlamaConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2)
    config.architectures = ["LlamaForCausalLM"]
    config.save_pretrained(root)
    tokenizer.save_pretrained(root)
    return root


def _serving_chat(manager: ScriptedTokenizerManager) -> OpenAIServingChat:
    templates = TemplateManager()
    templates.initialize_templates(manager, manager.model_path)  # as the server does at start-up
    return OpenAIServingChat(manager, templates)


@pytest.fixture(scope="module")
def server_args(tmp_path_factory: pytest.TempPathFactory) -> ServerArgs:
    model_dir = _model_dir(tmp_path_factory.mktemp("model"), build_tokenizer())
    args = ServerArgs(model_path=str(model_dir), device="cpu", tool_call_parser="longcat", reasoning_parser="longcat")
    publish(args, role="test")
    return args


@pytest.fixture(scope="module")
def serving(server_args: ServerArgs) -> tuple[OpenAIServingChat, ScriptedTokenizerManager]:
    manager = ScriptedTokenizerManager(server_args, build_tokenizer())
    return _serving_chat(manager), manager


def http_request() -> Request:
    return Request(
        {"type": "http", "method": "POST", "path": "/v1/chat/completions", "headers": [], "query_string": b""}
    )


QUESTION = [{"role": "user", "content": "What is the weather in Paris?"}]


def chat(
    serving_chat: OpenAIServingChat,
    stream: bool,
    messages: list[dict[str, Any]] = QUESTION,
    tools: list[dict[str, Any]] | None = TOOLS,
    **extra: Any,
) -> Any:
    request = ChatCompletionRequest(model="longcat-test", messages=messages, tools=tools, stream=stream, **extra)

    async def run() -> Any:
        response = await serving_chat.handle_request(request, http_request())
        if not stream:
            return response
        frames = []
        async for frame in response.body_iterator:
            frames.append(frame if isinstance(frame, str) else frame.decode())
        return frames

    return asyncio.run(run())


def fold_sse(frames: list[str]) -> dict[str, Any]:
    """What an OpenAI client assembles from the SSE frames."""
    assert frames[-1] == "data: [DONE]\n\n"
    out: dict[str, Any] = {"content": "", "reasoning": "", "calls": [], "finish_reason": None}
    for frame in frames[:-1]:
        assert frame.startswith("data: ") and frame.endswith("\n\n"), frame
        chunk = json.loads(frame[len("data: ") :])
        for choice in chunk["choices"]:
            delta = choice["delta"]
            out["content"] += delta.get("content") or ""
            out["reasoning"] += delta.get("reasoning_content") or ""
            for call in delta.get("tool_calls") or []:
                if call["index"] == len(out["calls"]):
                    assert call["id"] and call["function"]["name"], call
                    out["calls"].append({"id": call["id"], "name": call["function"]["name"], "arguments": ""})
                else:
                    assert call["index"] == len(out["calls"]) - 1, call
                    assert call["id"] is None and call["function"]["name"] is None, call
                out["calls"][call["index"]]["arguments"] += call["function"]["arguments"] or ""
            if choice.get("finish_reason"):
                out["finish_reason"] = choice["finish_reason"]
    return out


def pieces_of(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


@pytest.mark.parametrize("size", [1, 5, 64])
def test_stream_reasoning_content_and_call(serving, size: int) -> None:
    serving_chat, manager = serving
    text = "<think>The user wants the weather.</think>Let me check.\n" + CALL_JSON
    manager.script(pieces_of(text, size))
    result = fold_sse(chat(serving_chat, stream=True))
    assert result["reasoning"] == "The user wants the weather."
    assert result["content"] == "Let me check.\n"
    assert [(c["name"], json.loads(c["arguments"])) for c in result["calls"]] == [
        ("get_weather", {"city": "Paris", "days": 3})
    ]
    assert result["finish_reason"] == "tool_calls"


def test_stream_two_calls_in_one_step(serving) -> None:
    serving_chat, manager = serving
    manager.script(["Two calls: " + CALL_JSON + CALL_XML])
    result = fold_sse(chat(serving_chat, stream=True))
    assert result["content"] == "Two calls: "
    assert [(c["name"], json.loads(c["arguments"])) for c in result["calls"]] == [
        ("get_weather", {"city": "Paris", "days": 3}),
        ("write_file", {"path": "a.py", "content": 'print("hi")'}),
    ]
    assert len({c["id"] for c in result["calls"]}) == 2
    assert result["finish_reason"] == "tool_calls"


def test_stream_truncated_call_still_has_valid_arguments(serving) -> None:
    serving_chat, manager = serving
    manager.script(pieces_of(CALL_XML[:-40], 7), finish="length")
    result = fold_sse(chat(serving_chat, stream=True))
    assert [c["name"] for c in result["calls"]] == ["write_file"]
    arguments = json.loads(result["calls"][0]["arguments"])
    assert arguments["path"] == "a.py" and arguments["content"].startswith("print(")
    assert result["finish_reason"] == "length"


def test_stream_text_held_back_for_a_tag_is_released_at_the_end(serving) -> None:
    serving_chat, manager = serving
    manager.script(["The tag <longcat_to"])
    result = fold_sse(chat(serving_chat, stream=True))
    assert (result["content"], result["calls"], result["finish_reason"]) == ("The tag <longcat_to", [], "stop")


def test_non_streaming(serving) -> None:
    serving_chat, manager = serving
    manager.script(["<think>Weather.</think>Checking.\n" + CALL_JSON + CALL_XML])
    response = chat(serving_chat, stream=False)
    message = response.choices[0].message
    assert message.reasoning_content == "Weather."
    assert message.content == "Checking.\n"
    assert [(c.index, c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls] == [
        (0, "get_weather", {"city": "Paris", "days": 3}),
        (1, "write_file", {"path": "a.py", "content": 'print("hi")'}),
    ]
    assert response.choices[0].finish_reason == "tool_calls"


def test_required_tool_choice_sends_the_dialects_structural_tag(serving) -> None:
    serving_chat, manager = serving
    manager.script([CALL_JSON])
    result = fold_sse(chat(serving_chat, stream=True, tool_choice="required"))
    assert [c["name"] for c in result["calls"]] == ["get_weather"]
    sampling = manager.requests[-1].sampling_params
    tag = sampling["structural_tag"]
    tag = json.loads(tag) if isinstance(tag, str) else tag
    assert tag["format"]["at_least_one"] is True
    begins = [t["begin"] for t in tag["format"]["tags"]]
    assert '<longcat_tool_call>\n{"name": "get_weather", "arguments": ' in begins


def test_template_that_opens_reasoning_forces_it(server_args: ServerArgs) -> None:
    """SGLang detects a chat template that pre-fills ``<think>``; the output then starts inside reasoning."""
    manager = ScriptedTokenizerManager(server_args, build_tokenizer(OPENING_TEMPLATE))
    serving_chat = _serving_chat(manager)
    assert serving_chat.template_manager.force_reasoning
    manager.script(pieces_of("The user wants Paris.</think>Checking.\n" + CALL_JSON, 6))
    result = fold_sse(chat(serving_chat, stream=True))
    assert result["reasoning"] == "The user wants Paris."
    assert result["content"] == "Checking.\n"
    assert [c["name"] for c in result["calls"]] == ["get_weather"]


def test_plain_answer_is_not_taken_for_reasoning(serving) -> None:
    """A model that does not reason (LongCat-Flash-Chat): nothing is forced into reasoning_content."""
    serving_chat, manager = serving
    manager.script(pieces_of("Paris is sunny today.", 4))
    result = fold_sse(chat(serving_chat, stream=True))
    assert (result["reasoning"], result["content"], result["calls"]) == ("", "Paris is sunny today.", [])
    assert result["finish_reason"] == "stop"


# -- the reasoning parser's inputs: special-token think tags, continued assistant messages ---------------------


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize("tokens_per_step", [1, 3, 64])
def test_think_tags_that_are_special_tokens_reach_the_reasoning_parser_without_tools(
    serving, stream: bool, tokens_per_step: int
) -> None:
    """SGLang keeps special tokens for requests with tools and for the reasoning parsers it knows by name; a
    reasoning-only request with ``--reasoning-parser longcat`` must keep them too, or ``</think>`` is lost."""
    serving_chat, manager = serving
    tokenizer = manager.tokenizer
    assert len(tokenizer.encode("</think>", add_special_tokens=False)) == 1
    manager.script_tokens("<think>The user greets me.</think>Hello there!", tokens_per_step)
    response = chat(serving_chat, stream=stream, messages=[{"role": "user", "content": "Hi"}], tools=None)
    assert manager.requests[-1].sampling_params["skip_special_tokens"] is False
    if stream:
        result = fold_sse(response)
        assert (result["reasoning"], result["content"]) == ("The user greets me.", "Hello there!")
    else:
        message = response.choices[0].message
        assert (message.reasoning_content, message.content) == ("The user greets me.", "Hello there!")


def test_special_tokens_are_still_skipped_for_other_reasoning_parsers(server_args: ServerArgs) -> None:
    """Only ``longcat`` is added to SGLang's list: a server with another reasoning parser keeps its behaviour."""
    other = copy.copy(server_args)
    other.reasoning_parser = "qwen3"
    manager = ScriptedTokenizerManager(other, build_tokenizer())
    serving_chat = _serving_chat(manager)
    manager.script_tokens("<think>Greeting.</think>Hello!", 2)
    chat(serving_chat, stream=True, messages=[{"role": "user", "content": "Hi"}], tools=None)
    assert manager.requests[-1].sampling_params["skip_special_tokens"] is True


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
def test_continue_final_message_given_as_content_parts(serving, stream: bool) -> None:
    """The assistant message being continued may come as content parts; its text opens reasoning here."""
    serving_chat, manager = serving
    messages = [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": [{"type": "text", "text": "<think>The user wants"}]},
    ]
    manager.script(pieces_of(" the weather.</think>Checking.\n" + CALL_JSON, 5))
    response = chat(serving_chat, stream=stream, messages=messages, continue_final_message=True)
    prompt = manager.tokenizer.decode(manager.requests[-1].input_ids)
    assert prompt.endswith("<|im_start|>assistant\n<think>The user wants")
    if stream:
        result = fold_sse(response)
        assert (result["reasoning"], result["content"]) == (" the weather.", "Checking.\n")
        assert [(c["name"], json.loads(c["arguments"])) for c in result["calls"]] == [
            ("get_weather", {"city": "Paris", "days": 3})
        ]
    else:
        message = response.choices[0].message
        assert (message.reasoning_content, message.content) == (" the weather.", "Checking.\n")
        assert [c.function.name for c in message.tool_calls] == ["get_weather"]


def test_continue_final_message_given_as_several_content_parts(serving) -> None:
    """Text parts are joined as SGLang joins them into the prompt; a part that closed reasoning counts."""
    serving_chat, manager = serving
    messages = [
        {"role": "user", "content": "Hi"},
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "<think>A greeting."}, {"type": "text", "text": "</think>Hello"}],
        },
    ]
    manager.script(pieces_of(", how can I help?", 4))
    result = fold_sse(chat(serving_chat, stream=True, messages=messages, tools=None, continue_final_message=True))
    assert (result["reasoning"], result["content"]) == ("", ", how can I help?")


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize(
    "request_tools", [{"tools": None}, {"tool_choice": "none"}], ids=["no_tools", "tool_choice_none"]
)
def test_a_call_the_request_does_not_allow_comes_back_as_text(
    serving, stream: bool, request_tools: dict[str, Any]
) -> None:
    serving_chat, manager = serving
    text = "Checking.\n" + CALL_JSON
    manager.script(pieces_of(text, 3))
    response = chat(serving_chat, stream=stream, **request_tools)
    if stream:
        result = fold_sse(response)
        assert (result["content"], result["calls"]) == (text, [])
    else:
        message = response.choices[0].message
        assert (message.content, message.tool_calls) == (text, None)


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
def test_a_repeated_parameter_is_one_log_line_per_request(serving, stream: bool, caplog) -> None:
    """A key given again and again (as a hostile prompt can make a model write it) is one warning, with its
    count, for the request (both of our parsers read it: the one that reads the calls logs it)."""
    serving_chat, manager = serving
    repeated = "<longcat_arg_key>path</longcat_arg_key>\n<longcat_arg_value>a.py</longcat_arg_value>\n" * 300
    manager.script(pieces_of("<longcat_tool_call>write_file\n" + repeated + "</longcat_tool_call>", 40))
    with caplog.at_level("WARNING", logger="longcat_plugins"):
        chat(serving_chat, stream=stream)
    lines = [r.getMessage() for r in caplog.records if "given again" in r.getMessage()]
    assert len(lines) == 1 and "(299 times in this output" in lines[0], lines
