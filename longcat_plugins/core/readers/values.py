"""Readers of one parameter value written as plain text: between tags (a markup's ``<parameter=P>``, a key/value
dialect's value tag) or on ``KEY: value`` lines; and the rule that decides whether a closing tag met inside a
value ends it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Container
from typing import Final

from .. import dialects as D
from .. import tags as T
from ..cursor import Cursor
from ..tag_starts import ONLY_LT, TAG_STARTS, find_tag_start
from ..whitespace import whitespace_end

_NEEDS_ESCAPE: Final = re.compile(r'["\\\x00-\x1f\ud800-\udfff]')
_SURROGATE: Final = re.compile(r"[\ud800-\udfff]")
_MAX_CLOSER_RUN: Final = 512  # how much of a run of closing tags inside a value is held back while undecided
_LINE_BREAK_OR_TAG: Final = re.compile("[\n" + "".join(map(re.escape, sorted(TAG_STARTS))) + "]")
_SPACES: Final = re.compile("[ \t\r]*")
#: ``json.dumps(value, ensure_ascii=False)``, without building an encoder per call
dumps: Final = json.JSONEncoder(ensure_ascii=False).encode
#: the markup of a key/value body (what ends a ``KEY: value`` line's value)
KV_BODY_TAGS: Final = T.TagSet(*D.PAIR_KEY_OPENS, *D.BLOCK_CLOSES, *D.BLOCK_OPENS, *D.CALL_OPENS, *D.END_OF_SEQUENCE)


class Closers:
    """The tags that may stand inside a markup call's value though they end one elsewhere, and what decides whether
    one met inside a value ends it.

    * The value's own closing tag (``</parameter>``, ``</longcat_arg_value>``) ends the value when (after spaces) a
      line break, a tag of the markup or the end of the output follows it. When other text follows it on its line,
      the next tag that decides says which it is (:meth:`own_ends_value`): text of the value
      (``echo "</parameter> done"`` then the value's own closer), or the value's closer followed by stray text
      (``true</longcat_arg_value> "quoted"<longcat_arg_key>``: a tag that ends a value without its closer).
    * In a markup with a call closer, that closer and every block's closing tag may stand inside a value too (a model
      writing an XML file writes ``</function>`` in one): such a tag ends the value and its call only where what
      follows decides so (:meth:`run_ends_call`).
    * A parameter's header (``<parameter=P>``) inside a value is value text when it names a parameter the call
      already has (the value's own included): a repeat cannot be a parameter of the call (:meth:`header_ends_value`).
      Any other header ends the value (its closer was left out).
    * A value whose schema admits only numbers, booleans or null holds no markup: each of these tags ends it where it
      stands (reading it as text would break the schema)."""

    __slots__ = (
        "_after", "_after_own", "_header", "_opens", "_reading_on", "decided", "held_back", "param_open", "value_close",
    )  # fmt: skip

    def __init__(
        self,
        value_close: str,
        call_close: str | None,
        markup_tags: tuple[str, ...],
        value_ends: tuple[str, ...],
        param_open: str | None = None,
        header: Callable[[Cursor, int], tuple[str | None, int] | T.NeedMore] | None = None,
    ) -> None:
        """``call_close``: the closer of a call written in this markup (None: a block's closing tag ends a value at
        once); ``markup_tags``: the tags that may follow a value's closing tag on its line (the markup's);
        ``value_ends``: every tag that ends a value where it is not value text (these closers among them);
        ``param_open`` and ``header``: the markup's parameter header and the reader of the name that follows it
        (``header(cur, at)``: the name and where the header ends, (None, 0) when there is no header, or NEED_MORE)."""
        self.value_close: Final = value_close
        self.held_back: Final = frozenset((call_close, *D.BLOCK_CLOSES)) if call_close else frozenset[str]()
        self.param_open: Final = param_open if header is not None else None
        #: the tags met in a value that are decided here
        self.decided: Final = self.held_back | {value_close} | ({param_open} if self.param_open else set())
        self._header = header
        self._after = T.TagSet(value_close, *self.held_back, *D.BLOCK_OPENS, *D.CALL_OPENS, *D.END_OF_SEQUENCE)
        self._after_own = T.TagSet(value_close, *markup_tags)
        #: what decides a value's own closing tag followed by text on its line: what ends a value, and (where a
        #: call's closing tag may stand inside a value) the opening tags of calls and blocks
        self._opens = frozenset((*D.BLOCK_OPENS, *D.CALL_OPENS)) if self.held_back else frozenset[str]()
        self._reading_on = T.TagSet(*value_ends, *self._opens)

    def ends_value(
        self, cur: Cursor, start: int, tag: str, given: Container[str], scalar: bool = False
    ) -> bool | T.NeedMore:
        """Whether ``tag``, one of :attr:`decided` met at ``start`` inside an open value, ends it; NEED_MORE: not
        known yet. ``given``: the names of the call's parameters so far; ``scalar``: the value's schema admits only
        numbers, booleans or null."""
        if scalar:
            return True
        if tag == self.value_close:
            return self.own_ends_value(cur, start, given)
        if tag == self.param_open:
            return self.header_ends_value(cur, start, given)
        return self.run_ends_call(cur, start)

    def own_ends_value(self, cur: Cursor, start: int, given: Container[str] = ()) -> bool | T.NeedMore:
        """Whether the value's own closing tag at ``start`` ends the value; NEED_MORE: not known yet.

        Yes when (after spaces) a line break, a tag of the markup or the end of the output follows it (spaces longer
        than ``_MAX_CLOSER_RUN`` too: the bound on what is held back). When other text follows it on its line, the
        value is read on as if the tag were text (:meth:`_closed_before`): the tag was value text if the value's
        own closing tag comes first; it closed the value, and the text after it is stray text, if a tag that ends a
        value without its closer comes first.
        """
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
        if c in TAG_STARTS:
            tag = self._after_own.match(cur, pos)
            if tag is not None:
                return tag if tag is T.NEED_MORE else True
        return self._closed_before(cur, pos, given)

    def _closed_before(self, cur: Cursor, pos: int, given: Container[str]) -> bool | T.NeedMore:
        """Whether the value, read on from ``pos`` (text after its own closing tag, on its line), ends otherwise than
        at its own closing tag; NEED_MORE: not known yet. What comes first within ``_MAX_CLOSER_RUN`` characters
        decides:

        * the value's own closing tag: no (the tag before was value text);
        * a tag that ends the value without its closer (a next key, a block's closing tag in key/value, the header of
          a parameter the call does not have yet, a call's or block's closing tag that ends the call where it
          stands), or the end of the output: yes (the tag before closed the value);
        * a call's or block's closing tag that is value text where it stands (text follows it on its line) decides
          nothing, but once one was passed (in the body, it would have closed the call), an opening tag of a call or
          block means yes, and so does reaching the bound; else the bound means no.
        """
        buf = cur.text
        limit = pos + _MAX_CLOSER_RUN
        reading = self._reading_on
        passed = False
        while True:
            i = buf.find("<", pos, limit) if ONLY_LT else find_tag_start(buf, pos, limit)
            if i < 0:
                if len(buf) >= limit:
                    return passed
                return True if cur.ended else T.NEED_MORE
            tag = reading.match(cur, i)
            if tag is T.NEED_MORE:
                return tag
            pos = i + 1
            if tag is None:
                continue
            if tag == self.value_close:
                return False
            assert isinstance(tag, str)
            if tag in self._opens:
                if passed:
                    return True
                continue
            verdict = self.ends_value(cur, i, tag, given) if tag in self.decided else True
            if verdict is not False:
                return verdict
            passed = passed or tag in self.held_back

    def header_ends_value(self, cur: Cursor, start: int, given: Container[str]) -> bool | T.NeedMore:
        """Whether the parameter header at ``start`` ends the open value: not when it names a parameter in
        ``given``; NEED_MORE: its name is not known yet."""
        assert self._header is not None and self.param_open is not None
        header = self._header(cur, start + len(self.param_open))
        if header is T.NEED_MORE:
            return header
        assert isinstance(header, tuple)
        name = header[0]
        return name is None or name.strip() not in given

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
            if buf[pos] not in TAG_STARTS or after_closer.match(cur, pos) is None:
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

    A terminator among ``closers.decided`` (the value's own closing tag, the closers that may stand inside a value, a
    parameter's header) ends the value only where what follows it decides so (see :class:`Closers`; ``given``: the
    call's parameters so far, ``scalar``: the value's schema admits only numbers, booleans or null); elsewhere it is
    text of the value. Only that undecided tail is held back.
    """

    __slots__ = (
        "_closers", "_decided", "_given", "_out", "_scalar", "_started", "_strip_newlines", "_terminators", "done",
        "terminator",
    )  # fmt: skip

    def __init__(
        self,
        terminators: T.TagSet,
        strip_newlines: bool,
        out: Callable[[str], None],
        closers: Closers | None = None,
        given: Container[str] = (),
        scalar: bool = False,
    ) -> None:
        self._terminators = terminators
        self._closers = closers
        self._decided = closers.decided if closers is not None else frozenset[str]()
        self._given = given
        self._scalar = scalar
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
            i = buf.find("<", pos) if ONLY_LT else find_tag_start(buf, pos)
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
                verdict = self._closers.ends_value(cur, i, tag, self._given, self._scalar)
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
        """Whether ``text`` only continues the value, with nothing to decide (no tag start, no possible trailing
        newline). The fast path of a long value: the caller passes it on itself."""
        if not (("<" not in text) if ONLY_LT else find_tag_start(text, 0) < 0):
            return False
        return self._started and not (self._strip_newlines and text[-1] == "\n")


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
            if buf[i] in TAG_STARTS:
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
            if buf[j] in TAG_STARTS:
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
        return (("<" not in text) if ONLY_LT else find_tag_start(text, 0) < 0) and "\n" not in text
