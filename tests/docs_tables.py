"""The tables the docs show that follow from the code: each is generated here and lives in its document between
``<!-- NAME: generated ... -->`` and ``<!-- /NAME -->``. ``tests/test_docs_tables.py`` checks that every document
shows them as they are; ``python -m tests.docs_tables --write`` rewrites them.

* ``dialects`` (docs/design.md): the dialect registry, ``core/dialects.py``;
* ``transitions`` (docs/design.md): the machine's moves, ``core/machine.py``;
* ``reading`` (README.md): what the parser reads, the registered dialects first;
* ``forced-dialects`` (deployment_guide.md): the values of ``LONGCAT_TOOL_DIALECT`` and the call each forces.

Shorter texts stand inline, in a sentence or a table cell, as often as a document needs them, between
``<!-- NAME: generated -->`` and ``<!-- /NAME -->`` on one line (:data:`INLINE`):

* ``dialect-names``: the registered dialects' names, which is every list of them the docs show;
* ``dialect-detection``: how vLLM picks a model's dialect from its tokenizer.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Final

from longcat_plugins.core import dialects as D
from longcat_plugins.core import tags as T
from longcat_plugins.core.machine import TRANSITIONS, Mode
from tests.grammar_cases import written

ROOT = Path(__file__).resolve().parents[1]


#: in a code span of a table cell: what is written as an escape (a code span shows backslashes as they are, so a
#: backslash is doubled to keep ``\\n`` a line break's escape)
_CODE_ESCAPES: Final = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "|": "\\|"}
#: in plain text of a table cell: Markdown's escapes, and line breaks as ``<br>``
_TEXT_ESCAPES: Final = {"\\": "\\\\", "|": "\\|", "`": "\\`", "\r\n": "<br>", "\n": "<br>", "\r": "<br>"}
_CODE_ESCAPE: Final = re.compile("|".join(map(re.escape, _CODE_ESCAPES)))
_TEXT_ESCAPE: Final = re.compile("|".join(map(re.escape, _TEXT_ESCAPES)))


def code(text: str) -> str:
    """``text`` as a code span in a table cell: line breaks as ``\\n`` (a backslash as ``\\\\``), ``|`` escaped
    (a table row is split at every unescaped ``|``, in code spans too), between enough backticks."""
    escaped = _CODE_ESCAPE.sub(lambda m: _CODE_ESCAPES[m.group()], text)
    fence = "`" * (max(map(len, re.findall("`+", escaped)), default=0) + 1)
    pad = " " if escaped.startswith("`") or escaped.endswith("`") else ""
    return f"{fence}{pad}{escaped}{pad}{fence}"


def plain(text: str) -> str:
    """``text`` as plain text in a table cell: backslashes, ``|`` and backticks escaped, line breaks as ``<br>``."""
    return _TEXT_ESCAPE.sub(lambda m: _TEXT_ESCAPES[m.group()], text)


def _one_call(dialect: D.Dialect) -> str:
    return code(written(dialect, "f", {"p": "v"}))


def dialects() -> str:
    rows = ["| name | dialect | written by | block | one call, as constrained decoding writes it |"]
    rows.append("| --- | --- | --- | --- | --- |")
    for d in D.DIALECTS.values():
        block = f"{code(d.block.open)} ... {code(d.block.close)}"
        rows.append(f"| {code(d.name)} | {plain(d.title)} | {plain(d.models)} | {block} | {_one_call(d)} |")
    return "\n".join(rows)


def transitions() -> str:
    rows = ["| mode | trigger | next mode | action |", "| --- | --- | --- | --- |"]
    for (mode, trigger), (target, action) in TRANSITIONS.items():
        to = target.value if isinstance(target, Mode) else repr(target).lower().replace("_", " ")
        rows.append(f"| {mode.value} | {trigger.value} | {to} | {action.value} |")
    return "\n".join(rows)


#: what the parser reads besides the registered dialects, as real models write it (the readers' own variants)
READING_VARIANTS = (
    (
        "markup calls, anywhere",
        "a markup call (`<function=f>...</function>`) bare, or in any block; an orphan `</tool_call>` after a bare "
        "block is markup",
    ),
    (
        "key/value, as real LongCat models also write it",
        "`f {json}`, `f({js: 'object'})`, `f<longcat_arg_key>{json}`, `name`/`arguments` pairs, `p: value` lines; "
        "`functions.f`",
    ),
    (
        "Qwen3.5 / Qwen3.6 variants (read only when `f` is a declared tool)",
        "`<tool_call>f>` then `<parameter=p>value</parameter>` pairs (no `<function=`), `<tool_call>f>{json}`, "
        "`<f>{json}</f>` (the tool's name as the tag)",
    ),
    (
        "JSON arguments wrapped (read only when `f` is a declared tool)",
        'arguments wrapped as `{"args": {...}}` for a tool with no parameter `args`, in any JSON call',
    ),
    (
        "JSON call with no tag (read only when `f` is a declared tool)",
        'at the start of the output, `{"name": "f", "arguments": {...}}` or an array of them, in that key order (any '
        "other JSON stays content)",
    ),
    (
        "call list",
        f'`{D.CALL_LIST_BLOCK.open}[{{"name": "f", "parameters": {{...}}}}]{D.CALL_LIST_BLOCK.close}`',
    ),
    (
        "reasoning",
        " ".join(f"`{o}...{c}`," for o, c in zip(T.THINK_OPENS, T.THINK_CLOSES, strict=True)).rstrip(",")
        + " (also pre-opened by the template)",
    ),
)


def reading() -> str:
    rows = ["| dialect | looks like |", "| --- | --- |"]
    for dialect in D.DIALECTS.values():
        several = " (several calls per block)" if dialect.body == "json" else ""
        rows.append(f"| {plain(dialect.title)} ({code(dialect.name)}) | {_one_call(dialect)}{several} |")
    rows += [f"| {name} | {text} |" for name, text in READING_VARIANTS]
    return "\n".join(rows)


def forced_dialects() -> str:
    rows = ["| `LONGCAT_TOOL_DIALECT` | forced syntax | models |", "| --- | --- | --- |"]
    for dialect in D.DIALECTS.values():
        rows.append(f"| {code(dialect.name)} | {_one_call(dialect)} | {plain(dialect.models)} |")
    return "\n".join(rows)


def dialect_names() -> str:
    return ", ".join(code(name) for name in D.DIALECTS)


def dialect_detection() -> str:
    rules = []
    for sign in D.detection_signs():
        tags = " or ".join(code(tag) for tag in sign.tags)
        where = "template" if sign.template_only else "vocabulary or template"
        rules.append(f"{code(sign.dialect.name)} if its {where} holds {tags}")
    return ", ".join([*rules, f"else {code(D.DEFAULT)}"])


#: inline text name -> what renders it
INLINE: dict[str, Callable[[], str]] = {"dialect-names": dialect_names, "dialect-detection": dialect_detection}
#: the documents that may show inline texts
DOCUMENTS: tuple[str, ...] = ("README.md", "deployment_guide.md", "docs/design.md")
_INLINE: Final = re.compile(r"(<!-- ([\w-]+): generated -->)(.*?)(<!-- /\2 -->)")


def inline_shown(document: str) -> list[tuple[str, str]]:
    """The inline texts ``document`` shows: (name, text) in order."""
    text = (ROOT / document).read_text(encoding="utf-8")
    return [(m.group(2), m.group(3)) for m in _INLINE.finditer(text)]


def regenerated(text: str) -> str:
    """``text`` with every inline text (and every table of :data:`TABLES` it holds) as the code renders it now."""
    text = _INLINE.sub(lambda m: m.group(1) + INLINE[m.group(2)]() + m.group(4), text)
    for name, (_, render) in TABLES.items():
        if f"<!-- {name}:" in text:
            start, end = _span(text, name)
            text = f"{text[:start]}\n{render()}\n{text[end:]}"
    return text


#: table name -> (document, what renders it)
TABLES: dict[str, tuple[str, Callable[[], str]]] = {
    "dialects": ("docs/design.md", dialects),
    "transitions": ("docs/design.md", transitions),
    "reading": ("README.md", reading),
    "forced-dialects": ("deployment_guide.md", forced_dialects),
}


def _span(text: str, name: str) -> tuple[int, int]:
    """Where table ``name`` stands in ``text`` (between the end of its opening comment and its closing one)."""
    start = text.index("-->", text.index(f"<!-- {name}:")) + len("-->")
    return start, text.index(f"<!-- /{name} -->", start)


def shown(name: str) -> str:
    document, _ = TABLES[name]
    text = (ROOT / document).read_text(encoding="utf-8")
    start, end = _span(text, name)
    return text[start:end].strip()


def write() -> list[str]:
    """Rewrite every document whose tables or inline texts differ; returns the documents."""
    changed = []
    for document in dict.fromkeys([*DOCUMENTS, *(document for document, _ in TABLES.values())]):
        path = ROOT / document
        text = path.read_text(encoding="utf-8")
        if regenerated(text) != text:
            path.write_text(regenerated(text), encoding="utf-8")
            changed.append(document)
    return changed


def stale() -> list[str]:
    """The tables and inline texts a document shows otherwise than the code renders them."""
    out = [name for name, (_, render) in TABLES.items() if shown(name) != render()]
    for document in DOCUMENTS:
        out += [f"{document}: {name}" for name, text in inline_shown(document) if text != INLINE[name]()]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.docs_tables", description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite the tables that differ (else: list them)")
    args = parser.parse_args(argv)
    if args.write:
        changed = write()
        print("rewritten: " + (", ".join(changed) or "none"))
        return 0
    differ = stale()
    print("stale: " + (", ".join(differ) or "none"))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
