"""The shipped response templates are generated from the dialects' declarations, load under transformers' own
loader, and read back what their dialect writes (a call as the chat template writes it and constrained decoding
forces it), with reasoning before it and text around it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from longcat_plugins import response_templates as R
from longcat_plugins.core.dialects import DIALECTS

transformers = pytest.importorskip("transformers")
from transformers.utils.chat_parsing import parse_response  # noqa: E402
from transformers.utils.chat_parsing.response_templates import load_response_template  # noqa: E402

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "parameters": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "lines": {"type": "integer"},
                    "force": {"type": "boolean"},
                    "content": {"type": "string"},
                },
            },
        },
    }
]
ARGUMENTS = {"path": "src/app.py", "lines": 2, "force": True, "content": 'print("hi")\nprint("there")'}


@pytest.mark.parametrize("name", R.names())
def test_the_shipped_file_is_what_the_declarations_generate(name: str) -> None:
    assert R.path(name).read_text("utf-8") == R.file_text(name), (
        f"{R.path(name)} is out of date: python -c 'from longcat_plugins import response_templates as R; "
        "[R.path(n).write_text(R.file_text(n)) for n in R.names()]'"
    )


@pytest.mark.parametrize("name", R.names())
def test_transformers_loads_it(name: str) -> None:
    loaded = load_response_template(R.load(name))
    assert set(loaded.fields) == {"thinking", "tool_calls", "content"} and loaded.implicit == "content"


def test_every_dialect_has_a_template() -> None:
    assert {R.spec(name).dialect for name in R.names()} == set(DIALECTS)


@pytest.mark.parametrize("name", R.names())
@pytest.mark.parametrize("reasoning_in_prompt", [False, True])
def test_it_reads_what_its_dialect_writes(name: str, reasoning_in_prompt: bool) -> None:
    """Reasoning (opened in the output, or by the chat template in the prompt), a sentence, two calls written as the
    dialect writes them, then the end-of-turn marker. Content is the exact text around the markup, as the parser
    reads it."""
    spec = R.spec(name)
    dialect = DIALECTS[spec.dialect]
    think_open, think_close = spec.think
    calls = dialect.write("write_file", ARGUMENTS) + "\n" + dialect.write("write_file", {"path": "b.txt"})
    output = f"Plan the edit.{think_close}\n\nWriting it now.\n{calls}{spec.end_markers[0]}"
    prefix = f"USER: edit {spec.start_anchor}{think_open}" if reasoning_in_prompt else spec.start_anchor
    if not reasoning_in_prompt:
        output = think_open + output
    message = parse_response(output, R.load(name), prefix=prefix, tools=TOOLS)
    assert message["thinking"] == "Plan the edit."
    assert message["content"] == "\n\nWriting it now.\n"
    assert [_call(c) for c in message["tool_calls"]] == [("write_file", ARGUMENTS), ("write_file", {"path": "b.txt"})]


def _call(call: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    function = call["function"]
    arguments = function["arguments"]
    return function["name"], json.loads(arguments) if isinstance(arguments, str) else arguments


@pytest.mark.parametrize("name", R.names())
def test_every_pattern_starts_with_a_literal(name: str) -> None:
    """vLLM's Rust frontend refuses a pattern that does not start with a literal ("must start with a literal prefix
    for streaming matching"): the template would load everywhere else and fail every request there."""
    for field_name, field in R.load(name)["fields"].items():
        for key in ("open_pattern", "close_pattern"):
            if key in field:
                assert field[key][0] not in "\\([{.*+?|^$", f"{field_name}.{key}: {field[key]!r}"


@pytest.mark.parametrize("name", R.names())
def test_no_pattern_looks_around(name: str) -> None:
    """The Rust frontend's regex engine has no look-ahead or look-behind ("not supported by the Rust regex engine"):
    a template with one is refused there."""
    text = json.dumps(R.load(name))
    assert not any(look in text for look in ("(?=", "(?!", "(?<=", "(?<!")), text
