"""Checks that read installed-package metadata and the environment only (fast, no engine import)."""

from __future__ import annotations

import importlib.metadata as md
import os
from collections.abc import Collection
from pathlib import Path

import longcat_plugins

from .model import DIST_NAME, PLUGIN_NAME, Check, EngineSpec, Status
from .versions import InvalidVersion, satisfies


def package_check() -> Check:
    """This package: its version, where it is imported from, and that its metadata agrees."""
    where = Path(longcat_plugins.__file__).resolve().parent
    ours = longcat_plugins.__version__
    try:
        installed = md.version(DIST_NAME)
    except md.PackageNotFoundError:
        return Check(
            "package",
            DIST_NAME,
            Status.FAIL,
            f"{ours} imported from {where}, but no {DIST_NAME} distribution is installed: the engines "
            "find plugins through installed entry points only",
            f"in a checkout of the {DIST_NAME} repository: pip install .  (deployment_guide.md, section 1)",
        )
    if installed != ours:
        return Check(
            "package",
            DIST_NAME,
            Status.WARN,
            f"imported {ours} from {where}, but the installed metadata says {installed}",
            "reinstall the package (pip install . in its checkout) so its entry points match the code",
        )
    return Check("package", DIST_NAME, Status.OK, f"{ours} at {where}")


def installed_version(engine: EngineSpec) -> str | None:
    return engine.installed_version()


def version_check(engine: EngineSpec, version: str) -> Check:
    try:
        ok = satisfies(version, engine.supported)
    except InvalidVersion:
        ok = False
    if ok:
        return Check(engine.key, "version", Status.OK, f"{version} (supported: {engine.supported})")
    if _newer(version, engine.supported):
        return Check(
            engine.key,
            "version",
            Status.WARN,
            f"{engine.key} {version} is newer than the tested range {engine.supported}: each {engine.label} "
            "interface the adapter uses is checked below (the contract rows; --quick skips them), and the server "
            "logs a warning naming both versions",
            f"{engine.install_hint}, or run the test suite against {version}",
        )
    return Check(
        engine.key,
        "version",
        Status.FAIL,
        f"{engine.key} {version} is outside the supported range {engine.supported}: the adapter uses "
        f"{engine.label} interfaces that change between releases",
        engine.install_hint,
    )


def _newer(version: str, specifier: str) -> bool:
    """Whether ``version`` is past the range's upper bound (it satisfies every lower bound)."""
    lower = ",".join(c for c in specifier.split(",") if c.strip().startswith(">"))
    try:
        return bool(lower) and satisfies(version, lower)
    except InvalidVersion:
        return False


def entry_point_check(engine: EngineSpec) -> Check:
    """Our entry point is declared in the engine's group, exactly once, and imports."""
    found = [ep for ep in md.entry_points(group=engine.group) if ep.name == PLUGIN_NAME]
    name = f"entry point {engine.group}:{PLUGIN_NAME}"
    if not found:
        return Check(
            engine.key,
            "entry point",
            Status.FAIL,
            f"no {name}: {engine.label} will not load longcat-plugins (the package is missing from this "
            "environment's metadata, or is an old build)",
            f"install {DIST_NAME} next to {engine.key}: in its checkout, pip install --no-deps .",
        )
    values = sorted({ep.value for ep in found})
    if len(values) > 1:
        return Check(
            engine.key,
            "entry point",
            Status.FAIL,
            f"{len(found)} distributions declare {name}: {', '.join(values)}; the engine loads only one",
            "pip uninstall the stale copies, then reinstall longcat-plugins",
        )
    ep = found[0]
    if ep.value != engine.entry_point:
        return Check(
            engine.key,
            "entry point",
            Status.FAIL,
            f"{name} points to {ep.value}, expected {engine.entry_point}",
            "reinstall longcat-plugins; another package may have taken the name 'longcat'",
        )
    try:
        func = ep.load()  # imports longcat_plugins.<engine> only: it imports nothing from the engine
    except Exception as exc:
        return Check(
            engine.key,
            "entry point",
            Status.FAIL,
            f"{name} -> {ep.value} does not import: {type(exc).__name__}: {exc}",
            "reinstall longcat-plugins",
        )
    if not callable(func):
        return Check(engine.key, "entry point", Status.FAIL, f"{ep.value} is not callable", "reinstall longcat-plugins")
    return Check(engine.key, "entry point", Status.OK, f"{PLUGIN_NAME} -> {ep.value} (imports)")


def allow_list_check(engine: EngineSpec) -> Check:
    """The engine's plugin allow-list, read the way the engine reads it, lets ``longcat`` load."""
    raw = os.environ.get(engine.allow_env)
    allowed: Collection[str] | None
    if engine.key == "vllm":
        # vLLM: unset -> every plugin; otherwise value.split(",") taken literally ("" allows nothing)
        allowed = None if raw is None else raw.split(",")
    else:
        # SGLang: an empty or unset value allows every plugin; names are stripped
        allowed = {x.strip() for x in raw.split(",") if x.strip()} if raw else None
    if allowed is None:
        return Check(engine.key, "allow-list", Status.OK, f"{engine.allow_env} not set: every plugin loads")
    shown = f"{engine.allow_env}={raw!r}"
    if PLUGIN_NAME in allowed:
        return Check(engine.key, "allow-list", Status.OK, f"{shown} lists {PLUGIN_NAME}")
    spaced = engine.key == "vllm" and any(x.strip() == PLUGIN_NAME for x in allowed)
    detail = f"{shown} does not list {PLUGIN_NAME!r}, so {engine.label} will not load the plugin"
    if spaced:
        detail += " (vLLM does not strip spaces around the names)"
    kept = [x.strip() for x in (raw or "").split(",") if x.strip() and x.strip() != PLUGIN_NAME]
    return Check(
        engine.key,
        "allow-list",
        Status.FAIL,
        detail,
        f"export {engine.allow_env}={','.join([*kept, PLUGIN_NAME])}  (or unset {engine.allow_env})",
    )


def dialect_check(engine: EngineSpec) -> Check:
    """``LONGCAT_TOOL_DIALECT`` (what constrained decoding forces) holds a value this adapter takes."""
    if engine.key == "vllm":
        from longcat_plugins.vllm.tokenizer_facts import DIALECT_ENV as var
        from longcat_plugins.vllm.tokenizer_facts import DIALECTS as accepted

        unset = "not set: chosen per model from its tokenizer"
    else:
        from longcat_plugins.sglang.dialect import DEFAULT, DIALECTS
        from longcat_plugins.sglang.dialect import ENV_VAR as var

        accepted = tuple(DIALECTS)
        unset = f"not set: {DEFAULT} (LongCat JSON)"
    raw = os.environ.get(var, "")
    value = raw.strip().lower()
    if not value:
        return Check(engine.key, "tool dialect", Status.OK, f"{var} {unset}")
    if value in accepted:
        return Check(engine.key, "tool dialect", Status.OK, f"{var}={raw}")
    fix = f"export {var}=<one of {', '.join(accepted)}>  (or unset it)"
    consequence = "vLLM will refuse to start" if engine.key == "vllm" else "every SGLang request with tools will fail"
    detail = f"{var}={raw!r} is not one of {', '.join(accepted)}: {consequence}"
    return Check(engine.key, "tool dialect", Status.FAIL, detail, fix)
