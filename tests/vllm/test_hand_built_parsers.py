"""Our parsers built by hand, as offline users of vLLM (``LLM.chat(tools=...)``) build them: through
``ReasoningParserManager.get_reasoning_parser("longcat")`` and ``ToolParserManager.get_tool_parser("longcat")``, in
vLLM's order (reasoning parser, then tool parser) or the other, with other requests' parsers built in between.

Used as vLLM uses a reasoning and a tool parser: the whole output through ``extract_reasoning`` and the content it
returns through ``extract_tool_calls``; streamed, each delta through the reasoning parser until it confirms the end
of reasoning, then (with its flush) through the tool parser. Either way the reading is the core's one-pass reading,
and ``extract_reasoning`` returns the output without its reasoning as content (calls as written).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from test_reasoning_handover import OUTPUTS
from vllm_support import (
    CASES,
    GROUPS,
    TOOLS,
    Case,
    Result,
    build_tokenizer,
    chat_request,
    chunks,
    core_result,
    stream_result,
)

from longcat_plugins.core import ParserOptions, parse

pytestmark = pytest.mark.vllm

#: every dialect, and reasoning that closes, is ended by a call, opens again between calls and holds a think tag as text
HAND_CASES = [*CASES, *(Case(f"reopened_{name}", output, reasoning_open=True) for name, output in OUTPUTS.items())]
ORDERS = ["reasoning_parser_first", "tool_parser_first"]

Pair = tuple[Any, Any]


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    return build_tokenizer()


def _classes() -> tuple[Any, Any]:
    from vllm.reasoning.abs_reasoning_parsers import ReasoningParserManager
    from vllm.tool_parsers.abstract_tool_parser import ToolParserManager

    return ReasoningParserManager.get_reasoning_parser("longcat"), ToolParserManager.get_tool_parser("longcat")


def _builders(tokenizer: Any, case: Case) -> tuple[Callable[[], Any], Callable[[], Any]]:
    reasoning_cls, tool_cls = _classes()
    return (
        lambda: reasoning_cls(tokenizer, chat_template_kwargs=case.template_kwargs),
        lambda: tool_cls(tokenizer, TOOLS),
    )


def _build(tokenizer: Any, case: Case, order: str) -> Pair:
    reasoning, tool = _builders(tokenizer, case)
    if order == "reasoning_parser_first":
        reasoning_parser = reasoning()
        return reasoning_parser, tool()
    tool_parser = tool()
    return reasoning(), tool_parser


def _output(tokenizer: Any, case: Case) -> str:
    return str(tokenizer.decode(tokenizer.encode(case.output), skip_special_tokens=False))


def _whole(pair: Pair, output: str) -> tuple[str, Result]:
    """What ``extract_reasoning`` returns as content, and the reading of both stages."""
    reasoning_parser, tool_parser = pair
    request = chat_request()
    reasoning, content = reasoning_parser.extract_reasoning(output, request)
    info = tool_parser.extract_tool_calls(content or "", request)
    calls = [(call.function.name, call.function.arguments) for call in info.tool_calls]
    return content or "", Result(content=info.content or "", reasoning=reasoning or "", calls=calls)


def _streamed(pair: Pair, tokenizer: Any, case: Case, group: int) -> Result:
    """The deltas through the reasoning parser until it confirms the end of reasoning, then through the tool parser
    (the text of that delta and the reasoning parser's flush first), as vLLM's serving layer hands them over."""
    from vllm.entrypoints.generate.base.protocol import DeltaMessage

    reasoning_parser, tool_parser = pair
    request = chat_request(stream=True)
    deltas: list[Any] = []
    ended = False
    previous_text, previous_ids = "", []
    for text, ids in chunks(tokenizer, tokenizer.encode(case.output), group):
        current_text, current_ids = previous_text + text, previous_ids + ids
        if ended:
            deltas.append(
                tool_parser.extract_tool_calls_streaming(
                    previous_text, current_text, text, previous_ids, current_ids, ids, request
                )
            )
        else:
            delta = reasoning_parser.extract_reasoning_streaming(
                previous_text, current_text, text, previous_ids, current_ids, ids
            )
            if reasoning_parser.has_engine_confirmed_reasoning_end():
                ended = True
                flush = reasoning_parser.finish_streaming()
                handed = ((delta.content if delta else None) or "") + ((flush.content if flush else None) or "")
                if delta is not None and delta.reasoning:
                    deltas.append(DeltaMessage(reasoning=delta.reasoning))
                deltas.append(tool_parser.extract_tool_calls_streaming("", handed, handed, [], [], [], request))
            else:
                deltas.append(delta)
        previous_text, previous_ids = current_text, current_ids
    if not ended:
        deltas.append(reasoning_parser.finish_streaming())
    deltas.append(tool_parser.finish_streaming())
    return stream_result(deltas)


def _without_reasoning(case: Case, output: str) -> str:
    """The output with its reasoning taken out, calls as written (what ``extract_reasoning`` returns as content)."""
    options = ParserOptions(reasoning=True, tools=False, reasoning_open=case.reasoning_open)
    return parse(output, None, options).content


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("case", HAND_CASES, ids=lambda c: c.name)
def test_whole_output_reads_as_the_core_in_either_order(tokenizer: Any, case: Case, order: str) -> None:
    output = _output(tokenizer, case)
    content, result = _whole(_build(tokenizer, case, order), output)
    assert content == _without_reasoning(case, output)
    assert result.normalized() == core_result(case).normalized()


@pytest.mark.parametrize("group", GROUPS)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("case", HAND_CASES, ids=lambda c: c.name)
def test_streamed_output_reads_as_the_core_in_either_order(tokenizer: Any, case: Case, order: str, group: int) -> None:
    result = _streamed(_build(tokenizer, case, order), tokenizer, case, group)
    assert result.normalized() == core_result(case).normalized()


def _case(name: str) -> Case:
    return next(case for case in HAND_CASES if case.name == name)


def test_two_pairs_built_before_either_is_used(tokenizer: Any) -> None:
    """Two requests' parsers built in one thread, each pair in vLLM's order, before either is used; then used one
    after the other, whole and streamed."""
    first, second = _case("reasoning_then_tools"), _case("reopened_thinking_between_calls")
    for stream in (False, True):
        reasoning_a, tool_a = _builders(tokenizer, first)
        reasoning_b, tool_b = _builders(tokenizer, second)
        built = [reasoning_a(), reasoning_b(), tool_a(), tool_b()]
        pairs = {first.name: (built[0], built[2]), second.name: (built[1], built[3])}
        for case in (second, first):
            pair = pairs[case.name]
            if stream:
                result = _streamed(pair, tokenizer, case, 2)
            else:
                output = _output(tokenizer, case)
                content, result = _whole(pair, output)
                assert content == _without_reasoning(case, output)
            assert result.normalized() == core_result(case).normalized(), (case.name, stream)


def test_a_served_parser_built_among_hand_built_ones_reads_in_one_pass(tokenizer: Any) -> None:
    """vLLM's own ``Parser`` (as the API server builds one per request) built between a hand-built reasoning parser
    and a hand-built tool parser: it pairs its own two, the hand-built ones stay two stages, and all read right."""
    from vllm.parser.parser_manager import ParserManager

    case = _case("reopened_call_then_reopened")
    reasoning, tool = _builders(tokenizer, case)
    hand_reasoning = reasoning()
    served_cls = ParserManager.get_parser(
        tool_parser_name="longcat",
        reasoning_parser_name="longcat",
        enable_auto_tools=True,
        model_name="longcat-test",
        tokenizer=tokenizer,
    )
    request = chat_request(stream=True)
    served = served_cls(tokenizer, request.tools, chat_template_kwargs=case.template_kwargs)
    hand_tool = tool()
    prompt_ids = tokenizer.encode(case.prompt)
    pieces = chunks(tokenizer, tokenizer.encode(case.output), 3)
    deltas = [
        served.parse_delta(text, ids, request, prompt_token_ids=prompt_ids, finished=i == len(pieces) - 1)
        for i, (text, ids) in enumerate(pieces)
    ]
    expected = core_result(case).normalized()
    assert stream_result(deltas).normalized() == expected
    assert _streamed((hand_reasoning, hand_tool), tokenizer, case, 3).normalized() == expected
