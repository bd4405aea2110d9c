"""The tool-call dialects, each declared once: its block, how it is written (what constrained decoding forces for
``tool_choice="required"`` or a named tool), and its names. The parser's block tags derive from here
(:data:`BLOCK_OPENS`, :data:`BLOCK_CLOSES`); parsing reads every dialect regardless of the one a model writes.

The model's dialect is read from its tokenizer (vocabulary and chat template); ``LONGCAT_TOOL_DIALECT`` overrides it.
"""

from __future__ import annotations

import os
from collections.abc import Container
from dataclasses import dataclass
from typing import Final, Literal

from . import tags as T

ENV_VAR: Final = "LONGCAT_TOOL_DIALECT"


@dataclass(frozen=True, slots=True)
class Block:
    """The tags around a dialect's calls."""

    open: str
    close: str


@dataclass(frozen=True, slots=True)
class Parameter:
    """How a markup dialect writes one argument: ``key_open + key + key_to_value + value + value_close``."""

    key_open: str
    key_to_value: str
    value_close: str


@dataclass(frozen=True, slots=True)
class Dialect:
    """One dialect, declared once: how it is named and written, the block its calls stand in, and (for constrained
    decoding) the fixed text around one call's arguments and the style of the arguments in between."""

    name: str
    #: as the documentation names it, and the models that write it
    title: str
    models: str
    block: Block
    #: text that announces a call (a prefix of :meth:`begin`)
    trigger: str
    #: ``begin(name) = prefix + name + name_suffix``
    prefix: str
    name_suffix: str
    end: str
    #: ``json``: a JSON object; ``qwen_xml``: ``<parameter=...>`` blocks; ``kv``: key/value tag pairs
    body: Literal["json", "qwen_xml", "kv"]
    #: how a markup body writes each argument (None: a JSON body)
    parameter: Parameter | None = None

    def begin(self, tool_name: str) -> str:
        return f"{self.prefix}{tool_name}{self.name_suffix}"


def _json_in(block: Block, name: str, title: str, models: str) -> Dialect:
    return Dialect(
        name=name,
        title=title,
        models=models,
        block=block,
        trigger=block.open,
        prefix=f'{block.open}\n{{"name": "',
        name_suffix='", "arguments": ',
        end=f"}}\n{block.close}",
        body="json",
    )


LONGCAT_BLOCK: Final = Block(T.LONGCAT_CALL_OPEN, T.LONGCAT_CALL_CLOSE)
HERMES_BLOCK: Final = Block(T.HERMES_CALL_OPEN, T.HERMES_CALL_CLOSE)
#: a JSON array of calls (``[{"name": ..., "parameters": {...}}, ...]``), read but never written (LongCat-Next)
CALL_LIST_BLOCK: Final = Block(T.CALL_LIST_OPEN, T.CALL_LIST_CLOSE)

#: Every dialect constrained decoding can write, by the name ``LONGCAT_TOOL_DIALECT`` takes.
DIALECTS: Final[dict[str, Dialect]] = {
    "json": _json_in(LONGCAT_BLOCK, "json", "LongCat JSON", "LongCat-Flash-Chat"),
    "kv": Dialect(
        name="kv",
        title="LongCat key/value",
        models="LongCat-Flash-Thinking, -2601, Flash-Lite",
        block=LONGCAT_BLOCK,
        trigger=LONGCAT_BLOCK.open,
        prefix=LONGCAT_BLOCK.open,
        name_suffix="\n",
        end=LONGCAT_BLOCK.close,
        body="kv",
        parameter=Parameter(T.ARG_KEY_OPEN, f"{T.ARG_KEY_CLOSE}\n{T.ARG_VALUE_OPEN}", f"{T.ARG_VALUE_CLOSE}\n"),
    ),
    "xml": Dialect(
        name="xml",
        title="XML function",
        models="Qwen3-Coder, XML-function reasoning models",
        block=HERMES_BLOCK,
        trigger=f"{HERMES_BLOCK.open}\n{T.FUNCTION_OPEN}",
        prefix=f"{HERMES_BLOCK.open}\n{T.FUNCTION_OPEN}",
        name_suffix=">\n",
        end=f"{T.FUNCTION_CLOSE}\n{HERMES_BLOCK.close}",
        body="qwen_xml",
        parameter=Parameter(T.PARAMETER_OPEN, ">\n", f"\n{T.PARAMETER_CLOSE}\n"),
    ),
    "hermes": _json_in(HERMES_BLOCK, "hermes", "Hermes / Qwen JSON", "Qwen3, Hermes-style models"),
}
#: Every call block the parser reads: the dialects' blocks, then the call list.
BLOCKS: Final = tuple(dict.fromkeys([*(d.block for d in DIALECTS.values()), CALL_LIST_BLOCK]))
BLOCK_OPENS: Final = tuple(b.open for b in BLOCKS)
BLOCK_CLOSES: Final = tuple(b.close for b in BLOCKS)
DEFAULT: Final = "json"


def dialect_override() -> Dialect | None:
    """The dialect named by ``LONGCAT_TOOL_DIALECT``, or None when it is unset. An unknown name is an error."""
    value = os.environ.get(ENV_VAR, "").strip().lower()
    if not value:
        return None
    try:
        return DIALECTS[value]
    except KeyError:
        raise ValueError(f"{ENV_VAR}={value!r}: expected one of {', '.join(DIALECTS)}") from None


def detect_dialect(vocabulary: Container[str] = (), chat_template: str = "") -> Dialect:
    """The dialect a model writes, from its tokenizer's vocabulary and chat template (the override first)."""
    override = dialect_override()
    if override is not None:
        return override

    def seen(tag: str) -> bool:
        return tag in vocabulary or tag in chat_template

    if seen(T.ARG_KEY_OPEN):
        return DIALECTS["kv"]
    if T.FUNCTION_OPEN in chat_template or T.PARAMETER_OPEN in chat_template:
        return DIALECTS["xml"]
    if seen(T.LONGCAT_CALL_OPEN):
        return DIALECTS["json"]
    if seen(T.HERMES_CALL_OPEN):
        return DIALECTS["hermes"]
    return DIALECTS[DEFAULT]
