# ruff: noqa: E501, RUF001
"""Generates tests/real/cases.jsonl, the corpus of real model outputs (see README.md):

    python tests/real/make_cases.py tests/real/cases.jsonl

Every ``text`` below is a model output copied from the named public source, character for character. Where the
source shows the output inside a string literal (Python, Go, Rust, C#, Zig, JavaScript) or JSON-escaped in a log,
the literal is reproduced here with the same escapes, so that the value is the same string; ``provenance`` says
which. Nothing was reformatted, trimmed or completed.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def fn(name: str, props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        params["required"] = required
    return {"type": "function", "function": {"name": name, "parameters": params}}


S = {"type": "string"}
I = {"type": "integer"}  # noqa: E741
N = {"type": "number"}


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


CASES: list[dict[str, Any]] = []


def case(
    id: str,
    dialect: str,
    *,
    model: str,
    source: str,
    provenance: str,
    note: str,
    text: str,
    tools: list[dict[str, Any]],
    tools_from_source: bool,
    content: str = "",
    reasoning: str = "",
    tool_calls: list[dict[str, Any]] | None = None,
    reasoning_open: bool = False,
    tags: list[str] | None = None,
    ambiguous: str | None = None,
) -> None:
    entry: dict[str, Any] = {
        "id": id,
        "dialect": dialect,
        "tags": tags or [],
        "model": model,
        "source": source,
        "provenance": provenance,
        "note": note,
        "text": text,
        "tools": tools,
        "tools_from_source": tools_from_source,
        "reasoning_open": reasoning_open,
        "expected": {"content": content, "reasoning": reasoning, "tool_calls": tool_calls or []},
    }
    if ambiguous:
        entry["ambiguous"] = ambiguous
    if any(c["id"] == id for c in CASES):
        raise ValueError(f"duplicate id {id}")
    CASES.append(entry)


WS_AFTER_CALL = (
    "Whitespace between call markup and the end of the output (or the next call) is read as part of the markup, "
    "not as content."
)
WS_BEFORE_CALL = (
    "The whitespace between the prose and the call tag is outside the call markup, so it stays in content "
    "(a server that trims it would be defensible too)."
)

# ---------------------------------------------------------------------------------------------------------------------
# LongCat key/value dialect
# ---------------------------------------------------------------------------------------------------------------------

case(
    "kv_picoclaw_weather_spaces",
    "longcat_kv",
    model="LongCat (LongCat API, via picoclaw)",
    source="https://github.com/sipeed/picoclaw/issues/2046",
    provenance="Issue text: the raw content the LongCat API returned, quoted inline by the reporter.",
    note="Name on the open tag's line followed by a space; tags separated by single spaces, no newlines. The issue may have flattened newlines into spaces.",
    text="<longcat_tool_call>weather <longcat_arg_key>location</longcat_arg_key> <longcat_arg_value>New York, United States</longcat_arg_value> </longcat_tool_call>",
    tools=[fn("weather", {"location": S})],
    tools_from_source=False,
    tool_calls=[call("weather", location="New York, United States")],
)

case(
    "kv_vercel_readfile_indented",
    "longcat_kv",
    model="LongCat-Flash (LongCat API, via Vercel AI SDK)",
    source="https://community.vercel.com/t/parsing-custom-xml-tool-calls-from-longcat-flash-models-in-vercel-ai-sdk/33601",
    provenance="Forum post: the text the model returned as content, in a code block (the indented rendering; another rendering on the page is unindented).",
    note="Name on its own indented line with a trailing space; every tag indented; spaces before the newlines.",
    text="<longcat_tool_call>\n  readFile \n  <longcat_arg_key>path</longcat_arg_key> \n  <longcat_arg_value>./app/pages/index.vue</longcat_arg_value> \n</longcat_tool_call>",
    tools=[fn("readFile", {"path": S})],
    tools_from_source=False,
    tool_calls=[call("readFile", path="./app/pages/index.vue")],
)

NEXT_SRC = (
    "InquiringMinds-AI/longcat-next-multimodal test/test_tool_parsing.py @ 5c86a95d4e05ab126967548297514d016791c73e"
)
NEXT_PROV = "Python string literal in the test file, whose docstring says every case is a real emission of the model."
NEXT_TOOLS = [fn("get_weather", {"city": S})]

case(
    "kv_next_functions_prefix",
    "longcat_kv",
    model="LongCat-Next",
    source=NEXT_SRC,
    provenance=NEXT_PROV,
    note="Canonical key/value call with the name prefixed `functions.`.",
    text="<longcat_tool_call>functions.get_weather\n<longcat_arg_key>city</longcat_arg_key>\n<longcat_arg_value>Tokyo</longcat_arg_value>\n</longcat_tool_call>",
    tools=NEXT_TOOLS,
    tools_from_source=True,
    tool_calls=[call("get_weather", city="Tokyo")],
)

case(
    "kv_next_ts_call_unclosed",
    "longcat_kv",
    model="LongCat-Next",
    source=NEXT_SRC,
    provenance=NEXT_PROV,
    note='TypeScript-style call `NAME({key: "v"})` (unquoted key) inside the wrapper; no closing tag.',
    text='<longcat_tool_call>functions.get_weather({city: "Tokyo"})',
    tools=NEXT_TOOLS,
    tools_from_source=True,
    tool_calls=[call("get_weather", city="Tokyo")],
)

case(
    "kv_next_json_in_arg_key",
    "longcat_kv",
    model="LongCat-Next",
    source=NEXT_SRC,
    provenance=NEXT_PROV + " This one is dated: captured 2026-08-10, finish_reason 'stop'.",
    note="All arguments as one JSON object right after `<longcat_arg_key>`; output stops there (no closing tags).",
    text='<longcat_tool_call>functions.get_weather\n<longcat_arg_key>{"city": "Tokyo"}',
    tools=NEXT_TOOLS,
    tools_from_source=True,
    tool_calls=[call("get_weather", city="Tokyo")],
)

case(
    "kv_next_json_in_arg_key_partial_close",
    "longcat_kv",
    model="LongCat-Next",
    source=NEXT_SRC,
    provenance=NEXT_PROV,
    note="JSON object after `<longcat_arg_key>`, then a space and a cut-off closing tag `</longcat`.",
    text='<longcat_tool_call>functions.get_weather\n<longcat_arg_key>{"city": "Tokyo"} </longcat',
    tools=NEXT_TOOLS,
    tools_from_source=True,
    tool_calls=[call("get_weather", city="Tokyo")],
    ambiguous="The trailing ` </longcat` is a cut-off closing tag; read as markup (content empty), not as text.",
)

case(
    "kv_next_js_object_in_arg_key",
    "longcat_kv",
    model="LongCat-Next",
    source=NEXT_SRC,
    provenance=NEXT_PROV,
    note="A JavaScript object literal (unquoted key) after `<longcat_arg_key>`; no closing tags.",
    text='<longcat_tool_call>functions.get_weather\n<longcat_arg_key>{city: "Tokyo"}',
    tools=NEXT_TOOLS,
    tools_from_source=True,
    tool_calls=[call("get_weather", city="Tokyo")],
)

SCADA_SRC = "RookieCLY/SCADA-Agent-Demo tests/test_longcat_tool_calls.py @ a383f245fc8f4dc2739350ee9a1b03e84b38eaa8"
SCADA_PROV = (
    "Python string literal in the test file; the file says the outputs are copied verbatim from LongCat-2.0 traces."
)
SCADA_TOOLS = [
    fn("manage_pages", {"action": S}),
    fn("manage_points", {"action": S, "type_filter": S}),
]

case(
    "kv_scada_single",
    "longcat_kv",
    model="LongCat-2.0",
    source=SCADA_SRC,
    provenance=SCADA_PROV,
    note="Canonical single call followed by a newline.",
    text="<longcat_tool_call>manage_pages\n<longcat_arg_key>action</longcat_arg_key>\n<longcat_arg_value>list_pages</longcat_arg_value>\n</longcat_tool_call>\n",
    tools=SCADA_TOOLS,
    tools_from_source=False,
    tool_calls=[call("manage_pages", action="list_pages")],
    ambiguous=WS_AFTER_CALL,
)

case(
    "kv_scada_two_args",
    "longcat_kv",
    model="LongCat-2.0",
    source=SCADA_SRC,
    provenance=SCADA_PROV,
    note="Two key/value pairs, trailing newline.",
    text="<longcat_tool_call>manage_points\n<longcat_arg_key>action</longcat_arg_key>\n<longcat_arg_value>list_points</longcat_arg_value>\n<longcat_arg_key>type_filter</longcat_arg_key>\n<longcat_arg_value>analog</longcat_arg_value>\n</longcat_tool_call>\n",
    tools=SCADA_TOOLS,
    tools_from_source=False,
    tool_calls=[call("manage_points", action="list_points", type_filter="analog")],
    ambiguous=WS_AFTER_CALL,
)

SCADA_TRANSITION = "现在需要创建泵站画面并添加泵图元，这需要切换到页面管理功能。<longcat_tool_call>next_state: MANAGE_PAGES</longcat_arg_value>\n"
case(
    "kv_scada_malformed_transition",
    "longcat_kv",
    model="LongCat-2.0",
    source=SCADA_SRC,
    provenance=SCADA_PROV,
    note="Chinese prose glued to the tag; the 'name' is `next_state: MANAGE_PAGES` (a state-machine marker, no declared tool) and the block closes with a mismatched `</longcat_arg_value>`. The source's own parser keeps it as text.",
    text=SCADA_TRANSITION,
    tools=SCADA_TOOLS,
    tools_from_source=False,
    content=SCADA_TRANSITION,
)

AIBRIDGE_TEXT = (
    "Let me check the directory."
    '<longcat_tool_call>Bash\ncommand: ls -la "G:/SuchProject/Other/ssh-tunnel-proxy/bat/lan-share" '
    '&& cat "G:/SuchProject/Other/ssh-tunnel-proxy/bat/lan-share/"*.bat 2>/dev/null\n'
    "description: List files and show content of bat scripts in lan-share directory\n"
    "</longcat_tool_call>\n"
    '<longcat_tool_call>Bash\ncommand: reg query "HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run" '
    '2>/dev/null | grep -i "lan-share|ssh-tunnel|lan.share"\n'
    "description: Check Windows startup registry entries for lan-share\n"
    "</longcat_tool_call>"
)
case(
    "kv_aibridge_key_colon_lines",
    "longcat_kv",
    model="LongCat-2.0-Preview (longcat.chat web)",
    source="sumizomeee-rgb/AiBridge tests/test_tool_bridge.py @ 21591739fb70ea41b75f339ec24c0acccd16af3f",
    provenance="Python string literal (implicitly concatenated pieces) in the test file, a captured reply of the web model.",
    note="Prose glued to the tag; arguments as `key: value` lines instead of arg tags; two calls separated by a newline; a Windows registry path with backslashes.",
    text=AIBRIDGE_TEXT,
    tools=[fn("Bash", {"command": S, "description": S}, ["command"])],
    tools_from_source=True,
    content="Let me check the directory.",
    tool_calls=[
        call(
            "Bash",
            command='ls -la "G:/SuchProject/Other/ssh-tunnel-proxy/bat/lan-share" && cat "G:/SuchProject/Other/ssh-tunnel-proxy/bat/lan-share/"*.bat 2>/dev/null',
            description="List files and show content of bat scripts in lan-share directory",
        ),
        call(
            "Bash",
            command='reg query "HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run" 2>/dev/null | grep -i "lan-share|ssh-tunnel|lan.share"',
            description="Check Windows startup registry entries for lan-share",
        ),
    ],
)

UNIKORN_SRC = "tamago-labs/unikorn scripts/test-prd-generation.mjs @ cc81b00490144370ea1c8db04dbedeb017cbc1be"
UNIKORN_PROV = "JavaScript string literal in the script, under a comment saying the cases come from user reports (LongCat via an OpenAI-compatible provider)."
UNIKORN_FRAGMENTED = """tool_call</longcat_arg_key><longcat_arg_key>name</longcat_arg_key>
<longcat_arg_value>read_file</longcat_arg_value><longcat_arg_key>arguments</longcat_arg_key>
<longcat_arg_value>{"file_path": "C:/projects/test-kane/calculator-app/package.json"}</longcat_arg_value>"""
case(
    "kv_unikorn_fragmented_no_open",
    "longcat_kv",
    model="LongCat (user report)",
    source=UNIKORN_SRC,
    provenance=UNIKORN_PROV,
    note="No opening tag; starts with `tool_call</longcat_arg_key>`; the call is spelled as keys `name` and `arguments` (a JSON string) instead of a name line.",
    text=UNIKORN_FRAGMENTED,
    tools=[fn("read_file", {"file_path": S}, ["file_path"])],
    tools_from_source=False,
    content=UNIKORN_FRAGMENTED,
    ambiguous="A reader can see read_file{file_path: .../package.json}, but there is no call tag and no name line; recovering it would be guessing (DESIGN invariant 3), so the expected result is the text as content.",
)

case(
    "kv_unikorn_name_and_arguments_as_keys",
    "longcat_kv",
    model="LongCat (user report)",
    source=UNIKORN_SRC,
    provenance=UNIKORN_PROV,
    note="Complete wrapper with no name line; the call is spelled as key `name` = read_file and key `arguments` = a JSON object string (the LongCat-JSON call mapped onto key/value tags).",
    text='<longcat_tool_call><longcat_arg_key>name</longcat_arg_key><longcat_arg_value>read_file</longcat_arg_value><longcat_arg_key>arguments</longcat_arg_key><longcat_arg_value>{"file_path": "C:/projects/test-kane/calculator-app/README.md"}</longcat_arg_value></longcat_tool_call>',
    tools=[fn("read_file", {"file_path": S}, ["file_path"])],
    tools_from_source=False,
    tool_calls=[call("read_file", file_path="C:/projects/test-kane/calculator-app/README.md")],
    ambiguous="Read as the JSON call {name, arguments} written with key/value tags; the declared tool has no `name`/`arguments` parameters, so no other reading fits.",
)

case(
    "kv_unikorn_name_json_then_document",
    "longcat_kv",
    model="LongCat (user report)",
    source=UNIKORN_SRC,
    provenance=UNIKORN_PROV,
    note="`NAME {json}` inside the wrapper, then the model continues with a Markdown document as content.",
    text='<longcat_tool_call>read_file {"file_path": "package.json"}</longcat_tool_call>\n# Calculator App PRD\n> A simple calculator\n\n## 1. Overview\nCalculator does math [src: src/App.tsx]',
    tools=[fn("read_file", {"file_path": S}, ["file_path"])],
    tools_from_source=False,
    content="\n# Calculator App PRD\n> A simple calculator\n\n## 1. Overview\nCalculator does math [src: src/App.tsx]",
    tool_calls=[call("read_file", file_path="package.json")],
    ambiguous="The newline right after `</longcat_tool_call>`: kept as content (it precedes real text, so it is text).",
)

MIHANI = '<Longcat_tool_call>ask_user options": ["A markdown guide (technical but readable)", "A screenplay/documentary script format", "A code-heavy tutorial with examples", "A high-level overview document"]</ask_user>'
case(
    "kv_mihani_capitalised_tag_botched",
    "longcat_kv",
    model="LongCat (user report)",
    source="SSNamahsos/Mihani-Code internal/agent/botched_test.go @ 4121b9952e3021f0b009a402d911b05b19c3f6ce",
    provenance="Go string literal in the test, described as the exact malformed tool call a user reported.",
    note='Capitalised `<Longcat_tool_call>`, a half JSON body (`options": [...]` with no opening brace or quote) and a made-up closing tag `</ask_user>`.',
    text=MIHANI,
    tools=[fn("ask_user", {"question": S, "options": {"type": "array", "items": S}})],
    tools_from_source=False,
    content=MIHANI,
    ambiguous="The intent (ask_user with four options) is visible, but the tag is not a LongCat tag and the body is not parseable without guessing; expected as content.",
)

case(
    "kv_aurem_name_json_body",
    "longcat_kv",
    model="LongCat-2.0",
    source="polarisbuiltinc-wq/Aurem backend/tests/test_longcat_tool_call_only_fallback.py @ 53f33305bd4830f68b026953d73036f55fd241ff",
    provenance="Python string literal, described as the exact shape LongCat-2.0 emits in production.",
    note="`NAME {json}` on one line inside the wrapper (no arg tags).",
    text='<longcat_tool_call>read_repo_file {"path":"backend/main.py"}</longcat_tool_call>',
    tools=[fn("read_repo_file", {"path": S}, ["path"])],
    tools_from_source=False,
    tool_calls=[call("read_repo_file", path="backend/main.py")],
)

# ---------------------------------------------------------------------------------------------------------------------
# Qwen3-Coder / Qwen3.5 XML function dialect
# ---------------------------------------------------------------------------------------------------------------------

case(
    "xml_omlx_bare_function_orphan_close",
    "xml",
    model="Qwen3-Coder-30B-A3B-Instruct-4bit (oMLX, Claude Code client)",
    source="https://github.com/jundot/omlx/pull/844 (comment by jrehm, 2026-08-31)",
    provenance="PR comment quoting the raw model text.",
    note="Prose, then a bare `<function=` block with no `<tool_call>` opener, then an orphan `</tool_call>`.",
    text="I'll check the model information to confirm I'm running on the local oMLX server.\n\n<function=Bash>\n<parameter=command>\necho $ANTHROPIC_BASE_URL && echo $ANTHROPIC_DEFAULT_SONNET_MODEL\n</parameter>\n</function>\n</tool_call>",
    tools=[fn("Bash", {"command": S, "description": S}, ["command"])],
    tools_from_source=False,
    content="I'll check the model information to confirm I'm running on the local oMLX server.\n\n",
    tool_calls=[call("Bash", command="echo $ANTHROPIC_BASE_URL && echo $ANTHROPIC_DEFAULT_SONNET_MODEL")],
    ambiguous=WS_BEFORE_CALL,
)

OPENCODE_TOOLS = [
    fn("bash", {"command": S, "description": S, "timeout": N}, ["command", "description"]),
    fn("read", {"filePath": S, "offset": N, "limit": N}, ["filePath"]),
]
case(
    "xml_pwilkin_four_calls_tail",
    "xml",
    model="Qwen3-Coder-Next (steampunque hybrid GGUF, llama.cpp autoparser branch, opencode)",
    source="https://github.com/pwilkin/llama.cpp/issues/9",
    provenance="The server's error string `Failed to parse input at pos 72: ...`, JSON-escaped in the issue; \\n and \\\" unescaped here. llama.cpp quotes input.substr(pos), so this is the output from character 72 on; the first 72 characters are not shown by the source.",
    note="Four consecutive `<tool_call>` blocks separated by newlines; shell quotes inside a value. Only the tail of the output is known.",
    text='<tool_call>\n<function=bash>\n<parameter=command>\ntest -d .planning && echo "exists" || echo "missing"\n</parameter>\n<parameter=description>\nCheck if planning directory exists\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=read>\n<parameter=filePath>\n/home/gary/dev/opencode_rs/.planning/STATE.md\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=read>\n<parameter=filePath>\n/home/gary/dev/opencode_rs/.planning/ROADMAP.md\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=read>\n<parameter=filePath>\n/home/gary/dev/opencode_rs/.planning/PROJECT.md\n</parameter>\n</function>\n</tool_call>',
    tools=OPENCODE_TOOLS,
    tools_from_source=False,
    tags=["tail"],
    tool_calls=[
        call(
            "bash",
            command='test -d .planning && echo "exists" || echo "missing"',
            description="Check if planning directory exists",
        ),
        call("read", filePath="/home/gary/dev/opencode_rs/.planning/STATE.md"),
        call("read", filePath="/home/gary/dev/opencode_rs/.planning/ROADMAP.md"),
        call("read", filePath="/home/gary/dev/opencode_rs/.planning/PROJECT.md"),
    ],
    ambiguous=WS_AFTER_CALL,
)

case(
    "xml_pwilkin_git_status_tail",
    "xml",
    model="Qwen3-Coder-Next (steampunque hybrid GGUF, llama.cpp autoparser branch, opencode)",
    source="https://github.com/pwilkin/llama.cpp/issues/9",
    provenance="The server's error string `Failed to parse input at pos 60: ...`, JSON-escaped in the issue (the closing quote is missing in the issue); \\n unescaped here. Output from character 60 on; the first 60 characters are not shown by the source.",
    note="One canonical call with two parameters; only the tail of the output is known.",
    text="<tool_call>\n<function=bash>\n<parameter=command>\ncd /home/gary/dev/opencode_rs && git status\n</parameter>\n<parameter=description>\nCheck git status\n</parameter>\n</function>\n</tool_call>",
    tools=OPENCODE_TOOLS,
    tools_from_source=False,
    tags=["tail"],
    tool_calls=[call("bash", command="cd /home/gary/dev/opencode_rs && git status", description="Check git status")],
)

WEATHER_LOC = [fn("get_current_weather", {"location": S}, ["location"])]
case(
    "xml_llamacpp15012_call_only",
    "xml",
    model="Qwen3-Coder-30B-A3B-Instruct (unsloth GGUF, llama.cpp 6150)",
    source="https://github.com/ggml-org/llama.cpp/issues/15012 (comment by norton120, 2025-08-14)",
    provenance="Issue comment, xml code block of the model response.",
    note="Canonical call, nothing else.",
    text="<tool_call>\n<function=get_current_weather>\n<parameter=location>\nTokyo, Japan\n</parameter>\n</function>\n</tool_call>",
    tools=WEATHER_LOC,
    tools_from_source=False,
    tool_calls=[call("get_current_weather", location="Tokyo, Japan")],
)

case(
    "xml_llamacpp15012_prose_then_call",
    "xml",
    model="Qwen3-Coder-30B-A3B-Instruct (unsloth GGUF, llama.cpp 6150)",
    source="https://github.com/ggml-org/llama.cpp/issues/15012 (comment by norton120, 2025-08-14)",
    provenance="Issue comment, xml code block of the model response (trailing space after the closing tag as shown).",
    note="Prose, blank line, then the call; the server of the time put all of it in content.",
    text="I need to check the weather for Tokyo and Paris as well. Let me get that information for you.\n\n<tool_call>\n<function=get_current_weather>\n<parameter=location>\nTokyo, Japan\n</parameter>\n</function>\n</tool_call> ",
    tools=WEATHER_LOC,
    tools_from_source=False,
    content="I need to check the weather for Tokyo and Paris as well. Let me get that information for you.\n\n",
    tool_calls=[call("get_current_weather", location="Tokyo, Japan")],
    ambiguous=WS_BEFORE_CALL + " " + WS_AFTER_CALL,
)

case(
    "xml_rapidmlx_value_ends_in_quote",
    "xml",
    model="Qwen3.6-27B-8bit (Rapid-MLX)",
    source="https://github.com/raullenchai/Rapid-MLX/issues/1542",
    provenance="Python repr of output.text in the issue; escapes resolved.",
    note='A string value that ends without its trailing newline, right after a double quote (`return "`), then `</parameter>`.',
    text='<tool_call>\n<function=write_file>\n<parameter=path>\n/tmp/a.py\n</parameter>\n<parameter=content>\ndef f():\n    return "</parameter>\n</function>\n</tool_call>',
    tools=[fn("write_file", {"path": S, "content": S}, ["path", "content"])],
    tools_from_source=False,
    tool_calls=[call("write_file", path="/tmp/a.py", content='def f():\n    return "')],
)

OLLAMA_MCP_TOOLS = [
    fn("read_file", {"path": S, "start_line": I, "end_line": I}, ["path"]),
    fn("edit_file", {"path": S, "old_text": S, "new_text": S}, ["path", "old_text", "new_text"]),
    fn("write_file", {"path": S, "content": S}, ["path", "content"]),
    fn("grep", {"pattern": S, "glob": S, "max_results": I}, ["pattern"]),
    fn("list_files", {"path": S}),
    fn("finish", {"status": {"type": "string", "enum": ["done", "escalate"]}, "summary": S}, ["status", "summary"]),
]
case(
    "xml_ollama_mcp_bare_function_typed_ints",
    "xml",
    model="qwen3-coder:30b (Ollama)",
    source="Rikiza89/ollama_mcp tests/test_toolcalls_xml.py @ 3f7ab8276e8a7a94e9d1eb6fe33a9c3ff5feee4c",
    provenance="Python string literal in the test, described as verbatim qwen3-coder:30b output. Tool schemas from src/ollama_mcp/localtools.py (schemas()) of the same repository.",
    note="Prose, bare `<function=` without opener, orphan `</tool_call>`; integer parameters typed by the schema.",
    text="I'll call the read_file function to examine the specified section.\n\n<function=read_file>\n<parameter=path>\nservice/feature_gate.py\n</parameter>\n<parameter=start_line>\n45\n</parameter>\n<parameter=end_line>\n60\n</parameter>\n</function>\n</tool_call>",
    tools=OLLAMA_MCP_TOOLS,
    tools_from_source=True,
    content="I'll call the read_file function to examine the specified section.\n\n",
    tool_calls=[call("read_file", path="service/feature_gate.py", start_line=45, end_line=60)],
    ambiguous=WS_BEFORE_CALL,
)

case(
    "xml_escape_intent_prose_newline_call",
    "xml",
    model="Qwen3-Coder-30B-A3B-Instruct",
    source="xiaohan2012/escape-intent-probes tests/test_tools.py @ 1732b30a5634d356a7e843da6a0f3d9a14146b6e",
    provenance="Python string literal in the test, described as verbatim model output.",
    note="Prose and a single newline before `<tool_call>`; a shell pipeline with quotes and parentheses in the value.",
    text='I\'ll help implement the requested feature. Let me first explore the repository structure.\n<tool_call>\n<function=bash>\n<parameter=cmd>\nfind . -type f -name "*.py" | grep -E "(settings|middleware)" | head -20\n</parameter>\n</function>\n</tool_call>',
    tools=[fn("bash", {"cmd": S}, ["cmd"]), fn("submit", {})],
    tools_from_source=False,
    content="I'll help implement the requested feature. Let me first explore the repository structure.\n",
    tool_calls=[call("bash", cmd='find . -type f -name "*.py" | grep -E "(settings|middleware)" | head -20')],
    ambiguous=WS_BEFORE_CALL,
)

case(
    "xml_ollama16686_glob_bare_function",
    "xml",
    model="qwen3-coder:30b (Ollama, Claude Code client)",
    source="https://github.com/ollama/ollama/issues/16686",
    provenance="Issue text: the model output that Ollama returned as plain text.",
    note="Prose, bare `<function=Glob>` without opener, orphan `</tool_call>`.",
    text="I'll use the Glob tool to list all markdown files in the current directory.\n\n<function=Glob>\n<parameter=pattern>\n*.md\n</parameter>\n</function>\n</tool_call>",
    tools=[fn("Glob", {"pattern": S, "path": S}, ["pattern"])],
    tools_from_source=False,
    content="I'll use the Glob tool to list all markdown files in the current directory.\n\n",
    tool_calls=[call("Glob", pattern="*.md")],
    ambiguous=WS_BEFORE_CALL,
)

case(
    "xml_dotllm_think_close_then_call_cut_at_stop",
    "xml",
    model="Qwen3.6-35B-A3B (Ornith build, dotLLM)",
    source="jamesburton/dotLLM tests/DotLLM.Tests.Unit/Tokenizers/ToolCallParsers/QwenXmlToolCallParserTests.cs @ bdc75c001e9d61e7791bde186bde7d0f2ea41927",
    provenance="C# string literal in the test, marked as a real capture; generation stopped at the `</tool_call>` stop string, so the closing tag is absent.",
    note="Template pre-filled `<think>`; the model closes an empty reasoning block, then one call without its closing `</tool_call>`.",
    text="</think>\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n",
    tools=[fn("get_weather", {"city": S}, ["city"])],
    tools_from_source=False,
    reasoning_open=True,
    tags=["reasoning"],
    content="\n\n",
    tool_calls=[call("get_weather", city="Paris")],
    ambiguous="The blank line between `</think>` and `<tool_call>` is outside any markup, so it is content (an empty content would be defensible too).",
)

case(
    "xml_zerv_reasoning_then_call",
    "xml",
    model="Qwen3.8-27B (llama-server)",
    source="birdayz/zerv tests/tools.zig @ 61ace142506844d7dbbc2352c9c863c8179cbc96",
    provenance="Zig string literal in the test, described as observed llama-server output (docs/research/tool-calling.md of the same repository).",
    note="Pre-filled `<think>`: reasoning, `</think>`, blank line, canonical call.",
    text="The user wants the date.\n</think>\n\n<tool_call>\n<function=bash>\n<parameter=command>\ndate\n</parameter>\n</function>\n</tool_call>",
    tools=[fn("bash", {"command": S}, ["command"])],
    tools_from_source=False,
    reasoning_open=True,
    tags=["reasoning"],
    reasoning="The user wants the date.\n",
    tool_calls=[call("bash", command="date")],
    content="\n\n",
    ambiguous="The newline before `</think>` is kept in reasoning (text inside the block is reasoning verbatim); the blank line after it is outside any markup, so it is content (an empty content would be defensible too).",
)

case(
    "xml_roocode_plain_answer",
    "xml",
    model="Qwen3-Coder-30B-A3B-Instruct",
    source="https://github.com/RooCodeInc/Roo-Code/issues/7247",
    provenance="Issue text: the content the server returned for a request with tools (tool schema from the issue).",
    note="No call at all although tools were offered: plain content must pass through untouched.",
    text="The capital of France is Paris.",
    tools=[fn("get_weather", {"location": S}, ["location"])],
    tools_from_source=True,
    content="The capital of France is Paris.",
)

DEMIDO_SRC = (
    "elpideus/demido-studio src-tauri/src/providers/reasoning_channel.rs @ 138db5d3bc41c02aaa2c87f36c407bcec6e01a3c"
)
DEMIDO_PROV = (
    "Rust string literal in the test module: reasoning_content captured verbatim from Qwen3.5-9B-Q4_K_M on llama.cpp. "
    "The chat template opens `<think>` in the prompt and the model hit EOS without `</think>`, so this is the whole "
    "generated text after the pre-filled tag (as llama.cpp reported it; llama.cpp may trim surrounding whitespace)."
)
DEMIDO_TOOLS = [
    fn("wfm_search_items", {"query": S, "language": S, "limit": I}),
    fn("wfm_get_top_orders", {"slug": S}),
]
for suffix, prose, query in [
    ("greed", "Overguard isn't tradable. Let me search for a different maxed mod.", "Greed"),
    ("overload", "Overguard has 0 matches. Trying a different maxed mod.", "Overload"),
    ("amplify", "Overguard not tradable. Pick tradable maxed mod. Search for Amplify Damage.", "Amplify Damage"),
]:
    case(
        f"xml_demido_call_inside_reasoning_{suffix}",
        "xml",
        model="Qwen3.5-9B-Q4_K_M (llama.cpp)",
        source=DEMIDO_SRC,
        provenance=DEMIDO_PROV,
        note="Output starts inside pre-filled reasoning and never closes it; the `<tool_call>` follows reasoning prose and must end reasoning implicitly.",
        text=f"{prose}\n\n<tool_call>\n<function=wfm_search_items>\n<parameter=language>\nen\n</parameter>\n<parameter=query>\n{query}\n</parameter>\n</function>\n</tool_call>",
        tools=DEMIDO_TOOLS,
        tools_from_source=False,
        reasoning_open=True,
        tags=["reasoning"],
        reasoning=prose + "\n\n",
        tool_calls=[call("wfm_search_items", language="en", query=query)],
        ambiguous="The blank line between the reasoning prose and `<tool_call>` stays in reasoning: the call tag ends reasoning, the whitespace before it was still inside (trimming it would be defensible too).",
    )

# ---------------------------------------------------------------------------------------------------------------------
# Hermes / Qwen JSON in <tool_call>
# ---------------------------------------------------------------------------------------------------------------------

case(
    "hermes_gpustack_square",
    "hermes",
    model="Qwen3-Coder-30B-A3B (vLLM 0.10.0 / llama-box, gpustack)",
    source="https://github.com/gpustack/gpustack/issues/2660",
    provenance='The message content of the server response, JSON-escaped in the issue; \\n and \\" unescaped here. Tool schema from the request in the issue.',
    note="Qwen3-Coder answering in the Hermes JSON form (not its XML form); number argument.",
    text='<tool_call>\n{"name": "square_the_number", "arguments": {"input_num": 1024}}\n</tool_call>',
    tools=[fn("square_the_number", {"input_num": N}, ["input_num"])],
    tools_from_source=True,
    tool_calls=[call("square_the_number", input_num=1024)],
)

MLX_TOOLS = [fn("multiply", {"a": N, "b": N}, ["a", "b"])]
case(
    "hermes_mlx_multiply_big_ints",
    "hermes",
    model="Qwen2.5 (mlx_lm)",
    source="https://github.com/ml-explore/mlx-examples/pull/1316",
    provenance="PR description: the model's generated text, JSON-escaped; \\n and \\\" unescaped here.",
    note="Canonical Hermes call with an 11-digit integer.",
    text='<tool_call>\n{"name": "multiply", "arguments": {"a": 12234585, "b": 48838483920}}\n</tool_call>',
    tools=MLX_TOOLS,
    tools_from_source=False,
    tool_calls=[call("multiply", a=12234585, b=48838483920)],
)

case(
    "hermes_mlx_final_answer",
    "hermes",
    model="Qwen2.5 (mlx_lm)",
    source="https://github.com/ml-explore/mlx-examples/pull/1316",
    provenance="PR description: the model's answer after the tool result.",
    note="Plain final answer with digits; no call.",
    text="The product of 12234585 and 48838483920 is 597518582790373200.",
    tools=MLX_TOOLS,
    tools_from_source=False,
    content="The product of 12234585 and 48838483920 is 597518582790373200.",
)

CHAT2API = '<tool_call>\n[\n{"tool_name": "exec", "properties": {"command": "pwd && ls -la test.txt", "timeout_ms": 10000, "yield_ms": 0}}\n]\n</tool_call>'
case(
    "hermes_chat2api_array_tool_name_properties",
    "hermes",
    model="unknown (Chat2API proxy user report)",
    source="https://github.com/xiaoY233/Chat2API/issues/38 (comment by nufeng1999, 2026-04-07)",
    provenance='Issue comment: the text the client received; JSON-escaped in the comment, \\n and \\" unescaped here.',
    note="A JSON array of one object with keys `tool_name` and `properties` instead of `name` and `arguments`.",
    text=CHAT2API,
    tools=[fn("exec", {"command": S, "timeout_ms": I, "yield_ms": I}, ["command"])],
    tools_from_source=False,
    content=CHAT2API,
    ambiguous="A reader sees exec{command, timeout_ms, yield_ms}, but `tool_name`/`properties` are not the Hermes keys; mapping them is a guess, so the expected result is the text as content.",
)

case(
    "hermes_unikorn_name_json_body",
    "hermes",
    model="LongCat (user report)",
    source=UNIKORN_SRC,
    provenance=UNIKORN_PROV,
    note="`NAME {json}` inside `<tool_call>` (not a JSON call object); two blocks glued together.",
    text='<tool_call>read_file {"path": "package.json"}</tool_call><tool_call>read_file {"path": "README.md"}</tool_call>',
    tools=[fn("read_file", {"path": S}, ["path"])],
    tools_from_source=False,
    tool_calls=[call("read_file", path="package.json"), call("read_file", path="README.md")],
    ambiguous="`NAME {json}` is listed in DESIGN for the LongCat wrapper; read the same way inside `<tool_call>`.",
)

# ---------------------------------------------------------------------------------------------------------------------
# Other shapes real models produced
# ---------------------------------------------------------------------------------------------------------------------

case(
    "other_next_function_calls_array",
    "other",
    model="LongCat-Next",
    source=NEXT_SRC,
    provenance=NEXT_PROV,
    note="Claude-imitation `<function_calls>[{name, parameters}]</function_calls>`, no LongCat tag at all.",
    text='<function_calls>[{"name": "get_weather", "parameters": {"city": "Tokyo"}}]</function_calls>',
    tools=NEXT_TOOLS,
    tools_from_source=True,
    tool_calls=[call("get_weather", city="Tokyo")],
    ambiguous="Not one of the four dialects of DESIGN section 3; a reader sees get_weather{city: Tokyo}. A server that does not read this wrapper returns the text as content.",
)

case(
    "other_ollama16383_terminal_command_tag",
    "other",
    model="qwen3.6:27b (Ollama)",
    source="https://github.com/ollama/ollama/issues/16383 (report by Noellui)",
    provenance="Issue text: the model output shown as plain text; the issue does not show the request's tool list.",
    note="Invented `<terminal_command>` tag; not a call format of any dialect, must stay content.",
    text="<terminal_command>\nls -la\n</terminal_command>",
    tools=[],
    tools_from_source=False,
    content="<terminal_command>\nls -la\n</terminal_command>",
)

# ---------------------------------------------------------------------------------------------------------------------
# Reasoning only
# ---------------------------------------------------------------------------------------------------------------------

case(
    "reasoning_aprender_stray_think_close",
    "reasoning",
    model="Qwen3-1.7B (raw decode, aprender)",
    source="https://github.com/paiml/aprender/issues/3930",
    provenance="Issue text: raw decoded output; the prompt already ended with `<think>\\n</think>\\n` (thinking disabled).",
    note="Reasoning was closed in the prompt, yet the model emits another `</think>` before answering.",
    text="</think>\n\nThe capital of France is Paris.",
    tools=[],
    tools_from_source=False,
    tags=["reasoning"],
    content="\n\nThe capital of France is Paris.",
    ambiguous="The stray `</think>` is markup; the blank line after it is outside markup, so it stays in content (a server that trims it would be defensible too).",
)

case(
    "reasoning_demido_answer_stranded_in_reasoning",
    "reasoning",
    model="Qwen3.5-9B-Q4_K_M (llama.cpp)",
    source=DEMIDO_SRC,
    provenance="Rust string literal in the test module: the verbatim reasoning_content of a turn in which `</think>` never arrived (template pre-filled `<think>`).",
    note="The final answer is written inside the never-closed reasoning block.",
    text="Got top sell orders for Assault Mode mod. Prices: 1, 1, 2, 2, 2 platinum. Average = 7/5 = 1.4 platinum. No buy orders available.\n\nAverage sell price = **1.4 platinum** (from 5 in-game sellers).",
    tools=DEMIDO_TOOLS,
    tools_from_source=False,
    reasoning_open=True,
    tags=["reasoning"],
    reasoning="Got top sell orders for Assault Mode mod. Prices: 1, 1, 2, 2, 2 platinum. Average = 7/5 = 1.4 platinum. No buy orders available.\n\nAverage sell price = **1.4 platinum** (from 5 in-game sellers).",
    ambiguous="Everything is reasoning because `</think>` never came; promoting it to content is a client decision, not the parser's.",
)


# ---------------------------------------------------------------------------------------------------------------------
# Round 3 (issue 22): Qwen3.5 / Qwen3.6 variants, unclosed values, tails
# ---------------------------------------------------------------------------------------------------------------------

LLMCODE_CAPTURES = (
    "DJFeu/llmcode tests/test_tools/fixtures/hermes_captures/{} @ f64e0b736b3e4932a6e17bb2f8064018f96f803d"
)
LLMCODE_PROV = (
    "A fixture file whose directory README says each file is the verbatim raw stream output of a real model response "
    "that triggered a parser bug (copied from the client's debug log); the file's bytes are the text. "
    "tests/test_tools/test_parsing.py of the same repository says the captures come from Qwen3.5-122B-A10B-int4-AutoRound "
    "served by vLLM (2026-04-08)."
)
LLMCODE_MODEL = "Qwen3.5-122B-A10B-int4-AutoRound (vLLM, llmcode client)"
LLMCODE_TOOLS = [fn("web_search", {"query": S, "max_results": I}, ["query"])]
LLMCODE_QUERY = "今日熱門新聞"

case(
    "xml_llmcode_full_form_trailing_newline",
    "xml",
    model=LLMCODE_MODEL,
    source=LLMCODE_CAPTURES.format("2026-04-08-pr14-full-form.txt"),
    provenance=LLMCODE_PROV,
    note="Canonical call with a CJK string value and an integer value, then a newline.",
    text="<tool_call>\n<function=web_search>\n<parameter=query>\n今日熱門新聞\n</parameter>\n<parameter=max_results>\n3\n</parameter>\n</function>\n</tool_call>\n",
    tools=LLMCODE_TOOLS,
    tools_from_source=False,
    tool_calls=[call("web_search", query=LLMCODE_QUERY, max_results=3)],
    ambiguous=WS_AFTER_CALL + " The file's final newline may have been added when the capture was saved.",
)

case(
    "xml_llmcode_name_gt_then_parameters",
    "xml",
    model=LLMCODE_MODEL,
    source=LLMCODE_CAPTURES.format("2026-04-08-pr15-truncated-with-params.txt"),
    provenance=LLMCODE_PROV,
    note="`<tool_call>NAME>` (the `<function=` left out) followed by `<parameter=...>` pairs, then `</function></tool_call>`; the first value has no trailing newline.",
    text="<tool_call>web_search>\n<parameter=max_results>\n3</parameter>\n<parameter=query>\n今日熱門新聞\n</parameter>\n</function></tool_call>\n",
    tools=LLMCODE_TOOLS,
    tools_from_source=False,
    tool_calls=[call("web_search", max_results=3, query=LLMCODE_QUERY)],
    ambiguous=WS_AFTER_CALL
    + " `NAME>` names a declared tool and is closed by `</function>`, so it is read as `<function=NAME>`.",
)

case(
    "hermes_llmcode_name_gt_args_wrapper",
    "hermes",
    model=LLMCODE_MODEL,
    source=LLMCODE_CAPTURES.format("2026-04-08-pr16-truncated-with-json-args.txt"),
    provenance=LLMCODE_PROV,
    note='`<tool_call>NAME>` followed by a JSON object that wraps the arguments as `{"args": {...}}`; the tool has no parameter `args`.',
    text='<tool_call>web_search>{"args": {"query": "今日熱門新聞", "max_results": 3}}</tool_call>\n',
    tools=LLMCODE_TOOLS,
    tools_from_source=False,
    tool_calls=[call("web_search", query=LLMCODE_QUERY, max_results=3)],
    ambiguous=WS_AFTER_CALL
    + ' The `{"args": ...}` wrapper is unwrapped because the declared tool has no `args` parameter.',
)

case(
    "hermes_llmcode_name_glued_args_wrapper",
    "hermes",
    model=LLMCODE_MODEL,
    source=LLMCODE_CAPTURES.format("2026-04-08-pr22-truncated-no-separator.txt"),
    provenance=LLMCODE_PROV,
    note='`<tool_call>NAME{json}` with no separator between the name and the JSON, and the arguments wrapped as `{"args": {...}}`.',
    text='<tool_call>web_search{"args": {"max_results": 5, "query": "今日熱門新聞 2026"}}</tool_call>',
    tools=LLMCODE_TOOLS,
    tools_from_source=False,
    tool_calls=[call("web_search", max_results=5, query="今日熱門新聞 2026")],
    ambiguous='`NAME{json}` is `NAME {json}` without the space; the `{"args": ...}` wrapper is unwrapped because the declared tool has no `args` parameter.',
)

case(
    "other_llmcode_tool_name_as_tag",
    "other",
    model="Qwen3.5-122B-A10B-int4-AutoRound (vLLM, llmcode client)",
    source="DJFeu/llmcode tests/test_tools/test_parsing.py @ 52c14267b49527a21795ace6f22e99f5899bb8be",
    provenance="Python string literal in TestBareNameTagVariant, whose docstring says it was captured from a field report (2026-04-09); CHANGELOG.md of the same repository quotes the same text as what the TUI showed as the assistant's reply.",
    note="A declared tool's name used as the tag, `<web_search>{json}</web_search>`, with no `<tool_call>` at all.",
    text='<web_search>{"query": "今日熱門新聞", "max_results": 3}</web_search>',
    tools=LLMCODE_TOOLS,
    tools_from_source=False,
    tool_calls=[call("web_search", query=LLMCODE_QUERY, max_results=3)],
    ambiguous="Not one of the four dialects of DESIGN section 3; the tag is a declared tool's name and the body is its arguments object, so the call is unambiguous. A server that does not read this shape returns the text as content.",
)

AURA_SRC = "mezmo/aura crates/aura/src/fallback_tool_parser.rs @ 181bcea2e71316b43031d89201eb0b69e0ddcec9"
case(
    "xml_aura_unclosed_parameter_closed_by_tool_call",
    "xml",
    model="qwen3-coder:30b-128k (Ollama)",
    source=AURA_SRC,
    provenance="Rust raw string literal in the test module, commented `Real output from qwen3-coder:30b-128k (LOG-22998)`.",
    note="Bare `<function=` on one line; the parameter value is never closed and the block ends with `</tool_call>` (no `</parameter>`, no `</function>`); a Python-style `True` for a boolean.",
    text="<function=browser_get_state> <parameter=include_screenshot> True   </tool_call>",
    tools=[fn("browser_get_state", {"include_screenshot": {"type": "boolean"}})],
    tools_from_source=False,
    tool_calls=[call("browser_get_state", include_screenshot=True)],
    ambiguous="`</tool_call>` ends the unclosed value and the call. The value ` True   ` is read as the boolean true: the schema says boolean and `True` spells it (keeping the raw string would be defensible too).",
)

case(
    "xml_aura_bare_function_orphan_close_ints",
    "xml",
    model="qwen3-coder (Ollama)",
    source=AURA_SRC,
    provenance="Rust raw string literal in the test module, commented `Real-world example from qwen3-coder with trailing </tool_call>`.",
    note="Bare `<function=` block with no opener, an orphan `</tool_call>`, integer parameters typed by the schema.",
    text="<function=searxng_web_search>\n<parameter=language>\nen\n</parameter>\n<parameter=pageno>\n1\n</parameter>\n<parameter=query>\ncompanies closing or downsizing in Wallace NH\n</parameter>\n<parameter=safesearch>\n1\n</parameter>\n<parameter=time_range>\nmonth\n</parameter>\n</function>\n</tool_call>",
    tools=[
        fn("searxng_web_search", {"query": S, "pageno": I, "time_range": S, "language": S, "safesearch": I}, ["query"])
    ],
    tools_from_source=False,
    tool_calls=[
        call(
            "searxng_web_search",
            language="en",
            pageno=1,
            query="companies closing or downsizing in Wallace NH",
            safesearch=1,
            time_range="month",
        )
    ],
)

case(
    "xml_openclaw79697_two_reads_tail",
    "xml",
    model="Qwen3.6-27B-UD-Q4_K_XL (llama.cpp b8684, openclaw)",
    source="https://github.com/openclaw/openclaw/issues/79697 (comment by vipcxj)",
    provenance="The server's SSE error `Failed to parse input at pos 668: ...`, JSON-escaped in the issue; \\n unescaped here. Output from character 668 on; the first 668 characters (reasoning, streamed before) are not shown by the source.",
    note="A newline, then two consecutive canonical calls separated by a newline. Only the tail of the output is known.",
    text="\n<tool_call>\n<function=read>\n<parameter=path>\n/home/ps/workspace/docker/aichat/openclaw/.openclaw/workspace/USER.md\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=read>\n<parameter=path>\n/home/ps/workspace/docker/aichat/openclaw/.openclaw/workspace/MEMORY.md\n</parameter>\n</function>\n</tool_call>",
    tools=[fn("read", {"path": S}, ["path"])],
    tools_from_source=False,
    tags=["tail"],
    content="\n",
    tool_calls=[
        call("read", path="/home/ps/workspace/docker/aichat/openclaw/.openclaw/workspace/USER.md"),
        call("read", path="/home/ps/workspace/docker/aichat/openclaw/.openclaw/workspace/MEMORY.md"),
    ],
    ambiguous=WS_BEFORE_CALL,
)

case(
    "xml_qwenpaw2839_python_true_tail",
    "xml",
    model="Qwen3.5-35B-A3B-Q8_0 (llama.cpp, CoPaw)",
    source="https://github.com/agentscope-ai/QwenPaw/issues/2839",
    provenance="The agent's `exception_message` `Failed to parse input at pos 204: ...`, JSON-escaped in the issue; \\n unescaped here. Output from character 204 on; the first 204 characters are not shown by the source.",
    note="Canonical call whose boolean value is written `True` (Python spelling). Only the tail of the output is known.",
    text="<tool_call>\n<function=browser_use>\n<parameter=action>\nstart\n</parameter>\n<parameter=headed>\nTrue\n</parameter>\n</function>\n</tool_call>",
    tools=[fn("browser_use", {"action": S, "headed": {"type": "boolean"}}, ["action"])],
    tools_from_source=False,
    tags=["tail"],
    tool_calls=[call("browser_use", action="start", headed=True)],
    ambiguous="The schema (minimal, the issue does not show it) types `headed` as boolean, and `True` is read as true; keeping the raw string would be defensible too.",
)

EXO = "<tool_call>\nfunction=terminal>\nparameter=command>\necho hello\nparameter>\nfunction>\n</tool_call>"
case(
    "xml_exo1876_tags_without_angle_brackets",
    "xml",
    model="Qwen3.5-27B (exo)",
    source="https://github.com/exo-explore/exo/issues/1876",
    provenance="Python repr of the raw output in the traceback quoted in the issue (`raise ValueError(error_message)`); escapes resolved. The traceback also prints it unescaped, line by line, identically.",
    note="Inside `<tool_call>` every inner tag lost its `<` (and the closers their `</`): `function=terminal>`, `parameter=command>`, `parameter>`, `function>`.",
    text=EXO,
    tools=[fn("terminal", {"command": S}, ["command"])],
    tools_from_source=False,
    content=EXO,
    ambiguous="A reader can see terminal{command: echo hello}, but none of the inner tags is a tag; recovering the call would be guessing (DESIGN invariant 3), so the expected result is the text as content.",
)

case(
    "hermes_qwen3vl1674_cjk_argument",
    "hermes",
    model="Qwen3-VL (OpenAI-compatible server, streamed)",
    source="https://github.com/QwenLM/Qwen3-VL/issues/1674 (comment by Single430, 2025-11-07)",
    provenance="Issue comment: the streamed content the reporter printed (`content:` followed by the text), in a code block.",
    note="Canonical Hermes call with a CJK argument, returned as content by the server.",
    text='<tool_call>\n{"name": "get_current_weather", "arguments": {"location": "杭州"}}\n</tool_call>',
    tools=[fn("get_current_weather", {"location": S}, ["location"])],
    tools_from_source=False,
    tool_calls=[call("get_current_weather", location="杭州")],
)

case(
    "hermes_hyperchat106_inline_spaces",
    "hermes",
    model="Qwen3 (HyperChat client, server without tool parsing)",
    source="https://github.com/BigSweetPotatoStudio/HyperChat/issues/106",
    provenance="Issue text: the model output as the client printed it, inline (the issue may have flattened newlines into spaces).",
    note="Hermes call with spaces instead of newlines around the JSON; integer argument.",
    text='<tool_call> {"name": "SearXNG_searxng_web_search", "arguments": {"query": "latest technology news", "count": 20}} </tool_call>',
    tools=[fn("SearXNG_searxng_web_search", {"query": S, "count": I}, ["query"])],
    tools_from_source=False,
    tool_calls=[call("SearXNG_searxng_web_search", query="latest technology news", count=20)],
)

case(
    "xml_pwilkin_cut_after_function_open",
    "xml",
    model="Qwen3-Coder-Next (steampunque hybrid GGUF, llama.cpp autoparser branch, opencode)",
    source="https://github.com/pwilkin/llama.cpp/issues/9",
    provenance="The server's error string `Failed to parse input at pos 0: ...`, JSON-escaped in the issue; \\n unescaped here. Position 0 means the quoted text is the whole output.",
    note="The output stops right after `<function=task>`, a newline and the `<` of the next tag: a call cut off before any parameter.",
    text="<tool_call>\n<function=task>\n<",
    tools=[
        *OPENCODE_TOOLS,
        fn("task", {"description": S, "prompt": S, "subagent_type": S}, ["description", "prompt", "subagent_type"]),
    ],
    tools_from_source=False,
    tool_calls=[call("task")],
    ambiguous="The call is announced and names a declared tool, so it comes back with the arguments it has (none). The trailing `\\n<` is the cut-off start of the next tag inside the call, read as markup like a cut-off closing tag; returning it as content would be defensible too.",
)

case(
    "xml_sglang31763_inline_value_int",
    "xml",
    model="Qwen3.6-27B-W8A8 (SGLang)",
    source="https://github.com/sgl-project/sglang/issues/31763",
    provenance="Issue text: the tool-call output as the server log showed it (the line `xml` before it is the label of a code fence the issue lost).",
    note="Value on the parameter's line with no newlines around it; integer parameter.",
    text="<tool_call>\n<function=get_highest_load_line>\n<parameter=limit>10</parameter>\n</function>\n</tool_call>",
    tools=[fn("get_highest_load_line", {"limit": I})],
    tools_from_source=False,
    tool_calls=[call("get_highest_load_line", limit=10)],
)

OLLAMA11662 = '{"name": "repeat_string", "arguments": {"string": "bar"}}'
case(
    "other_ollama11662_bare_json_call",
    "other",
    model="qwen3:32b (Ollama 0.10.1)",
    source="https://github.com/ollama/ollama/issues/11662",
    provenance='Issue log: the assistant message content Ollama had returned (and the client sent back in the history), JSON-escaped; \\" unescaped here.',
    note="The whole output is a bare Hermes call object, with no `<tool_call>` tag; the system prompt said the tool must be used.",
    text=OLLAMA11662,
    tools=[fn("repeat_string", {"string": S}, ["string"])],
    tools_from_source=False,
    tool_calls=[call("repeat_string", string="bar")],
    ambiguous="Not one of the four dialects: no tag at all. The whole output is exactly `{name, arguments}` naming a declared tool, so the call is unambiguous; a server that requires a call tag returns the text as content.",
)

OPENCODE27540_REASONING = "The user is asking me to analyze the setup_pretrain.sh script and explain how to model components and forward input data. I need to first read the file to get the actual content.\n"
OPENCODE27540_CONTENT = "\n我需要先读取文件中确认具体内容，以便正确进行分析。让我先读取它。"
case(
    "reasoning_opencode27540_close_then_answer_no_call",
    "reasoning",
    model="Qwen3.6-27B (vLLM, hermes tool parser, no reasoning parser; opencode)",
    source="https://github.com/anomalyco/opencode/issues/27540",
    provenance="Issue text: the reply opencode showed (the line before it is the user's prompt). The template pre-filled `<think>`, so the output starts inside reasoning; vLLM without a reasoning parser passed it all as content.",
    note="Reasoning, `</think>`, then a one-line Chinese answer announcing a read that never comes: no call.",
    text=OPENCODE27540_REASONING + "</think>" + OPENCODE27540_CONTENT,
    tools=[fn("read", {"filePath": S}, ["filePath"])],
    tools_from_source=False,
    reasoning_open=True,
    tags=["reasoning"],
    reasoning=OPENCODE27540_REASONING,
    content=OPENCODE27540_CONTENT,
    ambiguous="The newline before `</think>` stays in reasoning and the one after it in content (text inside and outside the block verbatim); trimming either would be defensible too.",
)

case(
    "xml_rvllm_qwen36_canonical_two_params",
    "xml",
    model="Qwen3.6-35B-A3B (rvllm webhook path)",
    source="hersche/rvllm v3/crates/rvllm-serve/src/tool_parser.rs @ e0bf635edb470781bb1c200d37b2127384245443",
    provenance="Rust string literal in the test module, commented `Captured verbatim from qwen3-6-35b-a3b on the rvllm webhook path (2026-05-24)`.",
    note="Canonical XML call with two string parameters.",
    text="<tool_call>\n<function=brain>\n<parameter=action>\nsearch\n</parameter>\n<parameter=query>\nVinz\n</parameter>\n</function>\n</tool_call>",
    tools=[fn("brain", {"action": S, "query": S}, ["action"])],
    tools_from_source=False,
    tool_calls=[call("brain", action="search", query="Vinz")],
)

VLLM17327 = "To compare **9.11** and **9.8**, we can look at the numbers step by step:\n\n1. Both numbers have **9** as the whole number part.\n2. Now compare the **decimal parts**:\n   - 9.11 has **0.11**\n   - 9.8 has **0.8**\n\nSince **0.8** is greater than **0.11**, **9.8** is greater than **9.11**.\n\n### Final Answer:\n**9.8 is greater than 9.11.** ✅"
case(
    "reasoning_vllm17327_thinking_disabled_answer",
    "reasoning",
    model="Qwen3-30B-A3B (vLLM, deepseek_r1 reasoning parser, enable_thinking false)",
    source="https://github.com/vllm-project/vllm/issues/17327 (comment by Ucag, 2025-05-01)",
    provenance="Issue comment: the Python repr of the response, whose reasoning_content held the whole generated text (that parser of the time returned the output as reasoning when no `</think>` came); escapes resolved.",
    note="Thinking disabled: the template closed the empty think block in the prompt, so the output is a plain Markdown answer with no tags; it must be content, not reasoning.",
    text=VLLM17327,
    tools=[],
    tools_from_source=False,
    tags=["reasoning"],
    content=VLLM17327,
)

LOCALAI8966 = '(the response is a confirmation of the following statement: "The response is in a system response. The assistant is an AI assistant, and the user is referring to the assistant in a system response. The user is asking about the relationship between the assistant and the user in a system response. The assistant is a system response, and the user is referring to the assistant in a system response. The user is asking about the relationship between the assistant and the user in a system response. The assistant is a system response, and the user is referring to the assistant in a system response. The user is asking about the relationship between the assistant and the user in a system response. The assistant is a system response, and the user is referring to the assistant in a system response." in Chinese.'
case(
    "reasoning_localai8966_never_closed_repetition",
    "reasoning",
    model="Qwen3.5-4B-Q4_K_M (LocalAI, llama-cpp backend)",
    source="https://github.com/mudler/LocalAI/issues/8966",
    provenance="Issue text: the JSON response of the server, whose `reasoning` field held the whole generated text after the template's pre-filled `<think>` (the model never closed it); \\\" unescaped here. The backend may trim surrounding whitespace.",
    note="A degenerate, repetitive reasoning that never reaches `</think>`: everything stays reasoning and content is empty.",
    text=LOCALAI8966,
    tools=[],
    tools_from_source=False,
    reasoning_open=True,
    tags=["reasoning"],
    reasoning=LOCALAI8966,
    ambiguous="Everything is reasoning because `</think>` never came; promoting it to content is a client decision, not the parser's.",
)

LMSTUDIO1592 = json.loads(
    '"Let me read the configuration.md file and the source files to understand how tokenWindow is used.\\n\\n<tool_call>\\n<function=readWorkspaceFile>\\n<parameter=arg0>\\n/llmpeon-parent/doc/docs/setup/configuration.md\\n</parameter>\\n</function>\\n</tool_call>\\n<tool_call>\\n<function=getTypeSource>\\n<parameter=arg0>\\norg.sterl.llmpeon.ai.LlmConfig\\n</parameter>\\n<parameter=arg1>\\n\\n</parameter>\\n</function>\\n</tool_call>\\n<tool_call>\\n<function=readWorkspaceFile>\\n<parameter=arg0>\\n/org.sterl.llmpeon/src/org/sterl/llmpeon/parts/config/AiConfigPreferenceView.java\\n</parameter>\\n</function>\\n</tool_call>"'
)
case(
    "xml_lmstudio1592_three_calls_inside_open_reasoning",
    "xml",
    model="qwen/qwen3.5-9b (LM Studio, Windows, Vulkan)",
    source="https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/1592 (comment by sterlp, 2026-03-27)",
    provenance="Issue comment: the server's JSON response, whose `reasoning_content` held the whole generated text after the template's pre-filled `<think>` (`content` empty, `tool_calls` empty); the JSON string literal is decoded here as is. The server may trim surrounding whitespace.",
    note="Prose, then three calls, all inside the never-closed reasoning block; the second call has an empty parameter value (`<parameter=arg1>` followed by two newlines).",
    text=LMSTUDIO1592,
    tools=[
        fn("readWorkspaceFile", {"arg0": S}, ["arg0"]),
        fn("getTypeSource", {"arg0": S, "arg1": S}, ["arg0"]),
    ],
    tools_from_source=False,
    reasoning_open=True,
    tags=["reasoning"],
    reasoning="Let me read the configuration.md file and the source files to understand how tokenWindow is used.\n\n",
    tool_calls=[
        call("readWorkspaceFile", arg0="/llmpeon-parent/doc/docs/setup/configuration.md"),
        call("getTypeSource", arg0="org.sterl.llmpeon.ai.LlmConfig", arg1=""),
        call(
            "readWorkspaceFile",
            arg0="/org.sterl.llmpeon/src/org/sterl/llmpeon/parts/config/AiConfigPreferenceView.java",
        ),
    ],
    ambiguous="The first `<tool_call>` ends reasoning implicitly; the blank line before it stays in reasoning. The value of `arg1` is empty: of its two newlines, one is the leading and one the trailing newline the format adds.",
)

LMSTUDIO825_TOOLS = [
    fn(
        "search_products",
        {
            "query": {"type": "string", "description": "Search terms or product name"},
            "category": {
                "type": "string",
                "description": "Product category to filter by",
                "enum": ["electronics", "clothing", "home", "outdoor"],
            },
            "max_price": {"type": "number", "description": "Maximum price in dollars"},
        },
        ["query"],
    )
]
case(
    "hermes_lmstudio825_empty_think_then_call",
    "hermes",
    model="qwen/qwen3-4b (LM Studio 0.3.21 beta)",
    source="https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/825 (comment by torarnv)",
    provenance='Issue comment: the JSON `choices` the server returned (finish_reason `stop`, no tool_calls), whose `content` held the whole output; the JSON string is decoded here (\\n, \\"). Tool schema from the test case printed in the same thread.',
    note="An empty think block the model wrote itself, a blank line, then a canonical Hermes call.",
    text='<think>\n\n</think>\n\n<tool_call>\n{"name": "search_products", "arguments": {"query": "Dell", "category": "electronics", "max_price": 50}}\n</tool_call>',
    tools=LMSTUDIO825_TOOLS,
    tools_from_source=True,
    tags=["reasoning"],
    reasoning="\n\n",
    content="\n\n",
    tool_calls=[call("search_products", query="Dell", category="electronics", max_price=50)],
    ambiguous="The reasoning is the two newlines inside the empty think block, verbatim; the blank line after `</think>` is outside any markup, so it is content. Empty reasoning and content would be defensible too.",
)

OMLX3153 = 'I have comprehensive material. Let me do one final targeted check...\n\n<tool_call>\n<function=websearch>\nquery="Flowable Work platform-api analytics process-instance query endpoint frequency duration chart data REST" numResults=5'
case(
    "xml_omlx3153_attribute_args_unclosed",
    "xml",
    model="Qwen3.8-27B-oQ4e-mtp (oMLX 0.6.3rc3, non-thinking profile, OpenCode)",
    source="https://github.com/jundot/omlx/issues/3153",
    provenance="Issue text: the observed model output, in a code block. The server's log line in the same issue says it withheld 157 characters starting with `<tool_call>\\n<function=websearch>\\nquery=\"Flowable Work platform-api anal`; the envelope as shown is exactly 157 characters, with no trailing newline.",
    note='Prose, a blank line, then `<tool_call>` and `<function=websearch>` whose body is `key="value" key=value` attributes instead of parameter tags, and the output ends there (no closers).',
    text=OMLX3153,
    tools=[fn("websearch", {"query": S, "numResults": N}, ["query"])],
    tools_from_source=False,
    content=OMLX3153.replace('<tool_call>\n<function=websearch>', ''),
    tool_calls=[call("websearch")],
    ambiguous="`key=value` attributes are not the format's parameters, so no argument is read; but `<function=websearch>` names a declared tool, and a stream announces the call (id and name first) as soon as it has read that tag. The call therefore stands, with the arguments it read (none), and the body it could not read comes back as content, verbatim, as for any broken call (nothing is lost; streaming equals non-streaming). A client sees a call missing its required `query` and the text it was written with.",
)

case(
    "xml_omlx3442_no_params_unclosed_tail",
    "xml",
    model="unknown (oMLX, Cursor client over /v1/messages)",
    source="https://github.com/jundot/omlx/issues/3442",
    provenance="The server's warning, quoted in the issue title: `withheld 39 characters ... (start_marker='<tool_call>\\n<function=Read>\\n</function>')`; \\n unescaped here. The quoted marker is exactly 39 characters, so it is the whole withheld tail; what came before it is not shown.",
    note="A call with no parameters: `<function=Read>` closed by `</function>`, and the output ends before `</tool_call>`. Only the tail is known.",
    text="<tool_call>\n<function=Read>\n</function>",
    tools=[fn("Read", {"file_path": S}, ["file_path"])],
    tools_from_source=False,
    tags=["tail"],
    tool_calls=[call("Read")],
    ambiguous="The function block is closed, so the call is complete with no arguments although the tool requires one; a missing `</tool_call>` at the end of the output does not undo it.",
)

OLLAMA_OMNIMERGE = (
    "<think>I need to fix the extra brace. The line reads `}}});` and should read `}});`."
    "<tool_call><function=editor><parameter=path>manic_miner.html</parameter>"
    "<parameter=new_text>}});</parameter></function></tool_call>"
)
case(
    "xml_ollama_omnimerge_call_inside_think",
    "xml",
    model="omnimerge-v6 (a Qwen3.5-family model on Ollama's qwen3.5 parser)",
    source="ollama/ollama model/parsers/qwen35_boundary_test.go @ 1af690b3473dbbb969ecce1c1ef2d2fcc752e52e",
    provenance="Go string constant (implicitly concatenated pieces) in the test file, commented as captured on 2026-09-24 from an omnimerge-v6 agentic run reported by a user.",
    note="The model opens `<think>` itself and writes the call inside the think block, with no `</think>`; values on the tag lines, one of them made of braces.",
    text=OLLAMA_OMNIMERGE,
    tools=[fn("editor", {"path": S, "new_text": S})],
    tools_from_source=True,
    tags=["reasoning"],
    reasoning="I need to fix the extra brace. The line reads `}}});` and should read `}});`.",
    tool_calls=[call("editor", path="manic_miner.html", new_text="}});")],
    ambiguous="The `<tool_call>` ends the never-closed reasoning implicitly (DESIGN section 3), so the call is read and the text before it is reasoning.",
)

VMLX192 = 'bash\necho "Tool test successful!"'
case(
    "other_vmlx192_plain_line_tool_name",
    "other",
    model="Qwen3.6-35B-A3B-4bit (vMLX)",
    source="https://github.com/jjang-ai/vmlx/issues/192 (comment by jjang-ai, 2026-06-09)",
    provenance="Issue comment: the text a live run emitted for the reporter's request, in a code block.",
    note="No tag at all: the declared tool's name on one line, the command on the next.",
    text=VMLX192,
    tools=[fn("bash", {"command": S}, ["command"])],
    tools_from_source=True,
    content=VMLX192,
    ambiguous="A reader may guess bash{command: ...}, and the server in the source added a narrow repair for it; but a tool name on a line of its own is not a call format of any dialect, and reading it would turn prose that starts with a tool's name into calls. Expected as content.",
)

LLAMACPP22878_EDITS = '[{"newText": "- Name: vipcxj\\n- What to call them: vipcxj\\n- Notes: 给AI取了个叫"3.14根毛"的名字，审美独特", "oldText":'
case(
    "xml_llamacpp22878_array_value_cut_with_bare_quotes_tail",
    "xml",
    model="Qwen3.6-27B-UD-Q4_K_XL (llama.cpp b8684, openclaw)",
    source="https://github.com/ggml-org/llama.cpp/issues/22878",
    provenance="Issue text: the chat client showed the server's `Failed to parse input at pos 1192:` followed by the output from that position, in a code block (the `\\n` inside the JSON are the model's own escapes and stay backslash-n). The text starts at `<tool_call>`; whether a newline came before it is not shown. Only the tail is known, and the output stops where the server stopped it.",
    note='An array parameter written as JSON whose string holds unescaped double quotes (`"3.14根毛"`), cut off after `"oldText":` with nothing closed.',
    text="<tool_call>\n<function=edit>\n<parameter=edits>\n" + LLAMACPP22878_EDITS,
    tools=[fn("edit", {"path": S, "edits": {"type": "array", "items": {"type": "object"}}}, ["path", "edits"])],
    tools_from_source=False,
    tags=["tail"],
    tool_calls=[call("edit", edits=LLAMACPP22878_EDITS)],
    ambiguous="The value does not parse as the array the schema asks for (bare quotes inside a string, then cut off), so the raw text is kept as a string (DESIGN section 3); the call is returned with what it has.",
)

ONECAT_SRC = "https://github.com/1CatAI/1Cat-vLLM/issues/26"
ONECAT_MODEL = "Qwen3.6-27B-AWQ (1Cat-vLLM 0.0.3, Hermes Agent)"
ONECAT_PROV = "Issue text: one of the pseudo tool-call formats the reporter saw returned as assistant content (finish_reason `stop`), in a code block."
ONECAT_TOOLS = [fn("searxng_search", {"query": S, "language": S, "max_results": I}, ["query"])]

ONECAT_ARRAY = '[{"name":"searxng_search","arguments":{"query":"2026年5月6日 今日新闻"}}]'
case(
    "other_1cat26_bare_json_call_array",
    "other",
    model=ONECAT_MODEL,
    source=ONECAT_SRC,
    provenance=ONECAT_PROV,
    note="The whole output is a bare JSON array holding one `{name, arguments}` call object, with no tag.",
    text=ONECAT_ARRAY,
    tools=ONECAT_TOOLS,
    tools_from_source=False,
    tool_calls=[call("searxng_search", query="2026年5月6日 今日新闻")],
    ambiguous="Not one of the four dialects: no tag at all. The whole output is a list of `{name, arguments}` objects naming a declared tool, so the call is unambiguous; a server that requires a call tag returns the text as content.",
)

ONECAT_TOOL_CODE = "<tool_code>\n/tool_code>"
case(
    "other_1cat26_broken_tool_code_tag",
    "other",
    model=ONECAT_MODEL,
    source=ONECAT_SRC,
    provenance=ONECAT_PROV,
    note="An invented `<tool_code>` tag with a closer that lost its `<`, and nothing inside.",
    text=ONECAT_TOOL_CODE,
    tools=ONECAT_TOOLS,
    tools_from_source=False,
    content=ONECAT_TOOL_CODE,
)

ONECAT_CALL_LINE = '--- CALL --- nc://searxng_search {"query":"2026年5月6日 今日新闻","language":"zh","max_results":8}'
case(
    "other_1cat26_call_banner_url_json",
    "other",
    model=ONECAT_MODEL,
    source=ONECAT_SRC,
    provenance=ONECAT_PROV,
    note="A made-up `--- CALL --- nc://NAME {json}` line.",
    text=ONECAT_CALL_LINE,
    tools=ONECAT_TOOLS,
    tools_from_source=False,
    content=ONECAT_CALL_LINE,
    ambiguous="A reader sees searxng_search{...}, but `--- CALL --- nc://` is no call format of any dialect; reading it would be guessing, so the expected result is the text as content.",
)

HERMES66452 = "bash\necho X"
case(
    "other_hermes66452_plain_line_tool_name",
    "other",
    model="qwen3.5:9b Q4_K_M (Ollama 0.32.1, Hermes Agent)",
    source="https://github.com/NousResearch/hermes-agent/issues/66452",
    provenance="Issue text: the literal reply the model gave to `Use the terminal tool to run: echo X`, quoted inline with its newline written as `\\n`; unescaped here.",
    note="No tag: a shell name on one line and the command on the next, for a tool named `terminal`.",
    text=HERMES66452,
    tools=[fn("terminal", {"command": S}, ["command"])],
    tools_from_source=False,
    content=HERMES66452,
    ambiguous="`bash` is not even the declared tool's name; the text is content.",
)


def main() -> None:
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/real/cases.jsonl"
    with open(out, "w", encoding="utf-8") as f:
        for c in CASES:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    counts: dict[str, int] = {}
    for c in CASES:
        counts[c["dialect"]] = counts.get(c["dialect"], 0) + 1
    print(f"{len(CASES)} cases -> {out}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))


if __name__ == "__main__":
    main()
