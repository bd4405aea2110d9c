"""Does the prompt leave the output inside reasoning? Read from the prompt's tokens, where think tags are single
tokens but LongCat's turn boundary (``ASSISTANT:``) is several: a think tag in the user's message is the user's text.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_support import Result, Serving, answer, template_serving

pytestmark = pytest.mark.vllm

TAGS = [
    "<longcat_tool_call>",
    "</longcat_tool_call>",
    "<longcat_think>",
    "</longcat_think>",
    "<think>",
    "</think>",
    "</longcat_s>",
]
ANSWER = "It marks the start of the model's reasoning."
LONG = " ".join(f"word{i}" for i in range(300))


@pytest.fixture(scope="module")
def serving(tmp_path_factory: pytest.TempPathFactory) -> Serving:
    serving = template_serving(tmp_path_factory.mktemp("longcat"), TAGS, "longcat-flash-chat")
    for tag in TAGS:
        assert len(serving.tokenizer.encode(tag, add_special_tokens=False)) == 1
    assert len(serving.tokenizer.encode(" ASSISTANT:", add_special_tokens=False)) > 1
    return serving


def _request(question: str, stream: bool) -> Any:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    return ChatCompletionRequest(model="m", messages=[{"role": "user", "content": question}], stream=stream)


@pytest.mark.parametrize(
    "question",
    [
        "What does <think> mean?",
        "What does <longcat_think> mean?",
        "Close it with </think> or not? <think>",
        "Explain <think> in detail: " + LONG,
    ],
    ids=["think", "longcat_think", "both", "long_message_after_the_tag"],
)
def test_a_think_tag_in_the_user_message_is_not_reasoning(serving: Serving, question: str) -> None:
    engine = serving.engine
    engine.output, engine.finish_reason = ANSWER, "stop"
    whole = answer(serving, _request(question, stream=False))
    assert (whole.content, whole.reasoning) == (ANSWER, "")
    assert engine.calls[-1].kwargs["reasoning_ended"] is True  # constrained decoding applies from the first token
    for group in (1, 4, 64):
        engine.group = group
        streamed = answer(serving, _request(question, stream=True))
        assert streamed == Result(content=ANSWER), group


PROMPT = "[Round 0] USER:hi ASSISTANT:"


@pytest.mark.parametrize(
    ("prompt", "ended"),
    [
        (PROMPT, True),
        (PROMPT + "<longcat_think>\n", False),
        (PROMPT + "<think>", False),
        (PROMPT + "<longcat_think></longcat_think>", True),
        (PROMPT + "<think>\n" + LONG, False),  # continuing a long pre-filled reasoning
        (PROMPT + "<think>\n" + LONG + "</think>", True),
        ("[Round 0] USER:what is <think>? ASSISTANT:", True),
        ("[Round 0] USER:<think> " + LONG + " ASSISTANT:", True),
        ("[Round 0] USER:hi ASSISTANT:<think>a</think>b</longcat_s> [Round 1] USER:and? ASSISTANT:", True),
        ("[Round 0] USER:hi ASSISTANT:<think>a</think>b</longcat_s> [Round 1] USER:and? ASSISTANT:<think>", False),
    ],
)
def test_prompt_state_from_tokens(serving: Serving, prompt: str, ended: bool) -> None:
    from vllm.parser.parser_manager import ParserManager

    tokenizer = serving.tokenizer
    parser_cls = ParserManager.get_parser(
        tool_parser_name="longcat", reasoning_parser_name="longcat", enable_auto_tools=True, tokenizer=tokenizer
    )
    parser = parser_cls(tokenizer, None, chat_template_kwargs={})
    prompt_ids = tokenizer.encode(prompt, add_special_tokens=False)
    assert parser.is_reasoning_end(prompt_ids) is ended
    parser.set_prompt_token_ids(prompt_ids)
    assert parser.reasoning_parser.reasoning_open is not ended
