"""Invariant 4 (linear time) on adversarial patterns: each pattern is parsed at 1x and 4x its size, whole (one feed)
and streamed in 4-character deltas, and reported as the exponent ``log(t4 / t1) / log 4`` (1: linear, 2: quadratic).
Each time is the best of three runs, in CPU time; a run longer than the cap stops the measurement, and the exponent is
then a lower bound (shown with ``>``). ``SHAPES`` (below) are the shapes ``tests/core/test_scaling.py`` counts and
``scripts/linear_mib.py`` times at megabyte sizes."""

from __future__ import annotations

import json
import math
import signal
import time
from collections.abc import Callable
from dataclasses import astuple, dataclass
from typing import Any, Final

from longcat_plugins.core import StreamParser
from longcat_plugins.core import dialects as D
from longcat_plugins.core.tag_starts import TAG_STARTS
from tests.support.tools import function_tool

from .known import known_slow

Tools = list[dict[str, Any]] | None


def _tool(name: str, properties: dict[str, Any]) -> dict[str, Any]:
    return function_tool(name, properties)


def _recursive_tool(k: int) -> list[dict[str, Any]]:
    """A client schema whose ``k`` properties each refer back to the root."""
    return [_tool("f", {f"p{i}": {"$ref": "#"} for i in range(k)})]


def _filter_tool(k: int) -> list[dict[str, Any]]:
    """A search tool whose filter combines filters with ``k`` recursive operators (and, or, not, ...)."""
    operators = {f"op{i}": {"type": "array", "items": {"$ref": "#/$defs/filter"}} for i in range(k)}
    filter_schema = {
        "anyOf": [
            {"type": "object", "properties": {"field": {"type": "string"}, "equals": {"type": "string"}}},
            {"type": "object", "properties": operators},
        ]
    }
    tool = _tool("search", {"query": {"type": "string"}, "filter": {"$ref": "#/$defs/filter"}})
    tool["function"]["parameters"]["$defs"] = {"filter": filter_schema}
    return [tool]


#: the tags of the patterns, from the declarations of the dialects whose calls they imitate
_M = D.DIALECTS["xml"].markup
_P = D.DIALECTS["kv"].pairs
assert _M is not None and _P is not None
_H = D.DIALECTS["hermes"].block
_L = D.DIALECTS["kv"].block


def _fn(name: str) -> str:
    return f"{_M.call_open}{name}{_M.name_end}"


def _param(name: str) -> str:
    return f"{_M.param_open}{name}{_M.name_end}"


_FN_F = _fn("f")
F = _FN_F + _M.call_close
JSON_CALL = '{"name": "f", "arguments": {}}'

#: name -> (size of 1x, builder of (text, tools) for a size)
PATTERNS: dict[str, tuple[int, Callable[[int], tuple[str, Tools]]]] = {
    "lt-run": (65536, lambda n: ("<" * n, None)),
    "lt-sparse": (131072, lambda n: (("a" * 63 + "<") * (n // 64), None)),
    "lt-in-reasoning": (65536, lambda n: ("<think>" + "<" * n, None)),
    "lt-in-value": (65536, lambda n: ((_FN_F + _param("a")) + "<" * n + (_M.param_close + _M.call_close), None)),
    "whitespace": (131072, lambda n: (" \n\t " * (n // 4) + "x", None)),
    "whitespace-after-call": (131072, lambda n: (F + " \n" * (n // 2) + "x", None)),
    "whitespace-in-block": (131072, lambda n: (_H.open + JSON_CALL + " " * n + ("x" + _H.close), None)),
    "braces": (131072, lambda n: (_H.open + "{" * n, None)),
    "backslashes": (131072, lambda n: ("\\" * n, None)),
    "backslashes-in-string": (
        131072,
        lambda n: ((_H.open + '{"name": "f", "arguments": {"a": "') + "\\" * n + ('"}}' + _H.close), None),
    ),
    "partial-tags": (65536, lambda n: (_L.open[:6] * (n // 6), None)),
    "partial-tags-in-value": (
        65536,
        lambda n: ((_FN_F + _param("a")) + _M.param_close[:-2] * (n // 10) + (_M.param_close + _M.call_close), None),
    ),
    "closing-tags": (65536, lambda n: (_H.close * (n // 12), None)),
    "closing-tags-in-block": (65536, lambda n: (_H.open + JSON_CALL + _H.close * (n // 12), None)),
    "closers-in-value": (
        65536,
        lambda n: (
            (_FN_F + _param("a"))
            + (_M.call_close + _H.close + "\n x\n") * (n // 27)
            + (_M.param_close + _M.call_close),
            None,
        ),
    ),
    "value-closers-in-value": (
        65536,
        lambda n: (
            (_FN_F + _param("a"))
            + _M.param_close
            + " " * 40
            + "x" * (n // 2)
            + (_M.param_close + " y") * (n // 28)
            + (_M.param_close + _M.call_close),
            None,
        ),
    ),
    "value-and-call-closers-in-value": (
        65536,
        lambda n: (
            (_FN_F + _param("a"))
            + (_M.param_close + " x" + _M.call_close + " y ") * (n // 30)
            + (_M.param_close + _M.call_close),
            None,
        ),
    ),
    "headers-in-value": (
        65536,
        lambda n: (
            (_FN_F + _param("a")) + (_M.param_open + "a> ") * (n // 14) + (_M.param_close + _M.call_close),
            None,
        ),
    ),
    "value-closer-then-text": (
        131072,
        lambda n: ((_FN_F + _param("a")) + (_M.param_close + " " + "x" * 600 + "\n") * (n // 614), None),
    ),
    "value-closers-in-kv-value": (
        65536,
        lambda n: (
            (_L.open + "f\n" + _P.key_open + "a" + _P.key_close + _P.value_open)
            + (_P.value_close + "  y") * (n // 23)
            + (_P.value_close + _L.close),
            None,
        ),
    ),
    "closing-tags-in-kv": (
        65536,
        lambda n: ((_L.open + "f\n") + _P.value_close * (n // 20) + _L.close, None),
    ),
    "tiny-calls-xml": (65536, lambda n: (F * (n // len(F)), None)),
    "tiny-calls-json": (65536, lambda n: ((_H.open + JSON_CALL + _H.close) * (n // 53), None)),
    "tiny-calls-one-block": (65536, lambda n: (_H.open + (JSON_CALL + "\n") * (n // 32) + _H.close, None)),
    "tiny-calls-kv": (65536, lambda n: ((_L.open + "f\n" + _L.close + "\n") * (n // 41), None)),
    "deep-json": (
        65536,
        lambda n: ((_H.open + '{"name": "f", "arguments": ') + '{"a": ' * (n // 6) + "1" + "}" * (n // 6) + "}", None),
    ),
    "deep-array": (65536, lambda n: (_H.open + '{"name": "f", "arguments": {"a": ' + "[" * n, None)),
    "kv-long-keys": (
        65536,
        lambda n: (
            (_L.open + "f\n")
            + (_P.key_open + "k" * 250 + (_P.key_close + _P.value_open + "v" + _P.value_close)) * (n // 305)
            + _L.close,
            None,
        ),
    ),
    "kv-overlong-keys": (
        65536,
        lambda n: ((_L.open + "f\n") + (_P.key_open + "k" * 300) * (n // 317), None),
    ),
    "xml-long-headers": (65536, lambda n: ((_M.call_open + "f" * 250 + "\n") * (n // 261), None)),
    # the size of a schema pattern is its number of recursive references (the schema's size grows with it)
    "schema-recursive": (
        2,
        lambda k: ((_FN_F + _param("p0") + "x" + _M.param_close + _M.call_close), _recursive_tool(k)),
    ),
    "schema-filter": (
        1,
        lambda k: ((_fn("search") + _param("filter") + "{}" + _M.param_close + _M.call_close), _filter_tool(k)),
    ),
}

CAP_SECONDS = 10.0


class _Timeout(Exception):
    pass


def _raise_timeout(signum: int, frame: Any) -> None:
    raise _Timeout


def capped_cpu_seconds(text: str, tools: Tools, delta: int | None, cap: float) -> float:
    """The CPU time of reading ``text`` whole (``delta`` None) or in deltas of ``delta`` characters; inf past ``cap``
    seconds of CPU time. While the CPU-time timer that enforces the cap is armed, the process's CPU clock advances
    in scheduler ticks (milliseconds): a short read is repeated until the clock has moved :data:`_LEAST_MEASURED`
    seconds, and the time per read returned."""
    deltas = [text] if delta is None else [text[i : i + delta] for i in range(0, len(text), delta)]
    previous = signal.signal(signal.SIGPROF, _raise_timeout)
    signal.setitimer(signal.ITIMER_PROF, cap)  # (CPU time, as measured)
    t0 = time.process_time()
    try:
        reads = 0
        while True:
            parser = StreamParser(tools)
            for d in deltas:
                parser.feed(d)
            parser.finish()
            reads += 1
            elapsed = time.process_time() - t0
            if elapsed >= _LEAST_MEASURED:
                return elapsed / reads
    except _Timeout:
        return math.inf
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def cost(text: str, tools: Tools, delta: int | None, runs: int = 3, cap: float = CAP_SECONDS) -> float:
    """Best of ``runs`` parses (whole when ``delta`` is None, else in deltas of that many characters)."""
    best = math.inf
    for _ in range(runs):
        t = capped_cpu_seconds(text, tools, delta, cap)
        best = min(best, t)
        if t > cap / 4:  # slow enough to measure once
            break
    return best


#: the CPU time a measurement runs for at least (see :func:`capped_cpu_seconds`)
_LEAST_MEASURED = 0.05


@dataclass(frozen=True)
class Scaling:
    pattern: str
    mode: str
    t1: float
    t4: float

    @property
    def exponent(self) -> float:
        if math.isinf(self.t4):
            return math.log(CAP_SECONDS / self.t1) / math.log(4)
        return math.log(self.t4 / self.t1) / math.log(4)

    @property
    def capped(self) -> bool:
        return math.isinf(self.t4)

    def exponent_text(self) -> str:
        return (">" if self.capped else "") + f"{self.exponent:.2f}"


MODES = {"whole": None, "stream": 4}


def measure(pattern: str, mode: str, size: float = 1.0, runs: int = 3) -> Scaling:
    _, build = PATTERNS[pattern]
    n = pattern_size(pattern, size)
    small, large = build(n), build(4 * n)
    delta = MODES[mode]
    return Scaling(pattern, mode, cost(*small, delta, runs), cost(*large, delta, runs))


def pattern_size(name: str, size: float) -> int:
    base, _ = PATTERNS[name]
    return base if name.startswith("schema-") else max(64, int(base * size))


def modes_of(name: str) -> list[str]:
    """Schema preparation does not depend on the split: schema patterns are measured whole only."""
    return ["whole"] if name.startswith("schema-") else list(MODES)


def scaling_table(patterns: list[str], size: float = 1.0, echo: bool = False) -> str:
    header = (
        f"{'pattern':24} {'size 1x':>9}  {'whole 1x':>9} {'4x':>9} {'exp':>6}  {'stream 1x':>9} {'4x':>9} {'exp':>6}"
    )
    lines = [header]
    if echo:
        print(header, flush=True)
    for name in patterns:
        text, tools = PATTERNS[name][1](pattern_size(name, size))
        shown = f"{len(json.dumps(tools))}B" if name.startswith("schema-") else str(len(text))
        row = [f"{name:24} {shown:>9}"]
        for mode in modes_of(name):
            s = measure(name, mode, size)
            t4 = f">{CAP_SECONDS:.0f}s" if s.capped else _ms(s.t4)
            row.append(f"{_ms(s.t1):>9} {t4:>9} {s.exponent_text():>6}")
        known = sorted({k for mode in modes_of(name) if (k := known_slow(name, mode))})
        line = "  ".join(row) + (f"   known: {', '.join(known)}" if known else "")
        lines.append(line)
        if echo:
            print(line, flush=True)
    return "\n".join(lines)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}ms" if seconds >= 0.001 else f"{seconds * 1e6:.0f}us"


# -- shapes at every size: the repeated prefixes of every tag, and the shapes of calls, in every dialect read -------

X_TOOL: Final = [_tool("x", {"a": {"type": "string"}})]


def _tags() -> list[str]:
    """Every tag of every dialect the parser reads, the think tags and the end-of-sequence markers."""
    found: list[str] = []
    for d in D.READ_DIALECTS.values():
        found += [tag for tag in (d.block.open, d.block.close) if tag]
        for declared in (d.markup, d.pairs, d.separated):
            if declared is not None:
                found += [t for t in astuple(declared) if len(t) > 1 and t[0] in TAG_STARTS]
    return list(
        dict.fromkeys([*found, *D.BLOCK_OPENS, *D.BLOCK_CLOSES, *D.END_OF_SEQUENCE, *D.THINK_OPENS, *D.THINK_CLOSES])
    )


def _repeat(unit: str) -> Callable[[int], str]:
    return lambda n: unit * max(1, n // len(unit))


def _call_shapes(d: D.Dialect) -> dict[str, Callable[[int], str]]:
    def params(k: int) -> list[tuple[str, str]]:
        return [(f"p{i}", "v") for i in range(k)]

    call = d.write("x", {"a": "v"}) + "\n"
    shapes = {
        "calls": _repeat(call),
        "unknown-calls": _repeat(d.write("zz", {"a": "v"}) + "\n"),
        "prefixed-calls": _repeat(d.write("functions.x", {"a": "v"}) + "\n"),
        "unclosed-calls": _repeat(d.begin("x") + "\n"),
        "many-params": lambda n: d.write("x", params(n // 16)),
        "repeated-param": lambda n: d.write("x", [("a", "v")] * (n // 16)),
        "long-value": lambda n: d.write("x", {"a": "v" * n}),
        "unclosed-value": lambda n: (call := d.write("x", {"a": "v" * n}))[: call.rindex("v") + 1],
    }
    if d.parameter is not None:
        p = d.parameter
        shapes["untagged-pairs"] = _repeat(f"x{p.key_open}a{p.key_to_value}v{p.value_close}\n")
        shapes["repeated-key"] = lambda n: d.begin("x") + p.key_open * (n // len(p.key_open))
    return shapes


def _other_shapes() -> dict[str, Callable[[int], str]]:
    h = D.DIALECTS["hermes"]
    return {
        "reasoning": lambda n: D.THINK_OPENS[0] + "r " * (n // 2),
        "reasoning-lt": lambda n: D.THINK_OPENS[0] + "r < " * (n // 4),
        "names": _repeat("x "),
        "name-lines": _repeat("x\n"),
        "functions-prefix": _repeat("functions."),
        "functions-names": _repeat("functions.x "),
        "tool-tags": _repeat("<x>"),
        "tool-tags-objects": _repeat("<x>{"),
        "json-objects": lambda n: h.begin("x") + '{"b": ' * (n // 6),
        "json-arrays": lambda n: h.begin("x") + "[" * n,
        "json-keys": lambda n: h.begin("x") + "{" + '"k": 1, ' * (n // 7),
        "json-arguments-first": lambda n: h.block.open + '{"arguments": {"a": "' + "v" * n,
        "json-calls-in-one-block": lambda n: (
            h.block.open + h.write("x", {"a": "v"})[len(h.block.open) : -len(h.block.close)] * (n // 40)
        ),
        "bare-json-list": lambda n: "[" + '{"name": "x", "arguments": {"a": "v"}},' * (n // 40),
    }


def _shapes() -> dict[str, Callable[[int], tuple[str, Tools]]]:
    shapes: dict[str, Callable[[int], tuple[str, Tools]]] = {}

    def both(name: str, build: Callable[[int], str]) -> None:
        shapes[name] = lambda n: (build(n), None)
        shapes[name + "+tools"] = lambda n: (build(n), X_TOOL)

    for tag in _tags():
        both(f"tag {tag}", _repeat(tag))
        both(f"tag-prefix {tag[: len(tag) // 2]}", _repeat(tag[: len(tag) // 2]))
        both(f"tag-name {tag}x", _repeat(tag + "x\n"))
    for d in D.READ_DIALECTS.values():
        for kind, build in _call_shapes(d).items():
            both(f"{kind} {d.name}", build)
    for kind, build in _other_shapes().items():
        both(kind, build)
    return shapes


#: name -> builder of (text, tools) of about ``n`` characters
SHAPES: Final = _shapes()
