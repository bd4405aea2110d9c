"""With ``--reasoning-parser longcat --tool-call-parser longcat``, SGLang's Chat Completions serving (two stages: the
reasoning parser, then the tool-call parser on the text it leaves) serves the core's one-pass reading, streamed in
any split and whole: outputs that two stages read otherwise (``longcat_plugins/sglang/one_pass.py``)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_sglang_serving_chat import (
    OPENING_TEMPLATE,
    ScriptedTokenizerManager,
    _serving_chat,
    build_tokenizer,
    chat,
    fold_sse,
    pieces_of,
    server_args,
    serving,
)

from longcat_plugins.core import ParsedMessage, ParserOptions, parse

pytestmark = pytest.mark.sglang

__all__ = ["server_args", "serving"]  # (the fixtures)


def _tool(name: str, properties: dict[str, Any] | None = None) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties or {}}
    return {"type": "function", "function": {"name": name, "parameters": schema}}


#: (output, the request's tool names): outputs two stages read otherwise than one pass
TWO_STAGES_DIFFER = [
    # an end-of-sequence marker ends an unclosed call in one pass (the reasoning stage drops it)
    ("<function=f><|im_end|>l\n", ["f"]),
    # a think tag in the value of a call that has no opening tag (a call only because it names a declared tool)
    ("get<longcat_arg_key>k</longcat_arg_key><longcat_arg_value><think></longcat_arg_value>", ["get"]),
    # a block naming no declared tool is text: a think block after it is reasoning
    ("<function=e><longcat_think>hmm</longcat_think>ok", ["x"]),
    ("<function=e><longcat_think>", ["x"]),
]
SPLITS = [1, 4, 7, None]  # characters per step; None: the whole output in one step


def _one_pass(text: str, tools: list[dict[str, Any]], reasoning_open: bool = False) -> ParsedMessage:
    return parse(text, tools, ParserOptions(reasoning_open=reasoning_open))


def _two_stages(text: str, tools: list[dict[str, Any]]) -> tuple[str, str, list[tuple[str, str]]]:
    first = parse(text, None, ParserOptions(tools=False))
    second = parse(first.content, tools, ParserOptions(reasoning=False))
    return second.content, first.reasoning, [(c.name, c.arguments) for c in second.tool_calls]


def _summary(message: ParsedMessage) -> tuple[str, str, list[tuple[str, Any]]]:
    return message.content, message.reasoning, [(c.name, json.loads(c.arguments)) for c in message.tool_calls]


@pytest.mark.parametrize(("text", "names"), TWO_STAGES_DIFFER)
def test_the_outputs_are_read_otherwise_in_two_stages(text: str, names: list[str]) -> None:
    tools = [_tool(n) for n in names]
    one = _one_pass(text, tools)
    assert _two_stages(text, tools) != (one.content, one.reasoning, [(c.name, c.arguments) for c in one.tool_calls])


@pytest.mark.parametrize("size", SPLITS, ids=lambda s: "whole" if s is None else f"{s}-chars")
@pytest.mark.parametrize(("text", "names"), TWO_STAGES_DIFFER)
def test_stream_is_the_one_pass_reading(serving, text: str, names: list[str], size: int | None) -> None:
    serving_chat, manager = serving
    tools = [_tool(n) for n in names]
    manager.script([text] if size is None else pieces_of(text, size))
    result = fold_sse(chat(serving_chat, stream=True, tools=tools))
    calls = [(c["name"], json.loads(c["arguments"])) for c in result["calls"]]
    served = (result["content"], result["reasoning"], calls)
    assert served == _summary(_one_pass(text, tools))
    assert result["finish_reason"] == ("tool_calls" if served[2] else "stop")


@pytest.mark.parametrize(("text", "names"), TWO_STAGES_DIFFER)
def test_whole_answer_is_the_one_pass_reading(serving, text: str, names: list[str]) -> None:
    serving_chat, manager = serving
    tools = [_tool(n) for n in names]
    manager.script([text])
    message = chat(serving_chat, stream=False, tools=tools).choices[0].message
    calls = [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []]
    assert (message.content, message.reasoning_content or "", calls) == _summary(_one_pass(text, tools))


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
def test_reasoning_the_template_opened(server_args, stream: bool) -> None:
    """The output starts inside reasoning: a block naming no declared tool is reasoning text, not a call block."""
    manager = ScriptedTokenizerManager(server_args, build_tokenizer(OPENING_TEMPLATE))
    serving_chat = _serving_chat(manager)
    text = "<longcat_tool_call>e<tool_call>"
    tools = [_tool("x")]
    manager.script(pieces_of(text, 3))
    response = chat(serving_chat, stream=stream, tools=tools)
    expected = _one_pass(text, tools, reasoning_open=True)
    assert expected.reasoning == text
    if stream:
        result = fold_sse(response)
        assert (result["content"], result["reasoning"], result["calls"]) == ("", text, [])
    else:
        message = response.choices[0].message
        assert (message.content, message.reasoning_content, message.tool_calls) == ("", text, None)


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
def test_a_call_and_reasoning_with_stop_strings(serving, stream: bool) -> None:
    """A request with stop strings: a call the output ends in comes back as text (as the tool-call parser reads it
    alone), reasoning before it as reasoning."""
    serving_chat, manager = serving
    tools = [_tool("f", {"a": {"type": "string"}})]
    text = "<think>plan</think>ok <function=f>\n<parameter=a>\nv"
    manager.script(pieces_of(text, 5))
    response = chat(serving_chat, stream=stream, tools=tools, stop=["STOP"])
    expected = parse(text, tools, ParserOptions(cut_calls_as_text=True))
    assert (expected.reasoning, expected.tool_calls) == ("plan", [])
    if stream:
        result = fold_sse(response)
        assert (result["content"], result["reasoning"], result["calls"]) == (expected.content, "plan", [])
    else:
        message = response.choices[0].message
        assert (message.content, message.reasoning_content, message.tool_calls) == (expected.content, "plan", None)


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
def test_separate_reasoning_off_reads_reasoning_as_text(serving, stream: bool) -> None:
    """``separate_reasoning=false``: SGLang runs no reasoning parser; the tool-call parser reads think tags as text."""
    serving_chat, manager = serving
    tools = [_tool("f")]
    text = "<think>plan</think><function=f>\n</function>"
    manager.script(pieces_of(text, 4))
    response = chat(serving_chat, stream=stream, tools=tools, separate_reasoning=False)
    if stream:
        result = fold_sse(response)
        assert (result["content"], result["reasoning"]) == ("<think>plan</think>", "")
        assert [c["name"] for c in result["calls"]] == ["f"]
    else:
        message = response.choices[0].message
        assert (message.content, message.reasoning_content) == ("<think>plan</think>", None)
        assert [c.function.name for c in message.tool_calls] == ["f"]


class _TwoChoices(ScriptedTokenizerManager):
    """Generates two choices (``n=2``), their steps interleaved as SGLang reports them."""

    outputs: tuple[str, str] = ("", "")

    def generate_request(self, obj: Any, request: Any = None) -> Any:
        self.requests.append(obj)
        per_choice = []
        for index, output in enumerate(self.outputs):
            self.script(pieces_of(output, 3 + index))
            per_choice.append([{**step, "index": index} for step in self.steps])
        steps = [step for group in zip(*per_choice, strict=False) for step in group]
        steps += [step for choice in per_choice for step in choice[len(min(per_choice, key=len)) :]]

        async def replay() -> Any:
            if not obj.stream:
                yield [choice[-1] for choice in per_choice]
                return
            for step in steps:
                yield step

        return replay()


def _fold_choices(frames: list[str]) -> dict[int, dict[str, Any]]:
    out: dict[int, dict[str, Any]] = {}
    for frame in frames[:-1]:
        for choice in json.loads(frame[len("data: ") :])["choices"]:
            folded = out.setdefault(choice["index"], {"content": "", "reasoning": "", "calls": []})
            delta = choice["delta"]
            folded["content"] += delta.get("content") or ""
            folded["reasoning"] += delta.get("reasoning_content") or ""
            for call in delta.get("tool_calls") or []:
                if call["function"]["name"]:
                    folded["calls"].append([call["function"]["name"], ""])
                folded["calls"][call["index"]][1] += call["function"]["arguments"] or ""
    return out


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
def test_each_choice_is_read_with_its_own_reading(server_args, stream: bool) -> None:
    """``n=2``: the two choices' readings do not mix (each tool stage takes the reading of its own choice)."""
    manager = _TwoChoices(server_args, build_tokenizer())
    serving_chat = _serving_chat(manager)
    manager.outputs = TWO_STAGES_DIFFER[1][0], "<think>why</think>Fine.<function=get>\n</function>"
    tools = [_tool("get")]
    response = chat(serving_chat, stream=stream, tools=tools, n=2)
    if stream:
        folded = _fold_choices(response)
        served = [
            (f["content"], f["reasoning"], [(name, json.loads(args)) for name, args in f["calls"]])
            for _, f in sorted(folded.items())
        ]
    else:
        served = [
            (
                c.message.content,
                c.message.reasoning_content or "",
                [(t.function.name, json.loads(t.function.arguments)) for t in c.message.tool_calls or []],
            )
            for c in response.choices
        ]
    assert served == [_summary(_one_pass(output, tools)) for output in manager.outputs]


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
def test_force_nonempty_content_as_without_tools(serving, stream: bool) -> None:
    """``force_nonempty_content``: an output with only reasoning gives it as the content too, with tools (one pass)
    as without."""
    serving_chat, manager = serving
    text = "<think>Only thoughts.</think>"

    def served(tools: list[dict[str, Any]] | None) -> Any:
        manager.script(pieces_of(text, 4))
        kwargs = {"chat_template_kwargs": {"force_nonempty_content": True}}
        response = chat(serving_chat, stream=stream, tools=tools, **kwargs)
        if stream:
            result = fold_sse(response)
            return result["content"], result["reasoning"], result["calls"]
        message = response.choices[0].message
        return message.content, message.reasoning_content, message.tool_calls

    with_tools = served([_tool("f")])
    assert with_tools == served(None)
    assert with_tools[0] == "Only thoughts."


@pytest.fixture(scope="module")
def served_driver() -> Any:
    from served_sglang import SglangDriver

    driver = SglangDriver()
    yield driver
    driver.close()


@pytest.mark.parametrize("size", [1, 4, None], ids=lambda s: "whole-step" if s is None else f"{s}-tokens")
@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize(("text", "names"), TWO_STAGES_DIFFER)
def test_responses_serve_the_one_pass_reading(
    served_driver: Any, text: str, names: list[str], stream: bool, size: int | None
) -> None:
    """SGLang's Responses serving chains the same two stages: it is read in one pass too (the reasoning stage leaves
    the tool stage text to run on when the reading holds calls and no content)."""
    from tests.served.cells import Cell
    from tests.served.fold import FOLDS
    from tests.served.requests import request_body

    cell = Cell(api="responses", stream=stream, group=size or 10_000)
    tools = [_tool(n) for n in names]
    body = request_body(cell, tools, False, max_tokens=10_000)
    status, payload = served_driver.serve(cell, text, body)
    assert status == 200, payload
    served = FOLDS[("responses", stream)](payload)
    assert not served.faults
    assert (served.content, served.reasoning, [(n, a) for n, a in served.calls]) == _summary(_one_pass(text, tools))
    assert served.finish == "completed"


def test_a_responses_call_cut_by_a_stop_string_is_text(served_driver: Any) -> None:
    """A Responses request with stop strings: the call the output ends in comes back as text, as in Chat
    Completions (the tools the Responses serving converts are the ones marked). The whole answer: how much of a stop
    string a stream shows before it is complete is up to SGLang's detokenizer, which the served driver does not
    model."""
    from tests.served.cells import Cell
    from tests.served.fold import FOLDS
    from tests.served.requests import request_body

    tools = [_tool("f", {"a": {"type": "string"}})]
    text = "<think>plan</think>ok <function=f>\n<parameter=a>\nvSTOP more"
    cell = Cell(api="responses", finish="stop", group=3)
    body = request_body(cell, tools, False, max_tokens=10_000, stop="STOP", cut=True)
    status, payload = served_driver.serve(cell, text, body)
    assert status == 200, payload
    served = FOLDS[("responses", False)](payload)
    expected = parse(text[: text.index("STOP")], tools, ParserOptions(cut_calls_as_text=True))
    assert expected.content.endswith("<parameter=a>\nv")
    assert (served.content, served.reasoning, served.calls) == (expected.content, "plan", ())
