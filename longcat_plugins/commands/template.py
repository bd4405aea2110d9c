"""``longcat-plugins template NAME``: print the path of a shipped chat template."""

from __future__ import annotations

import argparse
import sys

from longcat_plugins import templates


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "template",
        help="print the path of a shipped chat template",
        description="Print the path of a shipped chat template, for --chat-template. Known: "
        + ", ".join(templates.names()),
    )
    parser.add_argument("name", nargs="?", help="template name; omit it with --list")
    parser.add_argument("--list", action="store_true", help="list the template names and paths")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.list:
        for name in templates.names():
            print(f"{name}\t{templates.template_path(name)}")
        return 0
    if not args.name:
        print("error: give a template name (known: " + ", ".join(templates.names()) + ")", file=sys.stderr)
        return 2
    try:
        print(templates.template_path(args.name))
    except templates.UnknownTemplateError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0
