"""The ``longcat-plugins`` console script as a user runs it: status, and one line on stderr for every mistake.

Each test runs the installed script in a subprocess (``tests/cli_support.py``): Ctrl-C, a full disk, invalid
UTF-8 under a strict locale, an endless input, malformed tools files, and the options of ``parse`` / ``render``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import signal
import subprocess
import time
from pathlib import Path

import pytest

from longcat_plugins import templates
from longcat_plugins.examples import EXAMPLES_DIR, recordings
from tests.cli_support import cli_env, run_cli, script

NO_ENGINE = all(importlib.util.find_spec(engine) is None for engine in ("vllm", "sglang"))
needs_no_engine = pytest.mark.skipif(not NO_ENGINE, reason="runs where no engine is installed (the core env)")

WEATHER_TOOLS = str(EXAMPLES_DIR / "weather_tools.json")
PROMPT_ERROR = "longcat-plugins {command}: error: "


def _one_error_line(err: str, command: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got:\n{err}"
    assert lines[0].startswith(PROMPT_ERROR.format(command=command)), lines[0]
    return lines[0]


# -- one prefix for every subcommand ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "command", "message"),
    [
        (["parse"], "parse", "nothing to parse"),
        (["parse", "/nonexistent/out.txt"], "parse", "/nonexistent/out.txt: no such file"),
        (["template", "nope"], "template", "unknown chat template 'nope'"),
        (["template"], "template", "give a template name"),
        (["render", "--template", "nope", "--messages", "-"], "render", "unknown chat template 'nope'"),
        (["example", "nope"], "example", "no shipped example file 'nope'"),
        (["serve", "--replay", "/nonexistent/r.jsonl"], "serve", "/nonexistent/r.jsonl: no such file"),
        (["serve", "--replay", "weather_agent", "--engine", "sglang", "--no-parsers"], "serve", "a vLLM option"),
        (["serve", "--replay", "weather_agent", "--response-template", "nope"], "serve", "unknown response template"),
        (["serve", "--replay", "weather_agent", "--response-template", "/no/t.json"], "serve", "cannot read a JSON"),
        (["proxy", "--upstream", "127.0.0.1:8000"], "proxy", "expected an http:// or https:// URL"),
        (["proxy", "--upstream", "http://h/v1?key=1"], "proxy", "without a query"),
        (["proxy", "--upstream", "http://h", "--max-event-bytes", "10"], "proxy", "expected at least 1024"),
    ],
)
def test_every_subcommand_reports_a_mistake_the_same_way(args: list[str], command: str, message: str) -> None:
    result = run_cli(*args, input="")
    assert result.status == 2
    assert result.out == ""
    assert message in _one_error_line(result.err, command)


def test_chat_template_substitution_stops_a_script_on_a_wrong_name() -> None:
    """``--chat-template "$(longcat-plugins template NAME)"``: a wrong name is an error, not an empty flag."""
    script_text = f'set -e\nflag="$({script()} template longcat-flash-cht)"\necho "reached with [$flag]"\n'
    proc = subprocess.run(["bash", "-c", script_text], capture_output=True, text=True, env=cli_env(), check=False)
    assert proc.returncode == 2
    assert "reached" not in proc.stdout
    assert "unknown chat template 'longcat-flash-cht'" in proc.stderr
    good = run_cli("template", "longcat-flash-chat")
    assert (good.status, good.out.strip()) == (0, str(templates.template_path("longcat-flash-chat")))


# -- Ctrl-C ----------------------------------------------------------------------------------------------------


def _blocked_reading_stdin(pid: int) -> bool:
    """Whether the process is inside read(0, ...) (Linux: /proc/PID/syscall)."""
    read_syscall = {"x86_64": "0", "aarch64": "63"}.get(platform.machine())
    try:
        fields = Path(f"/proc/{pid}/syscall").read_text().split()
    except OSError:
        pytest.skip("/proc/PID/syscall is not readable here")
    if read_syscall is None:
        pytest.skip(f"read's syscall number on {platform.machine()} is not known to this test")
    return len(fields) > 1 and fields[0] == read_syscall and int(fields[1], 16) == 0


def _sigint_as_in_a_terminal() -> None:
    """A shell starts a background job with SIGINT ignored, and its children inherit that (CI may run the suite so):
    the command under test gets the default disposition a terminal gives it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt_when(proc: subprocess.Popen[bytes], ready: object) -> tuple[int, str]:
    deadline = time.monotonic() + 60
    while not ready():  # type: ignore[operator]
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the command never got ready to be interrupted"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err.decode("utf-8", "backslashreplace")


@pytest.mark.parametrize(
    ("args", "command"),
    [(["parse", "-"], "parse"), (["render", "--template", "longcat-flash-chat", "--messages", "-"], "render")],
)
def test_ctrl_c_while_reading_stdin(args: list[str], command: str) -> None:
    proc = subprocess.Popen(
        [script(), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=cli_env(),
        preexec_fn=_sigint_as_in_a_terminal,
    )
    try:
        status, err = _interrupt_when(proc, lambda: _blocked_reading_stdin(proc.pid))
    finally:
        proc.kill()
    assert status == 130
    assert err.splitlines() == [f"longcat-plugins {command}: interrupted"]


def test_ctrl_c_during_doctor(tmp_path: Path) -> None:
    """The doctor interrupted in the middle of its checks (held there by a stand-in that waits)."""
    (tmp_path / "sitecustomize.py").write_text(
        "import sys, time\n"
        "import longcat_plugins.doctor.runner as runner\n"
        "def waiting(*args, **kwargs):\n"
        "    print('checks started', file=sys.stderr, flush=True)\n"
        "    time.sleep(120)\n"
        "runner.run_checks = waiting\n",
        encoding="utf-8",
    )
    env = cli_env(PYTHONPATH=os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])))
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    proc = subprocess.Popen([script(), "doctor"], **pipes, env=env, preexec_fn=_sigint_as_in_a_terminal)
    assert proc.stderr is not None
    try:
        assert proc.stderr.readline().strip() == b"checks started"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130
    assert err.decode().splitlines() == ["longcat-plugins doctor: interrupted"]


# -- output that cannot be written -------------------------------------------------------------------------------


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
@pytest.mark.parametrize(
    ("args", "command"),
    [
        (["parse", "--example", "weather"], "parse"),
        (["parse", "--example", "weather", "--stream"], "parse"),
        (["template", "--list"], "template"),
        (["example", "--list"], "example"),
        (["render", "--template", "longcat-flash-chat", "--messages", str(EXAMPLES_DIR / "weather_messages.json")],
         "render"),
        (["doctor", "--quick", "--json"], "doctor"),
    ],
)
def test_a_full_disk_is_one_line(args: list[str], command: str) -> None:
    with open("/dev/full", "w") as full:
        proc = subprocess.run([script(), *args], stdout=full, stderr=subprocess.PIPE, env=cli_env(), check=False)
    err = proc.stderr.decode()
    assert proc.returncode == 1, err
    assert err.splitlines() == [f"longcat-plugins {command}: error: cannot write the output: No space left on device"]


def test_a_reader_that_goes_away_is_not_an_error() -> None:
    proc = subprocess.run(
        f"{script()} parse --example weather --stream --chunk 1 | head -n 1",
        shell=True,
        capture_output=True,
        env=cli_env(),
        check=False,
    )
    assert proc.returncode == 0
    assert proc.stderr == b""


# -- input: encoding and size ------------------------------------------------------------------------------------

STRICT_LOCALES = [
    {"LC_ALL": "C.UTF-8", "PYTHONUTF8": "0"},
    {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"},
]


@pytest.mark.parametrize("locale", STRICT_LOCALES, ids=["C.UTF-8", "C"])
@pytest.mark.parametrize(
    ("args", "command"),
    [(["parse", "-"], "parse"), (["render", "--template", "longcat-flash-chat", "--messages", "-"], "render")],
)
def test_invalid_utf8_on_stdin(locale: dict[str, str], args: list[str], command: str) -> None:
    result = run_cli(*args, input=b'[{"role": "user", "content": "caf\xe9"}]', env=cli_env(**locale))
    assert result.status == 2
    assert "-: not UTF-8 text (invalid continuation byte at byte" in _one_error_line(result.err, command)


@pytest.mark.parametrize("locale", STRICT_LOCALES, ids=["C.UTF-8", "C"])
def test_output_is_utf8_whatever_the_locale(locale: dict[str, str]) -> None:
    result = run_cli("parse", "--example", "weather", env=cli_env(**locale))
    assert result.status == 0, result.err
    assert "東京" in result.out


def test_render_names_the_file_that_is_not_utf8(tmp_path: Path) -> None:
    messages = tmp_path / "messages.json"
    messages.write_bytes(b'[{"role": "user", "content": "\xff"}]')
    result = run_cli("render", "--template", "longcat-flash-chat", "--messages", str(messages))
    assert result.status == 2
    assert f"{messages}: not UTF-8 text (invalid start byte at byte 30)" in _one_error_line(result.err, "render")


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_an_endless_input_stops_at_the_limit() -> None:
    result = run_cli("parse", "/dev/zero")
    assert result.status == 2
    assert "/dev/zero: larger than 64 MiB" in _one_error_line(result.err, "parse")


# -- tools files -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tools", "message"),
    [
        ([1, "x", None], "tools[0] is 1, not a tool object"),
        ([{"type": "function", "function": {"name": "a"}}, "x"], 'tools[1] is "x", not a tool object'),
        ([{"type": "function", "function": {"description": "no name"}}], "tools[0] has no function name"),
        ([{"type": "function"}], "tools[0] has no 'function' object"),
        ([{"function": {"name": 3}}], "tools[0] has function name 3, not a non-empty string"),
        ([{"type": "retrieval", "function": {"name": "a"}}], "tools[0] has type \"retrieval\", expected 'function'"),
        ([{"function": {"name": "a", "parameters": []}}], "tools[0] (a) has 'parameters' [], not a JSON schema"),
        ({"tools": "x"}, "expected a JSON list of tools"),
    ],
)
@pytest.mark.parametrize("command", ["parse", "render"])
def test_a_malformed_tools_file_is_refused_naming_the_entry(
    tmp_path: Path, tools: object, message: str, command: str
) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(tools), encoding="utf-8")
    if command == "parse":
        args = ["parse", str(EXAMPLES_DIR / "weather_longcat.txt"), "--tools", str(path)]
    else:
        args = ["render", "--template", "longcat-flash-chat", "--messages", str(EXAMPLES_DIR / "weather_messages.json")]
        args += ["--tools", str(path)]
    result = run_cli(*args)
    assert result.status == 2
    line = _one_error_line(result.err, command)
    assert line.startswith(f"longcat-plugins {command}: error: {path}: ")
    assert message in line


def test_tools_objects_are_read_by_parse_and_render(tmp_path: Path) -> None:
    wrapped = tmp_path / "request_tools.json"
    wrapped.write_text(json.dumps({"tools": json.loads(Path(WEATHER_TOOLS).read_text())}), encoding="utf-8")
    messages = str(EXAMPLES_DIR / "weather_messages.json")
    for tools in (WEATHER_TOOLS, str(wrapped)):
        rendered = run_cli("render", "--template", "longcat-flash-chat", "--messages", messages, "--tools", tools)
        assert rendered.status == 0 and "get_weather" in rendered.out, rendered.err
        parsed = run_cli("parse", str(EXAMPLES_DIR / "weather_longcat.txt"), "--tools", tools)
        assert parsed.status == 0 and len(json.loads(parsed.out)["message"]["tool_calls"]) == 2


# -- parse -------------------------------------------------------------------------------------------------------


def test_parse_reports_the_finish_reason_and_names_reasoning_as_vllm() -> None:
    result = run_cli("parse", "--example", "weather")
    choice = json.loads(result.out)
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["reasoning"].startswith("The user wants the weather")
    assert "reasoning_content" not in choice["message"]
    plain = run_cli("parse", "-", input="Just an answer.")
    assert json.loads(plain.out) == {
        "message": {"role": "assistant", "content": "Just an answer.", "reasoning": None, "tool_calls": []},
        "finish_reason": "stop",
    }


def test_parse_names_reasoning_as_sglang() -> None:
    message = json.loads(run_cli("parse", "--example", "weather", "--engine", "sglang").out)["message"]
    assert "reasoning" not in message and message["reasoning_content"].startswith("The user wants")
    lines = run_cli("parse", "--example", "weather", "--engine", "sglang", "--stream").out.splitlines()
    assert "reasoning_content" in json.loads(lines[0])["delta"]


def test_parse_stream_ends_with_the_finish_reason() -> None:
    lines = [json.loads(line) for line in run_cli("parse", "--example", "weather", "--stream").out.splitlines()]
    assert all(line["finish_reason"] is None for line in lines[:-1])
    assert lines[-1] == {"delta": {}, "finish_reason": "tool_calls"}


def test_parse_reasoning_open() -> None:
    text = "Two cities, two calls.\n</think>\nHere you go."
    closed = json.loads(run_cli("parse", "-", input=text).out)["message"]
    opened = json.loads(run_cli("parse", "-", "--reasoning-open", input=text).out)["message"]
    assert closed["reasoning"] is None
    assert opened["reasoning"] == "Two cities, two calls.\n" and opened["content"] == "\nHere you go."


def test_parse_seed_makes_call_ids_repeatable() -> None:
    def ids(*extra: str) -> list[str]:
        out = run_cli("parse", "--example", "weather", *extra).out
        return [call["id"] for call in json.loads(out)["message"]["tool_calls"]]

    first = ids("--seed", "7")
    assert first == ids("--seed", "7")
    assert first != ids("--seed", "8")
    assert all(i.startswith("call_") and len(i) == 29 for i in first)
    streamed = run_cli("parse", "--example", "weather", "--stream", "--seed", "7").out.splitlines()
    stream_ids = [
        call["id"]
        for line in streamed
        for call in json.loads(line)["delta"].get("tool_calls", [])
        if "id" in call
    ]
    assert stream_ids == first


def test_parse_says_when_chunk_has_no_effect() -> None:
    result = run_cli("parse", "--example", "weather", "--chunk", "8")
    assert result.status == 0
    assert result.err_lines == ["longcat-plugins parse: warning: --chunk has no effect without --stream"]
    assert run_cli("parse", "--example", "weather", "--chunk", "8", "--stream").err == ""


UNKNOWN_CALL = '<longcat_tool_call>{"name": "book_flight", "arguments": {"to": "Oslo"}}</longcat_tool_call>'


@pytest.mark.parametrize(("value", "called"), [(None, False), ("0", False), ("1", True), ("true", True)])
def test_parse_honours_emit_unknown_calls(value: str | None, called: bool) -> None:
    env = cli_env()
    env.pop("LONGCAT_EMIT_UNKNOWN_CALLS", None)
    if value is not None:
        env["LONGCAT_EMIT_UNKNOWN_CALLS"] = value
    result = run_cli("parse", "-", "--tools", WEATHER_TOOLS, input=UNKNOWN_CALL, env=env)
    message = json.loads(result.out)["message"]
    assert [c["function"]["name"] for c in message["tool_calls"]] == (["book_flight"] if called else [])
    assert (message["content"] == UNKNOWN_CALL) is not called


def test_parse_refuses_a_bad_emit_unknown_calls_value_as_the_engines_do() -> None:
    result = run_cli("parse", "--example", "weather", env=cli_env(LONGCAT_EMIT_UNKNOWN_CALLS="sometimes"))
    assert result.status == 2
    assert "LONGCAT_EMIT_UNKNOWN_CALLS='sometimes': expected one of" in _one_error_line(result.err, "parse")


# -- render ------------------------------------------------------------------------------------------------------


def test_render_reads_messages_from_stdin() -> None:
    path = EXAMPLES_DIR / "weather_messages.json"
    from_file = run_cli("render", "--template", "longcat-flash-chat", "--messages", str(path))
    from_stdin = run_cli(
        "render", "--template", "longcat-flash-chat", "--messages", "-", input=path.read_text(encoding="utf-8")
    )
    assert from_stdin.status == 0 and from_stdin.out == from_file.out


def test_render_flattens_content_parts() -> None:
    parts = [{"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "text", "text": "there"}]}]
    for template in templates.names():
        vllm = run_cli("render", "--template", template, "--messages", "-", input=json.dumps(parts))
        sglang = run_cli(
            "render", "--template", template, "--messages", "-", "--engine", "sglang", input=json.dumps(parts)
        )
        assert "hi\nthere" in vllm.out and "hi there" in sglang.out
        assert "'type'" not in vllm.out


# -- shipped examples --------------------------------------------------------------------------------------------


def test_example_prints_the_path_of_a_shipped_file() -> None:
    listed = dict(line.split("\t") for line in run_cli("example", "--list").out.splitlines())
    assert "weather_agent.jsonl" in listed and Path(listed["weather_agent.jsonl"]).is_file()
    for name in ("weather_agent", "weather_agent.jsonl"):
        result = run_cli("example", name)
        assert (result.status, result.out.strip()) == (0, listed["weather_agent.jsonl"])
    assert set(recordings()) >= {"weather_agent", "weather_agent_longcat_kv", "weather_agent_qwen3_coder"}


@needs_no_engine
def test_serve_takes_the_name_of_a_shipped_recording() -> None:
    """The name is resolved (a wrong one would be 'no such file'); then serve needs vLLM, which is absent here."""
    result = run_cli("serve", "--replay", "weather_agent")
    assert result.status == 2
    assert "vLLM is not installed in this environment" in _one_error_line(result.err, "serve")


@pytest.mark.skipif(importlib.util.find_spec("aiohttp") is not None, reason="aiohttp is installed here")
def test_proxy_without_aiohttp_names_the_extra() -> None:
    result = run_cli("proxy", "--upstream", "http://127.0.0.1:8000")
    assert result.status == 2
    assert 'pip install "longcat-plugins[proxy]"' in _one_error_line(result.err, "proxy")


# -- doctor ------------------------------------------------------------------------------------------------------


@needs_no_engine
@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_doctor_fails_for_an_engine_named_but_not_installed(engine: str) -> None:
    result = run_cli("doctor", "--quick", "--engine", engine)
    assert result.status == 1
    assert f"problem: [{engine}] installed:" in result.out
    assert "doctor: 1 problem found" in result.out
    report = json.loads(run_cli("doctor", "--quick", "--json", "--engine", engine).out)
    assert report["ok"] is False


@needs_no_engine
def test_doctor_without_engine_still_passes_where_none_is_installed() -> None:
    result = run_cli("doctor", "--quick")
    assert result.status == 0
    assert "doctor: all checks passed" in result.out
