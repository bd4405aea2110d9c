"""A model (or tokenizer) directory as transformers reads its tokenizer: which files make the tokenizer, its
vocabulary and its chat template, read from the files alone (no transformers, no engine).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

CONFIG: Final = "tokenizer_config.json"

#: the files of a tokenizer, where present. ``config.json`` is one: ``AutoTokenizer.from_pretrained`` builds the
#: model's config from it and chooses the tokenizer class by its ``model_type`` (and ``auto_map``).
TOKENIZER_FILES: Final = (
    CONFIG,
    "tokenizer.json",
    "special_tokens_map.json",
    "added_tokens.json",
    "vocab.json",
    "vocab.txt",
    "merges.txt",
    "chat_template.jinja",
    "chat_template.json",
    "config.json",
)
#: sentencepiece models, tiktoken vocabularies and a tokenizer's own code (``trust_remote_code``)
TOKENIZER_PATTERNS: Final = ("*.model", "*.tiktoken", "tokenization_*.py")
#: the named chat templates beside the default one (``additional_chat_templates/NAME.jinja``)
TEMPLATES_DIR: Final = "additional_chat_templates"


class NotATokenizerError(ValueError):
    """A directory that holds no transformers tokenizer (no ``tokenizer_config.json``), or whose files do not read."""


@dataclass(frozen=True, slots=True)
class TokenizerDir:
    path: Path

    def config(self) -> dict[str, Any]:
        """``tokenizer_config.json``, a JSON object."""
        file = self.path / CONFIG
        if not file.is_file():
            raise NotATokenizerError(f"{self.path}: no {CONFIG}, not a transformers tokenizer directory")
        data = _read_json(file)
        if not isinstance(data, dict):
            raise NotATokenizerError(f"{file}: not a JSON object")
        return data

    def model_config(self) -> dict[str, Any]:
        """``config.json``, or ``{}`` without one."""
        file = self.path / "config.json"
        if not file.is_file():
            return {}
        data = _read_json(file)
        return data if isinstance(data, dict) else {}

    def files(self) -> list[str]:
        """The tokenizer's files (paths relative to the directory), sorted: :data:`TOKENIZER_FILES`, the
        :data:`TOKENIZER_PATTERNS`, the modules ``auto_map`` names for the tokenizer and the config, the named chat
        templates. Never weights."""
        found = {name for name in TOKENIZER_FILES if (self.path / name).is_file()}
        for pattern in TOKENIZER_PATTERNS:
            found |= {p.name for p in self.path.glob(pattern) if p.is_file()}
        found |= {m for m in self._auto_map_modules() if (self.path / m).is_file()}
        templates = self.path / TEMPLATES_DIR
        if templates.is_dir():
            found |= {f"{TEMPLATES_DIR}/{p.name}" for p in templates.iterdir() if p.is_file()}
        return sorted(found)

    def _auto_map_modules(self) -> Iterator[str]:
        """``tokenization_x.py`` for ``"AutoTokenizer": ["tokenization_x.XTokenizer", ...]`` in the tokenizer's
        config, ``configuration_x.py`` for ``"AutoConfig"`` in ``config.json`` (built with the tokenizer)."""
        sources = [
            (self.config() if (self.path / CONFIG).is_file() else {}, "AutoTokenizer"),
            (self.model_config(), "AutoConfig"),
        ]
        for config, key in sources:
            auto_map = config.get("auto_map")
            entry = auto_map.get(key) if isinstance(auto_map, dict) else auto_map if key == "AutoTokenizer" else None
            for reference in entry if isinstance(entry, list) else [entry]:
                if isinstance(reference, str) and "." in reference:
                    module = reference.split("--")[-1].rsplit(".", 1)[0]
                    yield module.replace(".", "/") + ".py"

    def vocabulary(self) -> set[str]:
        """Every token string the files name: ``tokenizer.json``'s vocabulary and added tokens, ``vocab.json``,
        ``added_tokens.json`` and the config's ``added_tokens_decoder`` (a sentencepiece or tiktoken vocabulary is
        not read: its tags are in the chat template too)."""
        tokens: set[str] = set()
        tokenizer = self.path / "tokenizer.json"
        if tokenizer.is_file():
            data = _read_json(tokenizer)
            if isinstance(data, dict):
                tokens |= {t["content"] for t in data.get("added_tokens") or () if _has_content(t)}
                vocab = (data.get("model") or {}).get("vocab")
                if isinstance(vocab, dict):
                    tokens |= set(vocab)
                elif isinstance(vocab, list):  # Unigram: [[piece, score], ...]
                    tokens |= {v[0] for v in vocab if isinstance(v, list) and v and isinstance(v[0], str)}
        for name in ("vocab.json", "added_tokens.json"):
            if (self.path / name).is_file():
                data = _read_json(self.path / name)
                if isinstance(data, dict):
                    tokens |= set(data)
        if (self.path / CONFIG).is_file():
            decoder = self.config().get("added_tokens_decoder")
            if isinstance(decoder, dict):
                tokens |= {t["content"] for t in decoder.values() if _has_content(t)}
        return tokens

    def chat_templates(self) -> list[str]:
        """The sources of every chat template the tokenizer has: ``chat_template.jinja``, ``chat_template.json``,
        the config's ``chat_template`` (a string or named templates), ``additional_chat_templates/``."""
        found: list[str] = []
        jinja = self.path / "chat_template.jinja"
        if jinja.is_file():
            found.append(_read_text(jinja))
        as_json = self.path / "chat_template.json"
        if as_json.is_file():
            data = _read_json(as_json)
            found += _templates_in(data.get("chat_template") if isinstance(data, dict) else None)
        if (self.path / CONFIG).is_file():
            found += _templates_in(self.config().get("chat_template"))
        templates = self.path / TEMPLATES_DIR
        if templates.is_dir():
            found += [_read_text(p) for p in sorted(templates.glob("*.jinja"))]
        return list(dict.fromkeys(t for t in found if t))

    def model_type(self) -> str:
        value = self.model_config().get("model_type")
        return value if isinstance(value, str) else ""


def _templates_in(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):  # [{"name": ..., "template": ...}, ...]
        return [t["template"] for t in value if isinstance(t, dict) and isinstance(t.get("template"), str)]
    return []


def _has_content(token: object) -> bool:
    return isinstance(token, dict) and isinstance(token.get("content"), str)


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise NotATokenizerError(f"{path}: cannot read ({exc})") from None


def _read_json(path: Path) -> Any:
    text = _read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotATokenizerError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
