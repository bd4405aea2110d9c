"""A call written as a name, then its arguments as bare keys with values, a string value between two quote tokens and
any other value as JSON (:class:`~..dialects.Quoted`), read in its dialect's block::

    call:get_weather{city:<escape>Paris<escape>,days:3}

A quoted value is typed by the tool's schema as a markup value is (:mod:`.markup`): a string streams as it arrives;
it ends at its closing quote, or at a tag that ends the call (its closing quote left out). An unquoted value is read
as JSON (:mod:`.json_value`: streamed, repaired, a bare word is a string). Whitespace between the items is markup, and
so is a left-out item separator (a key follows a value). The call ends at its closing mark, or at a tag that ends the
block or starts another (the closing mark left out). A key written again, or text that is no item, ends the call
where it stands: the text from there is content.
"""

from __future__ import annotations

import re
from typing import Final

from .. import dialects as D
from .. import tags as T
from ..cursor import Cursor
from ..identity_enum import IdentityEnum
from ..schema import ToolSchemas
from ..whitespace import WHITESPACE
from .json_value import JsonValueReader
from .markup import MarkupCall
from .sink import CallSink
from .values import dumps


class _State(IdentityEnum):
    OPEN = "at the call's opening mark"
    NAME = "in the name"
    KEY = "before a key, or the arguments' end"
    VALUE_START = "before a value"
    QUOTED_VALUE = "in a quoted value"
    JSON_VALUE = "in an unquoted (JSON) value"
    AFTER_VALUE = "after a value"


_OPEN, _NAME, _KEY, _VALUE_START, _QUOTED_VALUE, _JSON_VALUE, _AFTER_VALUE = _State

#: the tags that end a call wherever they stand: its block closed, another block or call begins, the output ends
_CALL_ENDS: Final = (*D.BLOCK_CLOSES, *D.BLOCK_OPENS, *D.CALL_OPENS, *D.END_OF_SEQUENCE)


def word_class(quoted: D.Quoted) -> str:
    """The characters of a name or a key (as a regular expression's class): no whitespace, markup, bracket, quote or
    mark of the body."""
    marks = re.escape(quoted.args_open + quoted.key_end + quoted.item_separator + quoted.args_close)
    return rf"[^ \t\r\n<>{{}}\[\]\"'{marks}]"


def quoted_value_ends(quoted: D.Quoted) -> tuple[str, ...]:
    """What ends a quoted value: its closing quote, or a tag that ends the call (the quote left out); a string value
    holds none of them."""
    return (quoted.quote, *_CALL_ENDS)


class _Tables:
    """What reading one declaration's calls needs, built once per declaration."""

    __slots__ = ("call_ends", "key", "name", "quoted", "value_ends")

    def __init__(self, quoted: D.Quoted) -> None:
        self.quoted: Final = quoted
        self.call_ends: Final = T.TagSet(*_CALL_ENDS)
        #: what ends a quoted value: its closing quote, or a tag that ends the call (the quote left out)
        self.value_ends: Final = T.TagSet(*quoted_value_ends(quoted))
        #: a name (up to the arguments' opening mark) and a key (up to its end mark)
        self.name: Final = re.compile(f"{word_class(quoted)}{{0,{T.MAX_NAME_LENGTH + 1}}}")
        self.key: Final = self.name


_TABLES: Final = {q: _Tables(q) for q in D.QUOTED.values()}


class QuotedCallReader(MarkupCall):
    """Reads one call of a :class:`~..dialects.Quoted` declaration, starting at its opening mark."""

    def __init__(self, sink: CallSink, schemas: ToolSchemas, quoted: D.Quoted) -> None:
        super().__init__(sink, schemas)
        self._tables = _TABLES[quoted]
        self._closing_tag = quoted.quote
        self._state = _OPEN
        self._key = ""
        self._json: JsonValueReader | None = None
        self._key_pending = False  # the key of an unquoted value, passed on with the value's first text
        self._key_markup = ""  # the key as written, with its end mark and the whitespace after it

    def feed(self, cur: Cursor, pos: int) -> int:
        buf = cur.text
        n = len(buf)
        q = self._tables.quoted
        while pos < n and not (self.done or self.failed):
            state = self._state
            if state is _QUOTED_VALUE:
                value = self._value
                assert value is not None
                pos = self._feed_value(cur, pos, q.quote)
                if self._value is not None:
                    return pos  # (waits for text)
                if value.terminator != q.quote:  # a tag that ends the call: the closing quote was left out
                    return self._end(pos)
                self._state = _AFTER_VALUE
            elif state is _JSON_VALUE:
                json_value = self._json
                assert json_value is not None
                pos = json_value.feed(cur, pos)
                if json_value.failed:  # (what it passed on is closed: the arguments stay valid JSON)
                    self._json = None
                    unread = self._unread_key() + json_value.take_unread()
                    json_value.close()
                    return self._stop(pos, unread)
                if not json_value.done:
                    return pos
                self._json = None
                self._state = _AFTER_VALUE
            elif buf[pos] in WHITESPACE and state is not _OPEN and state is not _NAME:
                pos = self._whitespace.take(buf, pos)  # between items: markup (text, before text)
            elif state is _OPEN:
                if buf.startswith(q.call_open, pos):
                    pos += len(q.call_open)
                    self._state = _NAME
                elif q.call_open.startswith(buf[pos:]) and not cur.ended:
                    return pos
                else:
                    return self._fail(pos)
            elif state is _NAME:
                end = self._word_end(cur, pos, self._tables.name, q.args_open)
                if end is None:
                    return self._fail(pos)
                if end < 0:
                    return pos
                self._start(buf[pos:end])
                self._state = _KEY
                pos = end + len(q.args_open)
            elif state is _KEY:
                c = buf[pos]
                if c == q.args_close:
                    return self._end(pos + 1)
                if c == "<":
                    return self._at_tag(cur, pos)
                end = self._word_end(cur, pos, self._tables.key, q.key_end)
                if end is not None and end < 0:
                    return pos
                if end is None or buf[pos:end] in self._param_names:
                    return self._stop(pos)  # no key, or one written again: the call ends, the text is content
                self._whitespace.drop()
                self._key = buf[pos:end]
                self._state = _VALUE_START
                pos = end + len(q.key_end)
                self._key_markup = buf[pos - len(q.key_end) - len(self._key) : pos]
            elif state is _VALUE_START:
                self._key_markup += self._whitespace.release()
                if buf.startswith(q.quote, pos):
                    self._begin_param(self._key, self._tables.value_ends, False, "")
                    self._state = _QUOTED_VALUE
                    pos += len(q.quote)
                elif q.quote.startswith(buf[pos:]) and not cur.ended:
                    return pos
                else:
                    self._begin_json()
            else:  # _AFTER_VALUE
                c = buf[pos]
                if c == q.item_separator:
                    self._whitespace.drop()
                    self._state = _KEY
                    pos += 1
                elif c == q.args_close:
                    return self._end(pos + 1)
                elif c == "<":
                    return self._at_tag(cur, pos)
                else:  # a next key, its separator left out; other text ends the call (it is content)
                    end = self._word_end(cur, pos, self._tables.key, q.key_end)
                    if end is None:
                        return self._stop(pos)
                    if end < 0:
                        return pos
                    self._state = _KEY
        return pos

    def _word_end(self, cur: Cursor, pos: int, word: re.Pattern[str], mark: str) -> int | None:
        """Where the name or key at ``pos`` ends (at ``mark``, which must follow it); -1: not known yet; None: there
        is none (empty, too long, or something else follows it)."""
        buf = cur.text
        m = word.match(buf, pos)
        assert m is not None
        end = m.end()
        if end == len(buf) and not cur.ended and end - pos <= T.MAX_NAME_LENGTH:
            return -1
        if end == pos or end - pos > T.MAX_NAME_LENGTH or not buf.startswith(mark, end):
            return None
        return end

    def _at_tag(self, cur: Cursor, pos: int) -> int:
        """At a '<' between items: a tag that ends the call ends it there (its closing mark left out); anything else
        is text that ends it (content)."""
        tag = self._tables.call_ends.match(cur, pos)
        if tag is T.NEED_MORE:
            return pos
        if tag is None:
            return self._stop(pos)
        return self._end(pos)

    def _end(self, pos: int) -> int:
        """The call ends at its closing mark, or before a tag that ends it: the whitespace before is markup."""
        self._whitespace.drop()
        self.close()
        return pos

    def _stop(self, pos: int, unread: str = "") -> int:
        """Text that is no item ends the announced call where it stands: it is content, with the whitespace before
        it (and what a JSON value had read but not passed on)."""
        self._sink.content(self._whitespace.release() + unread)
        return self._fail(pos)

    def _begin_json(self) -> None:
        """An unquoted value: read as JSON. Its key is passed on with the value's first text (a value that turns out
        to be none is content, and leaves no key behind)."""
        self._param_names.add(self._key)
        self._key_pending = True
        self._json = JsonValueReader(self._json_out)
        self._state = _JSON_VALUE

    def _json_out(self, text: str) -> None:
        if self._key_pending:
            self._key_pending = False
            self._sink.call_args(("{" if self._params == 0 else ", ") + dumps(self._key) + ": ")
            self._params += 1
        self._sink.call_args(text)

    def _unread_key(self) -> str:
        """The key of a value that gave no text (none is passed on): its markup, as written, which is then content."""
        return self._key_markup if self._key_pending else ""

    def _close_pending(self) -> None:
        """The output ends (or the call breaks off) after a key: a key with no value is content, as written."""
        json_value = self._json
        if json_value is not None:
            json_value.close()
            self._sink.content(self._unread_key() + json_value.take_unread())
            self._json = None
        elif self._state is _VALUE_START:
            self._sink.content(self._key_markup + self._whitespace.release())
