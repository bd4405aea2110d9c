"""What the grammar round-trip tests of both engines share: schema shapes with intended (and wrongly typed)
arguments, the strict tool that declares them, and the call a model writes for them in a dialect."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from longcat_plugins.core.dialects import DIALECTS, Dialect, Parameter, declared
from tests.extra_dialects import DECLARATIONS, GLM47

PLACE = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "zip": {"type": "integer"}},
    "required": ["city", "zip"],
}

#: (id, parameters schema or None, intended arguments, arguments of the wrong type or None)
SHAPES: list[tuple[str, dict[str, Any] | None, dict[str, Any], dict[str, Any] | None]] = [
    ("string", {"city": {"type": "string"}}, {"city": "Paris"}, None),
    ("nullable-string", {"city": {"type": ["string", "null"]}}, {"city": "Paris"}, None),
    ("nullable-null", {"city": {"type": ["string", "null"]}}, {"city": None}, None),
    ("integer", {"days": {"type": "integer"}}, {"days": 3}, {"days": "three"}),
    ("number", {"temp": {"type": "number"}}, {"temp": 21.5}, {"temp": "warm"}),
    ("boolean", {"metric": {"type": "boolean"}}, {"metric": True}, {"metric": "yes"}),
    ("enum", {"unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, {"unit": "celsius"}, {"unit": "kelvin"}),
    # whitespace of a string value is the value's: the markup dialects' one newline either side is not
    ("string-with-whitespace", {"code": {"type": "string"}}, {"code": "\n  if x:\n    y()\n\n"}, None),
    ("string-bounds", {"code": {"type": "string", "minLength": 2, "maxLength": 4}}, {"code": "ab c"}, {"code": "a"}),
    ("string-pattern", {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}}, {"code": "CDG"}, {"code": "cdg"}),
    ("optional", {"city": {"type": "string"}, "days": {"type": "integer"}, "$required": ["city"]}, {"city": "Paris"},
     {"days": 3}),
    ("object", {"place": PLACE}, {"place": {"city": "Paris", "zip": 75001}}, {"place": "Paris"}),
    (
        "array-of-objects",
        {"stops": {"type": "array", "items": PLACE}},
        {"stops": [{"city": "Paris", "zip": 75001}, {"city": "Lyon", "zip": 69001}]},
        {"stops": "Paris"},
    ),
    ("no-parameters", None, {}, None),
    ("two-parameters", {"city": {"type": "string"}, "days": {"type": "integer"}}, {"city": "Paris", "days": 3},
     {"city": "Paris", "days": "three"}),
    # as Pydantic writes a model field: a reference into the root's definitions
    ("defs-ref", {"place": {"$ref": "#/$defs/Place"}, "$defs": {"Place": PLACE}},
     {"place": {"city": "Paris", "zip": 75001}}, {"place": "Paris"}),
]  # fmt: skip


#: the test-only dialects (``tests/extra_dialects.py``), as the loader reads them
EXTRAS = [declared(d) for d in DECLARATIONS]
#: the test-only dialects by their body's shape, as read (a JSON body is declared by no body key): key/value pairs
#: (GLM-4.7's, with other tags than LongCat's, inside Hermes JSON's block tag), a name, a separator, then a JSON
#: object (Kimi-K2, DeepSeek-V3.1), markup (an XML-like call, with other tags than Qwen3-Coder's), and a JSON object
#: (Hunyuan-A13B's, in a JSON array in its block), bare keys with quoted values (FunctionGemma's); their grammars and
#: their reading derive from the declarations
PAIRED_EXTRAS = [d for d in EXTRAS if d.pairs is not None]
SEPARATED = [d for d in EXTRAS if d.separated is not None]
MARKUP_EXTRAS = [d for d in EXTRAS if d.markup is not None]
JSON_EXTRAS = [d for d in EXTRAS if d.body == "json" and d.separated is None]
#: bare keys and quoted values (FunctionGemma's)
QUOTED_EXTRAS = [d for d in EXTRAS if d.quoted is not None]
GLM_KV = declared(GLM47)


def kv_values(dialect: Dialect) -> list[tuple[str, bool]]:
    """String values of a key/value ``dialect``: (value, whether its grammar takes it). A value holds none of the
    tags that end it in its own dialect (its value's closing tag, a key's opening tag, its block's closing tag);
    another dialect's tags are text."""
    pairs = dialect.pairs
    assert pairs is not None
    own = {pairs.value_close, pairs.key_open, dialect.block.close}
    others = [
        d for d in DIALECTS.values() if d.pairs and not own & {d.pairs.value_close, d.pairs.key_open, d.block.close}
    ]
    foreign = [(f"a{o.pairs.value_close}b{o.pairs.key_open}c{o.block.close}", True) for o in others[:1] if o.pairs]
    return [
        ("Paris", True),
        *foreign,
        (f"a{pairs.value_close}b", False),
        (f"a{pairs.key_open}b", False),
        (f"a{dialect.block.close}b", False),
    ]


UNIT = {"type": "string", "enum": ["celsius", "fahrenheit"]}
FORECAST = {"city": {"type": "string"}, "days": {"type": "integer"}, "unit": UNIT}
#: calls that break their tool's schema, which every grammar must refuse, with or without ``strict``:
#: (id, parameters -- all required --, extra keys of the parameters schema, the arguments as written, in order)
BROKEN: list[tuple[str, dict[str, Any], dict[str, Any], list[tuple[str, Any]]]] = [
    ("missing-required", FORECAST, {}, [("city", "Paris"), ("days", 3)]),
    ("none-of-the-required", FORECAST, {}, []),
    ("outside-enum", FORECAST, {}, [("city", "Paris"), ("days", 3), ("unit", "kelvin")]),
    ("wrong-type", FORECAST, {}, [("city", "Paris"), ("days", "three"), ("unit", "celsius")]),
    ("repeated-key", FORECAST, {}, [("city", "Paris"), ("city", "Lyon"), ("days", 3), ("unit", "celsius")]),
    ("unknown-key", FORECAST, {"additionalProperties": False},
     [("city", "Paris"), ("days", 3), ("unit", "celsius"), ("country", "FR")]),
    ("space-around-enum", {"unit": UNIT}, {}, [("unit", " celsius  ")]),
    ("newline-around-enum", {"unit": UNIT}, {}, [("unit", "\ncelsius")]),
    ("past-max-length", {"code": {"type": "string", "maxLength": 4}}, {}, [("code", "ABCDE")]),
    ("space-past-max-length", {"code": {"type": "string", "maxLength": 4}}, {}, [("code", " ABCD")]),
    ("below-min-length", {"code": {"type": "string", "minLength": 2}}, {}, [("code", "A")]),
    ("pattern", {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}}, {}, [("code", "abc")]),
    ("nested-missing-required", {"place": PLACE}, {}, [("place", {"city": "Paris"})]),
    ("ref-wrong-type", {"place": {"$ref": "#/$defs/Place"}, "$defs": {"Place": PLACE}}, {},
     [("place", {"city": "Paris", "zip": "75001"})]),
    ("ref-enum", {"unit": {"$ref": "#/$defs/Unit"}, "$defs": {"Unit": UNIT}}, {}, [("unit", "kelvin")]),
]  # fmt: skip


def broken_tool(properties: dict[str, Any], extra: dict[str, Any], strict: bool | None) -> dict[str, Any]:
    """The tool of a :data:`BROKEN` case."""
    tool = strict_tool(properties, strict)
    tool["function"]["parameters"].update(extra)
    return tool


def strict_tool(properties: dict[str, Any] | None, strict: bool | None = True) -> dict[str, Any]:
    """A tool with these parameters, all required (a ``$defs`` entry among them goes to the root of the schema, a
    ``$required`` entry lists the required ones instead); ``strict`` as given (None: the tool does not say)."""
    properties = dict(properties or {})
    definitions = properties.pop("$defs", None)
    required = properties.pop("$required", None)
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if properties:
        parameters["required"] = list(properties) if required is None else required
    if definitions is not None:
        parameters["$defs"] = definitions
    function: dict[str, Any] = {"name": "lookup", "parameters": parameters}
    if strict is not None:
        function["strict"] = strict
    return {"type": "function", "function": function}


def compact(dialect: Dialect) -> Dialect:
    """A key/value dialect written with no line breaks (as GLM-4.7 also writes its calls)."""
    pairs = dialect.pairs
    assert pairs is not None
    parameter = Parameter(pairs.key_open, pairs.key_close + pairs.value_open, pairs.value_close)
    return replace(dialect, name_suffix="", parameter=parameter)


def written(dialect: Dialect, name: str, arguments: dict[str, Any] | list[tuple[str, Any]]) -> str:
    """The call the model writes in ``dialect`` (:meth:`~longcat_plugins.core.dialects.Dialect.write`)."""
    return dialect.write(name, arguments)


def read_back(text: str, tool: dict[str, Any]) -> list[tuple[str, Any]]:
    """The calls the core reads in ``text`` (tools on, reasoning off), with their arguments decoded."""
    from longcat_plugins.core import ParserOptions, parse

    message = parse(text, [tool], ParserOptions(reasoning=False))
    return [(call.name, json.loads(call.arguments)) for call in message.tool_calls]


def quoted_values(dialect: Dialect) -> list[tuple[str, bool]]:
    """String values of a quoted ``dialect``: (value, whether its grammar takes it). A value holds neither its quote
    token nor a tag that ends a call (a block's closing or opening tag, a call's opening tag, an end of sequence);
    the body's marks and another dialect's value tags are text."""
    quoted = dialect.quoted
    assert quoted is not None
    marks = quoted.args_open + quoted.key_end + quoted.item_separator + quoted.args_close
    return [
        ("Paris", True),
        (f"a{marks}b \"c\" d\\e", True),
        ("a</parameter>b</longcat_arg_value>c", True),
        (f"a{quoted.quote}b", False),
        (f"a{dialect.block.close}b", False),
        (f"a{dialect.block.open}b", False),
    ]
