"""Run the checks: cheap metadata checks for every engine first, then (optionally) the engine probes."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path

from .env_checks import env_checks
from .metadata_checks import entry_point_check, installed_version, package_check, version_check
from .model import ENGINES, SGLANG, VLLM, Check, EngineSpec, Status
from .model_checks import response_template_check
from .probe_util import failure
from .template_checks import template_checks

Progress = Callable[[str], None]


def run_checks(
    engines: Sequence[EngineSpec] = ENGINES,
    probe: bool = True,
    progress: Progress | None = None,
    required: Collection[str] = (),
    model: Path | None = None,
) -> list[Check]:
    """All checks for ``engines``; ``probe=False`` skips importing the engines (1 s, not ~20 s). An engine whose key
    is in ``required`` (``doctor --engine``) must be installed: its absence is a failure, not a note. ``model``
    (``doctor --model``): a model directory, whose response template is checked."""
    checks = [package_check(), *template_checks()]
    carried = None
    if model is not None:
        row, carried = response_template_check(model)
        checks.append(row)
    found: list[tuple[EngineSpec, list[Check]]] = []
    for engine in engines:
        version = installed_version(engine)
        if version is None:
            checks.append(_not_installed(engine, engine.key in required))
            continue
        rows = [version_check(engine, version), entry_point_check(engine), *env_checks(engine, carried)]
        checks += rows
        found.append((engine, rows))
    if probe:
        for engine, rows in found:
            if progress is not None:
                version = installed_version(engine)
                progress(f"checking {engine.label} {version}: importing it and loading its plugins (10-20 s)...")
            with _stdout_to_stderr():
                try:
                    checks += _probe(engine, _not_loaded_fix(engine, rows))
                except Exception as exc:  # an engine layout the probe does not know: report, do not crash
                    checks.append(
                        failure(
                            engine.key,
                            "probe",
                            f"checking {engine.label}",
                            exc,
                            "check the version row; if it is supported, report a bug with this message",
                        )
                    )
    order = ["package", "templates", "model", *(e.key for e in ENGINES)]
    return sorted(checks, key=lambda c: order.index(c.section) if c.section in order else len(order))


def _not_installed(engine: EngineSpec, required: bool) -> Check:
    where = f"this environment ({sys.prefix})"
    if required:
        return Check(
            engine.key,
            "installed",
            Status.FAIL,
            f"{engine.label} is not installed in {where}: run the doctor with the Python environment of the "
            f"{engine.label} server",
            f"run the longcat-plugins of the {engine.label} environment, or {engine.install_hint}",
        )
    detail = f"not installed in {where}: nothing to check"
    return Check(engine.key, "installed", Status.NOTE, detail, engine.install_hint)


def _probe(engine: EngineSpec, not_loaded_fix: str) -> list[Check]:
    if engine is VLLM:
        os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")
        from .vllm_probe import probe as vllm_probe

        return vllm_probe(not_loaded_fix)
    if engine is SGLANG:
        from .sglang_probe import probe as sglang_probe

        return sglang_probe(not_loaded_fix)
    raise ValueError(f"no probe for {engine.key}")


def _not_loaded_fix(engine: EngineSpec, rows: Sequence[Check]) -> str:
    """What to do when the engine's plugin loading did not register ours: the first failed cheap check."""
    for row in rows:
        if row.status is Status.FAIL and row.name in ("allow-list", "entry point") and row.fix:
            return f"see the {row.name} row: {row.fix}"
    return (
        f"the {engine.label} plugin loading did not run longcat_plugins.{engine.key}:register(); look for "
        "'longcat' in the engine's log, and reinstall longcat-plugins next to the engine"
    )


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """Engines log to stdout (vLLM does by default); keep our stdout for the report (``--json``)."""
    sys.stdout.flush()
    try:
        fd = sys.stdout.fileno()
        saved = os.dup(fd)
        os.dup2(sys.stderr.fileno(), fd)
    except (AttributeError, OSError, ValueError):
        fd = saved = -1
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stdout.flush()
        if saved >= 0:
            os.dup2(saved, fd)
            os.close(saved)
