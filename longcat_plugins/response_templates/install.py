"""Giving a model's tokenizer a response template: in a tokenizer directory of its own (:func:`write_tokenizer`, for
``--tokenizer OUT``; the model directory is only read) or in the model's ``tokenizer_config.json`` itself
(:func:`set_in_place`, after a backup). Both are idempotent: run again, they change nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from . import load, names
from .tokenizer_dir import CONFIG, NotATokenizerError, TokenizerDir

KEY: Final = "response_template"
BACKUP: Final = CONFIG + ".bak"
#: what :func:`write_tokenizer` leaves in a directory it wrote: the model it copied, the template, the files
MARKER: Final = ".longcat-plugins-tokenizer.json"
WRITER: Final = "longcat-plugins response-template --write-tokenizer"


class RefusedError(ValueError):
    """A directory the command will not write to (the model's own, or one it did not write)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    directory: Path
    #: the files written or removed (relative paths); empty: nothing changed
    changed: list[str] = field(default_factory=list)
    #: the backup written by this run, if any
    backup: Path | None = None


def with_template(config: dict[str, Any], template: dict[str, Any]) -> dict[str, Any]:
    """``config`` with ``response_template`` set: in its place when there is one, else last; every other key kept,
    in its order."""
    return {**config, KEY: template}


def config_text(config: dict[str, Any]) -> str:
    return json.dumps(config, indent=2, ensure_ascii=False) + "\n"


def carried(directory: Path) -> tuple[bool, Any, str | None]:
    """Whether ``directory``'s ``tokenizer_config.json`` has a ``response_template``, its value, and the name of the
    shipped template it equals (None: another one)."""
    config = TokenizerDir(directory).config()
    if KEY not in config:
        return False, None, None
    value = config[KEY]
    return True, value, next((n for n in names() if load(n) == value), None)


def set_in_place(directory: Path, name: str) -> Outcome:
    """Set the template ``name`` in ``directory/tokenizer_config.json``, after copying the file to
    ``tokenizer_config.json.bak`` (once: an existing backup is the original and is kept). No other file changes; a
    config that already holds the template is not rewritten."""
    template = load(name)
    config = TokenizerDir(directory).config()
    if config.get(KEY) == template:
        return Outcome(directory)
    file = directory / CONFIG
    backup = directory / BACKUP
    written = None
    if not backup.exists():
        _write(backup, file.read_bytes(), mode_of=file)
        written = backup
    _write(file, config_text(with_template(config, template)).encode("utf-8"), mode_of=file)
    return Outcome(directory, [CONFIG], written)


def write_tokenizer(model: Path, out: Path, name: str) -> Outcome:
    """Write into ``out`` the tokenizer files of ``model`` (:meth:`TokenizerDir.files`) with the template ``name`` in
    ``tokenizer_config.json``. ``out`` is new, empty, or a directory this function wrote (then it is brought up to
    date: files no longer copied are removed); never ``model`` itself. Files already right are not rewritten."""
    if not model.is_dir():
        raise NotATokenizerError(f"{model}: no such directory")
    source = TokenizerDir(model)
    config = source.config()
    _check_target(model, out)
    planned = {rel: (model / rel).read_bytes() for rel in source.files() if rel != CONFIG}
    planned[CONFIG] = config_text(with_template(config, load(name))).encode("utf-8")
    marker = {"written_by": WRITER, "model": str(model.resolve()), KEY: name, "files": sorted(planned)}
    planned[MARKER] = (json.dumps(marker, indent=2, ensure_ascii=False) + "\n").encode("utf-8")

    changed: list[str] = []
    for rel in sorted(set(_previous_files(out)) - set(planned)):
        stale = out / rel
        if stale.is_file() or stale.is_symlink():
            stale.unlink()
            changed.append(rel)
    for rel in sorted(planned, key=lambda r: r == MARKER):  # the marker last: it lists what is there
        target = out / rel
        if target.is_file() and not target.is_symlink() and target.read_bytes() == planned[rel]:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        _write(target, planned[rel], mode_of=model / (rel if rel != MARKER else CONFIG))
        changed.append(rel)
    return Outcome(out, [c for c in changed if c != MARKER])


def _check_target(model: Path, out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise RefusedError(f"{out}: exists and is not a directory")
    if out.exists() and out.resolve() == model.resolve():
        raise RefusedError(
            f"{out} is the model directory: give another directory (or change the model with --in-place)"
        )
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise RefusedError(
            f"{out}: not empty, and not a tokenizer directory written by this command (no {MARKER}): give a new or "
            "empty directory"
        )


def _previous_files(out: Path) -> list[str]:
    """The files the last run wrote into ``out`` (from its marker)."""
    marker = out / MARKER
    if not marker.is_file():
        return []
    try:
        data = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return []
    files = data.get("files") if isinstance(data, dict) else None
    inside = out.resolve()
    return [
        f
        for f in files or ()
        if isinstance(f, str) and (out / f).resolve().is_relative_to(inside) and (out / f).resolve() != inside
    ]


def _write(path: Path, data: bytes, mode_of: Path) -> None:
    """Write ``path`` whole or not at all (a temporary file beside it, renamed over it), with the permissions of
    ``mode_of``. A symbolic link at ``path`` (a Hugging Face cache snapshot) is replaced by a file: what it points to
    is left as it is."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
        shutil.copymode(mode_of, temporary)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
