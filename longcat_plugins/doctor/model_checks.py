"""``doctor --model DIR``: the response template the model's tokenizer carries (``response_template`` in its
``tokenizer_config.json``, read by vLLM's ``hf`` parsers, its Rust frontend and SGLang's ``response_template``
parser; the ``longcat`` parsers do not need one)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any, Final

from longcat_plugins import response_templates as R
from longcat_plugins.response_templates.choice import Choice, choose
from longcat_plugins.response_templates.install import carried
from longcat_plugins.response_templates.tokenizer_dir import CONFIG, NotATokenizerError

from .model import Check, Status

SECTION: Final = "model"
NAME: Final = "response template"
READERS: Final = "vLLM's hf parsers, its Rust frontend and SGLang's response_template parser"


def response_template_check(directory: Path) -> tuple[Check, str | None]:
    """The row, and the name of the shipped template the directory carries (None: none of them)."""
    config = directory / CONFIG
    if not directory.is_dir():
        return _fail(f"{directory}: no such directory", "give --model the model (or tokenizer) directory served"), None
    try:
        present, value, ours = carried(directory)
    except NotATokenizerError as exc:
        return _fail(str(exc), "give --model the directory that holds the model's tokenizer_config.json"), None
    choice = _choice(directory)
    if not present:
        detail = f"{config} has no response_template: the longcat parsers need none; {READERS} do"
        return Check(SECTION, NAME, Status.NOTE, detail, _add_hint(directory, choice)), None
    if ours is None:
        return _other(config, value), None
    described = f"{ours} ({R.spec(ours).dialect} dialect: {R.spec(ours).title})"
    misfit = _misfit(ours, choice)
    if misfit:
        detail = f"{config} carries {described}, but {misfit}: {READERS} would miss what the model writes"
        return Check(SECTION, NAME, Status.WARN, detail, _add_hint(directory, choice, replace=True)), ours
    return Check(SECTION, NAME, Status.OK, f"{config} carries {described}"), ours


def _misfit(ours: str, choice: Choice | None) -> str:
    """Why the template ``ours`` does not fit the model, or "" (a tokenizer that does not read says nothing)."""
    if choice is None or choice.name == ours:
        return ""
    fit = ", ".join(choice.fitting) or "none"
    if choice.dialect is not None and choice.dialect != R.spec(ours).dialect:
        return f"the model's tokenizer writes the {choice.dialect} dialect (templates that fit the model: {fit})"
    if ours not in choice.fitting:
        return (
            f"the model's chat template writes another turn, or it has other reasoning tags (templates that fit: {fit})"
        )
    return ""


def _choice(directory: Path) -> Choice | None:
    try:
        return choose(directory)
    except (NotATokenizerError, OSError):
        return None


def _add_hint(directory: Path, choice: Choice | None, replace: bool = False) -> str:
    verb = "replaces it with" if replace else "adds"
    if choice is not None and choice.name is not None:
        return f"longcat-plugins response-template --in-place {directory}  ({verb} {choice.name})"
    fit = " or ".join(choice.fitting) if choice is not None and choice.fitting else "NAME"
    return f"longcat-plugins response-template {fit} --in-place {directory}  (name the model's template)"


def _other(config: Path, value: Any) -> Check:
    """A template that is none of ours: does transformers' loader take it?"""
    detail = f"{config} carries a response template that is none of longcat-plugins' ({', '.join(R.names())})"
    if importlib.util.find_spec("transformers") is None:
        return Check(SECTION, NAME, Status.NOTE, f"{detail}; transformers is not installed here to load it")
    try:
        from transformers.utils.chat_parsing.response_templates import load_response_template
    except ImportError:
        return Check(SECTION, NAME, Status.NOTE, f"{detail}; this transformers has no load_response_template")
    try:
        load_response_template(value)
    except Exception as exc:
        return Check(
            SECTION,
            NAME,
            Status.WARN,
            f"{detail}, and transformers' load_response_template refuses it: {type(exc).__name__}: {exc}",
            "fix or remove it; longcat-plugins response-template --list shows the shipped ones",
        )
    return Check(SECTION, NAME, Status.OK, f"{detail}; it loads under transformers' load_response_template")


def _fail(detail: str, fix: str) -> Check:
    return Check(SECTION, NAME, Status.FAIL, detail, fix)
