"""Our parsers beside SGLang's own: an operator runs our reasoning parser with a built-in tool parser, or a built-in
reasoning parser with ours. Through SGLang's own serving code (Chat Completions, streamed and not, 1 and 4 tokens per
step), each mix serves a text of the built-in's dialect as the engine's built-in pair serves it (see
:mod:`tests.served.mixes`). Mixes that do not serve yet what the built-in pair serves are :data:`DEFECTS`, each with
what goes wrong (strict: a fixed one fails the run until it is taken off)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from served_sglang import SglangDriver

from tests.served.cells import Cell
from tests.served.fold import FOLDS
from tests.served.mixes import TEXTS, Mix, assert_served_alike, cases, held_to_the_written_content
from tests.served.requests import request_body
from tests.served.texts import TOOLS

pytestmark = pytest.mark.sglang

#: (tool parser, reasoning parser) of the mix, the engine's built-in pair it is compared with, the texts' dialect
MIXES: list[tuple[Mix, Mix, str]] = [
    (("longcat", "longcat"), ("qwen25", "qwen3"), "hermes"),
    (("longcat", "longcat"), ("qwen3_coder", "qwen3"), "xml"),
    (("qwen25", "longcat"), ("qwen25", "qwen3"), "hermes"),
    (("qwen3_coder", "longcat"), ("qwen3_coder", "qwen3"), "xml"),
    (("longcat", "qwen3"), ("qwen25", "qwen3"), "hermes"),
    (("longcat", "qwen3"), ("qwen3_coder", "qwen3"), "xml"),
    (("longcat", "deepseek-r1"), ("qwen25", "deepseek-r1"), "hermes"),
]
DEFECTS: dict[tuple[object, ...], str] = {}


@pytest.fixture(scope="module")
def driver() -> Iterator[SglangDriver]:
    driver = SglangDriver()
    yield driver
    driver.close()


def _served(driver: SglangDriver, parsers: Mix, text: str, api: str, stream: bool, group: int) -> Any:
    cell = Cell(api=api, parsers="+".join(parsers), stream=stream, tokens="plain", group=group)
    body = request_body(cell, TOOLS, False, max_tokens=len(text) + 16)
    del body["chat_template_kwargs"]  # thinking as the model's template has it by default
    status, payload = driver.serve(cell, text, body)
    assert status == 200, payload
    return FOLDS[(api, stream)](payload)


@pytest.mark.parametrize(
    ("mix", "pair", "dialect", "name", "api", "stream", "group"), list(cases(MIXES, DEFECTS, (1, 4)))
)
def test_a_mix_serves_what_the_built_in_pair_serves(
    driver: SglangDriver, mix: Mix, pair: Mix, dialect: str, name: str, api: str, stream: bool, group: int
) -> None:
    text = TEXTS[dialect][name]
    served = _served(driver, mix, text, api, stream, group)
    expected = held_to_the_written_content(_served(driver, pair, text, api, stream, group), served, mix, name)
    assert_served_alike(served, expected, mix, pair)
