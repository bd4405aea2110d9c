"""Plugin discovery the way vLLM does it: the ``vllm.general_plugins`` entry point (loaded in conftest through
``vllm.plugins.load_general_plugins()``), the server's argument validation, and ``--tool-parser-plugin``."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap
from importlib.metadata import entry_points

import pytest

pytestmark = pytest.mark.vllm


def test_entry_point_is_installed() -> None:
    points = {p.name: p.value for p in entry_points(group="vllm.general_plugins")}
    assert points.get("longcat") == "longcat_plugins.vllm:register"


def test_longcat_resolves_to_ours() -> None:
    from vllm.reasoning import ReasoningParserManager
    from vllm.tool_parsers import ToolParserManager

    from longcat_plugins.vllm.reasoning_parser import LongcatReasoningParser
    from longcat_plugins.vllm.tool_parser import LongcatToolParser

    assert ToolParserManager.get_tool_parser("longcat") is LongcatToolParser
    assert ReasoningParserManager.get_reasoning_parser("longcat") is LongcatReasoningParser
    assert "longcat" in ToolParserManager.list_registered()
    assert "longcat" in ReasoningParserManager.list_registered()


def test_register_is_idempotent() -> None:
    from vllm.tool_parsers import ToolParserManager

    from longcat_plugins.vllm import register
    from longcat_plugins.vllm.tool_parser import LongcatToolParser

    register()
    register()
    assert ToolParserManager.get_tool_parser("longcat") is LongcatToolParser


def test_registers_the_chat_template_fallback() -> None:
    from vllm.transformers_utils.chat_templates.registry import get_chat_template_fallback_path

    from longcat_plugins.templates import vllm_fallback_path

    path = get_chat_template_fallback_path("longcat_flash", "meituan-longcat/LongCat-Flash-Chat")
    assert path is not None and path == vllm_fallback_path("longcat_flash")


def test_structural_tags_registered_on_use() -> None:
    from vllm.tool_parsers.structural_tag_registry import _VLLM_STRUCTURAL_TAG_REGISTRY

    from longcat_plugins.vllm import STRUCTURAL_TAG_MODELS, register

    register()  # the registry module is loaded now, so register() adds the tags
    assert set(STRUCTURAL_TAG_MODELS.values()) <= set(_VLLM_STRUCTURAL_TAG_REGISTRY)


def test_server_arguments_accept_longcat() -> None:
    from longcat_plugins.replay.platform import use_cpu_platform

    use_cpu_platform()  # the argument parser needs a device type
    from vllm.entrypoints.common.cli_args import make_arg_parser, validate_api_server_args
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    parser = make_arg_parser(FlexibleArgumentParser())
    argv = ["--model", "m", "--enable-auto-tool-choice", "--tool-call-parser", "longcat"]
    args = parser.parse_args([*argv, "--reasoning-parser", "longcat"])
    args.structured_outputs_config = dataclasses.replace(args.structured_outputs_config, reasoning_parser="longcat")
    validate_api_server_args(args)
    bad = parser.parse_args(["--model", "m", "--enable-auto-tool-choice", "--tool-call-parser", "not_a_parser"])
    with pytest.raises(KeyError):
        validate_api_server_args(bad)


def _run(code: str, **env: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def test_without_plugins_builtin_then_tool_parser_plugin_flag() -> None:
    """``VLLM_PLUGINS=`` loads no entry point: vLLM's own ``longcat`` answers; ``--tool-parser-plugin
    longcat_plugins.vllm`` (vLLM's ``import_tool_parser``) then installs ours. Importing the package outside vLLM
    imports nothing from vLLM."""
    out = _run(
        """
        import sys
        import longcat_plugins.vllm
        print("engine-free", "vllm" not in sys.modules)
        del sys.modules["longcat_plugins.vllm"]
        from vllm.plugins import load_general_plugins
        from vllm.tool_parsers import ToolParserManager
        load_general_plugins()
        print("before", ToolParserManager.get_tool_parser("longcat").__module__)
        ToolParserManager.import_tool_parser("longcat_plugins.vllm")
        print("after", ToolParserManager.get_tool_parser("longcat").__module__)
        """,
        VLLM_PLUGINS="",
    )
    assert "engine-free True" in out
    assert "before vllm.tool_parsers.longcat_tool_parser" in out
    assert "after longcat_plugins.vllm.tool_parser" in out


_RUST_FRONTEND_LINE = "vllm serve answers through vLLM's Rust frontend (vllm-rs), whose parsers are compiled in"


@pytest.mark.parametrize("value", ["1", "0", None])
def test_a_rust_frontend_is_logged_once_per_process(value: str | None) -> None:
    """Loaded by vLLM's plugin loader in a process with ``VLLM_USE_RUST_FRONTEND=1`` (the engine core of ``vllm
    serve`` with the Rust frontend), the plugin registers as ever and logs one line saying that the frontend cannot
    run ``longcat`` and what to do, however often it is loaded; with the variable 0 or unset, no line."""
    env = {k: v for k, v in os.environ.items() if k != "VLLM_USE_RUST_FRONTEND"}
    if value is not None:
        env["VLLM_USE_RUST_FRONTEND"] = value
    code = """
        from vllm.plugins import load_general_plugins
        from vllm.tool_parsers import ToolParserManager
        import longcat_plugins.vllm
        load_general_plugins()
        load_general_plugins()
        longcat_plugins.vllm.register()
        print("tool", ToolParserManager.get_tool_parser("longcat").__module__)
        """
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env, timeout=300, check=False
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "tool longcat_plugins.vllm.tool_parser" in result.stdout
    if value == "1":
        assert result.stderr.count(_RUST_FRONTEND_LINE) == 1, result.stderr[-3000:]
        line = next(line for line in result.stderr.splitlines() if _RUST_FRONTEND_LINE in line)
        assert line.startswith("VLLM_USE_RUST_FRONTEND=1: ")
        assert "tool parser `longcat` is not registered" in line
        assert "Unset VLLM_USE_RUST_FRONTEND (or set it to 0)" in line
    else:
        assert "Rust frontend" not in result.stderr
