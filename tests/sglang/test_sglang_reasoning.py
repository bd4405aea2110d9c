"""``ReasoningParser("longcat")``, alone and followed by the tool-call parser as SGLang's chat serving chains them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sglang.srt.entrypoints.openai.protocol import Tool
from sglang.srt.function_call.function_call_parser import FunctionCallParser
from sglang.srt.parser.reasoning_parser import ReasoningParser
from sglang_cases import TOOLS
from sglang_support import chunks, reasoning_pieces, stream_reasoning_parser, stream_tool_parser
from tokenizers import Tokenizer, models

from longcat_plugins.core import ParserOptions, parse
from longcat_plugins.replay.tokenizer import train_bpe_tokenizer
from longcat_plugins.sglang.reasoning import LongcatReasoningDetector

pytestmark = pytest.mark.sglang

CHUNK_SIZES = [1, 4, 64, None]
CALL = '<longcat_tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</longcat_tool_call>'

# (id, text, force_reasoning, expected reasoning, expected normal text)
REASONING_CASES = [
    ("think", "<think>Let me think.</think>The answer is 4.", False, "Let me think.", "The answer is 4."),
    ("longcat-think", "<longcat_think>hmm</longcat_think>ok", False, "hmm", "ok"),
    ("no-reasoning", "Just an answer, 1 < 2.", False, "", "Just an answer, 1 < 2."),
    ("pre-opened", "planning...</think>Done.", True, "planning...", "Done."),
    ("pre-opened-longcat", "planning...</longcat_think>Done.", True, "planning...", "Done."),
    ("truncated-reasoning", "<think>still thinking", False, "still thinking", ""),
    ("ends-at-tool-call", f"<think>I need the weather. {CALL}", False, "I need the weather. ", CALL),
    ("pre-opened-ends-at-tool-call", f"weather needed{CALL}", True, "weather needed", CALL),
]


def core(text: str, force: bool) -> tuple[str, str]:
    message = parse(text, None, ParserOptions(tools=False, reasoning_open=force))
    return message.reasoning, message.content


def test_registered_detector() -> None:
    assert ReasoningParser.DetectorMap["longcat"] is LongcatReasoningDetector
    assert isinstance(ReasoningParser("longcat").detector, LongcatReasoningDetector)


@pytest.mark.parametrize("case", REASONING_CASES, ids=lambda c: c[0])
def test_non_streaming(case: tuple) -> None:
    _, text, force, reasoning, normal = case
    parser = ReasoningParser("longcat", force_reasoning=force)
    assert parser.parse_non_stream(text) == (reasoning, normal) == core(text, force)


@pytest.mark.parametrize("size", CHUNK_SIZES, ids=lambda s: f"chunk{s or '-whole'}")
@pytest.mark.parametrize("case", REASONING_CASES, ids=lambda c: c[0])
def test_streaming(case: tuple, size: int | None) -> None:
    _, text, force, reasoning, normal = case
    parser = ReasoningParser("longcat", force_reasoning=force)
    assert stream_reasoning_parser(parser, chunks(text, size)) == (reasoning, normal)


def test_stream_reasoning_false_releases_reasoning_when_it_ends() -> None:
    parser = ReasoningParser("longcat", stream_reasoning=False)
    steps = [parser.parse_stream_chunk(piece) for piece in chunks("<think>abcdef</think>xyz", 3)]
    released = [r for r, _ in steps if r]
    assert released == ["abcdef"]
    assert "".join(n or "" for _, n in steps) + (parser.parse_stream_end()[1] or "") == "xyz"


def test_force_nonempty_content_turns_reasoning_only_output_into_content() -> None:
    detector = LongcatReasoningDetector(force_nonempty_content=True)
    result = detector.detect_and_parse("<think>only thoughts</think>")
    assert (result.reasoning_text, result.normal_text) == ("", "only thoughts")


def test_force_nonempty_content_when_streaming() -> None:
    detector = LongcatReasoningDetector(force_nonempty_content=True)
    streamed = [detector.parse_streaming_increment(piece) for piece in chunks("<think>only thoughts</think>", 4)]
    end = detector.finish()
    assert "".join(r.reasoning_text for r in streamed) == "only thoughts"
    assert (end.normal_text, end.reasoning_text) == ("only thoughts", "")


def test_continue_final_message_inside_reasoning() -> None:
    detector = LongcatReasoningDetector(continue_final_message=True, previous_content="<think>so far")
    result = detector.detect_and_parse(" more</think>answer")
    assert (result.reasoning_text, result.normal_text) == (" more", "answer")


@pytest.mark.parametrize(
    ("previous", "opens"),
    [
        ([{"type": "text", "text": "<think>so far"}], True),
        ([{"type": "text", "text": "<think>done"}, {"type": "text", "text": "</think>Ans"}], False),
        ([{"type": "image_url", "image_url": {"url": "data:,"}}, {"type": "text", "text": "<think>"}], True),
        ([{"type": "text", "text": "Ans"}], False),
        (None, False),
    ],
    ids=["one-text-part", "closed-in-a-later-part", "image-then-text", "plain-text-part", "no-content"],
)
def test_continue_final_message_with_content_parts(previous: list[dict[str, Any]] | None, opens: bool) -> None:
    """SGLang passes the continued message's content as the client sent it (here as dicts)."""
    detector = LongcatReasoningDetector(continue_final_message=True, previous_content=previous)
    result = detector.detect_and_parse("more")
    assert (result.reasoning_text, result.normal_text) == (("more", "") if opens else ("", "more"))


def test_not_forced_by_default() -> None:
    """SGLang forces reasoning from a detector's default unless told otherwise; ours never forces it by default."""
    assert LongcatReasoningDetector().reasoning_default is None


def test_think_end_token_ids_prefer_a_single_token_tag() -> None:
    from transformers import PreTrainedTokenizerFast

    vocab = {"a": 0, "b": 1}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="a"))
    tok.add_special_tokens(["</longcat_think>", "</think>"])
    hf = PreTrainedTokenizerFast(tokenizer_object=tok)
    ids = LongcatReasoningDetector().get_think_end_token_ids(hf)
    assert ids == [hf.convert_tokens_to_ids("</longcat_think>")]


@pytest.mark.parametrize("size", CHUNK_SIZES, ids=lambda s: f"chunk{s or '-whole'}")
@pytest.mark.parametrize("force", [False, True], ids=["think-tag", "pre-opened"])
def test_reasoning_then_tools(size: int | None, force: bool) -> None:
    """The reasoning parser's normal text feeds the tool-call parser, chunk by chunk, as in serving_chat."""
    text = ("" if force else "<think>") + "Weather needed.</think>Checking.\n" + CALL + "\nDone."
    reasoning_parser = ReasoningParser("longcat", force_reasoning=force)
    tool_parser = FunctionCallParser([Tool.model_validate(t) for t in TOOLS], "longcat")
    reasoning, normal_pieces = reasoning_pieces(reasoning_parser, chunks(text, size))
    folded = stream_tool_parser(tool_parser, normal_pieces)
    assert "".join(reasoning) == "Weather needed."
    assert folded.content == "Checking.\n\nDone."
    assert [(c.name, json.loads(c.arguments)) for c in folded.calls] == [("get_weather", {"city": "Paris"})]


def test_scheduler_grammar_backend_gates_on_the_models_think_end_token() -> None:
    """The scheduler builds our detector (stream_reasoning=False, with the tokenizer) for grammar-gated reasoning."""
    from sglang.srt.constrained.reasoner_grammar_backend import ReasonerGrammarBackend
    from sglang.srt.constrained.xgrammar_backend import XGrammarGrammarBackend

    tokenizer = train_bpe_tokenizer(
        ["hello world </think>"], ["</s>", "<longcat_think>", "</longcat_think>"], vocab_size=300, eos_token="</s>"
    )
    grammar = XGrammarGrammarBackend(tokenizer, vocab_size=len(tokenizer), model_eos_token_ids=[tokenizer.eos_token_id])
    parser = ReasoningParser("longcat", stream_reasoning=False, tokenizer=tokenizer)
    backend = ReasonerGrammarBackend(grammar, parser, tokenizer)
    assert list(backend.think_end_ids) == [tokenizer.convert_tokens_to_ids("</longcat_think>")]
