"""The LongCat key/value call body, and the shapes models write it in::

NAME
<longcat_arg_key>P</longcat_arg_key>
<longcat_arg_value>value</longcat_arg_value>
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Final

from .. import tags as T
from ..cursor import Cursor
from ..schema import ToolSchemas
from ..whitespace import WHITESPACE, whitespace_end
from .json_value import JsonValueReader
from .markup import MarkupCall
from .sink import CallSink
from .values import KV_BODY_TAGS, LineValue, line_key

_KV_NAME_END: Final = re.compile(r"[\s<>{(]")
_MAX_WHITESPACE_AFTER_CLOSE: Final = 256

_KV_VALUE_END: Final = T.TagSet(T.ARG_VALUE_CLOSE, T.ARG_KEY_OPEN, T.LONGCAT_CALL_CLOSE)
_KV_VALUE_OPEN: Final = T.TagSet(T.ARG_VALUE_OPEN)
#: what may close the markup right after an arguments object written as JSON
_KV_AFTER_JSON: Final = T.TagSet(T.ARG_KEY_CLOSE, T.ARG_VALUE_CLOSE)
#: a block that begins with its name as a pair: ``<longcat_arg_key>name</longcat_arg_key><longcat_arg_value>NAME..``
_NAME_PAIR: Final = re.compile(
    r"<longcat_arg_key>\s*name\s*</longcat_arg_key>\s*<longcat_arg_value>\s*([^\s<>]{1,256})\s*</longcat_arg_value>"
)
_NAME_PAIR_BOUND: Final = 128 + T.MAX_NAME_LENGTH


class _State(Enum):
    """Where the reader is in the call."""

    __hash__ = object.__hash__  # (members are compared by identity; Enum's own hash is Python code)

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
    #: the whole arguments object, written as JSON (or a JavaScript object literal)
    JSON_ARGS = "json args"
    AFTER_JSON = "after json"
    #: between ``KEY: value`` lines
    LINES = "lines"


# (module names for the members: the reading loops compare with them, and a global is cheaper than an Enum
# attribute on Python 3.11)
_BODY: Final = _State.BODY
_VALUE: Final = _State.VALUE
_NAME: Final = _State.NAME
_AFTER_NAME: Final = _State.AFTER_NAME
_KEY: Final = _State.KEY
_AFTER_KEY: Final = _State.AFTER_KEY
_NAME_PAIR_STATE: Final = _State.NAME_PAIR
_OPEN_PAREN: Final = _State.OPEN_PAREN
_JSON_ARGS: Final = _State.JSON_ARGS
_AFTER_JSON: Final = _State.AFTER_JSON
_LINES: Final = _State.LINES


class KvCallReader(MarkupCall):
    """Reads a LongCat key/value call up to (not including) the closing tag of its block, starting at NAME:

    * ``NAME <longcat_arg_key>K</longcat_arg_key><longcat_arg_value>V</longcat_arg_value>...`` (the dialect);
    * ``NAME {json object}`` and ``NAME({javascript object})``: the object is the arguments;
    * ``NAME <longcat_arg_key>{json object}`` (a key holding all the arguments, often with no closing tags);
    * ``<longcat_arg_key>name</longcat_arg_key><longcat_arg_value>NAME</longcat_arg_value>`` then an ``arguments``
      key whose value is the arguments object (``name_pair=True``: the reader starts at that first key).
    """

    _closing_tag = T.ARG_VALUE_CLOSE

    def __init__(
        self, sink: CallSink, schemas: ToolSchemas, name_pair: bool = False, given_name: str = "", bare: bool = False
    ) -> None:
        super().__init__(sink, schemas)
        self._state: _State = _AFTER_NAME if given_name else _NAME_PAIR_STATE if name_pair else _NAME
        self._name = given_name
        self._bare = bare  # no block around the call: it ends where its key/value pairs end
        self._key_markup = ""  # the raw ``<longcat_arg_key>K</longcat_arg_key>`` until its value begins
        self._json: JsonValueReader | None = None
        self._json_closers: T.TagSet | None = None
        self._closed_name = False  # a '>' after the name was taken

    def feed(self, cur: Cursor, pos: int) -> int:
        buf = cur.text
        n = len(buf)
        while pos < n and not (self.done or self.failed):
            state = self._state
            if state is _VALUE:
                line = isinstance(self._value, LineValue)
                pos = self._feed_value(cur, pos, T.ARG_VALUE_CLOSE)
                if self._value is not None:
                    return pos
                self._state = _LINES if line else _BODY
            elif state is _LINES:
                if buf[pos] in WHITESPACE:
                    pos = self._whitespace.take(buf, pos)
                    continue
                if buf[pos] == "<":
                    self._state = _BODY
                    continue
                key = line_key(cur, pos, self._accepts_line_key)
                if key is T.NEED_MORE:
                    return pos
                if isinstance(key, tuple):
                    self._whitespace.drop()
                    self._begin_param(key[0], _KV_VALUE_END, False, buf[pos : key[1]], line=True)
                    self._state = _VALUE
                    pos = key[1]
                    continue
                self._state = _BODY
            elif state is _JSON_ARGS:
                json_reader = self._json
                assert json_reader is not None
                pos = json_reader.feed(cur, pos)
                if json_reader.failed:  # what it read and did not pass on, and what follows, is text
                    self._sink.content(json_reader.take_unread())
                    json_reader.close()
                    self._state = _BODY
                elif json_reader.done:
                    self._state = _AFTER_JSON
                else:
                    return pos
            elif state is _AFTER_JSON:
                end = whitespace_end(buf, pos)
                if end == n and not cur.ended:
                    return pos
                if end < n and buf[end] == ")" and self._json_closers is None:
                    pos = end + 1
                    self._json_closers = _KV_AFTER_JSON  # (a paren is closed once)
                    continue
                tag = _KV_AFTER_JSON.match(cur, end) if end < n and buf[end] == "<" else None
                if tag is T.NEED_MORE:
                    return pos
                if isinstance(tag, str):
                    pos = end + len(tag)
                    continue
                self._state = _BODY
            elif state is _NAME:
                m = _KV_NAME_END.search(buf, pos, pos + T.MAX_NAME_LENGTH + 1)
                if m is None:
                    if n - pos > T.MAX_NAME_LENGTH or cur.ended:
                        return self._fail(pos)
                    return pos
                self._name = buf[pos : m.start()]
                self._state = _AFTER_NAME
                pos = m.start()
            elif state is _AFTER_NAME:
                end = whitespace_end(buf, pos)
                if end > pos:
                    pos = end
                    continue
                c = buf[pos]
                if c == ">" and not self._closed_name:  # ``NAME>{json}`` (Qwen3.5)
                    self._closed_name = True
                    pos += 1
                    continue
                if c in "{(":
                    if not self._start(self._name):
                        return pos
                    if c == "{":
                        self._begin_json()
                    else:
                        self._state = _OPEN_PAREN
                        pos += 1
                    continue
                if c != "<":  # ``KEY: value`` lines, when KEY is a parameter of the tool
                    self._tool = self._name
                    key = line_key(cur, pos, self._accepts_line_key)
                    if key is T.NEED_MORE:
                        return pos
                    if not isinstance(key, tuple) or not self._start(self._name):
                        return self._fail(pos)
                    self._begin_param(key[0], _KV_VALUE_END, False, buf[pos : key[1]], line=True)
                    self._state = _VALUE
                    pos = key[1]
                    continue
                tag = KV_BODY_TAGS.match(cur, pos)
                if tag is T.NEED_MORE:
                    return pos
                if tag is None:
                    return self._fail(pos)
                if not self._start(self._name):
                    return pos
                self._state = _BODY
            elif state is _OPEN_PAREN:
                end = whitespace_end(buf, pos)
                if end == n:
                    pos = end
                    continue
                if buf[end] == "{":
                    self._begin_json()
                    pos = end
                elif buf[end] == ")":  # NAME(): no arguments
                    self._state = _BODY
                    pos = end + 1
                else:
                    self._state = _BODY
            elif state is _NAME_PAIR_STATE:
                close = buf.find(T.ARG_VALUE_CLOSE, pos, pos + _NAME_PAIR_BOUND)
                if close < 0:
                    if n - pos < _NAME_PAIR_BOUND and not cur.ended:
                        return pos
                    return self._fail(pos)
                m = _NAME_PAIR.fullmatch(buf, pos, close + len(T.ARG_VALUE_CLOSE))
                if m is None:
                    return self._fail(pos)
                if not self._start(m.group(1)):
                    return pos
                self._state = _BODY
                pos = m.end()
            elif state is _BODY and self._bare:
                end = whitespace_end(buf, pos)
                if end == n and not cur.ended and end - pos <= _MAX_WHITESPACE_AFTER_CLOSE:
                    return pos
                tag = KV_BODY_TAGS.match(cur, end) if end < n and buf[end] == "<" else None
                if tag is T.NEED_MORE:
                    return pos
                if tag == T.ARG_KEY_OPEN:
                    self._state = _KEY
                    pos = end
                    continue
                self.close()  # anything else ends the call, before the whitespace
                return pos
            elif state is _BODY:
                if buf[pos] != "<":
                    pos = self._body_text(buf, pos)
                    continue
                tag = KV_BODY_TAGS.match(cur, pos)
                if tag is T.NEED_MORE:
                    return pos
                if tag is None and cur.ended and KV_BODY_TAGS.is_prefix(buf[pos:]):
                    self._whitespace.drop()  # a closing tag cut off by the end of the output is markup
                    return n
                if tag is not None:
                    self._whitespace.drop()
                if tag == T.ARG_KEY_OPEN:
                    self._state = _KEY
                elif tag is not None:  # the block closes, or the next block opens
                    self.close()
                    return pos
                else:
                    pos = self._text_between(buf, pos)
            elif state is _KEY:
                start = pos + len(T.ARG_KEY_OPEN)
                first = whitespace_end(buf, start)
                if first == n and not cur.ended:
                    return pos
                if first < n and buf[first] == "{" and self._takes_whole_arguments():
                    self._begin_json()
                    pos = first
                    continue
                end = buf.find(T.ARG_KEY_CLOSE, start, start + T.MAX_NAME_LENGTH + len(T.ARG_KEY_CLOSE))
                if end < 0:
                    if n - start < T.MAX_NAME_LENGTH + len(T.ARG_KEY_CLOSE) and not cur.ended:
                        return pos
                    pos = self._text_between(buf, pos)
                    self._state = _BODY
                    continue
                self._name = buf[start:end].strip()
                self._key_markup = buf[pos : end + len(T.ARG_KEY_CLOSE)]
                self._state = _AFTER_KEY
                pos = end + len(T.ARG_KEY_CLOSE)
            else:  # _AFTER_KEY
                end = whitespace_end(buf, pos)
                if end > pos:
                    self._key_markup += buf[pos:end]
                    pos = end
                    continue
                tag = _KV_VALUE_OPEN.match(cur, pos) if buf[pos] == "<" else None
                if tag is T.NEED_MORE:
                    return pos
                if tag is None:  # a key with no value is not a parameter
                    self._sink.content(self._key_markup)
                    self._state = _BODY
                    continue
                if self._name == "arguments" and self._takes_whole_arguments():
                    after = whitespace_end(buf, pos + len(T.ARG_VALUE_OPEN))
                    if after == n and not cur.ended:
                        return pos
                    if after < n and buf[after] == "{":  # the arguments object, as the value of "arguments"
                        self._begin_json()
                        pos = after
                        continue
                self._begin_param(self._name, _KV_VALUE_END, False, self._key_markup + T.ARG_VALUE_OPEN)
                self._state = _VALUE
                pos += len(T.ARG_VALUE_OPEN)
        if cur.ended and not self.done:
            if self._index is None:
                if self._state in (_NAME, _AFTER_NAME, _NAME_PAIR_STATE):
                    self.failed = True
            elif self._state is _VALUE:
                self._end_param()
                self._state = _BODY
        return pos

    def _takes_whole_arguments(self) -> bool:
        """Whether a JSON object here can be the whole arguments: no parameter yet, and the tool has none named
        ``arguments`` (whose value would be that object)."""
        return not self._params and self._json is None and self._schemas.parameter(self._tool, "arguments") is None

    def _begin_json(self) -> None:
        assert self._index is not None
        index = self._index
        sink = self._sink

        def out(text: str) -> None:
            sink.call_args(index, text)

        self._json = JsonValueReader(out)
        self._whole_arguments = True
        self._state = _JSON_ARGS

    def _close_pending(self) -> None:
        if self._json is not None:
            self._json.close()
            self._sink.content(self._json.take_unread())  # an unfinished member, cut off by the end of the output
        elif self._state is _AFTER_KEY:  # the call ends after a key: its value is empty (as in XML)
            self._begin_param(self._name, _KV_VALUE_END, False, self._key_markup)
            self._state = _VALUE
