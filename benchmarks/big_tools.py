"""A large, realistic tool list for the per-request benchmark, built deterministically: nested objects, arrays of
objects, enums, nullable fields, ``$defs`` with ``$ref`` (also nested refs), formats and bounds, descriptions; and
one call to one of the tools in each dialect, with arguments that follow its schema."""

from __future__ import annotations

import json
import random
from typing import Any

DOMAINS = ("repo", "ticket", "calendar", "mail", "storage", "billing", "deploy", "search", "chat", "metrics")
VERBS = ("get", "list", "create", "update", "delete", "search", "export", "sync", "archive", "restore")
_STATUS = ["open", "in_progress", "blocked", "done", "cancelled"]
_PRIORITY = ["low", "normal", "high", "urgent"]


def _defs(rng: random.Random) -> dict[str, Any]:
    return {
        "Address": {
            "type": "object",
            "properties": {
                "street": {"type": "string"},
                "city": {"type": "string"},
                "country": {"type": "string", "enum": ["FR", "DE", "US", "JP", "BR", "IN"]},
                "zip": {"type": "string", "pattern": "^[0-9A-Z -]{3,10}$"},
            },
            "required": ["city", "country"],
        },
        "Person": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1},
                "email": {"type": "string", "format": "email"},
                "address": {"$ref": "#/$defs/Address"},
                "roles": {"type": "array", "items": {"type": "string", "enum": ["owner", "editor", "viewer"]}},
            },
            "required": ["name"],
        },
        "TimeRange": {
            "type": "object",
            "properties": {
                "start": {"type": "string", "format": "date-time"},
                "end": {"type": "string", "format": "date-time"},
                "timezone": {"type": "string", "default": "UTC"},
            },
            "required": ["start"],
        },
        "Filter": {
            "type": "object",
            "properties": {
                "field": {"type": "string"},
                "op": {"type": "string", "enum": ["eq", "ne", "lt", "gt", "in", "contains"]},
                "value": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "array", "items": {}}]},
            },
            "required": ["field", "op", "value"],
        },
        "Page": {
            "type": "object",
            "properties": {
                "size": {"type": "integer", "minimum": 1, "maximum": rng.choice([50, 100, 500])},
                "cursor": {"type": ["string", "null"]},
            },
        },
    }


def _tool(i: int, rng: random.Random, salt: str, full: bool) -> dict[str, Any]:
    domain, verb = DOMAINS[i % len(DOMAINS)], VERBS[(i // len(DOMAINS)) % len(VERBS)]
    name = f"{verb}_{domain}_{i:03d}"
    properties: dict[str, Any] = {
        "id": {"type": "string", "description": f"The {domain} identifier."},
        "status": {"type": "string", "enum": rng.sample(_STATUS, k=rng.randint(2, len(_STATUS)))},
        "priority": {"type": "string", "enum": _PRIORITY, "default": "normal"},
        "owner": {"$ref": "#/$defs/Person"},
        "watchers": {"type": "array", "items": {"$ref": "#/$defs/Person"}, "maxItems": 20},
        "when": {"$ref": "#/$defs/TimeRange"},
        "filters": {"type": "array", "items": {"$ref": "#/$defs/Filter"}},
        "page": {"$ref": "#/$defs/Page"},
        "options": {
            "type": "object",
            "properties": {
                "dry_run": {"type": "boolean", "default": False},
                "notify": {"type": "boolean"},
                "retries": {"type": "integer", "minimum": 0, "maximum": 10},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "limits": {
                    "type": "object",
                    "properties": {
                        "cpu": {"type": "number", "exclusiveMinimum": 0},
                        "memory_mb": {"type": "integer", "multipleOf": 64},
                        "region": {"type": "string", "enum": ["eu-west", "us-east", "ap-south"]},
                    },
                },
            },
        },
        "note": {"type": ["string", "null"], "maxLength": 2000},
    }
    keep = sorted(rng.sample(sorted(properties), k=rng.randint(5, len(properties))))
    if full:
        keep = list(properties)
    if "id" not in keep:
        keep.insert(0, "id")
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": f"{verb.capitalize()} {domain} records{salt}. Tool {i} of the workspace API.",
            "parameters": {
                "type": "object",
                "properties": {k: properties[k] for k in keep},
                "required": ["id"] + [k for k in ("status", "when") if k in keep and rng.random() < 0.5],
                "$defs": _defs(rng),
            },
        },
    }


def many_tools(count: int = 200, salt: str = "") -> list[dict[str, Any]]:
    """``count`` tools; a different ``salt`` gives a different tool list (its descriptions differ) of the same
    shape, as when a client changes its tools between requests."""
    rng = random.Random(count)
    return [_tool(i, rng, salt, full=i == count - 1) for i in range(count)]


def call_arguments() -> dict[str, Any]:
    """Arguments for :func:`called_tool`, following its schema (nested objects and arrays included)."""
    return {
        "id": "T-1042",
        "owner": {"name": "Ana Lima", "email": "ana@example.com", "address": {"city": "Porto", "country": "BR"}},
        "when": {"start": "2026-03-01T09:00:00Z", "end": "2026-03-01T10:00:00Z"},
        "filters": [{"field": "label", "op": "in", "value": ["bug", "p1"]}],
        "note": 'Re-run the "nightly" job; see <logs> for details.',
    }


def called_tool(tools: list[dict[str, Any]]) -> str:
    """The name of the tool the benchmark's call goes to: the last one, so that a lookup cannot stop early."""
    return str(tools[-1]["function"]["name"])


def call_text(dialect: str, name: str, arguments: dict[str, Any]) -> str:
    """One call in ``dialect`` (benchmarks.workloads.DIALECTS), after a line of text."""
    lead = "I will update the ticket.\n"
    if dialect == "xml":
        params = "".join(
            f"<parameter={k}>\n{v if isinstance(v, str) else json.dumps(v)}\n</parameter>\n"
            for k, v in arguments.items()
        )
        return f"{lead}<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>"
    wrapper = "longcat_tool_call" if dialect == "longcat_json" else "tool_call"
    body = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
    return f"{lead}<{wrapper}>\n{body}\n</{wrapper}>"
