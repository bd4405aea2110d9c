"""The delta messages our tool parser builds directly are the ones ``DeltaMessage.model_validate`` makes of the same
data: the same values, the same fields set (what vLLM's ``exclude_unset`` serialization reads) and the same JSON."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.vllm

MESSAGES: list[tuple[str | None, str | None, list[Any]]] = [
    (None, None, [(0, None, None, '"abc')]),
    ("text", None, []),
    (None, "thought", []),
    ("a", "b", [(0, "call_1", "get_weather", ""), (0, None, None, '{"city": "Paris"}')]),
    (None, None, [(2, None, None, "}"), (3, "call_2", "read_file", '{"path": "\\u00e9"}')]),
]


def _state(model: Any) -> Any:
    return (type(model), model.model_fields_set, model.__pydantic_extra__, model.__pydantic_private__)


def test_the_direct_layout_is_used() -> None:
    from longcat_plugins.vllm.deltas import DIRECT

    assert DIRECT  # the models of the pinned vLLM have the layout the direct construction writes


@pytest.mark.parametrize("content, reasoning, calls", MESSAGES)
def test_direct_message_equals_validated(content: str | None, reasoning: str | None, calls: list[Any]) -> None:
    from vllm.entrypoints.generate.base.protocol import DeltaMessage

    from longcat_plugins.vllm.deltas import delta_data, delta_message

    built = delta_message(content, reasoning, calls)
    validated = DeltaMessage.model_validate(delta_data(content, reasoning, calls))
    assert built == validated
    assert _state(built) == _state(validated)
    assert [_state(c) for c in built.tool_calls] == [_state(c) for c in validated.tool_calls]
    assert [_state(c.function) for c in built.tool_calls] == [_state(c.function) for c in validated.tool_calls]
    for unset in (True, False):
        assert built.model_dump_json(exclude_unset=unset) == validated.model_dump_json(exclude_unset=unset)
    assert built.model_dump() == validated.model_dump()


def test_direct_message_stays_a_model() -> None:
    """vLLM assigns to a message it got (the flush at the end of a stream): the fields set follow, per instance."""
    from longcat_plugins.vllm.deltas import delta_message

    first = delta_message(None, None, [(0, None, None, "x")])
    second = delta_message(None, None, [(0, None, None, "y")])
    first.role = "assistant"
    first.tool_calls[0].function.name = "f"  # type: ignore[union-attr]
    assert "role" in first.model_fields_set and "role" not in second.model_fields_set
    assert "name" not in second.tool_calls[0].function.model_fields_set  # type: ignore[union-attr]
    assert first.model_dump(exclude_unset=True)["role"] == "assistant"
