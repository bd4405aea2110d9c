"""The tags a grammar keeps out under ``tool_choice="none"``: derived from every dialect the parser reads."""

from __future__ import annotations

from longcat_plugins.core import dialects as D
from longcat_plugins.core import tags as T
from longcat_plugins.core.call_openers import CALL_OPENERS
from tests.extra_dialects import DECLARATIONS


def test_every_tag_that_starts_a_call_is_kept_out() -> None:
    for dialect in D.READ_DIALECTS.values():
        assert dialect.block.open in CALL_OPENERS, dialect.name
        for body in (dialect.markup, dialect.separated):
            # (a call with no tag of its own, Mistral's, stands right after its block's opening tag, kept out above)
            if body is not None and body.call_open:
                assert body.call_open in CALL_OPENERS, dialect.name
        if dialect.pairs is not None:
            assert dialect.pairs.key_open in CALL_OPENERS, dialect.name
    assert T.CALL_LIST_OPEN in CALL_OPENERS


def test_the_extra_dialects_are_read_too() -> None:
    """(the tests switch them on: ``tests/extra_dialects.py``)"""
    for declaration in DECLARATIONS:
        assert declaration["block"][0] in CALL_OPENERS


def test_nothing_else_is_kept_out() -> None:
    closers = {*D.BLOCK_CLOSES, T.FUNCTION_CLOSE, T.PARAMETER_CLOSE, T.ARG_KEY_CLOSE, T.ARG_VALUE_CLOSE}
    assert not set(CALL_OPENERS) & (closers | {*T.THINK_OPENS, *T.THINK_CLOSES, *D.END_OF_SEQUENCE})
    assert T.PARAMETER_OPEN not in CALL_OPENERS and T.ARG_VALUE_OPEN not in CALL_OPENERS
    assert len(CALL_OPENERS) == len(set(CALL_OPENERS))
    assert "" not in CALL_OPENERS  # (an empty tag kept out would refuse every text)
