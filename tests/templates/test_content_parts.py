"""Content given as parts (``[{"type": "text", "text": ...}]``) is rendered as the engines render it.

The engines' own code paths are checked in tests/vllm/test_templates_vllm.py and tests/sglang/test_templates_sglang.py;
here, the rule without an engine: one text part is the string itself, several are joined (vLLM: newline, SGLang:
space), and a template that iterates over the content gets the parts unflattened.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from template_cases import TEMPLATE_NAMES, TOOL_CALLS_DONE, WEATHER, as_parts, system, text_parts

from longcat_plugins import templates
from longcat_plugins.templates.content_parts import flatten_content, takes_content_parts


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_one_part_each_renders_as_strings(name: str, engine: str) -> None:
    parts = templates.render(name, as_parts(TOOL_CALLS_DONE), [WEATHER], engine=engine)
    assert parts == templates.render(name, TOOL_CALLS_DONE, [WEATHER])
    assert "'type'" not in parts


@pytest.mark.parametrize(
    ("engine", "joined"), [("vllm", "Look at this:\nwhat is it?"), ("sglang", "Look at this: what is it?")]
)
def test_several_parts_are_joined_as_each_engine_joins_them(engine: str, joined: str) -> None:
    messages = [system(), {"role": "user", "content": text_parts("Look at this:", "what is it?")}]
    plain = [system(), {"role": "user", "content": joined}]
    for name in TEMPLATE_NAMES:
        assert templates.render(name, messages, engine=engine) == templates.render(name, plain)


def test_parts_without_text_are_left_out() -> None:
    content: list[Any] = [{"type": "image_url", "image_url": {"url": "x"}}, {"type": "text", "text": "hi"}, "odd"]
    assert flatten_content(content) == "hi"
    assert flatten_content([]) == ""
    assert flatten_content("already text") == "already text"
    assert flatten_content(None) is None


def test_shipped_templates_take_strings() -> None:
    for name in TEMPLATE_NAMES:
        assert not takes_content_parts(templates.load(name))


def test_a_template_that_iterates_over_content_gets_the_parts(tmp_path: Path) -> None:
    source = "{% for m in messages %}{% for part in m['content'] %}[{{ part.text }}]{% endfor %}{% endfor %}"
    assert takes_content_parts(source)
    assert takes_content_parts(source.replace("m['content']", "m.content"))
    custom = tmp_path / "parts.jinja"
    custom.write_text(source, encoding="utf-8")
    assert templates.render(custom, [{"role": "user", "content": text_parts("a", "b")}]) == "[a][b]"


def test_unknown_engine_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown engine 'trt'"):
        templates.render("longcat-flash-chat", [{"role": "user", "content": "x"}], engine="trt")
