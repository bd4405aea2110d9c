"""Where a plain-text value ends when it holds markup on a line: a value's own closing tag followed by other text on
its line is value text or the value's closer followed by stray text, as what follows decides; a parameter's header
naming a parameter the call already has is value text (docs/design.md, "Where a value ends"). Each reading is checked
whole and in every split."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from longcat_plugins.core import StreamParser, ToolCallArgs, parse
from longcat_plugins.core.dialects import READ_DIALECTS, Dialect
from tests.core.test_properties import ARGS, NAME, SETTINGS, _two_stage, splits, tool_for
from tests.fuzz.outputs import value_ends
from tests.grammar_cases import compact
from tests.support.events import groups_of, stream, summary
from tests.support.tools import function_tool

WRITE = function_tool("write_file", {"path": {"type": "string"}, "content": {"type": "string"}})
TYPED = function_tool(
    "f",
    {
        "n": {"type": "integer"},
        "b": {"type": "boolean"},
        "x": {"type": "number"},
        "s": {"type": "string"},
        "o": {"type": "object"},
    },
)


def _read(text: str, tools: list[dict[str, Any]]) -> tuple[str, list[tuple[str, Any]]]:
    """Content and calls (arguments decoded), the same whole and in every split tried."""
    whole = parse(text, tools)
    for pieces in ([text], list(text), groups_of(text, 3), groups_of(text, 7), groups_of(text, 64)):
        assert summary(stream(pieces, tools)[0]) == summary(whole), pieces
    return whole.content, [(call.name, json.loads(call.arguments)) for call in whole.tool_calls]


# -- a value that mentions the markup on one line ----------------------------------------------------------------------

MENTION = "Close tags inline: </parameter> and </function> and <parameter=path> are text here."


def test_a_value_that_mentions_the_markup_on_one_line_ends_at_its_own_closer(caplog: pytest.LogCaptureFixture) -> None:
    text = (
        "<tool_call>\n<function=write_file>\n<parameter=path>\nnotes.md\n</parameter>\n<parameter=content>\n"
        f"{MENTION}\n</parameter>\n</function>\n</tool_call>"
    )
    with caplog.at_level(logging.WARNING, logger="longcat_plugins"):
        assert _read(text, [WRITE]) == ("", [("write_file", {"path": "notes.md", "content": MENTION})])
    assert not caplog.records  # no parameter was given twice


@pytest.mark.parametrize("layout", ["\n{}\n", "{}"])
def test_a_header_of_a_parameter_already_given_is_value_text(layout: str) -> None:
    value = "Set <parameter=path> or <parameter=content> to the file."
    params = "".join(
        f"<parameter={k}>{layout.format(v)}</parameter>" for k, v in (("path", "a.md"), ("content", value))
    )
    text = f"<function=write_file>{params}</function>"
    assert _read(text, [WRITE]) == ("", [("write_file", {"path": "a.md", "content": value})])


def test_a_header_of_a_new_parameter_still_ends_a_value_whose_closer_was_left_out() -> None:
    text = "<function=write_file><parameter=content>body<parameter=path>a.md</parameter></function>"
    assert _read(text, [WRITE]) == ("", [("write_file", {"content": "body", "path": "a.md"})])


# -- a closer followed by stray text -----------------------------------------------------------------------------------


def _kv(*pairs: tuple[str, str], stray: str = "", after: str = "") -> str:
    body = "".join(
        f"<longcat_arg_key>{k}</longcat_arg_key><longcat_arg_value>{v}</longcat_arg_value>{stray if i == 0 else ''}"
        for i, (k, v) in enumerate(pairs)
    )
    return f"<longcat_tool_call>f\n{body}</longcat_tool_call>{after}"


def _xml(*params: tuple[str, str], stray: str = "", after: str = "") -> str:
    body = "".join(f"<parameter={k}>\n{v}\n</parameter>{stray if i == 0 else ''}\n" for i, (k, v) in enumerate(params))
    return f"<tool_call>\n<function=f>\n{body}</function>\n</tool_call>{after}"


@pytest.mark.parametrize("write", [_kv, _xml])
@pytest.mark.parametrize(
    ("key", "text", "value"), [("b", "true", True), ("n", "42", 42), ("x", "2.5", 2.5), ("s", "Paris", "Paris")]
)
def test_a_closer_then_stray_text_then_the_next_key_closes_the_value(
    write: Any, key: str, text: str, value: Any
) -> None:
    stray = ' "quoted"'
    output = write((key, text), ("o", '{"k": 1}'), stray=stray)
    assert _read(output, [TYPED]) == (stray, [("f", {key: value, "o": {"k": 1}})])


@pytest.mark.parametrize("write", [_kv, _xml])
@pytest.mark.parametrize("after", ["", "\nDone."])
def test_stray_text_after_the_last_closer_is_content(write: Any, after: str) -> None:
    assert _read(write(("n", "7"), stray=" (seven)", after=after), [TYPED]) == (" (seven)" + after, [("f", {"n": 7})])


@pytest.mark.parametrize(
    ("output", "content"),
    [
        (
            "<longcat_tool_call>f\n<longcat_arg_key>s</longcat_arg_key><longcat_arg_value>x</longcat_arg_value> (ex)",
            " (ex)",
        ),
        ("<function=f>\n<parameter=s>\nx\n</parameter> (ex)", " (ex)"),
        ("<function=f>\n<parameter=s>\nx\n</parameter> (ex)</function>And so on.", " (ex)And so on."),
        (
            "<tool_call>\n<function=f>\n<parameter=s>\nx\n</parameter> (ex)\n</function>\n</tool_call>And so on.",
            " (ex)And so on.",
        ),
    ],
)
def test_stray_text_before_the_end_of_the_call_or_of_the_output_is_content(output: str, content: str) -> None:
    assert _read(output, [TYPED]) == (content, [("f", {"s": "x"})])


@pytest.mark.parametrize(
    ("text", "content", "arguments"),
    [
        (
            "<function=f>\n<parameter=n>\n5\n</parameter> items\n</parameter>\n</function>",
            " items\n</parameter>",
            {"n": 5},
        ),
        (
            "<tool_call>\n<function=f>\n<parameter=n>\n5</function> is the count\n</tool_call>",
            " is the count",
            {"n": 5},
        ),
        # (a header of the same parameter ends it too: the repeat is content, as between parameters)
        (
            "<function=f>\n<parameter=b>\ntrue<parameter=b> again\n</parameter>\n</function>",
            "<parameter=b> again\n</parameter>",
            {"b": True},
        ),
    ],
)
def test_a_value_whose_schema_admits_only_scalars_ends_at_any_tag_that_may_end_a_value(
    text: str, content: str, arguments: dict[str, Any]
) -> None:
    assert _read(text, [TYPED]) == (content, [("f", arguments)])


@pytest.mark.parametrize(
    ("value", "tools"),
    [
        ('echo "</parameter> done"\nexit 0', [WRITE]),
        # a call's closer read as value text, then the value's own closer
        ("a </parameter> b </function> c\n</parameter> d", [WRITE]),
        # past the bound with nothing that decides: value text
        ("</parameter> " + "x" * 600, [WRITE]),
    ],
)
def test_a_closer_the_value_goes_on_after_is_value_text(value: str, tools: list[dict[str, Any]]) -> None:
    text = f"<function=write_file>\n<parameter=content>\n{value}\n</parameter>\n</function>"
    assert _read(text, tools) == ("", [("write_file", {"content": value})])


def test_a_string_value_is_held_back_at_a_mention_of_its_closer_only_within_the_bound() -> None:
    """Invariant 5: the text after the mention streams once 512 characters of it decide nothing."""
    parser = StreamParser([WRITE])
    released = ""
    for c in "<function=write_file>\n<parameter=content>\nsay </parameter> then " + "y" * 600:
        released += "".join(e.text for e in parser.feed(c) if isinstance(e, ToolCallArgs))
    assert released == '{"content": "say </parameter> then ' + "y" * 600


# -- the property: stray text after closers changes nothing else -------------------------------------------------------

#: the markup and key/value dialects the parser reads (GLM's and MiniMax's among them in the tests)
PLAIN_BODIES = [name for name, d in READ_DIALECTS.items() if d.parameter is not None]
#: stray text: no '<' that may start a tag, no leading whitespace (that goes before it)
STRAY = (
    st.lists(
        st.one_of(st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="<"), st.just("a < b")),
        min_size=1,
        max_size=30,
    )
    .map("".join)
    .filter(lambda s: not s[0].isspace() and bool(s.strip()))
)
LEAD = st.sampled_from(["", " ", "  ", "\t"])


def _write(dialect: Dialect, name: str, args: list[tuple[str, str]], strays: list[str | None], end: str) -> str:
    """The call as ``dialect`` writes it, each stray text right after its value's closing tag."""
    p = dialect.parameter
    assert p is not None
    closer = dialect.markup.param_close if dialect.markup is not None else dialect.pairs.value_close
    at = p.value_close.index(closer) + len(closer)
    body = "".join(
        f"{p.key_open}{k}{p.key_to_value}{v}{p.value_close[:at]}{stray or ''}{p.value_close[at:]}"
        for (k, v), stray in zip(args, strays, strict=True)
    )
    return dialect.begin(name) + body + (dialect.end if end else "")


@SETTINGS
@given(
    data=st.data(),
    dialect=st.sampled_from(PLAIN_BODIES),
    name=NAME,
    args=ARGS,
    end=st.booleans(),
    after=st.sampled_from(["", "\nDone.", " and so on", "\n\n"]),
)
def test_stray_text_after_a_closer_is_content_and_changes_nothing_else(
    data: st.DataObject, dialect: str, name: str, args: dict[str, Any], end: bool, after: str
) -> None:
    declared = READ_DIALECTS[dialect]
    if declared.pairs is not None and data.draw(st.booleans()):
        declared = compact(declared)
    ends = value_ends(declared)
    texts = [(k, v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)) for k, v in args.items()]
    assume(not any(ends(v) for _, v in texts))
    strays = [data.draw(st.one_of(st.none(), st.tuples(LEAD, STRAY).map("".join))) for _ in texts]
    tools = [tool_for(name, args)]
    plain = parse(_write(declared, name, texts, [None] * len(texts), end) + after, tools)
    output = _write(declared, name, texts, strays, end) + after
    read = parse(output, tools)
    assert summary(read)[2] == summary(plain)[2]
    # a stray text's trailing whitespace is markup before markup; before text (the last stray of a call left open,
    # then text after it) it is text, kept
    text_after_last = not end and after.strip()
    kept = [s if text_after_last and i == len(strays) - 1 else s.rstrip(" \t\r\n") for i, s in enumerate(strays) if s]
    assert read.content == "".join(kept) + plain.content
    pieces = data.draw(splits(output))
    streamed, _ = stream(pieces, tools)
    assert summary(streamed) == summary(read)
    assert _two_stage(pieces, tools) == summary(read)  # the reasoning stage, then the tool stage, read it so too
