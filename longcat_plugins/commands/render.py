"""``longcat-plugins render``: print the prompt a chat template makes of a conversation."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import Any

from longcat_plugins import templates
from longcat_plugins.templates.content_parts import ENGINES

from .errors import UsageError, read_json
from .tools_file import check_tools, load_tools

RESERVED_KWARGS = frozenset({"messages", "tools", "add_generation_prompt", "documents"})


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "render",
        help="render a conversation with a chat template",
        description=(
            "Print the prompt a chat template makes of a conversation, as the engines render it: tool-call "
            "arguments given as JSON text become objects, and content given as parts "
            '([{"type": "text", "text": ...}]) becomes text, joined as --engine does.'
        ),
    )
    parser.add_argument("--template", required=True, help="template name or .jinja path")
    parser.add_argument(
        "--messages", required=True, help="JSON file ('-' for stdin): a list of messages, or {messages, tools}"
    )
    parser.add_argument("--tools", help="JSON file ('-' for stdin): a list of OpenAI tools, or {tools: [...]}")
    parser.add_argument("--kwargs", default="{}", help="JSON object of template variables (chat_template_kwargs)")
    parser.add_argument(
        "--no-generation-prompt", action="store_true", help="render without the assistant generation prompt"
    )
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default="vllm",
        help="render as this engine does; they differ only in joining several text parts of one message "
        "(vLLM: a newline, SGLang: a space; default vllm)",
    )
    parser.set_defaults(run=run)


def _load_inputs(args: argparse.Namespace) -> tuple[list[Any], list[Any] | None, dict[str, Any]]:
    if args.messages == "-" and args.tools == "-":
        raise UsageError("only one of --messages and --tools can be '-' (stdin)")
    messages = read_json(args.messages, "the messages file")
    tools = None
    if isinstance(messages, Mapping):
        tools = messages.get("tools")
        messages = messages.get("messages")
    if not isinstance(messages, list) or not all(isinstance(m, Mapping) for m in messages):
        raise UsageError(f"{args.messages}: expected a list of message objects (or an object with a 'messages' list)")
    if args.tools is not None:
        tools = load_tools(args.tools)
    elif tools is not None:
        if not isinstance(tools, list):
            raise UsageError(f"{args.messages}: 'tools' must be a list of tools")
        check_tools(tools, args.messages)
    try:
        kwargs = json.loads(args.kwargs)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--kwargs is not valid JSON: {exc}") from None
    if not isinstance(kwargs, dict):
        raise UsageError("--kwargs must be a JSON object")
    reserved = RESERVED_KWARGS & kwargs.keys()
    if reserved:
        raise UsageError(f"--kwargs may not set {', '.join(sorted(reserved))}")
    return messages, tools, kwargs


def run(args: argparse.Namespace) -> int:
    try:
        templates.resolve(args.template)
    except templates.UnknownTemplateError as exc:
        raise UsageError(str(exc)) from None
    messages, tools, kwargs = _load_inputs(args)
    try:
        prompt = templates.render(
            args.template,
            messages,
            tools,
            add_generation_prompt=not args.no_generation_prompt,
            engine=args.engine,
            **kwargs,
        )
    except (ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from None
    except Exception as exc:  # jinja2 TemplateError and friends: the template refused the conversation
        raise UsageError(f"the template failed to render: {type(exc).__name__}: {exc}") from None
    sys.stdout.write(prompt)
    if not prompt.endswith("\n"):
        sys.stdout.write("\n")
    return 0
