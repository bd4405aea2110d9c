"""The chat templates shipped with longcat-plugins: a name -> ``.jinja`` path registry, and rendering.

``render`` renders exactly as the engines do: vLLM and SGLang turn an assistant tool call's JSON-string
``arguments`` into an object and content given as parts into text (``content_parts``), then call transformers'
``apply_chat_template``, whose Jinja environment ``_environment`` rebuilds. So what ``render`` returns is the prompt
text the engine tokenizes.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from longcat_plugins.templates._environment import compile_template
from longcat_plugins.templates.content_parts import ENGINES, flatten_content, takes_content_parts

TEMPLATE_DIR = Path(__file__).resolve().parent

TEMPLATES: Mapping[str, str] = {
    "longcat-flash-chat": "longcat-flash-chat.jinja",
    "qwen3-tools-first": "qwen3-tools-first.jinja",
    "xml-function-thinking": "xml-function-thinking.jinja",
}

# model_type (config.json) -> template name, for vLLM's register_chat_template_fallback_path.
VLLM_FALLBACKS: Mapping[str, str] = {"longcat_flash": "longcat-flash-chat"}

Message = Mapping[str, Any]


class UnknownTemplateError(LookupError):
    """A template name that is neither registered nor an existing file."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"unknown chat template {name!r}; known templates: {', '.join(names())}")


def names() -> list[str]:
    """The registered template names."""
    return sorted(TEMPLATES)


def template_path(name: str) -> Path:
    """The path of the ``.jinja`` file of a registered template name."""
    try:
        return TEMPLATE_DIR / TEMPLATES[name]
    except KeyError:
        raise UnknownTemplateError(name) from None


def resolve(name_or_path: str | Path) -> Path:
    """A registered name's path, or ``name_or_path`` itself when it is an existing file."""
    if isinstance(name_or_path, str) and name_or_path in TEMPLATES:
        return template_path(name_or_path)
    path = Path(name_or_path)
    if path.is_file():
        return path
    raise UnknownTemplateError(str(name_or_path))


def load(name_or_path: str | Path) -> str:
    """The Jinja source of a template (by name or path)."""
    return resolve(name_or_path).read_text(encoding="utf-8")


def vllm_fallback_path(model_type: str) -> Path | None:
    """The template vLLM should fall back to for ``model_type`` when the tokenizer has none."""
    name = VLLM_FALLBACKS.get(model_type)
    return template_path(name) if name is not None else None


def prepare_messages(messages: Sequence[Message], flatten_for: str | None = None) -> list[dict[str, Any]]:
    """A copy of ``messages`` with tool-call ``arguments`` given as JSON text turned into objects, and with
    ``flatten_for`` an engine name, content parts joined into text as that engine does for a string-format template.

    vLLM (``_postprocess_messages``) and SGLang (``normalize_assistant_tool_call_arguments``) do this
    before rendering; templates such as xml-function-thinking iterate over the arguments object.
    """
    prepared = [dict(message) for message in copy.deepcopy(list(messages))]
    for message in prepared:
        if flatten_for is not None and "content" in message:
            message["content"] = flatten_content(message["content"], flatten_for)
        calls = message.get("tool_calls")
        if message.get("role") != "assistant" or not isinstance(calls, list):
            continue
        for call in calls:
            function = call.get("function") if isinstance(call, dict) else None
            if not isinstance(function, dict):
                continue
            arguments = function.get("arguments")
            if arguments is None or arguments == "":
                function["arguments"] = {}
            elif isinstance(arguments, str):
                try:
                    parsed = json.loads(arguments)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"tool call arguments are not valid JSON: {exc}") from None
                if not isinstance(parsed, dict):
                    raise ValueError("tool call arguments must be a JSON object")
                function["arguments"] = parsed
    return prepared


def render(
    name_or_path: str | Path,
    messages: Sequence[Message],
    tools: Sequence[Mapping[str, Any]] | None = None,
    add_generation_prompt: bool = True,
    engine: str = "vllm",
    **kwargs: Any,
) -> str:
    """Render a conversation with a chat template, as ``engine``'s serving layer and ``apply_chat_template`` do.

    ``tools`` are OpenAI tool dicts; ``kwargs`` become template variables (``enable_thinking``,
    ``bos_token`` ...), the way ``chat_template_kwargs`` and the tokenizer's special tokens do. The engines
    differ only in how they join several text parts of one message's content (see ``content_parts``).
    """
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; known: {', '.join(ENGINES)}")
    if tools is not None:
        for tool in tools:
            if not isinstance(tool, Mapping):
                raise TypeError("tools must be JSON-schema dicts")
    source = load(name_or_path)
    template = compile_template(source)
    return template.render(
        messages=prepare_messages(messages, None if takes_content_parts(source) else engine),
        tools=[dict(tool) for tool in tools] if tools is not None else None,
        documents=None,
        add_generation_prompt=add_generation_prompt,
        **kwargs,
    )


def segment_renderer(name_or_path: str | Path) -> Callable[..., list[str]]:
    """A ``render_segments`` callable (SGLang's PythonChatTemplate shape) rendering one template."""

    def render_segments(
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, Any]] | None = None,
        add_generation_prompt: bool = False,
        **kwargs: Any,
    ) -> list[str]:
        kwargs.pop("documents", None)
        return [render(name_or_path, messages, tools, add_generation_prompt, engine="sglang", **kwargs)]

    return render_segments


__all__ = [
    "TEMPLATES",
    "TEMPLATE_DIR",
    "VLLM_FALLBACKS",
    "UnknownTemplateError",
    "load",
    "names",
    "prepare_messages",
    "render",
    "resolve",
    "segment_renderer",
    "template_path",
    "vllm_fallback_path",
]
