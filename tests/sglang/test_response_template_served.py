"""The shipped response templates (``longcat_plugins/response_templates``) served by SGLang's own template parsers,
``--tool-call-parser response_template --reasoning-parser response_template``: the SGLang replay server with the
template in its model's tokenizer_config.json (``serve --response-template NAME``), and the official openai client,
streamed and not.

One server for the module, with longcat-kv (LongCat key/value calls; the model opens ``<longcat_think>`` itself),
replaying one turn written in its dialect: reasoning, a sentence, two calls. SGLang hands the prompt to the template
parsers as their prefix. What the client receives equals the core's one-pass reading of the turn but for the
differences named in :data:`DIFFERENCES`, each asserted exactly. (The template's reading does not depend on where
SGLang's stream cuts the text, so the chunks SGLang's processes happen to merge change nothing.)
"""

from __future__ import annotations

import os
import pkgutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
from replay_support import Folded, Server, openai_client
from response_template_support import (
    CALLS,
    TOOLS,
    ask,
    core_reading,
    json_calls,
    template_server,
    tool_deltas,
    turn_output,
)
from sglang_support import STANDINS

from longcat_plugins import response_templates
from longcat_plugins.contracts import SGLANG_RESPONSE_TEMPLATES
from longcat_plugins.doctor.drift import check

pytestmark = pytest.mark.sglang

NAME: Final = "longcat-kv"
OUTPUT: Final = turn_output(NAME, reasoning_in_prompt=False)
PARSER_FLAGS: Final = (
    "--engine", "sglang", "--", "--tool-call-parser", "response_template", "--reasoning-parser", "response_template",
)  # fmt: skip


@dataclass(frozen=True)
class Difference:
    reason: str
    #: what the core's reading becomes (None: the difference is in how the stream is cut, asserted apart)
    adjust: Callable[[Folded], Folded] | None


#: where what SGLang serves differs from the core's reading of the same turn, and why
DIFFERENCES: Final = {
    "name first, arguments at close": Difference(
        "SGLang's template detector sends a call's id and name when its opener is read (arguments empty), then all "
        "its arguments in one delta when the call closes; the core streams a call's arguments as they are generated",
        None,
    ),
    "forced call read as SGLang's JSON array": Difference(
        "SGLang does not refuse tool_choice required or a named function with a response template: the template "
        "detector owns no format for them, so SGLang constrains the output from its first token with its generic "
        "JSON-array schema (no reasoning is read) and reads the output as that array. The replay constrains nothing: "
        "the turn, no JSON array, comes back verbatim as content, and finish_reason is stop",
        lambda got: Folded(content=OUTPUT, finish_reason="stop"),
    ),
}
#: the differences of each request (in the order they apply)
WHOLE: Final = ()
STREAMED: Final = ("name first, arguments at close",)
FORCED_CALL: Final = ("forced call read as SGLang's JSON array",)

#: what SGLang's template detector refuses with tool_choice auto: request and the 400's message
STRICT_TOOLS: Final = [{**TOOLS[0], "function": {**TOOLS[0]["function"], "strict": True}}]
REFUSED: Final = {
    "strict": ({"tools": STRICT_TOOLS}, "ResponseTemplateToolDetector does not support strict tool constraints"),
    "not parallel": (
        {"parallel_tool_calls": False},
        "ResponseTemplateToolDetector cannot enforce parallel_tool_calls=False with automatic tool choice",
    ),
}
FORCED: Final = {
    "required": {"tool_choice": "required"},
    "named": {"tool_choice": {"type": "function", "function": {"name": "get_weather"}}},
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with pytest.MonkeyPatch.context() as monkeypatch:
        # the server process imports what the tests import (SGLang's HTTP server needs the torchvision stand-in here)
        if str(STANDINS) in sys.path:
            paths = (str(STANDINS), os.environ.get("PYTHONPATH"))
            monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in paths if p))
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
        with template_server(tmp_path_factory.mktemp("response-templates"), NAME, OUTPUT, *PARSER_FLAGS) as running:
            yield running


@pytest.fixture(scope="module")
def client(server: Server) -> Any:
    return openai_client(server)


@pytest.mark.parametrize("name", response_templates.names())
def test_sglangs_validator_accepts_every_shipped_template(name: str) -> None:
    for contract in SGLANG_RESPONSE_TEMPLATES:
        assert check(contract) is None
    validate = pkgutil.resolve_name(SGLANG_RESPONSE_TEMPLATES[0].target)
    assert set(validate(response_templates.load(name)).fields) == {"thinking", "tool_calls", "content"}


def expected(differences: tuple[str, ...]) -> Folded:
    """The core's reading of the turn with ``differences`` applied."""
    got = core_reading(OUTPUT, reasoning_in_prompt=False)
    for name in differences:
        adjust = DIFFERENCES[name].adjust
        if adjust is not None:
            got = adjust(got)
    return got


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_served_turn_is_the_core_reading_but_for_the_named_differences(client: Any, stream: bool) -> None:
    differences = STREAMED if stream else WHOLE
    got, chunks = ask(client, stream)
    assert got.finish_reason == "tool_calls"
    assert json_calls(got) == CALLS
    assert got.same_message() == expected(differences).same_message()
    if "name first, arguments at close" in differences:
        assert tool_deltas(chunks) == [
            delta
            for index, (call, arguments) in enumerate(got.calls)
            for delta in ((index, True, call, ""), (index, False, None, arguments))
        ]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("forced", list(FORCED))
def test_a_forced_call_is_not_read_with_the_template(client: Any, forced: str, stream: bool) -> None:
    got, _ = ask(client, stream, **FORCED[forced])
    want = expected(FORCED_CALL)
    assert (got.same_message(), got.finish_reason) == (want.same_message(), want.finish_reason)


def test_every_named_difference_is_served() -> None:
    """The table names no difference that no request shows."""
    assert {*WHOLE, *STREAMED, *FORCED_CALL} == set(DIFFERENCES)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("refused", list(REFUSED))
def test_what_the_template_detector_cannot_hold_is_a_400(client: Any, refused: str, stream: bool) -> None:
    import openai

    request, message = REFUSED[refused]
    with pytest.raises(openai.BadRequestError) as info:
        ask(client, stream, **request)
    assert info.value.status_code == 400
    assert info.value.body == {"object": "error", "message": message, "type": "BadRequest", "param": None, "code": 400}
