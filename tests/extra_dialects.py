"""Dialects of other model families, declared for the tests only (as data: ``core/dialects.py: declared``). The
tests' ``conftest.py`` has the parser read them (``LONGCAT_EXTRA_DIALECTS``), so that every test that runs over the
dialects the parser reads runs over them too; none is registered, detected or shipped."""

# ruff: noqa: RUF001  (DeepSeek's tags are written with the full-width bar)
from __future__ import annotations

import json
import os
from typing import Any

#: GLM-4.5 / 4.6 / 4.7: ``<tool_call>NAME`` then ``<arg_key>K</arg_key><arg_value>V</arg_value>`` pairs, one a line
#: (GLM-4.7 also writes them with no line breaks), then ``</tool_call>``; its block's opening tag is Hermes JSON's
GLM47: dict[str, Any] = {
    "name": "glm47_test",
    "title": "GLM-4.7 key/value (test only)",
    "models": "GLM-4.5, GLM-4.6, GLM-4.7",
    "block": ["<tool_call>", "</tool_call>"],
    "pairs": ["<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"],
}
#: Kimi-K2: calls in a section, each ``functions.NAME:INDEX`` then a separator tag and the JSON arguments
KIMI_K2: dict[str, Any] = {
    "name": "kimi_k2_test",
    "title": "Kimi-K2 (test only)",
    "models": "Kimi-K2",
    "block": ["<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"],
    "separated": ["<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>", "functions.", ":"],
}
#: DeepSeek-V3.1: calls in a section, each ``NAME`` then a separator tag and the JSON arguments; its own
#: end-of-sentence token
DEEPSEEK_V31: dict[str, Any] = {
    "name": "deepseek_v31_test",
    "title": "DeepSeek-V3.1 (test only)",
    "models": "DeepSeek-V3.1",
    "block": ["<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"],
    "separated": ["<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>"],
    "end_of_sequence": ["<｜end▁of▁sentence｜>"],
}
#: MiniMax-M2 / M2.5: ``<invoke name="NAME">`` with ``<parameter name="P">value</parameter>`` in a block
MINIMAX_M2: dict[str, Any] = {
    "name": "minimax_m2_test",
    "title": "MiniMax-M2 (test only)",
    "models": "MiniMax-M2, MiniMax-M2.5",
    "block": ["<minimax:tool_call>", "</minimax:tool_call>"],
    "markup": ['<invoke name="', "</invoke>", '<parameter name="', "</parameter>", '">'],
}
#: Hunyuan-A13B: a JSON array of call objects in a block,
#: ``<tool_calls>[{"name": ..., "arguments": {...}}]</tool_calls>`` (its opening tag is Hermes JSON's with an ``s``)
HUNYUAN_A13B: dict[str, Any] = {
    "name": "hunyuan_a13b_test",
    "title": "Hunyuan-A13B JSON list (test only)",
    "models": "Hunyuan-A13B",
    "block": ["<tool_calls>", "</tool_calls>"],
    "holds_list": True,
}
#: FunctionGemma (Gemma 3 270M tuned for function calling): one call a block,
#: ``<start_function_call>call:NAME{key:<escape>text<escape>,n:3}<end_function_call>``: bare keys, a string between
#: ``<escape>`` tokens, any other value as JSON (Google's "FunctionGemma formatting and best practices",
#: ai.google.dev/gemma/docs/functiongemma/formatting-and-best-practices; llama.cpp's and vLLM's ``functiongemma``
#: parsers); ``<end_of_turn>`` ends its turn and ``<start_function_response>`` is its extra stop sequence
FUNCTION_GEMMA: dict[str, Any] = {
    "name": "functiongemma_test",
    "title": "FunctionGemma (test only)",
    "models": "FunctionGemma (functiongemma-270m-it)",
    "block": ["<start_function_call>", "<end_function_call>"],
    "quoted": ["call:", "{", ":", ",", "}", "<escape>"],
    "end_of_sequence": ["<end_of_turn>", "<start_function_response>"],
}
#: Mistral Small 3.2, Magistral, Devstral (tokenizer v11 and later): each call is ``[TOOL_CALLS]NAME[ARGS]{json}``, one
#: after another with no closing tag; v11 writes ``[CALL_ID]ID`` between the name and ``[ARGS]``, v13 does not;
#: Magistral reasons in ``[THINK]`` ... ``[/THINK]``. As mistral-common writes them (github.com/mistralai/
#: mistral-common, src/mistral_common/tokens/tokenizers/instruct.py: InstructTokenizerV11 and V13
#: ``_encode_tool_calls_in_assistant_message``, ``encode_think``; tokenizers/base.py: ``SpecialTokens``)
MISTRAL: dict[str, Any] = {
    "name": "mistral_test",
    "title": "Mistral [TOOL_CALLS] (test only)",
    "models": "Mistral Small 3.2, Magistral, Devstral",
    "block": ["[TOOL_CALLS]"],
    "separated": ["", "[ARGS]", ""],
    "call_id": "[CALL_ID]",
    "reasoning": ["[THINK]", "[/THINK]"],
}
#: Llama 3.1 / 3.2 / 3.3 JSON tool calls: ``{"name": NAME, "parameters": {...}}`` (Meta's prompt format,
#: llama.com/docs/model-cards-and-prompt-formats/llama3_1/#json-based-tool-calling, and the chat template of
#: huggingface.co/meta-llama/Llama-3.1-8B-Instruct, tokenizer_config.json), after ``<|python_tag|>``, several separated
#: by ``;`` (as vLLM's llama3_json parser reads them), the turn ended by ``<|eom_id|>`` or ``<|eot_id|>``
LLAMA3_JSON: dict[str, Any] = {
    "name": "llama3_json_test",
    "title": "Llama 3.x JSON (test only)",
    "models": "Llama 3.1, Llama 3.2, Llama 3.3",
    "block": ["<|python_tag|>"],
    "call_separator": ";",
    "arguments_key": "parameters",
    "end_of_sequence": ["<|eom_id|>", "<|eot_id|>"],
}
DECLARATIONS: list[dict[str, Any]] = [
    GLM47, KIMI_K2, DEEPSEEK_V31, MINIMAX_M2, HUNYUAN_A13B, FUNCTION_GEMMA, MISTRAL, LLAMA3_JSON,
]  # fmt: skip


def switch_on() -> None:
    """Have the parser read these dialects (``LONGCAT_EXTRA_DIALECTS``, unless it is set already): called before the
    package is imported, by the tests (``conftest.py``) and the fuzzer (``tests/fuzz``); the processes they start
    inherit it."""
    os.environ.setdefault("LONGCAT_EXTRA_DIALECTS", json.dumps(DECLARATIONS))
