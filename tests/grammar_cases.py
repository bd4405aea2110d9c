"""What the grammar round-trip tests of both engines share: schema shapes with intended (and wrongly typed)
arguments, the strict tool that declares them, and the call a model writes for them in a dialect."""

from __future__ import annotations

import json
from typing import Any

from longcat_plugins.core import tags as T
from longcat_plugins.core.dialects import Dialect

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
    ("enum", {"unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, {"unit": "celsius"}, None),
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


def strict_tool(properties: dict[str, Any] | None) -> dict[str, Any]:
    """A strict tool with these parameters (a ``$defs`` entry among them goes to the root of the schema)."""
    properties = dict(properties or {})
    definitions = properties.pop("$defs", None)
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if properties:
        parameters["required"] = list(properties)
    if definitions is not None:
        parameters["$defs"] = definitions
    return {"type": "function", "function": {"name": "lookup", "parameters": parameters, "strict": True}}


def raw_value(value: Any) -> str:
    """A value as the markup dialects write it: a string bare, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value)


def written(dialect: Dialect, name: str, arguments: dict[str, Any]) -> str:
    """The call the model writes in ``dialect``: the dialect's begin and end around the arguments in its style."""
    if dialect.body == "json":
        body = json.dumps(arguments)
    elif dialect.body == "kv":
        body = "".join(
            f"{T.ARG_KEY_OPEN}{k}{T.ARG_KEY_CLOSE}\n{T.ARG_VALUE_OPEN}{raw_value(v)}{T.ARG_VALUE_CLOSE}\n"
            for k, v in arguments.items()
        )
    else:
        body = "\n".join(f"<parameter={k}>\n{raw_value(v)}\n</parameter>" for k, v in arguments.items())
    return dialect.begin(name) + body + dialect.end


def read_back(text: str, tool: dict[str, Any]) -> list[tuple[str, Any]]:
    """The calls the core reads in ``text`` (tools on, reasoning off), with their arguments decoded."""
    from longcat_plugins.core import ParserOptions, parse

    message = parse(text, [tool], ParserOptions(reasoning=False))
    return [(call.name, json.loads(call.arguments)) for call in message.tool_calls]
