"""Scores our parsers and the engines' built-in parsers on the corpus of real model outputs, through each engine's own
entry points (issue 12; see README.md).

    PYTHONPATH=. .venvs/vllm/bin/python -m tests.real.score_engines --engine vllm [--verbose]
    PYTHONPATH=. .venvs/sglang/bin/python -m tests.real.score_engines --engine sglang [--verbose]

Every case runs through every parser of the engine once in one piece and streamed in deltas of 1, 4 and 7 characters
and as one delta, and a table shows per dialect how many cases each parser gets right. A case is right for a parser
when all five runs give the expected content, reasoning and calls (``score.compare``). A run that raises is wrong.

* vLLM: the composed ``Parser`` that ``ParserManager.get_parser(...)`` builds, as the serving layer uses it:
  ``Parser.parse`` in one piece, ``Parser.parse_delta`` (text and token ids of each delta, ``finished`` on the last)
  streamed. Ours is ``longcat``; the built-ins are vLLM's own ``longcat`` class (``LongcatFlashToolParser``, which
  our plugin replaces under that name, put into the same composition), ``hermes`` and ``qwen3_coder``.
* SGLang: ``ReasoningParser`` then ``FunctionCallParser`` on its normal text, chained as ``serving_chat`` chains
  them (``parse_non_stream``; ``parse_stream_chunk``, both parsers flushed with the last delta, then the unstreamed
  arguments check). Ours is ``longcat``; the built-ins are ``qwen25``, ``hermes`` and ``qwen3_coder``.

Neither engine ships a parser that reads ``<longcat_arg_key>``, nor a LongCat reasoning parser. A case that involves
reasoning (tagged ``reasoning``, pre-filled, or holding a think tag) runs with a reasoning parser: ours (``longcat``)
beside ours, ``qwen3`` beside every built-in; other cases run with the tool-call parser alone.

Deltas are what a detokenizer hands out: the text is tokenized with a byte-level tokenizer without merges, in which
the tags that LongCat and Qwen3 tokenizers hold as special tokens are single tokens; a delta of k characters is the
fewest whole tokens that make at least k characters, so text is cut at every k-th character and a special-token tag
always arrives whole. ``--split-tags`` makes no tag a special token (every tag may be cut).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import logging
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from longcat_plugins.core import ParserOptions
from longcat_plugins.core import tags as T
from tests.real.score import CASES_PATH, SPLITS, Message, compare, describe, groups, load_cases, print_wrong

#: Tags that are special tokens in LongCat and Qwen3 tokenizers (single tokens in the scoring tokenizer).
SPECIAL_TAGS = [
    "<|im_start|>",
    "<|im_end|>",
    "</longcat_s>",
    "<longcat_tool_call>",
    "</longcat_tool_call>",
    "<tool_call>",
    "</tool_call>",
    "<think>",
    "</think>",
    "<longcat_arg_key>",
    "</longcat_arg_key>",
    "<longcat_arg_value>",
    "</longcat_arg_value>",
]
USER = "What should I do next?"
PROMPT = f"<|im_start|>user\n{USER}<|im_end|>\n<|im_start|>assistant\n"
#: The tag a template pre-fills when the output starts inside reasoning.
PREFILLED_THINK = "<think>\n"

ONE_SHOT = "one-shot"
Delta = tuple[str, list[int]]


def label(size: int | None) -> str:
    return "whole" if size is None else f"{size}-char"


@dataclass(frozen=True)
class Contender:
    """One parser configuration: a tool-call parser and the reasoning parser used beside it."""

    name: str
    tool_parser: str
    reasoning_parser: str
    claims: tuple[str, ...] = ()  # dialects (the corpus's names) the parser says it reads
    ours: bool = False


def ours(contenders: Sequence[Contender]) -> Contender:
    return next(c for c in contenders if c.ours)


def builtins(contenders: Sequence[Contender]) -> list[Contender]:
    return [c for c in contenders if not c.ours]


def involves_reasoning(case: dict[str, Any]) -> bool:
    """Whether a case runs with a reasoning parser: tagged ``reasoning``, pre-filled, or holding a think tag."""
    if case.get("reasoning_open") or "reasoning" in case.get("tags", ()):
        return True
    return any(tag in case["text"] for tag in (*T.THINK_OPENS, *T.THINK_CLOSES))


def core_options_for(case: dict[str, Any], with_reasoning: bool) -> ParserOptions:
    """The core's options equal to an engine run of ``case`` with (or without) the reasoning parser."""
    return ParserOptions(reasoning=with_reasoning, reasoning_open=with_reasoning and bool(case.get("reasoning_open")))


def prompt_for(case: dict[str, Any]) -> str:
    return PROMPT + (PREFILLED_THINK if case.get("reasoning_open") else "")


def core_message(case: dict[str, Any], with_reasoning: bool) -> Message:
    """The core's result for a case, with the options an engine run with (or without) a reasoning parser has."""
    from longcat_plugins.core import parse

    message = parse(case["text"], case["tools"], core_options_for(case, with_reasoning))
    return Message(message.content, message.reasoning, [(c.name, c.arguments) for c in message.tool_calls])


def as_expected(message: Message) -> dict[str, Any]:
    """``message`` as a case's ``expected`` block (its arguments must be JSON), to describe differences from it."""
    calls = [{"name": name, "arguments": json.loads(arguments)} for name, arguments in message.tool_calls]
    return {"content": message.content, "reasoning": message.reasoning, "tool_calls": calls}


# ----------------------------------------------------------------------------------------------------------------------
# Folding what an engine returns into a message
# ----------------------------------------------------------------------------------------------------------------------


@dataclass
class Fold:
    """A streamed response, assembled as OpenAI's client library assembles one: content and reasoning concatenated,
    and per call index the name and argument fragments concatenated."""

    content: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    names: dict[int, str] = field(default_factory=dict)
    arguments: dict[int, list[str]] = field(default_factory=dict)

    def text(self, content: str | None, reasoning: str | None = None) -> None:
        self.content.append(content or "")
        self.reasoning.append(reasoning or "")

    def call(self, index: int, name: str | None, arguments: str | None) -> None:
        self.names[index] = self.names.get(index, "") + (name or "")
        self.arguments.setdefault(index, []).append(arguments or "")

    def message(self) -> Message:
        calls = [(self.names[i], "".join(self.arguments[i])) for i in sorted(self.names)]
        return Message("".join(self.content), "".join(self.reasoning), calls)


# ----------------------------------------------------------------------------------------------------------------------
# Tokens and deltas
# ----------------------------------------------------------------------------------------------------------------------


def build_tokenizer(split_tags: bool = False) -> Any:
    """A byte-level tokenizer without merges (a ``PreTrainedTokenizerFast``): one token per byte, and with
    ``split_tags`` false each of ``SPECIAL_TAGS`` one special token."""
    from longcat_plugins.replay.tokenizer import train_bpe_tokenizer

    specials = [] if split_tags else SPECIAL_TAGS
    return train_bpe_tokenizer(
        [PROMPT],
        ["<s>", "</s>", *specials],
        vocab_size=1,  # below the byte alphabet: no merge is learnt
        eos_token="</s>",
        additional_special_tokens=specials,
    )


def token_deltas(tokenizer: Any, text: str, size: int | None) -> list[Delta]:
    """The deltas a detokenizer hands out for ``text``: each the fewest whole tokens that make at least ``size``
    characters (``None``: one delta). A token ending inside a character waits for the next one, as in vLLM's
    detokenizer. Joining the delta texts gives ``text`` back."""
    enc = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    ids: list[int] = enc["input_ids"]
    offsets: list[tuple[int, int]] = enc["offset_mapping"]
    out: list[Delta] = []
    start = 0
    pending: list[int] = []
    for i, token in enumerate(ids):
        pending.append(token)
        end = offsets[i][1]
        if i + 1 < len(ids) and offsets[i + 1][0] < end:
            continue  # the next token completes a character this one started
        if (size is not None and end - start >= size) or i + 1 == len(ids):
            out.append((text[start:end], pending))
            start, pending = end, []
    if start < len(text) or not out:
        out.append((text[start:], pending))
    joined = "".join(d for d, _ in out)
    if joined != text:
        raise AssertionError(f"the deltas do not join to the text: {joined!r}")
    return out


# ----------------------------------------------------------------------------------------------------------------------
# Engines
# ----------------------------------------------------------------------------------------------------------------------


class Driver(Protocol):
    engine: str
    contenders: tuple[Contender, ...]

    def version(self) -> str: ...

    def served_view(self, message: Message) -> Message: ...

    def one_shot(self, contender: Contender, case: dict[str, Any], with_reasoning: bool) -> Message: ...

    def streamed(
        self, contender: Contender, case: dict[str, Any], with_reasoning: bool, size: int | None
    ) -> Message: ...


#: vLLM's built-in ``longcat`` class; the name ``longcat`` is ours once the plugin is loaded.
VLLM_BUILTIN_LONGCAT = "longcat (built-in)"


class VllmDriver:
    engine = "vllm"
    contenders = (
        Contender("ours", "longcat", "longcat", claims=("longcat_kv", "xml", "hermes", "reasoning"), ours=True),
        Contender("longcat", VLLM_BUILTIN_LONGCAT, "qwen3", claims=("longcat_kv",)),
        Contender("hermes", "hermes", "qwen3", claims=("hermes",)),
        Contender("qwen3_coder", "qwen3_coder", "qwen3", claims=("xml",)),
    )

    def __init__(self, split_tags: bool = False) -> None:
        from vllm.plugins import load_general_plugins

        load_general_plugins()
        self.tokenizer = build_tokenizer(split_tags)
        self._classes: dict[tuple[str, str | None], Any] = {}

    def version(self) -> str:
        return importlib.metadata.version("vllm")

    @staticmethod
    def served_view(message: Message) -> Message:
        """What vLLM serves of a tool parser's result: whitespace-only content beside calls becomes none
        (``DelegatingParser._extract_tool_calls`` for a whole message; our parser holds it back in a stream)."""
        if message.tool_calls and not message.content.strip():
            return message._replace(content="")
        return message

    def parser_class(self, tool_parser: str, reasoning_parser: str | None) -> Any:
        """The ``Parser`` class vLLM composes for ``--tool-call-parser`` and ``--reasoning-parser``."""
        key = (tool_parser, reasoning_parser)
        if key not in self._classes:
            self._classes[key] = self._compose(tool_parser, reasoning_parser)
        return self._classes[key]

    def _compose(self, tool_parser: str, reasoning_parser: str | None) -> Any:
        from vllm.parser.parser_manager import ParserManager

        if tool_parser != VLLM_BUILTIN_LONGCAT:
            return ParserManager.get_parser(
                tool_parser_name=tool_parser,
                reasoning_parser_name=reasoning_parser,
                enable_auto_tools=True,
                tokenizer=self.tokenizer,
            )
        # What ParserManager composes for the name ``longcat`` when our plugin is not installed.
        from vllm.parser.abstract_parser import DelegatingParser
        from vllm.tool_parsers.longcat_tool_parser import LongcatFlashToolParser

        reasoning_cls = ParserManager.get_reasoning_parser(reasoning_parser)

        class _Parser(DelegatingParser):
            reasoning_parser_cls = reasoning_cls
            tool_parser_cls = LongcatFlashToolParser
            tool_strict_level = None

        return _Parser

    def _parser(self, contender: Contender, case: dict[str, Any], with_reasoning: bool, stream: bool) -> Any:
        from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

        request = ChatCompletionRequest(
            model="real",
            messages=[{"role": "user", "content": USER}],
            tools=case["tools"] or None,  # vLLM refuses an empty list
            stream=stream,
        )
        cls = self.parser_class(contender.tool_parser, contender.reasoning_parser if with_reasoning else None)
        # the request says what the case says of thinking: a case whose output starts outside reasoning was
        # prompted without it (with it on, a ChatML model may open reasoning itself)
        thinking = {"enable_thinking": bool(case.get("reasoning_open"))}
        return cls(self.tokenizer, request.tools, chat_template_kwargs=thinking), request

    def _prompt_ids(self, case: dict[str, Any]) -> list[int]:
        ids: list[int] = self.tokenizer.encode(prompt_for(case), add_special_tokens=False)
        return ids

    def one_shot(self, contender: Contender, case: dict[str, Any], with_reasoning: bool) -> Message:
        parser, request = self._parser(contender, case, with_reasoning, stream=False)
        parser.set_prompt_token_ids(self._prompt_ids(case))
        ids = self.tokenizer.encode(case["text"], add_special_tokens=False)
        reasoning, content, calls = parser.parse(case["text"], request, True, ids)
        return Message(content or "", reasoning or "", [(c.name, c.arguments) for c in calls or []])

    def streamed(self, contender: Contender, case: dict[str, Any], with_reasoning: bool, size: int | None) -> Message:
        parser, request = self._parser(contender, case, with_reasoning, stream=True)
        prompt_ids = self._prompt_ids(case)
        deltas = token_deltas(self.tokenizer, case["text"], size)
        fold = Fold()
        for i, (text, ids) in enumerate(deltas):
            delta = parser.parse_delta(text, ids, request, prompt_token_ids=prompt_ids, finished=i == len(deltas) - 1)
            if delta is None:
                continue
            fold.text(delta.content, delta.reasoning)
            for call in delta.tool_calls or []:
                function = call.function
                if isinstance(function, dict):
                    fold.call(call.index, function.get("name"), function.get("arguments"))
                elif function is not None:
                    fold.call(call.index, function.name, function.arguments)
                else:
                    fold.call(call.index, None, None)
        return fold.message()


#: SGLang's import chain wants torchvision, which cannot load beside CPU torch: the SGLang suite's stand-in.
SGLANG_STANDINS = Path(__file__).resolve().parent.parent / "sglang" / "_standins"


class SglangDriver:
    engine = "sglang"
    contenders = (
        Contender("ours", "longcat", "longcat", claims=("longcat_kv", "xml", "hermes", "reasoning"), ours=True),
        Contender("qwen25", "qwen25", "qwen3", claims=("hermes",)),
        Contender("hermes", "hermes", "qwen3", claims=("hermes",)),
        Contender("qwen3_coder", "qwen3_coder", "qwen3", claims=("xml",)),
    )

    def __init__(self, split_tags: bool = False) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        if importlib.util.find_spec("torchvision") is None and str(SGLANG_STANDINS) not in sys.path:
            sys.path.insert(0, str(SGLANG_STANDINS))
        from sglang.srt.plugins import load_plugins

        load_plugins()
        self.tokenizer = build_tokenizer(split_tags)

    def version(self) -> str:
        return importlib.metadata.version("sglang")

    @staticmethod
    def served_view(message: Message) -> Message:
        """SGLang serves a tool parser's result as it is."""
        return message

    def parsers(
        self, contender: Contender, case: dict[str, Any], with_reasoning: bool, stream: bool
    ) -> tuple[Any, Any]:
        from sglang.srt.entrypoints.openai.protocol import Tool
        from sglang.srt.function_call.function_call_parser import FunctionCallParser
        from sglang.srt.parser.reasoning_parser import ReasoningParser

        tools = FunctionCallParser([Tool.model_validate(t) for t in case["tools"]], contender.tool_parser)
        reasoning = None
        if with_reasoning:
            # serving_chat._tool_call_parsing_active: without declared tools, only a detector that reads calls anyway
            active = bool(case["tools"]) or tools.detector.parses_without_tools()
            reasoning = ReasoningParser(
                contender.reasoning_parser,
                stream_reasoning=stream,  # serving_chat: the request's stream_reasoning (default true) when streaming
                force_reasoning=bool(case.get("reasoning_open")),
                tool_call_parser_active=active,
            )
        return reasoning, tools

    def one_shot(self, contender: Contender, case: dict[str, Any], with_reasoning: bool) -> Message:
        reasoning_parser, tool_parser = self.parsers(contender, case, with_reasoning, stream=False)
        reasoning, text = "", case["text"]
        if reasoning_parser is not None:
            thought, normal = reasoning_parser.parse_non_stream(text)
            reasoning, text = thought or "", normal or ""
        calls: list[tuple[str, Any]] = []
        if tool_parser.has_tool_call(text):
            text, items = tool_parser.parse_non_stream(text)
            calls = [(item.name, item.parameters) for item in items]
        return Message(text or "", reasoning, calls)

    def streamed(self, contender: Contender, case: dict[str, Any], with_reasoning: bool, size: int | None) -> Message:
        reasoning_parser, tool_parser = self.parsers(contender, case, with_reasoning, stream=True)
        deltas = [text for text, _ in token_deltas(self.tokenizer, case["text"], size)]
        fold = Fold()
        for i, delta in enumerate(deltas):
            last = i == len(deltas) - 1
            text: str | None = delta
            if reasoning_parser is not None:
                thought, text = reasoning_parser.parse_stream_chunk(delta)
                if last:
                    end_thought, end_text = reasoning_parser.parse_stream_end()
                    thought = (thought or "") + (end_thought or "")
                    text = (text or "") + (end_text or "")
                fold.text(None, thought)
            normal, items = tool_parser.parse_stream_chunk(text or "")
            if last:
                end_normal, end_items = tool_parser.parse_stream_end()
                normal = (normal or "") + (end_normal or "")
                items = [*items, *end_items]
            fold.text(normal)
            for item in items:
                fold.call(item.tool_index, item.name, item.parameters)
            if last:
                self._unstreamed(tool_parser, fold)
        return fold.message()

    @staticmethod
    def _unstreamed(tool_parser: Any, fold: Fold) -> None:
        """``serving_chat._check_for_unstreamed_tool_args``: the end of the last call's arguments not yet sent."""
        detector = tool_parser.detector
        prev = getattr(detector, "prev_tool_call_arr", None)
        streamed = getattr(detector, "streamed_args_for_tool", None)
        if not prev or not streamed:
            return
        index = len(prev) - 1
        if index < 0 or index >= len(streamed):
            return
        expected = prev[index].get("arguments", {})
        expected = expected if isinstance(expected, str) else json.dumps(expected, ensure_ascii=False)
        actual = streamed[index]
        remaining = expected[len(actual) :] if expected.startswith(actual) else ""
        if remaining:
            fold.call(index, None, remaining)


DRIVERS: dict[str, Callable[..., Driver]] = {"vllm": VllmDriver, "sglang": SglangDriver}


# ----------------------------------------------------------------------------------------------------------------------
# Scoring
# ----------------------------------------------------------------------------------------------------------------------

Runs = dict[str, Message | BaseException]


def run_case(driver: Driver, contender: Contender, case: dict[str, Any], with_reasoning: bool | None = None) -> Runs:
    """Every run of one case through one parser configuration: the message, or the exception it raised.
    ``with_reasoning`` defaults to ``involves_reasoning(case)``."""
    if with_reasoning is None:
        with_reasoning = involves_reasoning(case)
    runs: Runs = {}
    try:
        runs[ONE_SHOT] = driver.one_shot(contender, case, with_reasoning)
    except Exception as exc:  # a crash is a result here
        runs[ONE_SHOT] = exc
    for size in SPLITS:
        try:
            runs[label(size)] = driver.streamed(contender, case, with_reasoning, size)
        except Exception as exc:
            runs[label(size)] = exc
    return runs


def problems(expected: dict[str, Any], result: Message | BaseException) -> list[str]:
    if isinstance(result, BaseException):
        return [f"raised {type(result).__name__}: {result}"]
    return compare(expected, result)


def mismatches(case: dict[str, Any], runs: Runs) -> dict[str, list[str]]:
    return {name: problems(case["expected"], result) for name, result in runs.items()}


def differences(driver: Driver, want: Message, runs: Runs) -> dict[str, list[str]]:
    """Runs whose message is not exactly ``want`` as the engine serves it, with what differs; arguments must be the
    same text, not only the same JSON value."""
    found: dict[str, list[str]] = {}
    target = driver.served_view(want)
    for name, result in runs.items():
        if result != target:
            found[name] = problems(as_expected(target), result) or [f"{result!r} != {target!r}"]
    return found


@dataclass
class Scoreboard:
    """Per parser and group (dialect, ``tag:...``): cases right and total; and each wrong case's mismatches."""

    contenders: Sequence[Contender]
    right: dict[str, dict[str, int]] = field(default_factory=dict)
    total: dict[str, int] = field(default_factory=dict)
    wrong: dict[str, list[tuple[str, dict[str, list[str]]]]] = field(default_factory=dict)

    def add(self, case: dict[str, Any], contender: Contender, found: dict[str, list[str]]) -> None:
        ok = not any(found.values())
        for group in groups(case):
            row = self.right.setdefault(group, {})
            row[contender.name] = row.get(contender.name, 0) + int(ok)
        if not ok:
            self.wrong.setdefault(contender.name, []).append((case["id"], found))

    def count(self, case: dict[str, Any]) -> None:
        for group in groups(case):
            self.total[group] = self.total.get(group, 0) + 1

    def groups(self) -> list[str]:
        return sorted(self.total, key=lambda g: (g.startswith("tag:"), g))

    def get(self, group: str, contender: Contender) -> int:
        return self.right.get(group, {}).get(contender.name, 0)


def score(driver: Driver, cases: Sequence[dict[str, Any]], contenders: Sequence[Contender] | None = None) -> Scoreboard:
    board = Scoreboard(contenders or driver.contenders)
    for case in cases:
        board.count(case)
        for contender in board.contenders:
            board.add(case, contender, mismatches(case, run_case(driver, contender, case)))
    return board


def behind(board: Scoreboard) -> list[str]:
    """The dialects where a built-in parser gets more cases right than ours, one line each."""
    mine = ours(board.contenders)
    return [
        f"{group}: ours {board.get(group, mine)}/{board.total[group]} < {c.name} {board.get(group, c)}"
        for group in board.groups()
        if not group.startswith("tag:")
        for c in builtins(board.contenders)
        if board.get(group, mine) < board.get(group, c)
    ]


def table(board: Scoreboard) -> list[str]:
    """Rows per dialect (then per tag, then all): right/total per parser; ``*`` marks a dialect the parser claims."""
    names = [c.name for c in board.contenders]
    width = max(8, *(len(n) + 2 for n in names))
    lines = [f"  {'':<14}{'cases':>6}" + "".join(f"{n:>{width}}" for n in names)]
    for group in board.groups():
        cells = []
        for c in board.contenders:
            mark = "*" if group in c.claims else " "
            cells.append(f"{board.get(group, c)}{mark}".rjust(width))
        lines.append(f"  {group:<14}{board.total[group]:>6}" + "".join(cells))
    dialects = [g for g in board.groups() if not g.startswith("tag:")]
    all_right = [sum(board.get(g, c) for g in dialects) for c in board.contenders]
    lines.append(
        f"  {'all':<14}{sum(board.total[g] for g in dialects):>6}" + "".join(f"{n} ".rjust(width) for n in all_right)
    )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", choices=sorted(DRIVERS), required=True)
    ap.add_argument("--cases", default=str(CASES_PATH))
    ap.add_argument("--split-tags", action="store_true", help="no tag is a special token: tags may arrive cut")
    ap.add_argument("--verbose", "-v", action="store_true", help="print every mismatch of every run")
    args = ap.parse_args(argv)

    driver = DRIVERS[args.engine](split_tags=args.split_tags)
    # parsers log every output they cannot read (built-ins with a traceback); the table reports those as wrong
    for name in ("vllm", "sglang", "longcat_plugins"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    cases = load_cases(args.cases)
    board = score(driver, cases)
    tags = "tags may be cut" if args.split_tags else "special-token tags arrive whole"
    print(
        f"{driver.engine} {driver.version()}: real-output corpus, {len(cases)} cases; right = one-shot and streamed in"
        f" {', '.join(label(s) for s in SPLITS)} deltas ({tags}), all right; * = the parser claims the dialect"
    )
    print("\n".join(table(board)))
    for contender in board.contenders:
        wrong = board.wrong.get(contender.name, [])
        if not wrong:
            continue
        print(f"\n{contender.name}: wrong")
        for case_id, found in wrong:
            print_wrong(case_id, found, describe(found), args.verbose)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
