"""The reasoning -> tool-call hand-over in vLLM's serving path, with deltas of several tokens (MTP, stream intervals).

vLLM's ``DelegatingParser`` asks the reasoning parser for each delta until it confirms the end of reasoning, then
flushes it (dropping the flush's reasoning) and hands the content to the tool parser. Reasoning that opens again
inside the delta holding the first content must not be lost nor turn into content: streaming equals non-streaming
for every group size from 1 to 64 tokens, through ``OpenAIServingChat`` (its SSE chunks against its non-streaming
response), with thinking interleaved with text and calls.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_support import SINGLE_TOKEN_TAGS, TOOLS, Result, Serving, answer, template_serving

from longcat_plugins.core import ParserOptions, parse

pytestmark = pytest.mark.vllm

QWEN_TAGS = ["<|im_start|>", "<|im_end|>", "<think>", "</think>", "<tool_call>", "</tool_call>"]
GROUPS = range(1, 65)

WEATHER_XML = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>"
REPORT_XML = (
    "<tool_call>\n<function=write_file>\n<parameter=path>\nreport.md\n</parameter>\n<parameter=content>\n"
    "# Paris\n<think> is a tag\n</parameter>\n</function>\n</tool_call>"
)
WEATHER_KV = (
    "<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n"
    "<longcat_arg_value>Oslo</longcat_arg_value>\n</longcat_tool_call>"
)

# All outputs start inside reasoning: the template pre-fills the opening tag.
OUTPUTS = {
    "reopened": "plan</think>Hello<think>second thought</think>Final",
    "reopened_twice": "a</think>b<think>c</think>d<think>e</think>f",
    "reopened_right_away": "plan</think>\n<think>more plan</think>\n\nThe answer.",
    "reopened_longcat_tags": "plan</longcat_think>Hello<longcat_think>second</longcat_think>Final",
    "thinking_between_calls": (
        "I need the weather first.</think>\n\nChecking.\n" + WEATHER_XML + "<think>Now the report; the value "
        "holds a think tag.</think>" + REPORT_XML
    ),
    "calls_in_two_dialects": "plan</think>" + WEATHER_XML + "<think>next one</think>" + WEATHER_KV + "\nDone.",
    "call_ends_reasoning_then_reopens": "plan" + WEATHER_XML + "\n<think>and now?</think>Sunny in Paris.",
    "reopened_not_closed": "plan</think>Hello<think>still thinking at the end",
    "call_then_reopened_not_closed": "plan</think>" + WEATHER_XML + "<think>unfinished",
    "call_then_reopened": "plan</think>Checking.\n" + WEATHER_XML + "<think>sunny, I guess</think>Sunny.",
    "whitespace_around_thinking_between_calls": (
        "plan</think>Checking.\n" + WEATHER_XML + "\n<think>next</think>\n" + REPORT_XML
    ),
    "call_then_reopened_longcat_tag": "plan</think>" + WEATHER_KV + "<longcat_think>next</longcat_think>" + REPORT_XML,
}


@pytest.fixture(scope="module", params=["think_tags_single_tokens", "split_tags"])
def serving(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Serving:
    tags = QWEN_TAGS if request.param == "think_tags_single_tokens" else SINGLE_TOKEN_TAGS
    return template_serving(tmp_path_factory.mktemp(request.param), tags, "xml-function-thinking")


def _request(stream: bool) -> Any:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    return ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "Weather in Paris?"}], tools=TOOLS, stream=stream
    )


def _whole(serving: Serving, output: str) -> Result:
    serving.engine.output, serving.engine.finish_reason = output, "stop"
    return answer(serving, _request(stream=False))


def _streamed(serving: Serving, output: str, group: int) -> Result:
    serving.engine.output, serving.engine.group, serving.engine.finish_reason = output, group, "stop"
    return answer(serving, _request(stream=True))


# Once a two-stage difference (the reasoning parser handed the stream over inside a reopened block; the tool parser
# had not seen the block's text and took a think tag written as text for markup): both stages are one pass now.
OUTPUTS["think_tag_as_text_across_the_hand_over"] = (
    "plan</think>Checking.\n" + WEATHER_XML + "<think>sunny, and a <think> tag</think>Sunny."
)


@pytest.mark.parametrize("name", list(OUTPUTS))
def test_streaming_equals_non_streaming_for_every_group_size(serving: Serving, name: str) -> None:
    output = OUTPUTS[name]
    whole = _whole(serving, output)
    core = parse(output, TOOLS, ParserOptions(reasoning_open=True))
    assert whole.reasoning == core.reasoning
    assert whole.calls == [(c.name, c.arguments) for c in core.tool_calls]
    assert whole.normalized()[0] == (core.content if core.content.strip() or not core.tool_calls else "")
    differs = {}
    for group in GROUPS:
        streamed = _streamed(serving, output, group)
        if streamed.normalized() != whole.normalized():
            differs[group] = streamed.normalized()
    assert differs == {}, f"non-streaming: {whole.normalized()}"


def test_reasoning_of_the_hand_over_delta_is_kept(serving: Serving) -> None:
    """Reasoning that reopens in the delta of the first content: nothing of it is lost or shown as content, whether
    it closes in the same delta or in a later one."""
    output = OUTPUTS["reopened"]
    for group in (64, 8, 4):
        streamed = _streamed(serving, output, group)
        assert streamed.reasoning == "plansecond thought", group
        assert streamed.content == "HelloFinal", group


# -- without a tool parser ---------------------------------------------------------------------------------------
# vLLM 0.34 streams the whole output through a reasoning parser whose think tags can open reasoning inside content
# (``opens_reasoning_in_content``): later think blocks are then reasoning when streamed, as in the non-streaming
# answer. vLLM 0.33 hands the output over at the first content and streams the rest verbatim as content.

REASONING_ONLY = {name: OUTPUTS[name] for name in ("reopened", "reopened_twice", "reopened_right_away")} | {
    "reopened_longcat_tags": OUTPUTS["reopened_longcat_tags"],
    "reopened_not_closed": OUTPUTS["reopened_not_closed"],
    "call_then_reopened": OUTPUTS["call_then_reopened"],
    "call_then_reopened_not_closed": OUTPUTS["call_then_reopened_not_closed"],
}
REASONING_ONLY_GROUPS = (1, 2, 3, 5, 8, 64)


def _streams_everything_without_a_tool_parser() -> bool:
    import inspect

    import vllm.parser.abstract_parser as serving_parsers

    return "opens_reasoning_in_content" in inspect.getsource(serving_parsers)


@pytest.fixture(scope="module")
def reasoning_only(tmp_path_factory: pytest.TempPathFactory) -> Serving:
    return template_serving(
        tmp_path_factory.mktemp("reasoning_only"), QWEN_TAGS, "xml-function-thinking", tool_parser=None
    )


def _plain_request(stream: bool) -> Any:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    return ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "Paris?"}], stream=stream)


@pytest.mark.parametrize("name", REASONING_ONLY)
def test_without_a_tool_parser_streaming_equals_non_streaming(reasoning_only: Serving, name: str) -> None:
    if not _streams_everything_without_a_tool_parser():
        pytest.skip("this vLLM hands the output over at the first content even without a tool parser")
    serving, output = reasoning_only, REASONING_ONLY[name]
    serving.engine.output, serving.engine.finish_reason = output, "stop"
    whole = answer(serving, _plain_request(stream=False))
    core = parse(output, None, ParserOptions(reasoning_open=True, tools=False))
    assert (whole.reasoning, whole.content) == (core.reasoning, core.content)
    differs = {}
    for group in REASONING_ONLY_GROUPS:
        serving.engine.output, serving.engine.group, serving.engine.finish_reason = output, group, "stop"
        streamed = answer(serving, _plain_request(stream=True))
        if streamed.normalized() != whole.normalized():
            differs[group] = streamed.normalized()
    assert differs == {}, f"non-streaming: {whole.normalized()}"
