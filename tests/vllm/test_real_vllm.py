"""Our parsers through vLLM's own entry points on the corpus of real model outputs (tests/real/cases.jsonl).

For every case, the ``Parser`` vLLM composes for ``--tool-call-parser longcat`` (with and without
``--reasoning-parser longcat``) gives in one piece (``Parser.parse``) and streamed (``Parser.parse_delta`` in 1-, 4-
and 7-character deltas and as one delta) exactly what the core gives for the case: the adapters add nothing and lose
nothing, whichever cases the core gets right. And per dialect ours gets at least as many cases right as each of vLLM's
built-in parsers (tests/real/score_engines.py).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.real.score_engines import SPECIAL_TAGS, VLLM_BUILTIN_LONGCAT, VllmDriver, token_deltas
from tests.support.twins.real import *  # noqa: F403 (the corpus tests, run on VllmDriver)

pytestmark = pytest.mark.vllm

DRIVER = VllmDriver


def test_parsers_are_what_vllm_composes(drivers: Callable[[bool], VllmDriver]) -> None:
    from vllm.tool_parsers.hermes_tool_parser import Hermes2ProToolParser
    from vllm.tool_parsers.longcat_tool_parser import LongcatFlashToolParser

    from longcat_plugins.vllm.reasoning_parser import LongcatReasoningParser
    from longcat_plugins.vllm.tool_parser import LongcatToolParser

    driver = drivers(False)
    mine = driver.parser_class("longcat", "longcat")(driver.tokenizer, None)
    assert isinstance(mine.tool_parser, LongcatToolParser)
    assert isinstance(mine.reasoning_parser, LongcatReasoningParser)
    builtin = driver.parser_class(VLLM_BUILTIN_LONGCAT, "qwen3")(driver.tokenizer, None)
    assert type(builtin.tool_parser) is LongcatFlashToolParser
    assert type(builtin).__mro__[1] is type(mine).__mro__[1]  # the same DelegatingParser composition
    hermes = driver.parser_class("hermes", None)(driver.tokenizer, None)
    assert type(hermes.tool_parser) is Hermes2ProToolParser
    assert hermes.reasoning_parser is None


def test_deltas_cut_text_at_every_kth_character_and_keep_special_tags_whole(
    drivers: Callable[[bool], VllmDriver],
) -> None:
    tokenizer = drivers(False).tokenizer
    for tag in SPECIAL_TAGS:
        assert len(tokenizer.encode(tag, add_special_tokens=False)) == 1, tag
    text = "Voilà: <tool_call>\n<function=f>\n</function>\n</tool_call>"
    deltas = token_deltas(tokenizer, text, 4)
    assert "".join(t for t, _ in deltas) == text
    assert [t for t, _ in deltas][:3] == ["Voil", "à: <tool_call>", "\n<fu"]
    assert sum(len(ids) for _, ids in deltas) == len(tokenizer.encode(text, add_special_tokens=False))
    split = drivers(True).tokenizer
    assert [t for t, _ in token_deltas(split, text, 4)][1] == "à: <"
    assert token_deltas(tokenizer, text, None) == [(text, tokenizer.encode(text, add_special_tokens=False))]
