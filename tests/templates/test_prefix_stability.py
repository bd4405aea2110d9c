"""qwen3-tools-first puts the tools first: requests with the same tools and different system prompts share the
whole tools block as a common prefix (what prefix caching reuses). Seed 004's template puts the system prompt
first, so the same two requests part after a few characters.

Run with ``-s`` to see the measured characters and tokens shared.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from template_cases import ROUND_TRIP_TOOLS, SEARCH, system, user

from longcat_plugins.replay.tokenizer import train_bpe_tokenizer
from longcat_plugins.templates import render

TOOLS = [*ROUND_TRIP_TOOLS, SEARCH]
QUESTION = user("Find the weather in Paris and save it to notes/paris.txt.")
REQUEST_A = [system("You are a helpful assistant."), QUESTION]
REQUEST_B = [system("You are a terse assistant. Answer in French, in one sentence."), QUESTION]


def _common_prefix(a: Sequence[Any], b: Sequence[Any]) -> Sequence[Any]:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


def _shared(name: str) -> tuple[str, str, str]:
    a = render(name, REQUEST_A, TOOLS)
    b = render(name, REQUEST_B, TOOLS)
    return a, b, a[: len(_common_prefix(a, b))]


def test_tools_block_is_a_common_prefix() -> None:
    a, b, shared = _shared("qwen3-tools-first")
    tools_block_end = a.index("\n# Context & Instructions\n")
    assert tools_block_end == b.index("\n# Context & Instructions\n")
    assert a[:tools_block_end].endswith("within <tool_call></tool_call> XML tags:\n")
    assert "<tools>" in shared and "</tools>" in shared
    assert len(shared) >= tools_block_end + len("\n# Context & Instructions\nYou are a ")


def test_tools_block_does_not_depend_on_the_system_prompt_or_history() -> None:
    _, _, shared = _shared("qwen3-tools-first")
    no_system = render("qwen3-tools-first", [user("Something else entirely")], TOOLS)
    tools_block = shared[: shared.index("\n# Context & Instructions\n")]
    assert no_system.startswith(tools_block)


def test_seed_004_parts_at_the_system_prompt() -> None:
    a, _, shared = _shared("xml-function-thinking")
    assert shared == "<|im_start|>system\nYou are a "
    assert a.index("<tools>") > len(shared)


def _tokenizer() -> Any:
    pytest.importorskip("tokenizers")
    pytest.importorskip("transformers")
    corpus = [
        render(n, r, TOOLS) for n in ("qwen3-tools-first", "xml-function-thinking") for r in (REQUEST_A, REQUEST_B)
    ]
    specials = ["<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>"]
    return train_bpe_tokenizer(corpus * 5, specials, vocab_size=2000).backend_tokenizer


def _shared_tokens(tokenizer: Any, a: str, b: str) -> int:
    ids_a, ids_b = tokenizer.encode(a).ids, tokenizer.encode(b).ids
    return len(_common_prefix(ids_a, ids_b))


def test_report_shared_prefix() -> None:
    tokenizer = _tokenizer()
    rows = []
    for name in ("qwen3-tools-first", "xml-function-thinking"):
        a, b, shared = _shared(name)
        rows.append((name, len(shared), len(a), _shared_tokens(tokenizer, a, b), len(tokenizer.encode(a).ids)))
    print("\ntemplate                shared chars / prompt chars   shared tokens / prompt tokens (local BPE)")
    for name, chars, total, tokens, total_tokens in rows:
        print(f"{name:<22}  {chars:>6} / {total:<6} ({chars / total:6.1%})   {tokens:>5} / {total_tokens:<5}")
    (_, qwen_chars, _, qwen_tokens, _), (_, xml_chars, _, xml_tokens, _) = rows
    assert qwen_chars > 10 * xml_chars
    assert qwen_tokens > 10 * xml_tokens
