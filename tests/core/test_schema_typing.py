"""``longcat_plugins.core.schema``: the request's tools, and typing of plain-text parameter values by JSON schema.

Values are compared type-strictly (``3`` is not ``3.0``, ``True`` is not ``1``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from longcat_plugins.core import ParserOptions, StreamParser, ToolSchemas, parse
from longcat_plugins.core.schema import coerce, convert_value, is_string_schema, schema_types


def same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


INTEGER = {"type": "integer"}
NUMBER = {"type": "number"}
BOOLEAN = {"type": "boolean"}
NULL = {"type": "null"}
OBJECT = {"type": "object"}
ARRAY = {"type": "array"}

# -- is_string_schema / schema_types ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "schema",
    [
        None,
        {},
        {"description": "no type at all"},
        {"type": "string"},
        {"type": ["string", "null"]},
        {"type": ["integer", "string"]},
        {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        {"oneOf": [{"type": "string", "format": "date"}, {"type": "null"}]},
        {"enum": ["fast", "slow"]},
        {"enum": ["a", 1]},
        {"type": "string", "enum": ["x"]},
    ],
)
def test_string_schemas(schema: Any) -> None:
    assert is_string_schema(schema)


@pytest.mark.parametrize(
    "schema",
    [
        INTEGER,
        NUMBER,
        BOOLEAN,
        NULL,
        OBJECT,
        ARRAY,
        {"type": ["integer", "null"]},
        {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        {"oneOf": [{"type": "number"}, {"type": "boolean"}]},
        {"allOf": [{"type": "object"}]},
        {"enum": [1, 2, 3]},
        {"enum": [True, False]},
        {"properties": {"a": {"type": "string"}}},
        {"items": {"type": "string"}},
    ],
)
def test_non_string_schemas(schema: Any) -> None:
    assert not is_string_schema(schema)


def test_schema_types_order_and_inference() -> None:
    assert schema_types({"type": ["null", "integer"]}) == ["null", "integer"]
    assert schema_types({"anyOf": [{"type": "integer"}, {"type": ["integer", "null"]}]}) == ["integer", "null"]
    assert schema_types({"enum": [1, 2.5, None]}) == ["integer", "number", "null"]
    assert schema_types({"properties": {}}) == ["object"]
    assert schema_types({"items": {}}) == ["array"]
    assert schema_types(None) == []


# -- convert_value -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "schema", "expected"),
    [
        ("5", INTEGER, 5),
        ("\n  -42 \n", INTEGER, -42),
        ("7.0", INTEGER, 7),
        ("1e2", INTEGER, 100),
        ("12345678901234567890", INTEGER, 12345678901234567890),
        ("0.25", NUMBER, 0.25),
        ("3", NUMBER, 3),
        ("-1e-3", NUMBER, -0.001),
        ("true", BOOLEAN, True),
        ("False", BOOLEAN, False),
        ("TRUE", BOOLEAN, True),
        ("null", NULL, None),
        ("None", NULL, None),
        ('{"a": [1, {"b": null}]}', OBJECT, {"a": [1, {"b": None}]}),
        ("{'a': True, 'b': None}", OBJECT, {"a": True, "b": None}),
        ('["x", 2]', ARRAY, ["x", 2]),
        ("['x', 'y']", ARRAY, ["x", "y"]),
        ("null", {"type": ["integer", "null"]}, None),
        ("4", {"type": ["integer", "null"]}, 4),
        ("none", {"anyOf": [{"type": "integer"}, {"type": "null"}]}, None),
        ("1.5", {"type": ["integer", "number"]}, 1.5),
        ("2", {"enum": [1, 2, 3]}, 2),
        ("true", {"enum": [True, False]}, True),
        ("false", {"oneOf": [{"type": "number"}, {"type": "boolean"}]}, False),
    ],
)
def test_convert_value(raw: str, schema: Any, expected: Any) -> None:
    assert same(convert_value(raw, schema), expected)


@pytest.mark.parametrize(
    ("raw", "schema"),
    [
        ("many", INTEGER),
        ("7.5", INTEGER),
        ("", INTEGER),
        ("NaN", NUMBER),
        ("inf", NUMBER),
        ("Infinity", NUMBER),
        ("1,5", NUMBER),
        ("yes", BOOLEAN),
        ("1", BOOLEAN),
        ("nil", NULL),
        ("not json", OBJECT),
        ("[1, 2]", OBJECT),
        ('{"a": 1}', ARRAY),
        ("(1, 2)", ARRAY),
        ("{'a': object()}", OBJECT),
        ("{'a': {1, 2}}", OBJECT),
        ("x", {"type": "nonsense"}),
    ],
)
def test_convert_value_keeps_the_raw_string_when_the_value_does_not_fit(raw: str, schema: Any) -> None:
    assert convert_value(raw, schema) == raw


@pytest.mark.parametrize(
    ("raw", "schema"),
    [
        ("5", {"type": 5}),
        ("5", {"anyOf": "not a list"}),
        ("5", {"anyOf": [1, None, {"type": {"x": 1}}]}),
        ("5", {"enum": "not a list"}),
        ("5", {"type": ["integer", 3]}),
        ("[" * 100_000, ARRAY),
        ("[" * 5_000 + "]" * 5_000, ARRAY),
        ("{" * 50_000, OBJECT),
        ("9" * 5_000, INTEGER),
        ("1e999", NUMBER),
        ("\x00\ud800", {"type": ["integer", "object", "boolean", "null"]}),
    ],
)
def test_convert_value_never_raises_and_gives_json(raw: str, schema: Any) -> None:
    value = convert_value(raw, schema)
    json.dumps(value)  # whatever it is, it can be sent as JSON
    assert not isinstance(value, float) or value == value  # no NaN


def test_integer_schema_gives_int_not_float() -> None:
    assert type(convert_value("7.0", INTEGER)) is int
    assert type(convert_value("3", NUMBER)) is int  # JSON 3 is a number; not turned into 3.0


# -- coerce: nested typing ---------------------------------------------------------------------------------------

NESTED = {
    "type": "object",
    "properties": {
        "depth": {"type": "integer"},
        "name": {"type": "string"},
        "inner": {"type": "object", "properties": {"flag": {"type": "boolean"}, "ratio": {"type": "number"}}},
        "ids": {"type": "array", "items": {"type": "integer"}},
        "rows": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer"}}}},
    },
}


def test_coerce_types_nested_members_and_items() -> None:
    value = {
        "depth": "2",
        "name": "7",
        "inner": {"flag": "true", "ratio": "0.5", "extra": "1"},
        "ids": ["1", 2, "x"],
        "rows": [{"n": "3"}, {"n": 4}],
        "unknown": "5",
    }
    expected = {
        "depth": 2,
        "name": "7",
        "inner": {"flag": True, "ratio": 0.5, "extra": "1"},
        "ids": [1, 2, "x"],
        "rows": [{"n": 3}, {"n": 4}],
        "unknown": "5",
    }
    assert same(coerce(value, NESTED), expected)


def test_coerce_without_schema_or_matching_shape_returns_the_value() -> None:
    assert coerce({"a": "1"}, None) == {"a": "1"}
    assert coerce({"a": "1"}, {"type": "object"}) == {"a": "1"}
    assert coerce(["1"], {"type": "array"}) == ["1"]
    assert coerce("1", INTEGER) == "1"  # coerce types nested members; a scalar is convert_value's job


def test_convert_value_types_nested_members() -> None:
    raw = '{"depth": "2", "inner": {"flag": "false"}, "ids": ["4"]}'
    assert same(convert_value(raw, NESTED), {"depth": 2, "inner": {"flag": False}, "ids": [4]})


def test_convert_value_types_nested_members_of_an_anyof_branch() -> None:
    schema = {"anyOf": [NESTED, {"type": "null"}]}
    assert same(convert_value('{"depth": "2", "ids": ["4"]}', schema), {"depth": 2, "ids": [4]})
    assert convert_value("null", schema) is None


# -- ToolSchemas -------------------------------------------------------------------------------------------------

WEATHER_PARAMS = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}, "odd": "not a schema"},
}


def _dict_tools() -> list[Any]:
    return [
        {"type": "function", "function": {"name": "get_weather", "parameters": WEATHER_PARAMS}},
        {"type": "function", "function": {"name": "get_time"}},
        {"type": "function", "function": {"name": "no_props", "parameters": {"type": "object"}}},
        {"name": "bare_fn", "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}},
        {"type": "web_search"},
        {"type": "function", "function": {"name": 123}},
        "garbage",
    ]


@dataclass
class _Function:  # the shape of an engine's pydantic tool model, as a plain object
    name: str
    parameters: dict[str, Any] | None = None
    description: str | None = None


@dataclass
class _Tool:
    function: _Function
    type: str = "function"


def _object_tools() -> list[Any]:
    return [
        _Tool(_Function("get_weather", WEATHER_PARAMS)),
        _Tool(_Function("get_time", None)),
        SimpleNamespace(type="function", function=SimpleNamespace(name="ns_tool", parameters=WEATHER_PARAMS)),
    ]


def test_tool_schemas_from_dict_tools() -> None:
    schemas = ToolSchemas(_dict_tools())
    assert schemas
    assert schemas.names == ["get_weather", "get_time", "no_props", "bare_fn"]
    assert "get_weather" in schemas and "web_search" not in schemas and "nope" not in schemas
    assert schemas.parameter("get_weather", "days") == {"type": "integer"}
    assert schemas.parameter("get_weather", "odd") is None
    assert schemas.parameter("get_weather", "missing") is None
    assert schemas.parameter("get_time", "x") is None
    assert schemas.parameter("no_props", "x") is None
    assert schemas.parameter("bare_fn", "n") == {"type": "integer"}
    assert schemas.parameter("unknown_tool", "days") is None


def test_tool_schemas_from_object_tools() -> None:
    schemas = ToolSchemas(_object_tools())
    assert schemas.names == ["get_weather", "get_time", "ns_tool"]
    assert schemas.parameter("get_weather", "days") == {"type": "integer"}
    assert schemas.parameter("ns_tool", "city") == {"type": "string"}
    assert schemas.parameter("get_time", "x") is None


@pytest.mark.parametrize("tools", [None, [], ()])
def test_tool_schemas_empty(tools: Any) -> None:
    schemas = ToolSchemas(tools)
    assert not schemas and schemas.names == [] and schemas.parameter("f", "x") is None


@pytest.mark.parametrize("make_tools", [_dict_tools, _object_tools], ids=["dict-tools", "object-tools"])
def test_parser_types_values_with_either_tool_shape(make_tools: Any) -> None:
    text = (
        "<tool_call>\n<function=get_weather>\n<parameter=city>\n42\n</parameter>\n<parameter=days>\n3\n</parameter>\n"
        "</function>\n</tool_call>"
    )
    message = parse(text, make_tools())
    assert same(json.loads(message.tool_calls[0].arguments), {"city": "42", "days": 3})


def test_parser_accepts_a_tools_iterator_once() -> None:
    tools = iter([{"type": "function", "function": {"name": "get_weather", "parameters": WEATHER_PARAMS}}])
    parser = StreamParser(tools, ParserOptions())
    events = parser.feed("<longcat_tool_call>get_weather\n<longcat_arg_key>days</longcat_arg_key>")
    events += parser.feed("<longcat_arg_value>5</longcat_arg_value></longcat_tool_call>") + parser.finish()
    assert json.loads(parser.calls[0].arguments) == {"days": 5}
    assert events


@pytest.mark.parametrize("defs_key", ["$defs", "definitions"])
def test_local_refs_are_followed(defs_key: str) -> None:
    params = {
        "type": "object",
        defs_key: {"Opts": {"type": "object", "properties": {"depth": {"type": "integer"}}}},
        "properties": {
            "opts": {"$ref": f"#/{defs_key}/Opts"},
            "maybe": {"anyOf": [{"$ref": f"#/{defs_key}/Opts"}, {"type": "null"}]},
            "loop": {"$ref": "#"},  # a self-reference must not loop forever
        },
    }
    tools = [{"type": "function", "function": {"name": "setup", "parameters": params}}]
    text = (
        '<function=setup>\n<parameter=opts>\n{"depth": "2"}\n</parameter>\n<parameter=maybe>\nnull\n</parameter>\n'
        '<parameter=loop>\n{"opts": {"depth": "5"}}\n</parameter>\n</function>'
    )
    arguments = json.loads(parse(text, tools).tool_calls[0].arguments)
    assert same(arguments, {"opts": {"depth": 2}, "maybe": None, "loop": {"opts": {"depth": 5}}})


@dataclass
class _Weird:
    function: Any = field(default_factory=lambda: SimpleNamespace(name="w", parameters="not a mapping"))


def test_tool_with_non_mapping_parameters_has_no_parameter_schemas() -> None:
    schemas = ToolSchemas([_Weird()])
    assert "w" in schemas and schemas.parameter("w", "x") is None


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"q": "a?"}, {"q": "b?"}', [{"q": "a?"}, {"q": "b?"}]),
        ("{'q': 1}, {'q': 2}", [{"q": 1}, {"q": 2}]),
        ("1, 2", [1, 2]),
        ('{"q": 1}', '{"q": 1}'),
        ("(1, 2)", "(1, 2)"),
        ("a, b", "a, b"),
    ],
)
def test_an_array_written_without_its_brackets_is_read_as_the_array(raw: str, expected: Any) -> None:
    assert convert_value(raw, {"type": "array"}) == expected


# -- issue 29, item 6: schema types as real tools write them (one table for every plain-text value) -------------


@pytest.mark.parametrize("schema", [INTEGER, NUMBER, BOOLEAN, OBJECT, ARRAY, {"type": "float"}])
def test_null_is_json_null_whatever_the_type(schema: Any) -> None:
    assert convert_value("null", schema) is None
    assert convert_value(" null\n", schema) is None


@pytest.mark.parametrize(
    ("raw", "schema", "expected"),
    [
        ("3.14", {"type": "float"}, 3.14),
        ("2", {"type": "double"}, 2),
        ("5", {"type": "int"}, 5),
        ("true", {"type": "bool"}, True),
        ('{"a": 1}', {"type": "dict"}, {"a": 1}),
        ("[1, 2]", {"type": "list"}, [1, 2]),
        ("[1, 2]", {"type": ["list", "null"]}, [1, 2]),
    ],
)
def test_type_names_real_tools_write(raw: str, schema: Any, expected: Any) -> None:
    assert same(convert_value(raw, schema), expected)
    assert not is_string_schema(schema)


def test_one_object_where_an_array_of_objects_belongs_is_that_array() -> None:
    schema = {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer"}}}}
    assert same(convert_value('{"n": "1"}', schema), [{"n": 1}])
    assert same(convert_value("{'n': 2}", schema), [{"n": 2}])
    assert convert_value('{"n": 1}', {"type": "array", "items": {"type": "integer"}}) == '{"n": 1}'


ARRAY_OR_STRING = {"type": ["array", "string"]}
ANYOF_ARRAY_STRING = {"anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "string"}]}
STRING_OR_NUMBER = {"type": ["string", "number"]}


@pytest.mark.parametrize(
    ("raw", "schema", "expected"),
    [
        ('["a", "b"]', ARRAY_OR_STRING, ["a", "b"]),
        ('["1", 2]', ANYOF_ARRAY_STRING, [1, 2]),
        ("[not json", ARRAY_OR_STRING, "[not json"),
        ("todo list", ARRAY_OR_STRING, "todo list"),
        ("42", STRING_OR_NUMBER, 42),
        ("-1.5e3", STRING_OR_NUMBER, -1500.0),
        ("007", STRING_OR_NUMBER, "007"),  # (not a number as JSON writes one: the string)
        ("42 apples", STRING_OR_NUMBER, "42 apples"),
        ("null", STRING_OR_NUMBER, "null"),  # (the schema admits no null: a string)
        ("null", {"type": ["string", "null"]}, None),
        ("true", {"type": ["string", "boolean"]}, True),
        ("True", {"type": ["string", "boolean"]}, "True"),
    ],
)
def test_a_union_with_a_string_types_values_written_as_strict_json(raw: str, schema: Any, expected: Any) -> None:
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"properties": {"v": schema}}}}]
    text = f"<tool_call>\n<function=f>\n<parameter=v>\n{raw}\n</parameter>\n</function>\n</tool_call>"
    whole = parse(text, tools)
    assert same(json.loads(whole.tool_calls[0].arguments), {"v": expected})
    parser = StreamParser(tools)  # streamed a character at a time: the same
    streamed = [e for c in text for e in parser.feed(c)] + parser.finish()
    args = "".join(getattr(e, "text", "") for e in streamed if type(e).__name__ == "ToolCallArgs")
    assert args == whole.tool_calls[0].arguments
