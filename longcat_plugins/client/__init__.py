"""Repairing tool calls that leak into ``content`` in client code (no engine, no server of our own).

A server that does not run our parser (a hosted API, a gateway, a llama.cpp / Ollama build, an old engine, a server
whose tool parser does not read the model's dialect) hands the model's call markup back as text, in ``content`` or in
the reasoning (``reasoning_content``, or ``reasoning``, the newer field name of vLLM). These functions read that text
with the core's :class:`~longcat_plugins.core.StreamParser` and return the Chat Completions response, or its stream,
with the calls as ``tool_calls``::

    needs_repair(request, options=None) -> bool
    repair_chat_completion(response, request, *, options=None) -> response    # a dict, or an openai ChatCompletion
    ChatStreamRepair(request, *, options=None).feed(chunk) -> [chunk, ...]; .finish() -> [chunk, ...]
    repair_chat_stream(chunks, request, *, options=None) -> Iterator[chunk]
    arepair_chat_stream(chunks, request, *, options=None) -> AsyncIterator[chunk]

``request`` is the request body as sent; ``options`` a :class:`~longcat_plugins.client.options.RepairOptions`
(default: none set). Rules:

* Only a request that declares function tools, with a ``tool_choice`` other than ``"none"``, is repaired
  (:func:`needs_repair`), unless the reasoning switch is on (below); anything else comes back as given (the same
  objects).
* Each channel (content; the reasoning) is read by its own parser, built with the request's function tools and
  ``ParserOptions(reasoning=False)``: its text is plain text and calls; the upstream already split reasoning from
  content, and a ``<think>`` inside content stays there as sent, unless the reasoning switch is on (below). A block
  naming none of the request's tools stays text, verbatim. Text stays in the channel it came in. When a stop of
  the request (``stop``, ``stop_token_ids``) may cut the output inside a call, a call left open at the end is text,
  as the engine adapters have it (:func:`longcat_plugins.core.stops.stops_may_cut_calls`); otherwise a cut call is
  closed with valid JSON.
  When a delta (or a message) carries both ``reasoning_content`` and ``reasoning``, they are one channel: the text
  of ``reasoning_content`` is read, and both fields get its reading.
* Calls of both channels of a choice are numbered 0, 1, 2... in the order they start; ids are the core's
  (``call_...``). ``finish_reason`` ``"stop"`` becomes ``"tool_calls"`` when calls were made; other reasons stay.
* Every other field (id, model, usage, logprobs, system_fingerprint, a server's extra fields) is kept.
* Upstream ``tool_calls`` win, choice by choice: a choice whose message carries ``tool_calls`` is kept as given (a
  response in which no choice changes is returned as given). In a stream, from the first chunk in which a choice
  carries ``tool_calls``, that choice passes through as given; before that chunk, what the repair still held back of
  it is released, as text of its channel, verbatim (a call the repair had started is closed, with valid JSON
  arguments). Calls the repair emitted before that chunk stay, and the upstream's calls are not renumbered: the
  upstream's own indexes are passed on as given. The other choices are still repaired.
* A stream: one repair state per choice ``index``. A chunk whose delta becomes empty and carries nothing else (no
  role, no finish_reason, no logprobs, no usage) is dropped; text held back (a possible tag) comes out with a later
  chunk, and at the latest with the chunk that carries the choice's ``finish_reason``. :meth:`ChatStreamRepair.finish`
  (the stream ended without a finish reason) flushes every open choice into one last chunk built on the envelope of
  the last chunk seen. Usage-only chunks (``choices: []``) pass through.
* The reasoning switch (``RepairOptions(reasoning=True)``), for a server that splits no reasoning: every request's
  answer is repaired, with or without tools (without, call markup stays text). ``<think>...</think>`` and
  ``<longcat_think>...</longcat_think>`` in the content are reasoning, as the core reads them
  (:func:`~longcat_plugins.client.request.answer_parser_options`). Without the prompt, whether the content starts
  inside reasoning (a template that pre-fills the opening tag) is unknown: its first think tag decides (a closer
  with no opener makes the text before it reasoning), and the content is held until that tag or the end of the
  answer; a request that switches thinking off (``chat_template_kwargs``' ``enable_thinking`` or ``thinking``:
  false) starts outside reasoning, and so does content after reasoning the upstream sent in its own field (that
  reasoning stays as sent; a think block in such content is reasoning too, appended to it). The reasoning goes to
  the reasoning field the upstream used in the choice, else to ``reasoning`` (the field vLLM 0.33 and 0.34 serve;
  writing both ``reasoning`` and ``reasoning_content`` would show it twice in clients that read both, such as
  openai-agents). Off, the content stays as sent.
* openai objects (``ChatCompletion``, ``ChatCompletionChunk``) come back as the same type; ``openai`` is never
  imported here. A malformed response or chunk is returned as given; nothing here raises on a server's output.
"""

from __future__ import annotations

from .message import repair_chat_completion
from .request import needs_repair
from .stream import ChatStreamRepair, arepair_chat_stream, repair_chat_stream

__all__ = [
    "ChatStreamRepair",
    "arepair_chat_stream",
    "needs_repair",
    "repair_chat_completion",
    "repair_chat_stream",
]
