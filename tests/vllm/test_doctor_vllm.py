"""``longcat-plugins doctor`` against the real vLLM (a child process, as a user runs it), and every
``vllm serve`` command of deployment_guide.md through vLLM's own argument parser."""

from __future__ import annotations

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

from longcat_plugins import templates

pytestmark = pytest.mark.vllm
GUIDE = Path(__file__).resolve().parents[2] / "deployment_guide.md"

ENGINE_CHECKS = {
    "version",
    "entry point",
    "allow-list",
    "plugin loading",
    "tool parser",
    "reasoning parser",
    "parse",
    "reasoning",
}


def _doctor(*args: str, **env: str) -> tuple[int, dict[str, Any], str]:
    result = subprocess.run(
        [sys.executable, "-m", "longcat_plugins", "doctor", "--json", "--engine", "vllm", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=600,
        check=False,
    )
    try:
        report = json.loads(result.stdout)  # vLLM's own logging must not leak into the JSON on stdout
    except json.JSONDecodeError as exc:
        raise AssertionError(
            f"stdout is not JSON ({exc}):\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        ) from None
    return result.returncode, report, result.stderr


def _vllm_rows(report: dict[str, Any]) -> dict[str, dict[str, str]]:
    return {c["check"]: c for c in report["checks"] if c["section"] == "vllm"}


def test_doctor_passes_with_vllm() -> None:
    env = {k: v for k, v in os.environ.items() if k != "VLLM_PLUGINS"}
    result = subprocess.run(
        [sys.executable, "-m", "longcat_plugins", "doctor", "--engine", "vllm"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    assert "doctor: all checks passed" in result.stdout
    assert "importing it and loading its plugins" in result.stderr  # the user is told why it takes a while


def test_doctor_json_every_vllm_check_ok() -> None:
    code, report, stderr = _doctor()
    rows = _vllm_rows(report)
    assert code == 0 and report["ok"], json.dumps(report, indent=1) + stderr[-2000:]
    assert set(rows) == ENGINE_CHECKS
    assert all(row["status"] == "ok" for row in rows.values()), rows
    assert rows["tool parser"]["detail"].endswith("longcat_plugins.vllm.tool_parser.LongcatToolParser")
    assert rows["reasoning parser"]["detail"].endswith(
        "longcat_plugins.vllm.reasoning_parser.LongcatReasoningParser"
    )


def test_doctor_fails_when_the_allow_list_excludes_longcat() -> None:
    code, report, _ = _doctor(VLLM_PLUGINS="none")
    rows = _vllm_rows(report)
    assert code == 1 and report["ok"] is False
    assert rows["allow-list"]["status"] == "FAIL"
    assert "VLLM_PLUGINS='none' does not list 'longcat'" in rows["allow-list"]["detail"]
    assert rows["allow-list"]["fix"].startswith("export VLLM_PLUGINS=none,longcat")
    # without our plugin, vLLM's built-in parser answers to "longcat": the doctor names it
    assert rows["tool parser"]["status"] == "FAIL"
    assert "vllm.tool_parsers.longcat_tool_parser" in rows["tool parser"]["detail"]
    assert "see the allow-list row" in rows["tool parser"]["fix"]
    assert rows["reasoning parser"]["status"] == "FAIL"


def test_doctor_quick_does_not_import_vllm() -> None:
    code, report, stderr = _doctor("--quick")
    assert code == 0
    assert set(_vllm_rows(report)) == {"version", "entry point", "allow-list"}
    assert "importing" not in stderr


# -- the guide's `vllm serve` commands ----------------------------------------------------------------------

SHELL_VARS = {"MASTER_IP": "10.0.0.1", "NODE_RANK": "0"}


def guide_commands(program: str) -> list[str]:
    """Logical command lines (continuations joined) of the guide's shell blocks that run ``program``."""
    text = GUIDE.read_text(encoding="utf-8")
    commands = []
    for block in re.finditer(r"^```(?:bash|sh|shell)\n(.*?)^```", text, re.S | re.M):
        for line in block.group(1).replace("\\\n", " ").splitlines():
            if program in line and not line.lstrip().startswith("#"):
                commands.append(" ".join(line.split()))
    return commands


def shell_words(command: str) -> tuple[dict[str, str], list[str]]:
    """The command as the shell runs it: leading VAR=value pairs, then argv, $(...) and $VAR expanded."""

    def template(m: re.Match[str]) -> str:
        return shlex.quote(str(templates.template_path(m.group(1))))

    command = re.sub(r'"\$\(longcat-plugins template ([\w-]+)\)"', template, command)
    command = re.sub(r"\$(\w+)", lambda m: SHELL_VARS[m.group(1)], command)
    words = shlex.split(command)
    env = {}
    while words and re.match(r"^[A-Z_]+=", words[0]):
        key, _, value = words.pop(0).partition("=")
        env[key] = value
    return env, words


VLLM_COMMANDS = guide_commands("vllm serve")


@pytest.fixture(scope="module")
def serve_parser() -> Any:
    import vllm.platforms as platforms
    from vllm.platforms.cpu import CpuPlatform

    if platforms._current_platform is None or platforms._current_platform.is_unspecified():
        platforms._current_platform = CpuPlatform()  # the argument parser needs a device type
    from vllm.entrypoints.common.cli_args import make_arg_parser
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    return make_arg_parser(FlexibleArgumentParser())


def test_guide_has_the_vllm_deployments() -> None:
    assert len(VLLM_COMMANDS) >= 6, VLLM_COMMANDS
    joined = "\n".join(VLLM_COMMANDS)
    for flag in ("--enable-expert-parallel", "--data-parallel-size 2", "--headless", "--speculative-config"):
        assert flag in joined


@pytest.mark.parametrize("command", VLLM_COMMANDS)
def test_guide_vllm_serve_command_parses(command: str, serve_parser: Any) -> None:
    from vllm.config.speculative import MTPModelTypes
    from vllm.reasoning import ReasoningParserManager
    from vllm.tool_parsers import ToolParserManager

    env, argv = shell_words(command)
    assert argv[:2] == ["vllm", "serve"], argv
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
