"""The served-path matrix's smoke: what an engine serves, for every API it has, streamed or not, every parser
configuration, tool choice, finish and tokenization, equals the core's one-pass reading of the same text
(``tests/served``; the whole matrix: ``python -m tests.served ENGINE``).

The importing module names its engine's matrix driver ``DRIVER`` and imports ``*`` from here."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from longcat_plugins.core.dialects import DIALECTS
from tests.served.cells import AXES, WHOLE_TURN, Cell, with_
from tests.served.oracle import Served
from tests.served.run import run_cell
from tests.served.smoke import smoke_cells, smoke_texts
from tests.served.texts import PARIS, SEVERAL_EVENTS_SHAPES

__all__ = [
    "driver",
    "pytest_generate_tests",
    "test_a_namespaced_dotted_name_is_served_as_the_declared_tool",
    "test_pinned_cells",
    "test_served_equals_the_one_pass_reading",
    "test_several_events_in_one_delta_are_served_as_read",
    "test_the_smoke_covers_every_axis",
    "test_what_parsers_disagree_on_is_served_as_decided",
]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "cell" in metafunc.fixturenames:
        metafunc.parametrize("cell", smoke_cells(metafunc.module.DRIVER.apis), ids=str)


@pytest.fixture(scope="module")
def driver(request: pytest.FixtureRequest) -> Iterator[Any]:
    driver = request.module.DRIVER()
    yield driver
    driver.close()


def test_the_smoke_covers_every_axis(request: pytest.FixtureRequest) -> None:
    apis = request.module.DRIVER.apis
    cells = smoke_cells(apis)
    for name, values in AXES.items():
        seen = {getattr(cell, name) for cell in cells}
        assert seen == set(values) if name != "api" else seen == set(apis), name


def _assert_served_as_read(outcomes: list[Any]) -> None:
    failed = [str(o) for o in outcomes if not o.ok]
    assert not failed, "\n".join(failed)


def test_served_equals_the_one_pass_reading(driver: Any, cell: Cell) -> None:
    _assert_served_as_read([run_cell(driver, cell, text) for text in smoke_texts(driver, cell)])


#: (cell, text) pairs the whole matrix once found differing, kept in the smoke
PINNED: tuple[tuple[Cell, str], ...] = (
    # reasoning that is only whitespace, with the think tags split into several tokens: its tokens count
    (
        Cell(parsers="reasoning", tool_choice="none", strict=True, parallel=False, tokens="split"),
        "real:hermes_lmstudio825_empty_think_then_call",
    ),
    # text inside a call: a Responses stream takes it after the call (SGLang opened a second, nameless call item)
    (Cell(parsers="tool", group=3), "corpus:xml_stray_text_in_function"),
)


@pytest.mark.parametrize(("pinned", "text_id"), PINNED, ids=[f"{c}-{n}" for c, n in PINNED])
def test_pinned_cells(driver: Any, pinned: Cell, text_id: str) -> None:
    outcomes = []
    for served_cell in (with_(pinned, api=api, stream=stream) for api in driver.apis for stream in (False, True)):
        (text,) = [t for t in driver.texts_for(served_cell) if t.id == text_id]
        outcomes.append(run_cell(driver, served_cell, text))
    _assert_served_as_read(outcomes)


#: (shape, dialect) pairs served with large deltas: every shape of several events in one dialect (in turn), and the
#: call that holds text then a second call in every dialect
_SEVERAL = sorted(
    {(shape, sorted(DIALECTS)[i % len(DIALECTS)]) for i, shape in enumerate(SEVERAL_EVENTS_SHAPES)}
    | {("text_in_call_then_call", d) for d in DIALECTS}
    | {("key_left_open_then_call", "xml")}
)


@pytest.mark.parametrize(("shape", "dialect"), _SEVERAL, ids=[f"{s}-{d}" for s, d in _SEVERAL])
def test_several_events_in_one_delta_are_served_as_read(driver: Any, shape: str, dialect: str) -> None:
    """An output whose events one delta holds several of (text inside a call, then the whole next call; text
    between calls; a cut or malformed call...), streamed 16 tokens per step and as the whole turn in one step,
    through every API: what the one-pass reading gives; one that a cut falls in, also cut by a stop string (whole)
    and by ``max_tokens`` (streamed)."""
    outcomes = []
    for api in driver.apis:
        ways = [(True, 16, "end"), (True, WHOLE_TURN, "end")]
        if shape.endswith("_cut") or shape == "key_left_open_then_call":
            ways += [(False, 1, "stop"), (True, 16, "length")]
        for stream, group, finish in ways:
            cell = Cell(api=api, stream=stream, group=group, finish=finish)
            (text,) = [t for t in driver.texts_for(cell) if t.id == f"gen:{dialect}:{shape}"]
            outcomes.append(run_cell(driver, cell, text))
    _assert_served_as_read(outcomes)


_CUT_FINISH = {"chat": "length", "responses": "incomplete", "messages": "max_tokens"}


def _dangling_opener(dialect: str, served: Served) -> bool:
    """The output ends right after a block's opening tag: the tag is content, verbatim, and there is no call."""
    return not served.calls and served.content.endswith(DIALECTS[dialect].block.open)


def _not_an_object(dialect: str, served: Served) -> bool:
    """``"arguments": "Paris"`` for a tool of two parameters: the call, with no arguments; the value is content."""
    return served.calls == (("get_weather", {}),) and served.content.strip() == '"Paris"'


def _cut_call(dialect: str, served: Served) -> bool:
    """A call cut inside its value by the model's end or ``max_tokens``: a call, its arguments what was read (up to
    the token the cut falls in)."""
    (name, arguments), *others = served.calls or (("", {}),)
    city = arguments.get("city", "")
    return name == "get_weather" and not others and city.startswith("Par") and "Paris".startswith(city)


def _cut_call_as_text(dialect: str, served: Served) -> bool:
    """A call cut inside its value by a stop string: text, verbatim."""
    return not served.calls and served.content.endswith("Par")


#: the shapes parsers disagree on, with what this package serves for them in every API (deployment guide,
#: section 5, "Where parsers disagree"): (text's shape, dialects, finish, the decision)
DECIDED = (
    ("dangling_opener", tuple(DIALECTS), "end", _dangling_opener),
    ("cut_after_opener", tuple(DIALECTS), "length", _dangling_opener),
    ("cut_after_opener", tuple(DIALECTS), "stop", _dangling_opener),
    ("arguments_not_object", ("json", "hermes"), "end", _not_an_object),
    ("cut_call", tuple(DIALECTS), "end", _cut_call),
    ("cut_in_value", tuple(DIALECTS), "length", _cut_call),
    ("cut_in_value", tuple(DIALECTS), "stop", _cut_call_as_text),
)


@pytest.mark.parametrize(
    ("shape", "dialect", "finish", "decided"),
    [(shape, d, finish, decided) for shape, dialects, finish, decided in DECIDED for d in dialects],
    ids=[f"{shape}-{d}-{finish}" for shape, dialects, finish, _ in DECIDED for d in dialects],
)
def test_what_parsers_disagree_on_is_served_as_decided(
    driver: Any, shape: str, dialect: str, finish: str, decided: Any
) -> None:
    outcomes = []
    for api in driver.apis:
        for stream in (False, True):
            for tokens, group in (("special", 1), ("split", 3)):
                cell = Cell(api=api, stream=stream, finish=finish, tokens=tokens, group=group)
                texts = [t for t in driver.texts_for(cell) if t.id == f"gen:{dialect}:{shape}"]
                if not texts:  # (SGLang's streams with a stop string are not modelled)
                    assert driver.engine == "sglang" and stream and finish == "stop"
                    continue
                outcome = run_cell(driver, cell, texts[0])
                assert not outcome.skipped, outcome
                assert outcome.want is not None and decided(dialect, outcome.want), str(outcome)
                if finish == "length":
                    assert outcome.want.finish == _CUT_FINISH[api], (str(cell), outcome.want)
                outcomes.append(outcome)
    _assert_served_as_read(outcomes)


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_a_namespaced_dotted_name_is_served_as_the_declared_tool(driver: Any, dialect: str) -> None:
    """``functions.l.weather`` for a declared tool ``l.weather``: the call of ``l.weather``, in every API."""
    outcomes = []
    for api in driver.apis:
        for stream in (False, True):
            for tokens, group in (("special", 1), ("split", 3)):
                cell = Cell(api=api, stream=stream, tokens=tokens, group=group)
                (text,) = [t for t in driver.texts_for(cell) if t.id == f"gen:{dialect}:namespaced_dotted_name"]
                outcome = run_cell(driver, cell, text)
                assert outcome.want is not None and outcome.want.calls == (("l.weather", PARIS),), str(outcome)
                assert outcome.want.content.strip() == "Checking.", str(outcome)
                outcomes.append(outcome)
    _assert_served_as_read(outcomes)
