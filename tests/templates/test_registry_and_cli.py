"""The name -> path registry, the vLLM fallback, and the ``template`` / ``render`` subcommands."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from template_cases import GOLDEN_SYSTEM, GOLDEN_TOOL_CALLS, TEMPLATE_NAMES, TOOL_CALLS, WEATHER, WITH_SYSTEM

from longcat_plugins import templates
from longcat_plugins.cli import main


def test_names_map_to_shipped_files() -> None:
    assert templates.names() == sorted(TEMPLATE_NAMES)
    for name in TEMPLATE_NAMES:
        path = templates.template_path(name)
        assert path.is_absolute() and path.is_file() and path.suffix == ".jinja"
        assert path.parent == Path(templates.__file__).resolve().parent
        assert templates.resolve(name) == path


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(templates.UnknownTemplateError) as info:
        templates.template_path("longcat")
    for name in TEMPLATE_NAMES:
        assert name in str(info.value)
    with pytest.raises(LookupError):
        templates.render("no-such-template", [{"role": "user", "content": "x"}])


def test_render_accepts_a_path(tmp_path: Path) -> None:
    custom = tmp_path / "custom.jinja"
    custom.write_text("{% for m in messages %}{{ m.role }}:{{ m.content }}\n{% endfor %}", encoding="utf-8")
    assert templates.render(custom, WITH_SYSTEM) == "system:You are a helpful assistant.\nuser:Hi\n"
    assert templates.render(str(custom), WITH_SYSTEM) == templates.render(custom, WITH_SYSTEM)


def test_vllm_fallback_for_longcat_flash() -> None:
    assert templates.vllm_fallback_path("longcat_flash") == templates.template_path("longcat-flash-chat")
    assert templates.vllm_fallback_path("llama") is None


def test_render_does_not_mutate_messages() -> None:
    before = json.dumps(TOOL_CALLS)
    templates.render("xml-function-thinking", TOOL_CALLS)
    assert json.dumps(TOOL_CALLS) == before


def test_render_refuses_arguments_that_are_not_a_json_object() -> None:
    bad = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"function": {"name": "f", "arguments": "{oops"}}],
        }
    ]
    with pytest.raises(ValueError, match="not valid JSON"):
        templates.render("longcat-flash-chat", bad)
    listed = [{"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "[1]"}}]}]
    with pytest.raises(ValueError, match="JSON object"):
        templates.render("longcat-flash-chat", listed)


def test_segment_renderer_has_sglangs_python_template_shape() -> None:
    render_segments = templates.segment_renderer("longcat-flash-chat")
    segments = render_segments(messages=WITH_SYSTEM, tools=None, documents=None, add_generation_prompt=True)
    assert segments == [templates.render("longcat-flash-chat", WITH_SYSTEM)]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _write(path: Path, data: Any) -> str:
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_template_prints_the_path(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["template", "longcat-flash-chat"], capsys)
    assert (code, err) == (0, "")
    assert out == f"{templates.template_path('longcat-flash-chat')}\n"


def test_template_list(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["template", "--list"], capsys)
    assert code == 0
    assert [line.split("\t")[0] for line in out.splitlines()] == templates.names()


def test_template_unknown_name(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["template", "nope"], capsys)
    assert (code, out) == (2, "")
    assert err.startswith("longcat-plugins template: error: unknown chat template 'nope'")
    assert "longcat-flash-chat" in err and err.count("\n") == 1


def test_render_prints_the_prompt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    messages = _write(tmp_path / "messages.json", TOOL_CALLS)
    tools = _write(tmp_path / "tools.json", [WEATHER])
    argv = ["render", "--template", "xml-function-thinking", "--messages", messages, "--tools", tools]
    code, out, err = _run([*argv, "--kwargs", '{"enable_thinking": false}'], capsys)
    assert (code, err) == (0, "")
    assert out == templates.render("xml-function-thinking", TOOL_CALLS, [WEATHER], enable_thinking=False) + "\n"


def test_render_reads_messages_and_tools_from_one_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    request = _write(tmp_path / "request.json", {"messages": WITH_SYSTEM, "tools": [WEATHER]})
    code, out, _ = _run(["render", "--template", "longcat-flash-chat", "--messages", request], capsys)
    assert code == 0
    assert out == templates.render("longcat-flash-chat", WITH_SYSTEM, [WEATHER]) + "\n"


def test_render_without_generation_prompt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    messages = _write(tmp_path / "m.json", WITH_SYSTEM)
    argv = ["render", "--template", "longcat-flash-chat", "--messages", messages, "--no-generation-prompt"]
    code, out, _ = _run(argv, capsys)
    assert (code, out) == (0, "SYSTEM:You are a helpful assistant. [Round 0] USER:Hi\n")


@pytest.mark.parametrize(
    ("files", "extra", "message"),
    [
        ({}, ["--template", "nope"], "unknown chat template"),
        ({}, ["--messages", "/nonexistent/m.json"], "/nonexistent/m.json: no such file"),
        ({"m.json": "{not json"}, [], "m.json: the messages file is not valid JSON"),
        ({"m.json": '"just a string"'}, [], "list of message objects"),
        ({"t.json": "{bad"}, ["--tools", "TMP/t.json"], "t.json: the tools file is not valid JSON"),
        ({"t.json": '{"a": 1}'}, ["--tools", "TMP/t.json"], "expected a JSON list of tools"),
        ({"t.json": '[1, "x", null]'}, ["--tools", "TMP/t.json"], "tools[0] is 1, not a tool object"),
        ({"t.json": b"[\xff]"}, ["--tools", "TMP/t.json"], "t.json: not UTF-8 text"),
        ({}, ["--kwargs", "{bad"], "--kwargs is not valid JSON"),
        ({}, ["--kwargs", "[1]"], "--kwargs must be a JSON object"),
        ({}, ["--kwargs", '{"messages": []}'], "may not set messages"),
        ({"m.json": '[{"role": "user", "content": "a"}, {"role": "system", "content": "b"}]'}, [], "failed"),
    ],
)
def test_render_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], files: dict[str, str | bytes], extra: list[str], message: str
) -> None:
    (tmp_path / "m.json").write_text('[{"role": "user", "content": "hi"}]', encoding="utf-8")
    for name, text in files.items():
        if isinstance(text, bytes):
            (tmp_path / name).write_bytes(text)
        else:
            (tmp_path / name).write_text(text, encoding="utf-8")
    argv = ["render", "--template", "longcat-flash-chat", "--messages", str(tmp_path / "m.json")]
    argv += [arg.replace("TMP", str(tmp_path)) for arg in extra]
    code, out, err = _run(argv, capsys)
    assert (code, out) == (2, "")
    assert err.startswith("longcat-plugins render: error: ") and message in err and err.count("\n") == 1


def test_console_script_when_the_cli_exists() -> None:
    pytest.importorskip("longcat_plugins.cli")
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from longcat_plugins.cli import main; sys.exit(main())",
            "template",
            "qwen3-tools-first",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(templates.template_path("qwen3-tools-first"))


def test_engine_test_goldens_are_what_render_gives() -> None:
    for name in TEMPLATE_NAMES:
        assert templates.render(name, WITH_SYSTEM) == GOLDEN_SYSTEM[name]
        assert templates.render(name, TOOL_CALLS) == GOLDEN_TOOL_CALLS[name]
