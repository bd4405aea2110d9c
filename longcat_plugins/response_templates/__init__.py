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
    """The template ``name``, built from its dialect's declaration.

    Reasoning and content are the exact text, as the parser returns them (the ``text`` content parser would strip
    them). Whitespace after a call is markup when another call, an end marker or the end of the output follows it;
    whitespace after text stays with the text, as the parser keeps it. (``parse_response`` keeps one content
    region, the last: whitespace read as a region of its own would replace the text before it.) Such whitespace is
    taken by the pattern of what follows it, looking back at the call before it, so that a stream holds it back
    until that is decided: an optional ending of a close pattern would not wait."""
    s = spec(name)
    dialect = DIALECTS[s.dialect]
    ends = _end_markers(s)
    after_call = _call_ends(dialect)
    return {
        "defaults": {"role": "assistant"},
        "start_anchor": s.start_anchor,
        "fields": {
            "thinking": {"open": s.think[0], "close": s.think[1], "content": "text", "content_args": _EXACT},
            "tool_calls": _tool_calls(dialect, after_call),
            "content": {
                "close_pattern": _content_close(dialect, ends, after_call),
                "content": "text",
                "content_args": _EXACT,
            },
        },
    }


def file_text(name: str) -> str:
    """The shipped file's text for ``name``: :func:`generate`, as JSON."""
    return json.dumps(generate(name), indent=2, ensure_ascii=False) + "\n"


_EXACT: Final = {"strip": False}


def _end_markers(s: ResponseTemplateSpec) -> tuple[str, ...]:
    """The end-of-sequence markers the template takes as markup: its models' own, then every other family's the
    parser reads (a leaked marker is never content, whichever family it comes from)."""
    return tuple(dict.fromkeys([*s.end_markers, *T.END_OF_SEQUENCE]))


def _call_ends(dialect: Dialect) -> tuple[str, ...]:
    """The tags a call ends with: its markup's closing tag and every block's it is read in, or its block's."""
    if dialect.markup is not None:
        return (dialect.markup.call_close, *(b.close for b in _markup_blocks(dialect)))
    return (dialect.block.close,)


def _after(tags: tuple[str, ...]) -> str:
    """Right after one of ``tags`` (a look-behind per tag: each of constant length)."""
    return "(?:" + "|".join(f"(?<={_esc(t)})" for t in tags) + ")"


def _content_close(dialect: Dialect, ends: tuple[str, ...], after_call: tuple[str, ...]) -> str:
    """What ends content without opening another field: end markers (with the whitespace before them after a call,
    between them and after the last); a markup call's block closer after its closing tag (also the orphan one
    after a call written with no block); whitespace at the end of the output after a call or an end marker."""
    marker = _alternatives(ends)
    ending = rf"(?:{_after(after_call)}\s+)?(?:{marker})(?:\s*(?:{marker}))*"
    parts = [ending]
    if dialect.markup is not None:
        closes = _alternatives(tuple(b.close for b in _markup_blocks(dialect)))
        parts.append(rf"{_after((dialect.markup.call_close,))}\s*(?:{closes})")
    parts.append(rf"{_after((*after_call, *ends))}\s+$")
    return "|".join(parts)


def _tool_calls(dialect: Dialect, after_call: tuple[str, ...]) -> dict[str, Any]:
    """The ``tool_calls`` field: one region per call, opened by the dialect's block (with the whitespace before
    it after another call)."""
    block = dialect.block
    between = rf"(?:{_after(after_call)}\s+)?"
    field: dict[str, Any] = {"repeats": True}
    if dialect.markup is not None:
        m = dialect.markup
        # a markup call is read inside any block the parser reads it in, and with none (real Qwen3-Coder outputs
        # drop the block); a call whose closing tag never came ends at a block's closing tag that ends the output
        # (elsewhere such a tag may be text in a value)
        blocks = _markup_blocks(dialect)
        opens, closes = _alternatives(tuple(b.open for b in blocks)), _alternatives(tuple(b.close for b in blocks))
        name = _name_group(m.name_end)
        field["open_pattern"] = rf"{between}(?:(?:{opens})\s*)?{_esc(m.call_open)}{name}{_esc(m.name_end)}"
        field["close_pattern"] = rf"{_esc(m.call_close)}|(?:{closes})(?=\s*$)"
        field["content"] = "xml-inline"
        # one line break after the header and one before the closing tag are markup, as the parser reads them; a
        # value whose closing tag never came ends at the next parameter, or at the end of the call (less a closing
        # tag cut off there)
        field["content_args"] = {
            "tag_pattern": rf"{_esc(m.param_open)}{_key_group(m.name_end)}{_esc(m.name_end)}\n?(?P<value>.*?)\n?"
            rf"(?:{_esc(m.param_close)}|(?={_esc(m.param_open)})|(?:{_cut(m.param_close)})?$)"
        }
        field["transform"] = {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}
    elif dialect.pairs is not None:
        p = dialect.pairs
        # the name ends where a JSON body, a call's parenthesis or a pair would start
        field["open_pattern"] = rf"{between}{_esc(block.open)}\s*{_NAMESPACE}(?P<name>[^\s<>(){{}}:]+)"
        field["close"] = block.close
        field["content"] = "xml-inline"
        # a value whose closing tag never came ends at the next pair, or at the end of the call (less a closing tag
        # cut off there)
        field["content_args"] = {
            "tag_pattern": rf"{_esc(p.key_open)}(?P<key>.*?){_esc(p.key_close)}\s*{_esc(p.value_open)}"
            rf"(?P<value>.*?)(?:{_esc(p.value_close)}|(?={_esc(p.key_open)})|(?:{_cut(p.value_close)})?$)"
        }
        field["transform"] = {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}
    else:
        field["open_pattern"] = rf"{between}{_esc(block.open)}"
        field["close"] = block.close
        field["content"] = "json"
        field["transform"] = {"type": "function", "function": "{content}"}
    return field


def _markup_blocks(dialect: Dialect) -> list[Block]:
    """The blocks a markup call is read in: the dialect's own first, then every other registered dialect's."""
    return list(dict.fromkeys([dialect.block, *(d.block for d in DIALECTS.values())]))


def _name_group(name_end: str) -> str:
    return rf"{_NAMESPACE}(?P<name>[^{_esc(name_end[0])}\n<]+)"


def _key_group(name_end: str) -> str:
    return rf"(?P<key>[^{_esc(name_end[0])}\n<]+)"


def _cut(tag: str) -> str:
    """A pattern for the start of ``tag`` (its first character, then any more of it)."""
    rest = ""
    for char in reversed(tag[1:]):
        rest = f"(?:{_esc(char)}{rest})?"
    return _esc(tag[0]) + rest


def _esc(text: str) -> str:
    escaped: str = regex.escape(text)
    return escaped


def _alternatives(texts: tuple[str, ...]) -> str:
    return "|".join(_esc(t) for t in sorted(texts, key=len, reverse=True))
