"""Golden renders of xml-function-thinking (seed 004 verbatim), written out by hand from the seed's Jinja."""

from __future__ import annotations

import pytest
from template_cases import (
    FIRST_TURN,
    MULTI_TURN,
    TOOL_CALLS,
    TOOL_CALLS_DONE,
    TOOLS_FIRST_TURN,
    WEATHER,
    WITH_SYSTEM,
    assistant,
    call,
    seed_file,
    system,
    user,
)

from longcat_plugins.templates import load, render

NAME = "xml-function-thinking"

EMPTY_SYSTEM = "<|im_start|>system\n<|im_end|>\n"  # written even without a system message: `"" is defined`
THINK = "<|im_start|>assistant\n<think>\n"
NO_THINK = "<|im_start|>assistant\n<think></think>"
INSTRUCTIONS = (
    "\n\nIf you choose to call a function ONLY reply in the following format with NO suffix:\n\n"
    "<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n"
    "<parameter=example_parameter_2>\nThis is the value for the second parameter\n"
    "that can span\nmultiple lines\n"
    "</parameter>\n</function>\n</tool_call>\n\n"
    "<IMPORTANT>\nReminder:\n"
    "- Function calls MUST follow the specified format: an inner <function=...></function> block must be "
    "nested "
    "within <tool_call></tool_call> XML tags\n"
    "- Required parameters MUST be specified\n"
    "- You may provide optional reasoning for your function call in natural language BEFORE the function "
    "call, "
    "but NOT after\n"
    "- If there is no function call available, answer the question like normal with your current knowledge "
    "and "
    "do not tell the user about function calls\n"
    "</IMPORTANT>"
)
WEATHER_FUNCTIONS = (
    "# Tools\n\nYou have access to the following functions:\n\n"
    "<tools>\n<function>\n<n>get_weather</n>\n<description>Get the current weather</description>\n"
    "<parameters>\n<parameter>\n<n>city</n>\n<type>string</type>\n<description>City name</description>\n"
    '</parameter>\n<required>["city"]</required>\n</parameters>\n</function>\n</tools>'
)
TOOL_CALL_BLOCKS = (
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\n"
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nTokyo\n</parameter>\n</function>\n</tool_call>\n"
)
TOOL_RESULTS = (
    "<|im_start|>user\n<tool_response>\n18°C, sunny\n</tool_response>\n"
    "<tool_response>\n25°C, rain\n</tool_response>\n<|im_end|>\n"
)


MERGE_START = "{# Consecutive assistant messages are one turn"
MERGE_END = "{%- set loop_messages = merged.msgs %}\n"


def test_file_is_seed_004_verbatim_plus_the_assistant_turn_merge() -> None:
    """The template is seed 004 as published, with one addition: consecutive assistant messages rendered as one
    turn (API layers split one turn into several messages)."""
    seed = seed_file("004_15c74fdf7e6c9421.txt").read_text(encoding="utf-8")
    title, blank, body = seed.split("\n", 2)
    assert (title, blank) == ("working_function_calling_chat_template.jinja", "")
    text = load(NAME)
    start, end = text.index(MERGE_START), text.index(MERGE_END) + len(MERGE_END)
    assert text[:start] + text[end:] == body


def test_first_turn_thinking_on_by_default() -> None:
    assert render(NAME, FIRST_TURN) == EMPTY_SYSTEM + "<|im_start|>user\nWhat is 2+2?<|im_end|>\n" + THINK


def test_first_turn_thinking_off() -> None:
    expected = EMPTY_SYSTEM + "<|im_start|>user\nWhat is 2+2?<|im_end|>\n" + NO_THINK
    assert render(NAME, FIRST_TURN, enable_thinking=False) == expected


def test_bos_token_comes_first() -> None:
    assert render(NAME, FIRST_TURN, bos_token="<s>").startswith("<s><|im_start|>system\n")


def test_system_prompt() -> None:
    assert render(NAME, WITH_SYSTEM) == (
        "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n" + THINK
    )


def test_multi_turn() -> None:
    assert render(NAME, MULTI_TURN) == (
        "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
        "<|im_start|>user\nHi<|im_end|>\n"
        "<|im_start|>assistant\n<think></think>Hello! How can I help?<|im_end|>\n"
        "<|im_start|>user\nTell me a joke.<|im_end|>\n"
        "<|im_start|>assistant\n<think></think>Why did the chicken cross the road?<|im_end|>\n"
        "<|im_start|>user\nWhy?<|im_end|>\n" + THINK
    )


def test_tools_with_system_prompt() -> None:
    assert render(NAME, TOOLS_FIRST_TURN, [WEATHER]) == (
        "<|im_start|>system\nYou are a helpful assistant.\n\n" + WEATHER_FUNCTIONS + INSTRUCTIONS + "<|im_end|>\n"
        "<|im_start|>user\nWhat's the weather in Paris and Tokyo?<|im_end|>\n" + THINK
    )


def test_tools_without_system_prompt() -> None:
    assert render(NAME, [user("Hi")], [WEATHER]) == (
        "<|im_start|>system\n"
        + WEATHER_FUNCTIONS
        + INSTRUCTIONS
        + "<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
        + THINK
    )


def test_parameter_enum_and_extra_keys() -> None:
    tool = {
        "type": "function",
        "function": {
            "name": "convert",
            "parameters": {
                "type": "object",
                "properties": {
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
                    "range": {"type": "array", "items": {"type": "number"}},
                },
                "additionalProperties": False,
            },
            "strict": True,
        },
    }
    assert render(NAME, [user("x")], [tool], enable_thinking=False) == (
        "<|im_start|>system\n# Tools\n\nYou have access to the following functions:\n\n<tools>\n<function>\n"
        "<n>convert</n>\n<parameters>\n"
        '<parameter>\n<n>unit</n>\n<type>string</type>\n<enum>["celsius", "fahrenheit"]</enum>\n'
        "<default>celsius</default>\n</parameter>\n"
        '<parameter>\n<n>range</n>\n<type>array</type>\n<items>{"type": "number"}</items>\n</parameter>\n'
        "<additionalProperties>False</additionalProperties>\n"
        "</parameters>\n<strict>True</strict>\n</function>\n</tools>" + INSTRUCTIONS + "<|im_end|>\n"
        "<|im_start|>user\nx<|im_end|>\n" + NO_THINK
    )


def test_tool_calls_in_history_and_tool_results() -> None:
    assert render(NAME, TOOL_CALLS) == (
        EMPTY_SYSTEM + "<|im_start|>user\nWeather in Paris and Tokyo?<|im_end|>\n"
        "<|im_start|>assistant\n<think></think>\n" + TOOL_CALL_BLOCKS + "<|im_end|>\n" + TOOL_RESULTS + THINK
    )


def test_tool_calls_then_answer() -> None:
    assert render(NAME, TOOL_CALLS_DONE) == (
        EMPTY_SYSTEM + "<|im_start|>user\nWeather in Paris and Tokyo?<|im_end|>\n"
        "<|im_start|>assistant\n<think></think>\n" + TOOL_CALL_BLOCKS + "<|im_end|>\n" + TOOL_RESULTS + ""
        "<|im_start|>assistant\n<think></think>Paris: sunny; Tokyo: rain.<|im_end|>\n"
        "<|im_start|>user\nThanks!<|im_end|>\n" + THINK
    )


def test_nested_arguments_are_json_and_strings_are_raw() -> None:
    arguments = {"path": "a/b.txt", "body": 'say "hi"\nbye', "opts": {"x": [1, 2], "é": True}, "n": 3}
    messages = [user("go"), assistant(None, [call("c", "write", arguments)])]
    assert render(NAME, messages, add_generation_prompt=False) == (
        EMPTY_SYSTEM + "<|im_start|>user\ngo<|im_end|>\n<|im_start|>assistant\n<think></think>\n"
        "<tool_call>\n<function=write>\n"
        "<parameter=path>\na/b.txt\n</parameter>\n"
        '<parameter=body>\nsay "hi"\nbye\n</parameter>\n'
        '<parameter=opts>\n{"x": [1, 2], "é": true}\n</parameter>\n'
        "<parameter=n>\n3\n</parameter>\n"
        "</function>\n</tool_call>\n<|im_end|>\n"
    )


# History thinking: an assistant message before the last user message loses its reasoning when
# truncate_history_thinking is on (the default) and keeps it when it is off.
REASONED_HISTORY = [
    user("Hi"),
    assistant("Hello!", reasoning_content="The user greets me."),
    user("Weather in Paris?"),
]


@pytest.mark.parametrize(
    ("kwargs", "assistant_turn"),
    [
        ({}, "<think></think>\nHello!"),
        ({"truncate_history_thinking": True}, "<think></think>\nHello!"),
        ({"truncate_history_thinking": False}, "<think>\nThe user greets me.\n</think>\nHello!"),
    ],
)
def test_history_thinking_truncated_or_kept(kwargs: dict[str, bool], assistant_turn: str) -> None:
    assert render(NAME, REASONED_HISTORY, **kwargs) == (
        EMPTY_SYSTEM + "<|im_start|>user\nHi<|im_end|>\n"
        "<|im_start|>assistant\n" + assistant_turn + "<|im_end|>\n"
        "<|im_start|>user\nWeather in Paris?<|im_end|>\n" + THINK
    )


def test_inline_think_in_content_is_truncated_too() -> None:
    messages = [user("a"), assistant("<think>\nhmm\n</think>\n\nB"), user("c")]
    assert render(NAME, messages) == (
        EMPTY_SYSTEM + "<|im_start|>user\na<|im_end|>\n<|im_start|>assistant\n<think></think>\n\nB<|im_end|>\n"
        "<|im_start|>user\nc<|im_end|>\n" + THINK
    )


@pytest.mark.parametrize(
    ("truncate", "reasoning_turn"),
    [(True, "<think></think>\n"), (False, "<think>\nNeed the weather.\n</think>\n")],
)
def test_history_thinking_of_a_tool_call_turn(truncate: bool, reasoning_turn: str) -> None:
    messages = [
        user("Weather in Paris?"),
        assistant(None, [call("c1", "get_weather", {"city": "Paris"})], reasoning_content="Need the weather."),
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        assistant("Sunny."),
        user("Thanks"),
    ]
    assert render(NAME, messages, truncate_history_thinking=truncate, enable_thinking=False) == (
        EMPTY_SYSTEM + "<|im_start|>user\nWeather in Paris?<|im_end|>\n"
        "<|im_start|>assistant\n" + reasoning_turn + "<tool_call>\n<function=get_weather>\n"
        "<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\n<|im_end|>\n"
        "<|im_start|>user\n<tool_response>\nsunny\n</tool_response>\n<|im_end|>\n"
        "<|im_start|>assistant\n<think></think>Sunny.<|im_end|>\n"
        "<|im_start|>user\nThanks<|im_end|>\n" + NO_THINK
    )


def test_current_turn_keeps_its_thinking() -> None:
    # after the last user message nothing is truncated: the agent loop sees its own reasoning
    messages = [
        user("Weather in Paris?"),
        assistant(None, [call("c1", "get_weather", {"city": "Paris"})], reasoning_content="Need the weather."),
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
    ]
    assert render(NAME, messages) == (
        EMPTY_SYSTEM + "<|im_start|>user\nWeather in Paris?<|im_end|>\n"
        "<|im_start|>assistant\n<think>\nNeed the weather.\n</think>\n<tool_call>\n<function=get_weather>\n"
        "<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\n<|im_end|>\n"
        "<|im_start|>user\n<tool_response>\nsunny\n</tool_response>\n<|im_end|>\n" + THINK
    )


def test_system_message_is_not_duplicated() -> None:
    assert render(NAME, [system("S"), user("u")], enable_thinking=False).count("S") == 1
