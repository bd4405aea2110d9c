"""The tool-call dialects, each declared once: its block, how it is written (what constrained decoding forces for
``tool_choice="required"`` or a named tool), its names, and for an XML-like call its :class:`Markup`. The tags the
parser reads derive from here (:data:`BLOCK_OPENS`, :data:`BLOCK_CLOSES`, :data:`MARKUPS` and the rest below);
parsing reads every dialect regardless of the one a model writes, and those :data:`EXTRA_DIALECTS` declares.
docs/design.md, "Adding a dialect", says what else follows from an entry.

The model's dialect is read from its tokenizer (vocabulary and chat template); ``LONGCAT_TOOL_DIALECT`` overrides it.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, NamedTuple

from . import tags as T

ENV_VAR: Final = "LONGCAT_TOOL_DIALECT"
EXTRA_ENV_VAR: Final = "LONGCAT_EXTRA_DIALECTS"


def _require_tags(declared: object, **tags: str) -> None:
    """A tag that is empty (or only whitespace) is in every text: it would match every model and start a call
    anywhere. Such a declaration is an error."""
    for field, tag in tags.items():
        if not tag.strip():
            raise ValueError(f"{type(declared).__name__}.{field} must be a tag, got {tag!r}")


@dataclass(frozen=True, slots=True)
class Block:
    """The tags around a dialect's calls; ``holds_list``: the calls inside form a JSON array (``[{...}, {...}]``).

    A block with no closing tag (``close`` empty: Mistral's ``[TOOL_CALLS]``, Llama's ``<|python_tag|>``) ends where
    its call ends, unless ``call_separator`` follows it (Llama's ``;``): then another call of the block follows."""

    open: str
    close: str
    holds_list: bool = False
    call_separator: str = ""

    def __post_init__(self) -> None:
        _require_tags(self, open=self.open)
        if self.close:
            _require_tags(self, close=self.close)
        if self.call_separator:
            _require_tags(self, call_separator=self.call_separator)
            if self.close:
                raise ValueError("Block.call_separator: only a block with no closing tag has one")


@dataclass(frozen=True, slots=True)
class Markup:
    """The tags of a call written as markup (an XML-like call)::

        {call_open}NAME{name_end}
        {param_open}P{name_end}value{param_close}
        {call_close}

    One reader reads every markup (``readers/xml_call.py``), configured by these tags. Inside a value, its own
    ``param_close``, this markup's ``call_close``, every block's closing tag and a ``param_open`` header are value
    text unless what follows them says they end it (``readers/values.py``: :class:`~.readers.values.Closers`;
    docs/design.md, "Where a value ends")."""

    call_open: str
    call_close: str
    param_open: str
    param_close: str
    name_end: str = ">"

    def __post_init__(self) -> None:
        _require_tags(
            self,
            call_open=self.call_open,
            call_close=self.call_close,
            param_open=self.param_open,
            param_close=self.param_close,
            name_end=self.name_end,
        )


@dataclass(frozen=True, slots=True)
class Pairs:
    """The tags of a call whose arguments are key/value pairs, in the dialect's block::

        {block.open}NAME
        {key_open}K{key_close}
        {value_open}value{value_close}
        {block.close}

    A value ends at its closing tag, at a next pair's key tag, or at the block's closing tag
    (:func:`pair_value_ends`); its closing tag followed by other text on its line, only where what follows decides
    so (:class:`~.readers.values.Closers`)."""

    key_open: str
    key_close: str
    value_open: str
    value_close: str

    def __post_init__(self) -> None:
        _require_tags(
            self,
            key_open=self.key_open,
            key_close=self.key_close,
            value_open=self.value_open,
            value_close=self.value_close,
        )


@dataclass(frozen=True, slots=True)
class Separated:
    """The tags of a call written as a name, a separator, then its arguments as a JSON object, in the dialect's
    block (a section that may hold several calls)::

        {call_open}{namespace}NAME{index_mark}N{id_mark}ID{separator}{...}{call_close}

    ``namespace`` (such as ``functions.``) and ``index_mark`` (such as ``:``, before the call's index in its block)
    are written when declared, and read whether written or not; ``id_mark`` (Mistral's ``[CALL_ID]``) before the
    call's id, read when written (the id is the call's). A call with no tags of its own (``call_open`` and
    ``call_close`` empty: Mistral's ``[TOOL_CALLS]NAME[ARGS]{...}``) stands right after its block's opening tag and
    ends with its arguments. One reader reads every such call (``readers/sep_call.py``), configured by these tags."""

    call_open: str
    separator: str
    call_close: str
    namespace: str = ""
    index_mark: str = ""
    id_mark: str = ""

    def __post_init__(self) -> None:
        _require_tags(self, separator=self.separator)
        if bool(self.call_open) != bool(self.call_close):
            raise ValueError("Separated: a call has both its tags or neither")
        if self.call_open:
            _require_tags(self, call_open=self.call_open, call_close=self.call_close)
        if self.id_mark:
            _require_tags(self, id_mark=self.id_mark)


@dataclass(frozen=True, slots=True)
class Quoted:
    """The marks of a call written as a name, then its arguments as bare keys with values, a string value between two
    quote tokens and any other value as JSON, in the dialect's block::

        {call_open}NAME{args_open}KEY{key_end}{quote}text{quote}{item_separator}KEY{key_end}3{args_close}

    One reader reads every such call (``readers/quoted_call.py``), configured by these marks. A string value ends at
    its closing quote token (or at a tag that ends the call: then the quote was left out), so it holds any text but
    that token."""

    call_open: str
    args_open: str
    key_end: str
    item_separator: str
    args_close: str
    quote: str

    def __post_init__(self) -> None:
        _require_tags(
            self,
            call_open=self.call_open,
            args_open=self.args_open,
            key_end=self.key_end,
            item_separator=self.item_separator,
            args_close=self.args_close,
            quote=self.quote,
        )
        # a string value is read up to its closing quote, found as a tag is (by its '<')
        if not self.quote.startswith("<"):
            raise ValueError(f"Quoted.quote must be a tag (begin with '<'), got {self.quote!r}")
        marks = {"args_open": self.args_open, "key_end": self.key_end, "item_separator": self.item_separator,
                 "args_close": self.args_close}  # fmt: skip
        for field, mark in marks.items():
            if len(mark) != 1 or mark.isalnum() or mark in "_<" or mark.isspace():
                raise ValueError(f"Quoted.{field} must be one punctuation character other than '<', got {mark!r}")
        for field in ("item_separator", "args_close"):
            # an unquoted value is JSON, read up to the character after it: one that ends a JSON token
            if marks[field] not in _VALUE_ENDS:
                ends = " ".join(sorted(_VALUE_ENDS))
                raise ValueError(f"Quoted.{field} must end an unquoted (JSON) value ({ends}), got {marks[field]!r}")
        if len(set(marks.values())) < len(marks):
            raise ValueError(f"Quoted's args_open, key_end, item_separator and args_close must differ, got {marks}")


#: the characters that end an unquoted value (a JSON value read on its own stops at them)
_VALUE_ENDS: Final = frozenset(",:]}")


@dataclass(frozen=True, slots=True)
class Parameter:
    """How a markup dialect writes one argument: ``key_open + key + key_to_value + value + value_close``."""

    key_open: str
    key_to_value: str
    value_close: str

    def __post_init__(self) -> None:
        _require_tags(self, key_open=self.key_open, key_to_value=self.key_to_value, value_close=self.value_close)


@dataclass(frozen=True, slots=True)
class Dialect:
    """One dialect, declared once: how it is named and written, the block its calls stand in, and (for constrained
    decoding) the fixed text around one call's arguments and the style of the arguments in between."""

    name: str
    #: as the documentation names it, and the models that write it
    title: str
    models: str
    block: Block
    #: text that announces a call (a prefix of :meth:`begin`)
    trigger: str
    #: ``begin(name) = prefix + name + name_suffix``
    prefix: str
    name_suffix: str
    end: str
    #: ``json``: a JSON object (after a name and a separator when ``separated`` is declared); ``markup``: an XML-like
    #: call (:class:`Markup`); ``kv``: key/value tag pairs; ``quoted``: bare keys and quoted values (:class:`Quoted`)
    body: BodyKind
    #: how a markup body writes each argument (None: a JSON body)
    parameter: Parameter | None = None
    #: the tags of a call written as markup (``body == "markup"``), which the parser reads in any block
    markup: Markup | None = None
    #: the tags of a call whose arguments are key/value pairs (``body == "kv"``)
    pairs: Pairs | None = None
    #: the tags of a call written as a name, a separator, then a JSON object (``body == "json"``)
    separated: Separated | None = None
    #: the marks of a call written with bare keys and quoted values (``body == "quoted"``)
    quoted: Quoted | None = None
    #: the dialect's end-of-sequence tokens, markup wherever they stand (besides those every dialect reads)
    end_of_sequence: tuple[str, ...] = ()
    #: the dialect's reasoning tags, opening and closing (besides those every dialect reads: :data:`THINK_OPENS`)
    reasoning: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        _require_tags(self, trigger=self.trigger, prefix=self.prefix)
        _require_tags(self, **{f"end_of_sequence[{i}]": tag for i, tag in enumerate(self.end_of_sequence)})
        _require_tags(self, **{f"reasoning[{i}]": tag for i, tag in enumerate(self.reasoning or ())})
        if self.body not in BODY_KINDS:
            # (constrained decoding builds a grammar for each kind: a kind it has none for would fail per request)
            kinds = ", ".join(BODY_KINDS)
            raise ValueError(f"dialect {self.name!r}: no grammar writes a {self.body!r} body (the kinds: {kinds})")
        shape = {"json": True, "markup": self.markup, "kv": self.pairs, "quoted": self.quoted}[self.body]
        if shape is None or (self.body in _PARAMETER_BODIES) != (self.parameter is not None):
            raise ValueError(f"dialect {self.name!r}: a {self.body} body needs its tags declared")

    def begin(self, tool_name: str) -> str:
        return f"{self.prefix}{tool_name}{self.name_suffix}"

    def write(self, tool_name: str, arguments: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> str:
        """One call as the dialect writes it (as its chat template does, and constrained decoding forces): its
        begin and end around the arguments in its style (a JSON object; in markup and key/value pairs, a string
        value bare and any other as JSON). Arguments given as pairs may repeat a key."""
        pairs = list(arguments.items()) if isinstance(arguments, Mapping) else list(arguments)
        p, q = self.parameter, self.quoted
        if q is not None:
            body = q.item_separator.join(
                f"{k}{q.key_end}{q.quote + v + q.quote if isinstance(v, str) else json.dumps(v)}" for k, v in pairs
            )
        elif p is None:
            body = "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in pairs) + "}"
        else:
            body = "".join(
                f"{p.key_open}{k}{p.key_to_value}{v if isinstance(v, str) else json.dumps(v)}{p.value_close}"
                for k, v in pairs
            )
        return self.begin(tool_name) + body + self.end


#: the kinds of body a dialect may have, each one with its reader and its grammar (``structural.py: call_body``)
BodyKind = Literal["json", "markup", "kv", "quoted"]
BODY_KINDS: Final[tuple[BodyKind, ...]] = ("json", "markup", "kv", "quoted")
#: the bodies whose arguments are written parameter by parameter (:class:`Parameter`)
_PARAMETER_BODIES: Final = frozenset(("markup", "kv"))


def _json_in(
    block: Block,
    name: str,
    title: str,
    models: str,
    end_of_sequence: tuple[str, ...] = (),
    arguments_key: str = "arguments",
) -> Dialect:
    """A JSON dialect, one call object a block (in a JSON array in a block that holds one, ``[{...}]``), on a line of
    its own between the block's tags (right after the opening tag when the block has no closing one)."""
    opens, closes = ("[", "]") if block.holds_list else ("", "")
    line = "\n" if block.close else ""
    return Dialect(
        name=name,
        title=title,
        models=models,
        block=block,
        trigger=block.open,
        prefix=f'{block.open}{line}{opens}{{"name": "',
        name_suffix=f'", {json.dumps(arguments_key)}: ',
        end=f"}}{closes}{line}{block.close}",
        body="json",
        end_of_sequence=end_of_sequence,
    )


def _markup_in(
    block: Block, markup: Markup, name: str, title: str, models: str, end_of_sequence: tuple[str, ...] = ()
) -> Dialect:
    """A markup dialect, written with one line break after each header and around each value (as Qwen3-Coder's
    template writes it; the reader takes those line breaks as markup)."""
    call_open = f"{block.open}\n{markup.call_open}"
    return Dialect(
        name=name,
        title=title,
        models=models,
        block=block,
        trigger=call_open,
        prefix=call_open,
        name_suffix=f"{markup.name_end}\n",
        end=f"{markup.call_close}\n{block.close}",
        body="markup",
        parameter=Parameter(markup.param_open, f"{markup.name_end}\n", f"\n{markup.param_close}\n"),
        markup=markup,
        end_of_sequence=end_of_sequence,
    )


def _pairs_in(
    block: Block, pairs: Pairs, name: str, title: str, models: str, end_of_sequence: tuple[str, ...] = ()
) -> Dialect:
    """A key/value dialect, written with the name on the block's first line and a line break after each tag pair
    (as LongCat's template writes it)."""
    return Dialect(
        name=name,
        title=title,
        models=models,
        block=block,
        trigger=block.open,
        prefix=block.open,
        name_suffix="\n",
        end=block.close,
        body="kv",
        parameter=Parameter(pairs.key_open, f"{pairs.key_close}\n{pairs.value_open}", f"{pairs.value_close}\n"),
        pairs=pairs,
        end_of_sequence=end_of_sequence,
    )


def _separated_in(
    block: Block, separated: Separated, name: str, title: str, models: str, end_of_sequence: tuple[str, ...] = ()
) -> Dialect:
    """A dialect whose calls are a name, a separator, then a JSON object, one call per block when written (index 0)."""
    call_open = f"{block.open}{separated.call_open}"
    return Dialect(
        name=name,
        title=title,
        models=models,
        block=block,
        trigger=call_open,
        prefix=f"{call_open}{separated.namespace}",
        name_suffix=f"{separated.index_mark}0{separated.separator}" if separated.index_mark else separated.separator,
        end=f"{separated.call_close}{block.close}",
        body="json",
        separated=separated,
        end_of_sequence=end_of_sequence,
    )


def _quoted_in(
    block: Block, quoted: Quoted, name: str, title: str, models: str, end_of_sequence: tuple[str, ...] = ()
) -> Dialect:
    """A dialect whose calls have bare keys and quoted values, written with no whitespace (as FunctionGemma's
    template writes them), one call a block."""
    call_open = f"{block.open}{quoted.call_open}"
    return Dialect(
        name=name,
        title=title,
        models=models,
        block=block,
        trigger=call_open,
        prefix=call_open,
        name_suffix=quoted.args_open,
        end=f"{quoted.args_close}{block.close}",
        body="quoted",
        quoted=quoted,
        end_of_sequence=end_of_sequence,
    )


def pair_value_ends(dialect: Dialect) -> tuple[str, ...]:
    """What ends a value of a key/value dialect: the value's closing tag, a next pair's key tag, the block's closing
    tag (none for another dialect)."""
    if dialect.pairs is None:
        return ()
    return (dialect.pairs.value_close, dialect.pairs.key_open, dialect.block.close)


#: the keys of a declaration (:func:`declared`), in the order its docstring gives them
DECLARATION_KEYS: Final = (
    "name", "title", "models", "block", "holds_list", "call_separator", "pairs", "markup", "separated", "quoted",
    "call_id", "arguments_key", "end_of_sequence", "reasoning",
)  # fmt: skip
_REQUIRED_KEYS: Final = ("name", "title", "models", "block")
#: the keys that declare a body (none: a JSON object), and what each declares
_BODIES: Final[dict[str, type[Pairs | Markup | Separated | Quoted]]] = {
    "pairs": Pairs, "markup": Markup, "separated": Separated, "quoted": Quoted,
}  # fmt: skip


def declared(entry: Mapping[str, Any]) -> Dialect:
    """A dialect declared as data (a JSON object), written as the helpers above write it. Its keys:

    - ``name`` (as ``LONGCAT_TOOL_DIALECT`` would take it), ``title`` and ``models`` (as the docs would name it and
      the models that write it): strings, required;
    - ``block``: ``[open, close]``, the tags around the calls (required), or ``[open]`` for a block with no closing
      tag, which ends where its call ends (Mistral's ``[TOOL_CALLS]``, Llama's ``<|python_tag|>``); a last item
      ``true`` is ``holds_list``;
    - ``holds_list``: ``true`` when the calls inside the block form a JSON array (``[{...}, {...}]``, written as a
      list of one call); only for a JSON body;
    - ``call_separator``: in a block with no closing tag, what stands between two of its calls (Llama's ``;``);
    - the body's tags, at most one of: ``pairs`` (``[key_open, key_close, value_open, value_close]``:
      :class:`Pairs`), ``markup`` (``[call_open, call_close, param_open, param_close]``, then ``name_end`` if not
      ``>``: :class:`Markup`), ``separated`` (``[call_open, separator, call_close]``, then ``namespace`` and
      ``index_mark`` if written: :class:`Separated`; ``["", separator, ""]`` for a call with no tags of its own,
      right after the block's opening tag: Mistral's ``[TOOL_CALLS]NAME[ARGS]{...}``), ``quoted`` (``[call_open,
      args_open, key_end, item_separator, args_close, quote]``: :class:`Quoted`); with none, the body is a JSON
      object;
    - ``call_id``: for a ``separated`` body, the tag before a call's id, between its name and its separator
      (Mistral's ``[CALL_ID]``): the id written is the call's id;
    - ``arguments_key``: for a JSON object body, the key its arguments are written under, ``arguments`` (the
      default) or ``parameters`` (Llama 3.x); both are read either way;
    - ``end_of_sequence``: the dialect's end-of-sequence tokens (a list of tags), read as markup wherever they stand,
      whatever the body;
    - ``reasoning``: ``[open, close]``, the dialect's reasoning tags (Magistral's ``[THINK]`` ... ``[/THINK]``),
      read as every dialect's ``<think>`` ... ``</think>`` are (by the parser, the reasoning-token counter and the
      reasoning parsers), whatever the body.

    Nothing of a declaration is dropped: a key not among these (:data:`DECLARATION_KEYS`), a missing one, a second
    body, a field of the wrong type or an empty tag, ``holds_list`` or ``arguments_key`` with a body other than a
    JSON object, ``call_id`` with one other than ``separated``, ``call_separator`` in a block that closes, or body
    marks that could not be read back as the grammar writes them (:class:`Quoted`) is a ``ValueError`` naming the
    dialect and the key."""
    try:
        return _declared(entry)
    except ValueError as e:
        raise ValueError(f"dialect {entry.get('name')!r}: {e}") from None


def _declared(entry: Mapping[str, Any]) -> Dialect:
    if unknown := [key for key in entry if key not in DECLARATION_KEYS]:
        known = ", ".join(map(repr, DECLARATION_KEYS))
        raise ValueError(f"unknown key {', '.join(map(repr, unknown))} (the keys a declaration has: {known})")
    if missing := [key for key in _REQUIRED_KEYS if key not in entry]:
        raise ValueError(f"missing key {', '.join(map(repr, missing))}")
    for key in ("name", "title", "models"):
        if not isinstance(entry[key], str):
            raise ValueError(f"{key!r}: expected a string, got {entry[key]!r}")
    bodies = [key for key in _BODIES if key in entry]
    if len(bodies) > 1:
        raise ValueError(f"{', '.join(map(repr, bodies))}: one body at most (none: a JSON object)")
    block = _block(entry)
    if block.holds_list and bodies:
        raise ValueError(f"'holds_list': only a JSON body's calls form a JSON array, not {bodies[0]!r} calls")
    if "call_id" in entry and bodies != ["separated"]:
        raise ValueError("'call_id': only a 'separated' body's calls have an id tag")
    if "arguments_key" in entry and (bodies or entry["arguments_key"] not in T.ARGUMENT_KEYS):
        raise ValueError(f"'arguments_key': one of {', '.join(T.ARGUMENT_KEYS)}, for a JSON object body")
    end_of_sequence = _strings(entry, "end_of_sequence")
    dialect = _declared_body(entry, block, bodies, end_of_sequence)
    if "reasoning" in entry:
        dialect = dataclasses.replace(dialect, reasoning=_pair(_strings(entry, "reasoning", (2, 2))))
    return dialect


def _pair(tags: tuple[str, ...]) -> tuple[str, str]:
    return tags[0], tags[1]


def _declared_body(
    entry: Mapping[str, Any], block: Block, bodies: list[str], end_of_sequence: tuple[str, ...]
) -> Dialect:
    names = (entry["name"], entry["title"], entry["models"])
    if not bodies:
        return _json_in(block, *names, end_of_sequence, entry.get("arguments_key", T.ARGUMENT_KEYS[0]))
    body = bodies[0]
    fields = [f for f in dataclasses.fields(_BODIES[body]) if f.name != "id_mark"]
    tags = _strings(entry, body, (sum(f.default is dataclasses.MISSING for f in fields), len(fields)))
    try:
        marks = _BODIES[body](*tags)
    except ValueError as e:
        raise ValueError(f"{body!r}: {e}") from None
    if isinstance(marks, Pairs):
        return _pairs_in(block, marks, *names, end_of_sequence)
    if isinstance(marks, Markup):
        return _markup_in(block, marks, *names, end_of_sequence)
    if isinstance(marks, Quoted):
        return _quoted_in(block, marks, *names, end_of_sequence)
    id_mark = entry.get("call_id", "")
    if not isinstance(id_mark, str):
        raise ValueError(f"'call_id': expected a string, got {id_mark!r}")
    return _separated_in(block, dataclasses.replace(marks, id_mark=id_mark), *names, end_of_sequence)


def _strings(entry: Mapping[str, Any], key: str, count: tuple[int, int] | None = None) -> tuple[str, ...]:
    """The list of strings at ``key`` (none when it is absent), of ``count`` items (least, most) if given."""
    value = entry.get(key, [])
    fits = count is None or (isinstance(value, list) and count[0] <= len(value) <= count[1])
    if not isinstance(value, list) or not fits or not all(isinstance(item, str) for item in value):
        many = "" if count is None else f"{count[0]} to {count[1]} " if count[0] < count[1] else f"{count[0]} "
        raise ValueError(f"{key!r}: expected a list of {many}strings, got {value!r}")
    return tuple(value)


def _block(entry: Mapping[str, Any]) -> Block:
    """The block of a declaration: ``[open, close]`` or ``[open]``, whether its calls form a list (its last item,
    or ``holds_list``: the same when both are given), and what separates its calls (``call_separator``)."""
    value = entry["block"]
    tags = list(itertools.takewhile(lambda item: isinstance(item, str), value)) if isinstance(value, list) else []
    if not isinstance(value, list) or len(tags) not in (1, 2) or len(value) - len(tags) > 1:
        raise ValueError(f"'block': expected [open, close] or [open], got {value!r}")
    said = [*value[len(tags) :], *([entry["holds_list"]] if "holds_list" in entry else [])]
    if not all(isinstance(flag, bool) for flag in said):
        raise ValueError(f"'holds_list': expected true or false, got {said!r}")
    if len(set(said)) > 1:
        raise ValueError("'holds_list': the key and the block's last item disagree")
    separator = entry.get("call_separator", "")
    if not isinstance(separator, str) or (separator and len(tags) == 2):
        raise ValueError(f"'call_separator': a string, for a block with no closing tag, got {separator!r}")
    return Block(tags[0], tags[1] if len(tags) == 2 else "", holds_list=any(said), call_separator=separator)


LONGCAT_BLOCK: Final = Block(T.LONGCAT_CALL_OPEN, T.LONGCAT_CALL_CLOSE)
HERMES_BLOCK: Final = Block(T.HERMES_CALL_OPEN, T.HERMES_CALL_CLOSE)
#: a JSON array of calls (``[{"name": ..., "parameters": {...}}, ...]``), read but never written (LongCat-Next)
CALL_LIST_BLOCK: Final = Block(T.CALL_LIST_OPEN, T.CALL_LIST_CLOSE, holds_list=True)
QWEN_MARKUP: Final = Markup(T.FUNCTION_OPEN, T.FUNCTION_CLOSE, T.PARAMETER_OPEN, T.PARAMETER_CLOSE)
LONGCAT_PAIRS: Final = Pairs(T.ARG_KEY_OPEN, T.ARG_KEY_CLOSE, T.ARG_VALUE_OPEN, T.ARG_VALUE_CLOSE)

#: Every dialect constrained decoding can write, by the name ``LONGCAT_TOOL_DIALECT`` takes.
DIALECTS: Final[dict[str, Dialect]] = {
    "json": _json_in(LONGCAT_BLOCK, "json", "LongCat JSON", "LongCat-Flash-Chat"),
    "kv": _pairs_in(
        LONGCAT_BLOCK, LONGCAT_PAIRS, "kv", "LongCat key/value", "LongCat-Flash-Thinking, -2601, Flash-Lite"
    ),
    "xml": _markup_in(HERMES_BLOCK, QWEN_MARKUP, "xml", "XML function", "Qwen3-Coder, XML-function reasoning models"),
    "hermes": _json_in(HERMES_BLOCK, "hermes", "Hermes / Qwen JSON", "Qwen3, Hermes-style models"),
}


def extra_dialects_from_env() -> dict[str, Dialect]:
    """The dialects ``LONGCAT_EXTRA_DIALECTS`` declares (a JSON list of :func:`declared` entries), read besides the
    registry's: a dialect tried before it is registered. The tests declare other model families' dialects so. A value
    that is no such list, a declaration :func:`declared` refuses, or a name declared twice or registered is a
    ``ValueError`` naming the variable."""
    text = os.environ.get(EXTRA_ENV_VAR, "").strip()
    try:
        entries = json.loads(text) if text else []
    except ValueError as e:
        raise ValueError(f"{EXTRA_ENV_VAR}: expected a JSON list of dialect declarations ({e})") from None
    if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
        raise ValueError(f"{EXTRA_ENV_VAR}: expected a JSON list of dialect declarations (objects), got {text[:80]!r}")
    try:
        extra = [declared(entry) for entry in entries]
    except ValueError as e:
        raise ValueError(f"{EXTRA_ENV_VAR}: {e}") from None
    names = [d.name for d in extra]
    if twice := sorted({name for name in names if names.count(name) > 1}):
        raise ValueError(f"{EXTRA_ENV_VAR}: {', '.join(twice)} declared twice")
    if clash := set(names) & DIALECTS.keys():
        raise ValueError(f"{EXTRA_ENV_VAR}: {', '.join(sorted(clash))} already registered")
    return {d.name: d for d in extra}


def _read_extra_dialects() -> tuple[dict[str, Dialect], str | None]:
    try:
        return extra_dialects_from_env(), None
    except ValueError as e:
        return {}, str(e)


_EXTRA: Final = _read_extra_dialects()
#: the dialects declared besides the registry's (:func:`extra_dialects_from_env`); read, never detected nor written
EXTRA_DIALECTS: Final = _EXTRA[0]
#: what is wrong with ``LONGCAT_EXTRA_DIALECTS``, if anything (then no extra dialect is read; see
#: :func:`require_extra_dialects`)
EXTRA_DIALECTS_PROBLEM: Final = _EXTRA[1]


def require_extra_dialects() -> None:
    """Raise the problem with ``LONGCAT_EXTRA_DIALECTS``, if any. The adapters call it where they read their other
    settings, so that a bad value stops vLLM at start-up and fails SGLang's requests with tools, rather than leave a
    declared dialect unread; importing the package never fails on it (the doctor reports it)."""
    if EXTRA_DIALECTS_PROBLEM is not None:
        raise ValueError(EXTRA_DIALECTS_PROBLEM)


#: every dialect the parser reads: the registry's, then the extra ones
READ_DIALECTS: Final = {**DIALECTS, **EXTRA_DIALECTS}
#: Every call block the parser reads: the dialects' blocks, then the call list.
BLOCKS: Final = tuple(dict.fromkeys([*(d.block for d in READ_DIALECTS.values()), CALL_LIST_BLOCK]))
BLOCK_OPENS: Final = tuple(b.open for b in BLOCKS)
BLOCK_CLOSES: Final = tuple(b.close for b in BLOCKS if b.close)
#: the blocks with no closing tag (each ends where its call ends), by their opening tag
UNCLOSED_BLOCKS: Final = {b.open: b for b in BLOCKS if not b.close}
#: the blocks whose calls form a JSON array
LIST_BLOCK_OPENS: Final = tuple(b.open for b in BLOCKS if b.holds_list)
#: every markup the parser reads, by its call's opening tag (a markup call is read in any block, and outside one)
MARKUPS: Final = {m.call_open: m for m in dict.fromkeys(d.markup for d in READ_DIALECTS.values() if d.markup)}
#: every call written as a name, a separator and a JSON object, by its call's opening tag (read in any block, and
#: outside one)
SEPARATED: Final = {
    s.call_open: s for s in dict.fromkeys(d.separated for d in READ_DIALECTS.values() if d.separated) if s.call_open
}
#: the calls written as a name, a separator and a JSON object with no tags of their own, by the opening tag of the
#: block they stand in (``[TOOL_CALLS]NAME[ARGS]{...}``)
NAMED_BLOCKS: Final = {
    d.block.open: d.separated for d in READ_DIALECTS.values() if d.separated and not d.separated.call_open
}
#: the calls written with bare keys and quoted values, by the opening tag of their block (their own opening mark need
#: not be a tag: such a call is read only in its block)
QUOTED: Final = {d.block.open: d.quoted for d in READ_DIALECTS.values() if d.quoted}
CALL_OPENS: Final = (*MARKUPS, *SEPARATED)
#: the end-of-sequence tokens the parser reads as markup: every dialect's, and those of the dialects that declare theirs
END_OF_SEQUENCE: Final = tuple(
    dict.fromkeys([*T.END_OF_SEQUENCE, *(t for d in READ_DIALECTS.values() for t in d.end_of_sequence)])
)
#: every pair of reasoning tags the parser reads: every dialect's, then those the dialects declare
REASONING_TAGS: Final = tuple(
    dict.fromkeys([
        *zip(T.THINK_OPENS, T.THINK_CLOSES, strict=True),
        *(d.reasoning for d in READ_DIALECTS.values() if d.reasoning),
    ])
)
THINK_OPENS: Final = tuple(dict.fromkeys(tag for tag, _ in REASONING_TAGS))
THINK_CLOSES: Final = tuple(dict.fromkeys(tag for _, tag in REASONING_TAGS))
#: the key/value dialects, by the tag that opens a pair (a declared name right before it is a call with no block), and
#: their blocks (whose opening tag a model may write where the closing one belongs, after such a call)
PAIR_DIALECTS: Final = {d.pairs.key_open: d for d in READ_DIALECTS.values() if d.pairs}
PAIR_KEY_OPENS: Final = tuple(PAIR_DIALECTS)
PAIR_BLOCK_OPENS: Final = tuple(dict.fromkeys(d.block.open for d in PAIR_DIALECTS.values()))
DEFAULT: Final = "json"


def dialect_override() -> Dialect | None:
    """The dialect named by ``LONGCAT_TOOL_DIALECT``, or None when it is unset. An unknown name is an error."""
    value = os.environ.get(ENV_VAR, "").strip().lower()
    if not value:
        return None
    try:
        return DIALECTS[value]
    except KeyError:
        raise ValueError(f"{ENV_VAR}={value!r}: expected one of {', '.join(DIALECTS)}") from None


class Sign(NamedTuple):
    """What tells that a model writes ``dialect``: one of ``tags`` in its chat template, or in its vocabulary too
    (unless ``template_only``)."""

    dialect: Dialect
    tags: tuple[str, ...]
    template_only: bool


def detection_signs(dialects: Iterable[Dialect] | None = None) -> list[Sign]:
    """The signs :func:`detect_dialect` looks for among ``dialects`` (by default the registry's), in order: the tags
    of a call's body are the surest (a markup's tags are text, looked for in the template only), then a quoted
    body's block or quote, then a JSON dialect's block."""
    among = list(DIALECTS.values() if dialects is None else dialects)
    pairs = [Sign(d, (d.parameter.key_open,), False) for d in among if d.body == "kv" and d.parameter]
    markups = [Sign(d, (d.markup.call_open, d.markup.param_open), True) for d in among if d.markup]
    quoted = [Sign(d, (d.block.open, d.quoted.quote), False) for d in among if d.quoted]
    blocks = [Sign(d, (d.block.open,), False) for d in among if d.body == "json"]
    return [*pairs, *markups, *quoted, *blocks]


def _in_template(tag: str, chat_template: str, signs: Iterable[str]) -> bool:
    """Whether the template holds ``tag`` other than inside a longer sign that holds it (a dialect whose tag is a
    prefix of another's, such as ``<tool`` of ``<tool_call>``, is not the other's)."""
    for longer in signs:
        if tag in longer and tag != longer:
            chat_template = chat_template.replace(longer, "\0")
    return tag in chat_template


def detect_dialect(
    vocabulary: Container[str] = (), chat_template: str = "", dialects: Mapping[str, Dialect] | None = None
) -> Dialect:
    """The dialect a model writes, from its tokenizer's vocabulary and chat template (the override first), among
    ``dialects`` (by default the registry's: the extra dialects are read, not detected; no sign: :data:`DEFAULT`)."""
    override = dialect_override()
    if override is not None:
        return override
    signs = detection_signs(None if dialects is None else dialects.values())
    every_tag = {tag for sign in signs for tag in sign.tags}
    for sign in signs:
        for tag in sign.tags:
            if (not sign.template_only and tag in vocabulary) or _in_template(tag, chat_template, every_tag):
                return sign.dialect
    return DIALECTS[DEFAULT]
