"""Which response template fits a model directory: the one of the dialect the package detects from the model's
tokenizer (vocabulary and chat template, as the vLLM adapter detects it; ``LONGCAT_TOOL_DIALECT`` overrides it), whose
turn the model's chat template writes (the template's ``start_anchor`` in the generation prompt) and whose reasoning
tags the model knows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from longcat_plugins import templates
from longcat_plugins.core import dialects
from longcat_plugins.core import tags as T
from longcat_plugins.templates._environment import compile_template

from . import ResponseTemplateSpec, names, spec
from .tokenizer_dir import TokenizerDir


@dataclass(frozen=True, slots=True)
class Choice:
    """What a model directory says: the dialect detected (None: no sign of one), and the templates whose turn and
    reasoning tags fit the model (``fitting``), of which those of the dialect (``chosen``)."""

    dialect: str | None
    fitting: tuple[str, ...]
    chosen: tuple[str, ...]
    #: where the chat template read came from ("none" when the model has none)
    chat_template_from: str

    @property
    def name(self) -> str | None:
        """The one template that fits, or None."""
        return self.chosen[0] if len(self.chosen) == 1 else None

    def why_not(self, directory: Path | str) -> str:
        """Why no single template was chosen, and which names fit."""
        fit = ", ".join(self.fitting) or "none"
        if self.dialect is None:
            return (
                f"{directory}: no sign of a tool-call dialect in its tokenizer (vocabulary and chat template); "
                f"templates whose turn and reasoning tags fit: {fit}; name one"
            )
        of_dialect = [n for n in names() if spec(n).dialect == self.dialect]
        if not self.chosen:
            title = dialects.DIALECTS[self.dialect].title
            plural = len(of_dialect) > 1
            return (
                f"{directory}: its tokenizer writes the {self.dialect} dialect ({title}), but that dialect's "
                f"template{'s' if plural else ''} ({', '.join(of_dialect)}) {'do' if plural else 'does'} not fit the "
                f"model: the turn its chat template writes ({self.chat_template_from}) or its reasoning tags differ; "
                f"templates that fit the model: {fit}"
            )
        return f"{directory}: several {self.dialect} templates fit ({', '.join(self.chosen)}); name one"


def choose(directory: Path) -> Choice:
    tokenizer = TokenizerDir(directory)
    vocabulary = tokenizer.vocabulary()
    sources = tokenizer.chat_templates()
    where = "the tokenizer's"
    if not sources:
        fallback = templates.vllm_fallback_path(tokenizer.model_type())
        sources = [fallback.read_text(encoding="utf-8")] if fallback is not None else []
        where = f"{fallback.name}, vLLM's fallback for its model type" if fallback is not None else "none"
    joined = "\n".join(sources)
    dialect = _dialect(vocabulary, joined)
    prompts = [p for p in (_generation_prompt(s, tokenizer.config()) for s in sources) if p is not None]
    fitting = tuple(n for n in names() if _fits(spec(n), vocabulary, joined, prompts))
    chosen = tuple(n for n in fitting if spec(n).dialect == dialect)
    return Choice(dialect, fitting, chosen, where)


def _dialect(vocabulary: set[str], chat_template: str) -> str | None:
    """The dialect :func:`~longcat_plugins.core.dialects.detect_dialect` reads, or None when nothing in the tokenizer
    names one (it would fall back to its default)."""
    if dialects.dialect_override() is not None:
        return dialects.detect_dialect(vocabulary, chat_template).name
    signs = dialects.detection_signs()
    if not any(tag in vocabulary or tag in chat_template for sign in signs for tag in sign.tags):
        return None
    return dialects.detect_dialect(vocabulary, chat_template).name


def _fits(s: ResponseTemplateSpec, vocabulary: set[str], chat_template: str, prompts: Sequence[str]) -> bool:
    """Whether the model's turn starts with the template's anchor (no chat template: nothing says otherwise) and the
    model knows the template's reasoning tags, or none."""
    if prompts:
        if not any(s.start_anchor in p for p in prompts):
            return False
    elif chat_template and not any(w in chat_template for w in (s.start_anchor, s.start_anchor.replace("\n", "\\n"))):
        return False  # (a template that renders no prompt here: the anchor as its source writes it)
    known = [t for t in T.THINK_OPENS if t in vocabulary or t in chat_template]
    return not known or s.think[0] in known


def _generation_prompt(source: str, config: dict[str, Any]) -> str | None:
    """The prompt ``source`` renders for one user message and the generation prompt, or None if it does not."""
    special = {k: _token(config.get(k)) for k in ("bos_token", "eos_token", "pad_token", "unk_token")}
    try:
        return str(
            compile_template(source).render(
                messages=[{"role": "user", "content": "Hello"}],
                tools=None,
                documents=None,
                add_generation_prompt=True,
                **special,
            )
        )
    except Exception:  # a template that needs what this conversation lacks: its source is read instead
        return None


def _token(value: object) -> str:
    if isinstance(value, dict):
        value = value.get("content")
    return value if isinstance(value, str) else ""
