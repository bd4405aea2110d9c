"""Blocks with no closing tag (``block: [open]``): a block ends where its call ends, unless its declared
``call_separator`` follows (Llama's ``;``); a call with no tags of its own stands right after the block's opening tag
(Mistral's ``[TOOL_CALLS]NAME[ARGS]{...}``), with an id after a declared ``call_id`` tag (``[CALL_ID]``) that is the
call's id; a JSON body may write its arguments under ``parameters`` (``arguments_key``)."""

from __future__ import annotations

from typing import Any

import pytest

from longcat_plugins.core import dialects as D
from tests.core.declared_reading import read

NAMED: dict[str, Any] = {
    "name": "named_test",
    "title": "N",
    "models": "none",
    "block": ["[CALLS]"],
    "separated": ["", "[ARGS]", ""],
    "call_id": "[ID]",
}
SEPARATED_JSON: dict[str, Any] = {
    "name": "separated_json_test",
    "title": "S",
    "models": "none",
    "block": ["<|tag|>"],
    "call_separator": ";",
    "arguments_key": "parameters",
    "end_of_sequence": ["<|end|>"],
}
PARIS = ["get_weather", {"city": "Paris"}]
LYON = ["get_weather", {"city": "Lyon", "days": 2}]


def test_a_block_of_one_tag_has_no_closing_tag_and_writes_none() -> None:
    named, separated = D.declared(NAMED), D.declared(SEPARATED_JSON)
    assert named.block == D.Block("[CALLS]", "")
    assert named.separated is not None and named.separated.id_mark == "[ID]"
    assert named.write("f", {"a": 1}) == '[CALLS]f[ARGS]{"a": 1}'
    assert separated.block == D.Block("<|tag|>", "", call_separator=";")
    assert separated.write("f", {"a": 1}) == '<|tag|>{"name": "f", "parameters": {"a": 1}}'
    assert D.declared({**SEPARATED_JSON, "arguments_key": "arguments"}).name_suffix == '", "arguments": '


def test_calls_with_no_tags_of_their_own_each_in_a_block_that_ends_with_the_call() -> None:
    texts = [
        '[CALLS]get_weather[ARGS]{"city": "Paris"}[CALLS]get_weather[ARGS]{"city": "Lyon", "days": 2}',
        'Sure.\n[CALLS]get_weather[ID]a1B2c3D4e[ARGS]{"city": "Paris"} And [x] after.',
        '[CALLS]get_weather[ID]a1B2c3D4e[ARGS]{"city": "Paris"}\n[CALLS]get_weather[ID]zz9[ARGS]{"city": "Lyon", '
        '"days": 2}\n',
        '[CALLS]unknown_tool[ARGS]{"city": "Paris"} then text',
        '[CALLS]get_weather[ARGS]{"city": "Par',
        "Text [CALLS] is no call [ARGS] here",
    ]
    got = read([NAMED], {"texts": texts})
    results = [r["whole"] for r in got["results"]]
    for r in got["results"]:
        assert {**r["whole"], "ids": None} == {**r["streamed"], "ids": None}
    assert results[0]["calls"] == [PARIS, LYON] and results[0]["content"] == ""
    assert results[1] == {"content": "Sure.\n And [x] after.", "reasoning": "", "calls": [PARIS], "ids": ["a1B2c3D4e"]}
    assert got["results"][1]["streamed"]["ids"] == ["a1B2c3D4e"]
    assert results[2]["calls"] == [PARIS, LYON] and results[2]["ids"] == ["a1B2c3D4e", "zz9"]
    assert results[2]["content"] == ""
    assert results[3] == {"content": texts[3], "reasoning": "", "calls": [], "ids": []}
    assert results[4]["calls"] == [["get_weather", {"city": "Par"}]]
    assert results[5] == {"content": texts[5], "reasoning": "", "calls": [], "ids": []}


def test_calls_of_a_block_with_no_closing_tag_separated_by_its_call_separator() -> None:
    texts = [
        '<|tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}; '
        '{"name": "get_weather", "parameters": {"city": "Lyon", "days": 2}}<|end|>',
        '<|tag|>{"name": "get_weather", "parameters": {"city": "Paris"}};{"name": "get_weather", "arguments": '
        '{"city": "Lyon", "days": 2}}',
        'Let me look.<|tag|>{"name": "get_weather", "parameters": {"city": "Paris"}} Then text {"a": 1}; done',
        '<|tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}\n\n<|tag|>{"name": "get_weather", '
        '"parameters": {"city": "Lyon", "days": 2}}<|end|>',
        '<|tag|>{"name": "get_weather", "parameters": {"city": "Paris"}};',
        '<|tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}; and [more]',
        '<|tag|>{"name": "web_fetch", "parameters": {}}; {"name": "get_weather", "parameters": {"city": "Paris"}}',
    ]
    got = read([SEPARATED_JSON], {"texts": texts})
    results = [r["whole"] for r in got["results"]]
    for r in got["results"]:
        assert {**r["whole"], "ids": None} == {**r["streamed"], "ids": None}
    calls = [[PARIS, LYON], [PARIS, LYON], [PARIS], [PARIS, LYON], [PARIS], [PARIS], [PARIS]]
    assert [r["calls"] for r in results] == calls
    # (a separator that no call follows is text; a call naming no tool is text, as in any block)
    unknown = '{"name": "web_fetch", "parameters": {}}; '
    contents = ["", "", 'Let me look. Then text {"a": 1}; done', "", "", "; and [more]", unknown]
    assert [r["content"] for r in results] == contents


@pytest.mark.parametrize("declaration", [NAMED, SEPARATED_JSON], ids=["named", "separated-json"])
def test_the_parser_reads_back_what_a_block_with_no_closing_tag_writes(declaration: dict[str, Any]) -> None:
    dialect = D.declared(declaration)
    call = dialect.write("get_weather", {"city": "Paris"})
    got = read([declaration], {"texts": [f"Checking.\n{call}", f"{call}{call}", f"{call}\nDone."]})
    assert [r["whole"]["calls"] for r in got["results"]] == [[PARIS], [PARIS, PARIS], [PARIS]]
    assert [r["whole"]["content"] for r in got["results"]] == ["Checking.\n", "", "\nDone."]


@pytest.mark.parametrize("declaration", [NAMED, SEPARATED_JSON], ids=["named", "separated-json"])
def test_without_tool_parsing_a_block_with_no_closing_tag_is_shown_verbatim(declaration: dict[str, Any]) -> None:
    call = D.declared(declaration).write("get_weather", {"city": "Paris"})
    texts = [f"{call} \n then text", f"{call}\n\n{call}\n", f"{call};  {call} x"]
    got = read([declaration], {"texts": texts, "options": {"tools": False}})
    assert [r["whole"]["content"] for r in got["results"]] == texts
    assert [r["streamed"]["content"] for r in got["results"]] == texts
