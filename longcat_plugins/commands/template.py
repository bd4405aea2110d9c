"""``longcat-plugins template NAME``: print the path of a shipped chat template.

Made for ``--chat-template "$(longcat-plugins template NAME)"``: on a wrong name it prints nothing on stdout and
exits with status 2, so ``set -e`` (or a command substitution checked by the caller) stops there instead of starting
a server with an empty ``--chat-template``.
"""

from __future__ import annotations

import argparse

from longcat_plugins import templates

from .errors import UsageError


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
        raise UsageError("give a template name (known: " + ", ".join(templates.names()) + ")")
    try:
        path = templates.template_path(args.name)
    except templates.UnknownTemplateError as exc:
        raise UsageError(str(exc)) from None
    print(path)
    return 0
