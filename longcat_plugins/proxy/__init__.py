"""``longcat-plugins proxy``: an OpenAI-compatible pass-through in front of a server without the longcat parsers,
repairing the tool calls of its chat completions and Anthropic messages with :mod:`longcat_plugins.client`
(:mod:`.server`: needs aiohttp)."""

#: the largest SSE event, request body or non-streamed answer the proxy reads (a larger request or answer passes
#: through unrepaired; a larger event ends the stream with an error event)
DEFAULT_MAX_EVENT_BYTES = 32 * 1024 * 1024
#: seconds to connect to the upstream, and the longest silence of its answer
DEFAULT_TIMEOUT = 600.0
