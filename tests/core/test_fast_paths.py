"""The parser's fast paths (a delta that decides itself is read without the machine's loop) give exactly the events
of the loop: every feed of the corpus and of the benchmark's workloads, in several splits, is compared with a parser
whose fast paths are switched off, event for event and feed for feed."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from longcat_plugins.core import ParserOptions, StreamParser
from longcat_plugins.core.events import Event
from longcat_plugins.core.schema import convert_value
from longcat_plugins.core.schema.convert import _convert
from longcat_plugins.core.schema.refs import as_node

from .test_corpus import CASES, _splits

SPLITS = ["fixed1", "fixed3", "tokens1", "tokens2", "random1", "random2"]

_MANY_TOOL = {
    "type": "function",
    "function": {
        "name": "configure",
        "parameters": {
            "type": "object",
            "properties": {f"p{i}": {"type": "integer" if i % 2 else "string"} for i in range(40)},
        },
    },
}
_MANY_VALUES = [i if i % 2 else f"value {i}\n  indented" for i in range(40)]
#: the benchmark's shapes: many small parameters (markup and key/value), text around calls, reasoning before them
WORKLOADS: dict[str, tuple[str, list[dict[str, Any]], dict[str, Any]]] = {
    "many_xml": (
        "<tool_call>\n<function=configure>\n"
        + "".join(f"<parameter=p{i}>\n{v}\n</parameter>\n" for i, v in enumerate(_MANY_VALUES))
        + "</function>\n</tool_call>",
        [_MANY_TOOL],
        {},
    ),
    "many_kv": (
        "<longcat_tool_call>configure\n"
        + "".join(
            f"<longcat_arg_key>p{i}</longcat_arg_key>\n<longcat_arg_value>{v}</longcat_arg_value>\n"
            for i, v in enumerate(_MANY_VALUES)
        )
        + "</longcat_tool_call>",
        [_MANY_TOOL],
        {},
    ),
    "kv_lines": (
        "<longcat_tool_call>configure\n"
        + "".join(f"p{i}: {v}\n" for i, v in enumerate(_MANY_VALUES[:12]))
        + "</longcat_tool_call>",
        [_MANY_TOOL],
        {},
    ),
    "agent_turn": (
        "<think>\nRead the test first, then configure. configure is the tool.\n</think>\n\nLet me configure "
        "it: configure\n<tool_call>\n<function=configure>\n<parameter=p0>\nline one\nline two\n</parameter>\n"
        "<parameter=p1>\n7\n</parameter>\n</function>\n</tool_call>\nDone, configure ran. configure\n"
        "<longcat_tool_call>configure\n<longcat_arg_key>p2</longcat_arg_key>\n<longcat_arg_value>x y\n"
        "</longcat_arg_value>\n</longcat_tool_call> and more text configur",
        [_MANY_TOOL],
        {"reasoning": True},
    ),
}


def _feeds(text: str, tools: Any, options: ParserOptions, how: str, fast: bool) -> list[list[Event]]:
    parser = StreamParser(tools, options)
    parser._fast_paths = fast
    parser._fast_reader = parser._fast_reader and fast
    out = [parser.feed(delta) for delta in _splits(text, how)]
    out.append(parser.finish())
    return out


def _options(given: dict[str, Any]) -> ParserOptions:
    options = ParserOptions(**given)
    return dataclasses.replace(options, id_factory=lambda index: f"call_{index}")


def _compare(text: str, tools: Any, given: dict[str, Any]) -> None:
    options = _options(given)
    for how in SPLITS:
        fast = _feeds(text, tools, options, how, True)
        slow = _feeds(text, tools, options, how, False)
        assert fast == slow, how


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_fast_paths_give_the_loops_events_on_the_corpus(case: dict[str, Any]) -> None:
    _compare(case["text"], case["tools"], case.get("options", {}))


@pytest.mark.parametrize("name", sorted(WORKLOADS))
@pytest.mark.parametrize("given", [{}, {"tools": False}, {"cut_calls_as_text": True}], ids=["calls", "no-tools", "cut"])
def test_fast_paths_give_the_loops_events_on_the_workloads(name: str, given: dict[str, Any]) -> None:
    text, tools, options = WORKLOADS[name]
    _compare(text, tools, {**options, **given})
    _compare(text, None, {**options, **given})


@pytest.mark.parametrize(
    "schema",
    [{"type": "integer"}, {"type": ["integer", "null"]}, {"anyOf": [{"type": "integer"}, {"type": "array"}]}],
    ids=["integer", "integer-or-null", "integer-or-array"],
)
def test_integer_fast_path_gives_the_general_conversion(schema: dict[str, Any]) -> None:
    texts = ["0", "-0", "7", " 42\n", "-17", "007", "1_000", "+5", "1e3", "3.0", "null", "", " ", "12a", "\u0663"]
    texts += ["9" * 299, "9" * 300, "9" * 301, "-" + "9" * 299, "9" * 400]
    for text in texts:
        fast = convert_value(text, schema)
        general = _convert(text, as_node(schema), 0)
        assert (type(fast), fast) == (type(general), general), text
