"""The shipped response templates (``longcat_plugins/response_templates``) served by vLLM's own template parsers,
``--tool-call-parser hf --reasoning-parser hf``: the replay server with the template in its model's
tokenizer_config.json (``serve --response-template NAME``), and the official openai client, streamed and not.

vLLM reads one response template per model: one server per template, each replaying one turn written in its dialect
(reasoning, a sentence, two calls): qwen3-tools-first (Hermes JSON calls; the model opens ``<think>`` itself) and
xml-function-thinking (XML function calls; the chat template pre-opens ``<think>``, so the output starts inside the
reasoning, and vLLM hands the prompt to the template parser as its prefix). What the client receives equals the
core's one-pass reading of the turn but for the differences named in :data:`DIFFERENCES`, each asserted exactly.
"""

from __future__ import annotations

import json
import pkgutil
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, replace
from typing import Any, Final

import pytest
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

from longcat_plugins import response_templates
from longcat_plugins.contracts import VLLM_RESPONSE_TEMPLATES
from longcat_plugins.doctor.drift import check

pytestmark = pytest.mark.vllm

PARSER_FLAGS: Final = ("--", "--tool-call-parser", "hf", "--reasoning-parser", "hf")


@dataclass(frozen=True)
class Difference:
    reason: str
    #: what the core's reading becomes (None: the difference is in how the stream is cut, asserted apart)
    adjust: Callable[[Folded], Folded] | None


def _reserialized(got: Folded) -> Folded:
    return replace(got, calls=[(name, json.dumps(json.loads(args), ensure_ascii=False)) for name, args in got.calls])


#: where what vLLM serves differs from the core's reading of the same turn, and why
DIFFERENCES: Final = {
    "arguments re-serialized": Difference(
        "a JSON body is parsed and its arguments written again (json.dumps, ensure_ascii=False): the model's \\u "
        "escapes become the characters; the core keeps the arguments as the model wrote them",
        _reserialized,
    ),
    "call in one delta": Difference(
        "vLLM's template parser sends a call when its region closes, id, name and all arguments in one delta; the "
        "core streams a call's arguments as they are generated",
        None,
    ),
}


@dataclass(frozen=True)
class Served:
    name: str
    reasoning_in_prompt: bool
    #: the differences, whole and streamed (in the order they apply)
    whole: tuple[str, ...]
    streamed: tuple[str, ...]


SERVED: Final = {
    served.name: served
    for served in (
        Served(
            "qwen3-tools-first",
            reasoning_in_prompt=False,
            whole=("arguments re-serialized",),
            streamed=("arguments re-serialized", "call in one delta"),
        ),
        Served(
            "xml-function-thinking",
            reasoning_in_prompt=True,
            whole=(),
            streamed=("call in one delta",),
        ),
    )
}

#: what vLLM's template parser cannot guarantee: request, what its 400 names, and the request parameter
STRICT_TOOLS: Final = [{**TOOLS[0], "function": {**TOOLS[0]["function"], "strict": True}}]
NAMED: Final = {"type": "function", "function": {"name": "get_weather"}}
REFUSED: Final = {
    "required": ({"tool_choice": "required"}, "required tool choice", "tool_choice"),
    "named": ({"tool_choice": NAMED}, "named tool choice", "tool_choice"),
    "strict": ({"tools": STRICT_TOOLS}, "strict tools", "tools"),
    "not parallel": ({"parallel_tool_calls": False}, "parallel_tool_calls=False", "parallel_tool_calls"),
}  # fmt: skip


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Server]]:
    directory = tmp_path_factory.mktemp("response-templates")
    with ExitStack() as stack:
        yield {
            name: stack.enter_context(
                template_server(directory, name, turn_output(name, served.reasoning_in_prompt), *PARSER_FLAGS)
            )
            for name, served in SERVED.items()
        }


@pytest.fixture(scope="module")
def clients(servers: dict[str, Server]) -> dict[str, Any]:
    return {name: openai_client(server) for name, server in servers.items()}


def expected(served: Served, differences: tuple[str, ...]) -> Folded:
    """The core's reading of the served turn with ``differences`` applied."""
    got = core_reading(turn_output(served.name, served.reasoning_in_prompt), served.reasoning_in_prompt)
    for name in differences:
        adjust = DIFFERENCES[name].adjust
        if adjust is not None:
            got = adjust(got)
    return got


@pytest.mark.parametrize("name", response_templates.names())
def test_vllms_validator_accepts_every_shipped_template(name: str) -> None:
    for contract in VLLM_RESPONSE_TEMPLATES:
        assert check(contract) is None
    validate = pkgutil.resolve_name(VLLM_RESPONSE_TEMPLATES[0].target)
    assert set(validate(response_templates.load(name)).fields) == {"thinking", "tool_calls", "content"}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("name", list(SERVED))
def test_served_turn_is_the_core_reading_but_for_the_named_differences(
    clients: dict[str, Any], name: str, stream: bool
) -> None:
    served = SERVED[name]
    differences = served.streamed if stream else served.whole
    got, chunks = ask(clients[name], stream)
    assert got.finish_reason == "tool_calls"
    assert json_calls(got) == CALLS
    assert got.same_message() == expected(served, differences).same_message()
    if "call in one delta" in differences:
        assert tool_deltas(chunks) == [
            (index, True, call, arguments) for index, (call, arguments) in enumerate(got.calls)
        ]


def test_every_named_difference_is_served() -> None:
    """The table names no difference that no served turn shows."""
    used = {d for served in SERVED.values() for d in (*served.whole, *served.streamed)}
    assert used == set(DIFFERENCES)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("refused", list(REFUSED))
def test_guarantees_the_template_parser_cannot_give_are_a_400(
    clients: dict[str, Any], refused: str, stream: bool
) -> None:
    import openai

    request, guarantee, parameter = REFUSED[refused]
    with pytest.raises(openai.BadRequestError) as info:
        ask(clients["qwen3-tools-first"], stream, **request)
    assert info.value.status_code == 400
    message = f"response_template parsing cannot guarantee {guarantee} without a format-compatible structural grammar"
    assert str(info.value) == f"Error code: 400 - {message} (parameter={parameter})"
