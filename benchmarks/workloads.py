"""Model outputs used by the benchmarks and the scaling tests: identical text for every parser measured."""

from __future__ import annotations

import json
import random

from longcat_plugins.core.dialects import DIALECTS as REGISTRY

WRITE_FILE_TOOL = {
    "type": "function",
    "function": {
        "name": "write_file",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    },
}


def big_text(size: int, seed: int = 0) -> str:
    """Code-like text of ``size`` characters: quotes, backslashes, newlines, '<' and unicode included."""
    rng = random.Random(seed)
    words = ["def", "return", "x", "if a < b:", '"quoted"', "path\\to", "数据", "{k: v}", "\n", "    ", "é", "=", "#"]
    out: list[str] = []
    n = 0
    while n < size:
        w = rng.choice(words) + " "
        out.append(w)
        n += len(w)
    return "".join(out)[:size]


def json_call(size: int, wrapper: str = "longcat_tool_call") -> str:
    """One call with a huge string argument, LongCat/Hermes JSON dialect."""
    args = json.dumps({"path": "src/app.py", "content": big_text(size)}, ensure_ascii=False)
    return f'<{wrapper}>\n{{"name": "write_file", "arguments": {args}}}\n</{wrapper}>'


def xml_call(size: int) -> str:
    """One call with a huge string value, XML function dialect."""
    return (
        "<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/app.py\n</parameter>\n"
        f"<parameter=content>\n{big_text(size).replace('</', '< /')}\n</parameter>\n</function>\n</tool_call>"
    )


def kv_call(size: int) -> str:
    """One call with a huge string value, LongCat key/value dialect (as its declaration writes it)."""
    kv = REGISTRY["kv"]
    p = kv.parameter
    assert p is not None
    value = big_text(size)
    for tag in (p.key_open, p.value_close, kv.block.close):
        value = value.replace(tag, tag[:1] + " " + tag[1:])
    pairs = f"{p.key_open}path{p.key_to_value}src/app.py{p.value_close}{p.key_open}content{p.key_to_value}{value}"
    return kv.begin("write_file") + pairs + p.value_close + kv.end


def kv_many_params(count: int) -> str:
    """One call with ``count`` small parameters, LongCat key/value dialect."""
    kv = REGISTRY["kv"]
    p = kv.parameter
    assert p is not None
    values = [i if i % 2 else f"value {i}" for i in range(count)]
    pairs = "".join(f"{p.key_open}p{i}{p.key_to_value}{v}{p.value_close}" for i, v in enumerate(values))
    return kv.begin("configure") + pairs + kv.end


def many_params_tool(count: int) -> dict[str, object]:
    properties = {f"p{i}": {"type": "integer" if i % 2 else "string"} for i in range(count)}
    return {
        "type": "function",
        "function": {"name": "configure", "parameters": {"type": "object", "properties": properties}},
    }


def xml_many_params(count: int) -> str:
    params = "".join(f"<parameter=p{i}>\n{i if i % 2 else f'value {i}'}\n</parameter>\n" for i in range(count))
    return f"<tool_call>\n<function=configure>\n{params}</function>\n</tool_call>"


def json_many_params(count: int, wrapper: str = "longcat_tool_call") -> str:
    args = {f"p{i}": (i if i % 2 else f"value {i}") for i in range(count)}
    return f'<{wrapper}>\n{{"name": "configure", "arguments": {json.dumps(args)}}}\n</{wrapper}>'


def chunks(text: str, size: int = 4) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


# -- the side-by-side benchmark (benchmarks/cases.py builds its cases from these) ------------------------------------

READ_FILE_TOOL = {
    "type": "function",
    "function": {
        "name": "read_file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    },
}
RUN_COMMAND_TOOL = {
    "type": "function",
    "function": {
        "name": "run_command",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string"}, "timeout": {"type": "integer"}},
            "required": ["command"],
        },
    },
}
AGENT_TOOLS = [READ_FILE_TOOL, RUN_COMMAND_TOOL, WRITE_FILE_TOOL]

#: the JSON wrappers and the XML dialect, by the name the benchmark uses
DIALECTS = ("longcat_json", "hermes_json", "xml")
_WRAPPERS = {"longcat_json": "longcat_tool_call", "hermes_json": "tool_call"}


def xml_value(size: int) -> str:
    """The huge string value as ``xml_call`` writes it (a value cannot contain a closing tag)."""
    return big_text(size).replace("</", "< /")


def huge_call(dialect: str, size: int) -> str:
    """One call with a huge string argument in ``dialect``."""
    return xml_call(size) if dialect == "xml" else json_call(size, _WRAPPERS[dialect])


def many_params_call(dialect: str, count: int) -> str:
    """One call with ``count`` small parameters in ``dialect``."""
    return xml_many_params(count) if dialect == "xml" else json_many_params(count, _WRAPPERS[dialect])


def many_params_arguments(count: int) -> dict[str, object]:
    return {f"p{i}": (i if i % 2 else f"value {i}") for i in range(count)}


AGENT_REASONING = (
    "The user reports that the parser test fails on the last line. I should read the test first, then run it "
    "to see the exact failure, and then write the fix to src/app.py. The fix is small: the loop stops one line "
    "early when the input does not end with a newline. "
)
AGENT_TEXTS = (
    "Let me look at the failing test first.",
    "Now I run it to see the failure.",
    "The loop stops one line early when the input has no final newline. Here is the fix:",
    "Done: src/app.py now handles a missing final newline. Run the tests again to confirm.",
)


def agent_calls(content_size: int = 3000) -> list[tuple[str, dict[str, object]]]:
    """The three calls of the agent turn: (name, arguments)."""
    return [
        ("read_file", {"path": "tests/test_app.py"}),
        ("run_command", {"command": 'pytest -q tests/test_app.py -k "parse and not slow"', "timeout": 120}),
        ("write_file", {"path": "src/app.py", "content": xml_value(content_size)}),
    ]


def _render_call(dialect: str, name: str, arguments: dict[str, object]) -> str:
    if dialect == "xml":
        params = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in arguments.items())
        return f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>"
    wrapper = _WRAPPERS[dialect]
    body = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
    return f"<{wrapper}>\n{body}\n</{wrapper}>"


def agent_turn(dialect: str, content_size: int = 3000) -> str:
    """A realistic agent turn: reasoning, then text and three calls interleaved (the last writes a file)."""
    parts = [f"<think>\n{AGENT_REASONING * 3}\n</think>\n\n"]
    for text, (name, arguments) in zip(AGENT_TEXTS, agent_calls(content_size), strict=False):
        parts.append(f"{text}\n{_render_call(dialect, name, arguments)}\n")
    parts.append(AGENT_TEXTS[-1])
    return "".join(parts)
