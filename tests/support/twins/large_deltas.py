"""Large deltas, several events each (``--stream-interval``, a per-request ``stream_interval``, speculative decoding,
a loaded server): outputs with text inside a call (between two parameters of the first of two calls), after the
calls and between two calls, streamed in steps of 14 to 64 tokens through an engine's own serving of its APIs, equal
the core's one-pass reading of the same text (``tests/served``), and a Responses stream completes.

The importing module names its engine's matrix driver ``DRIVER``, may name the APIs to run (``APIS``, by default the
driver's) and imports ``*`` from here."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.served.cells import Cell
from tests.served.run import run_cell
from tests.served.texts import Text
from tests.support.tools import function_tool

__all__ = ["driver", "pytest_generate_tests", "test_text_beside_calls_in_large_deltas"]

WEATHER = function_tool("get_weather", {"city": {"type": "string"}, "unit": {"type": "string"}}, ["city"])
_CALLS = (
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\nI also want the unit.\n"
    "<parameter=unit>\ncelsius\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=get_weather>\n"
    "<parameter=city>\nRome\n</parameter>\n</function>\n</tool_call>"
)
_CALL = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>"
TEXTS = [
    Text("text_inside_a_call", f"Let me check both cities.\n{_CALLS}", [WEATHER]),
    Text("text_after_the_calls", f"{_CALLS}\nBoth are on their way.", [WEATHER]),
    # the newline after the text and before the next call is content too
    Text("text_between_calls", f"{_CALL}\nNow.\n{_CALL}", [WEATHER]),
]
#: the text each output's content must hold
KEPT = {
    "text_inside_a_call": "I also want the unit.",
    "text_after_the_calls": "\nBoth are on their way.",
    "text_between_calls": "\nNow.\n",
}
#: tokens per step
GROUPS = range(14, 65)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "api" in metafunc.fixturenames:
        metafunc.parametrize("api", getattr(metafunc.module, "APIS", metafunc.module.DRIVER.apis))
    if "parsers" in metafunc.fixturenames:
        metafunc.parametrize("parsers", ["both", "tool"])
    if "text" in metafunc.fixturenames:
        metafunc.parametrize("text", TEXTS, ids=str)


@pytest.fixture(scope="module")
def driver(request: pytest.FixtureRequest) -> Iterator[Any]:
    driver = request.module.DRIVER()
    yield driver
    driver.close()


def test_text_beside_calls_in_large_deltas(driver: Any, api: str, parsers: str, text: Text) -> None:
    failed = []
    for tokens in ("special", "plain", "split"):
        for group in (1, *GROUPS):
            for stream in (True, False) if group == 1 else (True,):
                cell = Cell(api=api, stream=stream, parsers=parsers, tokens=tokens, group=group)
                outcome = run_cell(driver, cell, text)
                if outcome.engine_fault or not outcome.ok:  # (an engine fault is a failure here: none may be left)
                    failed.append(str(outcome))
                else:
                    assert outcome.want is not None and KEPT[text.id] in outcome.want.content
    assert not failed, "\n".join(failed)
