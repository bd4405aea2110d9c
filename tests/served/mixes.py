"""What the parser-mix tests of both engines share (``tests/vllm/test_parser_mixes.py``,
``tests/sglang/test_parser_mixes.py``): texts in the built-in tool parsers' dialects, the cases of a table of mixes,
and the comparison of a mix's answer with the built-in pair's.

Content is compared without the whitespace around it: the built-in tool parsers keep or trim it by conventions of
their own (``qwen3_coder`` strips the text before a call; ``hermes`` streams the blank line before a call, which its
whole answer drops), and ours keeps the model's text, dropping only blank content beside calls, as vLLM's whole
answer does."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

import pytest

from .cells import APIS
from .oracle import Served

HERMES_CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}\n</tool_call>'
XML_CALL = (
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n"
    "</function>\n</tool_call>"
)
#: texts by the dialect of the tool parser that reads them
TEXTS = {
    "hermes": {
        "think-call": "<think>The user wants Paris.</think>\n\n" + HERMES_CALL,
        "think-text-call": "<think>Paris.</think>\n\nLet me check.\n" + HERMES_CALL,
        "think-answer": "<think>No tool needed.</think>\n\nIt is sunny.",
        # the model reasons without writing the opening tag (the template lets it open reasoning itself)
        "unopened-call": "The user wants Paris.\n</think>\n\n" + HERMES_CALL,
        "unopened-answer": "No tool needed.\n</think>\n\nIt is sunny.",
        # think tags and an end marker inside a call's value are the value's (the tool parser must get them)
        "tags-in-value": "<think>Paris.</think>\n\n" + HERMES_CALL.replace('"Paris"', '"a<think>b</think>c<|im_end|>"'),
    },
    "xml": {
        "think-call": "<think>The user wants Paris.</think>\n\n" + XML_CALL,
        "think-text-call": "<think>Paris.</think>\n\nLet me check.\n" + XML_CALL,
        "unopened-call": "The user wants Paris.\n</think>\n\n" + XML_CALL,
        "tags-in-value": "<think>Paris.</think>\n\n" + XML_CALL.replace("\nParis\n", "\na<think>b</think>c\n"),
    },
}

#: the call each text of :data:`TEXTS` holds, as written (for texts whose value an engine's own pair does not keep)
WRITTEN_CALLS = {
    "tags-in-value": {
        "hermes": ("get_weather", {"city": "a<think>b</think>c<|im_end|>", "days": 3}),
        "xml": ("get_weather", {"city": "a<think>b</think>c", "days": 3}),
    },
}

#: the content each text of :data:`TEXTS` writes (without its surrounding whitespace), for texts whose content an
#: engine's own pair may serve only in part
WRITTEN_CONTENT = {"think-text-call": "Let me check."}

Mix = tuple[str, str]  # (tool parser, reasoning parser), ours named "longcat"


def cases(
    mixes: list[tuple[Mix, Mix, str]],
    defects: Mapping[tuple[Any, ...], str],
    groups: tuple[int, ...] = (1,),
    apis: tuple[str, ...] = APIS,
) -> Iterator[Any]:
    """``(mix, pair, dialect, text name, api, stream, tokens per step)`` for each mix, compared with its built-in
    ``pair`` on each text of ``dialect`` through each API, whole and streamed (in each of ``groups`` tokens per
    step); ``defects``, by ``(mix, text name, api, stream, tokens per step)``: what goes wrong, as a strict expected
    failure."""
    for mix, pair, dialect in mixes:
        for name in TEXTS[dialect]:
            for api in apis:
                for stream, group in [(False, 1), *((True, g) for g in groups)]:
                    defect = defects.get((mix, name, api, stream, group))
                    marks = [pytest.mark.xfail(reason=defect, strict=True)] if defect else []
                    mode = f"stream-g{group}" if stream else "whole"
                    case_id = f"{'+'.join(mix)}-vs-{'+'.join(pair)}-{name}-{api}-{mode}"
                    yield pytest.param(mix, pair, dialect, name, api, stream, group, id=case_id, marks=marks)


def held_to_the_written_call(expected: Served, dialect: str, name: str) -> Served:
    """What the built-in pair serves, with the call as the text writes it: for a text whose value the pair does not
    keep (the mix must lose nothing). The pair must still lose it (a fixed engine fails the run until it is noted)."""
    written = WRITTEN_CALLS[name][dialect]
    assert expected.calls != (written,), f"the engine's own pair now keeps the value of {name!r}"
    return replace(expected, calls=(written,))


def held_to_the_written_content(expected: Served, served: Served, mix: Mix, name: str) -> Served:
    """What the built-in pair serves, where it served only the beginning of the content the text writes, held to
    what the mix must serve: SGLang's ``qwen25`` drops the text before a call's tag that arrives in the same engine
    step as the end of that text (a known fault of the built-in; whether it happens depends on where the steps cut
    the tokens, so on the vocabulary). With our tool parser the mix serves all of it; with ``qwen25`` beside our
    reasoning parser (which hands it the text in other pieces) at least what the pair served, and no other text."""
    written = WRITTEN_CONTENT.get(name)
    content = expected.content.strip()
    if written is None or content == written or not written.startswith(content):
        return expected
    if mix[0] == "longcat":
        return replace(expected, content=written)
    got = served.content.strip()
    return replace(expected, content=got) if got.startswith(content) and written.startswith(got) else expected


def assert_served_alike(served: Served, expected: Served, mix: Mix, pair: Mix) -> None:
    """The mix serves what the built-in pair serves: reasoning, content (without its surrounding whitespace), calls
    and the finish reason."""
    assert not served.faults, served.faults
    assert (served.reasoning, served.content.strip(), served.calls, served.finish) == (
        expected.reasoning,
        expected.content.strip(),
        expected.calls,
        expected.finish,
    ), f"{'+'.join(mix)}: {served.describe()}\n{'+'.join(pair)}: {expected.describe()}"
