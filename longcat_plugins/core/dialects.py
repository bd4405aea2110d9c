"""The tool-call dialects as shapes to *generate*: what constrained decoding forces for ``tool_choice="required"`` or
a named tool. (Parsing reads every dialect regardless of this choice.)

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
class Dialect:
    """The fixed text around one call's arguments, and the style of the arguments in between."""

    name: str
    #: text that announces a call (a prefix of :meth:`begin`)
    trigger: str
    #: ``begin(name) = prefix + name + name_suffix``
    prefix: str
    name_suffix: str
    end: str
    #: ``json``: a JSON object; ``qwen_xml``: ``<parameter=...>`` blocks; ``kv``: key/value tag pairs
    body: Literal["json", "qwen_xml", "kv"]

    def begin(self, tool_name: str) -> str:
        return f"{self.prefix}{tool_name}{self.name_suffix}"


def _json_in(open_tag: str, close_tag: str, name: str) -> Dialect:
    return Dialect(
        name=name,
        trigger=open_tag,
        prefix=f'{open_tag}\n{{"name": "',
        name_suffix='", "arguments": ',
        end=f"}}\n{close_tag}",
        body="json",
    )


DIALECTS: Final[dict[str, Dialect]] = {
    # LongCat-Flash-Chat: JSON in <longcat_tool_call>
    "json": _json_in(T.LONGCAT_CALL_OPEN, T.LONGCAT_CALL_CLOSE, "json"),
    # newer LongCat models: NAME, then <longcat_arg_key>/<longcat_arg_value> pairs
    "kv": Dialect(
        name="kv",
        trigger=T.LONGCAT_CALL_OPEN,
        prefix=T.LONGCAT_CALL_OPEN,
        name_suffix="\n",
        end=T.LONGCAT_CALL_CLOSE,
        body="kv",
    ),
    # Qwen3-Coder style: <tool_call><function=NAME><parameter=...>
    "xml": Dialect(
        name="xml",
        trigger=f"{T.HERMES_CALL_OPEN}\n{T.FUNCTION_OPEN}",
        prefix=f"{T.HERMES_CALL_OPEN}\n{T.FUNCTION_OPEN}",
        name_suffix=">\n",
        end=f"{T.FUNCTION_CLOSE}\n{T.HERMES_CALL_CLOSE}",
        body="qwen_xml",
    ),
    # Hermes / Qwen3: JSON in <tool_call>
    "hermes": _json_in(T.HERMES_CALL_OPEN, T.HERMES_CALL_CLOSE, "hermes"),
}
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
