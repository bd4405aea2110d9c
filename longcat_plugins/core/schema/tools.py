"""The request's tools: each function tool's parameters schema, by tool name."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .refs import Schema, SchemaDocument, SchemaNode

_ABSENT: Any = object()


class ToolSchemas:
    """Name -> parameters schema of the request's function tools."""

    __slots__ = ("_documents", "_params", "_properties", "_resolved")

    def __init__(self, tools: Iterable[Any] | None) -> None:
        self._params: dict[str, Schema] = {}
        self._documents: dict[str, SchemaDocument] = {}
        self._resolved: dict[tuple[str, str], SchemaNode | None] = {}
        self._properties: dict[str, Mapping[str, Any] | None] = {}  # a tool's ``properties``, as read once
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
        return sum(document.follows for document in self._documents.values())

    def declares_parameters(self, tool: str) -> bool:
        """Whether ``tool`` is declared with at least one named parameter."""
        params = self._params.get(tool)
        if not params:
            return False
        properties = self._document(tool, params).node(params).get("properties")
        return isinstance(properties, Mapping) and len(properties) > 0

    def only_parameter(self, tool: str) -> str | None:
        """The name of ``tool``'s parameter when it declares exactly one, else None."""
        params = self._params.get(tool)
        if not params:
            return None
        properties = self._document(tool, params).node(params).get("properties")
        if isinstance(properties, Mapping) and len(properties) == 1:
            (name,) = properties
            return name if isinstance(name, str) else None
        return None

    def _document(self, tool: str, params: Schema) -> SchemaDocument:
        document = self._documents.get(tool)
        if document is None:
            document = self._documents[tool] = SchemaDocument(params)
        return document

    def parameter(self, tool: str, name: str) -> SchemaNode | None:
        """The schema of parameter ``name`` of ``tool`` (its references resolved when read), or None when unknown."""
        key = (tool, name)
        if key in self._resolved:
            return self._resolved[key]
        schema: SchemaNode | None = None
        properties = self._properties.get(tool, _ABSENT)
        if properties is _ABSENT:
            properties = self._properties[tool] = self._read_properties(tool)
        if properties is not None:
            found = properties.get(name)
            schema = found if type(found) is SchemaNode or isinstance(found, SchemaNode) else None
        self._resolved[key] = schema
        return schema

    def _read_properties(self, tool: str) -> Mapping[str, Any] | None:
        params = self._params.get(tool)
        if params is None:
            return None
        properties = self._document(tool, params).node(params).get("properties")
        return properties if isinstance(properties, Mapping) else None


def _field(obj: Any, name: str) -> Any:
    """A field of a tool given as a dict or as an object (engines pass pydantic models)."""
    if type(obj) is dict or isinstance(obj, Mapping):  # (the common case first: a Mapping check is slow)
        return obj.get(name)
    return getattr(obj, name, None)
