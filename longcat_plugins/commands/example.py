"""``longcat-plugins example [NAME]``: print where a shipped example file is (outputs, tools, recordings)."""

from __future__ import annotations

import argparse

from longcat_plugins.examples import UnknownExampleError, shipped_files, shipped_path

from .errors import UsageError


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "example",
        help="print the path of a shipped example file (model outputs, tools, replay recordings)",
        description="Print the path of a shipped example file: the package's sample model outputs, tools and "
        "conversations, and the replay recordings for `serve --replay`. Known: " + ", ".join(shipped_files()),
    )
    parser.add_argument("name", nargs="?", help="file name, with or without its suffix; omit it with --list")
    parser.add_argument("--list", action="store_true", help="list the shipped files and their paths")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.list:
        for name in shipped_files():
            print(f"{name}\t{shipped_path(name)}")
        return 0
    if not args.name:
        raise UsageError("give an example file name (known: " + ", ".join(shipped_files()) + ")")
    try:
        path = shipped_path(args.name)
    except UnknownExampleError as exc:
        raise UsageError(str(exc)) from None
    print(path)
    return 0
