"""XGrammar structural tags for tool calls in the model's own dialect, shared by the vLLM and SGLang adapters.

Every call is built from the core's dialect table (:data:`longcat_plugins.core.dialects.DIALECTS`): the dialect's
``begin(name)``, its ``end``, and the arguments in its style, held to the tool's declared ``parameters`` (a forced call
is held to them whether or not the tool says ``strict``: a forced call the tool cannot accept helps no one; see
:func:`function_schema`). A schema the grammar engine cannot
compile falls back to any arguments of the dialect's shape, with one log line naming the tool.

The JSON dialects' arguments are XGrammar's JSON of the schema. The markup dialects (XML ``<parameter=...>`` blocks,
key/value pairs) are built here, so that the grammar lets the model write exactly what the parser reads back:

* the declared parameters in their declared order, each at most once, the ``required`` ones always, no other key;
* each parameter written as the dialect's template writes it (XML: ``<parameter=K>``, a newline, the value, a
  newline, ``</parameter>``, a newline; key/value: the key's tags, a newline, the value's tags, a newline), with no
  other whitespace around a value (the reader keeps any other whitespace as part of a string);
* a value whose schema admits a string (as the reader types it, :func:`longcat_plugins.core.schema.is_string_schema`)
  is plain text that holds none of the tags that end a value for the reader (as the declaration gives them: a
  markup's value closers, a key/value dialect's :func:`~longcat_plugins.core.dialects.pair_value_ends`), restricted
  by the schema where it is only a string: ``enum``/``const``, ``pattern``, ``minLength``/``maxLength``; any other
  value is JSON of its schema.

Importing this module imports xgrammar, so neither ``longcat_plugins`` nor the core imports it.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any, Final

import xgrammar
from xgrammar.structural_tag import (
    AnyTextFormat,
    ConstStringFormat,
    JSONSchemaFormat,
    OptionalFormat,
    OrFormat,
    RegexFormat,
    SequenceFormat,
    StarFormat,
    StructuralTag,
    TagFormat,
    TriggeredTagsFormat,
)

from longcat_plugins.core import tags as T
from longcat_plugins.core.call_openers import CALL_OPENERS
from longcat_plugins.core.dialects import (
    BLOCK_OPENS,
    CALL_OPENS,
    END_OF_SEQUENCE,
    THINK_CLOSES,
    THINK_OPENS,
    Dialect,
    pair_value_ends,
)
from longcat_plugins.core.readers.quoted_call import quoted_value_ends, word_class
from longcat_plugins.core.readers.xml_call import markup_tables
from longcat_plugins.core.schema import SchemaNode, is_string_schema, schema_types
from longcat_plugins.core.schema.refs import as_node

__all__ = [
    "call_body", "call_tag", "call_tags", "function_schema", "no_calls", "reasoning_then", "triggered_calls",
]  # fmt: skip

logger = logging.getLogger("longcat_plugins")

#: where a schema keeps the definitions its ``$ref``s point to
_DEFINITION_KEYS: Final = ("$defs", "definitions")


def _free_name(name_end: str) -> str:
    """A parameter name as the markup reader takes it (a header ends at '<', '>', a line break or where its name
    ends)."""
    return rf"[^<>\n{re.escape(name_end[0])}]{{1,{T.MAX_NAME_LENGTH}}}"



def function_schema(function: Any, forced: bool = True) -> dict[str, Any] | bool:
    """The schema a call's arguments are held to: the declared parameters, or ``True`` (any arguments of the
    dialect's shape) for a tool without parameters, and for a tool declared ``strict: false`` when the call is not
    forced (``tool_choice`` auto, where a strict tool of the request brought the grammar in)."""
    parameters = getattr(function, "parameters", None)
    if not isinstance(parameters, Mapping) or (not forced and getattr(function, "strict", None) is False):
        return True
    return dict(parameters)


def _with_definitions(schema: Any, root: Mapping[str, Any]) -> Any:
    """A parameter's schema as a schema of its own: with the root's definitions, which its ``$ref``s name
    (``#/$defs/...`` resolves against the schema it is compiled as)."""
    if not isinstance(schema, Mapping):
        return schema
    definitions = {key: root[key] for key in _DEFINITION_KEYS if key in root and key not in schema}
    return {**schema, **definitions} if definitions else schema


#: the code points a plain-text string value counts: all but the surrogates (spelt as ranges: XGrammar 0.2.7 clamps a
#: negated class's non-ASCII ranges to ASCII)
_CODE_POINTS: Final = ((0, 0x7F), (0x80, 0xD7FF), (0xE000, 0xFFFF), (0x10000, 0x10FFFF))


def _escaped(code: int) -> str:
    return f"\\x{code:02x}" if code <= 0x7F else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


@lru_cache(maxsize=64)
def _counted(starts: frozenset[str]) -> str:
    """One counted character of a plain-text string value: a code point that is no surrogate and does not start a tag
    that ends the value (``starts``)."""
    cut = sorted(map(ord, starts))
    classes = []
    for low, high in _CODE_POINTS:
        ranges, at = [], low
        for code in (c for c in cut if low <= c <= high):
            if at < code:
                ranges.append((at, code - 1))
            at = code + 1
        if at <= high:
            ranges.append((at, high))
        spelt = "".join(_escaped(a) if a == b else f"{_escaped(a)}-{_escaped(b)}" for a, b in ranges)
        if spelt:
            classes.append(f"[{spelt}]")
    return f"(?:{'|'.join(classes)})"


def _plain_text(excludes: list[str], node: SchemaNode | None) -> Any:
    """A string value written as plain text: none of ``excludes`` in it, and the string constraints of ``node`` when
    it admits nothing but a string."""
    if node is None or schema_types(node) != ["string"]:
        return AnyTextFormat(excludes=excludes)
    choices = node.get("enum")
    if "const" in node:
        choices = [node.get("const")]
    if isinstance(choices, list) and choices and all(isinstance(c, str) for c in choices):
        allowed = [c for c in choices if not any(x in c for x in excludes)]
        return OrFormat(elements=[ConstStringFormat(value=c) for c in allowed or choices])
    pattern = node.get("pattern")
    if isinstance(pattern, str):
        return RegexFormat(pattern=pattern)
    low, high = node.get("minLength"), node.get("maxLength")
    low = low if isinstance(low, int) and not isinstance(low, bool) and low > 0 else 0
    high = high if isinstance(high, int) and not isinstance(high, bool) and high >= low else None
    # Counted characters are whole code points that start no tag that ends the value (such as '<'): free
    # text may hold bytes that are no UTF-8, which the detokenizer turns into characters the count did not see. Nor
    # surrogates: XGrammar's classes take their three-byte encodings (ED A0-BF ..), which are no UTF-8 either.
    counted = _counted(frozenset(tag[0] for tag in excludes))
    if high is not None:
        return RegexFormat(pattern=f"{counted}{{{low},{high}}}")
    if low:
        return SequenceFormat(elements=[RegexFormat(pattern=f"{counted}{{{low}}}"), AnyTextFormat(excludes=excludes)])
    return AnyTextFormat(excludes=excludes)


def _markup_value(excludes: list[str], node: SchemaNode | None, raw: Any, root: Mapping[str, Any]) -> Any:
    """One parameter's value in a markup dialect, typed as the reader types it."""
    if node is None or not isinstance(raw, Mapping) or is_string_schema(node):
        return _plain_text(excludes, node)
    return JSONSchemaFormat(json_schema=_with_definitions(raw, root), style="json")


def _markup_body(dialect: Dialect, schema: dict[str, Any] | bool) -> Any:
    """The arguments of a markup dialect: the declared parameters in order (see the module's docstring); any
    parameters of the dialect's shape when there are none declared."""
    markup, pairs = dialect.markup, dialect.pairs
    parameter = dialect.parameter
    assert parameter is not None and (markup is not None or pairs is not None)
    before_key, key_to_value, after_value = parameter.key_open, parameter.key_to_value, parameter.value_close
    excludes = list(markup_tables(markup).value_end.tags if markup else pair_value_ends(dialect))
    root = schema if isinstance(schema, Mapping) else {}
    node = as_node(root)
    properties = node.get("properties") if node is not None else None
    if not isinstance(properties, Mapping) or not properties:
        key: Any
        if markup is not None:
            key = RegexFormat(pattern=_free_name(markup.name_end))
        else:
            assert pairs is not None
            key = AnyTextFormat(excludes=[pairs.key_close, *excludes])
        free = [ConstStringFormat(value=before_key), key, ConstStringFormat(value=key_to_value)]
        return StarFormat(content=SequenceFormat(
            elements=[*free, AnyTextFormat(excludes=excludes), ConstStringFormat(value=after_value)]
        ))  # fmt: skip
    assert node is not None
    required = node.get("required")
    required = set(required) if isinstance(required, list) else set()
    raw_properties = root.get("properties")
    raw_properties = raw_properties if isinstance(raw_properties, Mapping) else {}
    elements: list[Any] = []
    for name in properties:
        sub = properties.get(name)
        value = _markup_value(excludes, sub if isinstance(sub, SchemaNode) else None, raw_properties.get(name), root)
        pair = TagFormat(begin=f"{before_key}{name}{key_to_value}", content=value, end=after_value)
        elements.append(pair if name in required else OptionalFormat(content=pair))
    return SequenceFormat(elements=elements) if len(elements) > 1 else elements[0]


def _quoted_value(dialect: Dialect, name: str, node: SchemaNode | None, raw: Any, root: Mapping[str, Any]) -> Any:
    """One argument of a quoted body, ``KEY:`` then its value as the reader types it: a value whose schema admits
    only a string is quoted plain text; one that admits a string among other types, quoted plain text or JSON of
    its schema; any other, JSON of its schema."""
    quoted = dialect.quoted
    assert quoted is not None
    text = TagFormat(
        begin=f"{name}{quoted.key_end}{quoted.quote}",
        content=_plain_text(list(quoted_value_ends(quoted)), node),
        end=quoted.quote,
    )
    if node is None or not isinstance(raw, Mapping) or schema_types(node) == ["string"]:
        return text
    json_value = SequenceFormat(elements=[
        ConstStringFormat(value=f"{name}{quoted.key_end}"),
        JSONSchemaFormat(json_schema=_with_definitions(raw, root), style="json"),
    ])  # fmt: skip
    return OrFormat(elements=[text, json_value]) if is_string_schema(node) else json_value


def _quoted_body(dialect: Dialect, schema: dict[str, Any] | bool) -> Any:
    """The arguments of a quoted body: the declared parameters in order, each at most once, the required ones
    always, separated by the item separator (one alternative for each parameter that may come first); any arguments
    of the body's shape when there are none declared."""
    quoted = dialect.quoted
    assert quoted is not None
    separator = ConstStringFormat(value=quoted.item_separator)
    root = schema if isinstance(schema, Mapping) else {}
    node = as_node(root)
    properties = node.get("properties") if node is not None else None
    if not isinstance(properties, Mapping) or not properties:
        key = RegexFormat(pattern=f"{word_class(quoted)}{{1,{T.MAX_NAME_LENGTH}}}")
        value = OrFormat(elements=[
            SequenceFormat(elements=[
                ConstStringFormat(value=quoted.quote),
                AnyTextFormat(excludes=list(quoted_value_ends(quoted))),
                ConstStringFormat(value=quoted.quote),
            ]),
            JSONSchemaFormat(json_schema=True, style="json"),
        ])  # fmt: skip
        item = SequenceFormat(elements=[key, ConstStringFormat(value=quoted.key_end), value])
        more = StarFormat(content=SequenceFormat(elements=[separator, item]))
        return OptionalFormat(content=SequenceFormat(elements=[item, more]))
    assert node is not None
    required = node.get("required")
    required = set(required) if isinstance(required, list) else set()
    raw_properties = root.get("properties")
    raw_properties = raw_properties if isinstance(raw_properties, Mapping) else {}
    names = list(properties)
    items = []
    for name in names:
        sub = properties.get(name)
        items.append(_quoted_value(dialect, name, sub if isinstance(sub, SchemaNode) else None,
                                   raw_properties.get(name), root))  # fmt: skip
    # the first parameter written is one up to the first required one; each later one follows a separator
    first_required = next((i for i, name in enumerate(names) if name in required), len(names) - 1)
    starts = []
    for first in range(first_required + 1):
        rest = [
            SequenceFormat(elements=[separator, items[i]]) if names[i] in required
            else OptionalFormat(content=SequenceFormat(elements=[separator, items[i]]))
            for i in range(first + 1, len(names))
        ]  # fmt: skip
        starts.append(SequenceFormat(elements=[items[first], *rest]) if rest else items[first])
    body = starts[0] if len(starts) == 1 else OrFormat(elements=starts)
    return body if required else OptionalFormat(content=body)


def _json_body(dialect: Dialect, schema: dict[str, Any] | bool) -> Any:
    return JSONSchemaFormat(json_schema=schema, style="json")


#: the grammar of each kind of body (``dialects.BODY_KINDS``: a dialect of any other kind is refused when declared)
BODY_FORMATS: Final[dict[str, Callable[[Dialect, dict[str, Any] | bool], Any]]] = {
    "json": _json_body,
    "markup": _markup_body,
    "kv": _markup_body,
    "quoted": _quoted_body,
}


def call_body(dialect: Dialect, schema: dict[str, Any] | bool) -> Any:
    """The format of one call's arguments in ``dialect`` (between ``begin(name)`` and ``end``)."""
    return BODY_FORMATS[dialect.body](dialect, schema)


def call_tag(dialect: Dialect, name: str, schema: dict[str, Any] | bool) -> TagFormat:
    """One call of tool ``name`` with arguments held to ``schema``, as ``dialect`` writes it. A schema the grammar
    engine cannot compile gives any arguments of the dialect's shape (logged once per tool and schema)."""
    if schema is True:
        return _tag(dialect, name, True)
    key = json.dumps(schema, default=repr)  # (key order kept: it is the order of the parameters)
    try:
        if (dialect.name, name, key) not in _uncompilable:
            return _compiled_tag(dialect, name, key)
    except Exception as exc:
        if len(_uncompilable) >= _MAX_REMEMBERED:
            _uncompilable.clear()
        _uncompilable.add((dialect.name, name, key))
        first_line = next(iter(str(exc).splitlines()), "")
        logger.warning(
            "longcat: the parameters of tool %r cannot be compiled into a grammar (%s: %s); its calls are held to "
            "the %s dialect's shape only",
            name,
            type(exc).__name__,
            first_line,
            dialect.name,
        )
    return _tag(dialect, name, True)


#: (dialect, tool, schema) that the grammar engine could not compile: logged once, then not tried again
_uncompilable: set[tuple[str, str, str]] = set()
_MAX_REMEMBERED: Final = 1024


def _tag(dialect: Dialect, name: str, schema: dict[str, Any] | bool) -> TagFormat:
    return TagFormat(begin=dialect.begin(name), content=call_body(dialect, schema), end=dialect.end)


@lru_cache(maxsize=_MAX_REMEMBERED)
def _compiled_tag(dialect: Dialect, name: str, schema_json: str) -> TagFormat:
    """The tag for a schema, once the grammar engine compiled it (raises what it raises; failures are not cached)."""
    tag = _tag(dialect, name, json.loads(schema_json))
    xgrammar.Grammar.from_structural_tag(StructuralTag(format=tag).model_dump_json())
    return tag


def call_tags(dialect: Dialect, functions: Iterable[Any], *, forced: bool) -> list[TagFormat]:
    """One tag per function (anything with ``name``, ``parameters`` and optionally ``strict``); ``forced``: the
    request asks for a call (``tool_choice`` required or named), see :func:`function_schema`."""
    return [call_tag(dialect, function.name, function_schema(function, forced)) for function in functions]


def triggered_calls(
    dialect: Dialect, tags: list[TagFormat], *, at_least_one: bool = False, stop_after_first: bool = False
) -> Any:
    """Free text in which the dialect's trigger starts one of ``tags`` (free text alone when there are none)."""
    if not tags:
        return AnyTextFormat()
    return TriggeredTagsFormat(
        triggers=[dialect.trigger], tags=tags, at_least_one=at_least_one, stop_after_first=stop_after_first
    )


#: what may stand between the closing think tag and the first call (Qwen3's template writes a blank line there)
AFTER_REASONING: Final = r"\n{0,2}"


def reasoning_then(calls: Any) -> Any:
    """Output that starts inside reasoning, then ``calls``: for a forced call of a request that reasons (the prompt
    opened reasoning, the request asks for thinking, or the model may open it itself).

    The reasoning may be left out (the model calls at once) and may begin with an opening think tag (a model that
    opens it itself). It holds no closing think tag, call tag or end-of-sequence marker; it ends at a closing think
    tag (then at most two line breaks) or at the first call's tag, as the parser reads it. Until the calls are
    complete the grammar accepts no end of output: the turn cannot end inside the reasoning, and a forced answer
    carries its call or is cut by ``max_tokens``."""
    body = AnyTextFormat(excludes=[*THINK_CLOSES, *BLOCK_OPENS, *CALL_OPENS, *END_OF_SEQUENCE])
    blocks = [TagFormat(begin=tag, content=body, end=list(THINK_CLOSES)) for tag in ("", *THINK_OPENS)]
    closed = SequenceFormat(elements=[OrFormat(elements=blocks), RegexFormat(pattern=AFTER_REASONING)])
    opener = OrFormat(elements=[ConstStringFormat(value=tag) for tag in THINK_OPENS])
    ended_by_a_call = SequenceFormat(elements=[OptionalFormat(content=opener), body])
    return SequenceFormat(elements=[OptionalFormat(content=OrFormat(elements=[closed, ended_by_a_call])), calls])


def no_calls() -> Any:
    """An output that holds no call (``tool_choice="none"``): any text without a tag that opens one
    (:data:`~longcat_plugins.core.call_openers.CALL_OPENERS`), from the first token on, reasoning included (an opening
    block tag inside reasoning ends it, and the call would be content). A tag is kept out whole, whether the model
    writes it as one token or several; a part of one (``<``, ``<tool``) is text."""
    return AnyTextFormat(excludes=list(CALL_OPENERS))
