"""The key/value call body, and the shapes models write it in (in the tags of a :class:`~..dialects.Pairs`
declaration; LongCat's shown)::

NAME
<longcat_arg_key>P</longcat_arg_key>
<longcat_arg_value>value</longcat_arg_value>
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Final

from .. import dialects as D
from .. import tags as T
from ..cursor import Cursor
from ..identity_enum import IdentityEnum
from ..schema import ToolSchemas
from ..tag_starts import TAG_STARTS
from ..whitespace import WHITESPACE, whitespace_end
from .args_wrapper import inner_object, unwraps_arguments, wrapper_close
from .json_value import JsonValueReader
from .markup import MarkupCall
from .sink import CallSink
from .values import KV_BODY_TAGS, Closers, LineValue, line_key

_KV_NAME_END: Final = re.compile(r"[\s<>{(]")
_MAX_WHITESPACE_AFTER_CLOSE: Final = 256
_NAME_PAIR_BOUND: Final = 128 + T.MAX_NAME_LENGTH
#: inside a block, between pairs: a think tag, an end-of-sequence marker or a markup call cannot continue the
#: block (one that never closes): it ends the call and the block
_KV_BLOCK_BODY_TAGS: Final = T.TagSet(*KV_BODY_TAGS.tags, *D.THINK_OPENS, *D.THINK_CLOSES)
_ENDS_BLOCK: Final = frozenset((*D.THINK_OPENS, *D.THINK_CLOSES, *D.END_OF_SEQUENCE, *D.CALL_OPENS))


class PairTables:
    """What the reader matches in calls of one key/value dialect, derived from its declaration."""

    __slots__ = ("after_json", "closers", "cut", "key_close", "name_pair", "pairs", "value_end", "value_open")

    def __init__(self, dialect: D.Dialect) -> None:
        pairs = dialect.pairs
        assert pairs is not None
        self.pairs: Final = pairs
        #: what ends a value
        self.value_end: Final = T.TagSet(*D.pair_value_ends(dialect))
        self.value_open: Final = T.TagSet(pairs.value_open)
        self.key_close: Final = T.TagSet(pairs.key_close)
        #: what may close the markup right after an arguments object written as JSON
        self.after_json: Final = T.TagSet(pairs.key_close, pairs.value_close)
        #: a block that begins with its name as a pair: ``<longcat_arg_key>name</longcat_arg_key>`` then
        #: ``<longcat_arg_value>NAME</longcat_arg_value>``
        key_open, key_close, value_open, value_close = map(
            re.escape, (pairs.key_open, pairs.key_close, pairs.value_open, pairs.value_close)
        )
        self.name_pair: Final = re.compile(
            rf"{key_open}\s*name\s*{key_close}\s*{value_open}\s*([^\s<>]{{1,256}})\s*{value_close}"
        )
        #: a value's closing tag followed on its line by other text is decided by what follows (value text, or
        #: its closer and stray text); a block's closing tag ends a value at once
        self.closers: Final = Closers(
            pairs.value_close,
            None,
            (*_KV_BLOCK_BODY_TAGS.tags, pairs.key_close, pairs.value_open),
            self.value_end.tags,
        )
        #: what a call's text may end in, cut off by the end of the output, that is markup: a prefix of a tag of
        #: the body, or of a value's closing tag (the value it closes ended where the tag begins)
        self.cut: Final = T.TagSet(*_KV_BLOCK_BODY_TAGS.tags, pairs.value_close)


@cache
def pair_tables(dialect: D.Dialect) -> PairTables:
    return PairTables(dialect)


#: the tables of every key/value dialect, by the tag that opens its pairs; the first dialect's read a call until a
#: pair says which dialect it is written in
PAIR_TABLES: Final = {key_open: pair_tables(dialect) for key_open, dialect in D.PAIR_DIALECTS.items()}
_FIRST_TABLES: Final = next(iter(PAIR_TABLES.values()))


class _State(IdentityEnum):
    """Where the reader is in the call."""

    #: between pairs
    BODY = "body"
    #: inside a value
    VALUE = "value"
    #: the call's name
    NAME = "name"
    AFTER_NAME = "after name"
    #: at ``<longcat_arg_key>``
    KEY = "key"
    #: after ``</longcat_arg_key>``, before the value
    AFTER_KEY = "after key"
    #: ``<longcat_arg_key>name</longcat_arg_key><longcat_arg_value>NAME...``
    NAME_PAIR = "name pair"
    #: after ``NAME(``
    OPEN_PAREN = "open paren"
    #: at the ``{`` of the arguments object, while it may be an ``{"args": {...}}`` wrapper
    JSON_OPEN = "json open"
    #: the whole arguments object, written as JSON (or a JavaScript object literal)
    JSON_ARGS = "json args"
    AFTER_JSON = "after json"
    #: between ``KEY: value`` lines
    LINES = "lines"


class KvCallReader(MarkupCall):
    """Reads a key/value call up to (not including) the closing tag of its block, starting at NAME:

    * ``NAME <longcat_arg_key>K</longcat_arg_key><longcat_arg_value>V</longcat_arg_value>...`` (the dialect);
    * ``NAME {json object}`` and ``NAME({javascript object})``: the object is the arguments;
    * ``NAME <longcat_arg_key>{json object}`` (a key holding all the arguments, often with no closing tags);
    * ``<longcat_arg_key>name</longcat_arg_key><longcat_arg_value>NAME</longcat_arg_value>`` then an ``arguments``
      key whose value is the arguments object (``name_pair=True``: the reader starts at that first key);
    * ``<NAME>{json object}</NAME>`` (``closing_tag``: the reader starts after ``<NAME>``, see ``core/tool_tags.py``).

    The tags are those of the key/value dialect whose pair-opening tag ``key_open`` is (the first dialect's when
    none is given), then of the dialect of each pair met.
    """

    def __init__(
        self,
        sink: CallSink,
        schemas: ToolSchemas,
        name_pair: bool = False,
        given_name: str = "",
        bare: bool = False,
        closing_tag: str = "",
        key_open: str = "",
    ) -> None:
        super().__init__(sink, schemas)
        self._closing_json_tag = closing_tag
        self._use(PAIR_TABLES.get(key_open, _FIRST_TABLES))
        self._state: _State = _State.AFTER_NAME if given_name else _State.NAME_PAIR if name_pair else _State.NAME
        self._name = given_name
        self._bare = bare  # no block around the call: it ends where its key/value pairs end
        self._key_markup = ""  # the raw ``<longcat_arg_key>K</longcat_arg_key>`` until its value begins
        self._json: JsonValueReader | None = None
        self._json_closers: T.TagSet | None = None
        self._closed_name = False  # a '>' after the name was taken
        self._wrapped = False  # the arguments object is the inner one of an ``{"args": {...}}`` wrapper

    def _use(self, tables: PairTables) -> None:
        """Read with the tags of ``tables``."""
        self._tables = tables
        self._closing_tag = tables.pairs.value_close
        self._closers = tables.closers
        # what may close the arguments object: with a tag of the tool's name (``<NAME>{json}</NAME>``), that tag too
        closing = self._closing_json_tag
        self._after_json = T.TagSet(*tables.after_json.tags, closing) if closing else tables.after_json

    def _key_at(self, tag: str | T.NeedMore | None) -> bool:
        """Whether ``tag`` opens a pair (whose dialect's tags the reader then reads with)."""
        tables = PAIR_TABLES.get(tag) if isinstance(tag, str) else None
        if tables is None:
            return False
        if tables is not self._tables:
            self._use(tables)
        return True

    def feed(self, cur: Cursor, pos: int) -> int:
        n = len(cur.text)
        while pos < n and not (self.done or self.failed):
            pos, reading = _READ[self._state](self, cur, pos)
            if not reading:  # waits for text, or the call ended
                return pos
        if cur.ended and not self.done:
            if not self._announced:
                if self._state in (_State.NAME, _State.AFTER_NAME, _State.NAME_PAIR):
                    self.failed = True
            elif self._state is _State.VALUE:
                self._end_param()
                self._state = _State.BODY
        return pos

    # -- the header: the name, and what shape the body has ----------------------------------------------------------

    def _read_name(self, cur: Cursor, pos: int) -> tuple[int, bool]:
        """The call's name."""
        buf = cur.text
        n = len(buf)
        m = _KV_NAME_END.search(buf, pos, pos + T.MAX_NAME_LENGTH + 1)
        if m is None:
            if n - pos > T.MAX_NAME_LENGTH or cur.ended:
                return self._fail(pos), False
            return pos, False
        self._name = buf[pos : m.start()]
        self._state = _State.AFTER_NAME
        pos = m.start()
        return pos, True

    def _read_after_name(self, cur: Cursor, pos: int) -> tuple[int, bool]:
        """After the name: what follows decides the body's shape."""
        buf = cur.text
        end = whitespace_end(buf, pos)
        if end > pos:
            pos = end
            return pos, True
        c = buf[pos]
        if c == ">" and not self._closed_name:  # ``NAME>{json}`` (Qwen3.5)
            self._closed_name = True
            pos += 1
            return pos, True
        if c in "{(":
            self._start(self._name)
            if c == "{":
                self._begin_json()
            else:
                self._state = _State.OPEN_PAREN
                pos += 1
            return pos, True
        if c not in TAG_STARTS:  # ``KEY: value`` lines, when KEY is a parameter of the tool
            self._tool = self._name
            key = line_key(cur, pos, self._accepts_line_key)
            if key is T.NEED_MORE:
                return pos, False
            if not isinstance(key, tuple):
                return self._fail(pos), False
            self._start(self._name)
            self._begin_param(key[0], self._tables.value_end, False, buf[pos : key[1]], line=True)
            self._state = _State.VALUE
            pos = key[1]
            return pos, True
        tag = KV_BODY_TAGS.match(cur, pos)
        if tag is T.NEED_MORE:
            return pos, False
        if tag is None:
            return self._fail(pos), False
        self._start(self._name)
        self._state = _State.BODY
        return pos, True

    def _read_name_pair(self, cur: Cursor, pos: int) -> tuple[int, bool]:
        """``<longcat_arg_key>name</longcat_arg_key><longcat_arg_value>NAME...``"""
        buf = cur.text
        n = len(buf)
        value_close = self._closing_tag
        close = buf.find(value_close, pos, pos + _NAME_PAIR_BOUND)
        if close < 0:
            if n - pos < _NAME_PAIR_BOUND and not cur.ended:
                return pos, False
            return self._fail(pos), False
        m = self._tables.name_pair.fullmatch(buf, pos, close + len(value_close))
        if m is None:
            return self._fail(pos), False
        self._start(m.group(1))
        self._state = _State.BODY
        pos = m.end()
        return pos, True

    def _read_open_paren(self, cur: Cursor, pos: int) -> tuple[int, bool]:
        """After ``NAME(``."""
        buf = cur.text
        n = len(buf)
        end = whitespace_end(buf, pos)
        if end == n:
            if not cur.ended:
                return pos, False  # (the whitespace goes with what follows it)
            self._state = _State.BODY
            return pos, True
        if buf[end] == "{":
            self._begin_json()
            pos = end
        elif buf[end] == ")":  # NAME(): no arguments
            self._state = _State.BODY
            pos = end + 1
        else:
            self._state = _State.BODY
        return pos, True

    # -- a body of key/value pairs ----------------------------------------------------------------------------------

    def _read_body(self, cur: Cursor, pos: int) -> tuple[int, bool]:
        """Between pairs."""
        if self._bare:
            return self._read_bare_body(cur, pos)
        buf = cur.text
        n = len(buf)
        if buf[pos] not in TAG_STARTS:
            pos = self._body_text(buf, pos)
            return pos, True
        tag = _KV_BLOCK_BODY_TAGS.match(cur, pos)
        if tag is T.NEED_MORE:
            return pos, False
        if tag is None and cur.ended and self._tables.cut.is_prefix_at(buf, pos):
            self._whitespace.drop()  # a closing tag cut off by the end of the output is markup
            return n, False
        if tag is not None:
            self._whitespace.drop()
        if self._key_at(tag):
            self._state = _State.KEY
        elif tag is not None:  # the block closes, the next block opens, or markup that ends the block
            self.ends_block = tag in _ENDS_BLOCK
            self.close()
            return pos, False
        else:
            pos = self._text_between(buf, pos)
        return pos, True

    def _read_bare_body(self, cur: Cursor, pos: int) -> tuple[int, bool]:
        """Between pairs, with no block around the call: it ends where its pairs end."""
        buf = cur.text
        n = len(buf)
        end = whitespace_end(buf, pos)
        if end == n and not cur.ended and end - pos <= _MAX_WHITESPACE_AFTER_CLOSE:
            return pos, False
        tag = KV_BODY_TAGS.match(cur, end) if end < n and buf[end] in TAG_STARTS else None
        if tag is T.NEED_MORE:
            return pos, False
        if tag is None and cur.ended and end < n and self._tables.cut.is_prefix_at(buf, end):
            return n, False  # a tag cut off by the end of the output is markup
        if self._key_at(tag):
            self._state = _State.KEY
            pos = end
            return pos, True
        self.close()  # anything else ends the call, before the whitespace
        return pos, False

    def _read_key(self, cur: Cursor, pos: int) -> tuple[int, bool]:
        """At ``<longcat_arg_key>``."""
        buf = cur.text
        n = len(buf)
        pairs = self._tables.pairs
        key_close = pairs.key_close
        start = pos + len(pairs.key_open)
        first = whitespace_end(buf, start)
        if first == n and not cur.ended:
            return pos, False
        if first < n and buf[first] == "{" and self._takes_whole_arguments():
            self._begin_json()
            pos = first
            return pos, True
        end = buf.find(key_close, start, start + T.MAX_NAME_LENGTH + len(key_close))
        if end < 0:
            if n - start < T.MAX_NAME_LENGTH + len(key_close) and not cur.ended:
                return pos, False
            if cur.ended and _cut_key(buf, start, self._tables.key_close):
                self._whitespace.drop()  # a key's opening tag cut off by the end of the output is markup
                return n, False
            if self._bare:  # a key that never closes ends a call with no block around it, as other text does
                self.close()
                return pos, False
            pos = self._text_between(buf, pos)
            self._state = _State.BODY
            return pos, True
        self._name = buf[start:end].strip()
        self._key_markup = buf[pos : end + len(key_close)]
        self._state = _State.AFTER_KEY
        pos = end + len(key_close)
        return pos, True

    def _read_after_key(self, cur: Cursor, pos: int) -> tuple[int, bool]:
        """After ``</longcat_arg_key>``, before the value."""
        buf = cur.text
        n = len(buf)
        end = whitespace_end(buf, pos)
        if end > pos:
            self._key_markup += buf[pos:end]
            pos = end
            return pos, True
        tables = self._tables
        value_open = tables.pairs.value_open
        tag = tables.value_open.match(cur, pos) if buf[pos] in TAG_STARTS else None
        if tag is T.NEED_MORE:
            return pos, False
        if tag is None and cur.ended and tables.value_open.is_prefix_at(buf, pos):
            return n, False  # the value's tag cut off by the end of the output: the value is empty, as after the key
        if tag is None:  # a key with no value is not a parameter
            self._sink.content(self._key_markup)
            self._state = _State.BODY
            return pos, True
        if self._name == "arguments" and self._takes_whole_arguments():
            after = whitespace_end(buf, pos + len(value_open))
            if after == n and not cur.ended:
                return pos, False
            if after < n and buf[after] == "{":  # the arguments object, as the value of "arguments"
                self._begin_json()
                pos = after
                return pos, True
        self._begin_param(self._name, tables.value_end, False, self._key_markup + value_open)
        self._state = _State.VALUE
        pos += len(value_open)
        return pos, True

    def _read_value(self, cur: Cursor, pos: int) -> tuple[int, bool]:
        """Inside a value (of a pair or a line)."""
        line = isinstance(self._value, LineValue)
        pos = self._feed_value(cur, pos, self._closing_tag)
        if self._value is not None:
            return pos, False
        self._state = _State.LINES if line else _State.BODY
        return pos, True

    # -- a body that is one JSON object -----------------------------------------------------------------------------

    def _read_json_open(self, cur: Cursor, pos: int) -> tuple[int, bool]:
        """At the ``{`` of the arguments object: an ``{"args": {...}}`` wrapper, or the arguments themselves."""
        inner = inner_object(cur, pos)
        if inner is T.NEED_MORE:
            return pos, False
        if isinstance(inner, int):
            self._wrapped = True
            pos = inner
        self._state = _State.JSON_ARGS
        return pos, True

    def _read_json(self, cur: Cursor, pos: int) -> tuple[int, bool]:
        """The whole arguments object, written as JSON (or a JavaScript object literal)."""
        json_reader = self._json
        assert json_reader is not None
        pos = json_reader.feed(cur, pos)
        if json_reader.failed:  # what it read and did not pass on, and what follows, is text
            self._sink.content(json_reader.take_unread())
            json_reader.close()
            self._state = _State.BODY
        elif json_reader.done:
            self._state = _State.AFTER_JSON
        else:
            return pos, False
        return pos, True

    def _read_after_json(self, cur: Cursor, pos: int) -> tuple[int, bool]:
        """After the arguments object: the markup that may close it."""
        if self._wrapped:
            close = wrapper_close(cur, pos)
            if close is T.NEED_MORE:
                return pos, False
            self._wrapped = False
            if isinstance(close, int):
                pos = close
                return pos, True
        buf = cur.text
        n = len(buf)
        end = whitespace_end(buf, pos)
        if end == n and not cur.ended:
            return pos, False
        if end < n and buf[end] == ")" and self._json_closers is None:
            pos = end + 1
            self._json_closers = self._tables.after_json  # (a paren is closed once)
            return pos, True
        tag = self._after_json.match(cur, end) if end < n and buf[end] in TAG_STARTS else None
        if tag is T.NEED_MORE:
            return pos, False
        if isinstance(tag, str):
            pos = end + len(tag)
            return pos, True
        self._state = _State.BODY
        return pos, True

    # -- a body of ``KEY: value`` lines -----------------------------------------------------------------------------

    def _read_lines(self, cur: Cursor, pos: int) -> tuple[int, bool]:
        """Between ``KEY: value`` lines."""
        buf = cur.text
        if buf[pos] in WHITESPACE:
            pos = self._whitespace.take(buf, pos)
            return pos, True
        if buf[pos] in TAG_STARTS:
            self._state = _State.BODY
            return pos, True
        key = line_key(cur, pos, self._accepts_line_key)
        if key is T.NEED_MORE:
            return pos, False
        if isinstance(key, tuple):
            self._whitespace.drop()
            self._begin_param(key[0], self._tables.value_end, False, buf[pos : key[1]], line=True)
            self._state = _State.VALUE
            pos = key[1]
            return pos, True
        self._state = _State.BODY
        return pos, True

    # -- shared

    def _takes_whole_arguments(self) -> bool:
        """Whether a JSON object here can be the whole arguments: no parameter yet, and the tool has none named
        ``arguments`` (whose value would be that object)."""
        return not self._params and self._json is None and self._schemas.parameter(self._tool, "arguments") is None

    def _begin_json(self) -> None:
        assert self._announced
        sink = self._sink

        def out(text: str) -> None:
            sink.call_args(text)

        self._json = JsonValueReader(out)
        self._whole_arguments = True
        self._state = _State.JSON_OPEN if unwraps_arguments(self._schemas, self._tool) else _State.JSON_ARGS

    def _close_pending(self) -> None:
        if self._state is _State.JSON_OPEN:  # (not reached: at the end of the input the wrapper is decided)
            self._sink.call_args("{}")
            self._json = None
        elif self._json is not None:
            self._json.close()
            self._sink.content(self._json.take_unread())  # an unfinished member, cut off by the end of the output
        elif self._state is _State.AFTER_KEY:  # the call ends after a key: its value is empty (as in XML)
            self._begin_param(self._name, self._tables.value_end, False, self._key_markup)
            self._state = _State.VALUE


def _cut_key(buf: str, start: int, key_close: T.TagSet) -> bool:
    """Whether a key whose opening tag ends at ``start``, cut off by the end of the output there, holds no character
    of a name (whitespace at most, and perhaps the beginning of its closing tag): markup. A name begun is text, as a
    key that never closes is (nothing of the output is lost)."""
    rest = whitespace_end(buf, start)
    return rest == len(buf) or key_close.is_prefix_at(buf, rest)


#: the reader of each state
_READ: Final[dict[_State, Callable[[KvCallReader, Cursor, int], tuple[int, bool]]]] = {
    _State.NAME: KvCallReader._read_name,
    _State.AFTER_NAME: KvCallReader._read_after_name,
    _State.NAME_PAIR: KvCallReader._read_name_pair,
    _State.OPEN_PAREN: KvCallReader._read_open_paren,
    _State.BODY: KvCallReader._read_body,
    _State.KEY: KvCallReader._read_key,
    _State.AFTER_KEY: KvCallReader._read_after_key,
    _State.VALUE: KvCallReader._read_value,
    _State.JSON_OPEN: KvCallReader._read_json_open,
    _State.JSON_ARGS: KvCallReader._read_json,
    _State.AFTER_JSON: KvCallReader._read_after_json,
    _State.LINES: KvCallReader._read_lines,
}
