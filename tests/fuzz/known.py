"""Faults of the core the fuzzer finds today, each with a minimal reproducer.

Every entry has an ``xfail(strict=True)`` test in ``test_fuzz_smoke.py``: once the fault is fixed, that test passes
and fails the suite until the entry is removed. The smoke run skips exactly what is listed here: a failure of an
entry's check whose detail matches the entry's pattern, on a case whose generator has all the features of one of the
entry's feature sets (an empty set: any generator); and the scaling patterns of ``KNOWN_SLOW`` in their mode.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .cases import Case, Expected, ExpectedCall
from .checks import Failure


@dataclass(frozen=True)
class KnownBug:
    name: str
    #: the check that fails
    check: str
    #: the generators it shows in: any of these feature sets
    where: tuple[frozenset[str], ...]
    reproducer: Case
    what: str
    #: a pattern the failure's detail matches (None: any detail)
    detail: str | None = None

    def matches(self, case: Case, failure: Failure) -> bool:
        if failure.check != self.check:
            return False
        if self.detail is not None and not re.search(self.detail, failure.detail):
            return False
        features = case.features
        return any(required <= features for required in self.where)


def _tool(name: str, properties: dict[str, object]) -> dict[str, object]:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": properties}}}


HUGE_INT = "1" + "0" * 400
ANY = frozenset[str]()
MUTATED = frozenset({"mutated"})
SOUP = frozenset({"soup"})
OUT_OF_RANGE = r"Infinity is not JSON|NaN is not JSON|number out of range"

KNOWN: tuple[KnownBug, ...] = (
    KnownBug(
        "kv-key-lost-at-end",
        "accounting-words",
        (ANY,),
        Case(
            text="<longcat_tool_call>get_weather\n<longcat_arg_key>Zq0001x</longcat_arg_key>",
            tools=[_tool("get_weather", {"Zq0001x": {"type": "string"}})],
        ),
        "a key/value key the output ends after (or inside whose closing tag it ends) is in neither the arguments "
        "({} is emitted) nor the content; with a corrupted </longcat_arg_key>, the key search takes the text up to "
        "the next one (values, markup), and that is lost too",
        detail=r"inside a key/value key",
    ),
    KnownBug(
        "typed-value-out-of-range",
        "args-json",
        (frozenset({"value.out-of-range"}),),
        Case(
            text="<function=f>\n<parameter=p>\n[1e999]\n</parameter>\n</function>",
            tools=[_tool("f", {"p": {"type": "array"}})],
        ),
        "an array/object/integer parameter holding a number beyond any double is emitted as Infinity ([1e999]) or "
        "as a 400-digit number, which JSON.parse turns into Infinity and serde_json refuses",
        detail=OUT_OF_RANGE,
    ),
    KnownBug(
        "number-parameter-overflow-crash",
        "exception",
        (frozenset({"value.out-of-range"}),),
        Case(
            text=f"<function=f>\n<parameter=x>\n{HUGE_INT}\n</parameter>\n</function>",
            tools=[_tool("f", {"x": {"type": "number"}})],
        ),
        "a number parameter whose text is an integer beyond any double raises OverflowError (math.isfinite of a "
        "Python int in schema._convert_as)",
        detail=r"OverflowError",
    ),
    KnownBug(
        "json-number-out-of-range",
        "args-json",
        (frozenset({"json.out-of-range"}), MUTATED),
        Case(text='<tool_call>{"name": "f", "arguments": {"a": 1e999}}</tool_call>'),
        "in the JSON dialects a number beyond any double (1e999, 2e308, 400 digits) is streamed as written",
        detail=OUT_OF_RANGE,
    ),
    KnownBug(
        "json-lone-surrogate",
        "args-json",
        (frozenset({"json.cut-surrogate"}), MUTATED),
        Case(text='<tool_call>{"name": "f", "arguments": {"text": "\\ud83d'),
        "in the JSON dialects an escaped high surrogate the output stops after (or that no low surrogate follows) "
        "is emitted alone: serde_json refuses it",
        detail=r"lone surrogate",
    ),
    KnownBug(
        "reasoning-ends-at-a-mentioned-tag",
        "roundtrip",
        (frozenset({"think.mentions-tag"}),),
        Case(
            text="<think>I would answer with a <tool_call> block.</think>Hi",
            expected=Expected("Hi", "I would answer with a <tool_call> block.", ()),
        ),
        "a call tag merely mentioned in reasoning ends it: the rest of the reasoning becomes content",
    ),
    KnownBug(
        "whitespace-before-stray-markup-dropped",
        "roundtrip",
        (frozenset({"json.stray-lt"}),),
        Case(
            text='<tool_call>{"name": "f", "arguments": {}} <b>note</b></tool_call>',
            expected=Expected(" <b>note</b>", "", (ExpectedCall("f", {}),)),
        ),
        "in a JSON block, whitespace before stray text that starts with '<' (and inside it, before a '<') is "
        "dropped: the whitespace run is discarded before the tag is matched",
    ),
    KnownBug(
        "unclosed-kv-call-swallows-function",
        "roundtrip",
        (frozenset({"kv.no-closer", "xml.bare"}),),
        Case(
            text="<longcat_tool_call>f\n<longcat_arg_key>a</longcat_arg_key><longcat_arg_value>1</longcat_arg_value>"
            "\n<function=g>\n</function>",
            expected=Expected("", "", (ExpectedCall("f", {"a": "1"}), ExpectedCall("g", {}))),
        ),
        "a key/value call with no closing tag does not end at a following <function= call (an XML call does): "
        "the second call comes out as content",
    ),
    KnownBug(
        "passthrough-end-marker-in-block",
        "roundtrip",
        (frozenset({"kv.no-closer", "eos", "opt.tools-off"}),),
        Case(
            text="<longcat_tool_call>f\n<longcat_arg_key>a</longcat_arg_key><longcat_arg_value>1</longcat_arg_value>"
            "</longcat_s>",
            options={"tools": False},
            expected=Expected(
                "<longcat_tool_call>f\n<longcat_arg_key>a</longcat_arg_key><longcat_arg_value>1</longcat_arg_value>",
                "",
                (),
            ),
        ),
        "with tool parsing off, an end-of-sequence marker that ends an unclosed block is shown as content",
    ),
    KnownBug(
        "two-stage-whitespace",
        "two-stage",
        (ANY,),
        Case(text="<function=f></function>\n<think>"),
        "a reasoning stage then a tool stage keep the whitespace between a call block and a following <think> or "
        "end-of-sequence marker that one pass drops (or the reverse)",
        detail=r"\(whitespace\)",
    ),
    KnownBug(
        "two-stage-splice",
        "two-stage",
        (MUTATED, SOUP, frozenset({"kv.no-opener"})),
        Case(text="<function=</longcat_s>f>"),
        "the reasoning stage removes a think or end-of-sequence tag, and the text around it then reads as other "
        "markup in the tool stage (here a call that one pass shows as content)",
        detail=r"\(text\)",
    ),
    KnownBug(
        "names-not-checked",
        "name",
        (MUTATED, SOUP),
        Case(text="<function=get weather>\n</function>"),
        'a call name may hold whitespace or markup (<function=get weather>, "name": "a<b>")',
    ),
)


@dataclass(frozen=True)
class KnownSlow:
    name: str
    #: the scaling patterns (tests/fuzz/scaling.py) that show it
    patterns: tuple[str, ...]
    #: "whole" (one feed) or "stream" (4-character deltas)
    mode: str
    #: the pattern and size factor its test measures, where the fault dominates
    probe: tuple[str, float]
    what: str


KNOWN_SLOW: tuple[KnownSlow, ...] = (
    KnownSlow(
        "tag-match-copies-the-rest",
        (
            "lt-run",
            "lt-sparse",
            "lt-in-reasoning",
            "lt-in-value",
            "partial-tags",
            "partial-tags-in-value",
            "closing-tags",
            "closing-tags-in-block",
            "closing-tags-in-kv",
        ),
        "whole",
        ("closing-tags-in-kv", 4.0),
        "one large delta with many '<' that start no tag: tags.match_tag copies the rest of the buffer for every "
        "such '<' (quadratic)",
    ),
    KnownSlow(
        "schema-references-inlined",
        ("schema-recursive", "schema-filter"),
        "whole",
        ("schema-filter", 1.0),
        "recursive $ref schemas are inlined eight levels deep without a cache: cost grows as (references)^8",
    ),
)


def known_for(case: Case, failure: Failure) -> str | None:
    """The name of the known fault a failure of this case is, if any."""
    for bug in KNOWN:
        if bug.matches(case, failure):
            return bug.name
    return None


def known_slow(pattern: str, mode: str) -> str | None:
    for slow in KNOWN_SLOW:
        if pattern in slow.patterns and mode == slow.mode:
            return slow.name
    return None
