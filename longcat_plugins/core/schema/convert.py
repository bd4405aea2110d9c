"""Value conversion: the plain-text value of a non-string parameter as the JSON value its schema asks for.

The raw text is tried as each type the schema admits, in order; the first that fits wins, and the value's nested members
are typed by their own schemas, down to :data:`MAX_TYPED_DEPTH` levels (kept as parsed below). When no type fits, the
raw text is kept as a string, except ``null``, which is JSON null whatever the type (as both engines' built-in parsers
read it). An array of objects given as one object (JSON or a Python literal) is the array of that object. A schema that
admits a string and other types (``["string", "number"]``, ``["array", "string"]``, an ``anyOf`` of them) gives the
value of another type only where the text is that value written as strict JSON, unambiguously (:func:`convert_union`:
``42``, ``null``, ``[1, 2]``); any other text is the string. Converted values are strict JSON (see
``core.strict_json``): a number outside the range of a double, anywhere in a value, fails the conversion to that type,
so ``[1e999]`` for an array parameter is kept as the string ``"[1e999]"``; a lone surrogate becomes U+FFFD, in converted
values and in raw text alike.
"""

from __future__ import annotations

import ast
import math
import re
import warnings
from collections.abc import Mapping
from typing import Any, Final

from ..strict_json import INVALID, fits_double, parse_strict_json, strict_json_value, to_well_formed
from .refs import Schema, SchemaNode, as_node
from .types import admitted_types, branch_for, is_string_schema

MAX_TYPED_DEPTH: Final = 32  # levels of nesting typed below a parameter's value
_MAX_LITERAL_EVAL: Final = 100_000  # Python-literal fallback only for values of reasonable size
#: the order in which a union that admits a string tries its other types (the string is what is left)
_UNION_ORDER: Final = ("null", "integer", "number", "boolean", "object", "array")
_JSON_INTEGER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)")
_JSON_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
#: what may still become a JSON number (a union's value is held while it may)
_NUMBER_PREFIX: Final = re.compile(r"-?[0-9]*\.?[0-9]*(?:[eE][+-]?[0-9]*)?")
#: an integer of at most this many characters fits a double (see ``fits_double``)
_MAX_SHORT_INTEGER: Final = 300
_MAX_SCALAR_TEXT: Final = 64  # how long a union's value may still read as a number
_WHITESPACE: Final = " \t\r\n"


def convert_value(raw: str, schema: Schema | None) -> Any:
    """The JSON value of the raw text of a non-string parameter, typed by its schema (the raw text on failure)."""
    node = as_node(schema)
    if node is not None:
        types = node.types if node.types is not None else admitted_types(node)
        if types and types[0] == "integer":  # (the common case, an integer written as JSON: what _convert gives too)
            text = raw.strip()
            if len(text) <= _MAX_SHORT_INTEGER and _JSON_INTEGER.fullmatch(text) is not None:
                return int(text)
    return _convert(raw, node, 0)


def coerce(value: Any, schema: Schema | None) -> Any:
    """Type the nested values of a parsed object or array by their schemas (strings that should be numbers...)."""
    return _coerce(value, as_node(schema), 0)


def convert_union(raw: str, schema: Schema | None) -> Any:
    """The value of a parameter whose schema admits a string and other types: of another type where the text is
    that value written as strict JSON (tried in the order null, integer, number, boolean, object, array), else the
    text as a string."""
    node = as_node(schema)
    if node is not None:
        text = raw.strip(_WHITESPACE)
        types = admitted_types(node)
        for t in _UNION_ORDER:
            if t in types:
                value = _strict_value(text, t)
                if value is not INVALID:
                    return _coerce(value, branch_for(node, t), 0)
    return to_well_formed(raw)


def union_undecided(text: str, types: tuple[str, ...] | list[str]) -> bool:
    """Whether ``text``, the beginning of a value whose schema admits a string and ``types``, may still turn out a
    value of one of ``types`` (while it may, the value is held; once it cannot, it streams as a string)."""
    head = text.lstrip(_WHITESPACE)
    if not head:
        return True
    first = head[0]
    if first == "[":
        return "array" in types
    if first == "{":
        return "object" in types
    word = head.rstrip(_WHITESPACE)
    if len(word) > _MAX_SCALAR_TEXT:
        return False
    if "null" in types and "null".startswith(word):
        return True
    if "boolean" in types and ("true".startswith(word) or "false".startswith(word)):
        return True
    return ("integer" in types or "number" in types) and _NUMBER_PREFIX.fullmatch(word) is not None


def _strict_value(text: str, json_type: str) -> Any:
    """``text`` as a value of ``json_type`` written as strict JSON, or INVALID."""
    if json_type == "null":
        return None if text == "null" else INVALID
    if json_type == "boolean":
        return {"true": True, "false": False}.get(text, INVALID)
    if json_type == "integer":
        if _JSON_INTEGER.fullmatch(text) is None:
            return INVALID
        integer = int(text)
        return integer if fits_double(integer) else INVALID
    if json_type == "number":
        if _JSON_NUMBER.fullmatch(text) is None:
            return INVALID
        return parse_strict_json(text)  # (INVALID out of the range of a double)
    value = parse_strict_json(text) if text[:1] in "[{" else INVALID
    return value if isinstance(value, dict if json_type == "object" else list) else INVALID


def _convert(raw: str, node: SchemaNode | None, depth: int) -> Any:
    if node is not None:
        text = raw.strip()
        types = admitted_types(node)
        for t in types:
            ok, value = _convert_as(text, t)
            if not ok and t == "array":
                ok, value = _one_object(text, branch_for(node, t))
            if ok:
                return _coerce(value, branch_for(node, t), depth)
        if text == "null" and types:
            return None
    return to_well_formed(raw)


def _one_object(text: str, node: SchemaNode) -> tuple[bool, Any]:
    """An array whose items are objects, given as one object (JSON or a Python literal): the array of it."""
    items = node.get("items")
    if not (isinstance(items, SchemaNode) and "object" in admitted_types(items)):
        return False, None
    ok, value = _convert_as(text, "object")
    return (True, [value]) if ok else (False, None)


def _coerce(value: Any, node: SchemaNode | None, depth: int) -> Any:
    if node is None or depth >= MAX_TYPED_DEPTH:
        return value
    if isinstance(value, dict):
        properties = node.get("properties")
        if isinstance(properties, Mapping):
            return {k: _coerce_member(v, properties.get(k), depth + 1) for k, v in value.items()}
        return value
    if isinstance(value, list):
        items = node.get("items")
        if isinstance(items, SchemaNode):
            return [_coerce_member(v, items, depth + 1) for v in value]
    return value


def _coerce_member(value: Any, schema: Any, depth: int) -> Any:
    if not isinstance(schema, SchemaNode):
        return value
    if isinstance(value, str) and not is_string_schema(schema):
        return _convert(value, schema, depth)
    return _coerce(value, schema, depth)


def _convert_as(text: str, json_type: str) -> tuple[bool, Any]:
    if json_type == "integer":
        try:
            integer = int(text)
        except ValueError:
            number = parse_strict_json(text)
            if not (isinstance(number, float) and number.is_integer()):
                return False, None
            integer = int(number)
        return (True, integer) if fits_double(integer) else (False, None)
    if json_type == "number":
        number = parse_strict_json(text)
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
        value = parse_strict_json(text)
        if value is INVALID:
            value = _parse_python_literal(text)
            # the type is checked before tuples become lists: "(1, 2)" is not an array
            value = strict_json_value(value) if isinstance(value, expected) else INVALID
        if value is INVALID and json_type == "array" and text:
            value = _bare_elements(text)
        return (True, value) if isinstance(value, expected) else (False, None)
    if json_type == "string":
        return True, to_well_formed(text)
    return False, None


def _bare_elements(text: str) -> Any:
    """An array written without its brackets (``{...}, {...}``, seen from LongCat): the elements, when the text
    in brackets is an array (JSON, or a Python literal) of more than one element (``(1, 2)`` is no array)."""
    bracketed = "[" + text + "]"
    value = parse_strict_json(bracketed)
    if value is INVALID:
        value = _parse_python_literal(bracketed)
        value = strict_json_value(value) if isinstance(value, list) else INVALID
    return value if isinstance(value, list) and len(value) > 1 else INVALID


def _parse_python_literal(text: str) -> Any:
    if len(text) > _MAX_LITERAL_EVAL:
        return INVALID
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. invalid escape sequences in the model's text
            return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return INVALID
