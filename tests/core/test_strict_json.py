"""Arguments are strict JSON: what ``JSON.parse`` and serde_json accept, for values typed by schema (XML and key/value
dialects) and for the text the JSON dialect's reader passes on. No NaN or Infinity, no number a double cannot hold,
no surrogate without its other half; a high surrogate cut off by the end of the output is dropped, and one that may
still be completed is held back rather than sent and taken back.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from longcat_plugins.core import parse
from longcat_plugins.core.cursor import Cursor
from longcat_plugins.core.readers.json_value import JsonValueReader
from longcat_plugins.core.schema import coerce, convert_value, strict_json_dumps
from tests.support.events import groups_of, prefixes_ok, split_at, stream, summary
from tests.support.strict_json import strict_json_loads
from tests.support.tools import function_tool

# -- the helper itself -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "NaN",
        "[Infinity]",
        '{"a": -Infinity}',
        "1e999",
        "[-1e400]",
        "1" * 400,
        '"\\ud83d"',
        '{"\\ude00": 1}',
        '["a\\ud83dz"]',
        '"\ud83d"',
        '{"a": 1} x',
    ],
)
def test_strict_json_loads_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        strict_json_loads(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('"\\ud83d\\ude00"', "\U0001f600"),
        ("1e308", 1e308),
        ("1e-999", 0.0),
        ("1" * 300, int("1" * 300)),
        ('{"a": [null, true, "\\ufffd"]}', {"a": [None, True, "\ufffd"]}),
    ],
)
def test_strict_json_loads_accepts(text: str, expected: Any) -> None:
    assert strict_json_loads(text) == expected


# -- values typed by schema --------------------------------------------------------------------------------------

ARRAY = {"type": "array"}
OBJECT = {"type": "object"}
NUMBER = {"type": "number"}
INTEGER = {"type": "integer"}


def emitted(value: Any) -> Any:
    """A converted value as the parser emits it, read back strictly."""
    return strict_json_loads(json.dumps(value, ensure_ascii=False))


@pytest.mark.parametrize(
    ("raw", "schema"),
    [
        ("[1e999]", ARRAY),
        ("[-1e999]", ARRAY),
        ("[1, [2, [3, 1e999]]]", ARRAY),
        ('{"a": {"b": [1e400]}}', OBJECT),
        ("{'a': 1e999}", OBJECT),
        ("{'a': [-1e999]}", OBJECT),
        ("[(1e999,)]", ARRAY),
        ("{1e999: 1}", OBJECT),
        ("[" + "1" * 400 + "]", ARRAY),
        ("{'a': " + "9" * 400 + "}", OBJECT),
        ("[1e308, 1e309]", {"type": ["array", "null"]}),
    ],
)
def test_a_number_out_of_range_anywhere_keeps_the_raw_text(raw: str, schema: Any) -> None:
    value = convert_value(raw, schema)
    assert value == raw
    assert emitted(value) == raw


@pytest.mark.parametrize(
    ("raw", "schema"),
    [("1" * 400, NUMBER), ("-" + "1" * 400, NUMBER), ("9" * 400, INTEGER), ("1e999", INTEGER), ("-1e999", NUMBER)],
)
def test_a_scalar_out_of_range_keeps_the_raw_text(raw: str, schema: Any) -> None:
    assert convert_value(raw, schema) == raw


def test_numbers_within_range_are_converted() -> None:
    assert convert_value("1e308", INTEGER) == int(1e308)
    assert convert_value("[1e308, -1e-999]", ARRAY) == [1e308, -0.0]
    assert convert_value("[" + "1" * 300 + "]", ARRAY) == [int("1" * 300)]


NESTED = {
    "type": "object",
    "properties": {
        "ratio": {"type": "number"},
        "ids": {"type": "array", "items": {"type": "integer"}},
        "inner": {"type": "object", "properties": {"list": {"type": "array"}}},
    },
}


def test_nested_members_out_of_range_stay_strings() -> None:
    raw = '{"ratio": "1e999", "ids": ["1", "1e999", "' + "9" * 400 + '"], "inner": {"list": "[1e999]"}}'
    value = convert_value(raw, NESTED)
    assert value == {"ratio": "1e999", "ids": [1, "1e999", "9" * 400], "inner": {"list": "[1e999]"}}
    assert emitted(value) == value


def test_coerce_never_makes_a_number_out_of_range() -> None:
    value = coerce({"ratio": "-1e999", "ids": ["1e999", "2"]}, NESTED)
    assert value == {"ratio": "-1e999", "ids": ["1e999", 2]}


@pytest.mark.parametrize(
    ("raw", "schema", "expected"),
    [
        ('{"a": "\\ud83d"}', OBJECT, {"a": "\ufffd"}),
        ('{"a": "x\\ud83dy\\ude00z"}', OBJECT, {"a": "x\ufffdy\ufffdz"}),
        ('{"a": "\\ud83d\\ude00"}', OBJECT, {"a": "\U0001f600"}),
        ('{"\\ud83d": 1}', OBJECT, {"\ufffd": 1}),
        ('["\\udc00\\ud83d"]', ARRAY, ["\ufffd\ufffd"]),
        ("{'a': '\\ud83d\\ude00'}", OBJECT, {"a": "\U0001f600"}),  # a Python literal: two code points, joined
        ("['\\ud83d']", ARRAY, ["\ufffd"]),
        ("{'\\udfff': ['\\ud800']}", OBJECT, {"\ufffd": ["\ufffd"]}),
        ('{"a": "\ud83d"}', OBJECT, {"a": "\ufffd"}),  # a raw surrogate code point in the text
        ("not json \ud83d", OBJECT, "not json \ufffd"),  # the raw text kept as a string
        ('{"s": "\\ud83d"}', {"type": "object", "properties": {"s": INTEGER}}, {"s": "\ufffd"}),
    ],
)
def test_lone_surrogates_become_the_replacement_character(raw: str, schema: Any, expected: Any) -> None:
    value = convert_value(raw, schema)
    assert value == expected
    assert emitted(value) == expected


def test_python_literals_become_json_values() -> None:
    assert convert_value("{1: (2, 3), None: True, 1.5: 'x'}", OBJECT) == {"1": [2, 3], "null": True, "1.5": "x"}
    assert convert_value("(1, 2)", ARRAY) == "(1, 2)"  # a tuple is not an array
    assert convert_value("{'a': {1, 2}}", OBJECT) == "{'a': {1, 2}}"  # nor a set a value


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"a": [1, "\ud83d"]}, '{"a": [1, "\ufffd"]}'),
        ([float("inf")], None),
        ({"a": float("nan")}, None),
        ([10**400], None),
        ({(1, 2): 3}, None),
        ([b"x"], None),
        ((1, "\ud83d\ude00"), '[1, "\U0001f600"]'),
    ],
)
def test_strict_json_dumps(value: Any, expected: str | None) -> None:
    assert strict_json_dumps(value) == expected


def _nested(depth: int) -> Any:
    value: Any = "\ud83d"
    for _ in range(depth):
        value = [value]
    return value


def test_strict_json_dumps_of_deep_values() -> None:
    assert strict_json_dumps(_nested(100)) == "[" * 100 + '"\ufffd"' + "]" * 100
    assert strict_json_dumps(_nested(100_000)) is None  # deeper than JSON can be written here: no exception


# -- through the parser ------------------------------------------------------------------------------------------

TOOLS = [function_tool("f", {"p": ARRAY, "o": OBJECT, "n": NUMBER, "i": INTEGER, "nested": NESTED})]


def _every_split(text: str, tools: Any = None) -> list[str]:
    """The arguments of each call, checked strictly, after checking that every split gives the same message."""
    whole = parse(text, tools)
    for pieces in (groups_of(text, 1), groups_of(text, 3), [text], *(split_at(text, [k]) for k in range(len(text)))):
        message, events = stream(pieces, tools)
        assert summary(message) == summary(whole)
        assert prefixes_ok(events)
    for call in whole.tool_calls:
        strict_json_loads(call.arguments)
    return [call.arguments for call in whole.tool_calls]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("<parameter=p>[1e999]</parameter>", {"p": "[1e999]"}),
        ("<parameter=p>\n[1, -1e999]\n</parameter>", {"p": "[1, -1e999]"}),
        ("<parameter=o>{'a': 1e999}</parameter>", {"o": "{'a': 1e999}"}),
        ("<parameter=n>" + "1" * 400 + "</parameter>", {"n": "1" * 400}),
        ("<parameter=i>1e999</parameter>", {"i": "1e999"}),
        ('<parameter=nested>{"ratio": "1e999", "ids": ["2"]}</parameter>', {"nested": {"ratio": "1e999", "ids": [2]}}),
        ('<parameter=o>{"a": "\\ud83d", "b": "\\ud83d\\ude00"}</parameter>', {"o": {"a": "\ufffd", "b": "\U0001f600"}}),
    ],
)
def test_xml_values_typed_by_schema_are_strict_json(body: str, expected: Any) -> None:
    (arguments,) = _every_split(f"<function=f>{body}</function>", TOOLS)
    assert strict_json_loads(arguments) == expected


def test_key_value_values_typed_by_schema_are_strict_json() -> None:
    text = (
        "<longcat_tool_call>f\n<longcat_arg_key>p</longcat_arg_key>\n<longcat_arg_value>[1e999]</longcat_arg_value>\n"
    )
    (arguments,) = _every_split(text + "</longcat_tool_call>", TOOLS)
    assert strict_json_loads(arguments) == {"p": "[1e999]"}


def _json_call(arguments: str) -> str:
    return '<tool_call>{"name": "f", "arguments": ' + arguments + "}</tool_call>"


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ('{"a": 1e999}', {"a": "1e999"}),
        ('{"a": [-1E+400, 1e308, 1e-999]}', {"a": ["-1E+400", 1e308, 0.0]}),
        ('{"a": ' + "1" * 400 + "}", {"a": "1" * 400}),
        ('{"a": ' + "1" * 300 + "}", {"a": int("1" * 300)}),
        ('{"a": +1e999}', {"a": "+1e999"}),
        ('{"a": "\\ud83d\\ude00"}', {"a": "\U0001f600"}),
        ('{"a": "\\uD83D\\uDE00"}', {"a": "\U0001f600"}),
        ('{"a": "x\\ud83d"}', {"a": "x\ufffd"}),
        ('{"a": "\\ud83dz"}', {"a": "\ufffdz"}),
        ('{"a": "\\ud83d\\n"}', {"a": "\ufffd\n"}),
        ('{"a": "\\ud83d\\ud83d\\ude00"}', {"a": "\ufffd\U0001f600"}),
        ('{"a": "\\ud83d\\u0041"}', {"a": "\ufffdA"}),
        ('{"a": "\\ude00\\ud83d"}', {"a": "\ufffd\ufffd"}),
        ('{"\\udbff": 1}', {"\ufffd": 1}),
        ("{'a': '\\ud83d'}", {"a": "\ufffd"}),
        ('{"a": "\ud83d\ude00"}', {"a": "\U0001f600"}),  # raw code points: joined
        ('{"a": "\ud83d"}', {"a": "\ufffd"}),
        ('{"a": "\ude00x"}', {"a": "\ufffdx"}),
    ],
)
def test_json_dialect_arguments_are_strict_json(arguments: str, expected: Any) -> None:
    (text,) = _every_split(_json_call(arguments))
    assert strict_json_loads(text) == expected


@pytest.mark.parametrize(
    ("truncated", "expected"),
    [
        ('{"a": "x\\ud83d', {"a": "x"}),
        ('{"a": "x\\ud83d\\', {"a": "x"}),
        ('{"a": "x\\ud83d\\u', {"a": "x"}),
        ('{"a": "x\\ud83d\\uDE', {"a": "x"}),
        ('{"a": "x\\ud83d\\ude0', {"a": "x"}),
        ('{"a": "x\\ud83d\\ude00', {"a": "x\U0001f600"}),
        ('{"a": "x\\ud83d\\u00', {"a": "x\ufffd"}),  # not the low half: the high one is lone, the rest cut off
        ('{"a": "x\ud83d', {"a": "x"}),
    ],
)
def test_a_surrogate_pair_cut_by_the_end_of_the_output(truncated: str, expected: Any) -> None:
    (text,) = _every_split('<tool_call>{"name": "f", "arguments": ' + truncated)
    assert strict_json_loads(text) == expected


def test_a_high_surrogate_is_held_back_until_the_next_escape_decides() -> None:
    out: list[str] = []
    reader = JsonValueReader(out.append)
    buf = '"ab\\ud83d'
    assert reader.feed(Cursor(buf), 0) == 3  # stops at the backslash: it is not known yet what follows
    assert "".join(out) == '"ab'
    buf = buf[3:] + "\\ud"
    assert reader.feed(Cursor(buf), 0) == 0
    buf += "e00c"
    assert reader.feed(Cursor(buf), 0) == len(buf)
    assert "".join(out) == '"ab\\ud83d\\ude00c'
    assert not reader.continues_string("\\ud83d") and not reader.continues_string("\\ude00")
    assert not reader.continues_string("\ud83d") and reader.continues_string("\\u00e9\\ud7ff\\ue000x")


# Pieces of string bodies around surrogates, to be glued at random and cut anywhere.
ESCAPES = ["\\ud83d", "\\uDE00", "\\udbff", "\\udfff", "\\ud800", "\\u0041", "\\u", "\\uD8", "\\", "\\n"]
SURROGATE_PIECES = st.lists(
    st.sampled_from([*ESCAPES, "a", "é", '"', "\ud83d", "\ude00", "😀", "1e999", " "]),
    max_size=12,
).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=SURROGATE_PIECES, cut=st.integers(min_value=0, max_value=200), closed=st.booleans())
def test_surrogates_anywhere_give_strict_json_for_any_split(body: str, cut: int, closed: bool) -> None:
    text = _json_call('{"a": "' + body + ('"}' if closed else ""))
    if not closed:
        text = text[: -len("}</tool_call>")]
    whole = parse(text)
    for pieces in (groups_of(text, 1), split_at(text, [cut % (len(text) + 1)])):
        message, events = stream(pieces)
        assert summary(message) == summary(whole)
        assert prefixes_ok(events)
    for call in whole.tool_calls:
        strict_json_loads(call.arguments)
