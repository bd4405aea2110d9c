"""vLLM's Rust OpenAI frontend serving LongCat and Qwen3 outputs with the package's own response templates
(``longcat_plugins/response_templates``), compared with the core's one-pass reading, with the official openai client.

One ``VLLM_USE_RUST_FRONTEND=1 vllm serve`` per template of :data:`CASES`: the Rust frontend (``vllm-rs``, from the
vLLM wheel, its ``hf`` parsers executing the template) in front of vLLM's Python engine core on its CPU platform,
whose executor answers from a recording instead of running a model (``scripted_executor.py``). The model directory
carries the template, the shipped chat template that writes its turn, and a tokenizer trained on the spot with the
template's tags as special tokens (``rust_support.build_model_dir``).

The reference is the core's reading of the recorded output (``longcat_plugins.core.parse``, reasoning split, the
output starting inside reasoning when the prompt the engine received opened it). What the client receives, streamed
and not, equals it but for :data:`DIFFERENCES`, each asserted where it applies.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

import pytest

from longcat_plugins.core import Event, ParserOptions, StreamParser, ToolCallArgs, parse
from longcat_plugins.core.prompt import prompt_opens_reasoning
from tests.e2e.replay_support import fold_chunks, fold_response, read_stream
from tests.rust_frontend.rust_support import (
    MODEL,
    TEMPLATE_LOADED,
    RustServer,
    build_model_dir,
    rust_binary,
    rust_frontend,
)
from tests.support.tools import get_weather

#: Where vLLM's Rust frontend (0.33, 0.34) serves otherwise than the core reads: difference -> what it is and why.
DIFFERENCES: Final = {
    "arguments in one piece": "a streamed call's arguments arrive in one fragment, once the call is read whole; the "
    "core streams them as they are generated",
    "another dialect dropped": "under a JSON template, a call in another dialect (an XML `<function=...>` call in "
    "`<tool_call>`) is dropped with its text: the region its literal opening tag starts is no JSON, the frontend "
    "gives up on it; the content before it keeps its whitespace",
    "another dialect as content": "under the XML template, a JSON call in `<tool_call>` is content, verbatim (the "
    "call's open pattern, `<tool_call>` then `<function=`, does not match); under longcat-kv, a LongCat JSON call "
    "likewise (its name pattern stops at `{`)",
    "cut call dropped": "under a JSON template, a call cut by max_tokens is dropped with its text (the core returns "
    "what it read of it); the content before it keeps its whitespace",
    "forced tool choice unconstrained": 'tool_choice "required" and a named tool are accepted (vLLM\'s Python `hf` '
    "parser refuses them) and reach the engine with no constraint; a named tool's call finishes with `stop`",
    "parallel_tool_calls=false keeps the first call": "parallel_tool_calls=false is accepted, reaches the engine with "
    "no constraint, and the calls after the first are dropped",
}

BINARY = rust_binary()

pytestmark = [
    pytest.mark.vllm,
    pytest.mark.skipif(BINARY is None, reason="this vLLM wheel ships no Rust frontend binary (vllm/vllm-rs)"),
]

TOOLS = [get_weather()]
#: the Rust frontend's warning when the template's turn is not in the prompt (it then reads from its initial state)
ANCHOR_MISSING = "response_template start anchor not found in the prompt"
THINKING_OFF = {"extra_body": {"chat_template_kwargs": {"enable_thinking": False}}}


@dataclass(frozen=True)
class Case:
    """A response template served with outputs in its dialect, as its models write them."""

    template: str
    #: reasoning, a sentence, two calls (the second with a non-ASCII value)
    two_calls: str
    #: what the core reads in the two calls
    arguments: tuple[dict[str, Any], dict[str, Any]]
    #: a sentence and a call, no reasoning (asked with thinking off), and what the core reads in the call
    no_reasoning: str
    no_reasoning_arguments: dict[str, Any]
    #: reasoning, a sentence and a call in another dialect than the template's, which the core reads as a call
    other_dialect: str
    #: how the frontend reads that call (a key of DIFFERENCES)
    other_difference: str
    #: what the prompt's turn says of reasoning (``prompt_opens_reasoning``), with thinking on and off
    prompt_reasoning: tuple[bool | None, bool | None]
    #: max_tokens cuts ``two_calls`` before this text (in the first call's second value)
    cut_before: str
    #: how the frontend reads the cut call (a key of DIFFERENCES; None: as the core reads it)
    cut_difference: str | None


CASES: Final = {
    case.template: case
    for case in (
        Case(
            "qwen3-tools-first",
            two_calls="<think>Two cities, so two calls.</think>I'll check both cities.\n"
            '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}\n</tool_call>\n'
            '<tool_call>\n{"arguments": {"city": "東京", "days": 2}, "name": "get_weather"}\n</tool_call>',
            arguments=({"city": "Paris", "unit": "celsius"}, {"city": "東京", "days": 2}),
            no_reasoning="I'll check Paris.\n"
            '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
            no_reasoning_arguments={"city": "Paris"},
            other_dialect="<think>One city.</think>Checking the weather.\n"
            "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
            other_difference="another dialect dropped",
            prompt_reasoning=(None, False),
            cut_before="celsius",
            cut_difference="cut call dropped",
        ),
        Case(
            "xml-function-thinking",
            # the chat template pre-opens `<think>\n`: the output starts inside reasoning
            two_calls="Two cities, so two calls.\n</think>\n\nI'll check both cities.\n"
            "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
            "<parameter=unit>\ncelsius\n</parameter>\n</function>\n</tool_call>\n"
            "<tool_call>\n<function=get_weather>\n<parameter=city>\n東京\n</parameter>\n"
            "<parameter=days>\n2\n</parameter>\n</function>\n</tool_call>",
            arguments=({"city": "Paris", "unit": "celsius"}, {"city": "東京", "days": 2}),
            # real Qwen3-Coder output: a bare `<function=` block, an orphan `</tool_call>`
            no_reasoning="I'll check Paris.\n"
            "<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
            no_reasoning_arguments={"city": "Paris"},
            other_dialect="One city.\n</think>\n\nChecking the weather.\n"
            '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
            other_difference="another dialect as content",
            prompt_reasoning=(True, False),
            cut_before="celsius",
            cut_difference=None,
        ),
        Case(
            "longcat-kv",
            # the name on the open tag's line, then on its own line; values typed by the schema
            two_calls="<longcat_think>Two cities, so two calls.</longcat_think>I'll check both cities.\n"
            "<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n"
            "<longcat_arg_value>Paris</longcat_arg_value>\n<longcat_arg_key>days</longcat_arg_key>\n"
            "<longcat_arg_value>3</longcat_arg_value>\n</longcat_tool_call>\n"
            "<longcat_tool_call>\nget_weather\n<longcat_arg_key>city</longcat_arg_key>\n"
            "<longcat_arg_value>東京</longcat_arg_value>\n</longcat_tool_call>",
            arguments=({"city": "Paris", "days": 3}, {"city": "東京"}),
            # a string the schema keeps a string, though it reads as a number
            no_reasoning="I'll check Paris.\n<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n"
            "<longcat_arg_value>75001</longcat_arg_value>\n</longcat_tool_call>",
            no_reasoning_arguments={"city": "75001"},
            other_dialect="<longcat_think>One city.</longcat_think>Checking the weather.\n"
            '<longcat_tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</longcat_tool_call>',
            other_difference="another dialect as content",
            # LongCat's turn has no thinking switch and no think tag
            prompt_reasoning=(None, None),
            cut_before="3</longcat_arg_value>",
            cut_difference=None,
        ),
    )
}


@dataclass(frozen=True)
class Reading:
    """A message as the client sees it: the calls' arguments as JSON values."""

    content: str
    reasoning: str
    calls: tuple[tuple[str, Any], ...]
    finish_reason: str | None


@dataclass(frozen=True)
class Answer:
    reading: Reading
    #: what the engine received for it (the executor's record: its prompt, its constraint...)
    request: dict[str, Any]
    chunks: list[Any] | None

    @property
    def prompt(self) -> str:
        return str(self.request["prompt"])


def core_options(prompt: str) -> ParserOptions:
    """The core's options for an output of ``prompt``: reasoning split, starting inside it if ``prompt`` opened it."""
    return ParserOptions(reasoning=True, reasoning_open=prompt_opens_reasoning(prompt) is True)


def core_reading(output: str, prompt: str) -> Reading:
    """The core's one-pass reading of ``output``, an output of ``prompt``."""
    message = parse(output, TOOLS, core_options(prompt))
    calls = tuple((call.name, json.loads(call.arguments)) for call in message.tool_calls)
    return Reading(message.content, message.reasoning, calls, "tool_calls" if calls else "stop")


def with_calls(reading: Reading, calls: tuple[tuple[str, Any], ...]) -> Reading:
    return replace(reading, calls=calls, finish_reason="tool_calls" if calls else "stop")


# -- the served model ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=list(CASES))
def case(request: pytest.FixtureRequest) -> Case:
    return CASES[request.param]


@pytest.fixture(scope="module")
def model_dir(case: Case, tmp_path_factory: pytest.TempPathFactory) -> Path:
    recording = [
        {"when": "[two-calls]", "output": case.two_calls},
        {"when": "[no-reasoning]", "output": case.no_reasoning},
        {"when": "[other-dialect]", "output": case.other_dialect},
    ]
    return build_model_dir(tmp_path_factory.mktemp(case.template) / "model", case.template, recording)


@pytest.fixture(scope="module")
def server(model_dir: Path) -> Iterator[RustServer]:
    with rust_frontend(model_dir) as running:
        yield running


@pytest.fixture(scope="module")
def client(server: RustServer) -> Any:
    from openai import OpenAI

    return OpenAI(base_url=server.base_url, api_key="EMPTY", max_retries=0, timeout=60)


def ask(server: RustServer, client: Any, key: str, **kwargs: Any) -> Answer:
    """A question the executor answers with the recorded output for ``key``, with the weather tool."""
    messages = [{"role": "user", "content": f"Weather in Paris and Tokyo? {key}"}]
    answer = client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS, **kwargs)
    chunks = read_stream(answer) if kwargs.get("stream") else None
    folded = fold_response(answer) if chunks is None else fold_chunks(chunks)
    assert len(set(folded.ids)) == len(folded.calls) and all(folded.ids)
    calls = tuple((name, json.loads(arguments)) for name, arguments in folded.calls)
    reading = Reading(folded.content, folded.reasoning, calls, folded.finish_reason)
    response_id = answer.id if chunks is None else chunks[0].id
    return Answer(reading, server.engine_request(response_id), chunks)


def expected_other_dialect(case: Case, prompt: str) -> Reading:
    """What the frontend serves for ``case.other_dialect``: the core's reading, the difference applied."""
    core = core_reading(case.other_dialect, prompt)
    assert [name for name, _ in core.calls] == ["get_weather"]  # the core reads the call
    difference = case.other_difference
    assert difference in DIFFERENCES
    if difference == "another dialect dropped":
        return with_calls(core, ())
    if difference == "another dialect as content":
        start = min(
            case.other_dialect.find(tag) for tag in ("<tool_call>", "<longcat_tool_call>") if tag in case.other_dialect
        )
        return with_calls(replace(core, content=core.content + case.other_dialect[start:]), ())
    raise AssertionError(difference)


def expected_cut(case: Case, generated: str, prompt: str) -> Reading:
    """What the frontend serves for the first ``max_tokens`` tokens of ``case.two_calls``, ``generated``: the core's
    reading, the difference applied."""
    core = core_reading(generated, prompt)
    (_, arguments), *_ = core.calls
    assert len(core.calls) == 1 and list(arguments.values())[-1] == ""  # the core reads what there is of the call
    if case.cut_difference is None:
        return replace(core, finish_reason="length")
    assert case.cut_difference == "cut call dropped"
    return replace(core, calls=(), finish_reason="length")


def argument_fragments(chunks: list[Any]) -> dict[int, int]:
    """How many fragments of each call's arguments a stream held."""
    counts: dict[int, int] = {}
    for chunk in chunks:
        for choice in chunk.choices:
            for call in choice.delta.tool_calls or []:
                if call.function is not None and call.function.arguments:
                    counts[call.index] = counts.get(call.index, 0) + 1
    return counts


def core_argument_fragments(model_dir: Path, output: str, prompt: str) -> dict[int, int]:
    """How many fragments of each call's arguments the core streams, fed ``output`` token by token."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    ids = tokenizer.encode(output, add_special_tokens=False).ids
    parser = StreamParser(TOOLS, core_options(prompt))
    events: list[Event] = []
    sent = 0
    for n in range(1, len(ids) + 1):
        text = tokenizer.decode(ids[:n], skip_special_tokens=False)
        if not text.endswith("\ufffd"):  # a character whose bytes are not all decoded yet
            events += parser.feed(text[sent:])
            sent = len(text)
    events += parser.finish()
    counts: dict[int, int] = {}
    for event in events:
        if isinstance(event, ToolCallArgs):
            counts[event.index] = counts.get(event.index, 0) + 1
    return counts


def test_models_endpoint(server: RustServer, client: Any) -> None:
    assert [m.id for m in client.models.list().data] == [MODEL]
    log = server.log_text()
    assert TEMPLATE_LOADED in log
    assert "vllm-rs frontend" in log  # vllm serve launched the Rust frontend, not the Python API server


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_two_calls(server: RustServer, client: Any, model_dir: Path, case: Case, stream: bool) -> None:
    answer = ask(server, client, "[two-calls]", stream=stream)
    assert prompt_opens_reasoning(answer.prompt) is case.prompt_reasoning[0]
    expected = core_reading(case.two_calls, answer.prompt)
    assert expected.calls == (("get_weather", case.arguments[0]), ("get_weather", case.arguments[1]))
    assert expected.reasoning.strip() == "Two cities, so two calls."
    assert answer.reading == expected
    assert ANCHOR_MISSING not in server.log_text()
    if answer.chunks is not None:
        assert argument_fragments(answer.chunks) == {0: 1, 1: 1}, DIFFERENCES["arguments in one piece"]
        # the core streams the first call's arguments as they come (the second's wait for its name, written last in
        # the JSON one)
        assert core_argument_fragments(model_dir, case.two_calls, answer.prompt)[0] > 1


def test_thinking_off(server: RustServer, client: Any, case: Case) -> None:
    for stream in (False, True):
        answer = ask(server, client, "[no-reasoning]", stream=stream, **THINKING_OFF)
        assert prompt_opens_reasoning(answer.prompt) is case.prompt_reasoning[1]
        expected = core_reading(case.no_reasoning, answer.prompt)
        assert expected.calls == (("get_weather", case.no_reasoning_arguments),) and not expected.reasoning
        assert answer.reading == expected


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_call_in_another_dialect(server: RustServer, client: Any, case: Case, stream: bool) -> None:
    answer = ask(server, client, "[other-dialect]", stream=stream)
    assert answer.reading == expected_other_dialect(case, answer.prompt), DIFFERENCES[case.other_difference]


def test_concurrent_requests_get_their_own_outputs(server: RustServer, client: Any, case: Case) -> None:
    asked = [("[two-calls]", False), ("[other-dialect]", True), ("[two-calls]", True), ("[other-dialect]", False)] * 2
    with ThreadPoolExecutor(len(asked)) as pool:
        answers = list(pool.map(lambda a: ask(server, client, a[0], stream=a[1]), asked))
    for (key, _), answer in zip(asked, answers, strict=True):
        if key == "[two-calls]":
            assert answer.reading == core_reading(case.two_calls, answer.prompt)
        else:
            assert answer.reading == expected_other_dialect(case, answer.prompt)


@pytest.mark.parametrize(
    ("tool_choice", "finish_reason"),
    [("required", "tool_calls"), ({"type": "function", "function": {"name": "get_weather"}}, "stop")],
    ids=["required", "named"],
)
def test_forced_tool_choice_is_not_refused_nor_constrained(
    server: RustServer, client: Any, case: Case, tool_choice: Any, finish_reason: str
) -> None:
    reason = DIFFERENCES["forced tool choice unconstrained"]
    for stream in (False, True):
        answer = ask(server, client, "[two-calls]", stream=stream, tool_choice=tool_choice)
        assert answer.request["structured_outputs"] is None, reason
        expected = core_reading(case.two_calls, answer.prompt)
        assert answer.reading == replace(expected, finish_reason=finish_reason), reason


def test_parallel_tool_calls_false_keeps_the_first_call(server: RustServer, client: Any, case: Case) -> None:
    reason = DIFFERENCES["parallel_tool_calls=false keeps the first call"]
    for stream in (False, True):
        answer = ask(server, client, "[two-calls]", stream=stream, parallel_tool_calls=False)
        assert answer.request["structured_outputs"] is None, reason
        expected = core_reading(case.two_calls, answer.prompt)
        assert answer.reading == with_calls(expected, expected.calls[:1]), reason


def test_a_call_cut_by_max_tokens(server: RustServer, client: Any, model_dir: Path, case: Case) -> None:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    ids = tokenizer.encode(case.two_calls, add_special_tokens=False).ids
    cut = case.two_calls.index(case.cut_before)
    inside = max(n for n in range(len(ids)) if len(tokenizer.decode(ids[:n], skip_special_tokens=False)) <= cut)
    generated = tokenizer.decode(ids[:inside], skip_special_tokens=False)
    for stream in (False, True):
        answer = ask(server, client, "[two-calls]", max_tokens=inside, stream=stream)
        assert answer.reading == expected_cut(case, generated, answer.prompt), case.cut_difference
