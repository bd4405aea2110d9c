"""Our chat templates rendered by vLLM's own renderer (the serving layer's ``OnlineRenderer.render_chat``).

A request goes in as a ``ChatCompletionRequest`` (string tool-call arguments, as clients send them); vLLM
parses the messages, resolves the template (``--chat-template`` path, or the model-type fallback) and renders
it with transformers. The prompt text it hands to the engine must be the golden text and ``render``'s text.
No GPU: vLLM's platform is set to the CPU platform before its config is built.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

vllm = pytest.importorskip("vllm")
pytestmark = pytest.mark.vllm

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "templates"))
from template_cases import GOLDEN_SYSTEM, WITH_SYSTEM  # noqa: E402

from longcat_plugins.replay.platform import use_cpu_platform  # noqa: E402
from longcat_plugins.templates import template_path, vllm_fallback_path  # noqa: E402
from tests.support.twins.templates import *  # noqa: E402, F403 (the shared template tests, run on vLLM)
from tests.support.twins.templates import Prompt, longcat_model_dir  # noqa: E402

ENGINE = "vllm"


@pytest.fixture(scope="module")
def vllm_renderer(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    use_cpu_platform()
    from vllm.config import ModelConfig, VllmConfig
    from vllm.renderers.registry import renderer_from_config

    model = longcat_model_dir(tmp_path_factory.mktemp("longcat-model"))
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


@pytest.fixture(scope="module")
def prompt(vllm_renderer: tuple[Any, Any]) -> Prompt:
    def render_with(name: str, messages: list[dict[str, Any]], tools: Any = None, **kwargs: Any) -> str:
        return _prompt(vllm_renderer, str(template_path(name)), messages, tools, **kwargs)

    return render_with


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
