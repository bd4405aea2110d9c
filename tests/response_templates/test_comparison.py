"""How far the response-template standard reads our models' outputs (``tests/response_templates/compare.py``): the
table docs/response_templates.md shows is the one the comparison gives now, the plain real outputs of each template's
dialect are read as the parser reads them, and every difference falls into a class with a cause.

The comparison runs once, in a process of its own without the tests' extra dialects (``LONGCAT_EXTRA_DIALECTS``,
which ``conftest.py`` sets so that the parser reads other families' dialects too): it measures the parser as it
ships."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from longcat_plugins.core.dialects import EXTRA_ENV_VAR
from tests.response_templates import compare as C

transformers = pytest.importorskip("transformers")

ROOT = Path(__file__).resolve().parents[2]
#: The real outputs each template must read as the parser does: complete calls written in the template's dialect
#: (its block around each call, every tag closed), alone or after prose or closed reasoning, and plain answers (which
#: hold no markup, and so are read with ``qwen3-tools-first``).
#: Left out, and measured in the table instead: outputs that drop the block or its opener (a bare `<function=`, an
#: orphan `</tool_call>`), drifted names or arguments (`NAME {json}`, `key: value` lines, JSON as a key), calls
#: written inside open reasoning, outputs cut off inside a call, and calls naming no declared tool.
PLAIN_REAL: dict[str, dict[str, str]] = {
    "longcat-kv": {
        "kv_scada_single": "one pair, as LongCat's template writes it",
        "kv_scada_two_args": "two pairs",
        "kv_picoclaw_weather_spaces": "the tags separated by spaces instead of line breaks",
        "kv_vercel_readfile_indented": "the name on its own indented line",
        "kv_next_functions_prefix": "the name with the `functions.` namespace LongCat-Next writes",
    },
    "xml-function-thinking": {
        "xml_llamacpp15012_call_only": "one call",
        "xml_llamacpp15012_prose_then_call": "prose, then a call and a trailing space",
        "xml_rvllm_qwen36_canonical_two_params": "two parameters",
        "xml_sglang31763_inline_value_int": "a value on the header's line, typed by the schema",
        "xml_llmcode_full_form_trailing_newline": "a call and a trailing line break",
        "xml_qwenpaw2839_python_true_tail": "a Python `True` for a boolean",
        "xml_pwilkin_git_status_tail": "one call, the end of a longer output",
        "xml_pwilkin_four_calls_tail": "four calls, one per block",
        "xml_openclaw79697_two_reads_tail": "two calls after a line break",
        "xml_zerv_reasoning_then_call": "reasoning the template opened, closed, then a call",
    },
    "qwen3-tools-first": {
        "hermes_gpustack_square": "one call",
        "hermes_mlx_multiply_big_ints": "large integers",
        "hermes_qwen3vl1674_cjk_argument": "a CJK value",
        "hermes_hyperchat106_inline_spaces": "the JSON between spaces on the block's line",
        "hermes_lmstudio825_empty_think_then_call": "empty reasoning, then a call",
        "hermes_mlx_final_answer": "an answer with no call",
        "xml_roocode_plain_answer": "an answer with no call, from Qwen3-Coder (no markup: read with this template)",
    },
}
#: At most this many differences may fall outside every class. The rules are read off the outputs the cases hold, so
#: a new case can meet none of them; more than a couple means the classes no longer describe the differences and the
#: rules need another look.
UNCLASSIFIED_BOUND = 2


@pytest.fixture(scope="module")
def run() -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != EXTRA_ENV_VAR}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    done = subprocess.run(
        [sys.executable, "-m", "tests.response_templates.compare", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _outcome(run: dict[str, Any], source: str, case_id: str) -> dict[str, Any]:
    (found,) = [o for o in run["outcomes"] if o["source"] == source and o["id"] == case_id]
    return found


def test_the_document_shows_the_table_the_comparison_gives(run: dict[str, Any]) -> None:
    if run["transformers"] != C.documented_transformers_version():
        pytest.skip(f"the table is measured with transformers {C.documented_transformers_version()}")
    assert C.shown() == run["table"], f"docs/response_templates.md is out of date: {C.REGENERATE}"
    summary = C.shown(C.GUIDE, C.GUIDE_MARKER)
    assert summary == run["guide_table"], f"deployment_guide.md's summary is out of date: {C.REGENERATE}"


@pytest.mark.parametrize(
    ("template", "case_id"), [(template, case_id) for template, ids in PLAIN_REAL.items() for case_id in ids]
)
def test_plain_real_outputs_are_read_as_the_parser_reads_them(run: dict[str, Any], template: str, case_id: str) -> None:
    outcome = _outcome(run, "real", case_id)
    assert outcome["template"] == template
    assert outcome["class"] is None, f"{case_id} ({PLAIN_REAL[template][case_id]}): {outcome['class']}"


def test_every_template_has_plain_real_outputs() -> None:
    assert set(PLAIN_REAL) | {"longcat-json"} == set(C.R.names())  # no real LongCat JSON output is known


def test_differences_fall_into_classes(run: dict[str, Any]) -> None:
    classes = {o["class"] for o in run["outcomes"]} - {None}
    assert classes <= set(C.CLASS_KEYS)
    unclassified = [o["id"] for o in run["outcomes"] if o["class"] == "unclassified"]
    assert len(unclassified) <= UNCLASSIFIED_BOUND, unclassified


def test_a_case_is_read_with_the_template_of_its_dialect() -> None:
    assert C.template_for('<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>') == "qwen3-tools-first"
    assert C.template_for("<tool_call>\n<function=f>\n</function>\n</tool_call>") == "xml-function-thinking"
    assert C.template_for("<tool_call>f>\n<parameter=p>\nv\n</parameter>\n</tool_call>") == "xml-function-thinking"
    assert C.template_for('<longcat_tool_call>{"name": "f", "arguments": {}}</longcat_tool_call>') == "longcat-json"
    assert C.template_for("<longcat_tool_call>f\n</longcat_tool_call>") == "longcat-kv"
    assert C.template_for("<longcat_tool_call>\n<function=f>\n</function>") == "xml-function-thinking"
    # the first markup decides a text that mixes dialects
    assert C.template_for("<function=f></function><longcat_arg_key>k</longcat_arg_key>") == "xml-function-thinking"
    assert C.template_for("<longcat_think>r</longcat_think>answer") == "longcat-kv"
    assert C.template_for("<think>r</think>answer") == "qwen3-tools-first"


def test_a_raising_standard_is_a_class_of_its_own() -> None:
    case = C.Case("corpus", "broken", '<tool_call>{"name": "f", "arguments": {</tool_call>', [], False)
    outcome = C.compare(case)
    assert outcome.standard is None and outcome.error is not None and outcome.klass == "exception"
