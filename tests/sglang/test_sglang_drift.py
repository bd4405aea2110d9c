"""SGLang internals the adapter relies on have moved (simulated in a fresh interpreter by deleting one, or by a fake
version): ``longcat`` then fails loudly, naming the versions and what is missing, through SGLang's own
``load_plugins()``, ``FunctionCallParser`` and ``ReasoningParser``. Never a half-working parser."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from sglang_support import subprocess_env

from longcat_plugins.doctor.model import SGLANG
from tests.support.child import run_python

pytestmark = pytest.mark.sglang

VERSION = importlib.metadata.version("sglang")

TOOL_DETECTOR_LOSES_FINISH = """
import sglang.srt.function_call.base_format_detector as base
del base.BaseFormatDetector.finish
"""
SERVING_LOSES_THE_SPECIAL_TOKEN_HOOK = """
import sglang.srt.entrypoints.openai.serving_chat as serving
del serving.OpenAIServingChat._patch_reasoning_skip_special_tokens
"""
FAKE_VERSION = """
import importlib.metadata as md
_version = md.version
md.version = lambda name: "0.6.0" if name == "sglang" else _version(name)
"""
CHECK = """
from sglang.srt.plugins import load_plugins
load_plugins()
from sglang.srt.entrypoints.openai.protocol import Tool
from sglang.srt.function_call.function_call_parser import FunctionCallParser
from sglang.srt.parser.reasoning_parser import ReasoningParser
import sglang.srt.entrypoints.openai.serving_chat  # as the HTTP server does at start-up
from longcat_plugins.doctor.drift import EngineDriftError

tools = [Tool.model_validate({"type": "function", "function": {"name": "f", "parameters": {}}})]
for name, build in (
    ("tool", lambda: FunctionCallParser(tools, "longcat").detector),
    ("reasoning", lambda: ReasoningParser("longcat", stream_reasoning=True).detector),
):
    try:
        print(name, "BUILT", type(build()).__name__)
    except EngineDriftError as exc:
        print(name, "RAISED", exc)
print("parses without tools:", FunctionCallParser.ToolCallParserEnum["longcat"].parses_without_tools())
"""


def run(drift: str) -> tuple[dict[str, str], str]:
    result = run_python("-c", textwrap.dedent(drift) + CHECK, env=subprocess_env())
    assert result.returncode == 0, result.stderr[-4000:]
    outcome = {}
    for line in result.stdout.splitlines():
        name, _, rest = line.partition(" ")
        if name in ("tool", "reasoning"):
            outcome[name] = rest
    return outcome, result.stderr


def assert_names_the_versions(message: str, version: str = VERSION) -> None:
    assert "longcat-plugins 0.1.0" in message
    assert f"SGLang {version} lacks" in message
    assert f"tested with sglang{SGLANG.supported}" in message
    assert "pip install 'sglang>=" in message


def test_without_drift_both_parsers_are_ours() -> None:
    outcome, stderr = run("")
    assert outcome == {"tool": "BUILT LongcatDetector", "reasoning": "BUILT LongcatReasoningDetector"}
    assert "longcat is unavailable" not in stderr


def test_a_missing_detector_hook_makes_the_tool_parser_fail_loudly() -> None:
    outcome, stderr = run(TOOL_DETECTOR_LOSES_FINISH)
    assert outcome["tool"].startswith("RAISED --tool-call-parser longcat is unavailable: ")
    assert "BaseFormatDetector.finish (the detector's end of stream" in outcome["tool"]
    assert_names_the_versions(outcome["tool"])
    assert outcome["reasoning"] == "BUILT LongcatReasoningDetector"
    assert outcome["tool"][len("RAISED ") :] in stderr  # logged as SGLang loads the plugin


def test_a_missing_serving_hook_makes_the_reasoning_parser_fail_at_start_up() -> None:
    """SGLang builds the reasoning parser when its chat serving starts and swallows only ValueError there: the
    stand-in's error (a RuntimeError) stops the server instead of leaving special-token think tags unread."""
    outcome, _ = run(SERVING_LOSES_THE_SPECIAL_TOKEN_HOOK)
    assert outcome["reasoning"].startswith("RAISED --reasoning-parser longcat is unavailable: ")
    assert "OpenAIServingChat._patch_reasoning_skip_special_tokens" in outcome["reasoning"]
    assert_names_the_versions(outcome["reasoning"])
    assert outcome["tool"] == "BUILT LongcatDetector"

    from longcat_plugins.doctor.drift import EngineDriftError

    assert not issubclass(EngineDriftError, ValueError)


def test_an_untested_version_with_every_contract_keeps_our_parsers_and_warns() -> None:
    outcome, stderr = run(FAKE_VERSION)
    assert outcome == {"tool": "BUILT LongcatDetector", "reasoning": "BUILT LongcatReasoningDetector"}
    assert f"SGLang 0.6.0 is outside the range longcat-plugins 0.1.0 is tested with (sglang{SGLANG.supported})" in (
        stderr
    )
    assert stderr.count("is outside the range") == 1


def test_a_client_gets_the_message_from_sglangs_chat_serving() -> None:
    """Through ``OpenAIServingChat`` (as tests/sglang/test_sglang_serving_chat.py drives it): the request with tools
    fails with the message; SGLang does not answer it with the call left as text."""
    code = textwrap.dedent(TOOL_DETECTOR_LOSES_FINISH) + textwrap.dedent(
        """
            import json, pathlib, sys, tempfile
            sys.path.insert(0, {here!r})
            from sglang.srt.plugins import load_plugins
            load_plugins()
            import test_sglang_serving_chat as serving
            from sglang.srt.runtime_context import publish
            from sglang.srt.server_args import ServerArgs

            model = serving._model_dir(pathlib.Path(tempfile.mkdtemp()), serving.build_tokenizer())
            args = ServerArgs(model_path=str(model), device="cpu", tool_call_parser="longcat")
            publish(args, role="test")
            manager = serving.ScriptedTokenizerManager(args, serving.build_tokenizer())
            manager.script(["Checking. " + serving.CALL_JSON])
            response = serving.chat(serving._serving_chat(manager), stream=False)
            print("RESPONSE", response.status_code, json.loads(response.body)["message"])
            """
    ).format(here=str(Path(__file__).parent))
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=subprocess_env(), timeout=600, check=False
    )
    assert result.returncode == 0, result.stderr[-4000:]
    line = next(line for line in result.stdout.splitlines() if line.startswith("RESPONSE "))
    status, message = line[len("RESPONSE ") :].split(" ", 1)
    assert status == "500"
    assert "--tool-call-parser longcat is unavailable: " in message
    assert_names_the_versions(message)
