"""The results our detector builds directly are the ones SGLang's validating constructors make of the same data: the
same values, the same fields set (what an ``exclude_unset`` dump reads) and the same JSON; and a model laid out
otherwise is built by validation."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.sglang

ITEMS: list[tuple[int, str, Any]] = [(0, '"abc', ...), (1, "", "get_weather"), (2, '{"a": "\\u00e9"}', None)]
RESULTS: list[dict[str, Any]] = [{}, {"normal_text": "text"}, {"calls": "items"}, {"normal_text": "", "calls": "items"}]


def _state(model: Any) -> Any:
    return (type(model), model.model_fields_set, model.__pydantic_extra__, model.__pydantic_private__)


def _same(built: Any, validated: Any) -> None:
    assert built == validated
    assert _state(built) == _state(validated)
    for unset in (True, False):
        assert built.model_dump_json(exclude_unset=unset) == validated.model_dump_json(exclude_unset=unset)


def test_the_direct_layout_is_used() -> None:
    from longcat_plugins.sglang.results import DIRECT

    assert DIRECT  # the models of the pinned SGLang have the layout the direct construction writes


@pytest.mark.parametrize("index, parameters, name", ITEMS)
def test_direct_item_equals_validated(index: int, parameters: str, name: Any) -> None:
    from sglang.srt.function_call.core_types import ToolCallItem

    from longcat_plugins.sglang.results import call_item

    named = {} if name is ... else {"name": name}
    _same(call_item(index, parameters, name), ToolCallItem(tool_index=index, parameters=parameters, **named))


@pytest.mark.parametrize("given", RESULTS)
def test_direct_result_equals_validated(given: dict[str, Any]) -> None:
    from sglang.srt.function_call.core_types import StreamingParseResult, ToolCallItem

    from longcat_plugins.sglang.results import call_item, parse_result

    if "calls" in given:
        given = {**given, "calls": [call_item(0, "x"), call_item(1, "{", "f")]}
        validated_calls = [
            ToolCallItem(tool_index=0, parameters="x"),
            ToolCallItem(tool_index=1, name="f", parameters="{"),
        ]
        validated = StreamingParseResult(**{**given, "calls": validated_calls})
    else:
        validated = StreamingParseResult(**given)
    built = parse_result(**given)
    _same(built, validated)
    built.calls.append(call_item(5, "y"))  # a default list is the result's own
    assert parse_result().calls == []


def test_another_layout_is_validated() -> None:
    """A model whose layout differs (a field more, a default changed) is not built directly."""
    from pydantic import BaseModel

    from longcat_plugins.sglang.results import _layout_matches

    class More(BaseModel):
        tool_index: int
        name: str | None = None
        parameters: str
        extra_field: str = ""

    class Other(BaseModel):
        normal_text: str = "x"
        calls: list[Any] = []

    assert not _layout_matches(More, {"tool_index": ..., "name": None, "parameters": ...})
    assert not _layout_matches(Other, {"normal_text": "", "calls": []})
    assert _layout_matches(Other, {"normal_text": "x", "calls": []})
