"""The call sink: what a call reader reports reaches the parser in order, argument fragments joined."""

from __future__ import annotations

import gc

from longcat_plugins.core.readers import CallSink, Report


def _sink() -> CallSink:
    return CallSink(lambda written: written if written == "get_weather" else None)


def test_reports_keep_their_order_and_fragments_in_a_row_are_one_report() -> None:
    sink = _sink()
    assert sink.start_call("get_weather")
    for fragment in ('{"city": ', '"Tok', "", 'yo"}'):
        sink.call_args(fragment)
    sink.content("\n")
    sink.call_args("")
    sink.end_call()
    assert sink.take() == [
        (Report.START, "get_weather"),
        (Report.ARGS, '{"city": "Tokyo"}'),
        (Report.CONTENT, "\n"),
        (Report.END, ""),
    ]
    assert sink.take() == []


def test_fragments_taken_before_the_call_ends_are_not_taken_again() -> None:
    sink = _sink()
    assert sink.start_call("get_weather")
    sink.call_args('{"city": "Pa')
    assert sink.take() == [(Report.START, "get_weather"), (Report.ARGS, '{"city": "Pa')]
    sink.call_args('ris"}')
    sink.end_call()
    assert sink.take() == [(Report.ARGS, 'ris"}'), (Report.END, "")]


def test_a_name_of_no_tool_is_not_announced() -> None:
    sink = _sink()
    assert not sink.start_call("get_time")
    assert sink.reports == []


def test_reports_waiting_to_be_taken_add_no_object_for_the_cyclic_collector() -> None:
    """A call of many parameters read in one delta leaves its reports in the sink until the parser takes them: were
    each report an object the cyclic collector tracks, every full collection during that read would walk them all,
    and the read would cost more than linear time."""
    sink = _sink()
    assert sink.start_call("get_weather")
    gc.collect()
    before = len(gc.get_objects())
    for _ in range(2000):
        sink.content("x")
        sink.call_args("y")
    gc.collect()
    assert len(gc.get_objects()) - before < 100
    reports = sink.take()
    assert len(reports) == 4001 and reports[-2:] == [(Report.CONTENT, "x"), (Report.ARGS, "y")]
