"""SGLang's ``/separate_reasoning`` endpoint with ``reasoning_parser: "longcat"``, through SGLang's real HTTP app: it
hands the detector a text with no request or prompt, so where the template opened reasoning in the prompt
(``xml-function-thinking``, LongCat-Flash-Thinking's ``<longcat_think>``) the text starts inside reasoning with
nothing to say so. The first think tag decides: a closer with no opener before it ends reasoning that started with the
text; text with no think tag is content. A chat completion of the same output on the same server, where the prompt
decides, reads it the same way."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_sglang_serving_chat import ScriptedTokenizerManager, _serving_chat, build_tokenizer, chat, server_args

from longcat_plugins.core import ParserOptions, parse
from longcat_plugins.templates import template_path

pytestmark = pytest.mark.sglang

__all__ = ["server_args"]  # (the fixture)

#: (text, reasoning, content)
STARTS_INSIDE_REASONING = [
    ("The user wants a file.</think>Writing it.", "The user wants a file.", "Writing it."),
    ("\nThe user wants a file.\n</think>\n\nWriting it.", "\nThe user wants a file.\n", "\n\nWriting it."),
    ("Hmm.</longcat_think>Done.", "Hmm.", "Done."),
    ("A <b>tag</b> and <tool_call> in thought.</think>ok", "A <b>tag</b> and <tool_call> in thought.", "ok"),
]
NO_REASONING = [
    ("Just the answer.", "", "Just the answer."),
    ("", "", ""),
    ("An answer about the <think tag.", "", "An answer about the <think tag."),
]
OPENED_IN_THE_OUTPUT = [
    ("<think>plan</think>answer", "plan", "answer"),
    ("<longcat_think>plan</longcat_think>answer", "plan", "answer"),
    ("Intro <think>plan</think>answer", "plan", "Intro answer"),
]
CASES = STARTS_INSIDE_REASONING + NO_REASONING + OPENED_IN_THE_OUTPUT


@pytest.fixture(scope="module")
def served(server_args: Any) -> Iterator[tuple[Any, Any, ScriptedTokenizerManager]]:
    """SGLang's HTTP app as ``launch_server`` sets it up (its chat serving, the global state the endpoint reads),
    serving the template that opens reasoning in the prompt; the tokenizer manager replays a scripted generation."""
    from sglang.srt.entrypoints import http_server
    from starlette.testclient import TestClient

    template = Path(template_path("xml-function-thinking")).read_text(encoding="utf-8")
    manager = ScriptedTokenizerManager(server_args, build_tokenizer(template))
    serving_chat = _serving_chat(manager)
    before = (http_server.get_global_state(), getattr(http_server.app.state, "openai_serving_chat", None))
    http_server.app.state.openai_serving_chat = serving_chat
    state = http_server._GlobalState(
        tokenizer_manager=manager, template_manager=serving_chat.template_manager, scheduler_info={}
    )
    http_server.set_global_state(state)
    try:
        yield TestClient(http_server.app), serving_chat, manager
    finally:
        http_server.set_global_state(before[0])
        http_server.app.state.openai_serving_chat = before[1]


def _separate(client: Any, text: str, parser: str = "longcat", **extra: Any) -> dict[str, Any]:
    response = client.post("/separate_reasoning", json={"text": text, "reasoning_parser": parser, **extra})
    assert response.status_code == 200, response.text
    return dict(response.json())


@pytest.mark.parametrize(("text", "reasoning", "content"), CASES)
def test_separate_reasoning(served: Any, text: str, reasoning: str, content: str) -> None:
    client, _, _ = served
    assert _separate(client, text) == {"reasoning_text": reasoning, "text": content}


@pytest.mark.parametrize(("text", "reasoning", "content"), CASES)
def test_the_core_reads_a_text_with_no_request_so(text: str, reasoning: str, content: str) -> None:
    expected = parse(text, None, ParserOptions(tools=False, reasoning_start_unknown=True))
    assert (expected.reasoning, expected.content) == (reasoning, content)


@pytest.mark.parametrize(("text", "reasoning", "content"), CASES)
def test_separate_reasoning_blocks(served: Any, text: str, reasoning: str, content: str) -> None:
    client, _, _ = served
    answer = _separate(client, text, return_blocks=True)
    assert (answer["reasoning_text"], answer["text"]) == (reasoning, content)
    assert answer["reasoning_blocks"] == ([reasoning] if reasoning else [])


@pytest.mark.parametrize(("text", "reasoning", "content"), STARTS_INSIDE_REASONING)
def test_a_chat_completion_of_the_same_output_reads_it_the_same(
    served: Any, text: str, reasoning: str, content: str
) -> None:
    """The chat path: the prompt (the template opened reasoning) decides, as before."""
    _, serving_chat, manager = served
    manager.script([text])
    message = chat(serving_chat, stream=False, tools=None).choices[0].message
    assert (message.reasoning_content or "", message.content or "") == (reasoning, content)


def test_the_chat_path_keeps_the_prompts_word(served: Any) -> None:
    """With thinking switched off the template closes reasoning in the prompt: a stray closer in the output is
    markup, and the text around it content (the prompt decides, not the first think tag)."""
    _, serving_chat, manager = served
    text = "Answer.</think>More."
    manager.script([text])
    response = chat(serving_chat, stream=False, tools=None, chat_template_kwargs={"enable_thinking": False})
    message = response.choices[0].message
    assert (message.reasoning_content or "", message.content) == ("", "Answer.More.")


@pytest.mark.parametrize("size", [1, 3, 8])
@pytest.mark.parametrize(("text", "reasoning", "content"), CASES)
def test_streamed_with_no_request(text: str, reasoning: str, content: str, size: int) -> None:
    """A reasoning parser SGLang builds with no request, streamed: the same reading as the whole text."""
    from sglang.srt.parser.reasoning_parser import ReasoningParser

    parser = ReasoningParser("longcat", stream_reasoning=True)
    pieces = [parser.parse_stream_chunk(text[i : i + size]) for i in range(0, len(text), size)]
    pieces.append(parser.parse_stream_end())
    assert ("".join(r or "" for r, _ in pieces), "".join(c or "" for _, c in pieces)) == (reasoning, content)
