"""An incremental reader for one JSON value that passes the value's text on as it is read.

The text handed to the sink, followed by what :meth:`JsonValueReader.close` hands it, is always valid JSON, whatever
the input and wherever it stops:

* the part of an object member or array element that could still turn out incomplete (a separator, a key, the
  colon, a number or literal) is held back until the value after it begins, and dropped if the input ends first;
* common model slips are repaired on the fly: raw control characters inside strings are escaped, an invalid escape
  becomes a literal backslash, trailing commas are dropped, Python's ``True``/``False``/``None`` become JSON literals,
  unquoted (JavaScript) object keys are quoted, a colon written inside a key's quotes (``"key:""value"``) is read as
  the member's colon, an unquoted word as a value (``a.py``, ``utf-8``) is a string;
* what strict readers (``JSON.parse``, serde_json) refuse is never passed on: a number outside the range of a double
  (``1e999``) becomes a string of its text; a surrogate without its other half (``\\uD83D`` followed by anything but a
  low surrogate escape, a lone ``\\uDE00``, a raw surrogate code point) becomes ``\\ufffd``, and a high surrogate cut
  off by the end of the output is dropped, like any unfinished escape. A high surrogate is held back until what
  follows it decides, so nothing passed on is ever taken back;
* anything else that is not JSON stops the reader with :attr:`JsonValueReader.failed` set, at the offending character,
  which is left unconsumed; the text it had read but not passed on (held back, as above) is then
  :meth:`JsonValueReader.take_unread`, verbatim, so that the caller can show it.

Work is proportional to the text given: strings are scanned with one regular-expression search per special
character, never character by character in Python.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Final

from ..cursor import Cursor
from ..identity_enum import IdentityEnum
from ..tags import NEED_MORE, NeedMore

_STRING_SPECIAL: Final = re.compile(r'["\\\x00-\x1f\ud800-\udfff]')
# Python-style single-quoted strings are read too: they end at "'", and a '"' inside them is escaped.
_SINGLE_QUOTED_SPECIAL: Final = re.compile(r'[\'"\\\x00-\x1f\ud800-\udfff]')
# Text with nothing to decide: no quote, control character or surrogate, only complete escapes of other characters.
# (Written as runs of plain characters between escapes: the regex engine reads a run as one repeat of a character
# class, where an alternation repeated per character keeps backtracking state for every character, 30x slower.)
_PLAIN_RUN: Final = r'[^"\\\x00-\x1f\ud800-\udfff]*'
_COMPLETE_ESCAPE: Final = r'\\["\\/bfnrt]|\\u(?:[0-9a-cefA-CEF][0-9a-fA-F]{3}|[dD][0-7][0-9a-fA-F]{2})'
_STRING_CONTINUATION: Final = re.compile(f"{_PLAIN_RUN}(?:(?:{_COMPLETE_ESCAPE}){_PLAIN_RUN})*")
_AFTER_QUOTE: Final = re.compile(r"[ \t\r\n]*")
_AFTER_STRING: Final = frozenset(",:}]<")
_MAX_WHITESPACE_AFTER_QUOTE: Final = 64
_NUMBER_LIKE: Final = re.compile(r"[+-]?[0-9]+\.?[0-9]*(?:[eE][+-]?[0-9]+)?")
_TOKEN_END: Final = re.compile(r'[\s,:\]}"\'\[{<]')
_QUOTES: Final = frozenset("\"'")
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_HEX4: Final = re.compile(r"[0-9a-fA-F]{4}")
_LOW_SURROGATE_ESCAPE: Final = re.compile(r"\\u[dD][c-fC-F][0-9a-fA-F]{2}")
_A_LOW_SURROGATE_ESCAPE: Final = "\\uDC00"
_REPLACEMENT_ESCAPE: Final = "\\ufffd"
_HEX_PREFIX: Final = re.compile(r"[0-9a-fA-F]{0,3}")
_SIMPLE_ESCAPES: Final = frozenset('"\\/bfnrt')
_LITERALS: Final = {"true": "true", "false": "false", "null": "null", "True": "true", "False": "false", "None": "null"}
_TOKEN_START: Final = frozenset("+-0123456789tfnTFN")
#: (a literal cut off by the end of the output is no word)
_LITERAL_PREFIXES: Final = frozenset(literal[:k] for literal in _LITERALS for k in range(1, len(literal)))
_IDENTIFIER_START: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_$")
_IDENTIFIER: Final = re.compile(r"[A-Za-z_$][\w$]*", re.ASCII)
_MAX_IDENTIFIER: Final = 256
#: an unquoted word as a value (``{"path": a.py}``), read as a string
_BARE_WORD: Final = re.compile(r"[A-Za-z_$][\w$.\-/]*", re.ASCII)
_WHITESPACE: Final = frozenset(" \t\n\r")
_CONTROL_ESCAPES: Final = {chr(c): f"\\u{c:04x}" for c in range(0x20)} | {
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
}


# Reader states.
class _State(IdentityEnum):
    """Where the reader is in the value."""

    #: a value must start here (top level, or after ':')
    VALUE = "value"
    #: after '[' or after ',' in an array
    VALUE_OR_CLOSE = "value or close"
    #: after '{' or after ',' in an object
    KEY_OR_CLOSE = "key or close"
    #: inside a string value
    STRING = "string"
    #: inside a key string
    KEY = "key"
    COLON = "colon"
    AFTER_VALUE = "after value"
    #: inside a number or literal
    TOKEN = "token"
    DONE = "done"


# (the members as module names: see IdentityEnum)
_VALUE, _VALUE_OR_CLOSE, _KEY_OR_CLOSE, _STRING, _KEY, _COLON, _AFTER_VALUE, _TOKEN, _DONE = _State


def _number_text(token: str) -> str | None:
    """The JSON text of a number token: the token itself; a number JSON does not allow but whose value is clear
    (``03``, ``1.``, ``+2``) as JSON; one outside the range of a double (``1e999``) as a string of its text. None
    when it is no number."""
    if _NUMBER.fullmatch(token):
        if len(token) < 16 and "e" not in token and "E" not in token:
            return token  # within range: no need to read it
        value = float(token)
    elif len(token) > 64 or not _NUMBER_LIKE.fullmatch(token):
        return None
    else:
        value = float(token)
        if math.isfinite(value):
            return str(int(value)) if value.is_integer() and not any(c in token for c in ".eE") else repr(value)
    return token if math.isfinite(value) else f'"{token}"'


def _unicode_escape(cur: Cursor, at: int, out: Callable[[str], None]) -> int:
    """The ``\\uXXXX`` escape at ``buf[at]``: a surrogate is passed on only with its other half."""
    buf = cur.text
    code = int(buf[at + 2 : at + 6], 16)
    after = at + 6
    if not 0xD800 <= code <= 0xDFFF:
        out(buf[at:after])
        return after
    if code >= 0xDC00:  # a low surrogate with no high one before it
        out(_REPLACEMENT_ESCAPE)
        return after
    if _LOW_SURROGATE_ESCAPE.match(buf, after):
        out(buf[at : after + 6])
        return after + 6
    rest = len(buf) - after
    if rest < 6 and _LOW_SURROGATE_ESCAPE.fullmatch(buf[after:] + _A_LOW_SURROGATE_ESCAPE[rest:]):
        return len(buf) if cur.ended else at  # what follows may still be the low half; cut off at the end: dropped
    out(_REPLACEMENT_ESCAPE)
    return after


def _raw_surrogate(cur: Cursor, at: int, out: Callable[[str], None]) -> int:
    """A surrogate code point in the text itself (not from a tokenizer's decoding, but possible in a Python str):
    a high and a low one together are the character they encode; alone, U+FFFD (a high one at the end of the output
    is dropped, as when it is escaped)."""
    buf = cur.text
    c = buf[at]
    if c < "\udc00":
        if at + 1 == len(buf):
            return len(buf) if cur.ended else at
        if "\udc00" <= buf[at + 1] <= "\udfff":
            out(buf[at : at + 2].encode("utf-16-le", "surrogatepass").decode("utf-16-le"))
            return at + 2
    out("\ufffd")
    return at + 1


def _closes_string(cur: Cursor, after: int) -> bool | NeedMore:
    """Whether the quote before ``buf[after]`` ends its string: in JSON a string is always followed by one of
    ``, : } ]`` (after optional whitespace), so a quote followed by anything else is a literal quote the model forgot
    to escape. NEED_MORE: the text ends before that is known."""
    buf = cur.text
    m = _AFTER_QUOTE.match(buf, after)
    assert m is not None
    end = m.end()
    if end == len(buf):
        return True if cur.ended or end - after > _MAX_WHITESPACE_AFTER_QUOTE else NEED_MORE
    return buf[end] in _AFTER_STRING or end - after > _MAX_WHITESPACE_AFTER_QUOTE


class JsonValueReader:
    """Reads one JSON value; see the module docstring for its guarantees."""

    __slots__ = ("_held", "_quote", "_region", "_sink", "_stack", "_state", "_token", "_unread", "done", "failed")

    def __init__(self, sink: Callable[[str], None]) -> None:
        self._sink = sink
        self._stack: list[str] = []  # closing brackets of the open containers
        self._state = _VALUE
        self._held: list[str] = []
        self._token: list[str] = []
        self._quote = '"'  # the quote that opened the current string
        # the raw text of what is held back: where it starts in the buffer being read, and its part from earlier buffers
        self._region: int | None = None
        self._unread: list[str] = []
        self.done = False
        self.failed = False

    def feed(self, cur: Cursor, pos: int) -> int:
        """Read from ``buf[pos:]``; return how far it got.

        Stops early when the value is complete (:attr:`done`), when it failed (:attr:`failed`, at the offending
        character) or, unless the input has ended, when the text ends in an unfinished escape sequence.
        """
        buf = cur.text
        if self._region is not None:
            self._region = pos  # (what came before is in _unread)
        end = self._read(cur, pos)
        if self._region is not None:
            self._unread.append(buf[self._region : end])
        return end

    def take_unread(self) -> str:
        """The text read but not passed on (held back), verbatim, once: after a failure, or after :meth:`close` (an
        unfinished member), what the caller shows as text."""
        text = "".join(self._unread)
        self._unread.clear()
        self._region = None
        return text

    def _hold_from(self, pos: int) -> None:
        """Something is held back from ``buf[pos]`` on (unless something already is)."""
        if self._region is None:
            self._region = pos

    def _read(self, cur: Cursor, pos: int) -> int:
        buf = cur.text
        n = len(buf)
        sink = self._sink
        while pos < n:
            state = self._state
            if state in (_STRING, _KEY):
                out = sink if state is _STRING else self._held.append
                quote = self._quote
                m = (_STRING_SPECIAL if quote == '"' else _SINGLE_QUOTED_SPECIAL).search(buf, pos)
                if m is None:
                    out(buf[pos:])
                    return n
                end = m.start()
                if end > pos:
                    out(buf[pos:end])
                c = buf[end]
                if c == quote:
                    # (a key's quote always closes it: a key holding a quote is rarer than a broken member)
                    closes = True if state is _KEY else _closes_string(cur, end + 1)
                    if closes is NEED_MORE:
                        return end  # wait for the character after the quote
                    if not closes:  # an unescaped quote inside the string (code often has them)
                        out('\\"')
                        pos = end + 1
                        continue
                    out('"')
                    pos = end + 1
                    if state is _KEY:
                        self._state = _COLON
                    else:
                        self._value_complete()
                        if self.done:
                            return pos
                elif c == "\\":
                    pos = self._escape(cur, end, out)
                    if pos == end:
                        return pos
                elif c == '"':  # inside a single-quoted string
                    out('\\"')
                    pos = end + 1
                elif c >= "\ud800":
                    pos = _raw_surrogate(cur, end, out)
                    if pos == end:
                        return pos
                else:
                    out(_CONTROL_ESCAPES[c])
                    pos = end + 1
                continue

            c = buf[pos]
            if state is _TOKEN:
                m = _TOKEN_END.search(buf, pos)
                if m is None:
                    self._token.append(buf[pos:])
                    pos = n
                    if cur.ended:
                        self._token_complete()
                    return pos
                self._token.append(buf[pos : m.start()])
                pos = m.start()
                if not self._token_complete():
                    return pos
                if self.done:
                    return pos
            elif c in _WHITESPACE:
                if self._stack:
                    self._hold_from(pos)
                    self._held.append(c)
                pos += 1
            elif state is _AFTER_VALUE:
                if c == ",":
                    self._hold_from(pos)
                    self._held.append(c)
                    self._state = _KEY_OR_CLOSE if self._stack[-1] == "}" else _VALUE_OR_CLOSE
                    pos += 1
                elif c == self._stack[-1]:
                    pos = self._close_container(pos)
                    if self.done:
                        return pos
                else:
                    return self._fail(pos)
            elif state is _KEY_OR_CLOSE:
                if c in _QUOTES:
                    self._hold_from(pos)
                    self._held.append('"')
                    self._quote = c
                    self._state = _KEY
                    pos += 1
                elif c == "}":
                    pos = self._close_container(pos)
                    if self.done:
                        return pos
                elif c in _IDENTIFIER_START:  # a JavaScript object literal's unquoted key
                    m = _IDENTIFIER.match(buf, pos, pos + _MAX_IDENTIFIER + 1)
                    assert m is not None
                    end = m.end()
                    if end - pos > _MAX_IDENTIFIER:
                        return self._fail(pos)
                    if end == n and not cur.ended:
                        return pos  # the key may go on
                    self._hold_from(pos)
                    self._held.append(f'"{m.group()}"')
                    self._state = _COLON
                    pos = end
                else:
                    return self._fail(pos)
            elif state is _COLON:
                if c != ":":
                    if c in _QUOTES and self._colon_in_key():
                        continue  # ``"key:"`` then the value's quote: the colon was written inside the key
                    return self._fail(pos)
                self._held.append(c)
                self._state = _VALUE
                pos += 1
            else:  # _VALUE or _VALUE_OR_CLOSE
                if c in _QUOTES:
                    self._release()
                    sink('"')
                    self._quote = c
                    self._state = _STRING
                    pos += 1
                elif c == "{" or c == "[":
                    self._release()
                    sink(c)
                    self._stack.append("}" if c == "{" else "]")
                    self._state = _KEY_OR_CLOSE if c == "{" else _VALUE_OR_CLOSE
                    pos += 1
                elif c == "]" and state is _VALUE_OR_CLOSE:
                    pos = self._close_container(pos)
                    if self.done:
                        return pos
                elif c in _TOKEN_START or c in _IDENTIFIER_START:
                    self._hold_from(pos)
                    self._state = _TOKEN
                else:
                    return self._fail(pos)
        if cur.ended and self._state is _TOKEN:
            self._token_complete()
        return pos

    def continues_string(self, text: str) -> bool:
        """Whether ``text`` only continues an open double-quoted string, with nothing to decide (no closing quote,
        control character or unfinished escape), so that it is already its own JSON text. The fast path of a long
        string: the caller passes it on itself; the reader's state does not change."""
        return self._state is _STRING and self._quote == '"' and _STRING_CONTINUATION.fullmatch(text) is not None

    def close(self) -> None:
        """The input ended: hand the sink whatever makes its text a complete JSON value.

        Incomplete members are dropped (their text is :meth:`take_unread`); an open string is closed. A reader that
        never started hands nothing.
        """
        if self.done:
            return
        if self._state is _STRING:
            self._sink('"')
        elif self._state is _TOKEN and not self.failed:
            self._token_complete()
        self._held.clear()
        while self._stack:
            self._sink(self._stack.pop())
        self._state = _DONE
        self.done = True

    def _escape(self, cur: Cursor, at: int, out: Callable[[str], None]) -> int:
        """Handle the backslash at ``buf[at]``; return the next position, or ``at`` to wait for more text."""
        buf = cur.text
        n = len(buf)
        if at + 1 >= n:
            return n if cur.ended else at  # a lone backslash at the very end of the output is dropped
        e = buf[at + 1]
        if e == "'":  # not a JSON escape, but what the model meant is clear
            out("'")
            return at + 2
        if e in _SIMPLE_ESCAPES:
            out(buf[at : at + 2])
            return at + 2
        if e == "u":
            if _HEX4.match(buf, at + 2):
                return _unicode_escape(cur, at, out)
            prefix = _HEX_PREFIX.match(buf, at + 2)
            if prefix is not None and prefix.end() == n:
                return n if cur.ended else at  # cut off inside the escape: dropped at the end of the output
        out("\\\\")  # not a JSON escape: keep the backslash as a character
        return at + 1

    def _colon_in_key(self) -> bool:
        """Whether the key just read ends in a colon (``"key:"``); if so the colon is taken out of it and read as the
        member's colon."""
        held = self._held
        if len(held) < 3 or held[-1] != '"' or not held[-2].endswith(":") or held[-2] == '"':
            return False
        held[-2] = held[-2][:-1]
        held.append(":")
        self._state = _VALUE
        return True

    def _release(self) -> None:
        self._region = None
        self._unread.clear()
        if self._held:
            self._sink("".join(self._held))
            self._held.clear()

    def _value_complete(self) -> None:
        if self._stack:
            self._state = _AFTER_VALUE
        else:
            self._state = _DONE
            self.done = True

    def _token_complete(self) -> bool:
        token = "".join(self._token)
        self._token.clear()
        text = _LITERALS.get(token)
        if text is None:
            text = _number_text(token)
        if text is None and _BARE_WORD.fullmatch(token) and token not in _LITERAL_PREFIXES:
            text = f'"{token}"'
        if text is None:
            self.failed = True
            self._state = _DONE
            return False
        self._release()
        self._sink(text)
        self._value_complete()
        return True

    def _close_container(self, pos: int) -> int:
        self._region = None
        self._unread.clear()
        self._held.clear()  # whitespace and a trailing comma before the bracket
        self._sink(self._stack.pop())
        self._value_complete()
        return pos + 1

    def _fail(self, pos: int) -> int:
        self.failed = True
        return pos
