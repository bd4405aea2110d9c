"""Large deltas on SGLang's Chat Completions, Responses and Messages serving (see
:mod:`tests.support.twins.large_deltas`).

SGLang's Messages stream is made of the Chat Completions stream, which sends a step's text before the step's call
fragments, and it closes a ``tool_use`` block at text: text in the output's last step (after a call, or written inside
it) would close the block of a call still open at the step's start, before its last arguments. Our tool-call parser
passes each call of a Messages request on whole (``longcat_plugins/sglang/request_context.py``)."""

from __future__ import annotations

import pytest
from served_sglang import SglangDriver

from tests.support.twins.large_deltas import *  # noqa: F403 (the tests, run on SglangDriver)

pytestmark = pytest.mark.sglang

DRIVER = SglangDriver


def test_only_a_messages_request_takes_whole_calls(driver: SglangDriver) -> None:
    """The Chat Completions request SGLang's Messages serving makes of a Messages request is noted on the tools its
    tool-call parser is handed; a Chat Completions request is not."""
    from sglang.srt.entrypoints.anthropic.protocol import AnthropicMessagesRequest
    from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest

    from longcat_plugins.sglang.request_context import takes_whole_calls
    from tests.served.cells import Cell
    from tests.support.twins.large_deltas import WEATHER

    serving, _ = driver._serving(Cell(api="messages", stream=True))
    function = WEATHER["function"]
    messages = [{"role": "user", "content": "Weather in Paris?"}]
    tool = {"name": function["name"], "input_schema": function["parameters"]}
    request = AnthropicMessagesRequest(model="m", max_tokens=64, stream=True, messages=messages, tools=[tool])
    converted = serving._convert_to_chat_completion_request(request)
    assert converted.tools and takes_whole_calls(serving.openai_serving_chat._effective_tools(converted))
    chat = ChatCompletionRequest(model="m", messages=messages, tools=[WEATHER], stream=True)
    assert not takes_whole_calls(chat.tools)
