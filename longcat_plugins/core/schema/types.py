"""Type inference: the JSON types a schema admits, and the part of it that describes values of one type.

A node admits its declared types, then those of its ``anyOf``/``oneOf``/``allOf`` options, in order; a node that
declares none admits what its ``enum``, ``properties`` or ``items`` imply. What is asked of a node is computed once
per node, without recursion, and kept on its view; what many nodes share through references (an option list, a
``type`` or ``enum`` list) is answered once too, so the work is linear in the part of the schema the values reach.
``anyOf``/``oneOf``/``allOf`` options that lead round in a cycle all admit the types found anywhere in the cycle.
Besides the seven JSON types, the type names real tools write are read as the JSON type they mean (:data:`TYPE_ALIASES`:
``float`` and ``double`` are number, ``int`` integer, ``bool`` boolean, ``dict`` object, ``list`` array..., as vLLM's
``qwen3_coder`` reads them; case and surrounding spaces do not matter); other names are ignored (a schema with only
such names admits anything).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from .refs import Schema, SchemaDocument, SchemaNode, as_node

_JSON_TYPES: Final = frozenset({"string", "integer", "number", "boolean", "null", "object", "array"})
#: type names that are not JSON Schema's, and the JSON type each means
TYPE_ALIASES: Final = {
    "str": "string",
    "text": "string",
    "varchar": "string",
    "char": "string",
    "enum": "string",
    "int": "integer",
    "int32": "integer",
    "int64": "integer",
    "uint": "integer",
    "uint32": "integer",
    "uint64": "integer",
    "long": "integer",
    "short": "integer",
    "unsigned": "integer",
    "float": "number",
    "float32": "number",
    "float64": "number",
    "double": "number",
    "bool": "boolean",
    "dict": "object",
    "arr": "array",
    "list": "array",
    "sequence": "array",
}


def json_type_named(name: str) -> str | None:
    """The JSON type a schema's type name means (None: none)."""
    if name in _JSON_TYPES:
        return name
    key = name.strip().lower()
    return key if key in _JSON_TYPES else TYPE_ALIASES.get(key)


_OPTION_KEYS: Final = ("anyOf", "oneOf", "allOf")
_INDIRECT_KEYS: Final = frozenset({*_OPTION_KEYS, "$ref"})  # what may add types to a node's own ``type``
_CYCLE_ORDER: Final = ("integer", "number", "boolean", "null", "object", "array", "string")


def schema_types(schema: Schema | None) -> list[str]:
    """The JSON types a schema admits, in the order given (empty: anything)."""
    node = as_node(schema)
    return list(admitted_types(node)) if node is not None else []


def is_string_schema(schema: Schema | None) -> bool:
    """Whether a value with this schema is streamed as a string."""
    node = as_node(schema)
    if node is None:
        return True
    types = admitted_types(node)
    return not types or "string" in types


def admitted_types(node: SchemaNode) -> tuple[str, ...]:
    """The types ``node`` admits: its declared types, then those of its options (``anyOf``, ``oneOf``, ``allOf``, in
    order); when there are none, what its ``enum``, ``properties`` or ``items`` imply.

    Options can refer back to the node, so this is answered over the graph of nodes and option lists, one strongly
    connected component at a time (Tarjan's algorithm, with explicit stacks), each component once: linear in the part
    of the schema not answered before. See :func:`_settle` for a cycle."""
    if node.types is not None:
        return node.types
    raw = node.raw
    declared = raw.get("type")
    if type(declared) is str and declared in _JSON_TYPES and raw.keys().isdisjoint(_INDIRECT_KEYS):
        node.types = (declared,)  # the common case, ``{"type": "string", ...}``: what the general way finds too
        return node.types
    if not _option_lists(node):
        node.types = _own_types(node, [])
        return node.types
    list_types = node.document.list_types
    index: dict[int, int] = {id(node): 0}
    low: dict[int, int] = {id(node): 0}
    on_stack: set[int] = {id(node)}
    component: list[Any] = [node]
    work: list[tuple[Any, Iterator[Any]]] = [(node, iter(_option_lists(node)))]
    while work:
        vertex, successors = work[-1]
        for successor in successors:
            if isinstance(successor, SchemaNode):
                if successor.types is not None:
                    continue
                if not _option_lists(successor):  # a leaf: no need to visit it
                    successor.types = _own_types(successor, [])
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
    assert node.types is not None
    return node.types


def _successors(vertex: Any) -> list[Any]:
    if isinstance(vertex, SchemaNode):
        return _option_lists(vertex)
    return [option for option in vertex if isinstance(option, SchemaNode)]


def _answer(vertex: Any, list_types: dict[int, tuple[str, ...]]) -> tuple[str, ...]:
    found = vertex.types if isinstance(vertex, SchemaNode) else list_types[id(vertex)]
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
            vertex.types = _own_types(vertex, [_answer(o, list_types) for o in _option_lists(vertex)])
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
            node.types = declared + tuple(t for t in common if t not in declared)
        else:
            node.types = _implied_types(node)
    for member in members:
        if not isinstance(member, SchemaNode):
            implied = {t for option in _successors(member) for t in _answer(option, list_types)}
            list_types[id(member)] = common or tuple(t for t in _CYCLE_ORDER if t in implied)


def _option_lists(node: SchemaNode) -> list[list[Any]]:
    options = node.options
    if options is None:
        options = node.options = [o for o in map(node.get, _OPTION_KEYS) if isinstance(o, list)]
    return options


def _own_types(node: SchemaNode, option_types: list[tuple[str, ...]]) -> tuple[str, ...]:
    types = list(_declared_types(node))
    for found in option_types:
        types.extend(t for t in found if t not in types)
    return tuple(types) if types else _implied_types(node)


def _declared_types(node: SchemaNode) -> tuple[str, ...]:
    declared = node.get("type")
    if isinstance(declared, str):
        json_type = json_type_named(declared)
        return (json_type,) if json_type is not None else ()
    if isinstance(declared, list):
        return _data_types(node.document, "type", declared)
    return ()


def _implied_types(node: SchemaNode) -> tuple[str, ...]:
    """The types of a node that declares none: those of its ``enum`` values, else object for ``properties``, else
    array for ``items``."""
    enum = node.get("enum")
    if isinstance(enum, list) and enum:
        return _data_types(node.document, "enum", enum)
    if isinstance(node.get("properties"), Mapping):
        return ("object",)
    if "items" in node:
        return ("array",)
    return ()


def _data_types(document: SchemaDocument, keyword: str, values: list[Any]) -> tuple[str, ...]:
    """The types named by a ``type`` list, or of the values of an ``enum``, once per list."""
    key = (id(values), keyword)
    entry = document.data_types.get(key)
    if entry is None:
        if keyword == "type":
            named = (json_type_named(t) for t in values if isinstance(t, str))
            found = dict.fromkeys(t for t in named if t is not None)
        else:
            found = dict.fromkeys(map(_json_type, values))
        entry = document.data_types[key] = (values, tuple(found))
    return entry[1]


def branch_for(node: SchemaNode, json_type: str) -> SchemaNode:
    """The part of ``node`` that describes values of ``json_type``: following the first ``anyOf``/``oneOf``/``allOf``
    option that admits it, as far as that goes. When the options lead round in a cycle, the node where the cycle
    closes is the answer (for a node of the cycle, itself). Answers are kept for every node on the way."""
    path: list[SchemaNode] = []
    on_path: dict[int, int] = {}
    current = node
    while True:
        cached = current.branches.get(json_type)
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
        visited.branches[json_type] = answer
    return node.branches[json_type]


def _declares(node: SchemaNode, json_type: str) -> bool:
    declared = node.get("type")
    if isinstance(declared, str):
        return json_type_named(declared) == json_type
    return isinstance(declared, list) and json_type in _data_types(node.document, "type", declared)


def _following_option(node: SchemaNode, json_type: str) -> SchemaNode | None:
    for options in _option_lists(node):
        found = _first_option(node.document, options, json_type)
        if found is not None:
            return found
    return None


def _first_option(document: SchemaDocument, options: list[Any], json_type: str) -> SchemaNode | None:
    key = (id(options), json_type)
    if key in document.first_option:
        return document.first_option[key]
    found = next((o for o in options if isinstance(o, SchemaNode) and json_type in admitted_types(o)), None)
    document.first_option[key] = found
    return found


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
