"""How far the response-template standard reads what our models write, against the core's one-pass reading.

    python -m tests.response_templates.compare            # the table, and whether docs/response_templates.md shows it
    python -m tests.response_templates.compare --write    # rewrite the table in docs/response_templates.md
    python -m tests.response_templates.compare -v         # every case that differs, with both readings

Every case of the adversarial corpus (``tests/core/corpus.jsonl``), of the real outputs (``tests/real/cases.jsonl``)
and of the peers' cases (``tests/peers/cases.jsonl``) is read twice: by the shipped template of the dialect it is
written in, through transformers' ``parse_response`` (the prefix is the template's start anchor, and its reasoning
opener when the output starts inside reasoning), and by the core (``parse`` with reasoning on). The two readings are
compared field by field: content, reasoning, and the calls (names, and arguments as JSON values). Each difference
falls into the first class of :data:`CLASSES` whose rule it meets; ``parse_response`` raising is a class of its own.
The table in ``docs/response_templates.md`` (between ``<!-- response-templates: generated ... -->`` and
``<!-- /response-templates -->``) is :func:`table`; ``tests/response_templates/test_comparison.py`` keeps it true.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

from longcat_plugins import response_templates as R
from longcat_plugins.core import ParserOptions, parse
from longcat_plugins.core import dialects as D
from longcat_plugins.core import tags as T
from longcat_plugins.core.tool_names import resolve_tool_name
from tests.docs_tables import code

ROOT: Final = Path(__file__).resolve().parents[2]
DOCUMENT: Final = ROOT / "docs" / "response_templates.md"
MARKER: Final = "response-templates"
#: the deployment guide's summary of the same run (per template, and the classes)
GUIDE: Final = ROOT / "deployment_guide.md"
GUIDE_MARKER: Final = "response-templates-summary"
REGENERATE: Final = "python -m tests.response_templates.compare --write"
#: source name -> cases file
SOURCES: Final = {
    "corpus": ROOT / "tests" / "core" / "corpus.jsonl",
    "real": ROOT / "tests" / "real" / "cases.jsonl",
    "peers": ROOT / "tests" / "peers" / "cases.jsonl",
}
#: the template a text with no call markup is read with: the LongCat one when it holds LongCat's reasoning tags
NO_CALLS_TEMPLATE: Final = "qwen3-tools-first"
LONGCAT_REASONING_TEMPLATE: Final = "longcat-kv"
#: how many examples the document shows per class, and how much of each
EXAMPLES: Final = 3
EXAMPLE_CHARS: Final = 160


@dataclass(frozen=True, slots=True)
class Case:
    source: str
    id: str
    text: str
    tools: list[Any]
    #: the template pre-opened reasoning: the output starts inside it
    reasoning_open: bool


@dataclass(frozen=True, slots=True)
class Reading:
    """What one reader makes of an output: ``calls`` are (name, arguments as canonical JSON, or the raw value's
    ``repr`` marked ``raw:`` when it is no JSON text)."""

    content: str
    reasoning: str
    calls: tuple[tuple[str, str], ...]

    def shown(self) -> str:
        parts = {"content": self.content, "reasoning": self.reasoning}
        text = ", ".join(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in parts.items() if v)
        calls = "; ".join(f"{name}({arguments})" for name, arguments in self.calls)
        return "; ".join(filter(None, [text, f"calls: {calls}" if calls else ""])) or "(nothing)"


@dataclass(frozen=True, slots=True)
class Outcome:
    case: Case
    template: str
    core: Reading
    #: None when ``parse_response`` raised
    standard: Reading | None
    error: str | None
    #: the class of the difference, None when the readings are equal
    klass: str | None


# ----------------------------------------------------------------------------------------------------------------------
# The cases, and the template each is read with
# ----------------------------------------------------------------------------------------------------------------------


def load_cases(sources: Iterable[str] = SOURCES) -> list[Case]:
    """Every case of ``sources``, less those written in another family's dialect (:func:`other_family`)."""
    out = []
    for source in sources:
        for line in SOURCES[source].read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            raw = json.loads(line)
            opened = raw.get("reasoning_open", (raw.get("options") or {}).get("reasoning_open", False))
            case = Case(source, raw["id"], raw["text"], raw["tools"], bool(opened))
            if not other_family(case.text):
                out.append(case)
    return out


def other_family(text: str) -> bool:
    """Whether ``text`` is written in a dialect declared for the tests only (``tests/extra_dialects.py``: GLM,
    Kimi-K2, DeepSeek, MiniMax), which no shipped template is for: it holds one of their tags that no registered
    dialect has."""
    return any(tag in text for tag in _other_family_tags())


@cache
def _other_family_tags() -> tuple[str, ...]:
    from tests.extra_dialects import DECLARATIONS

    declared = {tag for entry in DECLARATIONS for tag in _tags_of(D.declared(entry))}
    return tuple(sorted(declared - set(_markup_tags())))


def _tags_of(dialect: D.Dialect) -> list[str]:
    """The tags a dialect's output holds (whatever they start with; a name's end, a namespace and an index mark are
    no tags, and an empty one is none)."""
    tags = [dialect.block.open, dialect.block.close, *dialect.end_of_sequence, *(dialect.reasoning or ())]
    if dialect.markup:
        m = dialect.markup
        tags += [m.call_open, m.call_close, m.param_open, m.param_close]
    if dialect.pairs:
        p = dialect.pairs
        tags += [p.key_open, p.key_close, p.value_open, p.value_close]
    if dialect.separated:
        s = dialect.separated
        tags += [s.call_open, s.separator, s.call_close, s.id_mark]
    return [tag for tag in tags if tag]


def _templates_by_dialect() -> dict[str, str]:
    return {R.spec(name).dialect: name for name in R.names()}


def _first(text: str, tags: Iterable[str]) -> tuple[int, str] | None:
    found = [(i, tag) for tag in tags if (i := text.find(tag)) >= 0]
    return min(found, key=lambda f: (f[0], -len(f[1]))) if found else None


def dialect_of(text: str) -> str | None:
    """The dialect a text's calls are written in: the first call markup that appears decides (the core reads every
    dialect in one output, and detects none per output); after a block's opening tag, what follows it decides, as
    the core reads it: a markup call or a key/value pair inside the block, else a JSON body (``{`` or ``[``) is the
    block's JSON dialect and anything else its key/value dialect (whose name comes first), if it has one. None: no
    call markup."""
    dialects = list(D.DIALECTS.values())
    signs = {tag: d.name for d in dialects if d.markup for tag in (d.markup.call_open, d.markup.param_open)}
    signs |= {d.pairs.key_open: d.name for d in dialects if d.pairs}
    blocks = {d.block.open: d.block for d in dialects}
    first = _first(text, [*signs, *blocks])
    if first is None:
        return None
    at, tag = first
    if tag in signs:
        return signs[tag]
    block = blocks[tag]
    body = text[at + len(tag) :]
    body = body[: body.find(block.close)] if block.close in body else body
    inner = _first(body, signs)
    if inner is not None:
        return signs[inner[1]]
    in_block = [d for d in dialects if d.block == block]
    json_body = [d for d in in_block if d.body == "json"]
    pairs = [d for d in in_block if d.pairs]
    if body.lstrip().startswith(("{", "[")) or not pairs:
        return (json_body or in_block)[0].name
    return pairs[0].name


def template_for(text: str) -> str:
    """The shipped template a text is read with: its dialect's; with no call markup, the one whose reasoning tags it
    holds."""
    dialect = dialect_of(text)
    if dialect is not None:
        return _templates_by_dialect()[dialect]
    longcat_think = R.spec(LONGCAT_REASONING_TEMPLATE).think
    return LONGCAT_REASONING_TEMPLATE if any(tag in text for tag in longcat_think) else NO_CALLS_TEMPLATE


# ----------------------------------------------------------------------------------------------------------------------
# The two readings
# ----------------------------------------------------------------------------------------------------------------------


def _arguments(value: Any) -> str:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return "raw:" + repr(value)
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def core_reading(case: Case) -> Reading:
    options = ParserOptions(reasoning=True, reasoning_open=case.reasoning_open, log_problems=False)
    message = parse(case.text, case.tools, options)
    calls = tuple((c.name, _arguments(c.arguments)) for c in message.tool_calls)
    return Reading(message.content, message.reasoning, calls)


def prefix(template: str, reasoning_open: bool) -> str:
    spec = R.spec(template)
    return spec.start_anchor + (spec.think[0] if reasoning_open else "")


def standard_reading(case: Case, template: str) -> Reading:
    """``parse_response`` with the shipped template (raises what it raises)."""
    from transformers.utils.chat_parsing import parse_response

    message = parse_response(
        case.text, _loaded(template), prefix=prefix(template, case.reasoning_open), tools=case.tools
    )
    calls = []
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        function = function if isinstance(function, dict) else {}
        calls.append((str(function.get("name")), _arguments(function.get("arguments"))))
    return Reading(message.get("content") or "", message.get("thinking") or "", tuple(calls))


@cache
def _loaded(template: str) -> Any:
    from transformers.utils.chat_parsing.response_templates import load_response_template

    return load_response_template(R.load(template))


def compare(case: Case) -> Outcome:
    template = template_for(case.text)
    core = core_reading(case)
    try:
        standard: Reading | None = standard_reading(case, template)
        error = None
    except Exception as e:  # the standard failing the request is a result
        standard, error = None, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    outcome = Outcome(case, template, core, standard, error, None)
    if standard == core:
        return outcome
    return Outcome(case, template, core, standard, error, classify(outcome))


# ----------------------------------------------------------------------------------------------------------------------
# Classes of differences
# ----------------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Class:
    """A class of differences. Its title and cause are Markdown for a table cell (one line, no ``|``)."""

    key: str
    title: str
    #: why the readings differ, one line
    cause: str

    def __post_init__(self) -> None:
        if any(c in self.title + self.cause for c in "|\n"):
            raise ValueError(f"class {self.key}: a table cell holds no '|' and no line break")


#: every class, in the order the rules of :func:`classify` try them
CLASSES: Final = (
    Class(
        "exception",
        "the standard fails the request",
        "`parse_response` raises: the `json` content parser takes a block that is not exactly one JSON document "
        "(cut off, several objects, Python literals, trailing commas, a name before the JSON, prose between tags), "
        "and the whole output is lost",
    ),
    Class(
        "undeclared-name",
        "unknown tool names",
        "a block names no declared tool: the core returns it as content, verbatim; the standard returns a call "
        "(it knows no tool list: a word of prose in a block becomes a call's name)",
    ),
    Class(
        "reasoning-ends-at-call",
        "a call inside open reasoning",
        "the core ends reasoning at a call's opening tag; the template's reasoning ends only at its closing tag, "
        "and the calls stay in the reasoning (a close pattern could end it there, but vLLM needs the reasoning's "
        "closing tag as a literal)",
    ),
    Class(
        "call-spelling",
        "drifted call spellings the core reads",
        "a call written otherwise than the template's patterns: no block or no opener, `NAME>`, the tool's name "
        "as the tag, a bare JSON call, a call list, a call opened where the last one was never closed",
    ),
    Class(
        "truncated",
        "truncated output",
        "the output stops inside a call, or an end-of-sequence marker comes inside one: the core returns the calls "
        "and arguments read so far, the standard reads on past the marker or drops what it cannot close",
    ),
    Class(
        "markup-in-value",
        "markup inside values",
        "a value holds markup as text (a closing tag followed by more text, a header, another dialect's tags): the "
        "standard ends the value at the first closing tag; the core decides from what follows it",
    ),
    Class(
        "argument-spelling",
        "drifted argument spellings (key/value quirks)",
        "arguments written otherwise than the template's pair pattern: a JSON body in a markup or key/value call, "
        "`key: value` lines, a JSON object as a key, a missing closing tag",
    ),
    Class(
        "typed",
        "values typed by the schema differently",
        "the standard casts top-level values only, through `float` for numbers (integers past 2**53 change), and "
        "keeps the text of Python literals, nested values, `null` and bare lists; the core types every level",
    ),
    Class(
        "reasoning-markup",
        "reasoning markup the template does not take",
        "a reasoning opener repeated after the prompt opened it, a closer with no opener, or the other family's "
        "reasoning tags: the standard keeps them as text; the core reads them as markup",
    ),
    Class(
        "end-markers",
        "an end-of-sequence marker inside reasoning",
        "an end-of-sequence marker where the template's region does not end (unclosed reasoning): the core reads it "
        "as markup, the standard keeps it as text",
    ),
    Class(
        "one-region",
        "text before a call lost",
        "`parse_response` keeps one content region and one reasoning region, the last: text before a call (or "
        "reasoning before other reasoning) is replaced by what follows (`join` would keep it, but vLLM refuses "
        "`join` on content and reasoning)",
    ),
    Class(
        "text-in-block",
        "text inside a call block",
        "text in a call block that is no argument (a word after a value, a cut-off header), or a malformed call the "
        "core returns as text: the core returns it as content; the standard drops it, or the block's closing tag",
    ),
    Class(
        "whitespace",
        "whitespace around content, reasoning or values",
        "the standard trims content and reasoning (the `text` parser strips) and its patterns take the whitespace "
        "next to calls; the core keeps whitespace before and after a call as text",
    ),
    Class("unclassified", "unclassified", "none of the rules above"),
)
CLASS_KEYS: Final = tuple(c.key for c in CLASSES)
#: streaming is measured elsewhere: the standard's streaming is the engine's (vLLM's ``hf`` parser)
NOT_MEASURED: Final = (
    "streaming",
    "not measured here: `parse_response` reads a whole output; the standard's streaming is the engine's "
    "(vLLM's `hf` parsers, SGLang's `response_template`)",
)

_SPACE: Final = re.compile(r"\s+")


def _squashed(text: str) -> str:
    return _SPACE.sub("", text)


def _blocks() -> list[D.Block]:
    return list(dict.fromkeys([*(d.block for d in D.DIALECTS.values()), D.CALL_LIST_BLOCK]))


def _call_tags() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Every tag that opens a call, and every tag that closes one, in the registered dialects."""
    markups = [d.markup for d in D.DIALECTS.values() if d.markup]
    opens = (*(b.open for b in _blocks()), *(m.call_open for m in markups))
    closes = (*(b.close for b in _blocks()), *(m.call_close for m in markups))
    return opens, closes


def _markup_tags() -> tuple[str, ...]:
    """Every tag of the registered dialects: blocks, calls, parameters, pairs, reasoning, end of sequence."""
    tags = [*_call_tags()[0], *_call_tags()[1], *T.THINK_OPENS, *T.THINK_CLOSES, *T.END_OF_SEQUENCE]
    for d in D.DIALECTS.values():
        if d.markup:
            tags += [d.markup.param_open, d.markup.param_close]
        if d.pairs:
            tags += [d.pairs.key_open, d.pairs.key_close, d.pairs.value_open, d.pairs.value_close]
    return tuple(dict.fromkeys(tags))


def truncated(text: str, template: str) -> bool:
    """Whether the output stops inside a call: after its last call opener no call closer came (end markers and
    whitespace at the end aside), or it ends in a cut-off closing tag."""
    end = text.rstrip()
    markers = (*T.END_OF_SEQUENCE, *R.spec(template).end_markers)
    while any(end.endswith(m) for m in markers):
        end = end[: -len(next(m for m in markers if end.endswith(m)))].rstrip()
    opens, closes = _call_tags()
    last_open = max((end.rfind(t) for t in opens), default=-1)
    last_close = max((end.rfind(t) for t in closes), default=-1)
    if last_open >= 0 and any(end.endswith(t) for t in opens):  # an opener with nothing after it opens no call
        return False
    cut_tag = any(end.endswith(tag[:k]) for tag in _markup_tags() for k in range(2, len(tag)))
    return last_open > last_close or (last_open >= 0 and cut_tag)


_WORDS: Final = {"true": True, "false": False, "null": None, "none": None}


def _loose(value: Any) -> Any:
    """A value with its typing undone: strings read as JSON, Python literals, numbers or bare lists where they can
    be, numbers as floats, one-element lists as their element."""
    if isinstance(value, str):
        text = value.strip()
        if text.lower() in _WORDS:
            return _WORDS[text.lower()]
        try:
            return float(text)
        except ValueError:
            pass
        for candidate in (text, _python_literals(text), f"[{text}]", f"[{_python_literals(text)}]"):
            try:
                return _loose(json.loads(candidate))
            except ValueError:
                continue
        return text
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, dict):
        return {k: _loose(v) for k, v in value.items()}
    if isinstance(value, list):
        items = [_loose(v) for v in value]
        return items[0] if len(items) == 1 else items
    return value


def _python_literals(text: str) -> str:
    return re.sub(
        r"\b(True|False|None)\b", lambda m: {"True": "true", "False": "false", "None": "null"}[m[1]], text
    ).replace("'", '"')


def _squashed_strings(value: Any) -> Any:
    if isinstance(value, str):
        return _squashed(value)
    if isinstance(value, dict):
        return {k: _squashed_strings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_squashed_strings(v) for v in value]
    return value


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _decoded(arguments: str) -> Any:
    return arguments if arguments.startswith("raw:") else json.loads(arguments)


def _declared(case: Case) -> set[str]:
    names = set()
    for tool in case.tools:
        function = tool.get("function", tool) if isinstance(tool, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            names.add(function["name"])
    return names


def _argument_class(case: Case, template: str, core: Any, standard: Any) -> str:
    if _loose(core) == _loose(standard):
        return "typed"
    if _squashed_strings(core) == _squashed_strings(standard):
        return "whitespace"
    tags = _markup_tags()
    if any(tag in s for s in _strings(core) for tag in tags):
        return "markup-in-value"
    if not isinstance(core, dict) or not isinstance(standard, dict):
        return "argument-spelling"
    if any(not _written_as_key(case.text, template, key) for key in core):
        return "argument-spelling"
    if truncated(case.text, template) and all(k in core and _loose(core[k]) == _loose(v) for k, v in standard.items()):
        return "truncated"
    return "argument-spelling"


def _written_as_key(text: str, template: str, key: str) -> bool:
    """Whether ``text`` names argument ``key`` as the template's dialect writes a key (always, for a JSON body)."""
    dialect = D.DIALECTS[R.spec(template).dialect]
    if dialect.markup is not None:
        return f"{dialect.markup.param_open}{key}{dialect.markup.name_end}" in text
    if dialect.pairs is not None:
        return f"{dialect.pairs.key_open}{key}{dialect.pairs.key_close}" in text
    return True


def _calls_class(outcome: Outcome) -> str:
    case, core, standard = outcome.case, outcome.core, outcome.standard
    assert standard is not None
    declared = _declared(case)
    if any(name not in declared for name, _ in standard.calls):
        if all(resolve_tool_name(name, declared, bool(declared)) for name, _ in standard.calls):
            return "call-spelling"
        return "undeclared-name"
    opens, _ = _call_tags()
    if len(standard.calls) < len(core.calls) and any(
        t in standard.reasoning and t not in core.reasoning for t in opens
    ):
        return "reasoning-ends-at-call"
    if [n for n, _ in standard.calls] != [n for n, _ in core.calls]:
        if truncated(case.text, outcome.template) and len(standard.calls) < len(core.calls):
            return "truncated"
        return "call-spelling"
    for (_, c), (_, s) in zip(core.calls, standard.calls, strict=True):
        if c != s:
            return _argument_class(case, outcome.template, _decoded(c), _decoded(s))
    raise AssertionError("the calls differ")


def _text_class(outcome: Outcome, core: str, standard: str) -> str:
    if _squashed(core) == _squashed(standard):
        return "whitespace"
    markers = (*T.END_OF_SEQUENCE, *R.spec(outcome.template).end_markers)
    if any(m in standard and m not in core for m in markers):
        return "end-markers"
    if any(t in standard and t not in core for t in (*T.THINK_OPENS, *T.THINK_CLOSES)):
        return "reasoning-markup"
    squashed_core, squashed_standard = _squashed(core), _squashed(standard)
    if squashed_core.endswith(squashed_standard) and len(squashed_standard) < len(squashed_core):
        opens, _ = _call_tags()
        first_call = min((i for t in opens if (i := outcome.case.text.find(t)) >= 0), default=len(outcome.case.text))
        if squashed_standard or squashed_core in _squashed(outcome.case.text[:first_call]):
            return "one-region"
    if len(squashed_standard) < len(squashed_core):
        return "text-in-block"
    return "unclassified"


def classify(outcome: Outcome) -> str:
    """The class of a difference: the first rule that holds, calls first, then reasoning, then content."""
    core, standard = outcome.core, outcome.standard
    if standard is None:
        return "exception"
    if standard.calls != core.calls:
        return _calls_class(outcome)
    if standard.reasoning != core.reasoning:
        opens, _ = _call_tags()
        if any(t in standard.reasoning and t not in core.reasoning for t in opens):
            return "reasoning-ends-at-call"
        read, kept = core.content + core.reasoning, standard.content + standard.reasoning
        if any(t in kept and t not in read for t in (*T.THINK_OPENS, *T.THINK_CLOSES)):
            return "reasoning-markup"
        found = _text_class(outcome, core.reasoning, standard.reasoning)
        return "reasoning-markup" if found in ("text-in-block", "unclassified") else found
    return _text_class(outcome, core.content, standard.content)


# ----------------------------------------------------------------------------------------------------------------------
# The table
# ----------------------------------------------------------------------------------------------------------------------


def outcomes(cases: Sequence[Case] | None = None) -> list[Outcome]:
    return [compare(case) for case in (load_cases() if cases is None else cases)]


def transformers_version() -> str:
    from importlib.metadata import version

    return version("transformers")


def _trimmed(text: str, limit: int = EXAMPLE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _counts_table(found: Sequence[Outcome], shown: Sequence[Class]) -> list[str]:
    head = ["template", "source", "cases", "equal", *(code(c.key) for c in shown)]
    rows = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]

    def row(template: str, source: str, these: list[Outcome]) -> str:
        counts = Counter(o.klass for o in these)
        cells = [template, source, str(len(these)), str(counts[None]), *(str(counts[c.key] or "") for c in shown)]
        return "| " + " | ".join(cells) + " |"

    for template in R.names():
        of_template = [o for o in found if o.template == template]
        for source in SOURCES:
            these = [o for o in of_template if o.case.source == source]
            if these:
                rows.append(row(code(template), source, these))
        rows.append(row(f"**{code(template)}**", "all", of_template))
    rows.append(row("**all**", "all", list(found)))
    return rows


def _classes_table(found: Sequence[Outcome], shown: Sequence[Class]) -> list[str]:
    counts = Counter(o.klass for o in found)
    rows = ["| class | cases | what differs, and why |", "| --- | --- | --- |"]
    rows += [f"| {code(c.key)}: {c.title} | {counts[c.key]} | {c.cause} |" for c in shown]
    name, why = NOT_MEASURED
    rows.append(f"| {name} | - | {why} |")
    return rows


def _examples(found: Sequence[Outcome], klass: Class) -> list[str]:
    these = sorted((o for o in found if o.klass == klass.key), key=lambda o: (len(o.case.text), o.case.id))
    rows = [f"**{code(klass.key)}** ({klass.title})", "", "| case | output | core | standard |"]
    rows.append("| --- | --- | --- | --- |")
    for o in these[:EXAMPLES]:
        standard = o.standard.shown() if o.standard is not None else f"raises {o.error}"
        cells = [f"{o.case.source}: {code(o.case.id)}", code(_trimmed(o.case.text))]
        cells += [code(_trimmed(o.core.shown())), code(_trimmed(standard))]
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def table(found: Sequence[Outcome] | None = None) -> str:
    """The generated section of docs/response_templates.md."""
    found = outcomes() if found is None else found
    present = {o.klass for o in found}
    shown = [c for c in CLASSES if c.key in present]
    left_out = sum(1 for c in _all_case_texts() if other_family(c))
    lines = [
        f"Measured with transformers {transformers_version()} (`parse_response`) on {len(found)} cases "
        f"({', '.join(f'{source}: {sum(o.case.source == source for o in found)}' for source in SOURCES)}; "
        f"{left_out} corpus cases written in other families' dialects, declared for the tests only, are left out). "
        "A case is equal when content, reasoning and every call (name, arguments as JSON values) are equal.",
        "",
        *_counts_table(found, shown),
        "",
        *_classes_table(found, shown),
    ]
    for klass in shown:
        lines += ["", *_examples(found, klass)]
    return "\n".join(lines)


def guide_table(found: Sequence[Outcome] | None = None) -> str:
    """The generated section of the deployment guide: per template, the cases read as the parser reads them; the
    classes of the differences, with their causes."""
    found = outcomes() if found is None else found
    present = {o.klass for o in found}
    shown = [c for c in CLASSES if c.key in present]
    rows = [
        f"Measured with transformers {transformers_version()} on the {len(found)} cases of docs/response_templates.md "
        "(the corpus, the real outputs, the peers' cases), which shows examples of each class.",
        "",
        "| template | dialect | cases | read as the plugin reads them |",
        "| --- | --- | --- | --- |",
    ]
    for template in R.names():
        these = [o for o in found if o.template == template]
        equal = sum(o.klass is None for o in these)
        share = f"{equal} ({100 * equal // max(len(these), 1)}%)"
        rows.append(f"| {code(template)} | {R.spec(template).dialect} | {len(these)} | {share} |")
    return "\n".join([*rows, "", *_classes_table(found, shown)])


def _all_case_texts() -> list[str]:
    texts = []
    for path in SOURCES.values():
        texts += [json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return texts


def shown(document: Path = DOCUMENT, marker: str = MARKER) -> str:
    """The generated section as ``document`` shows it."""
    text = document.read_text(encoding="utf-8")
    start, end = _span(text, marker)
    return text[start:end].strip()


def documented_transformers_version() -> str:
    """The transformers version the document's table was measured with."""
    found = re.search(r"Measured with transformers (\S+) ", shown())
    return found.group(1) if found else ""


def _span(text: str, marker: str) -> tuple[int, int]:
    start = text.index("-->", text.index(f"<!-- {marker}:")) + len("-->")
    return start, text.index(f"<!-- /{marker} -->", start)


def write(rendered: str, document: Path = DOCUMENT, marker: str = MARKER) -> bool:
    """Put ``rendered`` in the document; whether it changed."""
    text = document.read_text(encoding="utf-8")
    start, end = _span(text, marker)
    new = f"{text[:start]}\n{rendered}\n{text[end:]}"
    if new != text:
        document.write_text(new, encoding="utf-8")
    return new != text


def as_json(found: Sequence[Outcome]) -> dict[str, Any]:
    """What a test needs of a run: the table, and each case's template and class."""
    rows = [{"source": o.case.source, "id": o.case.id, "template": o.template, "class": o.klass} for o in found]
    return {
        "transformers": transformers_version(),
        "table": table(found),
        "guide_table": guide_table(found),
        "outcomes": rows,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.response_templates.compare", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--write", action="store_true", help="rewrite the table in docs/response_templates.md")
    parser.add_argument("--json", action="store_true", help="print the table and each case's class as JSON")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every case that differs")
    args = parser.parse_args(argv)
    if D.EXTRA_DIALECTS or D.EXTRA_DIALECTS_PROBLEM:
        print(f"unset {D.EXTRA_ENV_VAR}: the comparison reads with the registered dialects only", file=sys.stderr)
        return 2
    found = outcomes()
    rendered = table(found)
    if args.json:
        print(json.dumps(as_json(found), ensure_ascii=False))
        return 0
    if args.verbose:
        for o in found:
            if o.klass is not None:
                standard = o.standard.shown() if o.standard is not None else f"raises {o.error}"
                print(f"{o.klass}  {o.case.source}: {o.case.id} [{o.template}]")
                print(f"    output:   {o.case.text!r}\n    core:     {o.core.shown()}\n    standard: {standard}")
    summary = guide_table(found)
    if args.write:
        print(f"{DOCUMENT.relative_to(ROOT)}: " + ("rewritten" if write(rendered) else "unchanged"))
        changed = write(summary, GUIDE, GUIDE_MARKER)
        print(f"{GUIDE.relative_to(ROOT)}: " + ("rewritten" if changed else "unchanged"))
        return 0
    print(rendered)
    if shown() != rendered or shown(GUIDE, GUIDE_MARKER) != summary:
        print(f"\nthe documents show another table: {REGENERATE}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
