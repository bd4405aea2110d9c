"""Call bodies whose parameters are plain text between tags.

* XML function (Qwen3-Coder style)::

    <function=NAME>
    <parameter=P>
    value
    </parameter>
    </function>

  One leading and one trailing newline of a value are markup.
* LongCat key/value::

    NAME
    <longcat_arg_key>P</longcat_arg_key>
    <longcat_arg_value>value</longcat_arg_value>

Values whose schema admits a string stream as JSON-escaped text while they arrive; other values are typed by their
schema when they close. Text inside a call that is not a parameter is handed back to the host as content. A parameter
written twice keeps its first value (already streamed); the repeat, markup included, is content, so that the
arguments never hold a key twice (which strict JSON readers refuse).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from typing import Final

from . import tags as T
from .host import CallHost
from .json_value import JsonValueReader
from .names import resolve_tool_name
from .schema import ToolSchemas, convert_value, is_string_schema, schema_types
from .stray import WHITESPACE, WhitespaceRun, stray_end, whitespace_end

logger = logging.getLogger("longcat_plugins")

_NEEDS_ESCAPE: Final = re.compile(r'["\\\x00-\x1f\ud800-\udfff]')
_SURROGATE: Final = re.compile(r"[\ud800-\udfff]")
_HEADER_END: Final = re.compile(r"[<>\n]")
_KV_NAME_END: Final = re.compile(r"[\s<>{(]")
_MAX_WHITESPACE_AFTER_CLOSE: Final = 256
_MAX_CLOSER_RUN: Final = 512  # how much of a run of closing tags inside a value is held back while undecided
_MAX_NULL_TEXT: Final = 16  # how much of a nullable string value is held back while it may read as null
_LINE_BREAK_OR_TAG: Final = re.compile("[\n<]")
#: ``json.dumps(value, ensure_ascii=False)``, without building an encoder per call
_dumps: Final = json.JSONEncoder(ensure_ascii=False).encode


def json_escape(text: str) -> str:
    """``text`` as the inside of a JSON string."""
    if _NEEDS_ESCAPE.search(text) is None:
        return text
    # a surrogate code point cannot be written as UTF-8: each one (the engines' text never holds one) is U+FFFD,
    # the same whatever the split
    return _dumps(_SURROGATE.sub("\ufffd", text))[1:-1]


class PlainValue:
    """Reads one plain-text value up to (not including) the first of its terminator tags.

    A terminator listed in ``held_back`` ends the value only where what follows it decides so (see
    :func:`_closer_run_ends_call`); elsewhere it is text of the value (a model writing an XML file writes
    ``</function>`` in a value). Only that undecided tail is held back.
    """

    __slots__ = ("_held_back", "_out", "_started", "_strip_newlines", "_terminators", "done", "terminator")

    def __init__(
        self,
        terminators: T.TagSet,
        strip_newlines: bool,
        out: Callable[[str], None],
        held_back: frozenset[str] = frozenset(),
    ) -> None:
        self._terminators = terminators
        self._held_back = held_back
        self._strip_newlines = strip_newlines
        self._out = out
        self._started = not strip_newlines
        self.done = False
        self.terminator: str | None = None

    def feed(self, buf: str, pos: int, final: bool) -> int:
        n = len(buf)
        if not self._started:
            if pos >= n:
                return pos
            if buf[pos] == "\n":
                pos += 1
            self._started = True
        out = self._out
        while pos < n:
            i = buf.find("<", pos)
            if i < 0:
                end = n
                if not final and self._strip_newlines and buf[n - 1] == "\n":
                    end -= 1  # may be the newline before the closing tag
                if end > pos:
                    out(buf[pos:end])
                return end
            # at the end of the output, a cut-off closing tag still ends the value (it is not value text)
            tag = self._terminators.match(buf, i, False)
            if isinstance(tag, str) and tag in self._held_back:
                verdict = _closer_run_ends_call(buf, i, final)
                tag = tag if verdict else None if verdict is False else T.NEED_MORE
            if tag is None:
                out(buf[pos : i + 1])
                pos = i + 1
                continue
            end = i
            if self._strip_newlines and end > pos and buf[end - 1] == "\n":
                end -= 1
            if end > pos:
                out(buf[pos:end])
            if tag is T.NEED_MORE and not final:
                return end
            self.terminator = tag if isinstance(tag, str) else None
            self.done = True
            return i
        return pos

    def close(self) -> None:
        self.done = True

    def continues(self, text: str) -> bool:
        """Whether ``text`` only continues the value, with nothing to decide (no '<', no possible trailing newline).
        The fast path of a long value: the caller passes it on itself."""
        return self._started and "<" not in text and not (self._strip_newlines and text[-1] == "\n")


#: ``KEY:`` at the start of a line of a key/value body written as ``key: value`` lines
_LINE_KEY: Final = re.compile(r"[ \t]*([A-Za-z_][\w\-]*)[ \t]*(:)?")
_LINE_KEY_BOUND: Final = 64 + T.MAX_NAME_LENGTH


def line_key(buf: str, pos: int, final: bool, accept: Callable[[str], bool]) -> tuple[str, int] | T._NeedMore | None:
    """The key of a ``KEY: value`` line starting at ``pos`` and where its value starts, None when there is none
    (or ``accept`` refuses the key), NEED_MORE when the buffer ends before that is known."""
    m = _LINE_KEY.match(buf, pos, pos + _LINE_KEY_BOUND)
    if m is None:
        return None if final or len(buf) - pos >= _LINE_KEY_BOUND or buf[pos:].strip(" \t") else T.NEED_MORE
    if m.group(2) is None:
        if m.end() == len(buf) and not final and m.end() - pos < _LINE_KEY_BOUND:
            return T.NEED_MORE
        return None
    if not accept(m.group(1)):
        return None
    end = m.end()
    while end < len(buf) and buf[end] in " \t":
        end += 1
    if end == len(buf) and not final:
        return T.NEED_MORE  # (the spaces before the value are not part of it)
    return m.group(1), end


class LineValue:
    """Reads the value of a ``KEY: value`` line. It goes on over the next lines until a line starts with another
    accepted ``KEY:`` or with markup of the body (which ends the value and is not read); the newline before what
    ends it is not part of it."""

    __slots__ = ("_accept", "_out", "done", "terminator")

    def __init__(self, out: Callable[[str], None], accept: Callable[[str], bool]) -> None:
        self._out = out
        self._accept = accept
        self.done = False
        self.terminator: str | None = None

    def feed(self, buf: str, pos: int, final: bool) -> int:
        n = len(buf)
        out = self._out
        while pos < n:
            m = _LINE_BREAK_OR_TAG.search(buf, pos)
            if m is None:
                out(buf[pos:])
                return n
            i = m.start()
            if buf[i] == "<":
                tag = _KV_BODY_TAGS.match(buf, i, final)
                if tag is None:
                    out(buf[pos : i + 1])
                    pos = i + 1
                    continue
                if i > pos:
                    out(buf[pos:i])
                if tag is T.NEED_MORE:
                    return i
                self.done = True
                return i
            # a newline: the next line decides
            if i > pos:
                out(buf[pos:i])
            j = whitespace_end(buf, i + 1)
            if j == n:
                if not final:
                    return i
                self.done = True
                return i
            if buf[j] == "<":
                tag = _KV_BODY_TAGS.match(buf, j, final)
                if tag is T.NEED_MORE:
                    return i
                if tag is not None:
                    self.done = True
                    return i
            key = line_key(buf, i + 1, final, self._accept)
            if key is T.NEED_MORE:
                return i
            if key is not None:
                self.done = True
                return i
            out("\n")
            pos = i + 1
        return pos

    def close(self) -> None:
        self.done = True

    def continues(self, text: str) -> bool:
        return "<" not in text and "\n" not in text


def _closer_run_ends_call(buf: str, start: int, final: bool) -> bool | None:
    """Whether the closing tag at ``start``, met inside an open value, ends the value and its call; None: not known
    yet.

    The closers and whitespace that follow it form one run; what comes after the run decides. ``</parameter>`` means
    the run was value text; so does other text on the run's last line, or after a run that closes no block. The end
    of the output, an opening tag, an end marker, or text on a new line after a block's closer mean it closed the
    call. A run longer than ``_MAX_CLOSER_RUN`` closes the call (the bound on what is held back).
    """
    limit = start + _MAX_CLOSER_RUN
    pos = start
    block_closed = False
    while True:
        tag = _AFTER_CLOSER.match(buf, pos, final)
        if tag is T.NEED_MORE:
            return None
        if tag not in _CALL_CLOSERS:  # (never so at ``start``)
            return tag != T.PARAMETER_CLOSE
        assert isinstance(tag, str)
        block_closed = block_closed or tag in T.WRAPPER_CLOSES
        after = pos + len(tag)
        pos = whitespace_end(buf, after)
        if pos > limit:
            return True
        if pos == len(buf):
            return True if final else None
        if buf[pos] != "<" or _AFTER_CLOSER.match(buf, pos, final) is None:
            return block_closed and "\n" in buf[after:pos]


class _MarkupCall:
    """What the XML and key/value readers share: parameters, their typing and the arguments object they form."""

    _closing_tag: str  # the tag that closes a value
    _held_back: frozenset[str] = frozenset()  # see PlainValue

    def __init__(self, host: CallHost, schemas: ToolSchemas) -> None:
        self._host = host
        self._schemas = schemas
        self._index: int | None = None
        self._tool = ""
        self._params = 0
        self._param_names: set[str] = set()
        self._repeat_closing = ""  # the closing tag of a repeated parameter, shown with it
        self._whole_arguments = False  # the arguments came as one JSON object (no parameter can follow)
        self._value: PlainValue | LineValue | None = None
        self._streaming_string = False  # the open value is a string, streamed as it arrives
        self._finish_value: Callable[[], None] | None = None
        self._whitespace = WhitespaceRun()
        self.done = False
        self.failed = False

    @property
    def confirmed(self) -> bool:
        return self._index is not None

    def feed_fast(self, text: str) -> tuple[int, str] | None:
        """``text`` at once, as argument text, if it only continues an open string value (see ``CallReader``)."""
        value = self._value
        if self._streaming_string and value is not None and not value.done and value.continues(text):
            assert self._index is not None
            return self._index, json_escape(text)
        return None

    def close(self) -> None:
        if self.done or self._index is None:
            return
        self._close_pending()
        self._end_param()
        if not self._whole_arguments:
            self._host.call_args(self._index, "}" if self._params else "{}")
        self._host.end_call(self._index)
        self.done = True

    def _close_pending(self) -> None:
        """The call ends while markup of a parameter is unfinished (a reader finishes it here if it can)."""

    def _start(self, name: str) -> bool:
        """Announce the call; False when its name names no tool (the reader then fails)."""
        self._index = self._host.start_call(name)
        self._tool = resolve_tool_name(name, self._schemas, bool(self._schemas)) or name
        if self._index is None:
            self.failed = True
        return self._index is not None

    def _begin_param(
        self, name: str, terminators: T.TagSet, strip_newlines: bool, markup: str, line: bool = False
    ) -> None:
        """A parameter's value begins; ``markup`` is the raw text that opened it; ``line``: a ``KEY: value`` line."""
        assert self._index is not None
        index = self._index
        host = self._host
        if name in self._param_names or self._whole_arguments:
            logger.warning(
                "tool %r: parameter %r given again; the first value is kept, the repeat is content", self._tool, name
            )
            host.stray(self._whitespace.release() + markup)
            self._streaming_string = False
            self._value = (
                LineValue(host.stray, self._accepts_line_key)
                if line
                else PlainValue(terminators, False, host.stray, self._held_back)
            )
            self._finish_value = None
            self._repeat_closing = self._closing_tag
            return
        self._param_names.add(name)
        prefix = ("{" if self._params == 0 else ", ") + _dumps(name) + ": "
        self._params += 1
        schema = self._schemas.parameter(self._tool, name)
        out: Callable[[str], None]
        self._streaming_string = is_string_schema(schema)
        if self._streaming_string and "null" in schema_types(schema):
            out, finish = self._nullable_string(index, prefix)
        elif self._streaming_string:
            host.call_args(index, prefix + '"')

            def out(text: str) -> None:
                host.call_args(index, json_escape(text))

            def finish() -> None:
                host.call_args(index, '"')

        else:
            raw: list[str] = []
            out = raw.append

            def finish() -> None:
                value = convert_value("".join(raw), schema)
                host.call_args(index, prefix + _dumps(value))

        if line:
            self._value = LineValue(out, self._accepts_line_key)
        else:
            self._value = PlainValue(terminators, strip_newlines, out, self._held_back)
        self._finish_value = finish

    def _accepts_line_key(self, key: str) -> bool:
        """Whether ``KEY:`` at the start of a line names a parameter (of the tool, when the request declares it)."""
        tool = resolve_tool_name(self._tool, self._schemas, bool(self._schemas)) or self._tool
        if tool in self._schemas:
            return self._schemas.parameter(tool, key) is not None
        return not self._schemas

    def _nullable_string(self, index: int, prefix: str) -> tuple[Callable[[str], None], Callable[[], None]]:
        """A string value that may be ``null``: held back while it still reads as null (a few characters), then
        streamed as a string; JSON null if it is exactly that."""
        host = self._host
        host.call_args(index, prefix)
        held: list[str] = []  # the value's text while undecided
        decided = False
        self._streaming_string = False  # (no fast path while undecided)

        def out(text: str) -> None:
            nonlocal decided
            if decided:
                host.call_args(index, json_escape(text))
                return
            held.append(text)
            so_far = "".join(held)
            if len(so_far) <= _MAX_NULL_TEXT and "null".startswith(so_far.strip()):
                return
            decided = self._streaming_string = True
            host.call_args(index, '"' + json_escape(so_far))

        def finish() -> None:
            if decided:
                host.call_args(index, '"')
                return
            so_far = "".join(held)
            host.call_args(index, "null" if so_far.strip() == "null" else '"' + json_escape(so_far) + '"')

        return out, finish

    def _end_param(self) -> None:
        if self._finish_value is not None:
            self._finish_value()
        self._value = None
        self._finish_value = None
        self._repeat_closing = ""

    def _feed_value(self, buf: str, pos: int, final: bool, closing_tag: str) -> int:
        """Feed the open value; when it ends, consume its own closing tag (if that is what ended it)."""
        value = self._value
        assert value is not None
        pos = value.feed(buf, pos, final)
        if value.done:
            if value.terminator == closing_tag:
                if self._repeat_closing:
                    self._host.stray(closing_tag)
                pos += len(closing_tag)
            self._end_param()
        elif final:
            self._end_param()
        return pos

    def _stray(self, buf: str, pos: int) -> int:
        """Text between parameters that is not markup: shown as content, up to the next tag. Whitespace taken just
        before it belongs to it."""
        end = stray_end(buf, pos)
        self._host.stray(self._whitespace.release() + buf[pos:end])
        return end

    def _body_text(self, buf: str, pos: int) -> int:
        """At a character of the body that is not '<': whitespace is taken (a tag after it makes it markup);
        anything else is stray text."""
        if buf[pos] in WHITESPACE:
            return self._whitespace.take(buf, pos)
        return self._stray(buf, pos)

    def _fail(self, pos: int) -> int:
        self.failed = True
        return pos


#: the closers that end an XML value (and its call) where what follows decides so (see _closer_run_ends_call)
_CALL_CLOSERS: Final = frozenset((T.FUNCTION_CLOSE, *T.WRAPPER_CLOSES))
_AFTER_CLOSER: Final = T.TagSet(
    T.PARAMETER_CLOSE, *_CALL_CLOSERS, *T.WRAPPER_OPENS, T.FUNCTION_OPEN, *T.END_OF_SEQUENCE
)
_XML_VALUE_END: Final = T.TagSet(T.PARAMETER_CLOSE, T.PARAMETER_OPEN, *_CALL_CLOSERS)
# Besides its own tags, a function body ends where its block closes, where the next call or block opens (a model
# that forgot a closing tag) or at an end-of-sequence marker; those tags are left for the parser.
_XML_BODY_TAGS: Final = T.TagSet(
    T.PARAMETER_OPEN,
    T.FUNCTION_CLOSE,
    *T.WRAPPER_CLOSES,
    T.FUNCTION_OPEN,
    *T.WRAPPER_OPENS,
    *T.END_OF_SEQUENCE,
)

_HEADER: Final = 0
_BODY: Final = 1
_PARAM_HEADER: Final = 2
_VALUE: Final = 3


class XmlCallReader(_MarkupCall):
    """Reads ``<function=NAME>...</function>``, starting at ``<function=``; with ``name_first``, ``NAME>`` then
    the parameters (Qwen3.5 leaves ``<function=`` out), starting at NAME."""

    _closing_tag = T.PARAMETER_CLOSE
    _held_back = _CALL_CLOSERS

    def __init__(self, host: CallHost, schemas: ToolSchemas, name_first: bool = False) -> None:
        super().__init__(host, schemas)
        self._state = _HEADER
        self._name_at = 0 if name_first else len(T.FUNCTION_OPEN)  # where the name starts after the reader's start

    def feed(self, buf: str, pos: int, final: bool) -> int:
        n = len(buf)
        while pos < n and not (self.done or self.failed):
            state = self._state
            if state == _VALUE:
                pos = self._feed_value(buf, pos, final, T.PARAMETER_CLOSE)
                if self._value is not None:
                    return pos
                self._state = _BODY
            elif state == _HEADER:
                name, end = _read_header(buf, pos + self._name_at, final)
                if end < 0:
                    return pos
                if name is None or not name.strip():
                    return self._fail(pos + self._name_at)
                self._start(name.strip())
                self._state = _BODY
                pos = end
            elif state == _BODY:
                if buf[pos] != "<":
                    pos = self._body_text(buf, pos)
                    continue
                tag = _XML_BODY_TAGS.match(buf, pos, final)
                if tag is T.NEED_MORE:
                    return pos
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
                    pos = self._stray(buf, pos)
            else:  # _PARAM_HEADER
                name, end = _read_header(buf, pos + len(T.PARAMETER_OPEN), final)
                if end < 0:
                    return pos
                if name is None:
                    pos = self._stray(buf, pos)
                    self._state = _BODY
                    continue
                self._whitespace.drop()
                self._begin_param(name.strip(), _XML_VALUE_END, True, buf[pos:end])
                self._state = _VALUE
                pos = end
        if final and not self.done and self._index is not None and self._state == _VALUE:
            self._end_param()
            self._state = _BODY
        return pos


_NAME_CHARS: Final = re.compile(rf"[^\s<>{{(]{{0,{T.MAX_NAME_LENGTH + 1}}}")
_PARAMETER_OPEN: Final = T.TagSet(T.PARAMETER_OPEN)


def parameters_follow_name(buf: str, pos: int, final: bool) -> bool | None:
    """Whether ``buf[pos:]`` is ``NAME>`` then (after whitespace) ``<parameter=``: a call written without its
    ``<function=``. None: not known yet."""
    m = _NAME_CHARS.match(buf, pos)
    assert m is not None
    end = m.end()
    if end - pos > T.MAX_NAME_LENGTH:
        return False
    if end == len(buf):
        return False if final else None
    if buf[end] != ">" or end == pos:
        return False
    first = whitespace_end(buf, end + 1)
    if first - end > _MAX_WHITESPACE_AFTER_CLOSE:
        return False
    if first == len(buf):
        return False if final else None
    tag = _PARAMETER_OPEN.match(buf, first, final)
    return None if tag is T.NEED_MORE else tag is not None


def _read_header(buf: str, start: int, final: bool) -> tuple[str | None, int]:
    """The NAME of a ``<function=NAME>``/``<parameter=NAME>`` header whose NAME starts at ``start``.

    Returns (name, position after '>'), (None, 0) when this is no header, or (None, -1) to wait for more text.
    """
    m = _HEADER_END.search(buf, start, start + T.MAX_NAME_LENGTH + 1)
    if m is None:
        if len(buf) - start > T.MAX_NAME_LENGTH or final:
            return None, 0
        return None, -1
    if buf[m.start()] != ">":
        return None, 0
    return buf[start : m.start()], m.end()


_KV_VALUE_END: Final = T.TagSet(T.ARG_VALUE_CLOSE, T.ARG_KEY_OPEN, T.LONGCAT_CALL_CLOSE)
_KV_BODY_TAGS: Final = T.TagSet(
    T.ARG_KEY_OPEN, *T.WRAPPER_CLOSES, *T.WRAPPER_OPENS, T.FUNCTION_OPEN, *T.END_OF_SEQUENCE
)
_KV_VALUE_OPEN: Final = T.TagSet(T.ARG_VALUE_OPEN)
#: what may close the markup right after an arguments object written as JSON
_KV_AFTER_JSON: Final = T.TagSet(T.ARG_KEY_CLOSE, T.ARG_VALUE_CLOSE)
#: a block that begins with its name as a pair: ``<longcat_arg_key>name</longcat_arg_key><longcat_arg_value>NAME..``
_NAME_PAIR: Final = re.compile(
    r"<longcat_arg_key>\s*name\s*</longcat_arg_key>\s*<longcat_arg_value>\s*([^\s<>]{1,256})\s*</longcat_arg_value>"
)
_NAME_PAIR_BOUND: Final = 128 + T.MAX_NAME_LENGTH

_NAME: Final = 4
_AFTER_NAME: Final = 5
_KEY: Final = 6
_AFTER_KEY: Final = 7
_NAME_PAIR_STATE: Final = 8
_OPEN_PAREN: Final = 9  # after ``NAME(``
_JSON_ARGS: Final = 10  # the whole arguments object, written as JSON (or a JavaScript object literal)
_AFTER_JSON: Final = 11
_LINES: Final = 12  # between ``KEY: value`` lines


class KvCallReader(_MarkupCall):
    """Reads a LongCat key/value call up to (not including) the closing tag of its block, starting at NAME:

    * ``NAME <longcat_arg_key>K</longcat_arg_key><longcat_arg_value>V</longcat_arg_value>...`` (the dialect);
    * ``NAME {json object}`` and ``NAME({javascript object})``: the object is the arguments;
    * ``NAME <longcat_arg_key>{json object}`` (a key holding all the arguments, often with no closing tags);
    * ``<longcat_arg_key>name</longcat_arg_key><longcat_arg_value>NAME</longcat_arg_value>`` then an ``arguments``
      key whose value is the arguments object (``name_pair=True``: the reader starts at that first key).
    """

    _closing_tag = T.ARG_VALUE_CLOSE

    def __init__(
        self, host: CallHost, schemas: ToolSchemas, name_pair: bool = False, given_name: str = "", bare: bool = False
    ) -> None:
        super().__init__(host, schemas)
        self._state: int = _AFTER_NAME if given_name else _NAME_PAIR_STATE if name_pair else _NAME
        self._name = given_name
        self._bare = bare  # no block around the call: it ends where its key/value pairs end
        self._key_markup = ""  # the raw ``<longcat_arg_key>K</longcat_arg_key>`` until its value begins
        self._json: JsonValueReader | None = None
        self._json_closers: T.TagSet | None = None
        self._closed_name = False  # a '>' after the name was taken

    def feed(self, buf: str, pos: int, final: bool) -> int:
        n = len(buf)
        while pos < n and not (self.done or self.failed):
            state = self._state
            if state == _VALUE:
                line = isinstance(self._value, LineValue)
                pos = self._feed_value(buf, pos, final, T.ARG_VALUE_CLOSE)
                if self._value is not None:
                    return pos
                self._state = _LINES if line else _BODY
            elif state == _LINES:
                if buf[pos] in WHITESPACE:
                    pos = self._whitespace.take(buf, pos)
                    continue
                if buf[pos] == "<":
                    self._state = _BODY
                    continue
                key = line_key(buf, pos, final, self._accepts_line_key)
                if key is T.NEED_MORE:
                    return pos
                if isinstance(key, tuple):
                    self._whitespace.drop()
                    self._begin_param(key[0], _KV_VALUE_END, False, buf[pos : key[1]], line=True)
                    self._state = _VALUE
                    pos = key[1]
                    continue
                self._state = _BODY
            elif state == _JSON_ARGS:
                json_reader = self._json
                assert json_reader is not None
                pos = json_reader.feed(buf, pos, final)
                if json_reader.failed:  # what it read and did not pass on, and what follows, is text
                    self._host.stray(json_reader.take_unread())
                    json_reader.close()
                    self._state = _BODY
                elif json_reader.done:
                    self._state = _AFTER_JSON
                else:
                    return pos
            elif state == _AFTER_JSON:
                end = whitespace_end(buf, pos)
                if end == n and not final:
                    return pos
                if end < n and buf[end] == ")" and self._json_closers is None:
                    pos = end + 1
                    self._json_closers = _KV_AFTER_JSON  # (a paren is closed once)
                    continue
                tag = _KV_AFTER_JSON.match(buf, end, final) if end < n and buf[end] == "<" else None
                if tag is T.NEED_MORE:
                    return pos
                if isinstance(tag, str):
                    pos = end + len(tag)
                    continue
                self._state = _BODY
            elif state == _NAME:
                m = _KV_NAME_END.search(buf, pos, pos + T.MAX_NAME_LENGTH + 1)
                if m is None:
                    if n - pos > T.MAX_NAME_LENGTH or final:
                        return self._fail(pos)
                    return pos
                self._name = buf[pos : m.start()]
                self._state = _AFTER_NAME
                pos = m.start()
            elif state == _AFTER_NAME:
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
                    key = line_key(buf, pos, final, self._accepts_line_key)
                    if key is T.NEED_MORE:
                        return pos
                    if not isinstance(key, tuple) or not self._start(self._name):
                        return self._fail(pos)
                    self._begin_param(key[0], _KV_VALUE_END, False, buf[pos : key[1]], line=True)
                    self._state = _VALUE
                    pos = key[1]
                    continue
                tag = _KV_BODY_TAGS.match(buf, pos, final)
                if tag is T.NEED_MORE:
                    return pos
                if tag is None:
                    return self._fail(pos)
                if not self._start(self._name):
                    return pos
                self._state = _BODY
            elif state == _OPEN_PAREN:
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
            elif state == _NAME_PAIR_STATE:
                close = buf.find(T.ARG_VALUE_CLOSE, pos, pos + _NAME_PAIR_BOUND)
                if close < 0:
                    if n - pos < _NAME_PAIR_BOUND and not final:
                        return pos
                    return self._fail(pos)
                m = _NAME_PAIR.fullmatch(buf, pos, close + len(T.ARG_VALUE_CLOSE))
                if m is None:
                    return self._fail(pos)
                if not self._start(m.group(1)):
                    return pos
                self._state = _BODY
                pos = m.end()
            elif state == _BODY and self._bare:
                end = whitespace_end(buf, pos)
                if end == n and not final and end - pos <= _MAX_WHITESPACE_AFTER_CLOSE:
                    return pos
                tag = _KV_BODY_TAGS.match(buf, end, final) if end < n and buf[end] == "<" else None
                if tag is T.NEED_MORE:
                    return pos
                if tag == T.ARG_KEY_OPEN:
                    self._state = _KEY
                    pos = end
                    continue
                self.close()  # anything else ends the call, before the whitespace
                return pos
            elif state == _BODY:
                if buf[pos] != "<":
                    pos = self._body_text(buf, pos)
                    continue
                tag = _KV_BODY_TAGS.match(buf, pos, final)
                if tag is T.NEED_MORE:
                    return pos
                if tag is None and final and _KV_BODY_TAGS.is_prefix(buf[pos:]):
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
                    pos = self._stray(buf, pos)
            elif state == _KEY:
                start = pos + len(T.ARG_KEY_OPEN)
                first = whitespace_end(buf, start)
                if first == n and not final:
                    return pos
                if first < n and buf[first] == "{" and self._takes_whole_arguments():
                    self._begin_json()
                    pos = first
                    continue
                end = buf.find(T.ARG_KEY_CLOSE, start, start + T.MAX_NAME_LENGTH + len(T.ARG_KEY_CLOSE))
                if end < 0:
                    if n - start < T.MAX_NAME_LENGTH + len(T.ARG_KEY_CLOSE) and not final:
                        return pos
                    pos = self._stray(buf, pos)
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
                tag = _KV_VALUE_OPEN.match(buf, pos, final) if buf[pos] == "<" else None
                if tag is T.NEED_MORE:
                    return pos
                if tag is None:  # a key with no value is not a parameter
                    self._host.stray(self._key_markup)
                    self._state = _BODY
                    continue
                if self._name == "arguments" and self._takes_whole_arguments():
                    after = whitespace_end(buf, pos + len(T.ARG_VALUE_OPEN))
                    if after == n and not final:
                        return pos
                    if after < n and buf[after] == "{":  # the arguments object, as the value of "arguments"
                        self._begin_json()
                        pos = after
                        continue
                self._begin_param(self._name, _KV_VALUE_END, False, self._key_markup + T.ARG_VALUE_OPEN)
                self._state = _VALUE
                pos += len(T.ARG_VALUE_OPEN)
        if final and not self.done:
            if self._index is None:
                if self._state in (_NAME, _AFTER_NAME, _NAME_PAIR_STATE):
                    self.failed = True
            elif self._state == _VALUE:
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
        host = self._host

        def out(text: str) -> None:
            host.call_args(index, text)

        self._json = JsonValueReader(out)
        self._whole_arguments = True
        self._state = _JSON_ARGS

    def _close_pending(self) -> None:
        if self._json is not None:
            self._json.close()
            self._host.stray(self._json.take_unread())  # an unfinished member, cut off by the end of the output
        elif self._state == _AFTER_KEY:  # the call ends after a key: its value is empty (as in XML)
            self._begin_param(self._name, _KV_VALUE_END, False, self._key_markup)
            self._state = _VALUE
