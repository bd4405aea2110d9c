"""The request's tools, and typing of the plain-text parameter values of the XML and key/value dialects.

A value whose schema admits a string (or that has no schema) is a string, streamed as it arrives. Any other value is
read whole and converted by its schema when it closes; when the conversion fails the raw text is kept as a string.

Converted values are strict JSON (what ``JSON.parse`` and serde_json accept):

* a number outside the range of a double (``1e999``, an integer of 400 digits), anywhere in a value, fails the
  conversion to that type, so ``[1e999]`` for an array parameter is kept as the string ``"[1e999]"``; NaN and Infinity
  are never produced;
* a surrogate code point without its other half (``{"a": "\\ud83d"}``) becomes U+FFFD, in converted values and in raw
  text kept as a string alike; a pair written as two code points (a Python literal) is joined.

Tool schemas come from the API client, so nothing in them may cost more than their size. References are never
inlined: :meth:`ToolSchemas.parameter` returns a read-only view of the parameter's schema (:class:`SchemaNode`) that
follows a node's local ``$ref`` (``#``, ``#/$defs/X``, any JSON pointer into the tool's parameters) only when a
keyword of that node is read, at most :data:`MAX_REF_HOPS` links in a chain; a longer chain, a cycle, or a remote or
missing target adds no constraint. What the typing asks of a node (the types it admits, its branch for a type) is
computed once per node, without recursion, and kept; what many nodes share through references (an option list, a
``type`` or ``enum`` list) is answered once too, so the work is linear in the part of the schema the values reach.
``anyOf``/``oneOf``/``allOf`` options that lead round in a cycle all admit the types found anywhere in the cycle.
Type names other than the seven JSON types are ignored (a schema with only such names admits anything). Nested values
are typed down to :data:`MAX_TYPED_DEPTH` levels and kept as parsed below. A plain mapping given to the typing
functions is a schema on its own: its references point into itself.
"""

from __future__ import annotations

import ast
import json
import math
import re
import warnings
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Final

Schema = Mapping[str, Any]

MAX_REF_HOPS: Final = 16  # links followed from one node through a chain of references
MAX_TYPED_DEPTH: Final = 32  # levels of nesting typed below a parameter's value
_MAX_LITERAL_EVAL: Final = 100_000  # Python-literal fallback only for values of reasonable size

_JSON_TYPES: Final = frozenset({"string", "integer", "number", "boolean", "null", "object", "array"})
_OPTION_KEYS: Final = ("anyOf", "oneOf", "allOf")
_INDIRECT_KEYS: Final = frozenset({*_OPTION_KEYS, "$ref"})  # what may add types to a node's own ``type``
_CYCLE_ORDER: Final = ("integer", "number", "boolean", "null", "object", "array", "string")
# Keywords whose value is a schema, a list of schemas, or a map of names to schemas; other values are data.
_SCHEMA_KEYS: Final = frozenset(
    {
        "items",
        "additionalItems",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contentSchema",
    }
)
_SCHEMA_LIST_KEYS: Final = frozenset({"anyOf", "oneOf", "allOf", "prefixItems", "items"})
_SCHEMA_MAP_KEYS: Final = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})

_ABSENT: Any = object()
_UNKNOWN: Any = object()
_INVALID: Any = object()


class ToolSchemas:
    """Name -> parameters schema of the request's function tools."""

    __slots__ = ("_params", "_resolved", "_roots")

    def __init__(self, tools: Iterable[Any] | None) -> None:
        self._params: dict[str, Schema] = {}
        self._roots: dict[str, _Root] = {}
        self._resolved: dict[tuple[str, str], SchemaNode | None] = {}
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

    @property
    def ref_follows(self) -> int:
        """How many reference links have been followed so far (the work references have cost)."""
        return sum(root.follows for root in self._roots.values())

    def parameter(self, tool: str, name: str) -> SchemaNode | None:
        """The schema of parameter ``name`` of ``tool`` (its references resolved when read), or None when unknown."""
        key = (tool, name)
        if key in self._resolved:
            return self._resolved[key]
        schema: SchemaNode | None = None
        params = self._params.get(tool)
        if params is not None:
            root = self._roots.get(tool)
            if root is None:
                root = self._roots[tool] = _Root(params)
            properties = root.node(params).get("properties")
            if isinstance(properties, Mapping):
                found = properties.get(name)
                schema = found if isinstance(found, SchemaNode) else None
        self._resolved[key] = schema
        return schema


class _Root:
    """One schema document: reference resolution, and the views of its nodes (one per node, so that answers cached
    on a view are computed once)."""

    __slots__ = ("data_types", "document", "first_option", "follows", "list_types", "lists", "maps", "nodes", "targets")

    def __init__(self, document: Schema) -> None:
        self.document = document
        # Keyed by the id of the raw object, which each entry keeps alive (so the id is not reused meanwhile).
        self.nodes: dict[int, SchemaNode] = {}
        self.lists: dict[int, tuple[list[Any], list[Any]]] = {}
        self.maps: dict[int, _SchemaMap] = {}
        self.targets: dict[str, Mapping[str, Any] | None] = {}
        # Answers about lists, which many nodes can share through references: each is computed once.
        self.list_types: dict[int, tuple[str, ...]] = {}  # id of an option list view -> the types its options admit
        self.first_option: dict[tuple[int, str], SchemaNode | None] = {}  # (list, type) -> first option admitting it
        self.data_types: dict[tuple[int, str], tuple[Any, tuple[str, ...]]] = {}  # a "type" or "enum" list's types
        self.follows = 0

    def node(self, raw: Mapping[str, Any]) -> SchemaNode:
        node = self.nodes.get(id(raw))
        if node is None:
            node = self.nodes[id(raw)] = SchemaNode(raw, self)
        return node

    def wrap(self, key: str, value: Any) -> Any:
        """A keyword's value as seen through the view: schemas as views, data as it is."""
        if isinstance(value, Mapping):
            if key in _SCHEMA_KEYS:
                return self.node(value)
            if key in _SCHEMA_MAP_KEYS:
                view = self.maps.get(id(value))
                if view is None:
                    view = self.maps[id(value)] = _SchemaMap(value, self)
                return view
        elif isinstance(value, list) and key in _SCHEMA_LIST_KEYS:
            entry = self.lists.get(id(value))
            if entry is None:
                entry = self.lists[id(value)] = (
                    value,
                    [self.node(item) if isinstance(item, Mapping) else item for item in value],
                )
            return entry[1]
        return value

    def layers(self, raw: Mapping[str, Any]) -> tuple[Mapping[str, Any], ...]:
        """``raw`` and the chain of schemas its reference leads to, nearest first (a keyword of a nearer one wins)."""
        if "$ref" not in raw:
            return (raw,)
        layers = [raw]
        seen = {id(raw)}
        current = raw
        for _ in range(MAX_REF_HOPS):
            ref = current.get("$ref")
            if not isinstance(ref, str):
                break
            target = self.target(ref)
            if target is None or id(target) in seen:
                break
            seen.add(id(target))
            layers.append(target)
            current = target
        return tuple(layers)

    def target(self, ref: str) -> Mapping[str, Any] | None:
        self.follows += 1
        if ref in self.targets:
            return self.targets[ref]
        target = _follow_pointer(self.document, ref)
        self.targets[ref] = target
        return target


class SchemaNode(Mapping[str, Any]):
    """A read-only view of one schema of a tool's parameters. Its ``$ref`` is followed when a keyword is first read
    (the keywords of the node itself win over those of the target, as when the target is inlined); keywords holding
    schemas give views too."""

    __slots__ = ("_branches", "_layers", "_options", "_raw", "_root", "_types", "_values")

    def __init__(self, raw: Mapping[str, Any], root: _Root) -> None:
        self._raw = raw
        self._root = root
        self._layers: tuple[Mapping[str, Any], ...] | None = None
        self._values: dict[str, Any] = {}
        # Answers of the typing functions, computed once.
        self._options: list[list[Any]] | None = None
        self._types: tuple[str, ...] | None = None
        self._branches: dict[str, SchemaNode] = {}

    def _lookup(self, key: str) -> Any:
        value = self._values.get(key, _UNKNOWN)
        if value is not _UNKNOWN:
            return value
        value = _ABSENT
        if key != "$ref":
            layers = self._layers
            if layers is None:
                layers = self._layers = self._root.layers(self._raw)
            for layer in layers:
                if key in layer:
                    value = self._root.wrap(key, layer[key])
                    break
        self._values[key] = value
        return value

    def __getitem__(self, key: str) -> Any:
        value = self._lookup(key)
        if value is _ABSENT:
            raise KeyError(key)
        return value

    def get(self, key: str, default: Any = None) -> Any:
        value = self._values.get(key, _UNKNOWN)
        if value is _UNKNOWN:
            value = self._lookup(key)
        return default if value is _ABSENT else value

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._lookup(key) is not _ABSENT

    def _keys(self) -> list[str]:
        layers = self._layers
        if layers is None:
            layers = self._layers = self._root.layers(self._raw)
        keys: dict[str, None] = {}
        for layer in reversed(layers):  # the order of the target inlined, then the node's own keywords
            keys.update(dict.fromkeys(k for k in layer if k != "$ref"))
        return list(keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys())

    def __len__(self) -> int:
        return len(self._keys())

    def __repr__(self) -> str:
        return f"SchemaNode({self._raw!r})"


class _SchemaMap(Mapping[str, Any]):
    """A map of names to schemas (``properties``, ``$defs``...), whose schemas are views."""

    __slots__ = ("_raw", "_root")

    def __init__(self, raw: Mapping[str, Any], root: _Root) -> None:
        self._raw = raw
        self._root = root

    def __getitem__(self, key: str) -> Any:
        value = self._raw[key]
        return self._root.node(value) if isinstance(value, Mapping) else value

    def get(self, key: str, default: Any = None) -> Any:
        value = self._raw.get(key, _ABSENT)
        if value is _ABSENT:
            return default
        return self._root.node(value) if isinstance(value, Mapping) else value

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)


def _follow_pointer(document: Schema, ref: str) -> Mapping[str, Any] | None:
    if not ref.startswith("#"):
        return None  # remote references are not fetched
    node: Any = document
    for part in filter(None, ref[1:].split("/")):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping):
            node = node.get(part)
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node if isinstance(node, Mapping) else None


def _field(obj: Any, name: str) -> Any:
    """A field of a tool given as a dict or as an object (engines pass pydantic models)."""
    if type(obj) is dict or isinstance(obj, Mapping):  # (the common case first: a Mapping check is slow)
        return obj.get(name)
    return getattr(obj, name, None)


def _as_node(schema: Schema | None) -> SchemaNode | None:
    if isinstance(schema, SchemaNode):
        return schema
    if isinstance(schema, Mapping):
        return _Root(schema).node(schema)
    return None


# -- questions asked of a schema ---------------------------------------------------------------------------------


def schema_types(schema: Schema | None) -> list[str]:
    """The JSON types a schema admits, in the order given (empty: anything)."""
    node = _as_node(schema)
    return list(_types(node)) if node is not None else []


def is_string_schema(schema: Schema | None) -> bool:
    """Whether a value with this schema is streamed as a string."""
    node = _as_node(schema)
    if node is None:
        return True
    types = _types(node)
    return not types or "string" in types


def _types(node: SchemaNode) -> tuple[str, ...]:
    """The types ``node`` admits: its declared types, then those of its options (``anyOf``, ``oneOf``, ``allOf``, in
    order); when there are none, what its ``enum``, ``properties`` or ``items`` imply.

    Options can refer back to the node, so this is answered over the graph of nodes and option lists, one strongly
    connected component at a time (Tarjan's algorithm, with explicit stacks), each component once: linear in the part
    of the schema not answered before. See :func:`_settle` for a cycle."""
    if node._types is not None:
        return node._types
    raw = node._raw
    declared = raw.get("type")
    if type(declared) is str and declared in _JSON_TYPES and raw.keys().isdisjoint(_INDIRECT_KEYS):
        node._types = (declared,)  # the common case, ``{"type": "string", ...}``: what the general way finds too
        return node._types
    if not _option_lists(node):
        node._types = _own_types(node, [])
        return node._types
    list_types = node._root.list_types
    index: dict[int, int] = {id(node): 0}
    low: dict[int, int] = {id(node): 0}
    on_stack: set[int] = {id(node)}
    component: list[Any] = [node]
    work: list[tuple[Any, Iterator[Any]]] = [(node, iter(_option_lists(node)))]
    while work:
        vertex, successors = work[-1]
        for successor in successors:
            if isinstance(successor, SchemaNode):
                if successor._types is not None:
                    continue
                if not _option_lists(successor):  # a leaf: no need to visit it
                    successor._types = _own_types(successor, [])
                    continue
            elif id(successor) in list_types:
                continue
            key = id(successor)
            if key not in index:
                index[key] = low[key] = len(index)
                component.append(successor)
                on_stack.add(key)
                work.append((successor, iter(_successors(successor))))
                break
            if key in on_stack:
                low[id(vertex)] = min(low[id(vertex)], index[key])
        else:
            work.pop()
            if work:
                parent = work[-1][0]
                low[id(parent)] = min(low[id(parent)], low[id(vertex)])
            if low[id(vertex)] == index[id(vertex)]:
                members: list[Any] = []
                while not members or members[-1] is not vertex:
                    member = component.pop()
                    on_stack.discard(id(member))
                    members.append(member)
                _settle(members, list_types)
    assert node._types is not None
    return node._types


def _successors(vertex: Any) -> list[Any]:
    if isinstance(vertex, SchemaNode):
        return _option_lists(vertex)
    return [option for option in vertex if isinstance(option, SchemaNode)]


def _answer(vertex: Any, list_types: dict[int, tuple[str, ...]]) -> tuple[str, ...]:
    found = vertex._types if isinstance(vertex, SchemaNode) else list_types[id(vertex)]
    assert found is not None
    return found


def _settle(members: list[Any], list_types: dict[int, tuple[str, ...]]) -> None:
    """Answer one strongly connected component, whose successors outside it are answered.

    A single node or list is answered from its successors. In a cycle, every member reaches every other one, so each
    admits the same types: those declared by its nodes and those its successors outside the cycle admit, in the
    order of ``_CYCLE_ORDER`` (a node's own declared types first), since the cycle gives no order of its own. When
    that is nothing, each node of the cycle is typed by its ``enum``, ``properties`` or ``items`` alone."""
    if len(members) == 1:
        (vertex,) = members
        if isinstance(vertex, SchemaNode):
            vertex._types = _own_types(vertex, [_answer(o, list_types) for o in _option_lists(vertex)])
        else:
            merged: list[str] = []
            for option in _successors(vertex):
                merged.extend(t for t in _answer(option, list_types) if t not in merged)
            list_types[id(vertex)] = tuple(merged)
        return
    inside = {id(m) for m in members}
    nodes = [m for m in members if isinstance(m, SchemaNode)]
    found: set[str] = set()
    for member in members:
        if isinstance(member, SchemaNode):
            found.update(_declared_types(member))
        found.update(t for s in _successors(member) if id(s) not in inside for t in _answer(s, list_types))
    common = tuple(t for t in _CYCLE_ORDER if t in found)
    for node in nodes:
        if common:
            declared = _declared_types(node)
            node._types = declared + tuple(t for t in common if t not in declared)
        else:
            node._types = _implied_types(node)
    for member in members:
        if not isinstance(member, SchemaNode):
            implied = {t for option in _successors(member) for t in _answer(option, list_types)}
            list_types[id(member)] = common or tuple(t for t in _CYCLE_ORDER if t in implied)


def _option_lists(node: SchemaNode) -> list[list[Any]]:
    options = node._options
    if options is None:
        options = node._options = [o for o in map(node.get, _OPTION_KEYS) if isinstance(o, list)]
    return options


def _own_types(node: SchemaNode, option_types: list[tuple[str, ...]]) -> tuple[str, ...]:
    types = list(_declared_types(node))
    for found in option_types:
        types.extend(t for t in found if t not in types)
    return tuple(types) if types else _implied_types(node)


def _declared_types(node: SchemaNode) -> tuple[str, ...]:
    declared = node.get("type")
    if isinstance(declared, str):
        return (declared,) if declared in _JSON_TYPES else ()
    if isinstance(declared, list):
        return _data_types(node._root, "type", declared)
    return ()


def _implied_types(node: SchemaNode) -> tuple[str, ...]:
    """The types of a node that declares none: those of its ``enum`` values, else object for ``properties``, else
    array for ``items``."""
    enum = node.get("enum")
    if isinstance(enum, list) and enum:
        return _data_types(node._root, "enum", enum)
    if isinstance(node.get("properties"), Mapping):
        return ("object",)
    if "items" in node:
        return ("array",)
    return ()


def _data_types(root: _Root, keyword: str, values: list[Any]) -> tuple[str, ...]:
    """The types named by a ``type`` list, or of the values of an ``enum``, once per list."""
    key = (id(values), keyword)
    entry = root.data_types.get(key)
    if entry is None:
        if keyword == "type":
            found = dict.fromkeys(t for t in values if isinstance(t, str) and t in _JSON_TYPES)
        else:
            found = dict.fromkeys(map(_json_type, values))
        entry = root.data_types[key] = (values, tuple(found))
    return entry[1]


def _branch_for(node: SchemaNode, json_type: str) -> SchemaNode:
    """The part of ``node`` that describes values of ``json_type``: following the first ``anyOf``/``oneOf``/``allOf``
    option that admits it, as far as that goes. When the options lead round in a cycle, the node where the cycle
    closes is the answer (for a node of the cycle, itself). Answers are kept for every node on the way."""
    path: list[SchemaNode] = []
    on_path: dict[int, int] = {}
    current = node
    while True:
        cached = current._branches.get(json_type)
        if cached is not None:
            answers = [cached] * len(path)
            break
        if id(current) in on_path:
            entry = on_path[id(current)]
            answers = [current] * entry + path[entry:]
            break
        on_path[id(current)] = len(path)
        path.append(current)
        following = None if _declares(current, json_type) else _following_option(current, json_type)
        if following is None:
            answers = [current] * len(path)
            break
        current = following
    for visited, answer in zip(path, answers, strict=True):
        visited._branches[json_type] = answer
    return node._branches[json_type]


def _declares(node: SchemaNode, json_type: str) -> bool:
    declared = node.get("type")
    return declared == json_type or (
        isinstance(declared, list) and json_type in _data_types(node._root, "type", declared)
    )


def _following_option(node: SchemaNode, json_type: str) -> SchemaNode | None:
    for options in _option_lists(node):
        found = _first_option(node._root, options, json_type)
        if found is not None:
            return found
    return None


def _first_option(root: _Root, options: list[Any], json_type: str) -> SchemaNode | None:
    key = (id(options), json_type)
    if key in root.first_option:
        return root.first_option[key]
    found = next((o for o in options if isinstance(o, SchemaNode) and json_type in _types(o)), None)
    root.first_option[key] = found
    return found


# -- conversion ---------------------------------------------------------------------------------------------------


def convert_value(raw: str, schema: Schema | None) -> Any:
    """The JSON value of the raw text of a non-string parameter, typed by its schema (the raw text on failure)."""
    return _convert(raw, _as_node(schema), 0)


def coerce(value: Any, schema: Schema | None) -> Any:
    """Type the nested values of a parsed object or array by their schemas (strings that should be numbers...)."""
    return _coerce(value, _as_node(schema), 0)


def _convert(raw: str, node: SchemaNode | None, depth: int) -> Any:
    if node is not None:
        text = raw.strip()
        for t in _types(node):
            ok, value = _convert_as(text, t)
            if ok:
                return _coerce(value, _branch_for(node, t), depth)
    return _clean_text(raw)


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
        if value is _INVALID and json_type == "array" and text:
            value = _bare_elements(text)
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


def _bare_elements(text: str) -> Any:
    """An array written without its brackets (``{...}, {...}``, seen from LongCat): the elements, when the text
    in brackets is an array (JSON, or a Python literal) of more than one element (``(1, 2)`` is no array)."""
    bracketed = "[" + text + "]"
    value = _parse_json(bracketed)
    if value is _INVALID:
        value = _parse_python_literal(bracketed)
        value = _strict_value(value) if isinstance(value, list) else _INVALID
    return value if isinstance(value, list) and len(value) > 1 else _INVALID


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
