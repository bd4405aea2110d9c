"""Every stop a request can give SGLang that may end the output inside a call -- a stop string, a stop pattern
(``stop_regex``), a stop token id that is not an end of sequence -- gets the call the output ends in back as text,
through SGLang's ``OpenAIServingChat`` (both parsers ours), streamed and whole; a stop that only ends a turn, and
no stop at all, leave it a call."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sglang.srt.entrypoints.openai.protocol import Tool
from sglang.srt.function_call.function_call_parser import FunctionCallParser
from sglang_cases import TOOLS
from sglang_support import chunks, stream_tool_parser
from test_sglang_serving_chat import CALL_XML, chat, fold_sse, pieces_of, server_args, serving

from longcat_plugins.core import ParserOptions, parse
from longcat_plugins.sglang.request_context import may_be_cut_by_a_stop, note_request
from tests.extra_dialects import DEEPSEEK_V31

pytestmark = pytest.mark.sglang

__all__ = ["server_args", "serving"]  # (the fixtures)

#: the output a stop ended inside the ``content`` value of a ``write_file`` call
CUT = "Let me write it.\n" + CALL_XML[: CALL_XML.index('"hi"')]


def _served(serving_chat: Any, stream: bool, **stops: Any) -> tuple[str, list[tuple[str, Any]], str]:
    """What the client gets: content, calls (name, arguments), finish reason."""
    response = chat(serving_chat, stream=stream, **stops)
    if stream:
        result = fold_sse(response)
        calls = [(c["name"], json.loads(c["arguments"])) for c in result["calls"]]
        return result["content"], calls, result["finish_reason"]
    choice = response.choices[0]
    calls = [(c.function.name, json.loads(c.function.arguments)) for c in choice.message.tool_calls or []]
    return choice.message.content or "", calls, choice.finish_reason


def _ordinary_token_id(serving_chat: Any) -> int:
    return int(serving_chat.tokenizer_manager.tokenizer.encode("print", add_special_tokens=False)[0])


def _eos_token_id(serving_chat: Any) -> int:
    return int(serving_chat.tokenizer_manager.tokenizer.eos_token_id)


STOPS_THAT_CUT = {
    "stop_regex": lambda s: {"stop_regex": r'"h\w'},
    "stop_regex_list": lambda s: {"stop_regex": [r"never", r'"h\w']},
    "stop_string": lambda s: {"stop": ['"hi"']},
    "stop_token_id": lambda s: {"stop_token_ids": [_ordinary_token_id(s)]},
    "stop_token_ids_with_eos": lambda s: {"stop_token_ids": [_eos_token_id(s), _ordinary_token_id(s)]},
}


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize("stop", list(STOPS_THAT_CUT))
def test_a_call_a_stop_cut_comes_back_as_text(serving, stop: str, stream: bool) -> None:
    serving_chat, manager = serving
    manager.script(pieces_of(CUT, 6))
    expected = parse(CUT, None, ParserOptions(cut_calls_as_text=True))
    assert expected.content == CUT and not expected.tool_calls
    assert _served(serving_chat, stream, **STOPS_THAT_CUT[stop](serving_chat)) == (CUT, [], "stop")


STOPS_THAT_END_A_TURN = {
    "none": lambda s: {},
    "stop_token_id_eos": lambda s: {"stop_token_ids": [_eos_token_id(s)]},
    "empty_stop_regex": lambda s: {"stop_regex": []},
}


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize("stop", list(STOPS_THAT_END_A_TURN))
def test_a_call_the_output_ends_in_is_a_call_without_a_cutting_stop(serving, stop: str, stream: bool) -> None:
    """The model ended its turn inside the call (or only a stop that ends a turn could have): a call, its
    arguments closed."""
    serving_chat, manager = serving
    manager.script(pieces_of(CUT, 6))
    served = _served(serving_chat, stream, **STOPS_THAT_END_A_TURN[stop](serving_chat))
    assert served == ("Let me write it.\n", [("write_file", {"path": "a.py", "content": "print("})], "tool_calls")


(DEEPSEEK_END,) = DEEPSEEK_V31["end_of_sequence"]


class _Request:
    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)


class _Tokenizer:
    eos_token_id = 2

    def get_vocab(self) -> dict[str, int]:
        return {"<|im_end|>": 7, "</longcat_s>": 8, "a": 9, DEEPSEEK_END: 11}


@pytest.mark.parametrize(
    ("fields", "cut"),
    [
        ({}, False),
        ({"stop": None, "stop_regex": None, "stop_token_ids": None}, False),
        ({"stop": ""}, False),
        ({"stop": "x"}, True),
        ({"stop": ["x"]}, True),
        ({"stop_regex": "x+"}, True),
        ({"stop_regex": []}, False),
        ({"stop_token_ids": [2, 7, 8]}, False),  # the tokenizer's end of sequence, the end-of-sequence markers
        ({"stop_token_ids": [2, 9]}, True),
        ({"stop_token_ids": [10]}, True),  # not in the vocabulary: not an end of sequence either
        ({"stop_token_ids": [11]}, False),  # a dialect's declared end of sequence (DeepSeek-V3.1's)
    ],
)
def test_which_stops_may_cut_a_call(fields: dict[str, Any], cut: bool) -> None:
    assert may_be_cut_by_a_stop(_Request(**fields), _Tokenizer()) is cut


def test_without_a_tokenizer_any_stop_token_may_cut() -> None:
    assert may_be_cut_by_a_stop(_Request(stop_token_ids=[2]), None)


#: a key/value key the model leaves open, then a call the output ends in (where a stop string cut it)
OPEN_KEY_THEN_CUT = "Let me check.\n<longcat_tool_call>get_weather\n<longcat_arg_key>ci" + CUT.split("\n", 1)[1]


def _core_reading(text: str) -> tuple[str, list[tuple[str, Any]]]:
    message = parse(text, TOOLS, ParserOptions(cut_calls_as_text=True))
    return message.content, [(c.name, json.loads(c.arguments)) for c in message.tool_calls]


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize("size", [1, 6, 64, 4096])
def test_a_key_left_open_then_a_call_a_stop_cut_is_served_as_the_core_reads_it(
    serving, size: int, stream: bool
) -> None:
    """The call the output ends in is withdrawn (text) while the call before it, ended by its open key, is given out:
    the request does not fail, streamed in steps of any size or whole, and gives the core's reading."""
    serving_chat, manager = serving
    manager.script(pieces_of(OPEN_KEY_THEN_CUT, size))
    content, calls = _core_reading(OPEN_KEY_THEN_CUT)
    assert calls == [("get_weather", {})]
    assert _served(serving_chat, stream, stop=["STOP"]) == (content, calls, "tool_calls")


@pytest.mark.parametrize("size", [1, 6, 64, None], ids=lambda s: f"chunk{s or '-whole'}")
def test_the_detector_reads_a_key_left_open_then_a_call_a_stop_cut(size: int | None) -> None:
    """``FunctionCallParser`` (the detector) handed the tools of a request with a ``stop``, streamed and whole."""
    tools = [Tool.model_validate(t) for t in TOOLS]
    note_request(_Request(stop=["STOP"]), tools)
    expected = _core_reading(OPEN_KEY_THEN_CUT)
    streamed = stream_tool_parser(FunctionCallParser(tools, "longcat"), chunks(OPEN_KEY_THEN_CUT, size))
    assert (streamed.content, [(c.name, json.loads(c.arguments)) for c in streamed.calls]) == expected
    content, items = FunctionCallParser(tools, "longcat").parse_non_stream(OPEN_KEY_THEN_CUT)
    assert (content, [(item.name, json.loads(item.parameters)) for item in items]) == expected
