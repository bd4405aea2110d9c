"""What vLLM resolves ``longcat`` to after its own plugin loading, and a parse through its parser API."""

from __future__ import annotations

from typing import Any

from . import samples
from .contract_checks import contract_checks
from .model import VLLM, Check, Status
from .probe_util import failure, load_engine_plugins, resolution_check

S = VLLM.key


def probe(not_loaded_fix: str) -> list[Check]:
    checks, loaded = load_engine_plugins(VLLM, "vllm.plugins", "load_general_plugins", not_loaded_fix)
    if not loaded:
        return checks

    try:
        import vllm.parser.abstract_parser  # noqa: F401  (the API server's parser layer: the adapter checks it)
    except Exception as exc:
        checks.append(failure(S, "import", "import vllm.parser.abstract_parser", exc, "reinstall vllm"))
    from vllm.reasoning.abs_reasoning_parsers import ReasoningParserManager
    from vllm.tool_parsers.abstract_tool_parser import ToolParserManager

    tool = resolution_check(
        S,
        "tool parser",
        'ToolParserManager.get_tool_parser("longcat")',
        lambda: ToolParserManager.get_tool_parser("longcat"),
        "vLLM's built-in longcat parser",
        not_loaded_fix,
    )
    reasoning = resolution_check(
        S,
        "reasoning parser",
        'ReasoningParserManager.get_reasoning_parser("longcat")',
        lambda: ReasoningParserManager.get_reasoning_parser("longcat"),
        "a parser from outside longcat-plugins",
        not_loaded_fix,
    )
    checks += [tool, reasoning]
    if tool.status is Status.OK:
        checks.append(_parse_check(ToolParserManager.get_tool_parser("longcat")))
    if reasoning.status is Status.OK:
        checks.append(_reasoning_check(ReasoningParserManager.get_reasoning_parser("longcat")))
    return checks + contract_checks(VLLM)


def _parse_check(parser_cls: Any) -> Check:
    """The sample through the tool parser: ``extract_tool_calls``, then streaming as the server drives it."""
    fix = "the vLLM adapter does not work with this vLLM: check the version row, then report a bug"
    try:
        from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

        request = ChatCompletionRequest(
            model="doctor", messages=[{"role": "user", "content": "weather?"}], tools=samples.TOOLS
        )
        whole = parser_cls(None, request.tools).extract_tool_calls(samples.TOOL_OUTPUT, request)
        calls = [(c.function.name, c.function.arguments) for c in whole.tool_calls]
        problem = samples.compare_calls(calls, whole.content or "")
        if problem is None:
            problem = _stream(parser_cls, request)
    except Exception as exc:
        return failure(S, "parse", "parsing the sample with the longcat tool parser", exc, fix)
    if problem is not None:
        return Check(S, "parse", Status.FAIL, problem, fix)
    return Check(S, "parse", Status.OK, "sample: 2 calls, streamed and not, as expected")


def _stream(parser_cls: Any, request: Any) -> str | None:
    parser = parser_cls(None, request.tools)
    deltas = []
    previous = ""
    for piece in samples.chunks(samples.TOOL_OUTPUT):
        deltas.append(parser.extract_tool_calls_streaming(previous, previous + piece, piece, [], [], [], request))
        previous += piece
    finish = getattr(parser, "finish_streaming", None)
    if finish is not None:
        deltas.append(finish())
    content = ""
    calls: dict[int, list[str]] = {}
    for delta in deltas:
        if delta is None:
            continue
        content += delta.content or ""
        for call in delta.tool_calls:
            entry = calls.setdefault(call.index, ["", ""])
            if call.function is not None:
                entry[0] += call.function.name or ""
                entry[1] += call.function.arguments or ""
    return samples.compare_calls([(n, a) for _, (n, a) in sorted(calls.items())], content)


def _reasoning_check(parser_cls: Any) -> Check:
    fix = "the vLLM adapter does not work with this vLLM: check the version row, then report a bug"
    try:
        reasoning, content = parser_cls(None).extract_reasoning(samples.REASONING_OUTPUT, None)
    except Exception as exc:
        return failure(S, "reasoning", "splitting the sample with the longcat reasoning parser", exc, fix)
    problem = samples.compare_reasoning(reasoning, content)
    if problem is not None:
        return Check(S, "reasoning", Status.FAIL, problem, fix)
    return Check(S, "reasoning", Status.OK, "sample: reasoning and content split as expected")
