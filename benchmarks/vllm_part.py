"""The vLLM part: ours against vLLM's built-in ``longcat``, ``hermes`` and ``qwen3_coder`` tool parsers, each inside
vLLM's own ``Parser`` (a ``DelegatingParser``), driven through ``Parser.parse_delta`` with the text and token ids of
every delta, as the serving layer does.

    .venvs/vllm/bin/python -m benchmarks.vllm_part [--out build/bench/vllm.json]

Our plugin replaces the ``longcat`` name, so the built-in ``longcat`` class (``LongcatFlashToolParser``) is put into
the same ``DelegatingParser`` composition that ``ParserManager`` builds for a name. The agent turn runs with a
reasoning parser: ours (``longcat``) for ours, ``deepseek_r1`` beside the built-in ``longcat`` (vLLM has no LongCat
reasoning parser), ``qwen3`` beside ``hermes`` and ``qwen3_coder``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .cases import Case
from .measure import Folded, Runner, blocks, unchecked
from .parsers import Contender, Entry, ParserSpec, checks_message
from .part import arguments, run_part
from .targets import probes
from .tokens import PROMPT, Delta, load_tokenizer
from .workloads import DIALECTS

ParserClass = Any
FLOOR_NAME = "floor: no-op, engine-based"
LEGACY_NAME = "no-op, legacy path"
#: vLLM's own ``longcat`` tool parser, which our plugin replaces under that name
BUILTIN_LONGCAT = "longcat, vLLM's class"


def parsers() -> list[Entry]:
    """The parsers measured, with the reasoning parser beside each on the agent turn."""
    from .vllm_floors import FLOOR, LEGACY

    return [
        Entry("ours", "ours", DIALECTS, "longcat", "longcat"),
        Entry(FLOOR_NAME, "floor", DIALECTS, FLOOR, FLOOR),
        Entry(LEGACY_NAME, "no-op", DIALECTS, LEGACY, LEGACY),
        Entry("longcat (built-in)", "builtin", ("longcat_json",), BUILTIN_LONGCAT, "deepseek_r1"),
        Entry("hermes (built-in)", "builtin", ("hermes_json",), "hermes", "qwen3"),
        Entry("qwen3_coder (built-in)", "builtin", ("xml",), "qwen3_coder", "qwen3"),
    ]


def parser_class(tool: str, reasoning: str | None, tokenizer: Any) -> ParserClass:
    """The ``Parser`` class vLLM composes for a tool and a reasoning parser, as ``ParserManager.get_parser`` does."""
    if tool == BUILTIN_LONGCAT:
        return _builtin_longcat_class(reasoning)
    from vllm.parser.parser_manager import ParserManager

    return ParserManager.get_parser(
        tool_parser_name=tool, reasoning_parser_name=reasoning, enable_auto_tools=True, tokenizer=tokenizer
    )


def _builtin_longcat_class(reasoning: str | None) -> ParserClass:
    """What ``ParserManager.get_parser("longcat", ...)`` composes when our plugin is not installed."""
    from vllm.parser.abstract_parser import DelegatingParser
    from vllm.parser.parser_manager import ParserManager
    from vllm.tool_parsers.longcat_tool_parser import LongcatFlashToolParser

    reasoning_cls = ParserManager.get_reasoning_parser(reasoning)

    class _Parser(DelegatingParser):
        reasoning_parser_cls = reasoning_cls
        tool_parser_cls = LongcatFlashToolParser
        tool_strict_level = None

    return _Parser


def runner_factory(tokenizer: Any, p: Entry) -> Callable[[Case], Runner]:
    """Runners of ``p`` through ``Parser.parse_delta``; a no-op's output is folded but not checked."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    prompt_ids = tokenizer.encode(PROMPT, add_special_tokens=False)
    classes = {
        with_reasoning: parser_class(p.tool, p.reasoning if with_reasoning else None, tokenizer)
        for with_reasoning in (False, True)
    }
    checked = checks_message(p.role)

    def make(case: Case) -> Runner:
        parser_cls = classes[case.reasoning_parser]
        request = ChatCompletionRequest(
            model="bench",
            messages=[{"role": "user", "content": "Fix the failing test."}],
            tools=case.tools,
            stream=True,
        )

        def run(deltas: list[Delta], deadline: float, keep: bool) -> Folded | None:
            parser = parser_cls(tokenizer, request.tools, chat_template_kwargs={})
            parse_delta = parser.parse_delta
            folded = Folded()
            last = len(deltas) - 1
            i = 0
            for block in blocks(deltas, deadline):
                for text, ids in block:
                    message = parse_delta(text, ids, request, prompt_token_ids=prompt_ids, finished=i == last)
                    i += 1
                    if keep and message is not None:
                        fold_message(folded, message)
            return folded if keep else None

        return run if checked else unchecked(run)

    return make


def fold_message(folded: Folded, message: Any) -> None:
    if message.content:
        folded.content.append(message.content)
    if message.reasoning:
        folded.reasoning.append(message.reasoning)
    for call in message.tool_calls or []:
        function = call.function
        if isinstance(function, dict):
            folded.call(call.index, function.get("name"), function.get("arguments"))
        elif function is not None:
            folded.call(call.index, function.name, function.arguments)
        else:
            folded.call(call.index, None, None)


def specs(tokenizer: Any) -> list[ParserSpec]:
    return [
        ParserSpec(p.name, p.dialects, runner_factory(tokenizer, p), role=p.role, probes=probes("vllm", p.name))
        for p in parsers()
    ]


def _check_composition(tokenizer: Any) -> None:
    """Ours resolves to our classes, the built-in longcat to vLLM's, both in vLLM's Parser."""
    from vllm.tool_parsers.longcat_tool_parser import LongcatFlashToolParser

    from longcat_plugins.vllm.tool_parser import LongcatToolParser

    ours = parser_class("longcat", "longcat", tokenizer)(tokenizer, None)
    assert isinstance(ours.tool_parser, LongcatToolParser), type(ours.tool_parser)
    builtin = _builtin_longcat_class(None)(tokenizer, None)
    assert type(builtin.tool_parser) is LongcatFlashToolParser
    assert type(ours).__mro__[1] is type(builtin).__mro__[1]  # the same DelegatingParser
    from .vllm_floors import FLOOR, LEGACY, LegacyNoopToolParser, NoopToolParser

    floor = parser_class(FLOOR, FLOOR, tokenizer)(tokenizer, None)
    legacy = parser_class(LEGACY, LEGACY, tokenizer)(tokenizer, None)
    assert type(floor.tool_parser) is NoopToolParser and floor._engine_based
    assert type(legacy.tool_parser) is LegacyNoopToolParser and not legacy._engine_based
    assert type(floor).__mro__[1] is type(ours).__mro__[1]


def setup() -> dict[str, Any]:
    """Plugins (ours) and the floors registered; the composition checked. Returns the part's meta."""
    import vllm
    from vllm.plugins import load_general_plugins

    from .vllm_floors import register

    load_general_plugins()
    register()
    _check_composition(load_tokenizer())
    return {"vllm": vllm.__version__}


def request_contenders(tokenizer: Any) -> list[Contender]:
    """The per-request benchmark's parsers (benchmarks/per_request.py): tool parsers alone."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    prompt_ids = tokenizer.encode(PROMPT, add_special_tokens=False)

    def request(tools: list[dict[str, Any]]) -> Any:
        messages = [{"role": "user", "content": "Update the ticket."}]
        return ChatCompletionRequest(model="bench", messages=messages, tools=tools, stream=True)

    def feed(parser: Any, req: Any, delta: Delta, last: bool, folded: Folded) -> None:
        message = parser.parse_delta(delta[0], delta[1], req, prompt_token_ids=prompt_ids, finished=last)
        if message is not None:
            fold_message(folded, message)

    def contender(p: Entry) -> Contender:
        cls = parser_class(p.tool, None, tokenizer)

        def construct(req: Any) -> Any:
            return cls(tokenizer, req.tools, chat_template_kwargs={})

        return Contender(p.name, p.role, p.dialects[0], request, construct, feed, startup=lambda: cls(tokenizer))

    return [contender(p) for p in parsers()]


def main() -> None:
    args = arguments("vllm")
    meta = setup()
    run_part("vllm", specs(load_tokenizer()), args, meta)


if __name__ == "__main__":
    main()
