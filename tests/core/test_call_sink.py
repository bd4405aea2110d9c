"""The call sink: what a call reader reports reaches the parser in order, argument fragments joined."""

from __future__ import annotations

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
