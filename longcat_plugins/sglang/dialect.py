"""Which dialect the served model writes its tool calls in: the shape constrained decoding forces.

Parsing reads every dialect regardless; this only decides what ``tool_choice="required"`` / a named tool (and strict
``auto``) constrain the output to. Set ``LONGCAT_TOOL_DIALECT`` on the server: ``json`` (the default,
``<longcat_tool_call>`` + JSON, LongCat-Flash-Chat), ``kv`` (``<longcat_tool_call>NAME`` + ``<longcat_arg_key>`` /
``<longcat_arg_value>`` pairs, newer LongCat models) or ``xml`` (``<tool_call><function=NAME><parameter=...>``,
Qwen3-Coder style).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Final

from longcat_plugins.core import tags as T

ENV_VAR: Final = "LONGCAT_TOOL_DIALECT"
DEFAULT: Final = "json"


@dataclass(frozen=True, slots=True)
class Dialect:
    """The fixed text around one call's arguments, and the body style in between."""

    name: str
    #: begin = prefix + tool name + name_suffix
    prefix: str
    name_suffix: str
    end: str
    #: the text that announces a call (a prefix of every begin)
    trigger: str
    #: ``json``: a JSON object; ``qwen_xml``: ``<parameter=...>`` blocks; ``kv``: key/value tag pairs
    body: str

    def begin(self, tool_name: str) -> str:
        return f"{self.prefix}{tool_name}{self.name_suffix}"


DIALECTS: Final[dict[str, Dialect]] = {
    "json": Dialect(
        name="json",
        prefix=f'{T.LONGCAT_CALL_OPEN}\n{{"name": "',
        name_suffix='", "arguments": ',
        end=f"}}\n{T.LONGCAT_CALL_CLOSE}",
        trigger=T.LONGCAT_CALL_OPEN,
        body="json",
    ),
    "kv": Dialect(
        name="kv",
        prefix=T.LONGCAT_CALL_OPEN,
        name_suffix="\n",
        end=T.LONGCAT_CALL_CLOSE,
        trigger=T.LONGCAT_CALL_OPEN,
        body="kv",
    ),
    "xml": Dialect(
        name="xml",
        prefix=f"{T.HERMES_CALL_OPEN}\n{T.FUNCTION_OPEN}",
        name_suffix=">\n",
        end=f"\n{T.FUNCTION_CLOSE}\n{T.HERMES_CALL_CLOSE}",
        trigger=T.HERMES_CALL_OPEN,
        body="qwen_xml",
    ),
}


def dialect_from_env() -> Dialect:
    """The dialect named by ``LONGCAT_TOOL_DIALECT`` (default ``json``); an unknown name is an error."""
    value = os.environ.get(ENV_VAR, "").strip().lower() or DEFAULT
    try:
        return DIALECTS[value]
    except KeyError:
        raise ValueError(f"{ENV_VAR}={value!r}: expected one of {', '.join(DIALECTS)}") from None
