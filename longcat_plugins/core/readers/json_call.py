"""The JSON call body: ``{"name": "f", "arguments": {...}}`` (LongCat JSON and Hermes/Qwen dialects).

Members may come in any order. The raw text of the ``arguments`` object streams as it is read; when it precedes
``name`` it is kept until the name is known, because a call's first fragment must carry its name. Arguments that
follow the name and are wrapped as ``{"args": {...}}`` for a tool with no parameter ``args`` are the inner object
(``args_wrapper.py``).

A call object written with no tag around it (a *bare* call, read with the request's ``UntaggedNames``) is read
only in its canonical form, so that a JSON answer is not taken for a call: its first key is ``"name"``, its value a
declared tool's name exactly as written (``NAME`` or ``functions.NAME``, no escapes), its second key
``"arguments"`` (or ``"parameters"``), with at most ``UNTAGGED_GAP`` whitespace characters between them; the call
is announced at that second key. The reader fails at the first character that breaks this form, so what is held
until then is a few dozen characters, and where it fails does not depend on how the text was split.
"""

from __future__ import annotations

import json
from typing import Any, Final

from ..cursor import Cursor
from ..identity_enum import IdentityEnum
from ..schema import SchemaNode, ToolSchemas, convert_value, is_string_schema, strict_json_dumps
from ..tags import ARGUMENT_KEYS, NEED_MORE
from ..tool_names import resolve_tool_name
from ..untagged_names import UNTAGGED_GAP, UntaggedNames
from .args_wrapper import inner_object, unwraps_arguments, wrapper_close
from .json_value import JsonValueReader
from .sink import MUTED, CallProgress, CallSink

_ARGUMENT_KEYS: Final = ARGUMENT_KEYS
#: the keys of a bare call object, as written
_BARE_NAME_KEY: Final = ('"name"',)
_BARE_ARGUMENT_KEYS: Final = tuple(f'"{key}"' for key in _ARGUMENT_KEYS)
_WHITESPACE: Final = frozenset(" \t\n\r")


class _State(IdentityEnum):
    """Where the reader is in the call object."""

    #: at the '{'
    OPEN = "open"
    KEY_OR_END = "key or end"
    IN_KEY = "in key"
    COLON = "colon"
    VALUE_START = "value start"
    IN_VALUE = "in value"
    AFTER_VALUE = "after value"
    DONE = "done"


# (the members as module names: see IdentityEnum)
_OPEN, _KEY_OR_END, _IN_KEY, _COLON, _VALUE_START, _IN_VALUE, _AFTER_VALUE, _DONE = _State
#: the states where one character must come, and the state after it
_PUNCTUATION: Final = {_OPEN: ("{", _KEY_OR_END), _COLON: (":", _VALUE_START)}


class _Member(IdentityEnum):
    """What the JSON value being read is."""

    KEY = "key"
    NAME = "name"
    #: the arguments object, streamed as it is read
    ARGUMENTS = "arguments"
    #: arguments given as something other than an object (a JSON-encoded string, null...): read whole
    ARGUMENTS_TEXT = "arguments text"
    OTHER = "other member"


def _discard(_: str) -> None:
    pass


class JsonCallReader(CallProgress):
    """Reads one JSON call object, starting at its ``{``."""

    def __init__(self, sink: CallSink, schemas: ToolSchemas, bare_names: UntaggedNames | None = None) -> None:
        super().__init__()
        self._sink = sink
        self._bare_names = bare_names  # (a bare call) the names it may give
        self._bare = bare_names is not None
        self._bare_name = ""  # (bare) the name read, announced at the key after it
        self._bare_gap = 0  # (bare) the whitespace read before the call was announced
        self._schemas = schemas
        self._tool = ""
        self._wrapped = False  # the arguments are the inner object of an ``{"args": {...}}`` wrapper, not closed yet
        self._state = _OPEN
        self._key = ""
        self._captured: list[str] = []  # raw text of the key or value being captured
        self._value: JsonValueReader | None = None
        self._value_kind = _Member.OTHER
        self._args_seen = False
        self._args_open = False  # the arguments object is being streamed and is not closed yet
        self._args_early: list[str] = []  # argument text read before the name
        self._args_text: str | None = None  # arguments that are no object, read before the name (as written)
        # (arguments that are no object) where their text starts in the buffer being read, and its part from earlier
        # buffers: the text as written, which is content when it is no argument
        self._raw_from: int | None = None
        self._raw_parts: list[str] = []
        self._raw = ""
        self._args_emitted = False
        # the raw text of the member being read, from its key on: where it starts in the buffer being read, and its
        # part from earlier buffers (a member that breaks is shown as text)
        self._member_from: int | None = None
        self._member_raw: list[str] = []

    def feed(self, cur: Cursor, pos: int) -> int:
        buf = cur.text
        if self._member_from is not None:
            self._member_from = pos
        if self._raw_from is not None:
            self._raw_from = pos
        end = self._read(cur, pos)
        if self._member_from is not None:
            self._member_raw.append(buf[self._member_from : end])
        if self._raw_from is not None:
            self._raw_parts.append(buf[self._raw_from : end])
        return end

    def _read(self, cur: Cursor, pos: int) -> int:
        buf = cur.text
        n = len(buf)
        while pos < n and not (self.done or self.failed):
            state = self._state
            if state in (_IN_KEY, _IN_VALUE):
                assert self._value is not None
                pos = self._value.feed(cur, pos)
                if self._value.failed:
                    self._raw_from = None  # (the member's text, as written, is what the next line shows)
                    if self._announced:  # what it read and did not pass on is content (the rest follows)
                        self._sink.content(self._broken_member_text(buf, pos))
                    return self._fail(pos)
                if not self._value.done:
                    if self._bare and not self._announced and not self._bare_head_goes_on():
                        return self._fail(pos)
                    return pos
                if state is _IN_KEY:
                    self._key_complete()
                else:
                    if self._raw_from is not None:
                        self._raw = "".join(self._raw_parts) + buf[self._raw_from : pos]
                        self._raw_from = None
                    self._value_complete()
                continue
            c = buf[pos]
            if c in _WHITESPACE:
                if self._bare and not self._announced:
                    self._bare_gap += 1
                    if self._bare_gap > UNTAGGED_GAP:
                        return self._fail(pos)
                pos += 1
            elif state is _OPEN or state is _COLON:
                expected, following = _PUNCTUATION[state]
                if c != expected:
                    return self._fail(pos)
                self._state = following
                pos += 1
            elif state is _KEY_OR_END:
                if c in "\"'":
                    self._member_from = pos
                    self._member_raw.clear()
                    self._begin_value(_Member.KEY)
                    self._state = _IN_KEY
                elif c == "}":
                    self._object_complete()
                    pos += 1
                else:
                    return self._fail(pos)
            elif state is _VALUE_START:
                if c == "{" and self._unwraps(self._key):
                    inner = inner_object(cur, pos)
                    if inner is NEED_MORE:
                        return pos
                    if isinstance(inner, int):
                        self._wrapped = True
                        pos = inner
                if not self._begin_member_value(c):
                    return self._fail(pos)
                if self._value_kind is _Member.ARGUMENTS_TEXT:
                    self._raw_from = pos
                    self._raw_parts = []
                self._state = _IN_VALUE
            elif state is _AFTER_VALUE:
                if self._wrapped:  # the wrapper's '}' (anything else breaks the call off)
                    close = wrapper_close(cur, pos)
                    if not isinstance(close, int):
                        return pos if close is NEED_MORE else self._fail(pos)
                    self._wrapped = False
                    pos = close
                elif c == ",":
                    self._state = _KEY_OR_END
                    pos += 1
                elif c == "}":
                    self._object_complete()
                    pos += 1
                else:
                    return self._fail(pos)
            else:
                return self._fail(pos)
        return pos

    def feed_fast(self, text: str) -> str | None:
        """``text`` at once, if it only continues a string in the streamed arguments (see ``CallReader``)."""
        value = self._value
        if (
            self._args_open
            and self._announced
            and not self._unknown
            and value is not None
            and value.continues_string(text)
        ):
            return text
        return None

    def close(self) -> None:
        if self.done or not self._announced:
            return
        if self._args_open and self._value is not None:
            self._value.close()
            self._sink.content(self._value.take_unread())  # an unfinished member, cut off by the end of the output
        elif self._raw_from is not None:  # arguments that are no object, cut off: their text is content
            self._sink.content("".join(self._raw_parts))
            self._raw_from = None
        self._finish_call()

    # -- members ---------------------------------------------------------------------------------------------

    def _begin_value(self, kind: _Member) -> None:
        self._value_kind = kind
        self._captured = []
        if kind is _Member.ARGUMENTS:
            self._value = JsonValueReader(self._args_out)
            self._args_open = True
        elif kind is _Member.OTHER:
            self._value = JsonValueReader(_discard)
        else:
            self._value = JsonValueReader(self._capture)

    def _capture(self, text: str) -> None:
        # (a method, not the list's bound ``append``: a copy of the reader, ``copy.deepcopy``, must capture into its
        # own list)
        self._captured.append(text)

    def _unwraps(self, key: str) -> bool:
        """Whether an arguments object that begins here may be an ``{"args": {...}}`` wrapper."""
        return (
            key in _ARGUMENT_KEYS
            and not self._args_seen
            and self._announced
            and unwraps_arguments(self._schemas, self._tool)
        )

    def _begin_member_value(self, first: str) -> bool:
        if self._key == "name":
            if first not in "\"'" or self._announced:
                return False
            self._begin_value(_Member.NAME)
        elif self._key in _ARGUMENT_KEYS and not self._args_seen:
            self._args_seen = True
            self._begin_value(_Member.ARGUMENTS if first == "{" else _Member.ARGUMENTS_TEXT)
        else:
            self._begin_value(_Member.OTHER)
        return True

    def _bare_head_goes_on(self) -> bool:
        """(a bare call, not announced yet) Whether the key or name being read can still be the canonical one."""
        raw = "".join(self._captured)
        if self._value_kind is _Member.KEY:
            keys = _BARE_ARGUMENT_KEYS if self._bare_name else _BARE_NAME_KEY
            return any(key.startswith(raw) for key in keys)
        assert self._bare_names is not None and self._value_kind is _Member.NAME
        return raw[:1] == '"' and "\\" not in raw and self._bare_names.may_begin_name(raw[1:])

    def _key_complete(self) -> None:
        raw = "".join(self._captured)
        self._key = _loads(raw)
        self._state = _COLON
        if self._bare and not self._announced:
            if self._bare_name:  # the key after the name: the arguments, or no call
                if raw in _BARE_ARGUMENT_KEYS:
                    self._announce(self._bare_name)
                else:
                    self._fail(0)
            elif raw not in _BARE_NAME_KEY:
                self._fail(0)

    def _broken_member_text(self, buf: str, pos: int) -> str:
        """The text of a member whose value broke at ``buf[pos]`` that is in no call: of the arguments, what their
        reader did not pass on; of another member (markup once read whole), all of it."""
        assert self._value is not None
        if self._value_kind is _Member.ARGUMENTS:
            return self._value.take_unread()
        start = self._member_from if self._member_from is not None else pos
        self._member_from = None
        return "".join(self._member_raw) + buf[start:pos]

    def _value_complete(self) -> None:
        self._member_from = None
        kind = self._value_kind
        self._state = _AFTER_VALUE
        if kind is _Member.NAME:
            raw = "".join(self._captured)
            if self._bare_names is not None:  # announced at the next key, if it is the arguments
                written = raw[1:-1]
                if raw[:1] == '"' and "\\" not in raw and self._bare_names.is_name(written):
                    self._bare_name = written
                else:
                    self._fail(0)
                return
            name = _loads(raw)
            if not isinstance(name, str) or not name.strip():
                self._fail(0)
                return
            self._announce(name.strip())
        elif kind is _Member.ARGUMENTS:
            self._args_open = False
        elif kind is _Member.ARGUMENTS_TEXT:
            if self._announced:
                self._arguments_text("".join(self._captured), self._raw)
            else:
                self._args_emitted = True  # (decided once the name is known)
                self._args_text = "".join(self._captured)

    def _announce(self, name: str) -> None:
        self._announced = True
        self._tool = resolve_tool_name(name, self._schemas, bool(self._schemas)) or name
        if not self._sink.start_call(name):  # no tool of the request: read on to the call's end, verbatim
            self._unknown = True
            self._sink = MUTED
            self._args_early.clear()
            return
        if self._args_early:
            self._sink.call_args("".join(self._args_early))
            self._args_early.clear()
        if self._args_text is not None:
            self._arguments_text(self._args_text, self._raw)
            self._args_text = None

    def _arguments_text(self, read: str, raw: str) -> None:
        """Arguments written as something other than an object (``read``: the JSON text read, ``raw``: as written):
        see :func:`_arguments_from_value`; what is no argument is content."""
        only = self._schemas.only_parameter(self._tool) if self._tool in self._schemas else None
        schema = self._schemas.parameter(self._tool, only) if only is not None else None
        arguments, text = _arguments_from_value(_decoded(read), raw, only, schema)
        if text:
            self._sink.problem("tool call arguments are not an object; using {}, the text is content: %.200r", text)
        self._args_out(arguments)
        self._sink.content(text)

    def _object_complete(self) -> None:
        if not self._announced:
            self._fail(0)
            return
        self._finish_call()

    def _finish_call(self) -> None:
        assert self._announced
        if not self._args_emitted:
            self._sink.call_args("{}")
        self._sink.end_call()
        self._state = _DONE
        self.done = True

    def _args_out(self, text: str) -> None:
        self._args_emitted = True
        if not self._announced:
            self._args_early.append(text)
        else:
            self._sink.call_args(text)

    def _fail(self, pos: int) -> int:
        self.failed = True
        return pos


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nesting deeper than the decoder goes
        return None


_UNREADABLE: Final = object()  # JSON text that cannot be decoded (nested deeper than the decoder goes)


def _decoded(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return _UNREADABLE


def _arguments_from_value(value: Any, raw: str, only: str | None, schema: SchemaNode | None) -> tuple[str, str]:
    """Arguments given as something other than an object (``raw`` as written, ``value`` its JSON value): the
    arguments object, and the text that is content. A JSON-encoded string of an object is that object; null is no
    arguments; another value (``"hello"``, ``3``, ``[1, 2]``) is the value of the tool's parameter when it declares
    exactly one (``only``, typed by its ``schema`` when the value is a string and the schema asks for another type),
    else it is no argument and its text, as written, is content (nothing of the model's text is lost)."""
    if value is None:
        return "{}", ""
    if value is _UNREADABLE:
        only = None
    elif isinstance(value, str):
        decoded = _loads(value)
        if isinstance(decoded, dict):
            text = strict_json_dumps(decoded)
            if text is not None:
                return text, ""
    if only is not None:
        if isinstance(value, str) and schema is not None and not is_string_schema(schema):
            value = convert_value(value, schema)
        text = strict_json_dumps({only: value})
        if text is not None:
            return text, ""
    return "{}", raw
