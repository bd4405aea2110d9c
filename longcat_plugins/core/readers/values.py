"""Readers of one parameter value written as plain text: between tags (a markup's ``<parameter=P>``, a key/value
dialect's value tag) or on ``KEY: value`` lines; and the rule that decides whether a closing tag met inside a
value ends it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Final

from .. import dialects as D
from .. import tags as T
from ..cursor import Cursor
from ..whitespace import whitespace_end

_NEEDS_ESCAPE: Final = re.compile(r'["\\\x00-\x1f\ud800-\udfff]')
_SURROGATE: Final = re.compile(r"[\ud800-\udfff]")
_MAX_CLOSER_RUN: Final = 512  # how much of a run of closing tags inside a value is held back while undecided
_LINE_BREAK_OR_TAG: Final = re.compile("[\n<]")
_SPACES: Final = re.compile("[ \t\r]*")
#: ``json.dumps(value, ensure_ascii=False)``, without building an encoder per call
dumps: Final = json.JSONEncoder(ensure_ascii=False).encode
#: the markup of a key/value body (what ends a ``KEY: value`` line's value)
KV_BODY_TAGS: Final = T.TagSet(*D.PAIR_KEY_OPENS, *D.BLOCK_CLOSES, *D.BLOCK_OPENS, *D.CALL_OPENS, *D.END_OF_SEQUENCE)


class Closers:
    """The closing tags that may stand inside a markup call's value, and what decides whether one ends it.

    The value's own closing tag (``</parameter>``, ``</longcat_arg_value>``) is value text when other text follows
    it on its line (``echo "</parameter> done"``): see :meth:`own_ends_value`. In a markup with a call closer, that
    closer and every block's closing tag may stand inside a value too (a model writing an XML file writes
    ``</function>`` in one): such a tag ends the value and its call only where what follows decides so
    (:meth:`run_ends_call`)."""

    __slots__ = ("_after", "_after_own", "held_back", "value_close")

    def __init__(self, value_close: str, call_close: str | None, markup_tags: tuple[str, ...]) -> None:
        """``call_close``: the closer of a call written in this markup (None: a block's closing tag ends a value at
        once); ``markup_tags``: the tags that may follow a value's closing tag on its line (the markup's)."""
        self.value_close: Final = value_close
        self.held_back: Final = frozenset((call_close, *D.BLOCK_CLOSES)) if call_close else frozenset[str]()
        self._after = T.TagSet(value_close, *self.held_back, *D.BLOCK_OPENS, *D.CALL_OPENS, *D.END_OF_SEQUENCE)
        self._after_own = T.TagSet(value_close, *markup_tags)

    def ends_value(self, cur: Cursor, start: int, tag: str) -> bool | T.NeedMore:
        """Whether ``tag``, a closer met at ``start`` inside an open value, ends it; NEED_MORE: not known yet."""
        return self.own_ends_value(cur, start) if tag == self.value_close else self.run_ends_call(cur, start)

    def own_ends_value(self, cur: Cursor, start: int) -> bool | T.NeedMore:
        """Whether the value's own closing tag at ``start`` ends the value: yes when (after spaces) a line break,
        a tag of the markup or the end of the output follows it; other text on its line makes it value text. Spaces
        longer than ``_MAX_CLOSER_RUN`` end the value (the bound on what is held back)."""
        buf = cur.text
        after = start + len(self.value_close)
        m = _SPACES.match(buf, after, after + _MAX_CLOSER_RUN + 1)
        assert m is not None
        pos = m.end()
        if pos - after > _MAX_CLOSER_RUN:
            return True
        if pos == len(buf):
            return True if cur.ended else T.NEED_MORE
        c = buf[pos]
        if c == "\n":
            return True
        if c != "<":
            return False
        tag = self._after_own.match(cur, pos)
        return tag if tag is T.NEED_MORE else tag is not None

    def run_ends_call(self, cur: Cursor, start: int) -> bool | T.NeedMore:
        """Whether the closing tag at ``start``, met inside an open value, ends the value and its call;
        NEED_MORE: not known yet.

        The closers and whitespace that follow it form one run; what comes after the run decides. The value's own
        closing tag means the run was value text; so does other text on the run's last line, or after a run that
        closes no block. The end of the output, an opening tag, an end marker, or text on a new line after a block's
        closer mean it closed the call. A run longer than ``_MAX_CLOSER_RUN`` closes the call (the bound on what is
        held back).
        """
        buf = cur.text
        limit = start + _MAX_CLOSER_RUN
        pos = start
        block_closed = False
        after_closer = self._after
        while True:
            tag = after_closer.match(cur, pos)
            if tag is T.NEED_MORE:
                return tag
            if tag not in self.held_back:  # (never so at ``start``)
                return tag != self.value_close
            assert isinstance(tag, str)
            block_closed = block_closed or tag in D.BLOCK_CLOSES
            after = pos + len(tag)
            pos = whitespace_end(buf, after)
            if pos > limit:
                return True
            if pos == len(buf):
                return True if cur.ended else T.NEED_MORE
            if buf[pos] != "<" or after_closer.match(cur, pos) is None:
                return block_closed and "\n" in buf[after:pos]


def json_escape(text: str) -> str:
    """``text`` as the inside of a JSON string."""
    if _NEEDS_ESCAPE.search(text) is None:
        return text
    # a surrogate code point cannot be written as UTF-8: each one (the engines' text never holds one) is U+FFFD,
    # the same whatever the split
    return dumps(_SURROGATE.sub("\ufffd", text))[1:-1]


class PlainValue:
    """Reads one plain-text value up to (not including) the first of its terminator tags.

    A terminator among ``closers`` (the value's own closing tag, and the closers that may stand inside a value) ends
    the value only where what follows it decides so (see :class:`Closers`); elsewhere it is text of the value. Only
    that undecided tail is held back.
    """

    __slots__ = ("_closers", "_decided", "_out", "_started", "_strip_newlines", "_terminators", "done", "terminator")

    def __init__(
        self,
        terminators: T.TagSet,
        strip_newlines: bool,
        out: Callable[[str], None],
        closers: Closers | None = None,
    ) -> None:
        self._terminators = terminators
        self._closers = closers
        self._decided = closers.held_back | {closers.value_close} if closers is not None else frozenset[str]()
        self._strip_newlines = strip_newlines
        self._out = out
        self._started = not strip_newlines
        self.done = False
        self.terminator: str | None = None

    def feed(self, cur: Cursor, pos: int) -> int:
        buf = cur.text
        n = len(buf)
        if not self._started:
            if pos >= n:
                return pos
            if buf[pos] == "\n":
                pos += 1
            self._started = True
        out = self._out
        start = pos  # (the value's text from here is passed on in one piece, at a stop or at the end of the text)
        while pos < n:
            i = buf.find("<", pos)
            if i < 0:
                end = n
                if not cur.ended and self._strip_newlines and buf[n - 1] == "\n":
                    end -= 1  # may be the newline before the closing tag
                if end > start:
                    out(buf[start:end])
                return end
            # at the end of the output, a cut-off closing tag still ends the value (it is not value text)
            tag = self._terminators.match_cut(buf, i)
            if isinstance(tag, str) and tag in self._decided:
                assert self._closers is not None
                verdict = self._closers.ends_value(cur, i, tag)
                if verdict is not True:
                    tag = verdict if verdict is T.NEED_MORE else None
            if tag is None:
                pos = i + 1
                continue
            end = i
            if self._strip_newlines and end > start and buf[end - 1] == "\n":
                end -= 1
            if end > start:
                out(buf[start:end])
            if tag is T.NEED_MORE and not cur.ended:
                return end
            self.terminator = tag if isinstance(tag, str) else None
            self.done = True
            return i
        if pos > start:
            out(buf[start:pos])
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


def line_key(cur: Cursor, pos: int, accept: Callable[[str], bool]) -> tuple[str, int] | T.NeedMore | None:
    """The key of a ``KEY: value`` line starting at ``pos`` and where its value starts, None when there is none
    (or ``accept`` refuses the key), NEED_MORE when the buffer ends before that is known."""
    buf = cur.text
    m = _LINE_KEY.match(buf, pos, pos + _LINE_KEY_BOUND)
    if m is None:
        return None if cur.ended or len(buf) - pos >= _LINE_KEY_BOUND or buf[pos:].strip(" \t") else T.NEED_MORE
    if m.group(2) is None:
        if m.end() == len(buf) and not cur.ended and m.end() - pos < _LINE_KEY_BOUND:
            return T.NEED_MORE
        return None
    if not accept(m.group(1)):
        return None
    end = m.end()
    while end < len(buf) and buf[end] in " \t":
        end += 1
    if end == len(buf) and not cur.ended:
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

    def feed(self, cur: Cursor, pos: int) -> int:
        buf = cur.text
        n = len(buf)
        out = self._out
        while pos < n:
            m = _LINE_BREAK_OR_TAG.search(buf, pos)
            if m is None:
                out(buf[pos:])
                return n
            i = m.start()
            if buf[i] == "<":
                tag = KV_BODY_TAGS.match(cur, i)
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
                if not cur.ended:
                    return i
                self.done = True
                return i
            if buf[j] == "<":
                tag = KV_BODY_TAGS.match(cur, j)
                if tag is T.NEED_MORE:
                    return i
                if tag is not None:
                    self.done = True
                    return i
            key = line_key(cur, i + 1, self._accept)
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
