"""A call written as a name, a separator, then its arguments as a JSON object, between the call's tags
(:class:`~..dialects.Separated`)::

    {call_open}functions.NAME:0{separator}{"city": "Paris"}{call_close}

The declared namespace and an index suffix (the index mark, then digits) are no part of the name; another namespace
is resolved as every written name's is (``tool_names.py``). The call is announced once its separator is read; the
arguments stream as the JSON value reader reads them. A call ends at its closing tag, or at a tag that ends its
block (the block's closing tag, another call, the end of the sequence): then the call's closing tag was left out;
the whitespace before such a tag is markup. Text after the arguments ends the call too (its closing tag was left
out): the text, and the whitespace before it, is content, exactly as written.
"""

from __future__ import annotations

from typing import Final

from .. import dialects as D
from .. import tags as T
from ..cursor import Cursor
from ..identity_enum import IdentityEnum
from ..schema import ToolSchemas
from ..tag_starts import TAG_STARTS, find_tag_start
from ..whitespace import WHITESPACE, WhitespaceRun, whitespace_end
from .json_value import JsonValueReader
from .sink import MUTED, CallProgress, CallSink


class _State(IdentityEnum):
    OPEN = "at the call's opening tag"
    NAME = "in the name"
    ARGS_START = "before the arguments"
    ARGS = "in the arguments"
    AFTER_ARGS = "after the arguments"


_OPEN, _NAME, _ARGS_START, _ARGS, _AFTER_ARGS = _State


class _Tables:
    """What reading one declaration's calls needs, built once per declaration."""

    __slots__ = ("after", "head", "separated")

    def __init__(self, separated: D.Separated) -> None:
        self.separated: Final = separated
        #: after the arguments: the call's closing tag, or a tag that ends the block (the closing tag left out)
        ends = (separated.call_close, *D.BLOCK_CLOSES, *D.CALL_OPENS, *D.END_OF_SEQUENCE)
        self.after: Final = T.TagSet(*(tag for tag in ends if tag))
        #: how far the separator may be from the call's start: a name, and an id after its mark
        self.head: Final = (T.MAX_NAME_LENGTH + 1) * (2 if separated.id_mark else 1) + len(separated.id_mark)


#: what a name or an id never holds: whitespace, markup, the start of a tag (a name read whole holds none of what a
#: name read as it streams would stop at)
_NOT_IN_NAMES: Final = frozenset((*WHITESPACE, *"<>{}", *TAG_STARTS))
_TABLES: Final = {s: _Tables(s) for s in (*D.SEPARATED.values(), *D.NAMED_BLOCKS.values())}


def _written_id(text: str, separated: D.Separated) -> tuple[str, str | None]:
    """``text`` (between the opening tag and the separator) split into what names the call and the id written after
    the declared id mark (None: none written, or one that is no id: empty, or holding whitespace or markup)."""
    if not separated.id_mark or separated.id_mark not in text:
        return text, None
    text, _, call_id = text.partition(separated.id_mark)
    call_id = call_id.strip()
    if not call_id or len(call_id) > T.MAX_NAME_LENGTH or any(c in _NOT_IN_NAMES for c in call_id):
        return text, None
    return text, call_id


def _written_name(text: str, separated: D.Separated) -> str | None:
    """The name in ``text`` (between the opening tag and the separator, or the id mark) without the declared
    namespace and index suffix; None when it is no name (empty, or holding whitespace or markup)."""
    name = text.strip()
    namespace, index_mark = separated.namespace, separated.index_mark
    if namespace and name.startswith(namespace):
        name = name[len(namespace) :]
    if index_mark:
        head, mark, index = name.rpartition(index_mark)
        if mark and index.isdigit():
            name = head
    if not name or len(name) > T.MAX_NAME_LENGTH or any(c in _NOT_IN_NAMES for c in name):
        return None
    return name


class SepCallReader(CallProgress):
    """Reads one call of a :class:`~..dialects.Separated` declaration, starting at its opening tag."""

    def __init__(self, sink: CallSink, schemas: ToolSchemas, separated: D.Separated) -> None:
        super().__init__()
        self._sink = sink
        self._schemas = schemas
        self._tables = _TABLES[separated]
        self._state = _OPEN
        self._value: JsonValueReader | None = None
        self._args_emitted = False
        self._after = WhitespaceRun()  # after the arguments: markup before a tag, text before text

    def feed(self, cur: Cursor, pos: int) -> int:
        buf = cur.text
        n = len(buf)
        sep = self._tables.separated
        while pos < n and not (self.done or self.failed):
            state = self._state
            if state is _ARGS:
                value = self._value
                assert value is not None
                pos = value.feed(cur, pos)
                if value.failed:
                    self._sink.content(value.take_unread())
                    return self._fail(pos)
                if not value.done:
                    return pos
                if not sep.call_close:  # (a call with no tags of its own ends with its arguments)
                    self._finish()
                    return pos
                self._state = _AFTER_ARGS
            elif state is _OPEN:
                pos += len(sep.call_open)
                self._state = _NAME
            elif state is _NAME:
                head = self._tables.head
                at = buf.find(sep.separator, pos, pos + head + len(sep.separator) + 1)
                if at < 0:
                    looked = buf[pos : pos + head + 1]
                    written, _ = _written_id(looked, sep)
                    at_tag = find_tag_start(written, 0)  # (the separator or the id mark, cut off, may follow the name)
                    rest = written[at_tag:]
                    cut = at_tag >= 0 and not (sep.separator.startswith(rest) or sep.id_mark.startswith(rest))
                    if len(looked) > head or cur.ended or cut:
                        return self._fail(pos)
                    return pos
                written, call_id = _written_id(buf[pos:at], sep)
                name = _written_name(written, sep)
                if name is None:
                    return self._fail(pos)
                self._announce(name, call_id)
                self._state = _ARGS_START
                pos = at + len(sep.separator)
            elif state is _ARGS_START:
                if buf[pos] in WHITESPACE:
                    pos = whitespace_end(buf, pos)
                elif buf[pos] == "{":
                    self._value = JsonValueReader(self._args_out)
                    self._state = _ARGS
                else:
                    return self._fail(pos)
            else:  # _AFTER_ARGS
                if buf[pos] in WHITESPACE:
                    pos = self._after.take(buf, pos)
                    continue
                tag = self._tables.after.match(cur, pos) if buf[pos] in TAG_STARTS else None
                if tag is T.NEED_MORE:
                    return pos
                if tag is None:
                    self._sink.content(self._after.release())
                    return self._fail(pos)
                self._after.drop()
                self._finish()
                return pos + len(tag) if tag == sep.call_close else pos
        return pos

    def feed_fast(self, text: str) -> str | None:
        value = self._value
        if self._state is _ARGS and not self._unknown and value is not None and value.continues_string(text):
            return text
        return None

    def close(self) -> None:
        if self.done or not self._announced:
            return
        if self._value is not None and not self._value.done:
            self._value.close()
            self._sink.content(self._value.take_unread())
        self._finish()

    def _announce(self, name: str, call_id: str | None = None) -> None:
        self._announced = True
        if not self._sink.start_call(name, call_id):
            self._unknown = True
            self._sink = MUTED

    def _args_out(self, text: str) -> None:
        self._args_emitted = True
        self._sink.call_args(text)

    def _finish(self) -> None:
        if not self._args_emitted:
            self._sink.call_args("{}")
        self._sink.end_call()
        self.done = True

    def _fail(self, pos: int) -> int:
        self.failed = True
        return pos
