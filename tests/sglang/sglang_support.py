"""Helpers shared by the SGLang tests: driving SGLang's parsers and folding what they return."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

STANDINS = Path(__file__).resolve().parent / "_standins"


def subprocess_env(**extra: str) -> dict[str, str]:
    """The environment for a child Python that imports what the tests import (incl. the torchvision stand-in)."""
    env = dict(os.environ)
    if str(STANDINS) in sys.path:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(STANDINS), env.get("PYTHONPATH", "")) if p)
    env.update(extra)
    return env


def chunks(text: str, size: int | None) -> Iterator[str]:
    """``text`` in pieces of ``size`` characters (``None``: the whole text at once)."""
    if size is None:
        yield text
        return
    for i in range(0, len(text), size):
        yield text[i : i + size]


def split_at(text: str, cuts: Iterable[int]) -> list[str]:
    points = sorted({c for c in cuts if 0 < c < len(text)})
    bounds = [0, *points, len(text)]
    return [text[a:b] for a, b in pairwise(bounds) if b > a]


@dataclass
class FoldedCall:
    index: int
    name: str
    arguments: str


@dataclass
class Folded:
    """What a client assembles from SGLang's streamed (normal_text, [ToolCallItem]) pairs."""

    content: str = ""
    calls: list[FoldedCall] = field(default_factory=list)
    #: one entry per parse_stream_chunk / parse_stream_end call: the tool indices it returned
    per_step: list[list[int]] = field(default_factory=list)

    def add(self, normal_text: str, items: list[Any]) -> None:
        self.content += normal_text or ""
        self.per_step.append([item.tool_index for item in items])
        for item in items:
            if item.tool_index == len(self.calls):
                assert item.name, f"the first item of call {item.tool_index} carries no name: {item}"
                self.calls.append(FoldedCall(item.tool_index, item.name, item.parameters))
            else:
                assert item.tool_index < len(self.calls), f"call {item.tool_index} skipped an ordinal: {items}"
                assert item.tool_index == len(self.calls) - 1, f"call {item.tool_index} resumed after a later one"
                assert not item.name, f"a later item of call {item.tool_index} repeats the name: {item}"
                self.calls[item.tool_index].arguments += item.parameters

    def summary(self) -> tuple[str, list[tuple[str, str]]]:
        return self.content, [(c.name, c.arguments) for c in self.calls]


def stream_tool_parser(parser: Any, pieces: Iterable[str]) -> Folded:
    """Drive ``FunctionCallParser.parse_stream_chunk`` over ``pieces``, then ``parse_stream_end``."""
    folded = Folded()
    for piece in pieces:
        folded.add(*parser.parse_stream_chunk(piece))
    folded.add(*parser.parse_stream_end())
    return folded


def stream_reasoning_parser(parser: Any, pieces: Iterable[str]) -> tuple[str, str]:
    """Drive ``ReasoningParser.parse_stream_chunk`` then ``parse_stream_end``: (reasoning, normal text)."""
    reasoning, normal = reasoning_pieces(parser, pieces)
    return "".join(reasoning), "".join(normal)


def reasoning_pieces(parser: Any, pieces: Iterable[str]) -> tuple[list[str], list[str]]:
    """What each ``parse_stream_chunk`` and then ``parse_stream_end`` returns: (reasoning, normal text) pieces."""
    reasoning: list[str] = []
    normal: list[str] = []
    for piece in pieces:
        r, n = parser.parse_stream_chunk(piece)
        reasoning.append(r or "")
        normal.append(n or "")
    r, n = parser.parse_stream_end()
    reasoning.append(r or "")
    normal.append(n or "")
    return reasoning, normal


class ModelConfig:
    """What SGLang's OpenAI serving reads of a model's config."""

    is_multimodal = False

    def __init__(self, model_type: str, architecture: str, context_len: int) -> None:
        self.context_len = context_len
        self.hf_config = type("hf_config", (), {"model_type": model_type, "architectures": (architecture,)})

    def get_default_sampling_params(self) -> dict[str, Any]:
        return {}


class TokenizerManagerStandIn:
    """What SGLang's OpenAI serving reads of its TokenizerManager; a subclass generates the outputs."""

    def __init__(self, server_args: Any, tokenizer: Any, model_config: ModelConfig, served_model_name: str) -> None:
        from sglang.srt.utils.request_logger import RequestLogger

        self.server_args = server_args
        self.tokenizer = tokenizer
        self.model_config = model_config
        self.model_path = server_args.model_path
        self.served_model_name = served_model_name
        self.request_logger = RequestLogger(False, 0, "text", None)
        self.requests: list[Any] = []

    def config_value(self, name: str) -> Any:
        return getattr(self.server_args, name)
