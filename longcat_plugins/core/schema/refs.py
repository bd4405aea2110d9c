"""Read-only views of a tool's parameters schema that follow ``$ref`` lazily.

Tool schemas come from the API client, so nothing in them may cost more than their size. References are never
inlined: a view (:class:`SchemaNode`) follows its node's local ``$ref`` (``#``, ``#/$defs/X``, any JSON pointer into
the tool's parameters) only when a keyword of that node is read, at most :data:`MAX_REF_HOPS` links in a chain; a
longer chain, a cycle, or a remote or missing target adds no constraint. Each raw node has one view per document, so
that what the typing keeps on a view is computed once.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

Schema = Mapping[str, Any]

MAX_REF_HOPS: Final = 16  # links followed from one node through a chain of references

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


def as_node(schema: Schema | None) -> SchemaNode | None:
    """A view of ``schema``; a plain mapping is a document of its own (its references point into itself)."""
    if type(schema) is SchemaNode:  # (the common case first: a check against an ABC is Python code)
        return schema
    if isinstance(schema, SchemaNode):
        return schema
    if isinstance(schema, Mapping):
        return SchemaDocument(schema).node(schema)
    return None


class SchemaDocument:
    """One schema document: reference resolution, and the views of its nodes (one per node, so that answers cached
    on a view are computed once)."""

    __slots__ = ("data_types", "first_option", "follows", "list_types", "lists", "maps", "nodes", "raw", "targets")

    def __init__(self, raw: Schema) -> None:
        self.raw = raw
        # Keyed by the id of the raw object, which each entry keeps alive (so the id is not reused meanwhile).
        self.nodes: dict[int, SchemaNode] = {}
        self.lists: dict[int, tuple[list[Any], list[Any]]] = {}
        self.maps: dict[int, SchemaMap] = {}
        self.targets: dict[str, Mapping[str, Any] | None] = {}
        # Answers of the typing about lists, which many nodes can share through references: each is computed once.
        self.list_types: dict[int, tuple[str, ...]] = {}  # id of an option list view -> the types its options admit
        self.first_option: dict[tuple[int, str], SchemaNode | None] = {}  # (list, type) -> first option admitting it
        self.data_types: dict[tuple[int, str], tuple[Any, tuple[str, ...]]] = {}  # a "type" or "enum" list's types
        self.follows = 0  # reference links followed

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
                    view = self.maps[id(value)] = SchemaMap(value, self)
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
        target = _resolve_pointer(self.raw, ref)
        self.targets[ref] = target
        return target


class SchemaNode(Mapping[str, Any]):
    """A read-only view of one schema of a tool's parameters. Its ``$ref`` is followed when a keyword is first read
    (the keywords of the node itself win over those of the target, as when the target is inlined); keywords holding
    schemas give views too."""

    __slots__ = ("_layers", "_values", "branches", "document", "options", "raw", "types")

    def __init__(self, raw: Mapping[str, Any], document: SchemaDocument) -> None:
        self.raw = raw
        self.document = document
        self._layers: tuple[Mapping[str, Any], ...] | None = None
        self._values: dict[str, Any] = {}
        # Answers of the typing (see .types), computed once.
        self.options: list[list[Any]] | None = None
        self.types: tuple[str, ...] | None = None
        self.branches: dict[str, SchemaNode] = {}

    def _lookup(self, key: str) -> Any:
        value = self._values.get(key, _UNKNOWN)
        if value is not _UNKNOWN:
            return value
        value = _ABSENT
        if key != "$ref":
            layers = self._layers
            if layers is None:
                layers = self._layers = self.document.layers(self.raw)
            for layer in layers:
                if key in layer:
                    value = self.document.wrap(key, layer[key])
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
            layers = self._layers = self.document.layers(self.raw)
        keys: dict[str, None] = {}
        for layer in reversed(layers):  # the order of the target inlined, then the node's own keywords
            keys.update(dict.fromkeys(k for k in layer if k != "$ref"))
        return list(keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys())

    def __len__(self) -> int:
        return len(self._keys())

    def __repr__(self) -> str:
        return f"SchemaNode({self.raw!r})"


class SchemaMap(Mapping[str, Any]):
    """A map of names to schemas (``properties``, ``$defs``...), whose schemas are views."""

    __slots__ = ("_document", "_raw")

    def __init__(self, raw: Mapping[str, Any], document: SchemaDocument) -> None:
        self._raw = raw
        self._document = document

    def __getitem__(self, key: str) -> Any:
        value = self._raw[key]
        return self._document.node(value) if isinstance(value, Mapping) else value

    def get(self, key: str, default: Any = None) -> Any:
        value = self._raw.get(key, _ABSENT)
        if value is _ABSENT:
            return default
        return self._document.node(value) if type(value) is dict or isinstance(value, Mapping) else value

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)


def _resolve_pointer(document: Schema, ref: str) -> Mapping[str, Any] | None:
    """The node a local reference (a JSON pointer after ``#``) names, or None."""
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
