"""Names this adapter registers in vLLM (importing this module imports nothing from vLLM)."""

from __future__ import annotations

from typing import Final

TOOL_PARSER_NAME: Final = "longcat"
REASONING_PARSER_NAME: Final = "longcat"
STRUCTURAL_TAG_MODELS: Final = {
    "json": "longcat_plugins_json",
    "kv": "longcat_plugins_kv",
    "xml": "longcat_plugins_xml",
    "hermes": "longcat_plugins_hermes",
}
"""Structural-tag model key per tool-call dialect (see :mod:`longcat_plugins.vllm.tokenizer_facts`)."""
