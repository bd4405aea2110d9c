"""A small tool-calling agent loop with the official ``openai`` client.

It asks a question with a ``get_weather`` tool, accumulates the streamed tool calls, runs the tool locally (a
fake that returns fixed weather), sends the results back and prints the transcript. It runs against any
OpenAI-compatible server; the README's demo points it at the replay server, which answers with the recorded
LongCat-Flash-Chat turns of ``longcat_plugins/examples/weather_agent.jsonl``:

    longcat-plugins serve --replay longcat_plugins/examples/weather_agent.jsonl --port 8000 &
    python examples/agent_loop.py --base-url http://127.0.0.1:8000/v1

Exit status 0 when the conversation ends with an answer, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from openai import OpenAI

QUESTION = "What's the weather in Paris and in Tokyo right now? Do I need an umbrella in either city?"

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City name"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                },
                "required": ["city"],
            },
        },
    }
]

_WEATHER = {
    "paris": {"temperature": 14, "condition": "light rain", "chance_of_rain": 0.8},
    "tokyo": {"temperature": 22, "condition": "sunny", "chance_of_rain": 0.05},
}


def get_weather(city: str, unit: str = "celsius") -> dict[str, Any]:
    """The local tool: fixed weather, so that the conversation is reproducible."""
    known = _WEATHER.get(city.strip().lower())
    if known is None:
        return {"city": city, "error": "unknown city"}
    temperature = known["temperature"] if unit == "celsius" else round(known["temperature"] * 9 / 5 + 32)
    return {"city": city, "unit": unit, **known, "temperature": temperature}


LOCAL_TOOLS = {"get_weather": get_weather}


def run_tool(name: str, arguments: str) -> str:
    """Run a tool call locally; the result (or the error) as JSON text for the tool message."""
    try:
        args = json.loads(arguments or "{}")
        if not isinstance(args, dict):
            raise ValueError("the arguments are not a JSON object")
        return json.dumps(LOCAL_TOOLS[name](**args))
    except KeyError:
        return json.dumps({"error": f"unknown tool {name!r}"})
    except (ValueError, TypeError) as e:
        return json.dumps({"error": f"bad arguments: {e}"})


def _reasoning(obj: Any) -> str | None:
    """vLLM's ``reasoning`` field (``reasoning_content`` on older servers): not in the openai types."""
    extra = getattr(obj, "model_extra", None) or {}
    return extra.get("reasoning") or extra.get("reasoning_content")


def stream_turn(client: OpenAI, model: str, messages: list[dict[str, Any]], out: TextIO) -> dict[str, Any]:
    """One assistant turn, streamed: text is printed as it arrives, tool calls are accumulated by index."""
    stream = client.chat.completions.create(model=model, messages=messages, tools=TOOLS, stream=True)  # type: ignore[arg-type]
    content: list[str] = []
    reasoning: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    finish_reason = None
    printing = False
    for chunk in stream:
        if not chunk.choices:
            continue
        choice = chunk.choices[0]
        delta = choice.delta
        if text := _reasoning(delta):
            reasoning.append(text)
        if delta.content:
            if not printing:
                out.write("assistant: ")
                printing = True
            out.write(delta.content)
            out.flush()
            content.append(delta.content)
        for call in delta.tool_calls or []:
            slot = calls.setdefault(call.index, {"id": None, "name": "", "arguments": ""})
            if call.id:
                slot["id"] = call.id
            if call.function is not None:
                slot["name"] += call.function.name or ""
                slot["arguments"] += call.function.arguments or ""
        if choice.finish_reason:
            finish_reason = choice.finish_reason
    if printing:
        out.write("\n" if not "".join(content).endswith("\n") else "")
    return {
        "content": "".join(content),
        "reasoning": "".join(reasoning),
        "tool_calls": [calls[i] for i in sorted(calls)],
        "finish_reason": finish_reason,
    }


def complete_turn(client: OpenAI, model: str, messages: list[dict[str, Any]], out: TextIO) -> dict[str, Any]:
    """One assistant turn, not streamed."""
    response = client.chat.completions.create(model=model, messages=messages, tools=TOOLS)  # type: ignore[arg-type]
    choice = response.choices[0]
    message = choice.message
    if message.content:
        out.write(f"assistant: {message.content.rstrip(chr(10))}\n")
    calls = [
        {"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
        for c in message.tool_calls or []
        if c.type == "function"
    ]
    return {
        "content": message.content or "",
        "reasoning": _reasoning(message) or "",
        "tool_calls": calls,
        "finish_reason": choice.finish_reason,
    }


def run_conversation(
    client: OpenAI,
    model: str,
    question: str = QUESTION,
    *,
    stream: bool = True,
    max_turns: int = 5,
    out: TextIO,
) -> list[dict[str, Any]]:
    """The agent loop: ask, run the requested tools, send their results, until the model answers."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
    out.write(f"user: {question}\n")
    for _ in range(max_turns):
        turn = (stream_turn if stream else complete_turn)(client, model, messages, out)
        if turn["reasoning"]:
            out.write(f"  (reasoning: {turn['reasoning'].strip()})\n")
        assistant: dict[str, Any] = {"role": "assistant", "content": turn["content"] or None}
        if turn["tool_calls"]:
            assistant["tool_calls"] = [
                {
                    "id": c["id"],
                    "type": "function",
                    "function": {"name": c["name"], "arguments": c["arguments"]},
                }
                for c in turn["tool_calls"]
            ]
        messages.append(assistant)
        if turn["finish_reason"] != "tool_calls":
            out.write(f"[finish_reason: {turn['finish_reason']}]\n")
            return messages
        for call in turn["tool_calls"]:
            out.write(f"assistant -> {call['name']}({call['arguments']})\n")
            result = run_tool(call["name"], call["arguments"])
            out.write(f"tool {call['name']} -> {result}\n")
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    raise RuntimeError(f"no answer after {max_turns} turns")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--base-url", default="http://127.0.0.1:8000/v1", help="the server's OpenAI API base URL"
    )
    parser.add_argument("--model", help="model name (default: the server's first model)")
    parser.add_argument("--question", default=QUESTION)
    parser.add_argument("--no-stream", dest="stream", action="store_false", help="use non-streaming requests")
    args = parser.parse_args(argv)
    client = OpenAI(base_url=args.base_url, api_key="EMPTY", max_retries=0)
    model = args.model or client.models.list().data[0].id
    messages = run_conversation(client, model, args.question, stream=args.stream, out=sys.stdout)
    answered = messages[-1]["role"] == "assistant" and bool(messages[-1].get("content"))
    return 0 if answered else 1


if __name__ == "__main__":
    sys.exit(main())
