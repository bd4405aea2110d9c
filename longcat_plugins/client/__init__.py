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

The three APIs share one rule, each reading it from its own spelling of the request
(:mod:`longcat_plugins.client.request`): an answer is repaired when calls are read from it (function tools declared,
calling them not forbidden) or with the reasoning switch (every answer); the core's options for an answer's text come
from one function (:func:`~longcat_plugins.client.request.answer_parser_options`: calls read or not, a stop that may
cut a call, the thinking switch, reasoning the upstream split off already); ``chat_template_kwargs``' thinking switch
is read by all three the same way.

The Responses API (``/v1/responses``, :mod:`.responses`) under the same rules, its items and events in the shapes
vLLM's own ``/v1/responses`` gives them::

    needs_response_repair(request, options=None) -> bool      # flat function tools, tool_choice not "none"
    repair_response(response, request, options) -> response     # a dict, or an openai Response
    ResponseStreamRepair(request, options).feed(event) -> [event, ...]; .finish() -> [event, ...]
    repair_response_stream(events, request, options) -> Iterator[event]
    arepair_response_stream(events, request, options) -> AsyncIterator[event]

* Tools are flat (``{"type": "function", "name", "parameters"}``; built-in tools are left out); a request with none,
  or with ``tool_choice`` ``"none"``, has no calls read, and is repaired only with the reasoning switch, as above.
* The text of each ``message`` item (its ``output_text`` parts, read as one text) and of each ``reasoning`` item
  (its ``reasoning_text``) is read by a parser of its own. A call in it ends the item there: the text before it
  stays in the item (which keeps its id), the call becomes a ``function_call`` item (``id`` ``fc_...``,
  ``call_id`` the core's ``call_...``), the text after it a new item of the same kind (a new ``msg_``/``rs_`` id);
  an item whose text was all calls is gone. Other items (and message parts of other types) are kept.
* ``options.reasoning`` (:class:`RepairOptions`): ``<think>...</think>`` (``<longcat_think>``) in a message's text
  becomes a ``reasoning`` item (one ``reasoning_text`` part, as vLLM writes reasoning); whether a message starts
  inside reasoning is unknown (its first think tag decides: ``ParserOptions.reasoning_start_unknown``) unless the
  request switches thinking off (``chat_template_kwargs``' ``enable_thinking`` or ``thinking``: false, which win;
  else ``reasoning.effort: "none"``) or a reasoning item came before it. Off: the text stays where it came.
* Upstream ``function_call`` items win: a response holding one is returned as given; in a stream, from the first
  one on, items pass through unread (what was repaired before stays).
* A stream: the events of the items the repair makes (``response.output_item.added``,
  ``response.content_part.added``, ``response.output_text.delta`` / ``response.reasoning_text.delta`` /
  ``response.function_call_arguments.delta``, their ``.done`` events, ``response.output_item.done``) replace the
  upstream's events of a message or reasoning item; every event is renumbered (``sequence_number`` from the
  first upstream event's, ``output_index`` in the order items open); the terminal event (``response.completed``,
  ``response.incomplete``, ``response.failed``) carries the items as streamed in its ``output``. Text deltas carry
  no logprobs (the text is cut anew). Items still open at the terminal event, an ``error`` event or
  :meth:`ResponseStreamRepair.finish` are closed first.

The Anthropic Messages API (``/v1/messages``, what Claude Code-style agents speak) has the same repair, over its
content blocks::

    needs_messages_repair(request, options=None) -> bool
    repair_message(response, request, options=None) -> response      # a dict, or an anthropic Message
    MessageStreamRepair(request, options).feed(event) -> [event, ...]; .finish() -> [event, ...]
    repair_message_stream(events, request, options=None) -> Iterator[event]
    arepair_message_stream(events, request, options=None) -> AsyncIterator[event]
    fold_message_events(events) -> [content block, ...]               # a stream's blocks, as a client builds them

* Tools are ``{"name", "description", "input_schema"}`` (Anthropic's own tools, with a ``type`` of their own, are
  left out); a request with none, or with ``tool_choice`` ``{"type": "none"}``, has no calls read. The other rules
  are the ones above: a block naming no declared tool stays text; a stop sequence may cut a call (it stays text).
* A call written in a ``text`` block closes that block where it starts, opens a ``tool_use`` block (``id``
  ``toolu_...``, ``name``, ``input``; streamed as ``content_block_start`` with an empty ``input``, then
  ``input_json_delta`` fragments of ``partial_json``) and the text after it opens a new ``text`` block; every later
  block's ``index`` shifts. A text block that was only markup is not sent. ``stop_reason`` ``"end_turn"`` (or
  ``"stop_sequence"``: the calls read are complete) becomes ``"tool_use"`` (``stop_sequence`` null) when calls were
  made, as vLLM's own ``/v1/messages`` maps them; other reasons stay. ``ping``, ``message_start``, ``error`` and
  every other event pass as given.
* ``thinking`` blocks the upstream sends are not read. With ``RepairOptions(reasoning=True)``, ``<think>...</think>``
  (and ``<longcat_think>``) left in a text block becomes a ``thinking`` block (``thinking_delta``, closed with a
  ``signature_delta`` as vLLM closes the thinking it splits off); whether the text starts inside reasoning is decided
  by its first think tag, unless the request switched thinking off (``chat_template_kwargs``' ``enable_thinking`` or
  ``thinking``: false, which win; else ``thinking: {"type": "disabled"}``) or a ``thinking`` block came before it.
  Off: the text stays as sent.
* The upstream's own ``tool_use`` blocks win: a message with one is returned as given; in a stream, from its
  ``content_block_start`` on nothing more is read (what the repair held back is released first, as text, verbatim),
  and the upstream's blocks pass with their indexes shifted by the blocks the repair added before.
* anthropic objects (``Message``, the ``Raw...Event`` types) come back as anthropic objects (each event as the SDK's
  class of its type); ``anthropic`` is never imported here.
"""

from __future__ import annotations

from .message import repair_chat_completion
from .messages import (
    MessageStreamRepair,
    arepair_message_stream,
    fold_message_events,
    needs_messages_repair,
    repair_message,
    repair_message_stream,
)
from .options import RepairOptions
from .request import needs_repair
from .response_request import needs_response_repair
from .responses import ResponseStreamRepair, arepair_response_stream, repair_response, repair_response_stream
from .stream import ChatStreamRepair, arepair_chat_stream, repair_chat_stream

__all__ = [
    "ChatStreamRepair",
    "MessageStreamRepair",
    "RepairOptions",
    "ResponseStreamRepair",
    "arepair_chat_stream",
    "arepair_message_stream",
    "arepair_response_stream",
    "fold_message_events",
    "needs_messages_repair",
    "needs_repair",
    "needs_response_repair",
    "repair_chat_completion",
    "repair_chat_stream",
    "repair_message",
    "repair_message_stream",
    "repair_response",
    "repair_response_stream",
]
