"""``longcat-plugins response-template``: the dialects as transformers response templates.

``NAME`` prints one as JSON (stdout holds nothing else); ``--for-model DIR`` prints the one that fits a model;
``--write-tokenizer OUT --model DIR`` writes a tokenizer directory carrying it (for ``--tokenizer OUT``) and
``--in-place DIR`` sets it in the model's ``tokenizer_config.json``. A wrong name, or a model no single template fits,
is an error (status 2) naming the templates that would do.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from longcat_plugins import response_templates as R
from longcat_plugins.response_templates.choice import choose
from longcat_plugins.response_templates.install import BACKUP, RefusedError, set_in_place, write_tokenizer
from longcat_plugins.response_templates.tokenizer_dir import NotATokenizerError

from .errors import UsageError

SERVE_HINT = "--tool-call-parser hf --reasoning-parser hf"
_T = TypeVar("_T")


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "response-template",
        help="print a dialect's transformers response template, or give a model's tokenizer one",
        description=(
            "The dialects as transformers response templates (the 'response_template' key of tokenizer_config.json, "
            "read by transformers' parse_response, vLLM's hf parsers and its Rust frontend, and SGLang's "
            "response_template parser). Known: " + ", ".join(R.names()) + ". Without NAME, the template is the one "
            "that fits the model: its dialect as detected from its tokenizer, its turn and reasoning tags."
        ),
    )
    parser.add_argument("name", nargs="?", help="template name (see --list)")
    parser.add_argument("--list", action="store_true", help="list the templates: name, dialect, what it is for")
    parser.add_argument("--for-model", metavar="DIR", help="print the template that fits the model directory DIR")
    parser.add_argument(
        "--write-tokenizer",
        metavar="OUT",
        help="write the tokenizer files of --model into the directory OUT, with the template in "
        "OUT/tokenizer_config.json (the model directory is only read); serve with --tokenizer OUT",
    )
    parser.add_argument("--model", metavar="DIR", help="the model directory --write-tokenizer copies")
    parser.add_argument(
        "--in-place",
        metavar="DIR",
        help=f"set the template in DIR/tokenizer_config.json, keeping every other key (the original is kept as "
        f"{BACKUP}, once)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    given = {
        "--list": args.list,
        "--for-model": args.for_model,
        "--write-tokenizer": args.write_tokenizer,
        "--in-place": args.in_place,
    }
    modes = [flag for flag, value in given.items() if value]
    if len(modes) > 1:
        raise UsageError(f"{' and '.join(modes)} do not go together")
    if args.model is not None and args.write_tokenizer is None:
        raise UsageError("--model goes with --write-tokenizer OUT")
    if args.list:
        if args.name:
            raise UsageError("--list takes no template name")
        for name in R.names():
            s = R.spec(name)
            print(f"{name}\t{s.dialect}\t{s.title}")
        return 0
    if args.for_model is not None:
        if args.name:
            raise UsageError("give a template name or --for-model DIR, not both")
        name = _fitting(Path(args.for_model))
        print(json.dumps(R.load(name), indent=2, ensure_ascii=False))
        return 0
    if args.write_tokenizer is not None:
        if args.model is None:
            raise UsageError("--write-tokenizer OUT needs --model DIR, the model whose tokenizer it copies")
        model, out = Path(args.model), Path(args.write_tokenizer)
        name = _named(args.name) if args.name else _fitting(model)
        outcome = _guarded(lambda: write_tokenizer(model, out, name))
        if outcome.changed:
            print(f"wrote {out}: the tokenizer of {model} with {_described(name)} ({len(outcome.changed)} file(s))")
        else:
            print(f"{out} is up to date: the tokenizer of {model} with {_described(name)}; nothing changed")
        print(f"serve with --tokenizer {out} {SERVE_HINT}")
        return 0
    if args.in_place is not None:
        directory = Path(args.in_place)
        name = _named(args.name) if args.name else _fitting(directory)
        outcome = _guarded(lambda: set_in_place(directory, name))
        config = directory / "tokenizer_config.json"
        if not outcome.changed:
            print(f"{config} already carries {_described(name)}; nothing changed")
        else:
            backup = f"; the original is in {outcome.backup}" if outcome.backup else f" ({BACKUP} kept as it was)"
            print(f"set {_described(name)} in {config}{backup}")
        print(f"serve with {SERVE_HINT}")
        return 0
    if not args.name:
        raise UsageError("give a template name (known: " + ", ".join(R.names()) + "), or --list, or --for-model DIR")
    print(json.dumps(R.load(_named(args.name)), indent=2, ensure_ascii=False))
    return 0


def _named(name: str) -> str:
    try:
        return R.spec(name).name
    except R.UnknownResponseTemplateError as exc:
        raise UsageError(str(exc)) from None


def _fitting(directory: Path) -> str:
    """The one template that fits the model in ``directory``, or a :class:`UsageError` saying which names fit."""
    if not directory.is_dir():
        raise UsageError(f"{directory}: no such directory")
    choice = _guarded(lambda: choose(directory))
    if choice.name is None:
        raise UsageError(choice.why_not(directory))
    return choice.name


def _described(name: str) -> str:
    return f"the response template {name} ({R.spec(name).dialect} dialect)"


def _guarded(action: Callable[[], _T]) -> _T:
    try:
        return action()
    except (NotATokenizerError, RefusedError) as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        raise UsageError(f"{where}{exc.strerror or exc}") from None
