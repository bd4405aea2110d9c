"""longcat_plugins.client with the openai package's objects: ChatCompletion and ChatCompletionChunk in, the same types
out, with the server's extra fields (``reasoning_content``) kept; objects with nothing to repair come back as given."""

from __future__ import annotations

import json
from typing import Any

from openai.types.chat import ChatCompletion, ChatCompletionChunk

from longcat_plugins.client import ChatStreamRepair, repair_chat_completion, repair_chat_stream
from longcat_plugins.core import ParserOptions, parse

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    }
]
REQUEST: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": TOOLS}
CALL = (
    "<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n"
    "<longcat_arg_value>Paris</longcat_arg_value>\n</longcat_tool_call>"
)
TEXT = "Checking." + CALL


def completion(content: str, reasoning: str) -> ChatCompletion:
    return ChatCompletion.model_validate(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1,
            "model": "longcat",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": content, "reasoning_content": reasoning},
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3},
        }
    )


def chunk(delta: dict[str, Any], finish: str | None = None) -> ChatCompletionChunk:
    return ChatCompletionChunk.model_validate(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "longcat",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
    )


def test_chat_completion_in_and_out() -> None:
    given = completion(TEXT, "thinking " + CALL)
    out = repair_chat_completion(given, REQUEST)
    assert type(out) is ChatCompletion
    message = out.choices[0].message
    expected = parse(TEXT, TOOLS, ParserOptions(reasoning=False))
    assert message.content == expected.content == "Checking."
    assert message.model_dump()["reasoning_content"] == "thinking "
    assert [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []] == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Paris"}),
    ]
    assert out.choices[0].finish_reason == "tool_calls" and out.usage is not None and out.usage.total_tokens == 3
    assert given.choices[0].message.content == TEXT  # (the input is not changed)
    plain = completion("no call", "none either")
    assert repair_chat_completion(plain, REQUEST) is plain
    assert repair_chat_completion(given, {**REQUEST, "tool_choice": "none"}) is given


def test_chat_completion_chunks_in_and_out() -> None:
    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": TEXT[i : i + 7]}) for i in range(0, len(TEXT), 7)]
    chunks.append(chunk({"reasoning_content": "kept"}))
    chunks.append(chunk({}, "stop"))
    out = list(repair_chat_stream(chunks, REQUEST))
    assert all(type(c) is ChatCompletionChunk for c in out)
    assert out[0] is chunks[0]
    content = "".join(c.choices[0].delta.content or "" for c in out)
    reasoning = "".join(c.choices[0].delta.model_dump().get("reasoning_content") or "" for c in out)
    calls: dict[int, list[str]] = {}
    for c in out:
        for item in c.choices[0].delta.tool_calls or []:
            assert item.function is not None
            if item.id is not None:
                calls[item.index] = [item.function.name or "", item.function.arguments or ""]
            else:
                calls[item.index][1] += item.function.arguments or ""
    assert (content, reasoning) == ("Checking.", "kept")
    assert [(name, json.loads(arguments)) for name, arguments in calls.values()] == [("get_weather", {"city": "Paris"})]
    assert out[-1].choices[0].finish_reason == "tool_calls"


def test_a_dropped_stream_of_chunks_is_flushed_as_a_chunk() -> None:
    repair = ChatStreamRepair(REQUEST)
    assert repair.feed(chunk({"content": "Hi <longcat_tool"}))[0].choices[0].delta.content == "Hi "
    last = repair.finish()
    assert len(last) == 1 and type(last[0]) is ChatCompletionChunk
    assert last[0].choices[0].delta.content == "<longcat_tool"
