"""Folding an API's answer (the JSON a client receives, whole or as a stream of events) into a :class:`Served`,
checking the answer's shape on the way. The same for every engine: the APIs are the same on the wire."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from .oracle import Served


def sse_events(text: str) -> list[dict[str, Any]]:
    """The JSON data of every server-sent event (``[DONE]`` left out; ``event:`` lines name what the JSON says)."""
    events = []
    for frame in text.split("\n\n"):
        for line in frame.split("\n"):  # (not splitlines: a JSON string may hold U+2028 and the like, unescaped)
            if line.startswith("data: ") and line != "data: [DONE]":
                events.append(json.loads(line[len("data: ") :]))
    return events


def _arguments(name: str, text: str, faults: list[str]) -> Any:
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        faults.append(f"arguments of {name} are not JSON: {text!r}")
        return text
    if not isinstance(value, dict):
        faults.append(f"arguments of {name} are not an object: {text!r}")
    return value


def chat_whole(body: dict[str, Any]) -> Served:
    choice = body["choices"][0]
    message = choice["message"]
    faults: list[str] = []
    calls = tuple(
        (c["function"]["name"], _arguments(c["function"]["name"], c["function"]["arguments"], faults))
        for c in message.get("tool_calls") or []
    )
    reasoning = message.get("reasoning") or message.get("reasoning_content") or ""
    served = Served(message.get("content") or "", reasoning, calls, choice.get("finish_reason"), tuple(faults))
    return replace(served, reasoning_tokens=_reasoning_tokens(body.get("usage")))


def _reasoning_tokens(usage: Any) -> int | None:
    details = (usage or {}).get("completion_tokens_details") or {}
    value = details.get("reasoning_tokens")
    return value if isinstance(value, int) else None


def chat_stream(chunks: list[dict[str, Any]]) -> Served:
    content: list[str] = []
    reasoning: list[str] = []
    names: list[str] = []
    args: list[list[str]] = []
    faults: list[str] = []
    finish = None
    reasoning_tokens = None
    for chunk in chunks:
        if chunk.get("usage"):
            reasoning_tokens = _reasoning_tokens(chunk["usage"])
        if "error" in chunk:
            faults.append(f"error: {chunk['error']}")
            continue
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            content.append(delta.get("content") or "")
            reasoning.append(delta.get("reasoning") or delta.get("reasoning_content") or "")
            for call in delta.get("tool_calls") or []:
                index, function = call.get("index"), call.get("function") or {}
                if index == len(names):
                    if not (call.get("id") and function.get("name")):
                        faults.append(f"call {index}: first fragment without id and name: {call}")
                    names.append(function.get("name") or "")
                    args.append([])
                elif index is None or index > len(names):
                    faults.append(f"call fragment out of order: {call}")
                    continue
                elif call.get("id") or function.get("name"):
                    faults.append(f"call {index}: a later fragment repeats id or name: {call}")
                args[index].append(function.get("arguments") or "")
            if choice.get("finish_reason"):
                finish = choice["finish_reason"]
    calls = tuple((name, _arguments(name, "".join(parts), faults)) for name, parts in zip(names, args, strict=True))
    return Served("".join(content), "".join(reasoning), calls, finish, tuple(faults), reasoning_tokens)


def _reasoning_item_text(item: dict[str, Any]) -> str:
    parts = item.get("content") or item.get("summary") or []
    return "".join(part.get("text") or "" for part in parts)


def responses_whole(body: dict[str, Any]) -> Served:
    content: list[str] = []
    reasoning: list[str] = []
    calls: list[tuple[str, Any]] = []
    faults: list[str] = []
    for item in body.get("output") or []:
        kind = item.get("type")
        if kind == "reasoning":
            reasoning.append(_reasoning_item_text(item))
        elif kind == "message":
            texts = [part.get("text") or "" for part in item.get("content") or []]
            if not "".join(texts):
                faults.append("an empty message item")
            content.extend(texts)
        elif kind == "function_call":
            calls.append((item["name"], _arguments(item["name"], item.get("arguments") or "", faults)))
    return Served("".join(content), "".join(reasoning), tuple(calls), body.get("status"), tuple(faults))


def responses_stream(events: list[dict[str, Any]]) -> Served:
    content: list[str] = []
    reasoning: list[str] = []
    names: dict[int, str] = {}
    args: dict[int, list[str]] = {}
    faults: list[str] = []
    status = None
    for event in events:
        kind = event.get("type", "")
        if kind == "response.output_text.delta":
            content.append(event.get("delta") or "")
        elif kind in ("response.reasoning_text.delta", "response.reasoning_summary_text.delta"):
            reasoning.append(event.get("delta") or "")
        elif kind == "response.output_item.added" and (event.get("item") or {}).get("type") == "function_call":
            names[event["output_index"]] = event["item"]["name"]
            args[event["output_index"]] = []
        elif kind == "response.function_call_arguments.delta":
            if event.get("output_index") not in args:
                faults.append(f"arguments before their call: {event}")
                continue
            args[event["output_index"]].append(event.get("delta") or "")
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            status = (event.get("response") or {}).get("status")
            final = responses_whole(event.get("response") or {})
            faults.extend(f"final response: {f}" for f in final.faults)
        elif kind == "error":
            faults.append(f"error: {event}")
    calls = tuple((names[i], _arguments(names[i], "".join(args[i]), faults)) for i in sorted(names))
    return Served("".join(content), "".join(reasoning), calls, status, tuple(faults))


def messages_whole(body: dict[str, Any]) -> Served:
    content: list[str] = []
    reasoning: list[str] = []
    calls: list[tuple[str, Any]] = []
    faults: list[str] = []
    blocks = body.get("content") or []
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            if not block.get("text") and len(blocks) > 1:  # (vLLM answers an empty output with one empty block)
                faults.append("an empty text block")
            content.append(block.get("text") or "")
        elif kind == "thinking":
            reasoning.append(block.get("thinking") or "")
        elif kind == "tool_use":
            if not isinstance(block.get("input"), dict):
                faults.append(f"tool_use input is not an object: {block}")
            calls.append((block["name"], block.get("input")))
    return Served("".join(content), "".join(reasoning), tuple(calls), body.get("stop_reason"), tuple(faults))


def messages_stream(events: list[dict[str, Any]]) -> Served:
    content: list[str] = []
    reasoning: list[str] = []
    blocks: dict[int, dict[str, Any]] = {}
    faults: list[str] = []
    stop = None
    for event in events:
        kind = event.get("type")
        if kind == "content_block_start":
            block = dict(event["content_block"])
            block["parts"] = []
            blocks[event["index"]] = block
        elif kind == "content_block_delta":
            delta, block = event["delta"], blocks.get(event["index"])
            if block is None:
                faults.append(f"delta before its block: {event}")
                continue
            text = delta.get("text") or delta.get("thinking") or delta.get("partial_json") or ""
            block["parts"].append(text)
        elif kind == "message_delta":
            stop = (event.get("delta") or {}).get("stop_reason")
        elif kind == "error":
            faults.append(f"error: {event}")
    calls: list[tuple[str, Any]] = []
    for index in sorted(blocks):
        block = blocks[index]
        text = "".join(block["parts"])
        if block["type"] == "text":
            if not text:
                faults.append("an empty text block")
            content.append(text)
        elif block["type"] == "thinking":
            reasoning.append(text)
        elif block["type"] == "tool_use":
            calls.append((block["name"], _arguments(block["name"], text or "{}", faults)))
    return Served("".join(content), "".join(reasoning), tuple(calls), stop, tuple(faults))


FOLDS = {
    ("chat", False): chat_whole,
    ("chat", True): chat_stream,
    ("responses", False): responses_whole,
    ("responses", True): responses_stream,
    ("messages", False): messages_whole,
    ("messages", True): messages_stream,
}
