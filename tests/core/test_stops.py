"""Which stops of a request may end its output inside a call (``longcat_plugins.core.stops``)."""

from __future__ import annotations

import pytest

from longcat_plugins.core import dialects as D
from longcat_plugins.core.stops import end_of_sequence_ids, stops_may_cut_calls
from tests.extra_dialects import DEEPSEEK_V31

VOCAB = {"<|im_end|>": 7, "</longcat_s>": 8, "<tool_call>": 9, "a": 10}


@pytest.mark.parametrize(
    ("stop_texts", "stop_token_ids", "cut"),
    [
        ((), None, False),
        ((None, None), [], False),
        (("", []), None, False),
        (("STOP",), None, True),
        ((None, ["x+"]), None, True),
        ((None,), [2, 7, 8], False),  # ends of sequence end the output where the model ends its turn
        ((None,), [2, 10], True),  # an ordinary token
        ((None,), [9], True),  # a tag that is one token
        ((None,), [11], True),  # an id the vocabulary does not name
    ],
)
def test_stops_that_may_cut_a_call(stop_texts: tuple[object, ...], stop_token_ids: list[int] | None, cut: bool) -> None:
    assert stops_may_cut_calls(stop_texts, stop_token_ids, end_of_sequence_ids(VOCAB, [2])) is cut


def test_end_of_sequence_ids() -> None:
    assert end_of_sequence_ids(VOCAB, [2, None, "x"]) == {2, 7, 8}
    assert end_of_sequence_ids({}) == frozenset()
    assert stops_may_cut_calls((), [2])  # (no end of sequence known: any stop token may cut)


def test_a_dialects_declared_end_of_sequence_is_an_end_of_sequence() -> None:
    """A dialect's own end-of-sequence token (DeepSeek-V3.1's, declared in ``tests/extra_dialects.py``) ends a turn:
    a stop on it cannot cut a call, as a stop on an ordinary token can."""
    (marker,) = DEEPSEEK_V31["end_of_sequence"]
    vocab = {marker: 5, "a": 6}
    assert marker in D.END_OF_SEQUENCE
    assert end_of_sequence_ids(vocab) == {5}
    assert not stops_may_cut_calls((), [5], end_of_sequence_ids(vocab))
    assert stops_may_cut_calls((), [6], end_of_sequence_ids(vocab))
