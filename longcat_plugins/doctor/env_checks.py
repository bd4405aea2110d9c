"""The environment variables that change what the plugin does, each read the way its reader reads it.

:data:`VARIABLES` is the complete list (the guide's table of variables is checked against it); a value that would
make an engine refuse to start, fail requests, or skip the plugin is a ``FAIL``.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Final

from longcat_plugins.core.dialects import EXTRA_ENV_VAR, extra_dialects_from_env
from longcat_plugins.core.options import (
    EMIT_UNKNOWN_CALLS_ENV,
    NONE_GRAMMAR_ENV,
    emit_unknown_calls_from_env,
    none_grammar_from_env,
)

from .metadata_checks import allow_list_check, dialect_check
from .model import SGLANG, Check, EngineSpec, Status

HTTP_APP_ENV: Final = "SGLANG_HTTP_SERVER_APP_PATH"
#: set to a non-zero integer, ``vllm serve`` answers through vLLM's Rust frontend, which has no ``longcat`` parser
RUST_FRONTEND_ENV: Final = "VLLM_USE_RUST_FRONTEND"
#: what the Rust frontend prints when it stops at start-up (vLLM 0.33), before its list of compiled-in parsers
RUST_FRONTEND_REFUSAL: Final = "tool parser `longcat` is not registered"
#: the guide's section on serving LongCat through the Rust frontend, with a response template and the ``hf`` parsers
RUST_FRONTEND_GUIDE: Final = "deployment_guide.md#serving-longcat-under-vllms-rust-frontend"
#: the app module that registers the plugin in SGLang's HTTP workers (``--tokenizer-worker-num > 1``)
HTTP_APP: Final = "longcat_plugins.sglang.http_app:app"

#: every variable the doctor checks, in the order of its rows
VARIABLES: Final = (
    "VLLM_PLUGINS",
    RUST_FRONTEND_ENV,
    "SGLANG_PLUGINS",
    "LONGCAT_TOOL_DIALECT",
    EMIT_UNKNOWN_CALLS_ENV,
    NONE_GRAMMAR_ENV,
    EXTRA_ENV_VAR,
    HTTP_APP_ENV,
)


def env_checks(engine: EngineSpec, response_template: str | None = None) -> list[Check]:
    """The rows for the variables ``engine``'s processes read; ``response_template``: the shipped response template
    the model checked (``doctor --model``) carries, if any."""
    rows = [
        allow_list_check(engine),
        dialect_check(engine),
        emit_unknown_calls_check(engine),
        none_grammar_check(engine),
        extra_dialects_check(engine),
    ]
    if engine is SGLANG:
        rows.append(http_app_check())
    else:
        rows.append(rust_frontend_check(response_template))
    return rows


def rust_frontend() -> bool | None:
    """Whether ``VLLM_USE_RUST_FRONTEND`` turns vLLM's Rust frontend on, read as vLLM reads it (an integer, unset is
    0); None when vLLM cannot read it (not an integer)."""
    try:
        return bool(int(os.environ.get(RUST_FRONTEND_ENV, "0")))
    except ValueError:
        return None


def rust_frontend_check(response_template: str | None = None) -> Check:
    """``VLLM_USE_RUST_FRONTEND`` unset or 0: ``vllm serve`` runs the Python API server, which loads the plugin. The
    Rust frontend does not load it, but reads a response template (``response_template``: the shipped one the model
    carries, if any) with its ``hf`` parsers."""
    raw = os.environ.get(RUST_FRONTEND_ENV)
    name = "frontend"
    on = rust_frontend()
    if on is False:
        state = "not set" if raw is None else f"={raw}"
        return Check("vllm", name, Status.OK, f"{RUST_FRONTEND_ENV} {state}: vllm serve runs the Python API server")
    template_route = (
        "--tool-call-parser hf --reasoning-parser hf, with a tokenizer that carries the model's response template "
        "(longcat-plugins response-template --in-place MODEL_DIR, or --write-tokenizer OUT --model MODEL_DIR and "
        f"--tokenizer OUT): {RUST_FRONTEND_GUIDE}"
    )
    fix = (
        f"export {RUST_FRONTEND_ENV}=0 (or unset it): vllm serve then runs its Python API server, which loads "
        f"longcat-plugins; or keep the Rust frontend and serve with {template_route}"
    )
    if on is None:
        detail = f"{RUST_FRONTEND_ENV}={raw!r} is not an integer: vllm serve fails reading it"
        return Check("vllm", name, Status.FAIL, detail, fix)
    frontend = f"{RUST_FRONTEND_ENV}={raw}: vllm serve answers through vLLM's Rust frontend (vllm-rs)"
    if response_template is not None:
        detail = (
            f"{frontend}, which does not load longcat-plugins; the model's tokenizer carries the response template "
            f"{response_template}, which it reads with --tool-call-parser hf --reasoning-parser hf (--tool-call-parser "
            f'longcat stops it at start-up: "{RUST_FRONTEND_REFUSAL}")'
        )
        return Check(
            "vllm",
            name,
            Status.WARN,
            detail,
            f"serve with --tool-call-parser hf --reasoning-parser hf ({RUST_FRONTEND_GUIDE}: what a response template "
            f"reads less well than the longcat parsers), or export {RUST_FRONTEND_ENV}=0 for the longcat parsers",
        )
    detail = (
        f"{frontend}, whose tool and reasoning parsers are compiled in and include no 'longcat': it stops at start-up "
        f'with "{RUST_FRONTEND_REFUSAL} (choose from: ...)" (the same for --reasoning-parser longcat); it reads '
        "a response template instead (--tool-call-parser hf --reasoning-parser hf)"
    )
    return Check("vllm", name, Status.FAIL, detail, fix)


def _refusal(engine: EngineSpec) -> str:
    """What ``engine`` does with a setting the adapters refuse (they read it as they build a parser)."""
    return "vLLM will refuse to start" if engine.key == "vllm" else "every SGLang request with tools will fail"


def emit_unknown_calls_check(engine: EngineSpec) -> Check:
    """``LONGCAT_EMIT_UNKNOWN_CALLS`` holds a true or a false value (the adapters refuse anything else)."""
    raw = os.environ.get(EMIT_UNKNOWN_CALLS_ENV)
    try:
        emit = emit_unknown_calls_from_env()
    except ValueError as exc:
        return Check(
            engine.key,
            "unknown calls",
            Status.FAIL,
            f"{exc}: {_refusal(engine)}",
            f"export {EMIT_UNKNOWN_CALLS_ENV}=1 (or 0), or unset it",
        )
    if raw is None or not raw.strip():
        detail = f"{EMIT_UNKNOWN_CALLS_ENV} not set: a call naming no tool of the request is content"
    elif emit:
        detail = f"{EMIT_UNKNOWN_CALLS_ENV}={raw}: a call naming no tool of the request is returned anyway"
    else:
        detail = f"{EMIT_UNKNOWN_CALLS_ENV}={raw}: a call naming no tool of the request is content"
    return Check(engine.key, "unknown calls", Status.OK, detail)


def none_grammar_check(engine: EngineSpec) -> Check:
    """``LONGCAT_TOOL_CHOICE_NONE_GRAMMAR`` holds a true or a false value (the adapters refuse anything else)."""
    raw = os.environ.get(NONE_GRAMMAR_ENV)
    name = "tool_choice none"
    try:
        on = none_grammar_from_env()
    except ValueError as exc:
        refusal = "vLLM will refuse to start" if engine.key == "vllm" else "SGLang will fail tool_choice=none requests"
        fix = f"export {NONE_GRAMMAR_ENV}=1 (or 0), or unset it"
        return Check(engine.key, name, Status.FAIL, f"{exc}: {refusal}", fix)
    said = f"{NONE_GRAMMAR_ENV} not set" if raw is None or not raw.strip() else f"{NONE_GRAMMAR_ENV}={raw}"
    if on:
        return Check(engine.key, name, Status.OK, f"{said}: a grammar keeps call tags out under tool_choice=none")
    return Check(engine.key, name, Status.OK, f"{said}: no grammar under tool_choice=none (the model's text verbatim)")


def extra_dialects_check(engine: EngineSpec) -> Check:
    """``LONGCAT_EXTRA_DIALECTS`` unset, or a JSON list of dialect declarations the parser can read."""
    name = "extra dialects"
    if not os.environ.get(EXTRA_ENV_VAR, "").strip():
        return Check(engine.key, name, Status.OK, f"{EXTRA_ENV_VAR} not set: the parser reads the registered dialects")
    try:
        extra = extra_dialects_from_env()
    except ValueError as exc:
        return Check(
            engine.key,
            name,
            Status.FAIL,
            f"{exc}: {_refusal(engine)}",
            f"export {EXTRA_ENV_VAR}='[...]' (a JSON list of dialect declarations: docs/design.md, Adding a "
            "dialect), or unset it",
        )
    return Check(
        engine.key,
        name,
        Status.OK,
        f"{EXTRA_ENV_VAR}: the parser also reads {', '.join(extra) or 'no other dialect'} (neither detected nor "
        "forced)",
    )


def http_app_check() -> Check:
    """``SGLANG_HTTP_SERVER_APP_PATH``: unset, ours, or at least an importable ``module:attribute``."""
    raw = os.environ.get(HTTP_APP_ENV)
    name = "http app"
    if not raw:
        return Check(
            "sglang",
            name,
            Status.OK,
            f"{HTTP_APP_ENV} not set: right with one tokenizer worker (with --tokenizer-worker-num > 1, set it "
            f"to {HTTP_APP})",
        )
    if raw == HTTP_APP:
        return Check("sglang", name, Status.OK, f"{HTTP_APP_ENV}={raw}: HTTP workers register longcat")
    module, sep, attribute = raw.partition(":")
    fix = f"export {HTTP_APP_ENV}={HTTP_APP}  (or unset it with one tokenizer worker)"
    if not sep or not module or not attribute:
        return Check(
            "sglang", name, Status.FAIL, f"{HTTP_APP_ENV}={raw!r} is not MODULE:ATTRIBUTE: SGLang cannot start", fix
        )
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        return Check("sglang", name, Status.FAIL, f"{HTTP_APP_ENV}={raw}: module {module} is not importable here", fix)
    return Check(
        "sglang",
        name,
        Status.WARN,
        f"{HTTP_APP_ENV}={raw}: with --tokenizer-worker-num > 1 its HTTP workers do not load plugins, so they know "
        f"longcat only if {module} registers it (as {HTTP_APP.partition(':')[0]} does)",
        fix,
    )
