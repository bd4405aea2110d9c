"""Well-formed model outputs in every dialect, with the result each must parse to.

An output is built as a list of parts with a role (reasoning, prose, a call block, stray text inside a block...), so
that the expected content and reasoning follow from the roles under any parser options. Shapes whose reading the
design leaves open (a ``functions.`` prefix, a call with no opening tag, a name before the tag...) are generated
too, but only the invariants are checked on them, not a result.
"""

from __future__ import annotations

import json
import random
from typing import Any, Final

from longcat_plugins.core import dialects as D
from longcat_plugins.core import tags as T
from longcat_plugins.core.readers.kv_call import pair_tables
from longcat_plugins.core.readers.quoted_call import quoted_value_ends
from longcat_plugins.core.readers.xml_call import markup_tables
from tests.grammar_cases import compact, written

from .cases import Case, ExpectedCall, Segment, expected_of
from .schemas import Param, Tool, json_arguments, make_tool, render_plain, value_for
from .texts import NO_ENDS, WORDS, Sentinels, ValueEnds, identifier, prose, string_value


def value_ends(dialect: D.Dialect) -> ValueEnds:
    """What ends a value of ``dialect``'s body, as its reader has it (the tags that end a value, and the value's own
    closing tag, which ends it only where what follows on its line says so): a generated value holds none of it."""
    if dialect.markup is not None:
        tables = markup_tables(dialect.markup)
        return ValueEnds(tables.value_end.tags, tables.closers.value_close)
    if dialect.pairs is not None:
        pairs = pair_tables(dialect)
        return ValueEnds(pairs.value_end.tags, pairs.closers.value_close)
    if dialect.quoted is not None:
        return ValueEnds(quoted_value_ends(dialect.quoted))
    return NO_ENDS


WS = " \t\r\n"
_CUT_AFTER_BLOCK = T.TagSet(*D.BLOCK_CLOSES, *D.END_OF_SEQUENCE)

#: every dialect the parser reads, by its body: each shape of a body (below) is drawn in each dialect of it, with the
#: dialect's own tags and block (``dialect.NAME`` among a case's features)
MARKUP_DIALECTS = tuple({d.markup: d for d in D.READ_DIALECTS.values() if d.markup is not None}.values())
PAIR_DIALECTS = tuple(D.PAIR_DIALECTS.values())
SEPARATED_DIALECTS = tuple(d for d in D.READ_DIALECTS.values() if d.separated is not None)
JSON_DIALECTS = tuple(d for d in D.READ_DIALECTS.values() if d.body == "json" and d.separated is None)
QUOTED_DIALECTS = tuple(d for d in D.READ_DIALECTS.values() if d.quoted is not None)
#: the block a markup call is also drawn in, whatever its own (a markup call is read in any block)
_LONGCAT = D.DIALECTS["kv"].block

#: one call of each dialect the parser reads, as the declaration writes it (``registered.NAME``; a key/value one
#: also with no line breaks)
REGISTERED_BLOCKS = tuple(f"registered.{name}" for name in D.READ_DIALECTS)
#: block shapes whose result is checked
ROUND_TRIP_BLOCKS = ("json.block", "xml.wrapped", "xml.bare", "xml.longcat", "kv.tag-line", "kv.own-line",
                     "kv.no-closer", "sep.section", *REGISTERED_BLOCKS,
                     *(("quoted.call",) if QUOTED_DIALECTS else ()))  # fmt: skip
#: shapes read by rules still being settled: invariants only
OPEN_BLOCKS = ("kv.prefix", "kv.no-opener", "kv.name-before-tag", "kv.json-body", "kv.ts-call", "kv.one-key-json",
               "kv.colon-lines", "kv.key-at-end", "xml.orphan-close", "xml.value-function-close",
               "xml.prose-mention", "json.call-list", "json.untagged")  # fmt: skip


def dialect_for(shape: str, rng: random.Random) -> D.Dialect | None:
    """The dialect a block of ``shape`` is drawn in (None: a shape of no dialect, a call list or an untagged call)."""
    if shape.startswith("registered."):
        return D.READ_DIALECTS[shape.removeprefix("registered.")]
    if shape in ("json.call-list", "json.untagged"):
        return None
    among = {"json": JSON_DIALECTS, "xml": MARKUP_DIALECTS, "kv": PAIR_DIALECTS, "sep": SEPARATED_DIALECTS,
             "quoted": QUOTED_DIALECTS}  # fmt: skip
    return rng.choice(among[shape.partition(".")[0]])


class Output:
    """An output under construction: segments of (role, text) parts, and the calls they hold."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.sentinel = Sentinels(rng)
        self.parts: list[tuple[str, str]] = []
        self.calls: list[ExpectedCall] = []
        self.segments: list[Segment] = []
        self.features: list[str] = []
        self.checked = True  # whether the result is known
        self.cut = False  # the output stops here: nothing may follow
        self._kind = ""
        self._start = (0, 0)

    def mark(self, kind: str) -> None:
        """Start a new segment (closing the current one)."""
        self._close()
        self._kind = kind
        self._start = (len(self.parts), len(self.calls))

    def _close(self) -> None:
        p, c = self._start
        if len(self.parts) > p:
            self.segments.append(Segment(self._kind, tuple(self.parts[p:]), tuple(self.calls[c:])))
        self._start = (len(self.parts), len(self.calls))

    def add(self, role: str, text: str) -> None:
        if text:
            self.parts.append((role, text))

    def finish(self) -> tuple[Segment, ...]:
        self._close()
        return tuple(self.segments)


# -- call bodies -----------------------------------------------------------------------------------------------------


def _call_args(out: Output, tool: Tool | None, typed: bool, ends: ValueEnds) -> list[tuple[str, str, Any]]:
    """(key, text, expected value) for the parameters of one markup-dialect call."""
    rng = out.rng
    params = list(tool.params) if tool else []
    rng.shuffle(params)
    params = params[: rng.randrange(len(params) + 1)] if rng.random() < 0.5 else params
    if rng.random() < 0.15 or not tool:
        params.append(Param(identifier(rng, 8) if rng.random() < 0.8 else out.sentinel(), {}, "string"))
    seen: set[str] = set()
    result = []
    for p in params:
        if p.name in seen:
            continue
        seen.add(p.name)
        value = value_for(rng, p, out.sentinel, ends)
        text = render_plain(rng, p, value)
        if p.kind in OUT_OF_RANGE and rng.random() < 0.04:
            text = rng.choice(OUT_OF_RANGE[p.kind])  # what it becomes is open; it must be strict JSON
            out.features.append("value.out-of-range")
            out.checked = False
        result.append((p.name, text, value if typed else text))
    return result


HUGE_INT = "1" + "0" * 400
#: numbers beyond any double, as the text of a parameter of each type
OUT_OF_RANGE = {
    "integer": (HUGE_INT, "-" + HUGE_INT, "1e999"),
    "number": ("1e999", "-1e400", HUGE_INT),
    "array": ("[1e999]", f"[{HUGE_INT}]", "[1, -1e400]"),
    "object": ('{"k": 1e999}', f'{{"k": {HUGE_INT}}}'),
}


def _stray(out: Output, dialect: str, after_value: bool = False, on_its_line: bool = True) -> str:
    """Text inside a block between calls or parameters: leading whitespace and text, nothing that starts markup.
    ``after_value``: right after a value's closing tag, on its line too unless ``on_its_line`` is false (there the
    tag that follows it decides whether the closing tag closed the value)."""
    rng = out.rng
    out.features.append(f"{dialect}.stray")
    words = [rng.choice((*WORDS, out.sentinel())) for _ in range(rng.randint(1, 4))]
    if rng.random() < 0.3:
        words.insert(rng.randrange(len(words) + 1), rng.choice(("<b>note</b>", "a < b", "<3")))
        out.features.append(f"{dialect}.stray-lt")
    if after_value:
        lead = rng.choice(("\n", "\n\n", " \n", "", " ", "\t") if on_its_line else ("\n", "\n\n", " \n"))
    else:
        lead = rng.choice((" ", "\n", "", "\n\n"))
    return lead + " ".join(words)


def _sep(rng: random.Random) -> str:
    return rng.choice(("\n", "\n", "", " ", "\n\n"))


def _xml_function(
    out: Output, dialect: D.Dialect, tool: Tool | None, name: str, typed: bool, shape: str
) -> list[tuple[str, str]]:
    """The parts of one markup call in ``dialect``'s tags (without a wrapper)."""
    rng = out.rng
    markup = dialect.markup
    assert markup is not None
    compact = rng.random() < 0.3
    parts: list[tuple[str, str]] = [("block", f"{markup.call_open}{name}{markup.name_end}" + _sep(rng))]
    args: dict[str, Any] = {}
    params = _call_args(out, tool, typed, value_ends(dialect))
    for i, (key, text, value) in enumerate(params):
        if compact and (text.startswith("\n") or text.endswith("\n")):
            text = text.strip("\n") or "x"
            value = text if isinstance(value, str) else value
        if shape == "xml.value-function-close" and i == 0:
            text += f"\n{markup.call_close}\nmore"
        body = text if compact else f"\n{text}\n"
        # (a value holding its own closing tag keeps its closer: where it is left out, the tag inside may close it)
        close = markup.param_close if rng.random() < 0.9 or i == len(params) - 1 or markup.param_close in text else ""
        if not close:
            out.features.append("xml.no-param-close")
        # (with no closing tag, whitespace before the next tag would be part of the value)
        parts.append(
            (f"param:{key}", f"{markup.param_open}{key}{markup.name_end}{body}{close}" + (_sep(rng) if close else ""))
        )
        args[key] = value
        if rng.random() < 0.1 and close:
            parts[-1] = (parts[-1][0], parts[-1][1].rstrip(WS))  # the stray text brings its own whitespace
            parts.append(("stray", _stray(out, "xml", after_value=True)))
            parts.append(("block", _sep(rng)))
    if rng.random() < 0.93 or shape not in ("xml.wrapped", "xml.longcat"):
        parts.append(("block", markup.call_close))
    else:
        out.features.append("xml.no-function-close")
    out.calls.append(ExpectedCall(name, args))
    return parts


def _kv_call(
    out: Output, dialect: D.Dialect, tool: Tool | None, name: str, typed: bool, shape: str
) -> list[tuple[str, str]]:
    """The parts of one key/value call in ``dialect``'s tags and block."""
    rng = out.rng
    pairs, block = dialect.pairs, dialect.block
    assert pairs is not None
    head = {"kv.own-line": f"\n{name}\n", "kv.prefix": f"functions.{name}\n"}.get(shape, name + _sep(rng))
    parts: list[tuple[str, str]] = [("block", block.open + head)]
    args: dict[str, Any] = {}
    params = _call_args(out, tool, typed, value_ends(dialect))
    if not params and shape == "kv.no-closer":  # a name alone, cut off, is not a call
        params = [("note", "x", "x")]
    for i, (key, text, value) in enumerate(params):
        pair = f"{pairs.key_open}{key}{pairs.key_close}{_sep(rng)}{pairs.value_open}{text}{pairs.value_close}"
        parts.append((f"param:{key}", pair + _sep(rng)))
        args[key] = value
        if rng.random() < 0.1:
            parts[-1] = (parts[-1][0], parts[-1][1].rstrip(WS))
            # (after the last value of a block that never closes, what follows the block would decide)
            on_its_line = shape != "kv.no-closer" or i < len(params) - 1
            parts.append(("stray", _stray(out, "kv", after_value=True, on_its_line=on_its_line)))
            parts.append(("block", _sep(rng)))
    if shape != "kv.no-closer":
        parts.append(("block", block.close))
    out.calls.append(ExpectedCall(name, args))
    return parts


def _sep_section(out: Output, dialect: D.Dialect, tools: list[Tool]) -> None:
    """A section of ``dialect`` (a name, a separator, then a JSON object, each call between its tags) holding one
    call per tool: written with or without the namespace and an index, a call's closing tag sometimes left out
    (where the next call, the section's end or text after it ends the call), stray text after a call."""
    rng = out.rng
    sep, block = dialect.separated, dialect.block
    assert sep is not None
    out.add("block", block.open + rng.choice(("", "", "\n")))
    for i, tool in enumerate(tools):
        if i:
            out.add("block", rng.choice(("", "\n", " ")))
            if not block.close:  # (a block with no closing tag ends with its call: the next call opens its own)
                out.add("block", block.call_separator or block.open)
        namespace = sep.namespace if rng.random() < 0.7 else ""
        index = f"{sep.index_mark}{i}" if sep.index_mark and rng.random() < 0.8 else ""
        args = {identifier(rng, 8): json_arguments(rng, out.sentinel) for _ in range(rng.randrange(4))}
        text = json.dumps(args, ensure_ascii=rng.random() < 0.4, indent=rng.choice((None, None, 2)))
        after = rng.choice(("", "", " ", "\n"))
        close = sep.call_close if rng.random() < 0.8 else ""
        if not close:
            out.features.append("sep.no-call-close")
        out.add("block", f"{sep.call_open}{namespace}{tool.name}{index}{sep.separator}{_sep(rng)}")
        out.add(f"param:{tool.name}", text)
        if close:
            out.add("block", after + close)
        out.calls.append(ExpectedCall(tool.name, args))
        if rng.random() < 0.15 and block.close:  # text after the call (without its closing tag, it ends the call)
            out.add("stray", _stray(out, "sep"))
    if block.close:  # (after a block with no closing tag, what follows decides its whitespace)
        out.add("block", rng.choice(("", "\n")) + block.close)


def _quoted_call(out: Output, dialect: D.Dialect, tool: Tool) -> None:
    """One call of ``dialect``'s quoted body in its block: a string between quote tokens, any other value as JSON;
    whitespace after a separator, the arguments' closing mark sometimes left out (the block's closing tag ends the
    call)."""
    rng = out.rng
    quoted, block = dialect.quoted, dialect.block
    assert quoted is not None
    out.add("block", f"{block.open}{rng.choice(('', '', chr(10)))}{quoted.call_open}{tool.name}{quoted.args_open}")
    args: dict[str, Any] = {}
    for i, (key, _, value) in enumerate(_call_args(out, tool, True, value_ends(dialect))):
        if i:
            out.add("block", quoted.item_separator + rng.choice(("", "", " ", "\n")))
        text = quoted.quote + value + quoted.quote if isinstance(value, str) else json.dumps(value)
        out.add(f"param:{key}", f"{key}{quoted.key_end}{text}")
        args[key] = value
    close = quoted.args_close if rng.random() < 0.9 else ""
    if not close:
        out.features.append("quoted.no-args-close")
    out.add("block", close + rng.choice(("", "", "\n")) + block.close)
    out.calls.append(ExpectedCall(tool.name, args))


def _json_object(out: Output, name: str) -> tuple[str, dict[str, Any]]:
    rng = out.rng
    args: dict[str, Any] = {}
    for _ in range(rng.randrange(5)):
        key = string_value(rng, out.sentinel) if rng.random() < 0.3 else identifier(rng, 8)
        args[key] = json_arguments(rng, out.sentinel)
    style = rng.random()
    if style < 0.1 and _python_safe(args):
        args_text = repr(args)  # a Python dict: single quotes, True/None
        out.features.append("json.python-literal")
    elif style < 0.2:
        args_text = json.dumps(json.dumps(args))  # arguments as a JSON-encoded string
        out.features.append("json.string-arguments")
    else:
        args_text = json.dumps(
            args,
            ensure_ascii=rng.random() < 0.4,
            indent=rng.choice((None, None, 2)),
            separators=rng.choice((None, (",", ":"))),
        )
    if args_text.startswith("{") and rng.random() < 0.02:
        # the output stops inside an escaped surrogate pair (what it becomes is open; it must be strict JSON)
        args_text = '{"text": "' + string_value(rng, out.sentinel).replace("\\", "").replace('"', "") + "\\ud83d"
        out.features.append("json.cut-surrogate")
        out.checked = False
        out.cut = True
    elif args_text.startswith("{") and rng.random() < 0.04:
        big = rng.choice(("1e999", "-1e999", HUGE_INT, "2e308"))
        args_text = f'{{"big": {big}' + (", " if args_text[1:].strip() != "}" else "") + args_text[1:]
        out.features.append("json.out-of-range")
        out.checked = False
    colon = rng.choice((": ", ":", " : "))
    args_member = f'"{rng.choice(("arguments", "arguments", "parameters"))}"{colon}{args_text}'
    members = [f'"name"{colon}{json.dumps(name)}', args_member]
    if rng.random() < 0.3 and not out.cut:
        members.reverse()
    if rng.random() < 0.1:
        members.insert(rng.randrange(3) if not out.cut else 0, f'"id"{colon}"call_{identifier(rng, 6)}"')
    pad = rng.choice(("", " ", "\n"))
    if out.cut:  # the arguments come last, and the output stops inside them
        return "{" + pad + ", ".join([m for m in members if m is not args_member] + [args_member]), args
    return "{" + pad + rng.choice((", ", ",", ",\n")).join(members) + pad + "}", args


def _python_safe(value: Any) -> bool:
    if isinstance(value, str):
        return all(c.isalnum() or c in " _-.," for c in value)
    if isinstance(value, float):
        return value == value and abs(value) != float("inf")
    if isinstance(value, list):
        return all(_python_safe(v) for v in value)
    if isinstance(value, dict):
        return all(_python_safe(k) and _python_safe(v) for k, v in value.items())
    return True


# -- blocks ----------------------------------------------------------------------------------------------------------


def add_block(out: Output, shape: str, tools: dict[str, Tool], typed: bool) -> None:
    """One call block of the given shape, in a dialect of its body (:func:`dialect_for`); its tools are added to
    ``tools``."""
    rng = out.rng
    out.features.append(shape)
    if shape in OPEN_BLOCKS:
        out.checked = False
    dialect = dialect_for(shape, rng)
    if dialect is not None:
        out.features.append(f"dialect.{dialect.name}")

    def new_tool() -> Tool:
        if tools and rng.random() < 0.3:
            return rng.choice(list(tools.values()))
        tool = make_tool(rng, hostile=rng.random() < 0.15, sentinel=out.sentinel)
        if tool.name not in tools:
            tools[tool.name] = tool
        return tools[tool.name]

    if shape == "json.block":
        assert dialect is not None
        block = dialect.block
        listed = block.holds_list
        out.add("block", block.open + rng.choice(("", "\n", " ", "\n\n")) + ("[" if listed else ""))
        for i in range(1 if rng.random() < 0.75 else rng.randint(2, 3)):
            if i:
                if rng.random() < 0.15 and not listed and block.close:
                    out.add("stray", _stray(out, "json"))
                out.add("block", ("," if listed else "") + rng.choice(("\n", "", " ", "\n\n")))
                if not block.close:  # (a block with no closing tag: its separator, or a block of its own)
                    out.add("block", (block.call_separator or block.open) + rng.choice(("", " ", "\n")))
            tool = new_tool()
            body, args = _json_object(out, tool.name)
            out.add("block", body)
            out.calls.append(ExpectedCall(tool.name, args))
            if out.cut:
                return
        # (after a block with no closing tag, what follows decides its whitespace)
        out.add("block", ("]" if listed else "") + (rng.choice(("", "\n", " ")) + block.close if block.close else ""))
        return
    if shape.startswith("registered."):
        assert dialect is not None
        if dialect.pairs is not None and rng.random() < 0.5:
            dialect = compact(dialect)
        tool = new_tool()
        json_body = dialect.parameter is None
        params = _call_args(out, tool, typed or json_body, value_ends(dialect))
        text = written(dialect, tool.name, [(k, v if json_body else t) for k, t, v in params])
        out.add("block", text)
        out.calls.append(ExpectedCall(tool.name, {k: v for k, _, v in params}))
        return
    if shape == "quoted.call":
        assert dialect is not None
        _quoted_call(out, dialect, new_tool())
        return
    if shape == "sep.section":
        assert dialect is not None
        _sep_section(out, dialect, [new_tool() for _ in range(1 if rng.random() < 0.6 else rng.randint(2, 3))])
        return
    if shape == "json.untagged":  # a call object, or an array of them, with no tag (a call at the output's start)
        count = 1 if rng.random() < 0.6 else rng.randint(1, 3)
        bodies = [_json_object(out, new_tool().name)[0] for _ in range(count)]
        listed = len(bodies) > 1 or rng.random() < 0.3
        text = "[" + rng.choice((",", ", ")).join(bodies) + "]" if listed else bodies[0]
        out.add("block", text)
        return
    if shape == "json.call-list":  # a JSON array of calls
        calls = []
        for _ in range(rng.randint(1, 3)):
            body, _ = _json_object(out, new_tool().name)
            calls.append(body)
        sep = rng.choice((", ", ",\n", ","))
        out.add("block", f"{D.CALL_LIST_BLOCK.open}{_sep(rng)}[{sep.join(calls)}]{_sep(rng)}{D.CALL_LIST_BLOCK.close}")
        return
    assert dialect is not None
    if shape.startswith("xml."):
        markup = dialect.markup
        assert markup is not None
        if shape == "xml.prose-mention":
            out.add("prose", f"the format is {markup.call_open}example_function_name{markup.name_end} with parameters ")
            return
        tool = new_tool()
        parts = _xml_function(out, dialect, tool, tool.name, typed, shape)
        if shape in ("xml.wrapped", "xml.longcat"):
            wrap = dialect.block if shape == "xml.wrapped" else _LONGCAT
            parts = [("block", wrap.open + _sep(rng)), *parts, ("block", _sep(rng) + wrap.close)]
        elif shape == "xml.orphan-close":
            parts.append(("block", _sep(rng) + dialect.block.close))
        for role, text in parts:
            out.add(role, text)
        return
    tool = new_tool()
    pairs, block = dialect.pairs, dialect.block
    assert pairs is not None
    if shape == "kv.json-body":
        body, _ = _json_object(out, tool.name)
        out.add("block", f"{block.open}{tool.name} {body}{block.close}")
        return
    if shape in ("kv.tag-line", "kv.own-line", "kv.no-closer", "kv.prefix"):
        for role, text in _kv_call(out, dialect, tool, tool.name, typed, shape):
            out.add(role, text)
        return
    # the remaining key/value shapes seen in real outputs
    key = tool.params[0].name if tool.params else "city"
    value = string_value(rng, out.sentinel, value_ends(dialect))
    pair = f"{pairs.key_open}{key}{pairs.key_close}\n{pairs.value_open}{value}{pairs.value_close}\n"
    if shape == "kv.no-opener":
        text = f"{tool.name}\n{pair}{block.close}"
    elif shape == "kv.name-before-tag":
        text = f"{tool.name}\n{block.open}\n{pair}{block.close}"
    elif shape == "kv.key-at-end":  # the output stops after a key (or inside its closing tag)
        close = rng.choice((pairs.key_close, pairs.key_close + "\n", pairs.key_close[:-3], ""))
        first = pair if rng.random() < 0.5 else ""
        text = f"{block.open}{tool.name}\n{first}{pairs.key_open}{out.sentinel()}{close}"
    elif shape == "kv.ts-call":
        text = f"{block.open}{tool.name}({{{key}: {json.dumps(value)}, n: 'x'}}){block.close}"
    elif shape == "kv.one-key-json":
        body = f"{pairs.key_open}{json.dumps({key: value})}{pairs.key_close}"
        text = f"{block.open}{tool.name}\n{body}\n{block.close}"
    else:  # kv.colon-lines
        text = f"{block.open}{tool.name}\n{key}: {value}\nother: {out.sentinel()}\n{block.close}"
    out.add("block", text)


# -- whole outputs ---------------------------------------------------------------------------------------------------


def _options(rng: random.Random) -> dict[str, bool]:
    r = rng.random()
    if r < 0.7:
        options = {}
    elif r < 0.82:
        options = {"reasoning_open": True}
    elif r < 0.92:
        options = {"tools": False}
    elif r < 0.97:
        options = {"reasoning": False}
    else:
        options = {"tools": False, "reasoning_open": True}
    return options | request_options(rng)


#: the options a request sets besides how reasoning and calls are read, and how often a case draws each: a stop
#: that may cut a call, unknown tools emitted, a start of the output that nothing tells
REQUEST_OPTIONS: Final = {"cut_calls_as_text": 0.25, "emit_unknown_calls": 0.15, "reasoning_start_unknown": 0.1}
_OPTION_FEATURES: Final = {
    "reasoning_open": "opt.reasoning-open",
    "tools": "opt.tools-off",
    "reasoning": "opt.reasoning-off",
    "cut_calls_as_text": "opt.cut-calls",
    "emit_unknown_calls": "opt.emit-unknown",
    "reasoning_start_unknown": "opt.start-unknown",
}


def request_options(rng: random.Random) -> dict[str, bool]:
    """Each of :data:`REQUEST_OPTIONS`, drawn on its own (any combination with the others, and with every other
    option, is drawn)."""
    return {name: True for name, p in REQUEST_OPTIONS.items() if rng.random() < p}


def option_features(options: dict[str, bool]) -> list[str]:
    return [_OPTION_FEATURES[k] for k in sorted(options)]


def _expected_holds(segments: tuple[Segment, ...], options: dict[str, bool], shapes: list[str]) -> bool:
    """Whether the result the roles give (:func:`expected_of`) is the reading under the request's options: a block
    that never closes is a call cut off when a stop may cut calls (it comes back as text), and the first think tag
    of an output whose start nothing tells says where it starts (a think tag inside a call's value then misleads)."""
    if options.get("cut_calls_as_text") and "kv.no-closer" in shapes:
        return False
    if options.get("reasoning_start_unknown"):
        for role, text in (part for segment in segments for part in segment.parts):
            if any(tag in text for tag in (*D.THINK_OPENS, *D.THINK_CLOSES)):
                return role == "think-markup"
    return True


def well_formed(rng: random.Random) -> Case:
    """An output built from reasoning, prose and call blocks; ``expected`` is set when its result is known."""
    options = _options(rng)
    out = Output(rng)
    tools: dict[str, Tool] = {}
    declared = rng.random() < 0.85
    n_blocks = rng.choices((0, 1, 2, 3), weights=(1, 5, 3, 1))[0]
    open_shapes = rng.random() < 0.15
    shapes = [
        rng.choice(OPEN_BLOCKS if open_shapes and rng.random() < 0.6 else ROUND_TRIP_BLOCKS) for _ in range(n_blocks)
    ]
    # reasoning first: closed, pre-opened by the template, or ended by the first call's tag
    r = rng.random()
    open_tag, close_tag = rng.choice(list(D.REASONING_TAGS))
    reasoning = prose(rng, out.sentinel)
    unclosed = False
    out.mark("reasoning")
    if options.get("reasoning_open"):
        if rng.random() < 0.3:
            out.add("think-markup", open_tag)
        out.add("reasoning", reasoning)
        out.add("think-markup", close_tag)
        out.features.append("think.pre-opened")
    elif r < 0.4:
        out.add("think-markup", open_tag)
        out.add("reasoning", reasoning)
        if rng.random() < 0.15:
            mention = (
                f" use a {rng.choice(D.BLOCK_OPENS)} block for it, {prose(rng, out.sentinel, lt=False, max_words=3)}"
            )
            out.add("reasoning", mention)
            out.features.append("think.mentions-tag")
        if shapes and shapes[0] in ("json.block", "xml.wrapped", "xml.longcat", "kv.tag-line", "kv.own-line",
                                    "kv.no-closer") and rng.random() < 0.2:  # fmt: skip
            unclosed = True
            out.features.append("think.ended-by-call")
        else:
            out.add("think-markup", rng.choice(D.THINK_CLOSES))
            out.features.append("think")
    for i, shape in enumerate(shapes):
        if not (unclosed and i == 0):
            before = prose(rng, out.sentinel) if rng.random() < 0.7 else rng.choice(("\n", "\n\n", "", " "))
            if shapes[i - 1 : i] == ["kv.no-closer"] and before.strip(WS):
                before = "\n"  # stray text after an unclosed key/value block is read as part of it
            if shape == "json.untagged" and i == 0 and rng.random() < 0.8:
                before = rng.choice(("", "", "\n", "  "))  # at the start of the output: where it is a call
            out.mark("prose")
            out.add("prose", before)
        out.mark(shape)
        add_block(out, shape, tools, declared)
        if out.cut:
            break
        if shape not in ("kv.no-closer", "kv.key-at-end") and rng.random() < 0.08:  # interleaved reasoning
            out.mark("prose")
            out.add("prose", rng.choice(("\n", "\n\n", "", " ")))
            out.mark("reasoning")
            out.add("think-markup", open_tag)
            out.add("reasoning", prose(rng, out.sentinel, max_words=5))
            out.add("think-markup", close_tag)
            out.features.append("think.after-call")
    at_end = shapes[-1:] == ["kv.key-at-end"] and rng.random() < 0.8
    after = prose(rng, out.sentinel) if rng.random() < 0.5 else rng.choice(("", "\n", " \n"))
    at_end = at_end or out.cut
    if shapes[-1:] == ["kv.no-closer"] or at_end or _CUT_AFTER_BLOCK.is_prefix(after.lstrip(WS)):
        after = ""  # (text that ends the output after a block in a cut-off closing tag is that tag: markup)
    out.mark("prose")
    out.add("prose", after)
    if rng.random() < 0.2 and not at_end:
        out.mark("eos")
        out.add("eos", rng.choice(D.END_OF_SEQUENCE))
        out.features.append("eos")
    tool_list: list[dict[str, Any]] | None = None
    if declared:
        extra = [make_tool(rng) for _ in range(rng.randrange(3))]
        defs = [t.definition for t in tools.values()] + [t.definition for t in extra if t.name not in tools]
        rng.shuffle(defs)
        tool_list = defs
    else:
        out.features.append("no-tools")
    if not shapes:
        out.features.append("text-only")
    segments = out.finish()
    expected = None
    if out.checked and _expected_holds(segments, options, shapes):
        expected = expected_of(segments, options.get("reasoning", True), options.get("tools", True))
    features = ["wf", *dict.fromkeys(out.features), *option_features(options)]
    text = "".join(s.text for s in segments)
    return Case(text, tool_list, options, "+".join(features), expected, segments)
