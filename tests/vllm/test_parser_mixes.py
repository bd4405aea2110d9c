"""Our parsers beside vLLM's own: an operator runs our reasoning parser with a built-in tool parser, or a built-in
reasoning parser with ours. Through vLLM's own serving code (Chat Completions, streamed and not), each mix serves a
text of the built-in's dialect as the engine's built-in pair serves it (see :mod:`tests.served.mixes`). Mixes that do
not serve yet what the built-in pair serves are :data:`DEFECTS`, each with what goes wrong (strict: a fixed one fails
the run until it is taken off)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from served_vllm import VllmServers

from tests.served.cells import Cell
from tests.served.fold import FOLDS
from tests.served.mixes import TEXTS, Mix, assert_served_alike, cases, held_to_the_written_call
from tests.served.requests import request_body
from tests.served.texts import TOOLS

pytestmark = pytest.mark.vllm

#: (tool parser, reasoning parser) of the mix, the engine's built-in pair it is compared with, the texts' dialect
MIXES: list[tuple[Mix, Mix, str]] = [
    (("longcat", "longcat"), ("hermes", "qwen3"), "hermes"),
    (("longcat", "longcat"), ("qwen3_coder", "qwen3"), "xml"),
    (("hermes", "longcat"), ("hermes", "qwen3"), "hermes"),
    (("qwen3_coder", "longcat"), ("qwen3_coder", "qwen3"), "xml"),
    (("qwen3_xml", "longcat"), ("qwen3_xml", "qwen3"), "xml"),
    (("longcat", "qwen3"), ("hermes", "qwen3"), "hermes"),
    (("longcat", "qwen3"), ("qwen3_coder", "qwen3"), "xml"),
    (("longcat", "deepseek_r1"), ("hermes", "deepseek_r1"), "hermes"),
]
#: (mix, text, stream, tokens per step) -> what goes wrong
DEFECTS: dict[tuple[object, ...], str] = {}
#: (the pair's reasoning parser, text, stream) where vLLM's own pair does not keep a call's value as written: its
#: qwen3 reasoning parser drops think tags and end markers from the whole answer's content, call values included. A
#: mix with our reasoning parser is held to the value as written (with vLLM's, it loses what the pair loses).
PAIR_LOSES = {("qwen3", "tags-in-value", False): "vLLM's qwen3 reasoning parser drops </think> and <|im_end|>"}


@pytest.fixture(scope="module")
def servers() -> Iterator[VllmServers]:
    servers = VllmServers()
    yield servers
    servers.close()


def _served(servers: VllmServers, parsers: Mix, text: str, api: str, stream: bool, group: int) -> Any:
    cell = Cell(api=api, parsers="+".join(parsers), stream=stream, tokens="plain", group=group)
    body = request_body(cell, TOOLS, False, max_tokens=len(text) + 16)
    del body["chat_template_kwargs"]  # thinking as the model's template has it by default
    status, payload = servers.serve(cell, text, body)
    assert status == 200, payload
    return FOLDS[(api, stream)](payload)


@pytest.mark.parametrize(
    ("mix", "pair", "dialect", "name", "api", "stream", "group"), list(cases(MIXES, DEFECTS, (1, 3)))
)
def test_a_mix_serves_what_the_built_in_pair_serves(
    servers: VllmServers, mix: Mix, pair: Mix, dialect: str, name: str, api: str, stream: bool, group: int
) -> None:
    text = TEXTS[dialect][name]
    served, expected = _served(servers, mix, text, api, stream, group), _served(servers, pair, text, api, stream, group)
    if mix[1] == "longcat" and (pair[1], name, stream) in PAIR_LOSES:
        expected = held_to_the_written_call(expected, dialect, name)
    assert_served_alike(served, expected, mix, pair)
