"""The XML call body (Qwen3-Coder style)::

    <function=NAME>
    <parameter=P>
    value
    </parameter>
    </function>

One leading and one trailing newline of a value are markup. A body that is one JSON object instead of parameters
(``<function=NAME>{"city": "Paris"}</function>``, as Hermes-trained models write it) is the arguments.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Final

from .. import dialects as D
from .. import tags as T
from ..cursor import Cursor
from ..schema import ToolSchemas
from ..whitespace import WHITESPACE, whitespace_end
from .json_value import JsonValueReader
from .markup import MarkupCall
from .sink import CallSink
from .values import CALL_CLOSERS

_HEADER_END: Final = re.compile(r"[<>\n]")
_MAX_WHITESPACE_AFTER_CLOSE: Final = 256

#: what ends a ``<parameter=...>`` value (the call closers only where what follows decides so)
XML_VALUE_END: Final = T.TagSet(T.PARAMETER_CLOSE, T.PARAMETER_OPEN, *CALL_CLOSERS)
# Besides its own tags, a function body ends where its block closes, where the next call or block opens (a model
# that forgot a closing tag) or at an end-of-sequence marker; those tags are left for the parser.
_XML_BODY_TAGS: Final = T.TagSet(
    T.PARAMETER_OPEN,
    T.FUNCTION_CLOSE,
    *D.BLOCK_CLOSES,
    T.FUNCTION_OPEN,
    *D.BLOCK_OPENS,
    *T.END_OF_SEQUENCE,
)
#: the body of a call that names no tool (read only to be returned as text) also ends at a think tag between its
#: parameters, which is then read as the text around the block reads it (a mention of a call inside reasoning)
_UNKNOWN_BODY_TAGS: Final = T.TagSet(*_XML_BODY_TAGS.tags, *T.THINK_OPENS, *T.THINK_CLOSES)
#: what a call's text may end in, cut off by the end of the output, that is markup: a prefix of a tag of the body, or
#: of a value's closing tag (the value it closes ended where the tag begins)
_XML_CUT_TAGS: Final = T.TagSet(*_XML_BODY_TAGS.tags, T.PARAMETER_CLOSE)
_HEADER_NAME: Final = re.compile(r"[^<>\n]*")


class _State(Enum):
    """Where the reader is in the call."""

    __hash__ = object.__hash__  # (members are compared by identity; Enum's own hash is Python code)

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


# (module names for the members: the reading loops compare with them, and a global is cheaper than an Enum
# attribute on Python 3.11)
_HEADER: Final = _State.HEADER
_BODY: Final = _State.BODY
_PARAM_HEADER: Final = _State.PARAM_HEADER
_VALUE: Final = _State.VALUE
_JSON_ARGS: Final = _State.JSON_ARGS


class XmlCallReader(MarkupCall):
    """Reads ``<function=NAME>...</function>``, starting at ``<function=``; with ``name_first``, ``NAME>`` then
    the parameters (Qwen3.5 leaves ``<function=`` out), starting at NAME."""

    _closing_tag = T.PARAMETER_CLOSE
    _held_back = CALL_CLOSERS

    def __init__(self, sink: CallSink, schemas: ToolSchemas, name_first: bool = False) -> None:
        super().__init__(sink, schemas)
        self._state = _HEADER
        self._name_at = 0 if name_first else len(T.FUNCTION_OPEN)  # where the name starts after the reader's start
        self._json: JsonValueReader | None = None  # (a body that is one JSON object) its reader
        self._body_blank = True  # nothing but whitespace was read in the body: a JSON object may begin it

    def feed(self, cur: Cursor, pos: int) -> int:
        buf = cur.text
        n = len(buf)
        while pos < n and not (self.done or self.failed):
            state = self._state
            if state is _VALUE:
                pos = self._feed_value(cur, pos, T.PARAMETER_CLOSE)
                if self._value is not None:
                    return pos
                self._state = _BODY
            elif state is _HEADER:
                header = _read_header(cur, pos + self._name_at)
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
                if buf[pos] != "<":
                    if buf[pos] == "{" and self._body_blank:
                        self._begin_json()
                        continue
                    self._body_blank = self._body_blank and buf[pos] in WHITESPACE
                    pos = self._body_text(buf, pos)
                    continue
                self._body_blank = False
                tag = (_UNKNOWN_BODY_TAGS if self._unknown else _XML_BODY_TAGS).match(cur, pos)
                if tag is T.NEED_MORE:
                    return pos
                if tag is None and cur.ended and _XML_CUT_TAGS.is_prefix(buf[pos:]):
                    self._whitespace.drop()  # a tag of the call cut off by the end of the output is markup
                    return n
                if tag is not None and tag != T.PARAMETER_OPEN:  # (a parameter header is decided by its '>')
                    self._whitespace.drop()
                if tag == T.PARAMETER_OPEN:
                    self._state = _PARAM_HEADER
                elif tag == T.FUNCTION_CLOSE:
                    self.close()
                    return pos + len(T.FUNCTION_CLOSE)
                elif tag is not None:  # the block closes, or the next call or block opens
                    self.close()
                    return pos
                else:
                    pos = self._text_between(buf, pos)
            else:  # _PARAM_HEADER
                header = _read_header(cur, pos + len(T.PARAMETER_OPEN))
                if not isinstance(header, tuple):  # NEED_MORE
                    return pos
                name, end = header
                if name is None and cur.ended and _cut_header(buf, pos + len(T.PARAMETER_OPEN)):
                    self._whitespace.drop()  # a parameter's header cut off by the end of the output is markup
                    return n
                if name is None:
                    pos = self._text_between(buf, pos)
                    self._state = _BODY
                    continue
                self._whitespace.drop()
                self._begin_param(name.strip(), XML_VALUE_END, True, buf[pos:end])
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


_NAME_CHARS: Final = re.compile(rf"[^\s<>{{(]{{0,{T.MAX_NAME_LENGTH + 1}}}")
_PARAMETER_OPEN: Final = T.TagSet(T.PARAMETER_OPEN)


def parameters_follow_name(cur: Cursor, pos: int) -> bool | T.NeedMore:
    """Whether ``buf[pos:]`` is ``NAME>`` then (after whitespace) ``<parameter=``: a call written without its
    ``<function=``. NEED_MORE: not known yet."""
    buf = cur.text
    m = _NAME_CHARS.match(buf, pos)
    assert m is not None
    end = m.end()
    if end - pos > T.MAX_NAME_LENGTH:
        return False
    if end == len(buf):
        return False if cur.ended else T.NEED_MORE
    if buf[end] != ">" or end == pos:
        return False
    first = whitespace_end(buf, end + 1)
    if first - end > _MAX_WHITESPACE_AFTER_CLOSE:
        return False
    if first == len(buf):
        return False if cur.ended else T.NEED_MORE
    tag = _PARAMETER_OPEN.match(cur, first)
    return tag if tag is T.NEED_MORE else tag is not None


def _cut_header(buf: str, start: int) -> bool:
    """Whether ``buf[start:]`` is the beginning of a header's NAME, cut off by the end of the output."""
    m = _HEADER_NAME.match(buf, start)
    assert m is not None
    return m.end() == len(buf) and len(buf) - start <= T.MAX_NAME_LENGTH


def _read_header(cur: Cursor, start: int) -> tuple[str | None, int] | T.NeedMore:
    """The NAME of a ``<function=NAME>``/``<parameter=NAME>`` header whose NAME starts at ``start``.

    Returns (name, position after '>'), (None, 0) when this is no header, or NEED_MORE.
    """
    buf = cur.text
    m = _HEADER_END.search(buf, start, start + T.MAX_NAME_LENGTH + 1)
    if m is None:
        if len(buf) - start > T.MAX_NAME_LENGTH or cur.ended:
            return None, 0
        return T.NEED_MORE
    if buf[m.start()] != ">":
        return None, 0
    return buf[start : m.start()], m.end()
