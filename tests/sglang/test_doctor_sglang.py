"""``longcat-plugins doctor`` against the real SGLang (a child process, as a user runs it), and every
``sglang.launch_server`` command of deployment_guide.md through SGLang's own argument parser."""

from __future__ import annotations

import argparse
import importlib.metadata
import json
from pathlib import Path
from typing import Any

import pytest
from sglang_support import subprocess_env

from tests.guide_commands import check_guide_has, guide_commands, shell_words
from tests.support import doctor
from tests.support.child import run_python

pytestmark = pytest.mark.sglang

ENGINE_CHECKS = doctor.ENGINE_CHECKS | {"http app", "parser names"}


def _doctor(*args: str, **env: str) -> tuple[int, dict[str, Any], str]:
    return doctor.doctor_report("sglang", *args, env=subprocess_env(**env))


def _sglang_rows(report: dict[str, Any]) -> dict[str, dict[str, str]]:
    return doctor.section_rows(report, "sglang")


def test_doctor_passes_with_sglang() -> None:
    doctor.check_doctor_passes("sglang", subprocess_env(SGLANG_PLUGINS=""))


def test_doctor_json_every_sglang_check_ok() -> None:
    tool, reasoning = "sglang.detector.LongcatDetector", "sglang.reasoning.LongcatReasoningDetector"
    env = subprocess_env(SGLANG_PLUGINS="longcat")
    doctor.check_every_check_ok("sglang", env, ENGINE_CHECKS, tool, reasoning)


def test_doctor_fails_when_the_allow_list_excludes_longcat() -> None:
    env = subprocess_env(SGLANG_PLUGINS="someone_else")
    rows = doctor.check_allow_list_fails("sglang", "SGLANG_PLUGINS", "someone_else", env)
    for name in ("parser names", "tool parser", "reasoning parser"):
        assert rows[name]["status"] == "FAIL", rows[name]
        assert "see the allow-list row" in rows[name]["fix"]
    assert "launch_server would reject it" in rows["parser names"]["detail"]


def test_doctor_fails_with_the_versions_when_an_sglang_contract_is_missing() -> None:
    """An SGLang internal the adapter uses has moved (deleted here before the doctor runs): exit status 1, and the
    tool parser row says what is missing and names both versions."""
    drift = (
        "import sglang.srt.function_call.base_format_detector as base\n"
        "del base.BaseFormatDetector.finish\n"
        "from longcat_plugins.cli import main\n"
        "raise SystemExit(main(['doctor', '--json', '--engine', 'sglang']))\n"
    )
    result = run_python("-c", drift, env=subprocess_env())
    report = json.loads(result.stdout)
    rows = _sglang_rows(report)
    assert result.returncode == 1 and report["ok"] is False
    tool = rows["tool parser"]
    assert tool["status"] == "FAIL", tool
    assert "a stand-in that fails: --tool-call-parser longcat is unavailable" in tool["detail"]
    assert "BaseFormatDetector.finish" in tool["detail"]
    assert f"SGLang {importlib.metadata.version('sglang')} lacks (tested with sglang>=0.5.23,<0.6)" in tool["detail"]
    assert tool["fix"].startswith("pip install 'sglang>=")
    assert rows["reasoning parser"]["status"] == "ok"
    assert "parse" not in rows  # nothing to parse with


# -- the guide's `python3 -m sglang.launch_server` commands -----------------------------------------------

SGLANG_COMMANDS = guide_commands("sglang.launch_server")


@pytest.fixture(scope="module")
def server_parser() -> argparse.ArgumentParser:
    from sglang.srt.server_args import ServerArgs

    parser = argparse.ArgumentParser(prog="sglang serve")  # as prepare_server_args builds it
    ServerArgs.add_cli_args(parser)
    return parser


def test_guide_has_the_sglang_deployments() -> None:
    flags = ("--ep-size 8", "--nnodes 2", "--speculative-algorithm NEXTN", "--tokenizer-worker-num 4")
    check_guide_has(SGLANG_COMMANDS, 5, flags)


@pytest.mark.parametrize("command", SGLANG_COMMANDS)
def test_guide_launch_server_command_parses(command: str, server_parser: argparse.ArgumentParser) -> None:
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
    from sglang.srt.parser.reasoning_parser import ReasoningParser

    env, argv = shell_words(command)
    assert argv[:3] == ["python3", "-m", "sglang.launch_server"], argv
    assert set(env) <= {"SGLANG_HTTP_SERVER_APP_PATH", "LONGCAT_TOOL_DIALECT", "SGLANG_PLUGINS"}, env
    if "LONGCAT_TOOL_DIALECT" in env:
        from longcat_plugins.sglang.dialect import DIALECTS

        assert env["LONGCAT_TOOL_DIALECT"] in DIALECTS
    if "SGLANG_HTTP_SERVER_APP_PATH" in env:
        assert env["SGLANG_HTTP_SERVER_APP_PATH"] == "longcat_plugins.sglang.http_app:app"
        assert "--tokenizer-worker-num" in argv
    try:
        args = server_parser.parse_args(argv[3:])
    except SystemExit:
        pytest.fail(f"SGLang's argument parser rejects: {command}")
    assert args.tool_call_parser == "longcat" and args.reasoning_parser == "longcat"
    assert FunctionCallParser.ToolCallParserEnum[args.tool_call_parser].__module__.startswith(
        "longcat_plugins."
    )
    assert ReasoningParser.DetectorMap[args.reasoning_parser].__module__.startswith("longcat_plugins.")
    if args.chat_template is not None:
        assert Path(args.chat_template).is_file(), args.chat_template


def test_http_app_module_resolves() -> None:
    """The module:attribute the guide puts in SGLANG_HTTP_SERVER_APP_PATH exists (imported in a child)."""
    code = "import longcat_plugins.sglang.http_app as m; print(type(m.app).__name__)"
    result = run_python("-c", code, env=subprocess_env())
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().splitlines()[-1] == "FastAPI"
