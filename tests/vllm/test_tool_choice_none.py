"""``tool_choice="none"`` and requests without tools, through vLLM's chat serving: when the model writes a call
anyway, vLLM runs our tool parser and then drops the calls, keeping only the content, so the model's text must come
back as the content, verbatim (end-of-sequence markers excepted), streaming and not."""

from __future__ import annotations

from typing import Any

import pytest
from vllm_support import TOOLS, Result, Serving, answer, template_serving

pytestmark = pytest.mark.vllm

TAGS = ["<longcat_tool_call>", "</longcat_tool_call>", "<longcat_arg_key>", "</longcat_arg_key>", "<think>", "</think>"]
CALLS = [
    'Let me look.\n<longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</longcat_tool_call>',
    "<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n"
    "<longcat_arg_value>Paris</longcat_arg_value>\n</longcat_tool_call>",
    "Sure.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
]


@pytest.fixture(scope="module")
def serving(tmp_path_factory: pytest.TempPathFactory) -> Serving:
    return template_serving(tmp_path_factory.mktemp("longcat"), TAGS, "longcat-flash-chat")


def _request(stream: bool, **kwargs: Any) -> Any:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    messages = [{"role": "user", "content": "Weather in Paris?"}]
    return ChatCompletionRequest(model="m", messages=messages, stream=stream, **kwargs)


@pytest.mark.parametrize("output", CALLS, ids=["json", "key_value", "xml"])
@pytest.mark.parametrize(
    "tools", [{"tools": TOOLS, "tool_choice": "none"}, {}], ids=["tool_choice_none", "no_tools"]
)
def test_a_call_the_request_does_not_allow_comes_back_as_text(
    serving: Serving, output: str, tools: dict[str, Any]
) -> None:
    engine = serving.engine
    engine.output, engine.finish_reason = output, "stop"
    engine.group = 1
    whole = answer(serving, _request(False, **tools))
    assert whole == Result(content=output)
    for group in (1, 3, 64):
        engine.group = group
        streamed = answer(serving, _request(True, **tools))
        assert streamed == Result(content=output), group


def test_with_tools_and_auto_the_call_is_a_call(serving: Serving) -> None:
    engine = serving.engine
    engine.output, engine.group = CALLS[0], 1
    whole = answer(serving, _request(False, tools=TOOLS))
    assert whole.content == "Let me look.\n"
    assert [name for name, _ in whole.calls] == ["get_weather"]
