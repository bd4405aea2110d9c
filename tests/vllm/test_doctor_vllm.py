"""``longcat-plugins doctor`` against the real vLLM (a child process, as a user runs it), and every
``vllm serve`` command of deployment_guide.md through vLLM's own argument parser."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shlex
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import pytest

from longcat_plugins.contracts import VLLM_SUPPORTED
from tests.guide_commands import GUIDE, check_guide_has, guide_commands, shell_words
from tests.support import doctor
from tests.support.child import run_python

pytestmark = pytest.mark.vllm



def _without_allow_list() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "VLLM_PLUGINS"}


def _doctor(*args: str, **env: str) -> tuple[int, dict[str, Any], str]:
    return doctor.doctor_report("vllm", *args, env={**os.environ, **env})


def _vllm_rows(report: dict[str, Any]) -> dict[str, dict[str, str]]:
    return doctor.section_rows(report, "vllm")


def test_doctor_passes_with_vllm() -> None:
    doctor.check_doctor_passes("vllm", _without_allow_list())


def test_doctor_json_every_vllm_check_ok() -> None:
    tool, reasoning = "vllm.tool_parser.LongcatToolParser", "vllm.reasoning_parser.LongcatReasoningParser"
    doctor.check_every_check_ok("vllm", os.environ, doctor.ENGINE_CHECKS | {"frontend"}, tool, reasoning)


def _frontend_env(value: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "VLLM_USE_RUST_FRONTEND"}
    return env if value is None else {**env, "VLLM_USE_RUST_FRONTEND": value}


@pytest.mark.parametrize("value", [None, "0"])
def test_doctor_passes_the_python_frontend(value: str | None) -> None:
    code, report, stderr = doctor.doctor_report("vllm", env=_frontend_env(value))
    row = _vllm_rows(report)["frontend"]
    assert code == 0 and report["ok"], json.dumps(report, indent=1) + stderr[-2000:]
    assert row["status"] == "ok" and "vllm serve runs the Python API server" in row["detail"]
    assert "Rust frontend" not in stderr


def test_doctor_fails_the_rust_frontend_and_says_what_to_do() -> None:
    """``VLLM_USE_RUST_FRONTEND=1 vllm serve`` answers through vLLM's Rust frontend, which has no ``longcat``
    parser: the doctor fails it with the message the frontend stops with, and how to serve with ours."""
    code, report, stderr = doctor.doctor_report("vllm", env=_frontend_env("1"))
    rows = _vllm_rows(report)
    assert code == 1 and report["ok"] is False
    assert rows["frontend"]["status"] == "FAIL"
    assert "tool parser `longcat` is not registered" in rows["frontend"]["detail"]
    assert rows["frontend"]["fix"].startswith("export VLLM_USE_RUST_FRONTEND=0 (or unset it)")
    failed = {name for name, row in rows.items() if row["status"] == "FAIL"}
    assert failed == {"frontend"}, rows  # the plugin itself is fine: only the frontend cannot load it
    assert stderr.count("VLLM_USE_RUST_FRONTEND=1: vllm serve answers through vLLM's Rust frontend") == 1


def test_doctor_fails_when_the_allow_list_excludes_longcat() -> None:
    rows = doctor.check_allow_list_fails("vllm", "VLLM_PLUGINS", "none", {**os.environ, "VLLM_PLUGINS": "none"})
    # without our plugin, vLLM's built-in parser answers to "longcat": the doctor names it
    assert rows["tool parser"]["status"] == "FAIL"
    assert "vllm.tool_parsers.longcat_tool_parser" in rows["tool parser"]["detail"]
    assert "see the allow-list row" in rows["tool parser"]["fix"]
    assert rows["reasoning parser"]["status"] == "FAIL"


def test_doctor_quick_does_not_import_vllm() -> None:
    code, report, stderr = _doctor("--quick")
    assert code == 0
    rows = {
        "version", "entry point", "allow-list", "tool dialect", "unknown calls", "tool_choice none", "extra dialects",
        "frontend",
    }  # fmt: skip
    assert set(_vllm_rows(report)) == rows
    assert "importing" not in stderr


# -- version drift: a vLLM internal the adapter uses has moved ---------------------------------------------
# Simulated in a fresh interpreter (deleting one, or a fake version) before vLLM's own plugin loading runs.

VERSION = importlib.metadata.version("vllm")
STREAM_END_MOVED = """
import vllm.parser.abstract_parser as parser
del parser.DelegatingParser._flush_engine_parsers
"""
TOOL_IMPORT_MOVED = """
import vllm.parser.response_template  # vLLM's own users of the name (start-up imports them) import it first
import vllm.tool_parsers.tool_strict_level as tool_strict_level
del tool_strict_level.ToolStrictLevel
"""
FAKE_VERSION = """
import importlib.metadata as md
_version = md.version
md.version = lambda name: "0.35.0" if name == "vllm" else _version(name)
"""
SERVER_LOOKUP = """
from vllm.plugins import load_general_plugins
load_general_plugins()
from vllm.parser.parser_manager import ParserManager
from vllm.reasoning import ReasoningParserManager
from vllm.tool_parsers import ToolParserManager
from longcat_plugins.replay.tokenizer import train_bpe_tokenizer

tokenizer = train_bpe_tokenizer(["hello world"], ["<think>", "</think>"], vocab_size=300)
lookups = {"tool": ToolParserManager.get_tool_parser, "reasoning": ReasoningParserManager.get_reasoning_parser}
for name, lookup in lookups.items():
    cls = lookup("longcat")
    print(name, "resolves to", cls.__module__, cls.__name__)
for flags in ({"tool_parser_name": "longcat", "enable_auto_tools": True}, {"reasoning_parser_name": "longcat"}):
    try:  # what OpenAIServingChat does at start-up: compose the parsers and build them once with the tokenizer
        ParserManager.get_parser(**flags, model_name="m", tokenizer=tokenizer)
        print("start-up ok")
    except Exception as exc:
        print(f"start-up fails: {type(exc).__name__}: {exc}")
"""


def _server_lookup(drift: str) -> tuple[list[str], str]:
    result = run_python("-c", drift + SERVER_LOOKUP, env=_without_allow_list())
    assert result.returncode == 0, result.stderr[-4000:]
    lines = [line for line in result.stdout.splitlines() if line.startswith(("tool ", "reasoning ", "start-up "))]
    assert len(lines) == 4, result.stdout
    return lines, result.stderr


def _assert_names_the_versions(message: str, version: str = VERSION) -> None:
    assert "longcat-plugins 0.1.0" in message
    assert f"vLLM {version} lacks (tested with vllm{VLLM_SUPPORTED})" in message
    assert "pip install 'vllm>=" in message


def test_without_drift_start_up_builds_our_parsers() -> None:
    lines, stderr = _server_lookup("")
    assert lines == [
        "tool resolves to longcat_plugins.vllm.tool_parser LongcatToolParser",
        "reasoning resolves to longcat_plugins.vllm.reasoning_parser LongcatReasoningParser",
        "start-up ok",
        "start-up ok",
    ]
    assert "unavailable" not in stderr and "outside the range" not in stderr


def test_a_missing_stream_end_contract_fails_start_up_instead_of_the_builtin_parser() -> None:
    lines, stderr = _server_lookup(STREAM_END_MOVED)
    tool, reasoning, tool_start, reasoning_start = lines
    # 'longcat' never resolves to vLLM's built-in (vllm.tool_parsers.longcat_tool_parser)
    assert tool == "tool resolves to longcat_plugins.doctor.drift UnavailableToolParser"
    assert reasoning == "reasoning resolves to longcat_plugins.doctor.drift UnavailableReasoningParser"
    for line, flag in ((tool_start, "--tool-call-parser"), (reasoning_start, "--reasoning-parser")):
        assert line.startswith(f"start-up fails: TypeError: {flag} longcat cannot be used with the tokenizer"), line
        assert f"{flag} longcat is unavailable: " in line
        assert "DelegatingParser._flush_engine_parsers (finish_streaming() at the end of a stream" in line
        _assert_names_the_versions(line)
    assert stderr.count("--tool-call-parser longcat is unavailable") == 1  # logged once, as the plugin loads


def test_a_moved_import_disables_only_the_parser_that_needs_it() -> None:
    lines, stderr = _server_lookup(TOOL_IMPORT_MOVED)
    tool, reasoning, tool_start, reasoning_start = lines
    assert tool == "tool resolves to longcat_plugins.doctor.drift UnavailableToolParser"
    assert "tool_strict_level.ToolStrictLevel (the strictness of a structural tag) is missing" in tool_start
    _assert_names_the_versions(tool_start)
    assert reasoning == "reasoning resolves to longcat_plugins.vllm.reasoning_parser LongcatReasoningParser"
    assert reasoning_start == "start-up ok"
    assert "Failed to load plugin" not in stderr  # vLLM's quiet fallback path is never taken


def test_an_untested_version_with_every_contract_keeps_our_parsers_and_warns() -> None:
    lines, stderr = _server_lookup(FAKE_VERSION)
    assert lines[:2] == [
        "tool resolves to longcat_plugins.vllm.tool_parser LongcatToolParser",
        "reasoning resolves to longcat_plugins.vllm.reasoning_parser LongcatReasoningParser",
    ]
    assert lines[2:] == ["start-up ok", "start-up ok"]
    assert f"vLLM 0.35.0 is outside the range longcat-plugins 0.1.0 is tested with (vllm{VLLM_SUPPORTED})" in stderr
    assert stderr.count("is outside the range") == 1


def test_doctor_fails_with_the_versions_when_a_vllm_contract_is_missing() -> None:
    doctor = "from longcat_plugins.cli import main\nraise SystemExit(main(['doctor', '--json', '--engine', 'vllm']))\n"
    result = run_python("-c", STREAM_END_MOVED + doctor, env=_without_allow_list())
    report = json.loads(result.stdout)
    rows = _vllm_rows(report)
    assert result.returncode == 1 and report["ok"] is False, json.dumps(rows, indent=1)
    for name, flag in (("tool parser", "--tool-call-parser"), ("reasoning parser", "--reasoning-parser")):
        row = rows[name]
        assert row["status"] == "FAIL", row
        assert f"a stand-in that fails: {flag} longcat is unavailable" in row["detail"]
        assert "DelegatingParser._flush_engine_parsers" in row["detail"]
        _assert_names_the_versions(row["detail"])
        assert row["fix"].startswith("pip install 'vllm>=")
    assert "parse" not in rows and "reasoning" not in rows


# -- the guide's `vllm serve` commands ----------------------------------------------------------------------

VLLM_COMMANDS = guide_commands("vllm serve")


@pytest.fixture(scope="module")
def serve_parser() -> Any:
    from longcat_plugins.replay.platform import use_cpu_platform

    use_cpu_platform()  # the argument parser needs a device type
    from vllm.entrypoints.common.cli_args import make_arg_parser
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    return make_arg_parser(FlexibleArgumentParser())


def test_guide_has_the_vllm_deployments() -> None:
    flags = ("--enable-expert-parallel", "--data-parallel-size 2", "--headless", "--speculative-config")
    check_guide_has(VLLM_COMMANDS, 6, flags)


@pytest.mark.parametrize("command", VLLM_COMMANDS)
def test_guide_vllm_serve_command_parses(command: str, serve_parser: Any) -> None:
    from vllm.config.speculative import MTPModelTypes
    from vllm.reasoning import ReasoningParserManager
    from vllm.tool_parsers import ToolParserManager

    env, argv = shell_words(command)
    assert argv[:2] == ["vllm", "serve"], argv
    if env.get("VLLM_USE_RUST_FRONTEND") == "1":  # the Rust frontend reads the response template the tokenizer carries
        args = serve_parser.parse_args(["--model", argv[2], *argv[3:]])
        assert (args.tool_call_parser, args.reasoning_parser) == ("hf", "hf") and args.tokenizer, command
        assert ToolParserManager.get_tool_parser("hf") and ReasoningParserManager.get_reasoning_parser("hf")
        return
    assert set(env) <= {"LONGCAT_TOOL_DIALECT", "VLLM_PLUGINS"}, env
    if "LONGCAT_TOOL_DIALECT" in env:
        from longcat_plugins.vllm.tokenizer_facts import DIALECTS

        assert env["LONGCAT_TOOL_DIALECT"] in DIALECTS
    args = serve_parser.parse_args(["--model", argv[2], *argv[3:]])
    if "--headless" in argv:
        assert args.headless and args.data_parallel_start_rank == 1
        return
    assert args.enable_auto_tool_choice is True
    assert args.tool_call_parser == "longcat" and args.reasoning_parser == "longcat"
    assert ToolParserManager.get_tool_parser(args.tool_call_parser).__module__.startswith("longcat_plugins.")
    assert ReasoningParserManager.get_reasoning_parser(args.reasoning_parser).__module__.startswith(
        "longcat_plugins."
    )
    if args.chat_template is not None:
        assert Path(args.chat_template).is_file(), args.chat_template
    if args.speculative_config is not None:
        assert args.speculative_config["method"] in typing.get_args(MTPModelTypes)


# -- section 7 of the guide ("Verify a deployment") against vLLM's real OpenAI server ----------------------
# The replay server (longcat-plugins serve --replay) is vLLM's own API server with our parsers over a scripted
# engine. It is started from the guide's own replay block; the guide's curl and openai commands then run
# against it unchanged except for the port.

READY = re.compile(r"^longcat-plugins serve: .* at (http://\S+)/v1$")
GUIDE_BASE = "http://localhost:8000"
MARKUP = ("<longcat_tool_call>", "</longcat_tool_call>", "<tool_call>", "</longcat_s>")


def guide_blocks(needs: str) -> list[tuple[str, str]]:
    """(language, code) of the guide's blocks whose first line is ``# needs: <needs>...``."""
    text = GUIDE.read_text(encoding="utf-8")
    found = []
    for m in re.finditer(r"^```(bash|python)\n(.*?)^```", text, re.S | re.M):
        if m.group(2).startswith(f"# needs: {needs}"):
            found.append((m.group(1), m.group(2)))
    return found


@pytest.fixture(scope="module")
def replay_server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    import signal
    import time

    (_, block), *_ = guide_blocks("vLLM installed (no GPU)")
    work = tmp_path_factory.mktemp("guide_replay")
    setup, serve = block.split("\nlongcat-plugins serve ", 1)
    subprocess.run(["bash", "-e", "-c", setup], cwd=work, check=True, timeout=60)
    argv = shlex.split("serve " + serve.strip())
    argv[argv.index("--port") + 1] = "0"  # the guide's 8000 may be taken here
    log = work / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "longcat_plugins", *argv],
            cwd=work,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        url = None
        deadline = time.monotonic() + 300  # a safety net for a stuck start-up, not a speed requirement
        while url is None and process.poll() is None and time.monotonic() < deadline:
            for line in log.read_text(errors="replace").splitlines():
                m = READY.match(line)
                if m:
                    url = m.group(1)
            time.sleep(0.5)
        assert url is not None, f"the replay server did not start:\n{log.read_text(errors='replace')[-3000:]}"
        yield url
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def _run_block(lang: str, code: str, base: str, tmp_path: Path) -> str:
    assert GUIDE_BASE in code, code
    script = tmp_path / ("block.sh" if lang == "bash" else "block.py")
    script.write_text(code.replace(GUIDE_BASE, base), encoding="utf-8")
    command = (
        ["bash", "-e", "-o", "pipefail", str(script)] if lang == "bash" else [sys.executable, str(script)]
    )
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout


def _server_blocks() -> list[tuple[str, str]]:
    blocks = guide_blocks("a running server")
    assert [lang for lang, _ in blocks] == ["bash", "bash", "python"], blocks
    return blocks


def test_guide_curl_non_streaming(replay_server: str, tmp_path: Path) -> None:
    lang, code = _server_blocks()[0]
    assert '"stream": true' not in code
    response = json.loads(_run_block(lang, code, replay_server, tmp_path))
    choice = response["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    message = choice["message"]
    assert message["content"] == "I'll check both cities.\n"
    calls = [
        (c["type"], c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in message["tool_calls"]
    ]
    assert calls == [
        ("function", "get_weather", {"city": "Paris"}),
        ("function", "get_weather", {"city": "Tokyo"}),
    ]
    assert all(c["id"] for c in message["tool_calls"])
    assert not any(tag in json.dumps(response) for tag in MARKUP)


def test_guide_curl_streaming(replay_server: str, tmp_path: Path) -> None:
    lang, code = _server_blocks()[1]
    assert '"stream": true' in code
    events = [
        line[len("data: ") :] for line in _run_block(lang, code, replay_server, tmp_path).splitlines() if line
    ]
    assert events[-1] == "[DONE]"
    content, calls, finish = "", {}, None
    for event in events[:-1]:
        choice = json.loads(event)["choices"][0]
        delta = choice["delta"]
        content += delta.get("content") or ""
        for piece in delta.get("tool_calls") or []:
            if piece["index"] not in calls:
                assert piece["id"] and piece["type"] == "function" and piece["function"]["name"], piece
                assert piece["index"] == len(calls), "calls are numbered in order"
                calls[piece["index"]] = [piece["function"]["name"], ""]
            else:
                assert "name" not in piece["function"] or not piece["function"]["name"]
            calls[piece["index"]][1] += piece["function"].get("arguments") or ""
        finish = choice.get("finish_reason") or finish
    assert finish == "tool_calls"
    assert content == "I'll check both cities.\n"
    assert [(n, json.loads(a)) for n, a in calls.values()] == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Tokyo"}),
    ]
    assert not any(tag in content for tag in MARKUP)


def test_guide_openai_client(replay_server: str, tmp_path: Path) -> None:
    """The guide's Python example prints what the guide says correct output looks like (ids aside)."""
    lang, code = _server_blocks()[2]
    out = _run_block(lang, code, replay_server, tmp_path)
    shown = re.search(r"for example:\n\n```text\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    assert shown is not None

    def without_ids(text: str) -> list[str]:
        return [re.sub(r"chatcmpl-tool-[0-9a-f.]+", "ID", line) for line in text.strip().splitlines()]

    assert without_ids(out) == without_ids(shown.group(1))
