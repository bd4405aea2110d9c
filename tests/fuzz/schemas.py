"""Random tools: parameter schemas of every JSON type (nullable, anyOf, enum, $ref, nested) and hostile ones, with
values that fit them and the typed value the core must make of each value's text."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from .texts import NO_ENDS, Sentinels, ValueEnds, identifier, opaque_value, string_value, tool_name

KINDS = ("string", "integer", "number", "boolean", "null", "array", "object", "opaque")


@dataclass(frozen=True)
class Param:
    name: str
    schema: dict[str, Any]
    #: what values to generate: one of KINDS; ``opaque`` values are text no schema can type (for hostile schemas)
    kind: str
    nullable: bool = False
    #: for arrays: the kind of the items (None: anything); for objects: the kinds of the properties
    items: str | None = None
    members: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Tool:
    name: str
    params: tuple[Param, ...]
    definition: dict[str, Any]


_SCALAR_TYPES = {"integer", "number", "boolean", "null"}


def _scalar_schema(rng: random.Random, kind: str, defs: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """A schema admitting ``kind`` (and maybe null); returns it and whether null is admitted."""
    r = rng.random()
    if r < 0.5:
        return {"type": kind}, kind == "null"
    if r < 0.65 and kind != "null":
        return {"type": [kind, "null"] if rng.random() < 0.7 else ["null", kind]}, True
    if r < 0.75 and kind != "null":
        return {"anyOf": [{"type": kind}, {"type": "null"}]}, True
    if r < 0.85:
        key = f"D{len(defs)}"
        defs[key] = {"type": kind, "description": "a definition"}
        return {"$ref": f"#/$defs/{key}"}, kind == "null"
    if kind == "boolean":
        return {"enum": [True, False]}, False
    return {"type": kind, "description": "with a description", "title": identifier(rng, 5)}, kind == "null"


def _string_schema(rng: random.Random, defs: dict[str, Any]) -> dict[str, Any]:
    r = rng.random()
    if r < 0.4:
        return {"type": "string"}
    if r < 0.5:
        return {}
    if r < 0.6:
        return {"enum": ["alpha", "beta", "gamma"]}
    if r < 0.7:
        return {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    if r < 0.8:
        return {"type": ["string", "null"]}
    if r < 0.9:
        key = f"D{len(defs)}"
        defs[key] = {"type": "string"}
        return {"$ref": f"#/$defs/{key}"}
    return {"type": "string", "description": "free text", "minLength": 1}


def _hostile_schema(rng: random.Random, defs: dict[str, Any], recursive_budget: list[int]) -> dict[str, Any]:
    """A schema that must not trouble the parser: recursive and dangling references, wrong field types."""
    if recursive_budget[0] > 0 and rng.random() < 0.3:
        recursive_budget[0] -= 1
        return rng.choice(
            [
                {"$ref": "#"},
                {"type": "object", "properties": {"child": {"$ref": "#"}}},
                {"anyOf": [{"$ref": "#"}, {"type": "null"}]},
                {"type": "array", "items": {"$ref": "#"}},
            ]
        )
    r = rng.randrange(17)
    if r == 0:
        defs["Loop"] = {"$ref": "#/$defs/Loop"}
        return {"$ref": "#/$defs/Loop"}
    if r == 1:
        defs["Loop"] = {"$ref": "#/$defs/Loop"}
        return {"type": "object", "properties": {"x": {"$ref": "#/$defs/Loop"}}}
    if r == 2:
        defs["a/b~c"] = {"type": "integer"}
        return {"$ref": "#/$defs/a~1b~0c"}
    if r == 3:
        for i in range(12):  # a chain longer than any reference depth limit
            defs[f"Chain{i}"] = {"$ref": f"#/$defs/Chain{i + 1}"}
        defs["Chain12"] = {"type": "boolean"}
        return {"$ref": "#/$defs/Chain0"}
    if r == 4:
        defs["Ping"] = {"type": "object", "properties": {"pong": {"$ref": "#/$defs/Pong"}}}
        defs["Pong"] = {"anyOf": [{"$ref": "#/$defs/Ping"}, {"type": "integer"}]}
        return {"$ref": "#/$defs/Ping"}
    plain: list[dict[str, Any]] = [
        {"$ref": "#/$defs/Nope"},
        {"$ref": 5},
        {"$ref": "http://example.com/schema.json"},
        {"$ref": "#/properties"},
        {"type": 5},
        {"type": ["integer", 7, None]},
        {"anyOf": "string"},
        {"oneOf": [1, "x", None]},
        {"items": [{"type": "integer"}]},
        {"enum": "not a list"},
        {"properties": ["a", "b"]},
        {"allOf": [{"$ref": "#/$defs/Nope"}, {"type": "integer"}]},
    ]
    return plain[r - 5]


def make_param(rng: random.Random, name: str, defs: dict[str, Any], recursive_budget: list[int]) -> Param:
    kind = rng.choices(KINDS, weights=(30, 10, 8, 8, 3, 10, 8, 8))[0]
    if kind == "string":
        schema = _string_schema(rng, defs)
        nullable = schema.get("type") == ["string", "null"]
        return Param(name, schema, "string", nullable)
    if kind in _SCALAR_TYPES:
        schema, nullable = _scalar_schema(rng, kind, defs)
        return Param(name, schema, kind, nullable)
    if kind == "array":
        items = rng.choice([None, "integer", "number", "boolean", "string", "object"])
        item_schema: dict[str, Any] = (
            {"type": "object", "properties": {"k": {"type": "integer"}, "s": {"type": "string"}}}
            if items == "object"
            else ({"type": items} if items else {})
        )
        schema = {"type": "array", "items": item_schema} if items else rng.choice([{"type": "array"}, {"items": {}}])
        return Param(name, schema, "array", items=items)
    if kind == "object":
        members = tuple((identifier(rng, 6), rng.choice(["integer", "string", "boolean", "number"])) for _ in range(3))
        properties = {k: {"type": t} for k, t in members}
        schema = {"type": "object", "properties": properties} if rng.random() < 0.8 else {"properties": properties}
        if rng.random() < 0.3:
            schema = {"anyOf": [schema, {"type": "null"}]}
            return Param(name, schema, "object", nullable=True, members=members)
        return Param(name, schema, "object", members=members)
    return Param(name, _hostile_schema(rng, defs, recursive_budget), "opaque")


def make_tool(
    rng: random.Random, name: str | None = None, hostile: bool = False, sentinel: Sentinels | None = None
) -> Tool:
    name = name or tool_name(rng)
    defs: dict[str, Any] = {}
    recursive_budget = [rng.choice((1, 1, 2)) if hostile else 0]
    params: list[Param] = []
    seen: set[str] = set()
    for _ in range(rng.randrange(6)):
        pname = identifier(rng, 10)
        if sentinel is not None and rng.random() < 0.3:
            pname = f"{pname[:4]}_{sentinel()}"  # a key that must come out somewhere
        if pname in seen:
            continue
        seen.add(pname)
        param = make_param(rng, pname, defs, recursive_budget)
        if param.kind == "opaque" and not hostile:
            param = Param(pname, {"type": "string"}, "string")
        params.append(param)
    parameters: Any = {"type": "object", "properties": {p.name: p.schema for p in params}}
    if defs:
        parameters["$defs"] = defs
    if hostile and rng.random() < 0.2:
        # a broken root: no parameter has a usable schema, every value stays the raw string
        parameters = rng.choice(["not an object", None, {"properties": "nope"}, {"properties": [1, 2]}])
        params = [Param(p.name, {}, "opaque") for p in params]
    function: dict[str, Any] = {"name": name, "description": f"the {name} tool", "parameters": parameters}
    definition = {"type": "function", "function": function} if rng.random() < 0.9 else function
    return Tool(name, tuple(params), definition)


# -- values --------------------------------------------------------------------------------------------------------


def _json_scalar(rng: random.Random, kind: str, sentinel: Sentinels, ends: ValueEnds) -> Any:
    if kind == "integer":
        return rng.choice([0, 1, -1, rng.randrange(-1000, 1000), rng.randrange(-(10**15), 10**15)])
    if kind == "number":
        return rng.choice([0.5, -2.25, 1e-7, 3.0, rng.uniform(-1e6, 1e6), 1.5e300])
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    return string_value(rng, sentinel, ends)


def value_for(rng: random.Random, param: Param, sentinel: Sentinels, ends: ValueEnds) -> Any:
    """A value for the parameter (a Python/JSON value, or a str that must come back as that string)."""
    if param.nullable and rng.random() < 0.3 and param.kind != "string":
        return None
    if param.kind == "opaque":
        return opaque_value(rng, sentinel)
    if param.kind == "string":
        while True:
            text = string_value(rng, sentinel, ends)
            if text.strip().lower() not in ("null", "none") or not param.nullable:
                return text
    if param.kind == "array":
        kind = param.items or rng.choice(["integer", "string", "boolean", "null"])
        if kind == "object":
            return [{"k": rng.randrange(100), "s": string_value(rng, sentinel, ends)} for _ in range(rng.randrange(3))]
        return [_json_scalar(rng, kind, sentinel, ends) for _ in range(rng.randrange(4))]
    if param.kind == "object":
        return {k: _json_scalar(rng, t, sentinel, ends) for k, t in param.members if rng.random() < 0.8}
    return _json_scalar(rng, param.kind, sentinel, ends)


def render_plain(rng: random.Random, param: Param, value: Any) -> str:
    """The text of a value in the XML / key/value dialects."""
    if isinstance(value, str) and param.kind in ("string", "opaque"):
        return value
    if value is None:
        return rng.choice(["null", "None", "null", "NULL"])
    if isinstance(value, bool):
        text = "true" if value else "false"
        return rng.choice([text, text.capitalize()])
    if isinstance(value, (int, float)):
        text = repr(value)
        return rng.choice([text, text, f" {text} "])
    return json.dumps(value, ensure_ascii=rng.random() < 0.3, indent=rng.choice([None, None, 1]))


def json_arguments(rng: random.Random, sentinel: Sentinels, depth: int = 0) -> Any:
    """Any JSON value, for the JSON dialects (arguments are not typed by schema there)."""
    r = rng.random()
    if depth < 3 and r < 0.15:
        return [json_arguments(rng, sentinel, depth + 1) for _ in range(rng.randrange(4))]
    if depth < 3 and r < 0.3:
        return {string_value(rng, sentinel): json_arguments(rng, sentinel, depth + 1) for _ in range(rng.randrange(4))}
    kind = rng.choice(["integer", "number", "boolean", "null", "string", "string"])
    return _json_scalar(rng, kind, sentinel, NO_ENDS)
