"""Property tests of the core's invariants (docs/design.md, the guarantees) on generated outputs in every dialect.

1. streaming == non-streaming for every split; 2. arguments are valid JSON objects, fragments append-only;
3. nothing raises, unparseable text comes back verbatim, well-formed calls come back exactly; 6. order and identity.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import string
from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from longcat_plugins.core import ParserOptions, parse
from longcat_plugins.core.dialects import DIALECTS, MARKUPS, PAIR_KEY_OPENS, READ_DIALECTS, THINK_CLOSES, THINK_OPENS
from tests.fuzz.outputs import value_ends
from tests.grammar_cases import compact, written
from tests.support.events import groups_of, prefixes_ok, split_at, stream, summary
from tests.support.tools import function_tool

EXAMPLES = int(os.environ.get("LONGCAT_HYPOTHESIS_EXAMPLES", "300"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])

NAME = st.text(string.ascii_letters + string.digits + "_", min_size=1, max_size=12).filter(lambda s: s[0].isalpha())
# Text with the characters that matter to the scanners: quotes, backslashes, control characters, '<', braces, unicode.
TRICKY = st.lists(
    st.one_of(
        st.sampled_from(list('"\\\n\t\r<>{}[],: /=_')),
        st.characters(codec="utf-8", exclude_categories=("Cs",)),
        st.sampled_from(["\x00", "\x1f", "é", "中", "😀", "\u2028"]),
        # markup inside a value is data
        st.sampled_from(["<think>", "</longcat_think>", "<tool_call>", "</tool_call>", "<|im_end|>", "</longcat_s>"]),
        # a value's own closing tag, value text where other text follows it on its line
        st.sampled_from(["</parameter> ", "</longcat_arg_value>", "</arg_value> "]),
    ),
    max_size=30,
).map("".join)
PLAIN = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="<"), max_size=30)

JSON_SCALAR = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**12), 10**12), st.floats(allow_nan=False, allow_infinity=False), TRICKY
)
JSON_VALUE = st.recursive(
    JSON_SCALAR,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(TRICKY, inner, max_size=4)),
    max_leaves=10,
)
ARGS = st.dictionaries(NAME, JSON_VALUE, max_size=5)

#: what ends a value in each dialect, as its reader has it (a generated value holds none of it)
XML_ENDS = value_ends(DIALECTS["xml"])
KV_ENDS = value_ends(DIALECTS["kv"])


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
    return "array" if isinstance(value, list) else "object"


def tool_for(name: str, args: dict[str, Any]) -> dict[str, Any]:
    properties = {k: {"type": _json_type(v)} for k, v in args.items()}
    return function_tool(name, properties)


def _plain_value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


SHAPES = ("longcat_json", "hermes_json", "xml", "xml_longcat", "xml_bare", "kv", *READ_DIALECTS)
#: the shapes that have keys or parameter headers
_HEADER_SHAPES = tuple(
    dict.fromkeys(
        shape
        for shape in SHAPES
        if shape in ("xml", "xml_longcat", "xml_bare") or (shape in READ_DIALECTS and READ_DIALECTS[shape].parameter)
    )
)


@st.composite
def call_block(draw: st.DrawFn, shapes: tuple[str, ...] = SHAPES) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    """One call block in a random dialect (of ``shapes``): its text and the calls it holds."""
    dialect = draw(st.sampled_from(shapes))
    name = draw(NAME)
    args = draw(ARGS)
    if dialect in READ_DIALECTS:  # as the declaration writes it (a key/value one also with no line breaks)
        declared = READ_DIALECTS[dialect]
        if declared.pairs is not None and draw(st.booleans()):
            declared = compact(declared)
        if declared.parameter is None:
            if declared.quoted is not None:  # (a string between quote tokens ends at a tag that ends the call)
                assume(not any(value_ends(declared)(v) for v in args.values() if isinstance(v, str)))
            return written(declared, name, args), [(name, args)]
        assume(not any(value_ends(declared)(_plain_value(v)) for v in args.values()))
        return written(declared, name, {k: _plain_value(v) for k, v in args.items()}), [(name, args)]
    ws = draw(st.sampled_from(["", "\n", " ", "\n\n"]))
    if dialect in ("longcat_json", "hermes_json"):
        open_tag, close_tag = (
            ("<longcat_tool_call>", "</longcat_tool_call>")
            if dialect == "longcat_json"
            else ("<tool_call>", "</tool_call>")
        )
        calls = [(name, args)]
        if dialect == "hermes_json" and draw(st.booleans()):
            calls.append((draw(NAME), draw(ARGS)))  # several JSON objects in one block (seed 003's history form)
        bodies = []
        for n, a in calls:
            members = [f'"name": {json.dumps(n)}', f'"arguments": {json.dumps(a, ensure_ascii=draw(st.booleans()))}']
            if draw(st.booleans()):
                members.reverse()
            bodies.append("{" + ", ".join(members) + "}")
        return open_tag + ws + "\n".join(bodies) + ws + close_tag, calls
    if dialect.startswith("xml"):
        params = "".join(f"<parameter={k}>\n{_plain_value(v)}\n</parameter>\n" for k, v in args.items())
        assume(not any(XML_ENDS(_plain_value(v)) for v in args.values()))
        body = f"<function={name}>\n{params}</function>"
        if dialect == "xml":
            return f"<tool_call>{ws}{body}{ws}</tool_call>", [(name, args)]
        if dialect == "xml_longcat":
            return f"<longcat_tool_call>{ws}{body}{ws}</longcat_tool_call>", [(name, args)]
        return body, [(name, args)]
    assume(not any(KV_ENDS(_plain_value(v)) for v in args.values()))
    pairs = "".join(
        f"<longcat_arg_key>{k}</longcat_arg_key>\n<longcat_arg_value>{_plain_value(v)}</longcat_arg_value>\n"
        for k, v in args.items()
    )
    return f"<longcat_tool_call>{name}\n{pairs}</longcat_tool_call>", [(name, args)]


#: what joins the calls of a block with no closing tag (Llama's ``;``): text right after a block does not begin with
#: one, which would be read as such (markup, at the end of the output)
CALL_SEPARATORS = tuple({d.block.call_separator for d in READ_DIALECTS.values() if d.block.call_separator})


@st.composite
def conversation(draw: st.DrawFn) -> tuple[str, str, str, list[tuple[str, dict[str, Any]]]]:
    """Reasoning, content and call blocks interleaved; returns (text, reasoning, content, calls)."""
    reasoning = draw(st.one_of(st.none(), PLAIN))
    tag = draw(st.sampled_from(["think", "longcat_think"]))
    text = f"<{tag}>{reasoning}</{tag}>" if reasoning is not None else ""
    content_parts: list[str] = []
    calls: list[tuple[str, dict[str, Any]]] = []
    after_block = False
    for _ in range(draw(st.integers(0, 3))):
        before = draw(PLAIN)
        assume(not (after_block and before.lstrip(" \t\r\n").startswith(CALL_SEPARATORS)))
        block, block_calls = draw(call_block())
        text += before + block
        if not (after_block and not before.strip(" \t\r\n")):  # whitespace between two blocks is markup
            content_parts.append(before)
        calls.extend(block_calls)
        after_block = True
    assume(len({n for n, _ in calls}) == len(calls))  # one schema per tool name
    after = draw(PLAIN)
    assume(not (after_block and after.lstrip(" \t\r\n").startswith(CALL_SEPARATORS)))
    text += after
    if not (after_block and not after.strip(" \t\r\n")):  # and so is whitespace after the last block
        content_parts.append(after)
    return text, reasoning or "", "".join(content_parts), calls


@st.composite
def splits(draw: st.DrawFn, text: str) -> list[str]:
    kind = draw(st.sampled_from(["chars", "whole", "groups", "random"]))
    if kind == "chars":
        return list(text)
    if kind == "whole":
        return [text]
    if kind == "groups":
        return groups_of(text, draw(st.sampled_from([2, 3, 4, 5, 7, 16, 64])))
    cuts = draw(st.lists(st.integers(0, max(len(text), 1)), max_size=30))
    return split_at(text, cuts)


def _tools(calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    return [tool_for(n, a) for n, a in calls]


@SETTINGS
@given(data=st.data(), conv=conversation())
def test_well_formed_output_round_trips_in_any_split(data: st.DataObject, conv: Any) -> None:
    text, reasoning, content, calls = conv
    tools = _tools(calls)
    whole = parse(text, tools)
    assert whole.content == content
    assert whole.reasoning == reasoning
    assert [(c.name, json.loads(c.arguments)) for c in whole.tool_calls] == calls
    pieces = data.draw(splits(text))
    streamed, events = stream(pieces, tools)
    assert summary(streamed) == summary(whole)
    assert prefixes_ok(events)


@SETTINGS
@given(data=st.data(), conv=conversation(), cut=st.floats(0, 1))
def test_truncated_output_keeps_invariants(data: st.DataObject, conv: Any, cut: float) -> None:
    text = conv[0][: int(len(conv[0]) * cut)]
    tools = _tools(conv[3])
    whole = parse(text, tools)
    streamed, _ = stream(data.draw(splits(text)), tools)
    assert summary(streamed) == summary(whole)
    stream([text], tools)  # the invariant checks of a single feed


@SETTINGS
@given(data=st.data(), conv=conversation(), cut=st.floats(0, 1))
def test_a_call_the_output_ends_in_comes_back_as_text(data: st.DataObject, conv: Any, cut: float) -> None:
    """With ``cut_calls_as_text`` (the engine may have cut the output with a stop string), the complete calls are
    the same, a call the output ends in is text, and streaming still equals the whole."""
    text = conv[0][: int(len(conv[0]) * cut)]
    tools = _tools(conv[3])
    options = ParserOptions(cut_calls_as_text=True)
    whole = parse(text, tools, options)
    streamed, _ = stream(data.draw(splits(text)), tools, options)
    assert summary(streamed) == summary(whole)
    closed = parse(text, tools)
    kept = [(c.name, c.arguments) for c in whole.tool_calls]
    assert kept == [(c.name, c.arguments) for c in closed.tool_calls[: len(kept)]]
    assert len(closed.tool_calls) - len(kept) in (0, 1)
    if len(closed.tool_calls) > len(kept):
        assert len(whole.content) > len(closed.content)


GARBAGE = st.sampled_from(
    [
        "<",
        "<tool_call>",
        "</tool_call>",
        "<longcat_tool_call>",
        "</longcat_tool_call>",
        "<function=",
        "<function=x>",
        "</function>",
        "<parameter=",
        "<parameter=p>",
        "</parameter>",
        "<longcat_arg_key>",
        "</longcat_arg_value>",
        "<think>",
        "</think>",
        "</longcat_s>",
        "<|im_end|>",
        "{",
        "}",
        '"',
        "\\",
        ",",
        ":",
        "\n",
        "<longc",
        "<tool_",
        "\\u12",
    ]
)


@SETTINGS
@given(data=st.data(), conv=conversation(), inserts=st.lists(st.tuples(st.floats(0, 1), GARBAGE), max_size=4))
def test_injected_garbage_keeps_invariants(data: st.DataObject, conv: Any, inserts: list[tuple[float, str]]) -> None:
    text = conv[0]
    for at, junk in inserts:
        i = int(len(text) * at)
        text = text[:i] + junk + text[i:]
    tools = _tools(conv[3])
    options = ParserOptions(reasoning_open=data.draw(st.booleans()), cut_calls_as_text=data.draw(st.booleans()))
    whole = parse(text, tools, options)
    streamed, _ = stream(data.draw(splits(text)), tools, options)
    assert summary(streamed) == summary(whole)


@SETTINGS
@given(data=st.data(), conv=conversation(), opened=st.booleans())
def test_an_unknown_start_is_read_as_its_first_think_tag_says(data: st.DataObject, conv: Any, opened: bool) -> None:
    """``reasoning_start_unknown``: the reading of the prompt-opened output when the first think tag closes
    reasoning (the template's opener left out here), else of an output that starts outside it; in any split."""
    text = conv[0]
    if opened:
        text = "".join(text.split(data.draw(st.sampled_from(["<think>", "<longcat_think>"])), 1))
    tools = _tools(conv[3])
    first = min(((text.find(tag), tag) for tag in (*THINK_OPENS, *THINK_CLOSES) if tag in text), default=(-1, ""))
    known = ParserOptions(reasoning_open=first[1] in THINK_CLOSES)
    options = ParserOptions(reasoning_start_unknown=True, cut_calls_as_text=data.draw(st.booleans()))
    whole = parse(text, tools, options)
    assert summary(whole) == summary(parse(text, tools, replace(known, cut_calls_as_text=options.cut_calls_as_text)))
    streamed, _ = stream(data.draw(splits(text)), tools, options)
    assert summary(streamed) == summary(whole)


@SETTINGS
@given(data=st.data(), parts=st.lists(st.one_of(GARBAGE, TRICKY, NAME), max_size=25))
def test_arbitrary_markup_soup_keeps_invariants(data: st.DataObject, parts: list[str]) -> None:
    text = "".join(parts)
    whole = parse(text)
    streamed, _ = stream(data.draw(splits(text)))
    assert summary(streamed) == summary(whole)


#: every combination of the parser's options (the id factory aside)
OPTIONS = st.builds(
    ParserOptions,
    reasoning=st.booleans(),
    tools=st.booleans(),
    reasoning_open=st.booleans(),
    reasoning_start_unknown=st.booleans(),
    emit_unknown_calls=st.booleans(),
    cut_calls_as_text=st.booleans(),
)


#: the tags that open a key or a parameter's header, in every dialect
_OPEN_HEADERS = (*PAIR_KEY_OPENS, *(m.param_open for m in MARKUPS.values()))


@st.composite
def open_call_then_new_call(draw: st.DrawFn) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    """A call cut at any point (in its name, a key, a header, a value; its block's opening tag maybe left out),
    then the head of another call, in any dialect, that the output ends in."""
    first, first_calls = draw(call_block(_HEADER_SHAPES if draw(st.booleans()) else SHAPES))
    second, second_calls = draw(call_block())
    if draw(st.booleans()):
        first = first.removeprefix("<longcat_tool_call>").removeprefix("<tool_call>")
    headers = [i + len(tag) for tag in _OPEN_HEADERS for i in range(len(first)) if first.startswith(tag, i)]
    if headers and draw(st.booleans()):  # a few characters into a key or a parameter's header
        cut = min(len(first), draw(st.sampled_from(headers)) + draw(st.integers(0, 6)))
    else:
        cut = draw(st.integers(0, len(first)))
    text = first[:cut] + second[: draw(st.integers(1, len(second)))]
    return draw(PLAIN) + text, first_calls + second_calls


@SETTINGS
@given(data=st.data(), case=open_call_then_new_call(), options=OPTIONS, declared=st.booleans())
def test_a_call_left_open_then_a_new_call_keeps_invariants_under_any_options(
    data: st.DataObject, case: Any, options: ParserOptions, declared: bool
) -> None:
    """Nothing raises, whatever the options: a call left open, then a call the output ends in (with
    ``cut_calls_as_text`` the second is withdrawn, after the first was given out), whole and in any split."""
    text, calls = case
    tools = _tools(calls) if declared else None
    whole, _ = stream([text], tools, options)
    assert summary(whole) == summary(parse(text, tools, options))
    streamed, _ = stream(data.draw(splits(text)), tools, options)
    assert summary(streamed) == summary(whole)


@SETTINGS
@given(data=st.data(), parts=st.lists(st.one_of(GARBAGE, TRICKY, NAME), max_size=25), options=OPTIONS)
def test_markup_soup_keeps_invariants_under_any_options(
    data: st.DataObject, parts: list[str], options: ParserOptions
) -> None:
    text = "".join(parts)
    names = dict.fromkeys(part for part in parts if part.isidentifier())  # (the names in the soup are its tools)
    tools = [function_tool(name, {"p": {"type": "string"}}) for name in names] or None
    whole, _ = stream([text], tools, options)
    streamed, _ = stream(data.draw(splits(text)), tools, options)
    assert summary(streamed) == summary(whole)


#: a word of the output that must come out somewhere (content, reasoning, a call's name or arguments)
_SENTINEL = re.compile(r"Q[0-9]+x?")  # (a word the end of the output cut is a word too)


@st.composite
def sentinel_output(draw: st.DrawFn) -> tuple[str, list[dict[str, Any]]]:
    """Prose and calls in any dialect the parser reads (a key/value one also with no line breaks), every name, key,
    value and word of prose a sentinel; returns the output and the tools it calls."""
    words = itertools.count()

    def word() -> str:
        return f"Q{next(words)}x"

    text = ""
    tools = []
    for _ in range(draw(st.integers(1, 3))):
        declared = READ_DIALECTS[draw(st.sampled_from(sorted(READ_DIALECTS)))]
        if declared.pairs is not None and draw(st.booleans()):
            declared = compact(declared)
        name = word()
        arguments = {word(): f"{word()} {word()}" for _ in range(draw(st.integers(0, 3)))}
        tools.append(function_tool(name, {key: {"type": "string"} for key in arguments}))
        text += draw(st.sampled_from(["", "\n", f"{word()} {word()}\n"])) + written(declared, name, arguments)
    return text + draw(st.sampled_from(["", f"\n{word()}"])), tools


@SETTINGS
@given(data=st.data(), output=sentinel_output(), options=OPTIONS, declared=st.booleans())
def test_every_word_of_a_truncated_output_comes_out(
    data: st.DataObject, output: tuple[str, list[dict[str, Any]]], options: ParserOptions, declared: bool
) -> None:
    """Nothing of the text is lost, wherever the end of the output cuts it and whatever the options: every word of
    it is in the content, the reasoning, or a call's name or arguments (a header or a key cut off after its name
    began is content; only markup is consumed)."""
    whole = output[0]
    headers = [i + len(tag) for tag in _OPEN_HEADERS for i in range(len(whole)) if whole.startswith(tag, i)]
    if headers and data.draw(st.booleans()):  # in a key or a parameter's header, or right after its tag
        text = whole[: data.draw(st.sampled_from(headers)) + data.draw(st.integers(0, 5))]
    else:
        text = whole[: data.draw(st.integers(0, len(whole)))]
    message = parse(text, output[1] if declared else None, options)
    found = "\x00".join(
        [message.content, message.reasoning, *(part for c in message.tool_calls for part in (c.name, c.arguments))]
    )
    assert [word for word in _SENTINEL.findall(text) if word not in found] == []


NO_MARKUP = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60).filter(
    lambda s: (
        not any(
            t in s
            for t in (
                "<think>",
                "</think>",
                "<longcat_think>",
                "</longcat_think>",
                "</longcat_s>",
                "<|im_end|>",
                "<function=",
            )
        )
    )
)


@SETTINGS
@given(
    data=st.data(),
    wrapper=st.sampled_from(["tool_call", "longcat_tool_call"]),
    body=NO_MARKUP.filter(lambda s: not s.lstrip().startswith(("{", "<function="))),
)
def test_block_without_a_call_comes_back_verbatim(data: st.DataObject, wrapper: str, body: str) -> None:
    text = f"before <{wrapper}>{body}</{wrapper}> after"
    whole = parse(text)
    if not whole.tool_calls:  # a key/value name followed by a key tag is a call; anything else is text
        assert whole.content == text
    streamed, _ = stream(data.draw(splits(text)))
    assert summary(streamed) == summary(whole)


@SETTINGS
@given(data=st.data(), block=call_block(), before=PLAIN, after=PLAIN, passthrough=st.booleans())
def test_a_block_naming_no_tool_comes_back_verbatim(
    data: st.DataObject, block: Any, before: str, after: str, passthrough: bool
) -> None:
    """Issue 29, item 8: markup inside the values of a call naming no tool of the request (think tags, end markers)
    is text of the call; the block, and what follows it, comes back verbatim (with or without tool parsing)."""
    text = before + block[0] + after
    tools = [function_tool("0declared", {"a": {"type": "string"}})]  # (a name the generated ones never are)
    options = ParserOptions(tools=not passthrough)
    whole = parse(text, tools, options)
    assert summary(whole) == (text, "", [])
    streamed, _ = stream(data.draw(splits(text)), tools, options)
    assert summary(streamed) == summary(whole)


def _two_stage(pieces: list[str], tools: Any) -> tuple[str, str, list[tuple[str, str]]]:
    """As the engines chain parsers: a reasoning stage (tools off), then a tool stage (reasoning off) on its content."""
    reasoning_stage, _ = stream(pieces, None, ParserOptions(tools=False))
    tool_stage, _ = stream([reasoning_stage.content], tools, ParserOptions(reasoning=False))
    return tool_stage.content, reasoning_stage.reasoning, summary(tool_stage)[2]


@SETTINGS
@given(data=st.data(), conv=conversation())
def test_reasoning_stage_then_tool_stage_equals_one_pass(data: st.DataObject, conv: Any) -> None:
    text = conv[0]
    tools = _tools(conv[3])
    assert _two_stage(data.draw(splits(text)), tools) == summary(parse(text, tools))
