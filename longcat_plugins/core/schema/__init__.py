"""The request's tools, and typing of the plain-text parameter values of the XML and key/value dialects.

A value whose schema admits only a string (or that has no schema) is a string, streamed as it arrives; one that admits
a string and other types streams as a string once it cannot be strict JSON of another type. Any other value is read
whole and converted by its schema when it closes; when the conversion fails the raw text is kept as a string
(``null`` aside, which is JSON null). ``core/schema/convert.py`` has the whole table.

* :mod:`.tools`: the request's tools, each one's parameters schema by name;
* :mod:`.refs`: read-only views of a schema that follow ``$ref`` only when read;
* :mod:`.types`: the JSON types a schema admits (type inference);
* :mod:`.convert`: a raw value as the JSON value its schema asks for.

A plain mapping given to the typing functions is a schema on its own: its references point into itself.
"""

from ..strict_json import strict_json_dumps
from .convert import MAX_TYPED_DEPTH, coerce, convert_union, convert_value, union_undecided
from .refs import MAX_REF_HOPS, Schema, SchemaNode
from .tools import ToolSchemas
from .types import TYPE_ALIASES, is_string_schema, schema_types

__all__ = [
    "MAX_REF_HOPS",
    "MAX_TYPED_DEPTH",
    "TYPE_ALIASES",
    "Schema",
    "SchemaNode",
    "ToolSchemas",
    "coerce",
    "convert_union",
    "convert_value",
    "is_string_schema",
    "schema_types",
    "strict_json_dumps",
    "union_undecided",
]
