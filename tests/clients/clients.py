"""One adapter per matrix cell (client x API): run the tool loop, or one cut turn, as a user of that client would.

``loop`` asks the question, lets the client (or the framework) run the local tool on every call the model made,
sends the results back and returns what came out; ``cut`` sends one request with a small ``max_tokens`` and
returns what the client shows of a call cut in its arguments. Reasoning is ``None`` where the client does not
expose it.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import scenario
from harness import Server

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no fetch of LiteLLM's price list at import
os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")  # no trace upload
KEY = "EMPTY"
TIMEOUT = 60.0


@dataclass
class Loop:
    calls: list[tuple[str, dict[str, Any]]]  # the calls the tool ran, in order
    answer: str
    reasoning: str | None  # None where the client does not expose reasoning
    call_ids: list[str] = field(default_factory=list)


@dataclass
class Cut:
    finish: str | None  # the client's word for "cut by max_tokens"
    calls: list[tuple[str, dict[str, Any]]]  # arguments as the client parsed them (valid JSON)


def _first_messages() -> list[dict[str, Any]]:
    return [{"role": "user", "content": scenario.QUESTION}]


def _run_tool(name: str, arguments: dict[str, Any]) -> str:
    assert name == "get_weather", name
    return scenario.get_weather(**arguments)


def _responses_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": "function", **t["function"]} for t in tools]


def _anthropic_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"name": t["function"]["name"], "description": t["function"]["description"],
         "input_schema": t["function"]["parameters"]}
        for t in tools
    ]  # fmt: skip


# ---------------------------------------------------------------- Chat Completions, openai client


def _openai(server: Server) -> Any:
    from openai import OpenAI

    return OpenAI(base_url=server.url, api_key=KEY, max_retries=0, timeout=TIMEOUT)


def _reasoning(message: Any) -> str:
    """The reasoning field of a chat message or delta: ``reasoning`` (vLLM) or ``reasoning_content`` (SGLang)."""
    extra = message.model_extra or {}
    return str(extra.get("reasoning") or extra.get("reasoning_content") or "")


def _fold_chat_stream(stream: Any) -> tuple[str, str, list[dict[str, Any]], str | None]:
    content, reasoning, finish = "", "", None
    calls: dict[int, dict[str, Any]] = {}
    for chunk in stream:
        for choice in chunk.choices:
            delta = choice.delta
            content += delta.content or ""
            reasoning += _reasoning(delta)
            for call in delta.tool_calls or []:
                slot = calls.setdefault(call.index, {"id": call.id, "name": "", "arguments": ""})
                if call.function is not None:
                    slot["name"] += call.function.name or ""
                    slot["arguments"] += call.function.arguments or ""
            finish = choice.finish_reason or finish
    return content, reasoning, [calls[i] for i in sorted(calls)], finish


def _chat_turn(client: Any, messages: list[dict[str, Any]], stream: bool, **kw: Any) -> tuple[Any, ...]:
    request = {"model": scenario.MODEL, "messages": messages, **kw}
    if stream:
        return _fold_chat_stream(client.chat.completions.create(stream=True, **request))
    choice = client.chat.completions.create(**request).choices[0]
    message = choice.message
    calls = [{"id": c.id, "name": c.function.name, "arguments": c.function.arguments} for c in message.tool_calls or []]
    return message.content or "", _reasoning(message), calls, choice.finish_reason


def chat_loop(server: Server, stream: bool) -> Loop:
    client = _openai(server)
    messages = _first_messages()
    content, reasoning, calls, finish = _chat_turn(client, messages, stream, tools=scenario.TOOLS)
    assert finish == "tool_calls", finish
    messages.append({
        "role": "assistant", "content": content,
        "tool_calls": [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
            for c in calls
        ],
    })  # fmt: skip
    ran = [(c["name"], json.loads(c["arguments"])) for c in calls]
    for c, (name, args) in zip(calls, ran, strict=True):
        messages.append({"role": "tool", "tool_call_id": c["id"], "content": _run_tool(name, args)})
    answer, _, more, finish = _chat_turn(client, messages, stream, tools=scenario.TOOLS)
    assert not more and finish == "stop", (more, finish)
    return Loop(ran, answer, reasoning, [c["id"] for c in calls])


def chat_cut(server: Server, stream: bool, max_tokens: int) -> Cut:
    _, _, calls, finish = _chat_turn(
        _openai(server), _first_messages(), stream, tools=[scenario.NOTE_TOOL], max_tokens=max_tokens
    )
    return Cut(finish, [(c["name"], json.loads(c["arguments"])) for c in calls])


# ---------------------------------------------------------------- Responses API, openai client


def _responses_turn(client: Any, items: Any, stream: bool, tools: list[dict[str, Any]], **kw: Any) -> Any:
    request = {"model": scenario.MODEL, "input": items, "tools": _responses_tools(tools), **kw}
    if not stream:
        return client.responses.create(**request)
    final, deltas = None, {}
    for event in client.responses.create(stream=True, **request):
        if event.type == "response.function_call_arguments.delta":
            deltas[event.item_id] = deltas.get(event.item_id, "") + event.delta
        elif event.type in ("response.completed", "response.incomplete"):
            final = event.response
    assert final is not None, "the stream ended without response.completed / response.incomplete"
    for item in final.output:
        if item.type == "function_call":
            assert deltas.get(item.id, "") == item.arguments, "streamed argument deltas join into the arguments"
    return final


def responses_loop(server: Server, stream: bool) -> Loop:
    client = _openai(server)
    first = _responses_turn(client, scenario.QUESTION, stream, scenario.TOOLS)
    reasoning = "".join(c.text for o in first.output if o.type == "reasoning" for c in o.content or [])
    calls = [o for o in first.output if o.type == "function_call"]
    items: list[Any] = [{"role": "user", "content": scenario.QUESTION}]
    items += [o.model_dump(exclude_none=True) for o in first.output]
    ran = [(c.name, json.loads(c.arguments)) for c in calls]
    for c, (name, args) in zip(calls, ran, strict=True):
        items.append({"type": "function_call_output", "call_id": c.call_id, "output": _run_tool(name, args)})
    final = _responses_turn(client, items, stream, scenario.TOOLS)
    assert final.status == "completed" and not [o for o in final.output if o.type == "function_call"]
    return Loop(ran, final.output_text, reasoning, [c.call_id for c in calls])


def responses_cut(server: Server, stream: bool, max_tokens: int) -> Cut:
    r = _responses_turn(_openai(server), scenario.QUESTION, stream, [scenario.NOTE_TOOL], max_output_tokens=max_tokens)
    reason = r.incomplete_details.reason if r.incomplete_details else r.status
    return Cut(reason, [(o.name, json.loads(o.arguments)) for o in r.output if o.type == "function_call"])


# ---------------------------------------------------------------- Anthropic Messages API, anthropic client


def _anthropic(server: Server) -> Any:
    import anthropic

    return anthropic.Anthropic(base_url=server.root, api_key=KEY, max_retries=0, timeout=TIMEOUT)


def _messages_turn(client: Any, messages: Any, stream: bool, tools: list[dict[str, Any]], max_tokens: int) -> Any:
    request = {
        "model": scenario.MODEL,
        "messages": messages,
        "tools": _anthropic_tools(tools),
        "max_tokens": max_tokens,
    }
    if not stream:
        return client.messages.create(**request)
    with client.messages.stream(**request) as events:
        return events.get_final_message()


def messages_loop(server: Server, stream: bool) -> Loop:
    client = _anthropic(server)
    first = _messages_turn(client, _first_messages(), stream, scenario.TOOLS, 1024)
    assert first.stop_reason == "tool_use", first.stop_reason
    uses = [b for b in first.content if b.type == "tool_use"]
    ran = [(b.name, dict(b.input)) for b in uses]
    results = [
        {"type": "tool_result", "tool_use_id": b.id, "content": _run_tool(name, args)}
        for b, (name, args) in zip(uses, ran, strict=True)
    ]
    history = [
        *_first_messages(),
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
        {"role": "user", "content": results},
    ]
    final = _messages_turn(client, history, stream, scenario.TOOLS, 1024)
    assert final.stop_reason == "end_turn", final.stop_reason
    reasoning = "".join(b.thinking for b in first.content if b.type == "thinking")
    return Loop(ran, "".join(b.text for b in final.content if b.type == "text"), reasoning, [b.id for b in uses])


def messages_cut(server: Server, stream: bool, max_tokens: int) -> Cut:
    m = _messages_turn(_anthropic(server), _first_messages(), stream, [scenario.NOTE_TOOL], max_tokens)
    return Cut(m.stop_reason, [(b.name, dict(b.input)) for b in m.content if b.type == "tool_use"])


# ---------------------------------------------------------------- OpenAI Agents SDK


def _agent(server: Server, api: str, tools: list[dict[str, Any]], **settings: Any) -> tuple[Any, list[Any]]:
    from agents import Agent, FunctionTool, ModelSettings, OpenAIChatCompletionsModel, OpenAIResponsesModel
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=server.url, api_key=KEY, max_retries=0, timeout=TIMEOUT)
    model_class = OpenAIChatCompletionsModel if api == "chat" else OpenAIResponsesModel
    ran: list[Any] = []

    def tool(spec: dict[str, Any]) -> Any:
        async def invoke(_context: Any, arguments: str) -> str:
            args = json.loads(arguments)
            ran.append((spec["name"], args))
            if spec["name"] == "save_note":
                return f"saved {len(args.get('body', ''))} characters"
            return _run_tool(spec["name"], args)

        return FunctionTool(
            name=spec["name"], description=spec["description"], params_json_schema=spec["parameters"],
            on_invoke_tool=invoke, strict_json_schema=False,
        )  # fmt: skip

    agent = Agent(
        name="weather",
        model=model_class(model=scenario.MODEL, openai_client=client),
        tools=[tool(t["function"]) for t in tools],
        model_settings=ModelSettings(**settings),
        **({"tool_use_behavior": "stop_on_first_tool"} if tools[0] is scenario.NOTE_TOOL else {}),
    )
    return agent, ran


async def _run_agent(agent: Any, stream: bool) -> Any:
    from agents import RunConfig, Runner

    config = RunConfig(tracing_disabled=True)
    if not stream:
        return await Runner.run(agent, scenario.QUESTION, run_config=config, max_turns=4)
    result = Runner.run_streamed(agent, scenario.QUESTION, run_config=config, max_turns=4)
    async for _event in result.stream_events():
        pass
    return result


def _agent_reasoning(result: Any) -> str:
    from agents.items import ReasoningItem

    texts = []
    for item in result.new_items:
        if isinstance(item, ReasoningItem):
            raw = item.raw_item
            texts += [c.text for c in getattr(raw, "content", None) or []]
            texts += [s.text for s in raw.summary or []] if not getattr(raw, "content", None) else []
    return "".join(texts)


def agents_loop(api: str) -> Callable[[Server, bool], Loop]:
    def loop(server: Server, stream: bool) -> Loop:
        agent, ran = _agent(server, api, scenario.TOOLS)
        result = asyncio.run(_run_agent(agent, stream))
        return Loop(ran, str(result.final_output), _agent_reasoning(result))

    return loop


def agents_cut(api: str) -> Callable[[Server, bool, int], Cut]:
    def cut(server: Server, stream: bool, max_tokens: int) -> Cut:
        from agents.exceptions import ModelBehaviorError

        agent, ran = _agent(server, api, [scenario.NOTE_TOOL], max_tokens=max_tokens)
        try:
            result = asyncio.run(_run_agent(agent, stream))
        except ModelBehaviorError as error:  # the Responses model refuses an incomplete response
            assert api == "responses" and "max_output_tokens" in str(error), error
            return Cut("max_output_tokens", [])
        if ran:  # the tool's own answer ends the run
            assert result.final_output == f"saved {len(ran[0][1].get('body', ''))} characters"
        return Cut(None, ran)  # the SDK keeps no finish reason; the tool ran on the cut arguments

    return cut


# ---------------------------------------------------------------- LangChain ChatOpenAI.bind_tools


def _langchain(server: Server, api: str, tools: list[dict[str, Any]], **kw: Any) -> Any:
    from langchain_openai import ChatOpenAI

    llm = ChatOpenAI(
        model=scenario.MODEL, base_url=server.url, api_key=KEY, max_retries=0, timeout=TIMEOUT,
        use_responses_api=api == "responses", **kw,
    )  # fmt: skip
    return llm.bind_tools(tools)


def _langchain_turn(bound: Any, messages: list[Any], stream: bool) -> Any:
    if not stream:
        return bound.invoke(messages)
    full = None
    for chunk in bound.stream(messages):
        full = chunk if full is None else full + chunk
    assert full is not None
    return full


def _langchain_reasoning(message: Any) -> str | None:
    blocks = [b for b in message.content if isinstance(b, dict)] if isinstance(message.content, list) else []
    texts = [s.get("text", "") for b in blocks if b.get("type") == "reasoning" for s in b.get("summary", [])]
    texts += [c.get("text", "") for b in blocks if b.get("type") == "reasoning" for c in b.get("content", [])]
    return "".join(texts) or None


def _text(message: Any) -> str:
    if isinstance(message.content, str):
        return message.content
    return "".join(b.get("text", "") for b in message.content if isinstance(b, dict) and b.get("type") == "text")


def langchain_loop(api: str) -> Callable[[Server, bool], Loop]:
    def loop(server: Server, stream: bool) -> Loop:
        from langchain_core.messages import HumanMessage, ToolMessage

        bound = _langchain(server, api, scenario.TOOLS)
        messages: list[Any] = [HumanMessage(scenario.QUESTION)]
        first = _langchain_turn(bound, messages, stream)
        assert not first.invalid_tool_calls, first.invalid_tool_calls
        messages.append(first)
        ran = [(c["name"], c["args"]) for c in first.tool_calls]
        for call, (name, args) in zip(first.tool_calls, ran, strict=True):
            messages.append(ToolMessage(_run_tool(name, args), tool_call_id=call["id"]))
        final = _langchain_turn(bound, messages, stream)
        assert not final.tool_calls
        return Loop(ran, _text(final), _langchain_reasoning(first), [c["id"] for c in first.tool_calls])

    return loop


def langchain_cut(api: str) -> Callable[[Server, bool, int], Cut]:
    def cut(server: Server, stream: bool, max_tokens: int) -> Cut:
        from langchain_core.messages import HumanMessage

        message = _langchain_turn(
            _langchain(server, api, [scenario.NOTE_TOOL], max_tokens=max_tokens),
            [HumanMessage(scenario.QUESTION)],
            stream,
        )
        assert not message.invalid_tool_calls, message.invalid_tool_calls
        meta = message.response_metadata
        finish = meta.get("finish_reason") or (meta.get("incomplete_details") or {}).get("reason") or meta.get("status")
        return Cut(finish, [(c["name"], c["args"]) for c in message.tool_calls])

    return cut


# ---------------------------------------------------------------- LiteLLM


def _litellm_turn(server: Server, provider: str, messages: list[Any], stream: bool, **kw: Any) -> Any:
    import litellm

    request = {
        "model": f"{provider}/{scenario.MODEL}", "api_base": server.url, "api_key": KEY, "messages": messages,
        "timeout": TIMEOUT, "num_retries": 0, **kw,
    }  # fmt: skip
    if not stream:
        return litellm.completion(**request)
    chunks = list(litellm.completion(stream=True, **request))
    return litellm.stream_chunk_builder(chunks, messages=messages)


# LiteLLM's provider for each engine's server: its vLLM provider, and the generic OpenAI one for SGLang.
LITELLM_PROVIDERS = {"vllm": "hosted_vllm", "sglang": "openai"}


def litellm_loop() -> Callable[[Server, bool], Loop]:
    def loop(server: Server, stream: bool) -> Loop:
        provider = LITELLM_PROVIDERS[server.engine]
        messages = _first_messages()
        first = _litellm_turn(server, provider, messages, stream, tools=scenario.TOOLS)
        choice = first.choices[0]
        assert choice.finish_reason == "tool_calls", choice.finish_reason
        message = choice.message
        messages.append(message.model_dump(exclude_none=True))
        ran = [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls]
        for call, (name, args) in zip(message.tool_calls, ran, strict=True):
            messages.append({"role": "tool", "tool_call_id": call.id, "content": _run_tool(name, args)})
        final = _litellm_turn(server, provider, messages, stream, tools=scenario.TOOLS).choices[0]
        assert final.finish_reason == "stop" and not final.message.tool_calls, final
        reasoning = getattr(message, "reasoning_content", None) or ""
        return Loop(ran, final.message.content or "", reasoning, [c.id for c in message.tool_calls])

    return loop


def litellm_cut() -> Callable[[Server, bool, int], Cut]:
    def cut(server: Server, stream: bool, max_tokens: int) -> Cut:
        provider = LITELLM_PROVIDERS[server.engine]
        r = _litellm_turn(
            server, provider, _first_messages(), stream, tools=[scenario.NOTE_TOOL], max_tokens=max_tokens
        )
        choice = r.choices[0]
        calls = choice.message.tool_calls or []
        return Cut(choice.finish_reason, [(c.function.name, json.loads(c.function.arguments)) for c in calls])

    return cut


# ---------------------------------------------------------------- the matrix


@dataclass(frozen=True)
class Cell:
    client: str
    api: str  # "chat", "responses" or "messages": the endpoint the client calls
    loop: Callable[[Server, bool], Loop]
    cut: Callable[[Server, bool, int], Cut]
    cut_finish: str | None  # what the client reports for a max_tokens cut (None: not exposed)
    reasoning_in: tuple[str, ...] = ("whole", "stream")  # the modes in which the client shows the reasoning
    cut_shows_call: bool = True  # False: the client raises on a cut response instead of showing the cut call


CELLS: dict[str, Cell] = {
    "openai-chat": Cell("openai", "chat", chat_loop, chat_cut, "length"),
    "openai-responses": Cell("openai", "responses", responses_loop, responses_cut, "max_output_tokens"),
    "anthropic-messages": Cell("anthropic", "messages", messages_loop, messages_cut, "max_tokens"),
    "agents-chat": Cell("openai-agents", "chat", agents_loop("chat"), agents_cut("chat"), None),
    "agents-responses": Cell(
        "openai-agents",
        "responses",
        agents_loop("responses"),
        agents_cut("responses"),
        "max_output_tokens",
        cut_shows_call=False,
    ),
    "langchain-chat": Cell("langchain-openai", "chat", langchain_loop("chat"), langchain_cut("chat"), "length", ()),
    "langchain-responses": Cell(
        "langchain-openai",
        "responses",
        langchain_loop("responses"),
        langchain_cut("responses"),
        "max_output_tokens",
        ("whole",),
    ),
    "litellm": Cell("litellm", "chat", litellm_loop(), litellm_cut(), "length"),
}
