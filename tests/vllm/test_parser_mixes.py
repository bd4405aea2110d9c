"""Our parsers beside vLLM's own: an operator runs our reasoning parser with a built-in tool parser, or a built-in
reasoning parser with ours. Through vLLM's own serving code (Chat Completions, streamed and not), each mix serves a
text of the built-in's dialect as the engine's built-in pair serves it: the same reasoning, content and calls.

Content is compared without the whitespace around it: the built-in tool parsers keep or trim it by conventions of
their own (``qwen3_coder`` strips the text before a call; ``hermes`` streams the blank line before a call, which its
whole answer drops), and ours keeps the model's text, dropping only blank content beside calls, as vLLM's whole
answer does. Mixes that do not serve yet what the built-in pair serves are :data:`DEFECTS`, each with what goes wrong
(strict: a fixed one fails the run until it is taken off)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from served_vllm import VllmServers

from tests.served.cells import Cell
from tests.served.fold import FOLDS
from tests.served.requests import request_body
from tests.served.texts import TOOLS

pytestmark = pytest.mark.vllm

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
    (("hermes", "longcat"), ("hermes", "qwen3"), "hermes"),
    (("qwen3_coder", "longcat"), ("qwen3_coder", "qwen3"), "xml"),
    (("qwen3_xml", "longcat"), ("qwen3_xml", "qwen3"), "xml"),
    (("longcat", "qwen3"), ("hermes", "qwen3"), "hermes"),
    (("longcat", "qwen3"), ("qwen3_coder", "qwen3"), "xml"),
    (("longcat", "deepseek_r1"), ("hermes", "deepseek_r1"), "hermes"),
]


#: (mix, text, stream) -> what goes wrong
DEFECTS = {
    (mix, name, True): "streamed, our reasoning parser never confirms the end of reasoning to vLLM when the tool "
    "parser is not ours: vLLM never enters its tool phase and the call arrives as content"
    for mix in (("hermes", "longcat"), ("qwen3_coder", "longcat"), ("qwen3_xml", "longcat"))
    for name in ("think-call", "think-text-call")
}


def _cases() -> Iterator[Any]:
    for mix, pair, dialect in MIXES:
        for name in TEXTS[dialect]:
            for stream in (False, True):
                mode = "stream" if stream else "whole"
                defect = DEFECTS.get((mix, name, stream))
                marks = [pytest.mark.xfail(reason=defect, strict=True)] if defect else []
                case_id = f"{'+'.join(mix)}-vs-{'+'.join(pair)}-{name}-{mode}"
                yield pytest.param(mix, pair, dialect, name, stream, id=case_id, marks=marks)


@pytest.fixture(scope="module")
def servers() -> Iterator[VllmServers]:
    servers = VllmServers()
    yield servers
    servers.close()


def _served(servers: VllmServers, parsers: tuple[str, str], text: str, stream: bool) -> Any:
    cell = Cell(parsers="+".join(parsers), stream=stream, tokens="plain")
    body = request_body(cell, TOOLS, False, max_tokens=len(text) + 16)
    del body["chat_template_kwargs"]  # thinking as the model's template has it by default: the model opens it
    status, payload = servers.serve(cell, text, body)
    assert status == 200, payload
    return FOLDS[("chat", stream)](payload)


@pytest.mark.parametrize(("mix", "pair", "dialect", "name", "stream"), list(_cases()))
def test_a_mix_serves_what_the_built_in_pair_serves(
    servers: VllmServers, mix: tuple[str, str], pair: tuple[str, str], dialect: str, name: str, stream: bool
) -> None:
    text = TEXTS[dialect][name]
    served, expected = _served(servers, mix, text, stream), _served(servers, pair, text, stream)
    assert not served.faults, served.faults
    assert (served.reasoning, served.content.strip(), served.calls, served.finish) == (
        expected.reasoning,
        expected.content.strip(),
        expected.calls,
        expected.finish,
    ), f"{'+'.join(mix)}: {served.describe()}\n{'+'.join(pair)}: {expected.describe()}"
