"""Model outputs in every dialect, with the tools of their request (the SGLang suite's corpus)."""

from __future__ import annotations

from dataclasses import dataclass

from tests.support.tools import function_tool

TOOLS: list[dict] = [
    function_tool("get_weather", {"city": {"type": "string"}, "days": {"type": "integer"}}, ["city"]),
    function_tool("write_file", {"path": {"type": "string"}, "content": {"type": "string"}}, ["path", "content"]),
    function_tool(
        "set_flags",
        {
            "enabled": {"type": "boolean"},
            "ratio": {"type": "number"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "meta": {"type": "object"},
        },
    ),
]


@dataclass(frozen=True)
class Case:
    id: str
    text: str
    #: (name, arguments as a Python value) of each call; None: only compare against the core
    calls: tuple[tuple[str, dict], ...] | None = None
    content: str | None = None


LC_OPEN, LC_CLOSE = "<longcat_tool_call>", "</longcat_tool_call>"
KEY = "<longcat_arg_key>{}</longcat_arg_key>\n<longcat_arg_value>{}</longcat_arg_value>\n"

CASES: list[Case] = [
    Case(
        "json-longcat",
        f'Let me check. {LC_OPEN}\n{{"name": "get_weather", "arguments": {{"city": "Paris", "days": 3}}}}\n{LC_CLOSE}',
        (("get_weather", {"city": "Paris", "days": 3}),),
        "Let me check. ",
    ),
    Case(
        "json-longcat-two-calls-and-text",
        f'A {LC_OPEN}{{"name": "get_weather", "arguments": {{"city": "Oslo"}}}}{LC_CLOSE}\n'
        f'{LC_OPEN}\n{{"name": "write_file", "arguments": {{"path": "a.txt", "content": "x"}}}}\n{LC_CLOSE} done',
        (("get_weather", {"city": "Oslo"}), ("write_file", {"path": "a.txt", "content": "x"})),
    ),
    Case(
        "json-arguments-before-name",
        f'{LC_OPEN}\n{{"arguments": {{"city": "Lima", "days": 1}}, "name": "get_weather"}}\n{LC_CLOSE}',
        (("get_weather", {"city": "Lima", "days": 1}),),
    ),
    Case(
        "json-escapes-and-unicode",
        f'{LC_OPEN}\n{{"name": "write_file", "arguments": {{"path": "S\\u00e3o/\\"q\\".txt", '
        f'"content": "line1\\nline2\\t\\\\ caf\u00e9 \U0001f600"}}}}\n{LC_CLOSE}',
        (("write_file", {"path": 'S\u00e3o/"q".txt', "content": "line1\nline2\t\\ caf\u00e9 \U0001f600"}),),
    ),
    Case(
        "hermes-json",
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Tokyo"}}\n</tool_call>',
        (("get_weather", {"city": "Tokyo"}),),
        "",
    ),
    Case(
        "hermes-json-two-calls",
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n</tool_call>\n'
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Bern"}}\n</tool_call>',
        (("get_weather", {"city": "Rome"}), ("get_weather", {"city": "Bern"})),
    ),
    Case(
        "xml-function",
        "I'll write it.\n<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/app.py\n</parameter>\n"
        '<parameter=content>\nprint("hi")\nx = 1 < 2\n</parameter>\n</function>\n</tool_call>',
        (("write_file", {"path": "src/app.py", "content": 'print("hi")\nx = 1 < 2'}),),
    ),
    Case(
        "xml-typed-values",
        "<tool_call>\n<function=set_flags>\n<parameter=enabled>\ntrue\n</parameter>\n<parameter=ratio>\n1.5\n"
        '</parameter>\n<parameter=tags>\n["a", "b"]\n</parameter>\n<parameter=meta>\n{"k": 1}\n</parameter>\n'
        "</function>\n</tool_call>",
        (("set_flags", {"enabled": True, "ratio": 1.5, "tags": ["a", "b"], "meta": {"k": 1}}),),
    ),
    Case(
        "xml-in-longcat-wrapper",
        f"{LC_OPEN}\n<function=get_weather>\n<parameter=city>\nKyiv\n</parameter>\n<parameter=days>\n2\n"
        f"</parameter>\n</function>\n{LC_CLOSE}",
        (("get_weather", {"city": "Kyiv", "days": 2}),),
    ),
    Case(
        "xml-bare-function",
        "<function=get_weather>\n<parameter=city>\nQuito\n</parameter>\n</function>",
        (("get_weather", {"city": "Quito"}),),
    ),
    Case(
        "kv-longcat",
        f"Checking.\n{LC_OPEN}get_weather\n" + KEY.format("city", "Paris") + KEY.format("days", "3") + LC_CLOSE,
        (("get_weather", {"city": "Paris", "days": 3}),),
    ),
    Case(
        "kv-two-calls",
        f"{LC_OPEN}get_weather\n" + KEY.format("city", "Nice") + LC_CLOSE + "\n"
        f"{LC_OPEN}write_file\n" + KEY.format("path", "n.md") + KEY.format("content", "# Nice\n\nsunny") + LC_CLOSE,
        (("get_weather", {"city": "Nice"}), ("write_file", {"path": "n.md", "content": "# Nice\n\nsunny"})),
    ),
    Case(
        "xml-value-closing-tag-with-text-after-it",
        "<tool_call>\n<function=write_file>\n<parameter=path>\nrun.sh\n</parameter>\n<parameter=content>\n"
        'echo "</parameter> done"\n</parameter>\n</function>\n</tool_call>',
        (("write_file", {"path": "run.sh", "content": 'echo "</parameter> done"'}),),
        "",
    ),
    Case(
        "xml-compact-values",
        "<tool_call><function=write_file><parameter=path>a</parameter><parameter=content>b</parameter></function>"
        "</tool_call>",
        (("write_file", {"path": "a", "content": "b"}),),
        "",
    ),
    Case(
        "kv-value-closing-tag-with-text-after-it",
        f"{LC_OPEN}write_file\n"
        + KEY.format("path", "a.txt")
        + KEY.format("content", "</longcat_arg_value> and more")
        + f"{LC_CLOSE}\n{LC_OPEN}write_file<longcat_arg_key>path</longcat_arg_key><longcat_arg_value>b"
        "</longcat_arg_value><longcat_arg_key>content</longcat_arg_key><longcat_arg_value>c</longcat_arg_value>"
        + LC_CLOSE,
        (
            ("write_file", {"path": "a.txt", "content": "</longcat_arg_value> and more"}),
            ("write_file", {"path": "b", "content": "c"}),
        ),
    ),
    Case(
        "plain-text",
        "No tools needed: 2 < 3 and <b>bold</b> stays.",
        (),
        "No tools needed: 2 < 3 and <b>bold</b> stays.",
    ),
    Case(
        "truncated-json-string", f'{LC_OPEN}\n{{"name": "write_file", "arguments": {{"path": "a.py", "content": "print('
    ),
    Case("truncated-json-after-key", f'{LC_OPEN}\n{{"name": "get_weather", "arguments": {{"city": "Par'),
    Case(
        "truncated-xml-value",
        "<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/x.py\n</parameter>\n<parameter=content>\ndef f(:\n",
    ),
    Case(
        "truncated-kv-value", f"{LC_OPEN}get_weather\n<longcat_arg_key>city</longcat_arg_key>\n<longcat_arg_value>Ber"
    ),
    Case("truncated-in-tag", "Answer: <longcat_tool_c"),
    Case("malformed-block", f"{LC_OPEN}this is not a call{LC_CLOSE} after"),
]

#: one long case per dialect, for random splits
LONG_CASES: list[Case] = [
    c for c in CASES if c.id in ("json-longcat-two-calls-and-text", "xml-function", "kv-two-calls")
]
