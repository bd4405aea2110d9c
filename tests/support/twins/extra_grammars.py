"""The grammar round trip of the test-only dialects (``tests/extra_dialects.py``), whose tags are none of the
registered dialects', for every declaration of each shape: key/value pairs (GLM-4.7's, line-broken and compact as
GLM-4.7 also writes them), a name and a separator (Kimi-K2's, DeepSeek-V3.1's), markup, a JSON object (Hunyuan-A13B's,
in a JSON array); every test-only dialect is in one of them. The call the model writes
for the intended arguments is accepted by the grammar the engine builds for a forced call and read back by the
parser; wrongly typed or broken calls, and another dialect's, are refused.

The importing module imports ``*`` from here and provides the fixture ``extra_grammar``: ``extra_grammar(dialect,
tool)`` registers ``dialect`` for the test and returns what tells whether a text is accepted by the grammar that the
engine's own entry point builds (and xgrammar compiles) for ``tool_choice="required"`` and ``tool`` in that
dialect."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from longcat_plugins.core.dialects import DIALECTS, Dialect
from tests.grammar_cases import (
    BROKEN,
    EXTRAS,
    JSON_EXTRAS,
    MARKUP_EXTRAS,
    PAIRED_EXTRAS,
    QUOTED_EXTRAS,
    SEPARATED,
    SHAPES,
    broken_tool,
    compact,
    kv_values,
    quoted_values,
    read_back,
    strict_tool,
    written,
)

__all__ = [
    "test_a_json_dialect_with_other_tags_gets_its_own_grammar",
    "test_a_key_value_dialect_with_other_tags_gets_its_own_grammar",
    "test_a_key_value_dialect_with_other_tags_refuses_a_broken_call",
    "test_a_key_value_value_ends_at_its_own_dialects_tags",
    "test_a_line_broken_declaration_refuses_the_compact_layout",
    "test_a_markup_dialect_with_other_tags_gets_its_own_grammar",
    "test_a_name_and_separator_dialect_gets_its_own_grammar",
    "test_a_quoted_dialect_gets_its_own_grammar",
    "test_a_quoted_dialect_refuses_a_broken_call",
    "test_a_quoted_value_ends_at_its_quote",
    "test_every_body_kind_has_a_grammar",
    "test_every_test_only_dialect_has_a_round_trip",
    "test_the_compact_layout_is_forced_by_a_declaration_that_writes_it",
]

#: whether the grammar accepts a text
Accepts = Callable[[str | bytes], bool]
#: the importing module's fixture: (dialect, tool) -> the grammar of a forced call of ``tool`` in ``dialect``
ExtraGrammar = Callable[[Dialect, dict[str, Any]], Accepts]

#: each key/value dialect, and the same declared with no line breaks (as GLM-4.7 also writes its calls)
PAIRED = pytest.mark.parametrize("dialect", PAIRED_EXTRAS, ids=[d.name for d in PAIRED_EXTRAS])


def _compact(dialect: Dialect) -> Dialect:
    return replace(compact(dialect), name=f"{dialect.name}_compact")


SHAPE_PARAMS = pytest.mark.parametrize(
    ("shape", "properties", "arguments", "wrong"), SHAPES, ids=[s[0] for s in SHAPES]
)


def _round_trip(
    extra_grammar: ExtraGrammar, dialect: Dialect, other: Dialect, properties: Any, arguments: Any, wrong: Any
) -> str:
    """``dialect``'s call of the intended arguments is accepted and read back; ``other``'s call of them and wrongly
    typed arguments are refused. Returns the call as written."""
    tool = strict_tool(properties)
    accepts = extra_grammar(dialect, tool)
    text = written(dialect, "lookup", arguments)
    assert accepts(text), text
    assert read_back(text, tool) == [("lookup", arguments)]
    assert not accepts(written(other, "lookup", arguments))
    if wrong is not None:
        assert not accepts(written(dialect, "lookup", wrong))
    return text


@SHAPE_PARAMS
@PAIRED
def test_a_key_value_dialect_with_other_tags_gets_its_own_grammar(
    extra_grammar: ExtraGrammar,
    dialect: Dialect,
    shape: str,
    properties: dict[str, Any] | None,
    arguments: dict[str, Any],
    wrong: dict[str, Any] | None,
) -> None:
    """Its calls are accepted and read back, with wrongly typed arguments refused; LongCat's pairs are not its
    calls."""
    _round_trip(extra_grammar, dialect, DIALECTS["kv"], properties, arguments, wrong)


@SHAPE_PARAMS
@PAIRED
def test_the_compact_layout_is_forced_by_a_declaration_that_writes_it(
    extra_grammar: ExtraGrammar,
    dialect: Dialect,
    shape: str,
    properties: dict[str, Any] | None,
    arguments: dict[str, Any],
    wrong: dict[str, Any] | None,
) -> None:
    """A declaration with no line breaks forces calls with none, which are read back; the line-broken layout is
    refused."""
    tool = strict_tool(properties)
    packed = _compact(dialect)
    accepts = extra_grammar(packed, tool)
    text = written(packed, "lookup", arguments)
    assert accepts(text)
    assert read_back(text, tool) == [("lookup", arguments)]
    assert not accepts(written(dialect, "lookup", arguments))
    if wrong is not None:
        assert not accepts(written(packed, "lookup", wrong))


@PAIRED
def test_a_line_broken_declaration_refuses_the_compact_layout(extra_grammar: ExtraGrammar, dialect: Dialect) -> None:
    accepts = extra_grammar(dialect, strict_tool({"city": {"type": "string"}}))
    assert not accepts(written(_compact(dialect), "lookup", {"city": "Paris"}))


@PAIRED
@pytest.mark.parametrize("bounds", [{}, {"minLength": 1}], ids=["free", "min-length"])
def test_a_key_value_value_ends_at_its_own_dialects_tags(
    extra_grammar: ExtraGrammar, dialect: Dialect, bounds: dict[str, int]
) -> None:
    """A string value holds none of the tags that end a value in its own dialect; another dialect's are text."""
    for value, taken in kv_values(dialect):
        for properties in ({"code": {"type": "string", **bounds}}, None):
            accepts = extra_grammar(dialect, strict_tool(properties))
            text = written(dialect, "lookup", {"code": value})
            assert accepts(text) is taken, text
            if taken and properties:
                assert read_back(text, strict_tool(properties)) == [("lookup", {"code": value})]


@pytest.mark.parametrize(("case", "properties", "extra", "arguments"), BROKEN, ids=[c[0] for c in BROKEN])
@PAIRED
def test_a_key_value_dialect_with_other_tags_refuses_a_broken_call(
    extra_grammar: ExtraGrammar,
    dialect: Dialect,
    case: str,
    properties: dict[str, Any],
    extra: dict[str, Any],
    arguments: list[tuple[str, Any]],
) -> None:
    accepts = extra_grammar(dialect, broken_tool(properties, extra, None))
    assert not accepts(written(dialect, "lookup", arguments))


@SHAPE_PARAMS
@pytest.mark.parametrize("dialect", SEPARATED, ids=[d.name for d in SEPARATED])
def test_a_name_and_separator_dialect_gets_its_own_grammar(
    extra_grammar: ExtraGrammar,
    dialect: Dialect,
    shape: str,
    properties: dict[str, Any] | None,
    arguments: dict[str, Any],
    wrong: dict[str, Any] | None,
) -> None:
    """Its calls (name, separator, JSON arguments) are accepted and read back, with wrongly typed arguments refused;
    a Hermes JSON call is not its call."""
    text = _round_trip(extra_grammar, dialect, DIALECTS["hermes"], properties, arguments, wrong)
    assert dialect.separated is not None and dialect.separated.separator in text


@SHAPE_PARAMS
@pytest.mark.parametrize("dialect", MARKUP_EXTRAS, ids=[d.name for d in MARKUP_EXTRAS])
def test_a_markup_dialect_with_other_tags_gets_its_own_grammar(
    extra_grammar: ExtraGrammar,
    dialect: Dialect,
    shape: str,
    properties: dict[str, Any] | None,
    arguments: dict[str, Any],
    wrong: dict[str, Any] | None,
) -> None:
    """Its calls are accepted and read back, with wrongly typed arguments refused; an XML (Qwen3-Coder) call is not
    its call."""
    _round_trip(extra_grammar, dialect, DIALECTS["xml"], properties, arguments, wrong)


@SHAPE_PARAMS
@pytest.mark.parametrize("dialect", JSON_EXTRAS, ids=[d.name for d in JSON_EXTRAS])
def test_a_json_dialect_with_other_tags_gets_its_own_grammar(
    extra_grammar: ExtraGrammar,
    dialect: Dialect,
    shape: str,
    properties: dict[str, Any] | None,
    arguments: dict[str, Any],
    wrong: dict[str, Any] | None,
) -> None:
    """Its calls (a JSON object in its block, in a JSON array when the block holds one) are accepted and read back,
    with wrongly typed arguments refused; a Hermes JSON call is not its call."""
    text = _round_trip(extra_grammar, dialect, DIALECTS["hermes"], properties, arguments, wrong)
    # (on a line of its own in a block that closes, right after the tag of one that does not)
    line = "\n" if dialect.block.close else ""
    assert text.startswith(f"{dialect.block.open}{line}{'[' if dialect.block.holds_list else ''}{{")


QUOTED = pytest.mark.parametrize("dialect", QUOTED_EXTRAS, ids=[d.name for d in QUOTED_EXTRAS])


@SHAPE_PARAMS
@QUOTED
def test_a_quoted_dialect_gets_its_own_grammar(
    extra_grammar: ExtraGrammar,
    dialect: Dialect,
    shape: str,
    properties: dict[str, Any] | None,
    arguments: dict[str, Any],
    wrong: dict[str, Any] | None,
) -> None:
    """Its calls (bare keys, a string between quote tokens, any other value as JSON) are accepted and read back,
    with wrongly typed arguments refused; a key/value call is not its call."""
    text = _round_trip(extra_grammar, dialect, DIALECTS["kv"], properties, arguments, wrong)
    assert dialect.quoted is not None and text.startswith(f"{dialect.block.open}{dialect.quoted.call_open}lookup")


@QUOTED
@pytest.mark.parametrize("bounds", [{}, {"minLength": 1}], ids=["free", "min-length"])
def test_a_quoted_value_ends_at_its_quote(
    extra_grammar: ExtraGrammar, dialect: Dialect, bounds: dict[str, int]
) -> None:
    """A string value holds neither its quote token nor a tag that ends the call; the body's marks are text."""
    for value, taken in quoted_values(dialect):
        for properties in ({"code": {"type": "string", **bounds}}, None):
            accepts = extra_grammar(dialect, strict_tool(properties))
            text = written(dialect, "lookup", {"code": value})
            assert accepts(text) is taken, text
            if taken:
                assert read_back(text, strict_tool(properties)) == [("lookup", {"code": value})]


@pytest.mark.parametrize(("case", "properties", "extra", "arguments"), BROKEN, ids=[c[0] for c in BROKEN])
@QUOTED
def test_a_quoted_dialect_refuses_a_broken_call(
    extra_grammar: ExtraGrammar,
    dialect: Dialect,
    case: str,
    properties: dict[str, Any],
    extra: dict[str, Any],
    arguments: list[tuple[str, Any]],
) -> None:
    accepts = extra_grammar(dialect, broken_tool(properties, extra, None))
    assert not accepts(written(dialect, "lookup", arguments))


def test_every_body_kind_has_a_grammar() -> None:
    """Each kind of body a dialect may be declared with has its grammar (a dialect of another kind is refused when
    declared: ``dialects.BODY_KINDS``)."""
    from longcat_plugins.core.dialects import BODY_KINDS
    from longcat_plugins.structural import BODY_FORMATS

    assert set(BODY_FORMATS) == set(BODY_KINDS)


#: the round trips above, by the shape of the body they take
ROUND_TRIPS = {
    "key/value": PAIRED_EXTRAS,
    "name and separator": SEPARATED,
    "markup": MARKUP_EXTRAS,
    "JSON": JSON_EXTRAS,
    "quoted": QUOTED_EXTRAS,
}


def test_every_test_only_dialect_has_a_round_trip() -> None:
    """Each test-only dialect is in exactly one of the round trips above: none is left out for the shape of its
    body (a body none of them takes fails here, naming the dialect)."""
    for dialect in EXTRAS:
        taken = [shape for shape, dialects in ROUND_TRIPS.items() if dialect in dialects]
        assert len(taken) == 1, f"{dialect.name} ({dialect.body} body): in the round trips of {taken or 'none'}"
