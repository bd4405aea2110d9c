"""Model outputs used by the benchmarks and the scaling tests: identical text for every parser measured."""

from __future__ import annotations

import json
import random

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
