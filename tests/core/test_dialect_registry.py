"""Each dialect is declared once (``core/dialects.py``); what follows from a declaration is checked here for every
registered dialect, so that a new one fails until it has everything a dialect needs:

* the docs show the registry's tables as they are (``tests/test_docs_tables.py``);
* the parser reads a call written as the declaration writes it (what constrained decoding forces) as that call;
* the corpus (``tests/core/corpus.jsonl``) has cases in it, and the fuzzer's generator (``tests/fuzz/outputs.py``)
  writes it.

The grammar of each dialect is checked where the engines compile it: ``tests/*/test_*_grammar_round_trip.py``
round-trips every registered dialect through vLLM's and SGLang's grammar engines."""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from longcat_plugins.core import ParserOptions, parse
from longcat_plugins.core import dialects as D
from longcat_plugins.core.dialects import (
    DIALECTS,
    READ_DIALECTS,
    Block,
    Dialect,
    Markup,
    Pairs,
    Parameter,
    pair_value_ends,
)
from longcat_plugins.core.readers.kv_call import PAIR_TABLES
from tests.extra_dialects import GLM47
from tests.fuzz.outputs import well_formed
from tests.grammar_cases import GLM_KV, written

CORPUS = Path(__file__).with_name("corpus.jsonl")
TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
        },
    },
}


@pytest.mark.parametrize("dialect", list(READ_DIALECTS.values()), ids=list(READ_DIALECTS))
def test_the_parser_reads_what_the_dialect_writes(dialect: Dialect) -> None:
    arguments = {"city": "Paris <b>", "days": 3}
    text = f"Let me check.\n{written(dialect, 'get_weather', arguments)}"
    for options in (ParserOptions(), ParserOptions(reasoning=False)):
        message = parse(text, [TOOL], options)
        calls = [(c.name, json.loads(c.arguments)) for c in message.tool_calls]
        assert calls == [("get_weather", arguments)], dialect.name
        assert message.content.strip() == "Let me check."


def _marks(dialect: Dialect) -> tuple[str, ...]:
    """Text that only an output in ``dialect`` holds."""
    if dialect.separated is not None:
        return (dialect.separated.separator,)
    if dialect.quoted is not None:
        return (f"{dialect.block.open}{dialect.quoted.call_open}", f"{dialect.block.open}\n{dialect.quoted.call_open}")
    if dialect.parameter is None:
        opens = "[" if dialect.block.holds_list else ""
        return (f'{dialect.block.open}\n{opens}{{"name"', f'{dialect.block.open}{opens}{{"name"')
    return (dialect.parameter.key_open,)


@pytest.mark.parametrize("dialect", list(READ_DIALECTS.values()), ids=list(READ_DIALECTS))
def test_the_corpus_and_the_fuzzer_write_the_dialect(dialect: Dialect) -> None:
    texts = [json.loads(line)["text"] for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert sum(any(mark in text for mark in _marks(dialect)) for text in texts) >= 3, "corpus cases"
    generated = [well_formed(random.Random(seed)).text for seed in range(300)]
    assert any(any(mark in text for mark in _marks(dialect)) for text in generated), "the fuzzer's generator"


@pytest.mark.parametrize(
    "declare",
    [
        lambda: Block("", "</call>"),
        lambda: Block("<call>", " \n"),
        lambda: Markup("<fn=", "</fn>", "", "</p>"),
        lambda: Markup("<fn=", "</fn>", "<p=", "</p>", name_end=""),
        lambda: Parameter("", "</k><v>", "</v>"),
        lambda: Parameter("\n", "</k><v>", "</v>"),
        lambda: Pairs("<k>", "</k>", "", "</v>"),
        lambda: Dialect("x", "X", "none", Block("<call>", "</call>"), "", "<call>", "", "</call>", "json"),
        lambda: Dialect("x", "X", "none", Block("<call>", "</call>"), "<call>", "\t", "", "</call>", "json"),
    ],
    ids=[
        "block-open",
        "block-close",
        "param-open",
        "name-end",
        "key-open",
        "key-open-blank",
        "value-open",
        "trigger",
        "prefix",
    ],
)
def test_a_declaration_with_an_empty_tag_is_an_error(declare: Callable[[], object]) -> None:
    """An empty tag is in every vocabulary and template: detection would pick its dialect for every model."""
    with pytest.raises(ValueError, match="must be a tag"):
        declare()


def test_a_key_value_or_markup_body_needs_its_tags() -> None:
    block = Block("<call>", "</call>")
    for body in ("kv", "markup"):
        with pytest.raises(ValueError, match="needs its tags"):
            Dialect("x", "X", "none", block, "<call>", "<call>", "\n", "</call>", body)  # type: ignore[arg-type]


def test_the_key_value_reader_ends_a_value_where_the_declaration_says() -> None:
    """The grammar holds a key/value string value to hold none of the tags the declaration says end it; the reader
    ends a value at the same tags."""
    for dialect in DIALECTS.values():
        if dialect.pairs is not None:
            assert set(pair_value_ends(dialect)) == set(PAIR_TABLES[dialect.pairs.key_open].value_end.tags)


def test_the_tests_read_the_test_only_dialects_besides_the_registry() -> None:
    assert READ_DIALECTS[GLM_KV.name] == GLM_KV
    assert GLM_KV.name not in DIALECTS
    assert GLM_KV.pairs is not None and GLM_KV.pairs.key_open in D.PAIR_KEY_OPENS


def test_extra_dialects_are_declared_as_data(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(D.EXTRA_ENV_VAR, raising=False)
    assert D.extra_dialects_from_env() == {}
    monkeypatch.setenv(D.EXTRA_ENV_VAR, json.dumps([GLM47]))
    assert D.extra_dialects_from_env() == {GLM_KV.name: GLM_KV}
    markup = {"name": "minimax", "title": "MiniMax", "models": "MiniMax-M2", "block": ["<calls>", "</calls>"]}
    markup["markup"] = ['<invoke name="', "</invoke>", '<parameter name="', "</parameter>", '">']
    monkeypatch.setenv(D.EXTRA_ENV_VAR, json.dumps([markup]))
    assert D.extra_dialects_from_env()["minimax"].markup == Markup(*markup["markup"])


@pytest.mark.parametrize(
    "value",
    [
        "{",
        '{"name": "x"}',
        '[{"name": "x"}]',
        json.dumps([{**GLM47, "name": "kv"}]),
        json.dumps([{**GLM47, "block": ["", "</c>"]}]),
    ],
    ids=["no-json", "no-list", "no-tags", "registered-name", "empty-tag"],
)
def test_a_wrong_extra_dialect_is_an_error_naming_the_variable(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(D.EXTRA_ENV_VAR, value)
    with pytest.raises(ValueError, match=D.EXTRA_ENV_VAR):
        D.extra_dialects_from_env()


def _tags_of(dialect: Dialect) -> list[str]:
    """Every tag a declaration is made of: its block's, its markup's, its pairs', its separated call's (not the
    namespace or index mark written around a name), its end-of-sequence tokens."""
    groups: list[tuple[object, ...]] = [dataclasses.astuple(dialect.block), dialect.end_of_sequence]
    groups += [dataclasses.astuple(group) for group in (dialect.markup, dialect.pairs) if group is not None]
    if dialect.separated is not None:
        groups.append((dialect.separated.call_open, dialect.separated.separator, dialect.separated.call_close))
    if dialect.quoted is not None:
        groups.append((dialect.quoted.quote,))  # (its other marks are no tags)
    return [tag for group in groups for tag in group if isinstance(tag, str) and len(tag) > 1]


def _declared_tags() -> dict[str, str]:
    """The tags every dialect the parser reads is made of (the test-only ones too) and every block's, by their
    constant's name in ``core/tags.py`` (or by themselves when they have none)."""
    from longcat_plugins.core import tags

    declared = {tag for d in READ_DIALECTS.values() for tag in _tags_of(d)}
    declared |= {tag for block in D.BLOCKS for tag in (block.open, block.close)}
    named = {value: name for name, value in vars(tags).items() if isinstance(value, str) and value in declared}
    return {named.get(tag, tag): tag for tag in declared if tag}  # (an empty tag: the declaration writes none)


ROOT = Path(D.__file__).parents[2]
#: where the tags are declared
DECLARING = ("longcat_plugins/core/dialects.py", "longcat_plugins/core/tags.py")
#: the fuzzer's generator and checks, which take every tag from the declarations too
FUZZER = ("tests/fuzz/outputs.py", "tests/fuzz/scaling.py", "tests/fuzz/texts.py", "tests/fuzz/checks.py")
#: modules that may hold a tag, each with its reason
ALLOWED = {
    "longcat_plugins/replay/qwen_vocab.py": "Qwen's real added tokens at their real ids: a fact of its tokenizer (the "
    "ids follow from the order), not a dialect's declaration",
}


def _modules() -> list[str]:
    package = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "longcat_plugins").rglob("*.py"))
    return [m for m in [*package, *FUZZER] if m not in DECLARING]


def _naming(module: str, tags: dict[str, str]) -> list[str]:
    """Where ``module`` names a dialect's tag: a string constant that holds one (docstrings aside), a tag constant of
    ``core/tags.py`` (as ``T.X``, ``tags.X`` or imported by name) or the end-of-sequence tokens every dialect reads,
    which the registry extends (``dialects.END_OF_SEQUENCE``)."""
    constants = {name for name in tags if name.isupper()} | {"END_OF_SEQUENCE"}
    tree = ast.parse((ROOT / module).read_text(encoding="utf-8"))
    docstrings = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("T", "tags"):
            if node.attr in constants:
                found.append(f"{module}:{node.lineno} names {node.value.id}.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == "tags":
            found += [f"{module}:{node.lineno} imports {a.name}" for a in node.names if a.name in constants]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            held = sorted(tag for tag in tags.values() if tag in node.value)
            if held:
                found.append(f"{module}:{node.lineno} holds {held}")
    return found


def test_nothing_but_the_declarations_names_a_dialects_tag() -> None:
    """Every module of the package, and the fuzzer's generator and checks, take every dialect's tags from the
    declarations (``core/dialects.py``, made of ``core/tags.py``): none names a tag, by its constant or as a string
    (docstrings aside), but the few :data:`ALLOWED` for their reason."""
    tags = _declared_tags()
    assert {"ARG_KEY_OPEN", "FUNCTION_OPEN", "CALL_LIST_OPEN", "<arg_key>", "<|tool_call_begin|>"} <= tags.keys()
    modules = _modules()
    assert "longcat_plugins/core/parser.py" in modules and "longcat_plugins/doctor/samples.py" in modules
    found = [where for module in modules if module not in ALLOWED for where in _naming(module, tags)]
    assert not found, "\n".join(found)
    assert all(_naming(module, tags) for module in ALLOWED), "an allowed module that names no tag leaves the list"


def test_a_wrong_extra_dialect_stops_the_parsers_not_the_import() -> None:
    """Importing the package never fails on ``LONGCAT_EXTRA_DIALECTS`` (the doctor reports it); the adapters and the
    ``parse`` command refuse to read with it, naming the variable, rather than leave the declared dialect unread."""
    env = {**os.environ, D.EXTRA_ENV_VAR: "{"}
    code = (
        "from longcat_plugins.core import dialects as D\n"
        "assert D.EXTRA_DIALECTS == {} and D.EXTRA_ENV_VAR in D.EXTRA_DIALECTS_PROBLEM\n"
        "try:\n    D.require_extra_dialects()\nexcept ValueError as e:\n    print(e)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith(D.EXTRA_ENV_VAR), done.stderr
    parse = [sys.executable, "-m", "longcat_plugins", "parse", "--example", "weather"]
    done = subprocess.run(parse, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and D.EXTRA_ENV_VAR in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert subprocess.run(parse, capture_output=True, text=True, timeout=120).returncode == 0


def _template_of(dialect: Dialect) -> str:
    """A chat template that writes the dialect's calls (as the declaration writes one)."""
    call = written(dialect, "{{ tool_call.name }}", {"city": "{{ value }}"})
    return f"{{%- for tool_call in message.tool_calls %}}{call}{{%- endfor %}}"


@pytest.mark.parametrize("dialect", list(READ_DIALECTS.values()), ids=list(READ_DIALECTS))
def test_every_dialect_is_detected_from_a_model_that_writes_it(
    dialect: Dialect, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Among every dialect the parser reads (those ``LONGCAT_EXTRA_DIALECTS`` declares too), each is detected from
    its own signs: its template and vocabulary, its template alone, its vocabulary alone (but a markup's tags, which
    are text: its vocabulary holds only its block's tags)."""
    monkeypatch.delenv(D.ENV_VAR, raising=False)
    vocabulary, template = set(_tags_of(dialect)), _template_of(dialect)
    assert D.detect_dialect(vocabulary, template, READ_DIALECTS) == dialect
    assert D.detect_dialect((), template, READ_DIALECTS) == dialect
    if dialect.markup is None:
        assert D.detect_dialect(vocabulary, "", READ_DIALECTS) == dialect
    by_default = D.detect_dialect(vocabulary, template)  # among the registry's: an extra dialect is read, not detected
    assert by_default == dialect if dialect.name in DIALECTS else by_default in DIALECTS.values()


def test_no_sign_matches_every_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty template and vocabulary (and ones that write no dialect) give the default, among every dialect read."""
    monkeypatch.delenv(D.ENV_VAR, raising=False)
    plain = "{%- for message in messages %}{{ message.content }}{%- endfor %}"
    for vocabulary, template in [((), ""), ({"a", "<s>", "</s>"}, plain)]:
        assert D.detect_dialect(vocabulary, template, READ_DIALECTS).name == D.DEFAULT
        assert D.detect_dialect(vocabulary, template).name == D.DEFAULT


def test_a_sign_that_is_a_prefix_of_another_is_not_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dialect whose block tag is a prefix of Hermes JSON's (``<tool`` of ``<tool_call>``), declared before the
    registry's, is not picked for a Hermes model's template; its own model still gets it."""
    monkeypatch.delenv(D.ENV_VAR, raising=False)
    short = D.declared({"name": "short", "title": "Short", "models": "none", "block": ["<tool", "</tool>"]})
    among = {"short": short, **READ_DIALECTS}
    hermes = DIALECTS["hermes"]
    assert D.detect_dialect((), _template_of(hermes), among) == hermes
    assert D.detect_dialect(set(_tags_of(hermes)), "", among) == hermes
    assert D.detect_dialect((), _template_of(short), among) == short
