"""Every template rendered through transformers' own chat-template code gives the same text as ``render``."""

from __future__ import annotations

from typing import Any

import pytest
from template_cases import (
    CONVERSATIONS,
    ROUND_TRIP_CALLS,
    ROUND_TRIP_TOOLS,
    TEMPLATE_NAMES,
    assistant,
    call,
    user,
)

from longcat_plugins.replay.tokenizer import train_bpe_tokenizer
from longcat_plugins.templates import load, prepare_messages, render

transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")
from transformers.utils.chat_template_utils import render_jinja_template  # noqa: E402

KWARG_VARIANTS: list[dict[str, Any]] = [
    {},
    {"enable_thinking": False},
    {"truncate_history_thinking": False},
    {"enable_thinking": True, "truncate_history_thinking": True},
]
ROUND_TRIP = [
    user("Do three things."),
    assistant("On it.", [call(f"call_{i}", name, args) for i, (name, args) in enumerate(ROUND_TRIP_CALLS)]),
    user("Thanks"),
]
CASES = [*CONVERSATIONS, ("round-trip", ROUND_TRIP, ROUND_TRIP_TOOLS)]


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    """A small byte-level BPE tokenizer trained here, wrapped in transformers' PreTrainedTokenizerFast."""
    specials = ["<s>", "</s>", "<|im_start|>", "<|im_end|>", "</longcat_s>", "<longcat_tool_call>"]
    corpus = ["[Round 0] USER: hello ASSISTANT: tool_call get_weather Paris"] * 20
    return train_bpe_tokenizer(corpus, specials, vocab_size=400, bos_token="<s>", eos_token="</s>")


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
@pytest.mark.parametrize(("case", "messages", "tools"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("kwargs", KWARG_VARIANTS, ids=lambda k: "-".join(f"{a}={b}" for a, b in k.items()) or "x")
def test_render_jinja_template_gives_the_same_text(
    name: str,
    case: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    kwargs: dict[str, Any],
) -> None:
    for add_generation_prompt in (True, False):
        rendered, _ = render_jinja_template(
            conversations=[prepare_messages(messages)],
            tools=tools,
            chat_template=load(name),
            add_generation_prompt=add_generation_prompt,
            **kwargs,
        )
        assert rendered[0] == render(name, messages, tools, add_generation_prompt=add_generation_prompt, **kwargs)


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
@pytest.mark.parametrize(("case", "messages", "tools"), CASES, ids=[c[0] for c in CASES])
def test_apply_chat_template_of_a_tokenizer_gives_the_same_text(
    tokenizer: Any, name: str, case: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
) -> None:
    tokenizer.chat_template = load(name)
    text = tokenizer.apply_chat_template(
        prepare_messages(messages), tools=tools, tokenize=False, add_generation_prompt=True
    )
    assert text == render(name, messages, tools, **tokenizer.special_tokens_map)
    ids = tokenizer.apply_chat_template(prepare_messages(messages), tools=tools, add_generation_prompt=True)
    ids = ids["input_ids"] if isinstance(ids, dict) or hasattr(ids, "keys") else ids
    assert tokenizer.decode(ids) == text


def test_generation_tag_is_accepted() -> None:
    # transformers' {% generation %} block (assistant token masks) renders its body
    from longcat_plugins.templates._environment import compile_template

    source = "{% for m in messages %}{% generation %}{{ m.content }}{% endgeneration %}{% endfor %}"
    assert compile_template(source).render(messages=[{"content": "a"}, {"content": "b"}]) == "ab"
    rendered, _ = render_jinja_template(conversations=[[{"content": "a"}, {"content": "b"}]], chat_template=source)
    assert rendered[0] == "ab"


def test_environment_helpers_match_transformers() -> None:
    from longcat_plugins.templates._environment import compile_template

    source = (
        "{{ x | tojson }}|{{ x | tojson(indent=2) }}|{{ x | tojson(ensure_ascii=True) }}|"
        "{{ x | tojson(separators=(',', ':'), sort_keys=True) }}|"
        "{% for i in range(5) %}{% if i == 3 %}{% break %}{% endif %}"
        "{% if i == 1 %}{% continue %}{% endif %}{{ i }}{% endfor %}|{{ strftime_now('%Y') | length }}"
    )
    x = {"b": "<é>", "a": [1, 2]}
    ours = compile_template(source).render(x=x)
    theirs, _ = render_jinja_template(conversations=[[]], chat_template=source, x=x)
    assert ours == theirs[0]
    with pytest.raises(Exception, match="boom"):
        compile_template("{{ raise_exception('boom') }}").render()
