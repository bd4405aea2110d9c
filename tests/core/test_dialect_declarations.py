"""A dialect declared as data (``core/dialects.py: declared``, ``LONGCAT_EXTRA_DIALECTS``): every field is read for
every body where it means something, and nothing of a declaration is silently dropped: a key the loader does not
know, a second body, a field of the wrong type, or one that means nothing for the body is an error naming
``LONGCAT_EXTRA_DIALECTS``, the dialect and the key."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from longcat_plugins.core import ParserOptions, parse
from longcat_plugins.core import dialects as D

BASE: dict[str, Any] = {"name": "d", "title": "D", "models": "none", "block": ["<calls>", "</calls>"]}
#: one declaration of each body: a JSON object (no body key), then each body key's tags
BODIES: dict[str, dict[str, Any]] = {
    "json": {},
    "pairs": {"pairs": ["<k>", "</k>", "<v>", "</v>"]},
    "markup": {"markup": ['<invoke name="', "</invoke>", '<parameter name="', "</parameter>", '">']},
    "separated": {"separated": ["<call>", "<sep>", "</call>", "functions.", ":"]},
    "quoted": {"quoted": ["call:", "{", ":", ",", "}", "<escape>"]},
}
EOS = ["<|end_of_turn|>"]


def _load(monkeypatch: pytest.MonkeyPatch, *entries: dict[str, Any]) -> dict[str, D.Dialect]:
    monkeypatch.setenv(D.EXTRA_ENV_VAR, json.dumps(list(entries)))
    return D.extra_dialects_from_env()


@pytest.mark.parametrize("body", list(BODIES))
def test_end_of_sequence_is_read_for_every_body(monkeypatch: pytest.MonkeyPatch, body: str) -> None:
    dialect = _load(monkeypatch, {**BASE, **BODIES[body], "end_of_sequence": EOS})["d"]
    assert dialect.end_of_sequence == tuple(EOS)


@pytest.mark.parametrize("form", ["key", "third-item"])
def test_a_block_that_holds_a_list_is_declared_by_its_key_or_the_blocks_third_item(
    monkeypatch: pytest.MonkeyPatch, form: str
) -> None:
    entry = {**BASE, "holds_list": True} if form == "key" else {**BASE, "block": [*BASE["block"], True]}
    dialect = _load(monkeypatch, entry)["d"]
    assert dialect.block == D.Block("<calls>", "</calls>", holds_list=True)
    assert not _load(monkeypatch, {**BASE, "holds_list": False})["d"].block.holds_list


def test_a_list_block_writes_its_call_as_a_list_and_reads_it_back() -> None:
    """(In the block of a JSON array the parser reads, LongCat-Next's.)"""
    block = D.CALL_LIST_BLOCK
    dialect = D.declared({**BASE, "block": [block.open, block.close], "holds_list": True})
    text = dialect.write("f", {"city": "Paris"})
    assert text == f'{block.open}\n[{{"name": "f", "arguments": {{"city": "Paris"}}}}]\n{block.close}'
    tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
    message = parse(f"Hi.\n{text}", [tool], ParserOptions(reasoning=False))
    assert [(c.name, json.loads(c.arguments)) for c in message.tool_calls] == [("f", {"city": "Paris"})]


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"end_of_sequnce": EOS}, "'end_of_sequnce'"),
        ({"Name": "d"}, "'Name'"),
        ({**BODIES["pairs"], **BODIES["markup"]}, "'pairs', 'markup'"),
        ({**BODIES["markup"], "holds_list": True}, "'holds_list'"),
        ({"holds_list": "yes"}, "'holds_list'"),
        ({"holds_list": True, "block": ["<calls>", "</calls>", False]}, "'holds_list'"),
        ({"end_of_sequence": "<eos>"}, "'end_of_sequence'"),
        ({"end_of_sequence": [""]}, "end_of_sequence"),
        ({"block": []}, "'block'"),
        ({"block": ["<calls>", "</calls>", "<more>"]}, "'block'"),
        ({"call_separator": ";"}, "'call_separator'"),
        ({"call_id": "[CALL_ID]"}, "'call_id'"),
        ({**BODIES["pairs"], "arguments_key": "parameters"}, "'arguments_key'"),
        ({"arguments_key": "args"}, "'arguments_key'"),
        ({"title": None}, "'title'"),
    ],
    ids=[
        "unknown-key",
        "key-of-another-case",
        "two-bodies",
        "list-of-markup",
        "holds-list-not-a-boolean",
        "holds-list-twice-differently",
        "end-of-sequence-not-a-list",
        "empty-end-of-sequence",
        "block-of-no-tag",
        "block-of-three-tags",
        "call-separator-in-a-closed-block",
        "call-id-of-a-json-body",
        "arguments-key-of-pairs",
        "arguments-key-unread",
        "title-not-a-string",
    ],
)
def test_a_declaration_the_loader_cannot_read_whole_is_an_error_naming_what(
    monkeypatch: pytest.MonkeyPatch, change: dict[str, Any], named: str
) -> None:
    with pytest.raises(ValueError) as raised:
        _load(monkeypatch, {**BASE, **change})
    message = str(raised.value)
    assert D.EXTRA_ENV_VAR in message
    assert named in message, message
    assert "'d'" in message, message


def test_an_unknown_key_is_named_with_the_known_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError) as raised:
        _load(monkeypatch, {**BASE, **BODIES["separated"], "end_of_sequnce": EOS})
    message = str(raised.value)
    assert "'end_of_sequnce'" in message
    for key in D.DECLARATION_KEYS:
        assert repr(key) in message, key


def test_a_missing_key_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    entry = {k: v for k, v in BASE.items() if k != "models"}
    with pytest.raises(ValueError, match=rf"{D.EXTRA_ENV_VAR}.*'d'.*'models'"):
        _load(monkeypatch, entry)


def test_every_key_is_documented_where_it_is_read() -> None:
    doc = D.declared.__doc__ or ""
    for key in D.DECLARATION_KEYS:
        assert f"``{key}``" in doc, key


def test_a_quoted_body_is_declared_with_its_marks_and_written_as_its_template_writes_it() -> None:
    """Bare keys, a string between quote tokens, any other value as JSON, no whitespace (FunctionGemma's layout)."""
    dialect = D.declared({**BASE, **BODIES["quoted"]})
    assert dialect.body == "quoted"
    assert dialect.quoted == D.Quoted("call:", "{", ":", ",", "}", "<escape>")
    text = dialect.write("f", {"city": "Paris", "days": 3, "stops": [1, 2]})
    assert text == "<calls>call:f{city:<escape>Paris<escape>,days:3,stops:[1, 2]}</calls>"
    assert dialect.begin("f") == "<calls>call:f{" and dialect.trigger == "<calls>call:"


QUOTED = BODIES["quoted"]["quoted"]


@pytest.mark.parametrize(
    ("marks", "why"),
    [
        ([*QUOTED[:5], '"'], "must be a tag"),
        ([*QUOTED[:3], ";", *QUOTED[4:]], "must end an unquoted (JSON) value"),
        ([*QUOTED[:4], "]]", QUOTED[5]], "one punctuation character"),
        ([QUOTED[0], "a", *QUOTED[2:]], "one punctuation character"),
        ([*QUOTED[:3], "}", *QUOTED[4:]], "must differ"),
        (QUOTED[:5], "expected a list of 6 strings"),
    ],
    ids=["quote-not-a-tag", "separator-inside-a-value", "long-close", "letter-open", "separator-is-close", "five"],
)
def test_quoted_marks_the_reader_could_not_read_back_are_refused_when_declared(
    monkeypatch: pytest.MonkeyPatch, marks: list[str], why: str
) -> None:
    """Marks the grammar would write but the reader could not tell apart (a value's end, an item's, the call's) are
    an error naming the variable, the dialect, the key and why, when the dialect is declared (not per request)."""
    with pytest.raises(ValueError) as raised:
        _load(monkeypatch, {**BASE, "quoted": marks})
    message = str(raised.value)
    assert D.EXTRA_ENV_VAR in message and "'d'" in message and "'quoted'" in message, message
    assert why in message, message


def test_a_quoted_body_in_a_list_block_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match=rf"{D.EXTRA_ENV_VAR}: dialect 'd': 'holds_list'.*'quoted'"):
        _load(monkeypatch, {**BASE, **BODIES["quoted"], "holds_list": True})


def test_a_dialect_of_a_body_kind_no_grammar_writes_is_refused_when_made() -> None:
    """Every kind of body has its reader and its grammar (``structural.py``); a dialect of another kind is a
    ``ValueError`` naming it when it is made, not a failure in each request that forces a call."""
    made = D.declared(BASE)
    with pytest.raises(ValueError, match=r"dialect 'd': no grammar writes a 'yaml' body \(the kinds: json, markup"):
        D.Dialect(**{**{f: getattr(made, f) for f in ("name", "title", "models", "block", "trigger", "prefix")},
                     "name_suffix": "", "end": "", "body": "yaml"})  # type: ignore[arg-type]  # fmt: skip
    with pytest.raises(ValueError, match=r"dialect 'd': a quoted body needs its tags declared"):
        replace(made, body="quoted")
