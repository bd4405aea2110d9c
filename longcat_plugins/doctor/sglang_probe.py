"""What SGLang resolves ``longcat`` to after its own plugin loading, and a parse through its parser API."""

from __future__ import annotations

from typing import Any

from . import samples
from .contract_checks import contract_checks
from .model import SGLANG, Check, Status
from .probe_util import failure, load_engine_plugins, resolution_check

S = SGLANG.key
_FIX_BROKEN = "the SGLang adapter does not work with this SGLang: check the version row, then report a bug"


def probe(not_loaded_fix: str) -> list[Check]:
    checks, loaded = load_engine_plugins(SGLANG, "sglang.srt.plugins", "load_plugins", not_loaded_fix)
    if not loaded:
        return checks
    checks.append(_names_check(not_loaded_fix))
    try:
        from sglang.srt.function_call.function_call_parser import FunctionCallParser
        from sglang.srt.parser.reasoning_parser import ReasoningParser
    except Exception as exc:
        checks.append(failure(S, "import", "importing SGLang's parser registries", exc, "reinstall sglang"))
        return checks
    try:
        import sglang.srt.entrypoints.openai.serving_chat  # noqa: F401  (the HTTP server's: the adapter checks it)
    except Exception as exc:
        checks.append(failure(S, "import", "importing SGLang's chat serving", exc, "reinstall sglang"))
    tool = resolution_check(
        S,
        "tool parser",
        'FunctionCallParser.ToolCallParserEnum["longcat"]',
        lambda: FunctionCallParser.ToolCallParserEnum.get("longcat"),
        "not longcat-plugins'",
        not_loaded_fix,
    )
    reasoning = resolution_check(
        S,
        "reasoning parser",
        'ReasoningParser.DetectorMap["longcat"]',
        lambda: ReasoningParser.DetectorMap.get("longcat"),
        "not longcat-plugins'",
        not_loaded_fix,
    )
    checks += [tool, reasoning]
    if tool.status is Status.OK:
        checks.append(_parse_check(FunctionCallParser))
    if reasoning.status is Status.OK:
        checks.append(_reasoning_check(ReasoningParser))
    return checks + contract_checks(SGLANG)


def _names_check(not_loaded_fix: str) -> Check:
    """``--tool-call-parser`` / ``--reasoning-parser`` choices come from these lists first."""
    from sglang.srt.function_call.parser_names import TOOL_CALL_PARSER_NAMES
    from sglang.srt.parser.reasoning_parser_names import REASONING_PARSER_NAMES

    missing = [
        flag
        for flag, names in (
            ("--tool-call-parser", TOOL_CALL_PARSER_NAMES),
            ("--reasoning-parser", REASONING_PARSER_NAMES),
        )
        if "longcat" not in names
    ]
    if missing:
        return Check(
            S,
            "parser names",
            Status.FAIL,
            f"'longcat' is not among the choices of {' and '.join(missing)}: launch_server would reject it",
            not_loaded_fix,
        )
    return Check(S, "parser names", Status.OK, "longcat is a choice of --tool-call-parser and --reasoning-parser")


def _parse_check(parser_cls: Any) -> Check:
    try:
        from sglang.srt.entrypoints.openai.protocol import Tool

        tools = [Tool.model_validate(t) for t in samples.TOOLS]
        content, items = parser_cls(tools, "longcat").parse_non_stream(samples.TOOL_OUTPUT)
        problem = samples.compare_calls([(i.name or "", i.parameters) for i in items], content)
        if problem is None:
            parser = parser_cls(tools, "longcat")
            text = ""
            calls: dict[int, list[str]] = {}
            results = [parser.parse_stream_chunk(p) for p in samples.chunks(samples.TOOL_OUTPUT)]
            results.append(parser.parse_stream_end())
            for normal, stream_items in results:
                text += normal or ""
                for item in stream_items:
                    entry = calls.setdefault(item.tool_index, ["", ""])
                    entry[0] += item.name or ""
                    entry[1] += item.parameters or ""
            problem = samples.compare_calls([(n, a) for _, (n, a) in sorted(calls.items())], text)
    except Exception as exc:
        return failure(S, "parse", "parsing the sample with FunctionCallParser(tools, 'longcat')", exc, _FIX_BROKEN)
    if problem is not None:
        return Check(S, "parse", Status.FAIL, problem, _FIX_BROKEN)
    return Check(S, "parse", Status.OK, "sample: 2 calls, streamed and not, as expected")


def _reasoning_check(parser_cls: Any) -> Check:
    try:
        reasoning, content = parser_cls("longcat").parse_non_stream(samples.REASONING_OUTPUT)
    except Exception as exc:
        return failure(S, "reasoning", "splitting the sample with ReasoningParser('longcat')", exc, _FIX_BROKEN)
    problem = samples.compare_reasoning(reasoning, content)
    if problem is not None:
        return Check(S, "reasoning", Status.FAIL, problem, _FIX_BROKEN)
    return Check(S, "reasoning", Status.OK, "sample: reasoning and content split as expected")
