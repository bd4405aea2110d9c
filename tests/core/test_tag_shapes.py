"""Tags are whatever a declaration says: a dialect whose tags do not start with '<' (``[TOOL_CALLS]``,
``<|python_tag|>``...) is read exactly as the same dialect written with '<' tags, in every body, whole and streamed;
and the registry's dialects read alone keep the scanners' '<' fast path (``core/tag_starts.py``)."""

from __future__ import annotations

from typing import Any

import pytest

from longcat_plugins.core import dialects as D
from tests.core.declared_reading import read

#: one declaration of each body, with '<' tags; the same with '[' tags is :func:`_bracketed`
ANGLED: dict[str, dict[str, Any]] = {
    "json": {"block": ["<calls>", "</calls>"]},
    "pairs": {"block": ["<kv>", "</kv>"], "pairs": ["<k>", "</k>", "<v>", "</v>"]},
    "markup": {
        "block": ["<mk>", "</mk>"],
        "markup": ['<invoke name="', "</invoke>", '<parameter name="', "</parameter>", '">'],
    },
    "separated": {"block": ["<sec>", "</sec>"], "separated": ["<call>", "<sep>", "</call>", "functions.", ":"]},
}


def _declaration(body: str, tags: dict[str, Any]) -> dict[str, Any]:
    return {"name": f"{body}_tags", "title": body, "models": "none", **tags}


def _bracket(tag: str) -> str:
    return tag.replace("<", "[").replace(">", "]")


def _bracketed(tags: dict[str, Any]) -> dict[str, Any]:
    return {key: [_bracket(t) for t in value] for key, value in tags.items()}


def _texts(dialect: D.Dialect) -> list[str]:
    """Outputs around calls the dialect writes: text with stray '[', ']', '<' and '>' before and after, two calls, a
    call cut off, a block that holds no call, and text alone."""
    call = dialect.write("get_weather", {"city": "Paris [9e] <b>", "days": 3})
    other = dialect.write("get_weather", {"city": "Lyon"})
    return [
        f"Let me check [a] <b> [x.\n{call}\nDone [z] <y>.",
        f"{call}\n{other}",
        f"Sure:\n{call}{other}\n",
        f"Cut: {call[: call.index('[9e]')]}",
        f"{dialect.block.open}not a call [x] {dialect.block.close} then [",
        "a [ b [[ c ] d < e [",
    ]


def _unbracket(value: Any, tags: list[str]) -> Any:
    """The '[' reading's text with its tags written back with '<' (to compare with the '<' reading)."""
    if isinstance(value, str):
        for tag in sorted(tags, key=len, reverse=True):
            value = value.replace(_bracket(tag), tag)
        return value
    if isinstance(value, list):
        return [_unbracket(v, tags) for v in value]
    if isinstance(value, dict):
        return {k: _unbracket(v, tags) for k, v in value.items()}
    return value


def _calls(message: dict[str, Any]) -> dict[str, Any]:
    """A message read but its calls' ids (drawn at random)."""
    return {key: value for key, value in message.items() if key != "ids"}


@pytest.mark.parametrize("body", list(ANGLED))
def test_a_dialect_with_bracketed_tags_reads_as_the_same_dialect_with_angled_ones(body: str) -> None:
    angled = _declaration(body, ANGLED[body])
    bracketed = _declaration(body, _bracketed(ANGLED[body]))
    angled_texts = _texts(D.declared(angled))
    bracketed_texts = _texts(D.declared(bracketed))
    tags = [t for value in ANGLED[body].values() for t in value if _bracket(t) != t]
    assert [_unbracket(t, tags) for t in bracketed_texts] == angled_texts  # (the same outputs, tags aside)
    for options in ({}, {"reasoning": False}):
        expected = read([angled], {"texts": angled_texts, "options": options})
        got = read([bracketed], {"texts": bracketed_texts, "options": options})
        assert expected["results"][0]["whole"]["calls"] == [["get_weather", {"city": "Paris [9e] <b>", "days": 3}]]
        for text, want, have in zip(bracketed_texts, expected["results"], got["results"], strict=True):
            assert _calls(have["whole"]) == _calls(have["streamed"]), text
            assert _unbracket(_calls(have["whole"]), tags) == _calls(want["whole"]), text
        assert expected["tag_starts"] == ["<"] and got["tag_starts"] == ["<", "["]


def test_a_tag_may_start_with_any_character_its_declaration_gives() -> None:
    """Every tag read adds its first character, closing tags and separators too."""
    piped = _declaration("json", {"block": ["<|python_tag|>", "<|eom|>"]})
    spaced = _declaration("separated", {"block": ["TOOLS:", "END"], "separated": ["@call ", "=>", ";;"]})
    call = '<|python_tag|>{"name": "get_weather", "arguments": {}}'
    text = f'Hi. TOOLS:@call get_weather=>{{"city": "Paris"}};;END Bye {call}'
    got = read([piped, spaced], {"texts": [text]})
    whole = _calls(got["results"][0]["whole"])
    assert whole == _calls(got["results"][0]["streamed"])
    assert whole["calls"] == [["get_weather", {"city": "Paris"}], ["get_weather", {}]]
    assert whole["content"] == "Hi.  Bye "
    assert got["tag_starts"] == [";", "<", "=", "@", "E", "T"]
