"""The ``longcat-plugins`` command."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from . import __version__
from .commands.errors import UsageError

#: subcommand modules, each with ``add_parser(subparsers)`` setting ``run`` as the parser's default
COMMANDS = ("parse", "template", "render", "doctor", "serve")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="longcat-plugins",
        description="Tool-call and reasoning parsers and chat templates for LongCat models on vLLM and SGLang.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"{__package__}.commands.{name}")
        except ModuleNotFoundError as e:
            if e.name == f"{__package__}.commands.{name}":
                continue  # not part of this build
            raise
        module.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.run(args))
    except UsageError as e:
        print(f"longcat-plugins {args.command}: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
