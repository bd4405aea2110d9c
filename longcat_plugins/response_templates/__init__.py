"""The dialects as transformers response templates (the ``response_template`` standard that transformers'
``parse_response``, vLLM's ``hf`` parsers, vLLM's Rust frontend and SGLang's ``response_template`` parser read).

Each template is generated from a dialect's declaration (``core/dialects.py``) and the reasoning and end markers its
models write (:data:`SPECS`), and shipped as ``NAME.json`` beside this module: :func:`load` reads the file,
:func:`generate` builds it again (a test keeps the two equal). What the template language cannot say, and so what
the standard reads less well than the plugin's parser, is measured in ``docs/response_templates.md``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import regex

from longcat_plugins.core import tags as T
from longcat_plugins.core.dialects import DIALECTS, Dialect

DIRECTORY: Final = Path(__file__).resolve().parent


@dataclass(frozen=True, slots=True)
class ResponseTemplateSpec:
    """One response template: the dialect its calls are written in, the reasoning tags, where the assistant's turn
    starts in the prompt (``start_anchor``: the parser reads from its last occurrence in prompt + output, so a
    reasoning tag the chat template pre-opens is seen) and the end-of-turn markers that may end the output."""

    name: str
    dialect: str
    #: the shipped chat template that writes this turn (``longcat_plugins/templates``), or None
    chat_template: str | None
    think: tuple[str, str]
    start_anchor: str
    end_markers: tuple[str, ...]
    #: what it is for, one line
    title: str


_QWEN_START: Final = "<|im_start|>assistant\n"
_QWEN_END: Final = ("<|im_end|>", "<|endoftext|>")
_LONGCAT_START: Final = "ASSISTANT:"
_LONGCAT_END: Final = ("</longcat_s>",)
_THINK: Final = (T.THINK_OPENS[0], T.THINK_CLOSES[0])
_LONGCAT_THINK: Final = (T.THINK_OPENS[1], T.THINK_CLOSES[1])

#: Every shipped response template, by name.
SPECS: Final[Mapping[str, ResponseTemplateSpec]] = {
    spec.name: spec
    for spec in (
        ResponseTemplateSpec(
            "longcat-json", "json", "longcat-flash-chat", _LONGCAT_THINK, _LONGCAT_START, _LONGCAT_END,
            "LongCat JSON calls (LongCat-Flash-Chat)",
        ),
        ResponseTemplateSpec(
            "longcat-kv", "kv", None, _LONGCAT_THINK, _LONGCAT_START, _LONGCAT_END,
            "LongCat key/value calls (LongCat-Flash-Thinking, -2601, Flash-Lite)",
        ),
        ResponseTemplateSpec(
            "qwen3-tools-first", "hermes", "qwen3-tools-first", _THINK, _QWEN_START, _QWEN_END,
            "Hermes / Qwen JSON calls (Qwen3)",
        ),
        ResponseTemplateSpec(
            "xml-function-thinking", "xml", "xml-function-thinking", _THINK, _QWEN_START, _QWEN_END,
            "XML function calls (Qwen3-Coder, Qwen3.5, XML-function reasoning models)",
        ),
    )
}  # fmt: skip


class UnknownResponseTemplateError(LookupError):
    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"unknown response template {name!r}; known: {', '.join(names())}")


def names() -> list[str]:
    return sorted(SPECS)


def spec(name: str) -> ResponseTemplateSpec:
    try:
        return SPECS[name]
    except KeyError:
        raise UnknownResponseTemplateError(name) from None


def path(name: str) -> Path:
    """The shipped file of a template."""
    return DIRECTORY / f"{spec(name).name}.json"


def load(name: str) -> dict[str, Any]:
    """The shipped template ``name`` (a ``response_template`` dict)."""
    loaded: dict[str, Any] = json.loads(path(name).read_text("utf-8"))
    return loaded


def generate(name: str) -> dict[str, Any]:
    """The template ``name``, built from its dialect's declaration."""
    s = spec(name)
    dialect = DIALECTS[s.dialect]
    return {
        "defaults": {"role": "assistant"},
        "start_anchor": s.start_anchor,
        "fields": {
            "thinking": {"open": s.think[0], "close": s.think[1], "content": "text"},
            "tool_calls": _tool_calls(dialect),
            "content": {"close": list(s.end_markers), "content": "text"},
        },
    }


def file_text(name: str) -> str:
    """The shipped file's text for ``name``: :func:`generate`, as JSON."""
    return json.dumps(generate(name), indent=2, ensure_ascii=False) + "\n"


def _tool_calls(dialect: Dialect) -> dict[str, Any]:
    """The ``tool_calls`` field: one region per call, opened by the dialect's block.

    Every pattern starts with a literal: vLLM's Rust frontend refuses a pattern that does not ("must start with a
    literal prefix for streaming matching"). The whitespace after a call belongs to its closing pattern, so that the
    line break between two calls opens no content region (an empty one would replace the content read before it)."""
    block = dialect.block
    field: dict[str, Any] = {"repeats": True}
    if dialect.markup is not None:
        m = dialect.markup
        # a markup call is read inside its block and with none (real Qwen3-Coder outputs drop the block): both start
        # with the tags' common prefix, the literal the pattern starts with
        lead = _common_start(block.open, m.call_open)
        if lead:
            block_then = rf"(?:{_esc(block.open[len(lead) :])}\s*{_esc(lead)})?"
            opening = f"{_esc(lead)}{block_then}{_esc(m.call_open[len(lead) :])}"
        else:
            opening = rf"{_esc(block.open)}\s*{_esc(m.call_open)}"
        field["open_pattern"] = f"{opening}{_name_group(m.name_end)}{_esc(m.name_end)}"
        field["close_pattern"] = rf"{_esc(m.call_close)}(?:\s*{_esc(block.close)})?\s*"
        field["content"] = "xml-inline"
        # one line break after the header and one before the closing tag are markup, as the parser reads them
        field["content_args"] = {
            "tag_pattern": rf"{_esc(m.param_open)}{_key_group(m.name_end)}{_esc(m.name_end)}\n?(?P<value>.*?)\n?"
            + _esc(m.param_close)
        }
        field["transform"] = {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}
    elif dialect.pairs is not None:
        p = dialect.pairs
        field["open_pattern"] = rf"{_esc(block.open)}\s*(?P<name>[^\s<]+)"
        field["close_pattern"] = rf"{_esc(block.close)}\s*"
        field["content"] = "xml-inline"
        field["content_args"] = {
            "tag_pattern": rf"{_esc(p.key_open)}(?P<key>.*?){_esc(p.key_close)}\s*{_esc(p.value_open)}"
            rf"(?P<value>.*?){_esc(p.value_close)}"
        }
        field["transform"] = {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}
    else:
        field["open"] = block.open
        field["close_pattern"] = rf"{_esc(block.close)}\s*"
        field["content"] = "json"
        field["transform"] = {"type": "function", "function": "{content}"}
    return field


def _common_start(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


def _name_group(name_end: str) -> str:
    return rf"(?P<name>[^{_esc(name_end[0])}\n]+)"


def _key_group(name_end: str) -> str:
    return rf"(?P<key>[^{_esc(name_end[0])}\n]+)"


def _esc(text: str) -> str:
    escaped: str = regex.escape(text)
    return escaped
