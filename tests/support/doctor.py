"""``longcat-plugins doctor`` against an engine, in a child process as a user runs it, and what its report must say
whichever engine it checks."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from longcat_plugins.contracts import GROUPS
from tests.support.child import run_python

Rows = dict[str, dict[str, str]]

#: the rows of an engine's section that every engine has
ENGINE_CHECKS = {
    "version",
    "entry point",
    "allow-list",
    "tool dialect",
    "unknown calls",
    "tool_choice none",
    "extra dialects",
    "plugin loading",
    "tool parser",
    "reasoning parser",
    "parse",
    "reasoning",
    "contract",
}


def doctor_report(engine: str, *args: str, env: Mapping[str, str]) -> tuple[int, dict[str, Any], str]:
    """``doctor --json --engine ENGINE ARGS``: exit status, report and stderr."""
    result = run_python("-m", "longcat_plugins", "doctor", "--json", "--engine", engine, *args, env=env)
    try:
        report = json.loads(result.stdout)  # the engine's own logging must not leak into the JSON on stdout
    except json.JSONDecodeError as exc:
        raise AssertionError(f"stdout is not JSON ({exc}):\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}") from None
    return result.returncode, report, result.stderr


def section_rows(report: dict[str, Any], section: str) -> Rows:
    return {c["check"]: c for c in report["checks"] if c["section"] == section}


def check_doctor_passes(engine: str, env: Mapping[str, str]) -> None:
    result = run_python("-m", "longcat_plugins", "doctor", "--engine", engine, env=env)
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    assert "doctor: all checks passed" in result.stdout
    assert "importing it and loading its plugins" in result.stderr  # the user is told why it takes a while


def check_every_check_ok(
    engine: str, env: Mapping[str, str], checks: set[str], tool_parser: str, reasoning_parser: str
) -> None:
    """Every row of the engine's section is ok, one per contract, and the parsers are ours (class paths in the
    package)."""
    code, report, stderr = doctor_report(engine, env=env)
    rows = section_rows(report, engine)
    assert code == 0 and report["ok"], json.dumps(report, indent=1) + stderr[-2000:]
    assert set(rows) == checks
    assert all(row["status"] == "ok" for row in rows.values()), rows
    contracts = [c for c in report["checks"] if c["section"] == engine and c["check"] == "contract"]
    assert len(contracts) == sum(len(group) for _, group, _ in GROUPS[engine])
    assert all(c["status"] == "ok" for c in contracts), contracts
    assert rows["tool parser"]["detail"].endswith(f"longcat_plugins.{tool_parser}")
    assert rows["reasoning parser"]["detail"].endswith(f"longcat_plugins.{reasoning_parser}")


def check_allow_list_fails(engine: str, variable: str, value: str, env: Mapping[str, str]) -> Rows:
    """With ``VARIABLE=VALUE`` (no ``longcat``) the doctor fails on the allow-list row and says how to fix it."""
    code, report, _ = doctor_report(engine, env=env)
    rows = section_rows(report, engine)
    assert code == 1 and report["ok"] is False
    assert rows["allow-list"]["status"] == "FAIL"
    assert f"{variable}='{value}' does not list 'longcat'" in rows["allow-list"]["detail"]
    assert rows["allow-list"]["fix"].startswith(f"export {variable}={value},longcat")
    return rows
