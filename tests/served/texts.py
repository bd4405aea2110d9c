"""The texts the matrix serves: the real corpus, the core corpus, and calls generated in every dialect."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from longcat_plugins.core.dialects import DIALECTS
from tests.grammar_cases import written
from tests.support.tools import function_tool

_TESTS = Path(__file__).resolve().parents[1]

WEATHER: dict[str, Any] = function_tool(
    "get_weather", {"city": {"type": "string"}, "days": {"type": "integer"}}, ["city"], "Weather for a city"
)
WRITE_FILE: dict[str, Any] = function_tool(
    "write_file",
    {"path": {"$ref": "#/$defs/Path"}, "content": {"type": "string"}},
    ["path", "content"],
    "Write a file",
    **{"$defs": {"Path": {"type": "string", "description": "A path relative to the project"}}},
)
TOOLS = [WEATHER, WRITE_FILE]
#: a tool whose name holds a dot (called with a namespace: ``functions.l.weather``)
DOTTED_WEATHER: dict[str, Any] = function_tool(
    "l.weather", {"city": {"type": "string"}, "days": {"type": "integer"}}, ["city"], "Weather for a city"
)


@dataclass(frozen=True)
class Text:
    """A model output to serve, with the tools of its request."""

    id: str
    text: str
    tools: list[dict[str, Any]] | None = field(default=None, hash=False)
    #: the prompt leaves the output inside reasoning (the template pre-filled the opening tag)
    reasoning_open: bool = False
    #: the dialect the text's calls are written in, when it was generated (then a grammar of it accepts them)
    dialect: str | None = None
    #: where a ``max_tokens`` cut and a stop string fall: right after the first occurrence of this text (empty:
    #: inside the first call, see :func:`tests.served.requests.stop_string`)
    cut_after: str = ""

    def __str__(self) -> str:
        return self.id


def _function_tools(tools: Any) -> list[dict[str, Any]] | None:
    """The case's tools as the engines take them (function tools with an object schema), None if there are none."""
    out = []
    for tool in tools or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            parameters = function.get("parameters")
            if not isinstance(parameters, dict) or parameters.get("type", "object") != "object":
                parameters = {"type": "object", "properties": {}}
            out.append({"type": "function", "function": {**function, "parameters": parameters}})
    return out or None


@cache
def real_texts() -> tuple[Text, ...]:
    out = []
    for line in (_TESTS / "real" / "cases.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        tools = _function_tools(case.get("tools"))
        out.append(Text(f"real:{case['id']}", case["text"], tools, bool(case.get("reasoning_open"))))
    return tuple(out)


@cache
def corpus_texts() -> tuple[Text, ...]:
    out = []
    for line in (_TESTS / "core" / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        options = case.get("options") or {}
        tools = _function_tools(case.get("tools"))
        out.append(Text(f"corpus:{case['id']}", case["text"], tools, bool(options.get("reasoning_open"))))
    return tuple(out)


PARIS = {"city": "Paris", "days": 3}
#: a value that mentions the markup of every dialect inline, on one line
MARKUP_MENTION = (
    "Close tags inline: </parameter> and </function> and <parameter=path> and </longcat_arg_value> "
    "<longcat_arg_key>k</longcat_arg_key> are text here."
)
REPORT = {"path": "out/report.md", "content": 'Weather:\n  "Paris": sunny <b>warm</b>\n'}


@cache
def generated_texts() -> tuple[Text, ...]:
    """Per dialect: one call; reasoning, a sentence and two parallel calls; the reasoning the prompt opened, ended by
    a call; whitespace between blocks and text after them; an answer with no call; a call of an unknown tool; and
    the shapes parsers disagree on: an output that ends right after a block's opening tag, a call cut off by the
    end of the output, and (in a JSON dialect) arguments that are not an object; a call of a tool whose name holds
    a dot, written with a namespace (``functions.l.weather``)."""
    out = []
    for name, dialect in sorted(DIALECTS.items()):
        weather = written(dialect, "get_weather", PARIS)
        report = written(dialect, "write_file", REPORT)
        unknown = written(dialect, "get_stock", {"symbol": "ACME"})
        shapes = {
            "one_call": (weather, False),
            "two_calls": (weather + "\n" + report, False),
            "think_text_two_calls": ("<think>Two tools.</think>\n\nChecking.\n" + weather + "\n" + report, False),
            "open_reasoning_then_call": ("The user wants Paris.</think>\n\n" + weather, True),
            "open_reasoning_call_ends_it": ("Paris, so I call it.\n" + weather, True),
            "blocks_then_text": (weather + "\n\n" + report + "\n\nBoth done.", False),
            "answer_only": ("<think>No tool needed.</think>\n\nIt is sunny in Paris.", False),
            "unknown_tool": ("Looking it up.\n" + unknown, False),
            "dangling_opener": ("Checking the weather.\n\n" + dialect.block.open, False),
            "cut_call": ("Checking.\n" + weather[: weather.index("Paris") + 3], False),
        }
        if dialect.body == "json":
            not_object = f'{dialect.block.open}\n{{"name": "get_weather", "arguments": "Paris"}}\n{dialect.block.close}'
            shapes["arguments_not_object"] = (not_object, False)
        for shape, (text, reasoning_open) in shapes.items():
            out.append(Text(f"gen:{name}:{shape}", text, TOOLS, reasoning_open, dialect=name))
        # a call after a sentence, cut by max_tokens or a stop string right after its block's opening tag
        text = "Checking the weather.\n\n" + weather
        out.append(Text(f"gen:{name}:cut_after_opener", text, TOOLS, dialect=name, cut_after=dialect.block.open))
        # a call cut by max_tokens or a stop string inside its string value
        out.append(Text(f"gen:{name}:cut_in_value", "Checking.\n" + weather, TOOLS, dialect=name, cut_after="Par"))
        # a call of a tool whose name holds a dot, written with a namespace
        dotted = "Checking.\n" + written(dialect, "functions.l.weather", PARIS)
        out.append(Text(f"gen:{name}:namespaced_dotted_name", dotted, [*TOOLS, DOTTED_WEATHER], dialect=name))
        for shape, (text, cut_after) in several_events(name).items():
            out.append(Text(f"gen:{name}:{shape}", text, TOOLS, shape == "open_reasoning_two_calls", name, cut_after))
    return tuple(out)


#: the shapes of :func:`several_events`
SEVERAL_EVENTS_SHAPES = (
    "text_in_call_then_call", "text_in_call_then_call_then_text", "text_between_calls", "calls_back_to_back",
    "think_then_call_at_once", "open_reasoning_two_calls", "three_calls_text_inside_two", "second_call_cut",
    "first_call_unclosed", "stray_closer_between_calls", "value_mentions_markup", "text_after_value_closer",
    "text_in_call_then_call_cut", "key_left_open_then_call",
)  # fmt: skip
#: text the model writes inside a call, between two of its parameters (or after its arguments, in a JSON body)
INSIDE = "\nI also want the unit.\n"


#: a key/value call whose last key is left open
KEY_LEFT_OPEN = (
    "<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n<longcat_arg_value>Paris"
    "</longcat_arg_value>\n<longcat_arg_key>days"
)


def _first_value_end(dialect_name: str, call: str) -> int:
    """Where the first value of a call written in the dialect ends, its closing tag included (in a JSON body: the
    end of the arguments object)."""
    dialect = DIALECTS[dialect_name]
    close = dialect.markup.param_close if dialect.markup else dialect.pairs.value_close if dialect.pairs else "}}"
    return call.index(close) + len(close)


def several_events(dialect_name: str) -> dict[str, tuple[str, str]]:
    """Outputs in ``dialect_name`` whose events a large delta (many tokens in one step, or the whole turn in one)
    holds several of: text inside a call between its parameters and then a second call (a delta that closes the
    first call may hold the whole second), text between calls, calls with nothing between them, reasoning then a
    call in one breath, three calls with text inside two, a second call cut by the end of the output, a first call
    left unclosed before the next, a stray closing tag between calls, a value that mentions the markup inline, and
    text right after a value's closing tag, a key/value call whose last key is left open and then a call.
    ``(text, cut_after)`` by shape (see :attr:`Text.cut_after`)."""
    dialect = DIALECTS[dialect_name]
    weather = written(dialect, "get_weather", PARIS)
    report = written(dialect, "write_file", REPORT)
    at = _first_value_end(dialect_name, weather)
    inside = weather[:at] + INSIDE + weather[at:].lstrip("\n")
    report_at = _first_value_end(dialect_name, report)
    report_inside = report[:report_at] + "\nAnd its content.\n" + report[report_at:].lstrip("\n")
    mention = written(dialect, "write_file", {"path": "notes.md", "content": MARKUP_MENTION})
    unclosed = weather[:at] + "\n" + report
    shapes = {
        "text_in_call_then_call": (inside + "\n" + report, ""),
        "text_in_call_then_call_then_text": ("Checking.\n" + inside + report + "\nBoth sent.", ""),
        "text_between_calls": (weather + "\nNow the file.\n" + report, ""),
        "calls_back_to_back": (weather + report + weather, ""),
        "think_then_call_at_once": ("<think>Paris, 3 days.</think>" + weather + "Sent.", ""),
        "open_reasoning_two_calls": ("Two tools.</think>\n" + inside + "\n" + report, ""),
        "three_calls_text_inside_two": (inside + "\n" + report_inside + "\n" + weather + "\nDone.", ""),
        "second_call_cut": (inside + "\n" + report[: report.index("out/") + 4], ""),
        "first_call_unclosed": (unclosed, ""),
        "stray_closer_between_calls": (weather + "\n" + dialect.block.close + "\n" + report, ""),
        "value_mentions_markup": ("Writing.\n" + mention + "\n" + weather, ""),
        "text_after_value_closer": (weather[:at] + " (roughly)" + weather[at:] + "\n" + report, ""),
        "text_in_call_then_call_cut": (inside + "\n" + report, "out/"),
        # a key/value call whose last key is left open, then a call (cut inside it by max_tokens or a stop string)
        "key_left_open_then_call": (KEY_LEFT_OPEN + report, "out/"),
    }
    assert tuple(shapes) == SEVERAL_EVENTS_SHAPES
    return shapes


def broken_variant(text: Text, output: str) -> str | None:
    """``output`` with its first get_weather call written without its required ``city`` (which every grammar of a
    forced call must refuse), None when ``text`` was not generated in a dialect."""
    if text.dialect is None:
        return None
    dialect = DIALECTS[text.dialect]
    call = written(dialect, "get_weather", PARIS)
    if call not in output:
        return None
    return output.replace(call, written(dialect, "get_weather", {"days": PARIS["days"]}), 1)


def all_texts() -> tuple[Text, ...]:
    return generated_texts() + real_texts() + corpus_texts()


#: generated shapes by what a grammar lets the model write: only calls (``tool_choice`` required or named), one call;
#: and those no grammar lets it write
_ONLY_CALLS = ("one_call", "two_calls", "open_reasoning_call_ends_it")
_UNGRAMMATICAL = (
    "unknown_tool", "dangling_opener", "cut_call", "arguments_not_object", "cut_after_opener", "cut_in_value",
    "namespaced_dotted_name",
    # (text inside calls, a stray closer, calls with no whitespace between them, markup in a value...)
    *(s for s in SEVERAL_EVENTS_SHAPES if s not in ("text_between_calls", "think_then_call_at_once")),
)  # fmt: skip
_MULTI_CALL = ("two_calls", "think_text_two_calls", "blocks_then_text", "text_between_calls")
#: one call and text after it (a grammar that allows one call ends the output after it)
_TEXT_AFTER_A_CALL = ("think_then_call_at_once",)


def constrained_texts(dialect: str, tool_choice: str, parallel: bool, reasoning_parser: bool) -> list[Text]:
    """The generated texts a grammar in ``dialect`` accepts for ``tool_choice`` (required or named: calls only, of
    the named tool for named; auto with strict tools: any text, calls of declared tools). Without a reasoning
    parser the grammar applies from the first token, reasoning the prompt opened included."""
    out = []
    for text in generated_texts():
        shape = text.id.rsplit(":", 1)[1]
        if text.dialect != dialect or shape in _UNGRAMMATICAL:
            continue
        if tool_choice in ("required", "named") and shape not in _ONLY_CALLS:
            continue
        if tool_choice in ("required", "named") and text.reasoning_open and not reasoning_parser:
            continue
        if (tool_choice == "named" or not parallel) and shape in _MULTI_CALL + _TEXT_AFTER_A_CALL:
            continue
        out.append(text)
    return out
