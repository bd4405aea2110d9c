"""``longcat-plugins render``: print the prompt a chat template makes of a conversation."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from longcat_plugins import templates


class _InputError(Exception):
    pass


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "render",
        help="render a conversation with a chat template",
        description="Print the prompt a chat template makes of a conversation, as the engines render it.",
    )
    parser.add_argument("--template", required=True, help="template name or .jinja path")
    parser.add_argument("--messages", required=True, help="JSON file: a list of messages, or {messages, tools}")
    parser.add_argument("--tools", help="JSON file: a list of OpenAI tool definitions")
    parser.add_argument("--kwargs", default="{}", help="JSON object of template variables (chat_template_kwargs)")
    parser.add_argument(
        "--no-generation-prompt", action="store_true", help="render without the assistant generation prompt"
    )
    parser.set_defaults(run=run)


def _read_json(path: str, what: str) -> Any:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise _InputError(f"cannot read {what} file {path!r}: {exc.strerror or exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise _InputError(f"{what} file {path!r} is not valid JSON: {exc}") from None


def _load_inputs(args: argparse.Namespace) -> tuple[list[Any], list[Any] | None, dict[str, Any]]:
    messages = _read_json(args.messages, "messages")
    tools = None
    if isinstance(messages, dict):
        tools = messages.get("tools")
        messages = messages.get("messages")
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise _InputError(f"messages file {args.messages!r} must hold a list of message objects")
    if args.tools is not None:
        tools = _read_json(args.tools, "tools")
    if tools is not None and (not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools)):
        raise _InputError("tools must be a list of tool objects")
    try:
        kwargs = json.loads(args.kwargs)
    except json.JSONDecodeError as exc:
        raise _InputError(f"--kwargs is not valid JSON: {exc}") from None
    if not isinstance(kwargs, dict):
        raise _InputError("--kwargs must be a JSON object")
    return messages, tools, kwargs


def run(args: argparse.Namespace) -> int:
    try:
        templates.resolve(args.template)
        messages, tools, kwargs = _load_inputs(args)
        reserved = {"messages", "tools", "add_generation_prompt", "documents"} & kwargs.keys()
        if reserved:
            raise _InputError(f"--kwargs may not set {', '.join(sorted(reserved))}")
        prompt = templates.render(
            args.template, messages, tools, add_generation_prompt=not args.no_generation_prompt, **kwargs
        )
    except (templates.UnknownTemplateError, _InputError, ValueError, TypeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # jinja2 TemplateError and friends: the template refused the conversation
        print(f"error: the template failed to render: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(prompt)
    if not prompt.endswith("\n"):
        sys.stdout.write("\n")
    return 0
