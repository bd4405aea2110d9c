"""The request's tools, and typing of the plain-text parameter values of the XML and key/value dialects.

A value whose schema admits a string (or that has no schema) is a string, streamed as it arrives. Any other value is
read whole and converted by its schema when it closes; when the conversion fails the raw text is kept as a string.

Converted values are strict JSON (what ``JSON.parse`` and serde_json accept):

* a number outside the range of a double (``1e999``, an integer of 400 digits), anywhere in a value, fails the
  conversion to that type, so ``[1e999]`` for an array parameter is kept as the string ``"[1e999]"``; NaN and Infinity
  are never produced;
* a surrogate code point without its other half (``{"a": "\\ud83d"}``) becomes U+FFFD, in converted values and in raw
  text kept as a string alike; a pair written as two code points (a Python literal) is joined.
"""

from __future__ import annotations

import ast
import json
import math
import re
import warnings
from collections.abc import Iterable, Mapping
from typing import Any, Final

Schema = Mapping[str, Any]

_MAX_LITERAL_EVAL = 100_000  # Python-literal fallback only for values of reasonable size
_INVALID: Any = object()


class ToolSchemas:
    """Name -> parameters schema of the request's function tools."""

    __slots__ = ("_params", "_resolved")

    def __init__(self, tools: Iterable[Any] | None) -> None:
        self._params: dict[str, Schema] = {}
        self._resolved: dict[tuple[str, str], Schema | None] = {}
        for tool in tools or ():
            function = _field(tool, "function")
            if function is None and _field(tool, "name") is not None:
                function = tool  # a bare function definition
            name = _field(function, "name") if function is not None else None
            if not isinstance(name, str):
                continue
            params = _field(function, "parameters")
            self._params[name] = params if isinstance(params, Mapping) else {}

    def __bool__(self) -> bool:
        return bool(self._params)

    def __contains__(self, name: object) -> bool:
        return name in self._params

    @property
    def names(self) -> list[str]:
        return list(self._params)

    def parameter(self, tool: str, name: str) -> Schema | None:
        """The schema of parameter ``name`` of ``tool`` with its local ``$ref``s resolved, or None when unknown."""
        key = (tool, name)
        if key in self._resolved:
            return self._resolved[key]
        root = self._params.get(tool, {})
        properties = root.get("properties")
        schema = properties.get(name) if isinstance(properties, Mapping) else None
        resolved = _resolve_refs(schema, root, _MAX_REF_DEPTH) if isinstance(schema, Mapping) else None
        self._resolved[key] = resolved
        return resolved


_MAX_REF_DEPTH = 8  # how deep references are inlined (a recursive schema is cut off there)


def _resolve_refs(schema: Any, root: Schema, depth: int) -> Any:
    """``schema`` with local references (``#/$defs/X``, ``#/definitions/X``, ``#``) replaced by what they point to."""
    if isinstance(schema, list):
        return [_resolve_refs(item, root, depth) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = _follow_pointer(root, ref) if depth > 0 else None
        if target is None:
            return {k: v for k, v in schema.items() if k != "$ref"}  # unresolvable: no constraint from it
        merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        return _resolve_refs(merged, root, depth - 1)
    return {k: _resolve_refs(v, root, depth) for k, v in schema.items()}


def _follow_pointer(root: Schema, ref: str) -> Mapping[str, Any] | None:
    if not ref.startswith("#"):
        return None  # remote references are not fetched
    node: Any = root
    for part in filter(None, ref[1:].split("/")):
        part = part.replace("~1", "/").replace("~0", "~")
        node = node.get(part) if isinstance(node, Mapping) else None
    return node if isinstance(node, Mapping) else None


def _field(obj: Any, name: str) -> Any:
    """A field of a tool given as a dict or as an object (engines pass pydantic models)."""
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def schema_types(schema: Schema | None) -> list[str]:
    """The JSON types a schema admits, in the order given (empty: anything)."""
    if not schema:
        return []
    types: list[str] = []
    declared = schema.get("type")
    if isinstance(declared, str):
        types.append(declared)
    elif isinstance(declared, list):
        types.extend(t for t in declared if isinstance(t, str))
    for key in ("anyOf", "oneOf", "allOf"):
        for option in schema.get(key) or ():
            if isinstance(option, Mapping):
                types.extend(t for t in schema_types(option) if t not in types)
    if not types and isinstance(schema.get("enum"), list):
        for value in schema["enum"]:
            t = _json_type(value)
            if t not in types:
                types.append(t)
    if not types and isinstance(schema.get("properties"), Mapping):
        types.append("object")
    if not types and "items" in schema:
        types.append("array")
    return types


def is_string_schema(schema: Schema | None) -> bool:
    """Whether a value with this schema is streamed as a string."""
    types = schema_types(schema)
    return not types or "string" in types


def convert_value(raw: str, schema: Schema | None) -> Any:
    """The JSON value of the raw text of a non-string parameter, typed by its schema (the raw text on failure)."""
    text = raw.strip()
    for t in schema_types(schema):
        ok, value = _convert_as(text, t, schema)
        if ok:
            return coerce(value, _branch_for(schema, t))
    return _clean_text(raw)


def _branch_for(schema: Schema | None, json_type: str) -> Schema | None:
    """The part of ``schema`` that describes values of ``json_type`` (the matching anyOf/oneOf option)."""
    if not schema:
        return schema
    declared = schema.get("type")
    if declared == json_type or (isinstance(declared, list) and json_type in declared):
        return schema
    for key in ("anyOf", "oneOf", "allOf"):
        for option in schema.get(key) or ():
            if isinstance(option, Mapping) and json_type in schema_types(option):
                return _branch_for(option, json_type)
    return schema


def coerce(value: Any, schema: Schema | None) -> Any:
    """Type the nested values of a parsed object or array by their schemas (strings that should be numbers...)."""
    if not schema:
        return value
    if isinstance(value, dict):
        properties = schema.get("properties")
        if isinstance(properties, Mapping):
            return {k: _coerce_member(v, properties.get(k)) for k, v in value.items()}
        return value
    if isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, Mapping):
            return [_coerce_member(v, items) for v in value]
    return value


def _coerce_member(value: Any, schema: Any) -> Any:
    if not isinstance(schema, Mapping):
        return value
    if isinstance(value, str) and not is_string_schema(schema):
        converted = convert_value(value, schema)
        return converted
    return coerce(value, schema)


def _convert_as(text: str, json_type: str, schema: Schema | None) -> tuple[bool, Any]:
    if json_type == "integer":
        try:
            integer = int(text)
        except ValueError:
            number = _parse_json(text)
            if not (isinstance(number, float) and number.is_integer()):
                return False, None
            integer = int(number)
        return (True, integer) if _fits_double(integer) else (False, None)
    if json_type == "number":
        number = _parse_json(text)
        if isinstance(number, (int, float)) and not isinstance(number, bool):
            return True, number  # finite: the JSON reader rejects what is not
        try:
            value = float(text)
        except ValueError:
            return False, None
        return (True, value) if math.isfinite(value) else (False, None)
    if json_type == "boolean":
        lowered = text.lower()
        if lowered in ("true", "false"):
            return True, lowered == "true"
        return False, None
    if json_type == "null":
        return (True, None) if text.lower() in ("null", "none") else (False, None)
    if json_type in ("object", "array"):
        expected = dict if json_type == "object" else list
        value = _parse_json(text)
        if value is _INVALID:
            value = _parse_python_literal(text)
            # the type is checked before tuples become lists: "(1, 2)" is not an array
            value = _strict_value(value) if isinstance(value, expected) else _INVALID
        return (True, value) if isinstance(value, expected) else (False, None)
    if json_type == "string":
        return True, _clean_text(text)
    return False, None


# -- strict JSON values -------------------------------------------------------------------------------------------

_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_SURROGATE_OR_ESCAPE: Final = re.compile(r"[\ud800-\udfff]|\\u[dD][89a-fA-F]")
_MAX_DOUBLE_DIGITS: Final = 308  # an integer with no more digits is always within the range of a double


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range")
    return value


def _bounded_int(text: str) -> int:
    value = int(text)
    if len(text) > _MAX_DOUBLE_DIGITS and not _fits_double(value):
        raise ValueError("integer out of range")
    return value


def _fits_double(value: int) -> bool:
    """Whether a JSON reader that reads numbers as doubles gets a finite number from this integer."""
    try:
        float(value)
    except OverflowError:
        return False
    return True


def _parse_json(text: str) -> Any:
    """The value of a JSON text, _INVALID unless it is strict JSON; a lone surrogate in it becomes U+FFFD."""
    try:
        value = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float, parse_int=_bounded_int)
    except (ValueError, RecursionError):
        return _INVALID
    if _SURROGATE_OR_ESCAPE.search(text):
        value = _strict_value(value)
    return value


def _parse_python_literal(text: str) -> Any:
    if len(text) > _MAX_LITERAL_EVAL:
        return _INVALID
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. invalid escape sequences in the model's text
            return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _INVALID


def strict_json_dumps(value: Any) -> str | None:
    """``value`` as JSON text that strict readers accept (lone surrogates replaced as above), or None when it holds
    what they refuse or JSON cannot carry (a number out of range, NaN, a set...)."""
    value = _strict_value(value)
    if value is _INVALID:
        return None
    try:
        return json.dumps(value, ensure_ascii=False)
    except (ValueError, RecursionError):
        return None


def _clean_text(text: str) -> str:
    """``text`` with each surrogate code point that has no other half replaced by U+FFFD (a pair is joined)."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _strict_value(value: Any) -> Any:
    """``value`` as a JSON value that strict readers accept (text cleaned, tuples as lists, keys as JSON writes
    them), or _INVALID when it holds something JSON cannot carry: a number out of range, a set, bytes... Walks the
    value with an explicit stack, so any depth is fine."""
    top: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, top, 0)]
    while stack:
        item, parent, slot = stack.pop()
        if isinstance(item, str):
            item = _clean_text(item)
        elif isinstance(item, bool) or item is None:
            pass
        elif isinstance(item, int):
            if not _fits_double(item):
                return _INVALID
        elif isinstance(item, float):
            if not math.isfinite(item):
                return _INVALID
        elif isinstance(item, (list, tuple)):
            items = item
            item = [None] * len(items)
            stack.extend((member, item, i) for i, member in enumerate(items))
        elif isinstance(item, dict):
            members = item
            item = {}
            for key, member in members.items():
                name = _json_key(key)
                if name is _INVALID:
                    return _INVALID
                item[name] = None  # keeps the order of the keys
                stack.append((member, item, name))
        else:
            return _INVALID
        parent[slot] = item
    return top[0]


def _json_key(key: Any) -> Any:
    """A dict key as JSON writes it (``1`` -> ``"1"``, ``None`` -> ``"null"``), or _INVALID."""
    if isinstance(key, str):
        return _clean_text(key)
    if key is None or isinstance(key, bool):
        return json.dumps(key)
    if isinstance(key, int):
        return str(key) if _fits_double(key) else _INVALID
    if isinstance(key, float):
        return repr(key) if math.isfinite(key) else _INVALID
    return _INVALID


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"
