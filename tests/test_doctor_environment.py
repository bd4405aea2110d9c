"""Every environment variable the package reads is in the guide's table and checked by the doctor.

The variables are found in the package's source (quoted names), so a new one cannot be added without its row in
``deployment_guide.md`` and a doctor check; each check is driven with a bad value and must not pass.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from longcat_plugins.doctor import Status, run_checks
from longcat_plugins.doctor import runner as doctor_runner
from longcat_plugins.doctor.env_checks import (
    HTTP_APP,
    VARIABLES,
    emit_unknown_calls_check,
    http_app_check,
    none_grammar_check,
    rust_frontend_check,
)
from longcat_plugins.doctor.model import SGLANG, VLLM, EngineSpec

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "longcat_plugins"
#: names in quotes that are not settings a deployment makes: the doctor quiets vLLM's log for its own import;
#: ``__all__`` entries
NOT_SETTINGS = {"VLLM_LOGGING_LEVEL", "VLLM_FALLBACKS"}


def _names_in_source() -> set[str]:
    found: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        found |= set(re.findall(r"[\"']((?:LONGCAT|VLLM|SGLANG)_[A-Z0-9_]+)[\"']", path.read_text(encoding="utf-8")))
    return found - NOT_SETTINGS


def _guide_table() -> list[str]:
    guide = (REPO / "deployment_guide.md").read_text(encoding="utf-8")
    section = guide.split("### Environment variables", 1)[1].split("\n#", 1)[0]
    return re.findall(r"^\| `([A-Z0-9_]+)` \|", section, re.M)


def test_the_doctor_checks_every_variable_the_package_reads() -> None:
    assert _names_in_source() <= set(VARIABLES)


def test_the_guide_lists_every_variable_once() -> None:
    assert sorted(_guide_table()) == sorted(VARIABLES)


@pytest.mark.parametrize(
    ("variable", "value", "engine", "status"),
    [
        ("VLLM_PLUGINS", "other", VLLM, Status.FAIL),
        ("SGLANG_PLUGINS", "other", SGLANG, Status.FAIL),
        ("LONGCAT_TOOL_DIALECT", "yaml", VLLM, Status.FAIL),
        ("LONGCAT_TOOL_DIALECT", "yaml", SGLANG, Status.FAIL),
        ("LONGCAT_EMIT_UNKNOWN_CALLS", "maybe", VLLM, Status.FAIL),
        ("LONGCAT_EMIT_UNKNOWN_CALLS", "maybe", SGLANG, Status.FAIL),
        ("LONGCAT_TOOL_CHOICE_NONE_GRAMMAR", "maybe", VLLM, Status.FAIL),
        ("LONGCAT_TOOL_CHOICE_NONE_GRAMMAR", "maybe", SGLANG, Status.FAIL),
        ("SGLANG_HTTP_SERVER_APP_PATH", "no_colon", SGLANG, Status.FAIL),
        ("SGLANG_HTTP_SERVER_APP_PATH", "no_such_module_here:app", SGLANG, Status.FAIL),
        ("SGLANG_HTTP_SERVER_APP_PATH", "json:dumps", SGLANG, Status.WARN),
        ("VLLM_USE_RUST_FRONTEND", "1", VLLM, Status.FAIL),
        ("LONGCAT_EXTRA_DIALECTS", "{", VLLM, Status.FAIL),
        ("LONGCAT_EXTRA_DIALECTS", '[{"name": "x"}]', SGLANG, Status.FAIL),
        ("VLLM_USE_RUST_FRONTEND", "yes", VLLM, Status.FAIL),
    ],
)
def test_a_bad_value_is_reported(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, engine: EngineSpec, status: Status
) -> None:
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, value)
    monkeypatch.setattr(doctor_runner, "installed_version", lambda e: {"vllm": "0.33.0", "sglang": "0.5.23"}[e.key])
    rows = [c for c in run_checks([engine], probe=False) if variable in c.detail and c.status is not Status.OK]
    assert [c.status for c in rows] == [status], run_checks([engine], probe=False)
    assert rows[0].fix.startswith(f"export {variable}=")


def test_every_variable_unset_is_fine(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(doctor_runner, "installed_version", lambda e: {"vllm": "0.33.0", "sglang": "0.5.23"}[e.key])
    checks = run_checks([VLLM, SGLANG], probe=False)
    assert {c.status for c in checks} <= {Status.OK}, [c for c in checks if c.status is not Status.OK]
    shown = " ".join(c.detail for c in checks)
    for name in VARIABLES:
        assert name in shown


@pytest.mark.parametrize(("value", "emits"), [("1", "returned anyway"), ("off", "is content"), (" TRUE ", "anyway")])
def test_emit_unknown_calls_values(monkeypatch: pytest.MonkeyPatch, value: str, emits: str) -> None:
    monkeypatch.setenv("LONGCAT_EMIT_UNKNOWN_CALLS", value)
    check = emit_unknown_calls_check(VLLM)
    assert check.status is Status.OK and emits in check.detail


def test_emit_unknown_calls_failure_says_what_the_engine_does(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LONGCAT_EMIT_UNKNOWN_CALLS", "maybe")
    assert emit_unknown_calls_check(VLLM).detail.endswith("vLLM will refuse to start")
    assert emit_unknown_calls_check(SGLANG).detail.endswith("every SGLang request with tools will fail")


@pytest.mark.parametrize(("value", "says"), [(None, "keeps call tags out"), ("0", "verbatim"), ("on", "keeps")])
def test_none_grammar_values(monkeypatch: pytest.MonkeyPatch, value: str | None, says: str) -> None:
    if value is None:
        monkeypatch.delenv("LONGCAT_TOOL_CHOICE_NONE_GRAMMAR", raising=False)
    else:
        monkeypatch.setenv("LONGCAT_TOOL_CHOICE_NONE_GRAMMAR", value)
    check = none_grammar_check(SGLANG)
    assert check.status is Status.OK and says in check.detail


def test_our_http_app_is_fine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SGLANG_HTTP_SERVER_APP_PATH", HTTP_APP)
    assert http_app_check().status is Status.OK


def test_the_python_frontend_is_fine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VLLM_USE_RUST_FRONTEND", "0")
    check = rust_frontend_check()
    assert check.status is Status.OK and "Python API server" in check.detail
