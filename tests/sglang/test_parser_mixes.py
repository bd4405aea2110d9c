"""Our parsers beside SGLang's own: an operator runs our reasoning parser with a built-in tool parser, or a built-in
reasoning parser with ours. Through SGLang's own serving code (Chat Completions, streamed and not), each mix serves a
text of the built-in's dialect as the engine's built-in pair serves it: the same reasoning, content and calls.

Content is compared without the whitespace around it: the built-in tool parsers keep or trim it by conventions of
their own, and ours keeps the model's text. Mixes that do not serve yet what the built-in pair serves are
:data:`DEFECTS`, each with what goes wrong (strict: a fixed one fails the run until it is taken off)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from served_sglang import SglangDriver

from tests.served.cells import Cell
from tests.served.fold import FOLDS
from tests.served.requests import request_body
from tests.served.texts import TOOLS

pytestmark = pytest.mark.sglang

HERMES_CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}\n</tool_call>'
XML_CALL = (
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n"
    "</function>\n</tool_call>"
)
#: texts by the dialect of the tool parser that reads them
TEXTS = {
    "hermes": {
        "think-call": "<think>The user wants Paris.</think>\n\n" + HERMES_CALL,
        "think-text-call": "<think>Paris.</think>\n\nLet me check.\n" + HERMES_CALL,
        "think-answer": "<think>No tool needed.</think>\n\nIt is sunny.",
    },
    "xml": {
        "think-call": "<think>The user wants Paris.</think>\n\n" + XML_CALL,
        "think-text-call": "<think>Paris.</think>\n\nLet me check.\n" + XML_CALL,
    },
}
#: (tool parser, reasoning parser) of the mix, the engine's built-in pair it is compared with, the texts' dialect
MIXES = [
    (("qwen25", "longcat"), ("qwen25", "qwen3"), "hermes"),
    (("qwen3_coder", "longcat"), ("qwen3_coder", "qwen3"), "xml"),
    (("longcat", "qwen3"), ("qwen25", "qwen3"), "hermes"),
    (("longcat", "qwen3"), ("qwen3_coder", "qwen3"), "xml"),
    (("longcat", "deepseek-r1"), ("qwen25", "deepseek-r1"), "hermes"),
]
_DROPPED = (
    "our reasoning stage keeps a call for a tool detector of ours that is not running and hands the built-in only "
    "the text around it: the whole answer has no call and the call is not in the content"
)
_BROKEN = "streamed in 4-token steps, the content gets a fragment of the call and no call"
#: (mix, text, stream, tokens per step) -> what goes wrong
DEFECTS: dict[tuple[tuple[str, str], str, bool, int], str] = {
    **{
        (mix, name, False, group): _DROPPED
        for mix in (("qwen25", "longcat"), ("qwen3_coder", "longcat"))
        for name in ("think-call", "think-text-call")
        for group in (1, 4)
    },
    **{(mix, "think-call", True, 4): _BROKEN for mix in (("qwen25", "longcat"), ("qwen3_coder", "longcat"))},
}
GROUPS = (1, 4)


def _cases() -> Iterator[Any]:
    for mix, pair, dialect in MIXES:
        for name in TEXTS[dialect]:
            for stream in (False, True):
                for group in GROUPS:
                    defect = DEFECTS.get((mix, name, stream, group))
                    marks = [pytest.mark.xfail(reason=defect, strict=True)] if defect else []
                    case_id = f"{'+'.join(mix)}-vs-{'+'.join(pair)}-{name}-{'stream' if stream else 'whole'}-g{group}"
                    yield pytest.param(mix, pair, dialect, name, stream, group, id=case_id, marks=marks)


@pytest.fixture(scope="module")
def driver() -> Iterator[SglangDriver]:
    driver = SglangDriver()
    yield driver
    driver.close()


def _served(driver: SglangDriver, parsers: tuple[str, str], text: str, stream: bool, group: int) -> Any:
    cell = Cell(parsers="+".join(parsers), stream=stream, tokens="plain", group=group)
    body = request_body(cell, TOOLS, False, max_tokens=len(text) + 16)
    del body["chat_template_kwargs"]  # thinking as the model's template has it by default: the model opens it
    status, payload = driver.serve(cell, text, body)
    assert status == 200, payload
    return FOLDS[("chat", stream)](payload)


@pytest.mark.parametrize(("mix", "pair", "dialect", "name", "stream", "group"), list(_cases()))
def test_a_mix_serves_what_the_built_in_pair_serves(
    driver: SglangDriver,
    mix: tuple[str, str],
    pair: tuple[str, str],
    dialect: str,
    name: str,
    stream: bool,
    group: int,
) -> None:
    text = TEXTS[dialect][name]
    served, expected = _served(driver, mix, text, stream, group), _served(driver, pair, text, stream, group)
    assert not served.faults, served.faults
    assert (served.reasoning, served.content.strip(), served.calls, served.finish) == (
        expected.reasoning,
        expected.content.strip(),
        expected.calls,
        expected.finish,
    ), f"{'+'.join(mix)}: {served.describe()}\n{'+'.join(pair)}: {expected.describe()}"
