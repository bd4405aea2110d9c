"""The markup call body (an XML-like call), as Qwen3-Coder writes it::

    <function=NAME>
    <parameter=P>
    value
    </parameter>
    </function>

and as any other :class:`~longcat_plugins.core.dialects.Markup` of the registry names its tags (the reader takes
them from there). One leading and one trailing newline of a value are markup. A body that is one JSON object instead
of parameters (``<function=NAME>{"city": "Paris"}</function>``, as Hermes-trained models write it) is the arguments.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Final

from .. import dialects as D
from .. import tags as T
from ..cursor import Cursor
from ..dialects import Markup
from ..identity_enum import IdentityEnum
from ..schema import ToolSchemas
from ..tag_starts import TAG_STARTS
from ..whitespace import WHITESPACE, whitespace_end
from .json_value import JsonValueReader
from .markup import MarkupCall
from .sink import CallSink
from .values import Closers

_MAX_WHITESPACE_AFTER_CLOSE: Final = 256


class MarkupTables:
    """What the reader matches in calls of one markup, derived from its tags."""

    __slots__ = (
        "bare_name", "body", "closers", "cut", "header_end", "header_name", "markup", "param_open", "unknown_body",
        "value_end",
    )  # fmt: skip

    def __init__(self, markup: Markup) -> None:
        self.markup: Final = markup
        #: between parameters, besides the markup's own tags: where the block closes, where the next call or block
        #: opens (a model that forgot a closing tag) or an end-of-sequence marker; those tags are left for the parser
        body = (markup.param_open, markup.call_close, *D.BLOCK_CLOSES, *D.CALL_OPENS, *D.BLOCK_OPENS)
        self.body: Final = T.TagSet(*body, *D.END_OF_SEQUENCE)
        #: where a header's NAME ends (where its name ends, or at what no header holds), and a NAME written without
        #: the call's opening tag
        first = re.escape(markup.name_end[0])
        self.header_end: Final = re.compile(rf"[<>\n{first}]")
        self.header_name: Final = re.compile(rf"[^<>\n{first}]*")
        self.bare_name: Final = re.compile(rf"[^\s<>{{({first}]{{0,{T.MAX_NAME_LENGTH + 1}}}")
        #: what ends a value (the closers and a parameter's header only where what follows decides so)
        ends = (markup.param_close, markup.param_open, *dict.fromkeys((markup.call_close, *D.BLOCK_CLOSES)))
        self.value_end: Final = T.TagSet(*ends)
        #: the tags that may stand inside a value, and what decides them
        self.closers: Final = Closers(
            markup.param_close, markup.call_close, self.body.tags, ends, markup.param_open, self._header
        )
        #: the body of a call that names no tool (read only to be returned as text) also ends at a think tag between
        #: its parameters, which is then read as the text around the block reads it (a mention of a call inside
        #: reasoning)
        self.unknown_body: Final = T.TagSet(*self.body.tags, *D.THINK_OPENS, *D.THINK_CLOSES)
        #: what a call's text may end in, cut off by the end of the output, that is markup: a prefix of a tag of the
        #: body, or of a value's closing tag (the value it closes ended where the tag begins)
        self.cut: Final = T.TagSet(*self.body.tags, markup.param_close)
        self.param_open: Final = T.TagSet(markup.param_open)

    def _header(self, cur: Cursor, start: int) -> tuple[str | None, int] | T.NeedMore:
        """The NAME of a header whose NAME starts at ``start`` (see :func:`_read_header`)."""
        return _read_header(cur, start, self)


@cache
def markup_tables(markup: Markup) -> MarkupTables:
    return MarkupTables(markup)


class _State(IdentityEnum):
    """Where the reader is in the call."""

    #: ``<function=NAME>``
    HEADER = "header"
    #: between parameters
    BODY = "body"
    #: ``<parameter=NAME>``
    PARAM_HEADER = "param header"
    #: inside a parameter's value
    VALUE = "value"
    #: the body is one JSON object: the arguments
    JSON_ARGS = "json args"


# (the members as module names: see IdentityEnum)
_HEADER, _BODY, _PARAM_HEADER, _VALUE, _JSON_ARGS = _State


class XmlCallReader(MarkupCall):
    """Reads ``<function=NAME>...</function>`` (in ``markup``'s tags), starting at ``<function=``; with
    ``name_first``, ``NAME>`` then the parameters (Qwen3.5 leaves ``<function=`` out), starting at NAME."""

    def __init__(self, sink: CallSink, schemas: ToolSchemas, markup: Markup, name_first: bool = False) -> None:
        super().__init__(sink, schemas)
        tables = self._tables = markup_tables(markup)
        self._closing_tag = markup.param_close
        self._closers = tables.closers
        self._state = _HEADER
        self._name_at = 0 if name_first else len(markup.call_open)  # where the name starts after the reader's start
        self._json: JsonValueReader | None = None  # (a body that is one JSON object) its reader
        self._body_blank = True  # nothing but whitespace was read in the body: a JSON object may begin it

    def feed(self, cur: Cursor, pos: int) -> int:
        buf = cur.text
        n = len(buf)
        tables = self._tables
        markup = tables.markup
        while pos < n and not (self.done or self.failed):
            state = self._state
            if state is _VALUE:
                pos = self._feed_value(cur, pos, self._closing_tag)
                if self._value is not None:
                    return pos
                self._state = _BODY
            elif state is _HEADER:
                header = _read_header(cur, pos + self._name_at, tables)
                if not isinstance(header, tuple):  # NEED_MORE
                    return pos
                name, end = header
                if name is None or not name.strip():
                    return self._fail(pos + self._name_at)
                self._start(name.strip())
                self._state = _BODY
                pos = end
            elif state is _JSON_ARGS:
                pos = self._feed_json(cur, pos)
                if self._state is _JSON_ARGS:
                    return pos
            elif state is _BODY:
                if buf[pos] not in TAG_STARTS:
                    if buf[pos] == "{" and self._body_blank:
                        self._begin_json()
                        continue
                    self._body_blank = self._body_blank and buf[pos] in WHITESPACE
                    pos = self._body_text(buf, pos)
                    continue
                self._body_blank = False
                tag = (tables.unknown_body if self._unknown else tables.body).match(cur, pos)
                if tag is T.NEED_MORE:
                    return pos
                if tag is None and cur.ended and tables.cut.is_prefix_at(buf, pos):
                    self._whitespace.drop()  # a tag of the call cut off by the end of the output is markup
                    return n
                if tag is not None and tag != markup.param_open:  # (a parameter header is decided by its end)
                    self._whitespace.drop()
                if tag == markup.param_open:
                    self._state = _PARAM_HEADER
                elif tag == markup.call_close:
                    self.close()
                    return pos + len(markup.call_close)
                elif tag is not None:  # the block closes, or the next call or block opens
                    self.close()
                    return pos
                else:
                    pos = self._text_between(buf, pos)
            else:  # _PARAM_HEADER
                header = _read_header(cur, pos + len(markup.param_open), tables)
                if not isinstance(header, tuple):  # NEED_MORE
                    return pos
                name, end = header
                if name is None and cur.ended and _cut_header(buf, pos + len(markup.param_open), tables):
                    self._whitespace.drop()  # a parameter's opening tag cut off by the end of the output is markup
                    return n
                if name is None:
                    pos = self._text_between(buf, pos)
                    self._state = _BODY
                    continue
                self._whitespace.drop()
                self._begin_param(name.strip(), tables.value_end, True, buf[pos:end])
                self._state = _VALUE
                pos = end
        if cur.ended and not self.done and self._announced and self._state is _VALUE:
            self._end_param()
            self._state = _BODY
        return pos

    def _begin_json(self) -> None:
        """The body begins with a JSON object (after whitespace, which is markup): it is the whole arguments."""
        self._whitespace.drop()
        self._body_blank = False
        self._whole_arguments = True
        self._json = JsonValueReader(self._sink.call_args)
        self._state = _JSON_ARGS

    def _feed_json(self, cur: Cursor, pos: int) -> int:
        json_reader = self._json
        assert json_reader is not None
        pos = json_reader.feed(cur, pos)
        if json_reader.failed:  # what it read and did not pass on, and what follows, is text of the body
            self._sink.content(json_reader.take_unread())
            json_reader.close()
            self._state = _BODY
        elif json_reader.done:
            self._state = _BODY
        return pos

    def _close_pending(self) -> None:
        if self._state is _JSON_ARGS:
            assert self._json is not None
            self._json.close()
            self._sink.content(self._json.take_unread())  # an unfinished member, cut off by the end of the output
            self._state = _BODY


def parameters_follow_name(cur: Cursor, pos: int) -> Markup | T.NeedMore | None:
    """The markup whose call ``buf[pos:]`` is when it is ``NAME>`` then (after whitespace) ``<parameter=`` (in that
    markup's tags): a call written without its ``<function=``. None: no such call; NEED_MORE: not known yet."""
    waiting = False
    for markup in D.MARKUPS.values():
        follow = _parameters_follow(cur, pos, markup_tables(markup))
        if follow is T.NEED_MORE:
            waiting = True
        elif follow:
            return markup
    return T.NEED_MORE if waiting else None


def _parameters_follow(cur: Cursor, pos: int, tables: MarkupTables) -> bool | T.NeedMore:
    buf = cur.text
    m = tables.bare_name.match(buf, pos)
    assert m is not None
    end = m.end()
    if end - pos > T.MAX_NAME_LENGTH:
        return False
    if end == len(buf):
        return False if cur.ended else T.NEED_MORE
    name_end = tables.markup.name_end
    if end == pos:
        return False
    if not buf.startswith(name_end, end):
        cut = len(buf) - end < len(name_end) and name_end.startswith(buf[end:])
        return T.NEED_MORE if cut and not cur.ended else False
    end += len(name_end)
    first = whitespace_end(buf, end)
    if first - end > _MAX_WHITESPACE_AFTER_CLOSE:
        return False
    if first == len(buf):
        return False if cur.ended else T.NEED_MORE
    tag = tables.param_open.match(cur, first)
    return tag if tag is T.NEED_MORE else tag is not None


def _cut_header(buf: str, start: int, tables: MarkupTables) -> bool:
    """Whether a header whose opening tag ends at ``start``, cut off by the end of the output there, holds no
    character of a name (at most the beginning of what ends one): markup. A name begun, quoted or not, is text, as
    the rest of a header that never ends is (nothing of the output is lost)."""
    name_end = tables.markup.name_end
    return len(buf) - start <= len(name_end) and name_end.startswith(buf[start:])


def _read_header(cur: Cursor, start: int, tables: MarkupTables) -> tuple[str | None, int] | T.NeedMore:
    """The NAME of a call's or parameter's header whose NAME starts at ``start``.

    Returns (name, position after the header), (None, 0) when this is no header, or NEED_MORE.
    """
    buf = cur.text
    m = tables.header_end.search(buf, start, start + T.MAX_NAME_LENGTH + 1)
    if m is None:
        if len(buf) - start > T.MAX_NAME_LENGTH or cur.ended:
            return None, 0
        return T.NEED_MORE
    at = m.start()
    name_end = tables.markup.name_end
    if not buf.startswith(name_end, at):
        if len(buf) - at < len(name_end) and name_end.startswith(buf[at:]) and not cur.ended:
            return T.NEED_MORE
        return None, 0
    return buf[start:at], at + len(name_end)
