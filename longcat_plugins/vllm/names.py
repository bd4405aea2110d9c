"""Names this adapter registers in vLLM (importing this module imports nothing from vLLM)."""

from __future__ import annotations

from typing import Final

from longcat_plugins.core.dialects import DIALECTS

TOOL_PARSER_NAME: Final = "longcat"
REASONING_PARSER_NAME: Final = "longcat"
STRUCTURAL_TAG_MODELS: Final = {name: f"longcat_plugins_{name}" for name in DIALECTS}
"""Structural-tag model key per tool-call dialect (see :mod:`longcat_plugins.vllm.tokenizer_facts`)."""
