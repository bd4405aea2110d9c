"""What our SGLang parsers note of a request (``longcat_plugins.sglang.request_context``): the tools its tool-call
parser is handed, and whether a stop may end its output inside a call. SGLang's Responses serving converts a
request's tools anew each time it needs them, so one request is noted several times, each note freeing the tools of
the one before."""

from __future__ import annotations

import gc
import threading
from typing import Any

import pytest

from longcat_plugins.sglang.request_context import (
    note_request,
    tool_parser_tools,
    tools_of_a_request_a_stop_may_cut,
)

pytestmark = pytest.mark.sglang


class _Request:
    def __init__(self, stop: Any = None) -> None:
        self.stop = stop
        self.tools = None


class _Tool:
    pass


def _in_a_thread(work: Any) -> None:
    """Run ``work``; fail (instead of hanging the suite) if it does not return within 10 s."""
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive(), "noting a request again deadlocked"


def test_the_last_note_of_a_request_holds() -> None:
    request = _Request(stop=["STOP"])
    kept: list[list[_Tool]] = []

    def note_twice() -> None:
        note_request(request, [_Tool(), _Tool()])  # these tools die when the next note replaces them
        gc.collect()
        tools = [_Tool()]
        note_request(request, tools)
        kept.append(tools)

    _in_a_thread(note_twice)
    (tools,) = kept
    assert tool_parser_tools(request) == tuple(tools)
    assert tools_of_a_request_a_stop_may_cut(tools)


def test_a_request_without_stop_strings_marks_no_tool() -> None:
    request = _Request()
    tools = [_Tool()]
    note_request(request, tools)
    assert tool_parser_tools(request) == tuple(tools)
    assert not tools_of_a_request_a_stop_may_cut(tools)


def test_a_freed_request_is_forgotten() -> None:
    request = _Request(stop="STOP")
    tools = [_Tool()]
    note_request(request, tools)
    del request
    gc.collect()
    later = _Request()
    assert tool_parser_tools(later) is None
    assert tools_of_a_request_a_stop_may_cut(tools)  # (the tools live on: their mark does too)
