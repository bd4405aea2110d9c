"""Our chat templates rendered by an engine's own serving layer: the prompt text it hands to the engine must be the
golden text and ``render``'s text.

The importing module names its engine ``ENGINE`` and provides the fixture ``prompt``: ``prompt(name, messages,
tools=None, **chat_template_kwargs)`` renders a chat completion request with the template ``name``."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from longcat_plugins.replay.tokenizer import train_bpe_tokenizer
from longcat_plugins.templates import render
from tests.support.model_dir import save_model_dir

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "templates"))
from template_cases import (
    CONTENT_PART_CONVERSATIONS,
    CONVERSATIONS,
    GOLDEN_SYSTEM,
    GOLDEN_TOOL_CALLS,
    TEMPLATE_NAMES,
    TOOL_CALLS,
    TOOL_CALLS_DONE,
    WEATHER,
    WITH_SYSTEM,
    as_parts,
)

__all__ = [
    "test_chat_template_kwargs_reach_the_template",
    "test_content_parts_render_as_render_shows",
    "test_golden_through_the_engine",
    "test_one_text_part_renders_as_the_string",
    "test_the_engine_renders_what_render_shows",
]

Prompt = Callable[..., str]


def longcat_model_dir(root: Path) -> Path:
    """A LongCat-Flash model directory with no weights: config.json and a byte-level BPE tokenizer without a chat
    template (so that an engine has to fall back to the one registered for the model type)."""
    specials = ["<s>", "</s>", "</longcat_s>", "<longcat_tool_call>", "</longcat_tool_call>"]
    # no BOS token, as Qwen tokenizers: seed 004 starts with {{- bos_token -}}
    tokenizer = train_bpe_tokenizer(
        ["[Round 0] USER:hello ASSISTANT:"] * 10, specials, vocab_size=300, eos_token="</s>"
    )
    fields = {"vocab_size": 300, "hidden_size": 64, "num_layers": 1, "num_attention_heads": 2}
    return save_model_dir(
        root, tokenizer, "longcat_flash", "LongcatFlashForCausalLM", **fields, max_position_embeddings=65536
    )


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
def test_golden_through_the_engine(prompt: Prompt, name: str) -> None:
    assert prompt(name, WITH_SYSTEM) == GOLDEN_SYSTEM[name]
    assert prompt(name, TOOL_CALLS) == GOLDEN_TOOL_CALLS[name]


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
@pytest.mark.parametrize(("case", "messages", "tools"), CONVERSATIONS, ids=[c[0] for c in CONVERSATIONS])
def test_the_engine_renders_what_render_shows(
    prompt: Prompt, name: str, case: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
) -> None:
    assert prompt(name, messages, tools) == render(name, messages, tools)


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
@pytest.mark.parametrize(
    ("case", "messages", "tools"), CONTENT_PART_CONVERSATIONS, ids=[c[0] for c in CONTENT_PART_CONVERSATIONS]
)
def test_content_parts_render_as_render_shows(
    request: pytest.FixtureRequest,
    prompt: Prompt,
    name: str,
    case: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
) -> None:
    """Content given as parts goes through the engine's content-format detection and flattening."""
    text = prompt(name, messages, tools)
    assert text == render(name, messages, tools, engine=request.module.ENGINE)
    assert "'type': 'text'" not in text


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
def test_one_text_part_renders_as_the_string(prompt: Prompt, name: str) -> None:
    assert prompt(name, as_parts(TOOL_CALLS_DONE), [WEATHER]) == prompt(name, TOOL_CALLS_DONE, [WEATHER])


def test_chat_template_kwargs_reach_the_template(prompt: Prompt) -> None:
    text = prompt("xml-function-thinking", WITH_SYSTEM, [WEATHER], enable_thinking=False)
    assert text == render("xml-function-thinking", WITH_SYSTEM, [WEATHER], enable_thinking=False)
    assert text.endswith("<|im_start|>assistant\n<think></think>")
