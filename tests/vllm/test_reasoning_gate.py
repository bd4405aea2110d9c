"""Constrained decoding with ``--reasoning-parser longcat``: from which output token does the grammar apply?

Each request goes through vLLM's ``OpenAIServingChat`` (our chat templates, our tool and reasoning parsers): it builds
the grammar (a structural tag for ``tool_choice="required"``, a named tool, strict tools; a JSON schema for
``response_format``) and decides ``reasoning_ended`` with our parser. The engine core's ``StructuredOutputManager``,
built from the same config with our reasoning parser class, then runs over a fixed output as the scheduler drives it:
``trim_spec_tokens`` (0.33: ``validate_tokens``) on draft tokens, ``grammar_bitmask`` before sampling,
``accept_tokens`` after. We count the output tokens sampled under the grammar's mask and check that every token is one
the mask allows and the grammar accepts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from vllm_support import (
    CASES,
    SINGLE_TOKEN_TAGS,
    TOOLS,
    WEATHER,
    Case,
    Serving,
    build_tokenizer,
    chat_completion,
    core_result,
    make_serving,
    save_model_dir,
)

from longcat_plugins.core import ParserOptions, parse
from longcat_plugins.core.dialects import DIALECTS
from longcat_plugins.templates import template_path
from tests.grammar_cases import written

pytestmark = pytest.mark.vllm

LONGCAT_TAGS = ["<longcat_tool_call>", "</longcat_tool_call>", "<longcat_think>", "</longcat_think>", "</longcat_s>"]
QWEN_TAGS = ["<|im_start|>", "<|im_end|>", "<think>", "</think>", "<tool_call>", "</tool_call>"]

# LongCat's turn format with the opening reasoning tag pre-filled after the assistant header (a template that starts
# the answer inside reasoning; the rest of longcat-flash-chat.jinja, system prompt and tools, is left out).
LONGCAT_THINKING_TEMPLATE = (
    "{%- for message in messages %}{%- if message['role'] == 'user' %}"
    "{{- '[Round ' ~ loop.index0 ~ '] USER:' ~ message['content'] ~ ' ' }}"
    "{%- endif %}{%- endfor %}"
    "{%- if add_generation_prompt %}{{- 'ASSISTANT:<longcat_think>\n' }}{%- endif %}"
)

CITY = '{"city": "Paris"}'


def _call(dialect: str) -> str:
    """A get_weather call as the dialect's grammar generates it."""
    return written(DIALECTS[dialect], "get_weather", {"city": "Paris"})


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Serving]:
    chat_template = Path(template_path("longcat-flash-chat")).read_text(encoding="utf-8")
    xml_template = Path(template_path("xml-function-thinking")).read_text(encoding="utf-8")
    specs = {
        "longcat_chat": (LONGCAT_TAGS, chat_template, "longcat_flash"),
        "longcat_thinking": (LONGCAT_TAGS, LONGCAT_THINKING_TEMPLATE, "longcat_flash"),
        "qwen_thinking": (QWEN_TAGS, xml_template, "qwen3"),
    }
    out = {}
    for name, (tags, template, model_type) in specs.items():
        root = tmp_path_factory.mktemp(name)
        save_model_dir(root, build_tokenizer(tags, chat_template=template), model_type=model_type)
        out[name] = make_serving(root)
    return out


@dataclass(frozen=True)
class Scenario:
    name: str
    model: str
    output: str  # the model's output, valid for the request's grammar once reasoning has ended
    request: dict[str, Any] = field(default_factory=dict)
    #: how the reasoning the prompt opened ends: "tag" (its closing tag) or "call" (a call tag, also the first token
    #: of the content); None: the prompt opens no reasoning
    end: str | None = None

    def __str__(self) -> str:
        return self.name

    @property
    def forced(self) -> bool:
        choice = self.request.get("tool_choice")
        return choice == "required" or isinstance(choice, dict)


NAMED = {"type": "function", "function": {"name": "get_weather"}}
STRICT_WEATHER = {"type": "function", "function": {**WEATHER["function"], "strict": True}}
RESPONSE_FORMAT = {
    "type": "json_schema",
    "json_schema": {
        "name": "place",
        "schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
PLAN = "The user wants the weather in Paris, so I call the tool."

SCENARIOS = [
    # LongCat-Flash-Chat does not think: the grammar must apply from the first token
    Scenario("chat_required", "longcat_chat", _call("json"), {"tool_choice": "required"}),
    Scenario("chat_named", "longcat_chat", _call("json"), {"tool_choice": NAMED}),
    Scenario("chat_strict_auto", "longcat_chat", "Checking.\n" + _call("json"), {"tools": [STRICT_WEATHER]}),
    Scenario(
        "chat_single_call", "longcat_chat", _call("json"), {"tool_choice": "required", "parallel_tool_calls": False}
    ),
    Scenario("chat_response_format", "longcat_chat", CITY, {"response_format": RESPONSE_FORMAT, "tools": None}),
    # a thinking model: a forced call's grammar covers the reasoning, whichever way it ends; a JSON answer's grammar
    # applies after it
    Scenario("think_end", "qwen_thinking", PLAN + "</think>" + _call("xml"), {"tool_choice": "required"}, end="tag"),
    Scenario(
        "think_end_response_format",
        "qwen_thinking",
        PLAN + "</think>" + CITY,
        {"response_format": RESPONSE_FORMAT, "tools": None},
        end="tag",
    ),
    Scenario("tool_call_tag", "qwen_thinking", PLAN + _call("xml"), {"tool_choice": "required"}, end="call"),
    Scenario(
        "longcat_think_end",
        "longcat_thinking",
        PLAN + "</longcat_think>" + _call("json"),
        {"tool_choice": NAMED},
        end="tag",
    ),
    Scenario(
        "enable_thinking_longcat_think_end",
        "longcat_chat",
        PLAN + "</longcat_think>" + _call("json"),
        {"tool_choice": "required", "chat_template_kwargs": {"enable_thinking": True}},
        end="tag",
    ),
    Scenario(
        "longcat_tool_call_tag",
        "longcat_thinking",
        PLAN + _call("json"),
        {"tool_choice": "required"},
        end="call",
    ),
]


def _chat_request(scenario: Scenario) -> Any:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    kwargs: dict[str, Any] = {"tools": [WEATHER], **scenario.request}
    return ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "Weather in Paris?"}], **kwargs)


@dataclass
class GateCount:
    constrained: int = 0  # output tokens sampled under the grammar's mask
    fed: int = 0  # output tokens the grammar advanced over
    refused: list[int] = field(default_factory=list)  # tokens the mask forbade or the grammar rejected


class _GrammarCounter:
    """Installed on vLLM's grammar object: notes which bitmask rows it fills and how many tokens it accepts."""

    def __init__(self, grammar: Any) -> None:
        self.rows: set[int] = set()
        self.accepted = 0
        fill, accept = grammar.fill_bitmask, grammar.accept_tokens

        def fill_bitmask(bitmask: Any, index: int) -> None:
            self.rows.add(index)
            fill(bitmask, index)

        def accept_tokens(request_id: str, tokens: list[int]) -> bool:
            ok = bool(accept(request_id, tokens))
            self.accepted += len(tokens) if ok else 0
            return ok

        grammar.fill_bitmask, grammar.accept_tokens = fill_bitmask, accept_tokens


def _engine_request(serving: Serving, call: Any, server_decides: bool = True) -> tuple[Any, Any, Any]:
    """The engine core's ``StructuredOutputManager`` and ``Request`` for a call the serving layer made, with its
    compiled grammar. Without ``server_decides``, the engine checks the prompt itself (``reasoning_ended=None``)."""
    from vllm.v1.request import Request
    from vllm.v1.structured_output import StructuredOutputManager
    from vllm.v1.structured_output.backend_types import StructuredOutputGrammar

    config = serving.vllm_config
    manager = StructuredOutputManager(config)
    params = call.sampling_params.clone()
    params.verify(config.model_config, None, config.structured_outputs_config, manager.tokenizer)
    request = Request(
        "r",
        call.prompt_token_ids,
        params,
        None,
        reasoning_ended=call.kwargs.get("reasoning_ended") if server_decides else None,
        reasoning_parser_kwargs=call.kwargs.get("reasoning_parser_kwargs"),
    )
    manager.grammar_init(request)
    structured = request.structured_output_request
    assert structured is not None
    grammar = structured._grammar.result() if hasattr(structured._grammar, "result") else structured._grammar
    assert isinstance(grammar, StructuredOutputGrammar)
    return manager, request, grammar


def run_gate(serving: Serving, call: Any, output_ids: list[int], group: int, server_decides: bool = True) -> GateCount:
    """The engine core's gate over ``output_ids``, ``group`` tokens per step (``group - 1`` of them drafts)."""
    manager, request, grammar = _engine_request(serving, call, server_decides)
    counting = _GrammarCounter(grammar)
    count = GateCount()
    for start in range(0, len(output_ids), group):
        step = output_ids[start : start + group]
        drafts = step[:-1]
        assert _trim_drafts(manager)(request, drafts) == drafts, "a draft token refused"
        counting.rows.clear()
        manager.grammar_bitmask({"r": request}, ["r"], {"r": drafts} if drafts else {})
        bitmask = manager._grammar_bitmask.numpy()
        for row, token in enumerate(step):
            if row in counting.rows:
                count.constrained += 1
            if not _allows(bitmask[row], token):
                count.refused.append(token)
        for token in step:
            request.append_output_token_ids(token)
        accepted_before = counting.accepted
        if not manager.accept_tokens(request, list(step)):
            count.refused.extend(step)
        count.fed += counting.accepted - accepted_before
    return count


def end_of_turn_allowed(serving: Serving, call: Any, prefix_ids: list[int], end_of_turn: int) -> bool:
    """Whether the engine core's gate lets the model end its turn (``end_of_turn``) after ``prefix_ids``, with the
    server deciding where the grammar starts."""
    manager, request, _ = _engine_request(serving, call)
    for token in prefix_ids:
        manager.grammar_bitmask({"r": request}, ["r"], {})
        request.append_output_token_ids(token)
        assert manager.accept_tokens(request, [token]), f"token {token} refused after {prefix_ids}"
    manager.grammar_bitmask({"r": request}, ["r"], {})
    return _allows(manager._grammar_bitmask.numpy()[0], end_of_turn)


def _trim_drafts(manager: Any) -> Any:
    """The scheduler's check of draft tokens: ``trim_spec_tokens`` since vLLM 0.34, ``validate_tokens`` before."""
    return getattr(manager, "trim_spec_tokens", None) or manager.validate_tokens


def _run(serving: Serving, scenario: Scenario) -> Any:
    """The non-streaming response; the engine call it made is ``serving.engine.calls[-1]``."""
    engine = serving.engine
    engine.output, engine.finish_reason = scenario.output, "stop"
    return chat_completion(serving.chat, _chat_request(scenario))


def _allows(row: Any, token: int) -> bool:
    return bool((int(row[token >> 5]) >> (token & 31)) & 1)


@pytest.mark.parametrize("decided_by", ["server", "engine"])
@pytest.mark.parametrize("group", [1, 4])
@pytest.mark.parametrize("scenario", SCENARIOS, ids=str)
def test_grammar_applies_from_the_end_of_reasoning(
    models: dict[str, Serving], scenario: Scenario, group: int, decided_by: str
) -> None:
    serving = models[scenario.model]
    tokenizer = serving.tokenizer
    response = _run(serving, scenario)
    call = serving.engine.calls[-1]
    assert call.sampling_params.structured_outputs is not None, "the request is constrained"

    expected = parse(scenario.output, None, ParserOptions(reasoning_open=scenario.end is not None))
    output_ids = tokenizer.encode(scenario.output, add_special_tokens=False)
    reasoning_ids = tokenizer.encode(expected.reasoning, add_special_tokens=False) if expected.reasoning else []
    # a forced call's grammar covers the reasoning before it (the turn cannot end inside it): the server has it
    # applied from the first token; an engine that decides from the prompt alone starts it where reasoning ends,
    # and the same grammar takes the call there
    assert call.kwargs["reasoning_ended"] is (scenario.end is None or scenario.forced)
    from_start = scenario.end is None or (scenario.forced and decided_by == "server")

    count = run_gate(serving, call, output_ids, group, server_decides=decided_by == "server")
    assert count.refused == []
    # the token that ends reasoning is sampled before the gate knows; a call tag is fed to the grammar all the same
    first_constrained = 0 if from_start else len(reasoning_ids) + 1
    assert count.constrained == len(output_ids) - first_constrained
    assert count.fed == count.constrained + (scenario.end == "call" and not from_start)

    assert response.usage.completion_tokens_details.reasoning_tokens == len(reasoning_ids)
    assert (response.choices[0].message.reasoning or "") == expected.reasoning


@pytest.mark.parametrize(("name", "allowed"), [("think_end", True), ("think_end_response_format", False)])
def test_a_call_tag_the_grammar_cannot_start_with_is_masked_while_reasoning(
    models: dict[str, Serving], name: str, allowed: bool
) -> None:
    """A call tag ends reasoning and is the first token of the content: while reasoning, the gate forbids it when
    the grammar (here a JSON schema) cannot start with it, and allows it when it can (tool_choice=required)."""
    scenario = next(s for s in SCENARIOS if s.name == name)
    serving = models[scenario.model]
    _run(serving, scenario)
    manager, request, _ = _engine_request(serving, serving.engine.calls[-1])
    manager.grammar_bitmask({"r": request}, ["r"], {})
    row = manager._grammar_bitmask.numpy()[0]
    call_tag = serving.tokenizer.convert_tokens_to_ids("<tool_call>")
    think_end = serving.tokenizer.convert_tokens_to_ids("</think>")
    assert _allows(row, call_tag) is allowed
    assert _allows(row, think_end)


def test_the_gate_reads_its_hooks_from_our_parser() -> None:
    """vLLM 0.34's gate reads the reasoning-end hooks from any reasoning parser: ours derives from its base class.
    0.33's reads them only from a ``ParserEngineReasoningAdapter``: ours derives from it without its parser engine,
    so whatever the adapter implements through the engine must be ours."""
    from vllm.reasoning.abs_reasoning_parsers import ReasoningParser

    from longcat_plugins.vllm.reasoning_parser import LongcatReasoningParser

    hooks = {"reasoning_end_token_ids", "implicit_reasoning_end_token_ids", "find_reasoning_end"}
    assert hooks <= set(vars(LongcatReasoningParser))
    if hasattr(ReasoningParser, "find_reasoning_end"):
        assert LongcatReasoningParser.__bases__ == (ReasoningParser,)
        return
    from vllm.parser.engine.adapters import ParserEngineReasoningAdapter

    inherited = {
        name
        for name in vars(ParserEngineReasoningAdapter)
        if not name.startswith("__") and name not in ("_parser_engine_cls", "_skip_tool_parsing")
    }
    assert inherited - set(vars(LongcatReasoningParser)) == set()


def test_reasoning_opens_in_content(all_tags_tokenizer: Any) -> None:
    """Decided, not inherited: a think tag in content opens reasoning again, as the core reads it (vLLM 0.34 then
    streams a request without a tool parser through this parser to the end)."""
    from longcat_plugins.vllm.reasoning_parser import LongcatReasoningParser

    parser = LongcatReasoningParser(all_tags_tokenizer)
    assert parser.opens_reasoning_in_content is True
    message = parse("a</think>b<think>c</think>d", None, ParserOptions(reasoning_open=True, tools=False))
    assert (message.reasoning, message.content) == ("ac", "bd")


COUNT_CASES = [
    *CASES,
    Case(
        "think_tags_inside_a_call",
        'Saving.<longcat_tool_call>\n{"name": "write_file", "arguments": '
        '{"path": "a.md", "content": "<think>x</think>"}}\n</longcat_tool_call><think>done</think>',
    ),
    Case("think_tag_as_text_in_reasoning", "plan <think> more</think>answer", reasoning_open=True),
    Case("reopened", "plan</think>Hello<think>second</think>Final<tool_call>{}</tool_call>", reasoning_open=True),
    # a block naming no tool of the request is text: inside reasoning, reasoning (its tokens count)
    Case(
        "unknown_tool_inside_reasoning",
        "<think>r <tool_call><function=g><parameter=a>x</think>y</parameter></function></tool_call> more</think>ans",
    ),
    Case("unknown_tool_mentioned_in_reasoning", "<think>I could use <tool_call><function=foo> here. </think>answer"),
]


@pytest.fixture(scope="module")
def all_tags_tokenizer() -> Any:
    """Every think and call tag a single token: token ids alone can tell where reasoning ends."""
    return build_tokenizer([*SINGLE_TOKEN_TAGS, "<tool_call>", "</tool_call>", "<longcat_think>", "</longcat_think>"])


@pytest.mark.parametrize("case", COUNT_CASES, ids=[c.name for c in COUNT_CASES])
def test_reasoning_tokens_are_the_tokens_of_the_reasoning_text(all_tags_tokenizer: Any, case: Case) -> None:
    """``count_reasoning_tokens`` (usage's ``reasoning_tokens``) reads the token ids as the parser reads the text."""
    from vllm.parser.parser_manager import ParserManager

    tokenizer = all_tags_tokenizer
    parser_cls = ParserManager.get_parser(
        tool_parser_name="longcat", reasoning_parser_name="longcat", enable_auto_tools=True, tokenizer=tokenizer
    )
    parser = parser_cls(tokenizer, TOOLS, chat_template_kwargs=case.template_kwargs)
    parser.set_prompt_token_ids(tokenizer.encode(case.prompt, add_special_tokens=False))
    reasoning = core_result(case).reasoning
    expected = len(tokenizer.encode(reasoning, add_special_tokens=False)) if reasoning else 0
    assert parser.count_reasoning_tokens(tokenizer.encode(case.output, add_special_tokens=False)) == expected
