"""What the call readers whose parameters are plain text between tags share (the XML reader in
:mod:`.xml_call`, the key/value reader in :mod:`.kv_call`): the parameters, their typing by the tool's schema and the
arguments object they form.

Values whose schema admits a string stream as JSON-escaped text while they arrive (when it admits other types too, once
the text can no longer be strict JSON of one of them); other values are typed by their schema when they close
(``core/schema/convert.py``). Text inside a call that is not a parameter goes to the sink as content. A parameter
written twice keeps its first value (already streamed); the repeat, markup included, is content, so that the arguments
never hold a key twice (which strict JSON readers refuse).
"""

from __future__ import annotations

from collections.abc import Callable

from .. import tags as T
from ..cursor import Cursor
from ..schema import Schema, ToolSchemas, convert_union, convert_value, schema_types, union_undecided
from ..tool_names import resolve_tool_name
from ..whitespace import WHITESPACE, WhitespaceRun, text_end
from .sink import MUTED, CallProgress, CallSink
from .values import Closers, LineValue, PlainValue, dumps, json_escape

#: the types of a value whose text holds no markup: its own closing tag always ends it
_SCALAR_TYPES = frozenset(("integer", "number", "boolean", "null"))


class MarkupCall(CallProgress):
    """What the XML and key/value readers share: parameters, their typing and the arguments object they form."""

    _closing_tag: str  # the tag that closes a value
    _closers: Closers | None = None  # the closers that may stand inside a value (see PlainValue)

    def __init__(self, sink: CallSink, schemas: ToolSchemas) -> None:
        super().__init__()
        self._sink = sink
        self._schemas = schemas
        self._tool = ""
        self._params = 0
        self._param_names: set[str] = set()
        self._repeat_closing = ""  # the closing tag of a repeated parameter, shown with it
        self._whole_arguments = False  # the arguments came as one JSON object (no parameter can follow)
        self._value: PlainValue | LineValue | None = None
        self._streaming_string = False  # the open value is a string, streamed as it arrives
        self._finish_value: Callable[[], None] | None = None
        self._whitespace = WhitespaceRun()

    def feed_fast(self, text: str) -> str | None:
        """``text`` at once, as argument text, if it only continues an open string value (see ``CallReader``)."""
        value = self._value
        if self._streaming_string and value is not None and not value.done and value.continues(text):
            if self._unknown:
                return None
            return json_escape(text)
        return None

    def feed_fast_line(self, text: str) -> str | None:
        """``text`` but its last character, a line break the open value holds back (see ``CallReader``)."""
        return self.feed_fast(text[:-1]) if len(text) > 1 and self._value is not None else None

    def close(self) -> None:
        if self.done or not self._announced:
            return
        self._close_pending()
        self._end_param()
        if not self._whole_arguments:
            self._sink.call_args("}" if self._params else "{}")
        self._sink.end_call()
        self.done = True

    def _close_pending(self) -> None:
        """The call ends while markup of a parameter is unfinished (a reader finishes it here if it can)."""

    def _start(self, name: str) -> None:
        """Announce the call. When its name names no tool of the request, the call is not announced but read on to
        its end all the same, reporting nothing (its text then comes back verbatim, tags inside it included)."""
        self._announced = True
        self._tool = resolve_tool_name(name, self._schemas, bool(self._schemas)) or name
        if not self._sink.start_call(name):
            self._unknown = True
            self._sink = MUTED

    def _begin_param(
        self, name: str, terminators: T.TagSet, strip_newlines: bool, markup: str, line: bool = False
    ) -> None:
        """A parameter's value begins; ``markup`` is the raw text that opened it; ``line``: a ``KEY: value`` line."""
        assert self._announced
        sink = self._sink
        if name in self._param_names or self._whole_arguments:
            sink.problem(
                "tool %r: parameter %r given again; the first value is kept, the repeat is content", self._tool, name
            )
            sink.content(self._whitespace.release() + markup)
            self._streaming_string = False
            self._value = (
                LineValue(sink.content, self._accepts_line_key)
                if line
                else PlainValue(terminators, False, sink.content, self._closers, self._param_names)
            )
            self._finish_value = None
            self._repeat_closing = self._closing_tag
            return
        self._param_names.add(name)
        prefix = ("{" if self._params == 0 else ", ") + dumps(name) + ": "
        self._params += 1
        schema = self._schemas.parameter(self._tool, name)
        out: Callable[[str], None]
        types = schema_types(schema)  # (as is_string_schema reads them: none means anything, a string too)
        self._streaming_string = not types or "string" in types
        others = [t for t in types if t != "string"] if self._streaming_string and len(types) > 1 else []
        if others:
            out, finish = self._union_string(prefix, schema, others)
        elif self._streaming_string:
            sink.call_args(prefix + '"')

            def out(text: str) -> None:
                sink.call_args(json_escape(text))

            def finish() -> None:
                sink.call_args('"')

        else:
            raw: list[str] = []
            out = raw.append

            def finish() -> None:
                value = convert_value(raw[0] if len(raw) == 1 else "".join(raw), schema)
                sink.call_args(prefix + (str(value) if type(value) is int else dumps(value)))

        if line:
            self._value = LineValue(out, self._accepts_line_key)
        else:
            scalar = bool(types) and _SCALAR_TYPES.issuperset(types)
            self._value = PlainValue(terminators, strip_newlines, out, self._closers, self._param_names, scalar)
        self._finish_value = finish

    def _accepts_line_key(self, key: str) -> bool:
        """Whether ``KEY:`` at the start of a line names a parameter (of the tool, when the request declares it)."""
        tool = resolve_tool_name(self._tool, self._schemas, bool(self._schemas)) or self._tool
        if tool in self._schemas:
            return self._schemas.parameter(tool, key) is not None
        return not self._schemas

    def _union_string(
        self, prefix: str, schema: Schema | None, others: list[str]
    ) -> tuple[Callable[[str], None], Callable[[], None]]:
        """A value whose schema admits a string and ``others``: held back while it may still be strict JSON of one
        of ``others`` (``null``, a number, ``[`` an array...), then streamed as a string; typed when it closes if it
        was held to the end."""
        sink = self._sink
        sink.call_args(prefix)
        held: list[str] = []  # the value's text while undecided
        decided = False
        whole = False  # an array or object begins it: held to the end (where it is typed)
        self._streaming_string = False  # (no fast path while undecided)

        def out(text: str) -> None:
            nonlocal decided, whole
            if decided:
                sink.call_args(json_escape(text))
                return
            held.append(text)
            if whole:
                return
            so_far = "".join(held)  # (short: a scalar is decided within a few dozen characters)
            held[:] = [so_far]
            if union_undecided(so_far, others):
                whole = so_far.lstrip(" \t\r\n")[:1] in ("[", "{")
                return
            decided = self._streaming_string = True
            sink.call_args('"' + json_escape(so_far))

        def finish() -> None:
            if decided:
                sink.call_args('"')
                return
            sink.call_args(dumps(convert_union("".join(held), schema)))

        return out, finish

    def _end_param(self) -> None:
        if self._finish_value is not None:
            self._finish_value()
        self._value = None
        self._finish_value = None
        self._repeat_closing = ""

    def _feed_value(self, cur: Cursor, pos: int, closing_tag: str) -> int:
        """Feed the open value; when it ends, consume its own closing tag (if that is what ended it)."""
        value = self._value
        assert value is not None
        pos = value.feed(cur, pos)
        if value.done:
            if value.terminator == closing_tag:
                if self._repeat_closing:
                    self._sink.content(closing_tag)
                pos += len(closing_tag)
            self._end_param()
        elif cur.ended:
            self._end_param()
        return pos

    def _text_between(self, buf: str, pos: int) -> int:
        """Text between parameters that is not markup: shown as content, up to the next tag. Whitespace taken just
        before it belongs to it."""
        end = text_end(buf, pos)
        self._sink.content(self._whitespace.release() + buf[pos:end])
        return end

    def _body_text(self, buf: str, pos: int) -> int:
        """At a character of the body that starts no tag: whitespace is taken (a tag after it makes it markup);
        anything else is stray text."""
        if buf[pos] in WHITESPACE:
            return self._whitespace.take(buf, pos)
        return self._text_between(buf, pos)

    def _fail(self, pos: int) -> int:
        self.failed = True
        return pos
