"""Our chat templates rendered by vLLM's own renderer (the serving layer's ``OnlineRenderer.render_chat``).

A request goes in as a ``ChatCompletionRequest`` (string tool-call arguments, as clients send them); vLLM
parses the messages, resolves the template (``--chat-template`` path, or the model-type fallback) and renders
it with transformers. The prompt text it hands to the engine must be the golden text and ``render``'s text.
No GPU: vLLM's platform is set to the CPU platform before its config is built.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

vllm = pytest.importorskip("vllm")
pytestmark = pytest.mark.vllm

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "templates"))
from template_cases import (  # noqa: E402
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

from longcat_plugins.replay.tokenizer import train_bpe_tokenizer  # noqa: E402
from longcat_plugins.templates import render, template_path, vllm_fallback_path  # noqa: E402


def _use_cpu_platform() -> None:
    from longcat_plugins.replay.platform import use_cpu_platform

    use_cpu_platform()


def _model_dir(root: Path) -> Path:
    """A LongCat-Flash model directory with no weights: config.json and a byte-level BPE tokenizer
    without a chat template (so that vLLM has to fall back to the one registered for the model type)."""
    specials = ["<s>", "</s>", "</longcat_s>", "<longcat_tool_call>", "</longcat_tool_call>"]
    # no BOS token, as Qwen tokenizers: seed 004 starts with {{- bos_token -}}
    tokenizer = train_bpe_tokenizer(
        ["[Round 0] USER:hello ASSISTANT:"] * 10, specials, vocab_size=300, eos_token="</s>"
    )
    tokenizer.save_pretrained(root)
    config = {
        "model_type": "longcat_flash",
        "architectures": ["LongcatFlashForCausalLM"],
        "vocab_size": 300,
        "hidden_size": 64,
        "num_layers": 1,
        "num_attention_heads": 2,
        "max_position_embeddings": 65536,
    }
    (root / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def vllm_renderer(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    _use_cpu_platform()
    from vllm.config import ModelConfig, VllmConfig
    from vllm.renderers.registry import renderer_from_config

    model = _model_dir(tmp_path_factory.mktemp("longcat-model"))
    model_config = ModelConfig(model=str(model), tokenizer=str(model))
    return model_config, renderer_from_config(VllmConfig(model_config=model_config))


def _prompt(
    vllm_renderer: tuple[Any, Any],
    chat_template: str | None,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None = None,
    **chat_template_kwargs: Any,
) -> str:
    """The prompt text vLLM's serving layer renders for a chat completion request."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.renderers.chat_utils import load_chat_template
    from vllm.renderers.online_renderer import OnlineRenderer

    model_config, renderer = vllm_renderer
    online = OnlineRenderer(
        model_config=model_config,
        renderer=renderer,
        request_logger=None,
        chat_template=load_chat_template(chat_template),
        chat_template_content_format="auto",
        enable_auto_tools=True,
        tool_parser="longcat",
    )
    request = ChatCompletionRequest(
        model="longcat", messages=messages, tools=tools, chat_template_kwargs=chat_template_kwargs or None
    )
    result = asyncio.run(online.render_chat(request))
    assert isinstance(result, tuple), result
    _, engine_inputs = result
    prompt = engine_inputs[0]["prompt"]
    assert renderer.tokenizer.decode(engine_inputs[0]["prompt_token_ids"]) == prompt
    return prompt


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
def test_golden_through_vllm(vllm_renderer: tuple[Any, Any], name: str) -> None:
    path = str(template_path(name))
    assert _prompt(vllm_renderer, path, WITH_SYSTEM) == GOLDEN_SYSTEM[name]
    assert _prompt(vllm_renderer, path, TOOL_CALLS) == GOLDEN_TOOL_CALLS[name]


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
@pytest.mark.parametrize(("case", "messages", "tools"), CONVERSATIONS, ids=[c[0] for c in CONVERSATIONS])
def test_vllm_renders_what_render_shows(
    vllm_renderer: tuple[Any, Any],
    name: str,
    case: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
) -> None:
    assert _prompt(vllm_renderer, str(template_path(name)), messages, tools) == render(name, messages, tools)


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
@pytest.mark.parametrize(
    ("case", "messages", "tools"), CONTENT_PART_CONVERSATIONS, ids=[c[0] for c in CONTENT_PART_CONVERSATIONS]
)
def test_content_parts_render_as_render_shows(
    vllm_renderer: tuple[Any, Any],
    name: str,
    case: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
) -> None:
    """Content given as parts goes through vLLM's content-format detection and flattening ("auto")."""
    prompt = _prompt(vllm_renderer, str(template_path(name)), messages, tools)
    assert prompt == render(name, messages, tools, engine="vllm")
    assert "'type': 'text'" not in prompt


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
def test_one_text_part_renders_as_the_string(vllm_renderer: tuple[Any, Any], name: str) -> None:
    path = str(template_path(name))
    assert _prompt(vllm_renderer, path, as_parts(TOOL_CALLS_DONE), [WEATHER]) == _prompt(
        vllm_renderer, path, TOOL_CALLS_DONE, [WEATHER]
    )


def test_chat_template_kwargs_reach_the_template(vllm_renderer: tuple[Any, Any]) -> None:
    path = str(template_path("xml-function-thinking"))
    prompt = _prompt(vllm_renderer, path, WITH_SYSTEM, [WEATHER], enable_thinking=False)
    assert prompt == render("xml-function-thinking", WITH_SYSTEM, [WEATHER], enable_thinking=False)
    assert prompt.endswith("<|im_start|>assistant\n<think></think>")


def test_plugin_registers_the_fallback() -> None:
    # longcat_plugins.vllm.register(), run by vLLM's plugin loader, registers our template for longcat_flash
    from vllm.plugins import load_general_plugins
    from vllm.transformers_utils.chat_templates.registry import get_chat_template_fallback_path

    load_general_plugins()
    assert get_chat_template_fallback_path("longcat_flash", "meituan-longcat/LongCat-Flash-Chat") == (
        vllm_fallback_path("longcat_flash")
    )


def test_model_type_fallback(vllm_renderer: tuple[Any, Any]) -> None:
    # what longcat_plugins.vllm.register() is expected to do for model type longcat_flash
    from vllm.transformers_utils.chat_templates import registry

    path = vllm_fallback_path("longcat_flash")
    assert path is not None
    before = registry._MODEL_TYPE_TO_CHAT_TEMPLATE_FALLBACK.get("longcat_flash")
    registry.register_chat_template_fallback_path("longcat_flash", path)
    try:
        assert _prompt(vllm_renderer, None, WITH_SYSTEM) == GOLDEN_SYSTEM["longcat-flash-chat"]
    finally:
        if before is None:
            registry._MODEL_TYPE_TO_CHAT_TEMPLATE_FALLBACK.pop("longcat_flash", None)
        else:
            registry._MODEL_TYPE_TO_CHAT_TEMPLATE_FALLBACK["longcat_flash"] = before
