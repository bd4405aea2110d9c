"""Discovery through SGLang's plugin entry point, the command line, and the HTTP-worker app path.

Discovery runs in fresh interpreters: in this process the suite's conftest has loaded the plugins already.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest
from sglang.srt.server_args import ServerArgs
from sglang_support import subprocess_env

pytestmark = pytest.mark.sglang


def run_python(code: str, **env: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=subprocess_env(**env),
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return result.stdout


def test_load_plugins_registers_longcat_lazily_and_cheaply() -> None:
    out = run_python(
        """
        import sys
        from sglang.srt.plugins import load_plugins
        load_plugins()
        load_plugins()  # idempotent

        heavy = ("sglang.srt.function_call.function_call_parser", "sglang.srt.parser.reasoning_parser")
        print("heavy imported by register:", [m for m in heavy if m in sys.modules])

        from sglang.srt.function_call.parser_names import TOOL_CALL_PARSER_NAMES
        from sglang.srt.parser.reasoning_parser_names import REASONING_PARSER_NAMES
        print("names:", TOOL_CALL_PARSER_NAMES.count("longcat"), REASONING_PARSER_NAMES.count("longcat"))

        import longcat_plugins.sglang as plugin
        plugin.register()  # a second registration changes nothing
        print("names again:", TOOL_CALL_PARSER_NAMES.count("longcat"), REASONING_PARSER_NAMES.count("longcat"))

        from sglang.srt.function_call.function_call_parser import FunctionCallParser
        from sglang.srt.parser.reasoning_parser import ReasoningParser
        print("tool:", FunctionCallParser.ToolCallParserEnum["longcat"].__name__)
        print("reasoning:", ReasoningParser.DetectorMap["longcat"].__name__)
        """
    )
    assert "heavy imported by register: []" in out
    assert "names: 1 1" in out and "names again: 1 1" in out
    assert "tool: LongcatDetector" in out
    assert "reasoning: LongcatReasoningDetector" in out


def test_register_after_the_registries_were_imported() -> None:
    out = run_python(
        """
        from sglang.srt.function_call.function_call_parser import FunctionCallParser
        from sglang.srt.parser.reasoning_parser import ReasoningParser
        from longcat_plugins.sglang import register
        register()
        print(FunctionCallParser.ToolCallParserEnum["longcat"].__name__)
        print(ReasoningParser.DetectorMap["longcat"].__name__)
        """
    )
    assert out.split() == ["LongcatDetector", "LongcatReasoningDetector"]


def test_sglang_plugins_allow_list_is_honoured() -> None:
    out = run_python(
        """
        from sglang.srt.plugins import load_plugins
        load_plugins()
        from sglang.srt.function_call.function_call_parser import FunctionCallParser
        print("longcat" in FunctionCallParser.ToolCallParserEnum)
        """,
        SGLANG_PLUGINS="someone_else",
    )
    assert out.strip().endswith("False")


def test_launch_server_help_lists_longcat() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "sglang.launch_server", "--help"],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    lines = [
        line for line in result.stdout.splitlines() if "--tool-call-parser {" in line or "--reasoning-parser {" in line
    ]
    for flag in ("--tool-call-parser {", "--reasoning-parser {"):
        assert any(flag in line and "longcat" in line for line in lines), lines


@pytest.mark.parametrize("flags", [["--tool-call-parser", "longcat"], ["--reasoning-parser", "longcat"]])
def test_server_args_accept_longcat(flags: list[str]) -> None:
    parser = argparse.ArgumentParser()
    ServerArgs.add_cli_args(parser)
    args = parser.parse_args(["--model-path", "dummy", *flags])
    assert getattr(args, flags[0][2:].replace("-", "_")) == "longcat"


def test_server_args_built_from_the_command_line() -> None:
    parser = argparse.ArgumentParser()
    ServerArgs.add_cli_args(parser)
    args = parser.parse_args(
        ["--model-path", "dummy", "--device", "cpu", "--tool-call-parser", "longcat", "--reasoning-parser", "longcat"]
    )
    server_args = ServerArgs.from_cli_args(args)
    assert (server_args.tool_call_parser, server_args.reasoning_parser) == ("longcat", "longcat")


def test_http_app_registers_before_exposing_sglangs_app() -> None:
    out = run_python(
        """
        import sys
        from longcat_plugins.sglang.http_app import app
        from sglang.srt.entrypoints.http_server import app as sglang_app
        from sglang.srt.function_call.function_call_parser import FunctionCallParser
        from sglang.srt.parser.reasoning_parser import ReasoningParser
        print(app is sglang_app)
        print("longcat" in FunctionCallParser.ToolCallParserEnum, "longcat" in ReasoningParser.DetectorMap)
        """
    )
    assert out.split()[-3:] == ["True", "True", "True"]


def test_http_workers_are_pointed_at_the_registering_app(monkeypatch: pytest.MonkeyPatch) -> None:
    """SGLang's HTTP workers (``--tokenizer-worker-num`` > 1) never load plugins: unless the operator chose an app,
    register() points them at one that registers ``longcat`` first; an operator's choice is kept."""
    import longcat_plugins.sglang as adapter

    monkeypatch.delenv(adapter.HTTP_APP_ENV, raising=False)
    adapter.register()
    assert os.environ[adapter.HTTP_APP_ENV] == adapter.HTTP_APP
    module, _, name = adapter.HTTP_APP.partition(":")
    assert importlib.util.find_spec(module) is not None and name == "app"
    monkeypatch.setenv(adapter.HTTP_APP_ENV, "my_server:app")
    adapter.register()
    assert os.environ[adapter.HTTP_APP_ENV] == "my_server:app"
