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
from longcat_plugins.core.dialects import DIALECTS, Block, Dialect

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


#: the namespace real models write before a call's name (``functions.get_weather``), which is no part of the name
_NAMESPACE: Final = r"(?:functions\.)?"
#: content and reasoning are the exact text, as the parser returns them (the ``text`` content parser would strip them)
_EXACT: Final = {"strip": False}
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
            "thinking": {"open": s.think[0], "close": s.think[1], "content": "text", "content_args": _EXACT},
            "tool_calls": _tool_calls(dialect),
            # every family's end-of-sequence marker is markup (a leaked marker is never content, whichever family
            # it comes from)
            "content": {
                "close": list(
                    dict.fromkeys([*s.end_markers, *(m for other in SPECS.values() for m in other.end_markers)])
                ),
                "content": "text",
                "content_args": _EXACT,
            },
        },
    }


def file_text(name: str) -> str:
    """The shipped file's text for ``name``: :func:`generate`, as JSON."""
    return json.dumps(generate(name), indent=2, ensure_ascii=False) + "\n"


def _tool_calls(dialect: Dialect) -> dict[str, Any]:
    """The ``tool_calls`` field: one region per call, opened by the dialect's block.

    Every pattern starts with a literal: vLLM's Rust frontend refuses a pattern that does not ("must start with a
    literal prefix for streaming matching"). The whitespace after a call belongs to its closing pattern, so that the
    line break between two calls opens no content region (``parse_response`` keeps one content region, the last:
    whitespace read as a region of its own would replace the text before it)."""
    block = dialect.block
    field: dict[str, Any] = {"repeats": True}
    if dialect.markup is not None:
        m = dialect.markup
        # a markup call is read inside any block the parser reads it in, and with none (real Qwen3-Coder outputs
        # drop the block): all start with the tags' common prefix, the literal the pattern starts with
        blocks = _markup_blocks(dialect)
        lead = _common_start(m.call_open, *(b.open for b in blocks))
        if lead:
            tails = "|".join(_esc(b.open[len(lead) :]) for b in blocks)
            opening = rf"{_esc(lead)}(?:(?:{tails})\s*{_esc(lead)})?{_esc(m.call_open[len(lead) :])}"
        else:
            opening = rf"{_esc(block.open)}\s*{_esc(m.call_open)}"
        field["open_pattern"] = f"{opening}{_name_group(m.name_end)}{_esc(m.name_end)}"
        closes = "|".join(_esc(b.close) for b in blocks)
        field["close_pattern"] = rf"{_esc(m.call_close)}(?:\s*(?:{closes}))?\s*"
        field["content"] = "xml-inline"
        # one line break after the header and one before the closing tag are markup, as the parser reads them; a
        # value whose closing tag never came ends at the end of the call (less a closing tag cut off there; not at
        # the next parameter: that takes a look-ahead, which the Rust frontend's regex engine does not have)
        field["content_args"] = {
            "tag_pattern": rf"{_esc(m.param_open)}{_key_group(m.name_end)}{_esc(m.name_end)}\n?(?P<value>.*?)\n?"
            rf"(?:{_esc(m.param_close)}|(?:{_cut(m.param_close)})?$)"
        }
        field["transform"] = _named_call()
    elif dialect.pairs is not None:
        p = dialect.pairs
        # the name ends where a JSON body, a call's parenthesis or a pair would start
        field["open_pattern"] = rf"{_esc(block.open)}\s*{_NAMESPACE}(?P<name>[^\s<>(){{}}:]+)"
        field["close_pattern"] = rf"{_esc(block.close)}\s*"
        field["content"] = "xml-inline"
        # a value whose closing tag never came ends at the end of the call (less a closing tag cut off there)
        field["content_args"] = {
            "tag_pattern": rf"{_esc(p.key_open)}(?P<key>.*?){_esc(p.key_close)}\s*{_esc(p.value_open)}"
            rf"(?P<value>.*?)(?:{_esc(p.value_close)}|(?:{_cut(p.value_close)})?$)"
        }
        field["transform"] = _named_call()
    else:
        field["open"] = block.open
        field["close_pattern"] = rf"{_esc(block.close)}\s*"
        field["content"] = "json"
        field["transform"] = {"type": "function", "function": "{content}"}
    return field


def _named_call() -> dict[str, Any]:
    """The transform of a call whose name the opening pattern captured and whose arguments the region holds."""
    return {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}


def _markup_blocks(dialect: Dialect) -> list[Block]:
    """The blocks a markup call is read in: the dialect's own first, then every other registered dialect's."""
    return list(dict.fromkeys([dialect.block, *(d.block for d in DIALECTS.values())]))


def _cut(tag: str) -> str:
    """A pattern for the start of ``tag`` (its first character, then any more of it)."""
    rest = ""
    for char in reversed(tag[1:]):
        rest = f"(?:{_esc(char)}{rest})?"
    return _esc(tag[0]) + rest


def _common_start(*texts: str) -> str:
    n = 0
    while n < min(map(len, texts)) and len({t[n] for t in texts}) == 1:
        n += 1
    return texts[0][:n]


def _name_group(name_end: str) -> str:
    return rf"{_NAMESPACE}(?P<name>[^{_esc(name_end[0])}\n<]+)"


def _key_group(name_end: str) -> str:
    return rf"(?P<key>[^{_esc(name_end[0])}\n<]+)"


def _esc(text: str) -> str:
    escaped: str = regex.escape(text)
    return escaped
