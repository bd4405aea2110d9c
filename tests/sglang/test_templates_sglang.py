"""Our chat templates loaded by SGLang's template manager and rendered by its OpenAI serving layer.

The server is set up the way ``launch_server`` does it, without a scheduler: ``ServerArgs(chat_template=PATH)``
is published, ``init_tokenizer_manager`` builds the TokenizerManager and lets the TemplateManager load the
``.jinja``, and ``OpenAIServingChat._process_messages`` turns a chat completion request (string tool-call
arguments, as clients send them) into the prompt tokens. Their text must be the golden text and ``render``'s.
The model directory holds a config.json and a small tokenizer, no weights.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sglang")
pytestmark = pytest.mark.sglang

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "templates"))
from template_cases import GOLDEN_SYSTEM, GOLDEN_TOOL_CALLS, TEMPLATE_NAMES, TOOL_CALLS, WITH_SYSTEM  # noqa: E402

from longcat_plugins.templates import load, segment_renderer, template_path  # noqa: E402
from tests.support.twins.templates import *  # noqa: E402, F403 (the shared template tests, run on SGLang)
from tests.support.twins.templates import Prompt, longcat_model_dir  # noqa: E402

ENGINE = "sglang"

Managers = tuple[Any, Any]  # (TokenizerManager, TemplateManager)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return longcat_model_dir(tmp_path_factory.mktemp("longcat-model"))


@pytest.fixture(scope="module")
def start_server(model_dir: Path) -> Iterator[Callable[[str], Managers]]:
    """Build SGLang's tokenizer and template managers for ``--chat-template VALUE``, as launch_server does."""
    from sglang.srt.entrypoints.engine import init_tokenizer_manager
    from sglang.srt.runtime_context import publish, restore_context, snapshot_context
    from sglang.srt.server_args import PortArgs, ServerArgs

    before = snapshot_context()
    started: list[Managers] = []

    def start(chat_template: str) -> Managers:
        server_args = ServerArgs(model_path=str(model_dir), device="cpu", chat_template=chat_template)
        publish(server_args, role="tokenizer")
        managers = init_tokenizer_manager(server_args, PortArgs.init_new(server_args))
        started.append(managers)
        return managers

    yield start
    for tokenizer_manager, _ in started:
        _close_sockets(tokenizer_manager)
    restore_context(before)


def _close_sockets(tokenizer_manager: Any) -> None:
    """Close the TokenizerManager's ZeroMQ sockets (no scheduler ever connects): a context collected with open
    sockets blocks in ``term()``."""
    import zmq

    for value in vars(tokenizer_manager).values():
        for candidate in (value, *getattr(value, "__dict__", {}).values()):
            if isinstance(candidate, zmq.Socket) and not candidate.closed:
                candidate.close(linger=0)


@pytest.fixture(scope="module")
def servers(start_server: Callable[[str], Managers]) -> dict[str, Managers]:
    return {name: start_server(str(template_path(name))) for name in TEMPLATE_NAMES}


def _prompt(
    managers: Managers,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None = None,
    **chat_template_kwargs: Any,
) -> str:
    from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest
    from sglang.srt.entrypoints.openai.serving_chat import OpenAIServingChat

    tokenizer_manager, template_manager = managers
    serving = OpenAIServingChat(tokenizer_manager, template_manager)
    request = ChatCompletionRequest(
        model="longcat", messages=messages, tools=tools, chat_template_kwargs=chat_template_kwargs or None
    )
    result = serving._process_messages(request, False)
    return tokenizer_manager.tokenizer.decode(result.prompt_ids)


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
def test_template_manager_loads_the_jinja(servers: dict[str, Managers], name: str) -> None:
    tokenizer_manager, template_manager = servers[name]
    assert template_manager.chat_template_name is None  # a Jinja file, not a built-in conversation template
    assert template_manager.jinja_template_content_format == "string"
    # SGLang strips surrounding newlines and turns each backslash-n into a newline (same Jinja string values)
    assert tokenizer_manager.tokenizer.chat_template == load(name).strip("\n").replace("\\n", "\n")


@pytest.fixture(scope="module")
def prompt(servers: dict[str, Managers]) -> Prompt:
    def render_with(name: str, messages: list[dict[str, Any]], tools: Any = None, **kwargs: Any) -> str:
        return _prompt(servers[name], messages, tools, **kwargs)

    return render_with


def test_a_template_name_is_not_a_jinja_path(servers: dict[str, Managers], model_dir: Path) -> None:
    # SGLang resolves --chat-template as a built-in name or an existing file: our short names need the path
    # form (`--chat-template "$(longcat-plugins template longcat-flash-chat)"`) unless a plugin registers them.
    from sglang.srt.parser.python_chat_template import PYTHON_CHAT_TEMPLATES
    from sglang.srt.parser.template_manager import TemplateManager

    if "longcat-flash-chat" in PYTHON_CHAT_TEMPLATES:
        pytest.skip("a plugin registered longcat-flash-chat as a Python chat template")
    tokenizer_manager, _ = servers["longcat-flash-chat"]
    with pytest.raises(RuntimeError, match="not a built-in template name"):
        TemplateManager().initialize_templates(
            tokenizer_manager=tokenizer_manager, model_path=str(model_dir), chat_template="longcat-flash-chat"
        )


def test_a_name_can_be_registered_as_a_python_chat_template(start_server: Callable[[str], Managers]) -> None:
    # What a plugin can do in SGLang 0.5.23 to make `--chat-template longcat-flash-chat` work: register a
    # PythonChatTemplate (its renderer renders our .jinja exactly as the Jinja path does).
    from sglang.srt.parser import python_chat_template

    template = python_chat_template.PythonChatTemplate(
        name="longcat-flash-chat",
        render_segments=segment_renderer("longcat-flash-chat"),
        content_format="string",
        reasoning_config=None,
        may_reorder_tool_results=False,
        supports_inline_system=False,
        tool_call_parser="longcat",
    )
    registry = python_chat_template.PYTHON_CHAT_TEMPLATES
    before = registry.get(template.name)
    registry[template.name] = template
    try:
        managers = start_server("longcat-flash-chat")
        assert managers[1].python_chat_template is template
        assert _prompt(managers, WITH_SYSTEM) == GOLDEN_SYSTEM["longcat-flash-chat"]
        assert _prompt(managers, TOOL_CALLS) == GOLDEN_TOOL_CALLS["longcat-flash-chat"]
    finally:
        if before is None:
            registry.pop(template.name, None)
        else:
            registry[template.name] = before
