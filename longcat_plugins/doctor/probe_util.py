"""Helpers shared by the engine probes."""

from __future__ import annotations

import contextlib
import importlib
import logging
import traceback
from collections.abc import Callable, Iterator
from typing import Any

from .drift import stand_in_message
from .model import ENGINES, Check, EngineSpec, Status

OURS = "longcat_plugins."


def qualname(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', repr(obj))}"


def is_ours(cls: Any) -> bool:
    return isinstance(cls, type) and cls.__module__.startswith(OURS)


class _Collector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            message += f": {type(exc).__name__}: {exc}"
        self.messages.append(message)


@contextlib.contextmanager
def logged_errors(logger_name: str) -> Iterator[list[str]]:
    """Collect the ERROR records (with their exception) an engine logs instead of raising."""
    collector = _Collector()
    logger = logging.getLogger(logger_name)
    logger.addHandler(collector)
    try:
        yield collector.messages
    finally:
        logger.removeHandler(collector)


def short(exc: BaseException, limit: int = 300) -> str:
    text = str(exc)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def failure(section: str, name: str, what: str, exc: BaseException, fix: str) -> Check:
    where = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    at = f" (at {where[0].filename}:{where[0].lineno})" if where else ""
    return Check(section, name, Status.FAIL, f"{what} raised {type(exc).__name__}: {short(exc)}{at}", fix)


def _drift_fix(section: str) -> str:
    engine = next(e for e in ENGINES if e.key == section)
    return f"{engine.install_hint}, or a longcat-plugins release that supports this {engine.label} version"


def resolution_check(
    section: str,
    name: str,
    lookup: str,
    resolve: Callable[[], Any],
    builtin_hint: str,
    not_loaded_fix: str,
) -> Check:
    """``resolve()`` must give one of our classes: report what it gives instead."""
    try:
        cls = resolve()
    except KeyError:
        cls = None
    except Exception as exc:
        return Check(
            section,
            name,
            Status.FAIL,
            f"{lookup} failed ({type(exc).__name__}: {short(exc)}): longcat-plugins did not register it",
            not_loaded_fix,
        )
    if cls is None:
        return Check(
            section,
            name,
            Status.FAIL,
            f"{lookup}: no parser named 'longcat' is registered; longcat-plugins did not register it",
            not_loaded_fix,
        )
    drift = stand_in_message(cls)
    if drift is not None:
        return Check(section, name, Status.FAIL, f"{lookup} -> a stand-in that fails: {drift}", _drift_fix(section))
    if is_ours(cls):
        return Check(section, name, Status.OK, f"{lookup} -> {qualname(cls)}")
    return Check(
        section,
        name,
        Status.FAIL,
        f"{lookup} -> {qualname(cls)} ({builtin_hint}), not longcat-plugins' parser: the plugin did not run",
        not_loaded_fix,
    )


def load_engine_plugins(spec: EngineSpec, module: str, function: str, not_loaded_fix: str) -> tuple[list[Check], bool]:
    """Run the engine's own plugin loading (``module.function()``), as its server does at start: the check, and
    whether the probe can go on (False: the engine could not be imported or its loading raised)."""
    try:
        load = getattr(importlib.import_module(module), function)
    except Exception as exc:
        fix = f"reinstall {spec.key} (pip install '{spec.key}{spec.supported}')"
        return [failure(spec.key, "import", f"import {module}", exc, fix)], False
    call = f"{module}.{function}()"
    with logged_errors(module) as errors:
        try:
            load()
        except Exception as exc:
            return [failure(spec.key, "plugin loading", call, exc, not_loaded_fix)], False
    if errors:
        logged = f"{spec.label} logged: " + "; ".join(errors)
        return [Check(spec.key, "plugin loading", Status.FAIL, logged, not_loaded_fix)], True
    return [Check(spec.key, "plugin loading", Status.OK, f"{call} ran")], True
