"""A scripted vLLM ``EngineClient``: each request is answered with the next recorded model turn.

It does what vLLM's ``AsyncLLM`` does in the API server process, minus the model: the request goes through
vLLM's own ``InputProcessor`` (the engine's normal request validation), and the turn's token ids, fed one
token per step as ``EngineCoreOutput``s, go through vLLM's own ``OutputProcessor`` (incremental detokenizer,
stop strings, ``skip_special_tokens``, delta or final-only output kinds). The turn ends with the
end-of-sequence token (``finish_reason`` "stop"), or after ``max_tokens`` tokens ("length").
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Iterable, Mapping
from typing import Any

from vllm.config import VllmConfig
from vllm.engine.protocol import EngineClient
from vllm.exceptions import VLLMValidationError
from vllm.outputs import RequestOutput
from vllm.renderers import renderer_from_config
from vllm.renderers.inputs.preprocess import extract_prompt_components
from vllm.sampling_params import SamplingParams
from vllm.v1.engine import EngineCoreOutput, EngineCoreRequest, FinishReason
from vllm.v1.engine.input_processor import InputProcessor
from vllm.v1.engine.output_processor import OutputProcessor, RequestOutputCollector

from .recording import Script, Turn, prompt_mismatch

SUPPORTED_TASKS: tuple[Any, ...] = ("generate",)


class ReplayEngineClient(EngineClient):
    """Answers chat requests from a :class:`Script`, token by token, with no model and no GPU."""

    def __init__(self, vllm_config: VllmConfig, script: Script, *, token_delay: float = 0.0) -> None:
        self.vllm_config = vllm_config
        self.model_config = vllm_config.model_config
        self.renderer = renderer_from_config(vllm_config)
        self.input_processor = InputProcessor(vllm_config, self.renderer)
        self.tokenizer = self.renderer.tokenizer
        self.output_processor = OutputProcessor(self.tokenizer, log_stats=False)
        self.script = script
        self.token_delay = token_delay
        self._stopped = False

    # -- generation --------------------------------------------------------------------------------

    def turn_token_ids(self, turn: Turn) -> list[int]:
        """The turn's output as the model would have generated it: its tokens, then end-of-sequence."""
        assert self.tokenizer is not None
        ids = list(self.tokenizer.encode(turn.output, add_special_tokens=False))
        eos = self.tokenizer.eos_token_id
        if not ids or ids[-1] != eos:
            ids.append(eos)
        return ids

    def generate(
        self,
        prompt: Any,
        sampling_params: SamplingParams,
        request_id: str,
        *,
        prompt_text: str | None = None,
        lora_request: Any = None,
        tokenization_kwargs: dict[str, Any] | None = None,
        trace_headers: Mapping[str, str] | None = None,
        priority: int = 0,
        data_parallel_rank: int | None = None,
        session_id: str | None = None,
        kv_hints: Any = None,
        reasoning_ended: bool | None = None,
        reasoning_parser_kwargs: dict[str, Any] | None = None,
    ) -> AsyncGenerator[RequestOutput, None]:
        # Everything that can reject the request runs here, before the serving layer starts a response, so a
        # rejected streaming request still gets a plain HTTP error.
        if self._stopped:
            raise VLLMValidationError("the replay server is shutting down")
        if isinstance(prompt, EngineCoreRequest) or not isinstance(prompt, dict):
            raise VLLMValidationError("the replay server takes rendered prompts only")
        request = self.input_processor.process_inputs(
            request_id,
            prompt,
            sampling_params,
            supported_tasks=SUPPORTED_TASKS,
            lora_request=lora_request,
            tokenization_kwargs=tokenization_kwargs,
            trace_headers=trace_headers,
            priority=priority,
            data_parallel_rank=data_parallel_rank,
            session_id=session_id,
            kv_hints=kv_hints,
        )
        params = request.sampling_params
        assert params is not None
        if params.n != 1:
            raise VLLMValidationError("the replay server answers n=1 only", parameter="n", value=params.n)
        text = extract_prompt_components(self.model_config, prompt).text or ""
        turn = self.script.current
        number = self.script.position + 1
        if turn.expect_prompt is not None and text != turn.expect_prompt:
            raise VLLMValidationError(
                f"replay: the rendered prompt is not the one recorded for turn {number} (recording line "
                f"{turn.line}): {prompt_mismatch(turn.expect_prompt, text)}",
                parameter="messages",
            )
        self.script.advance()
        if reasoning_ended is not None:
            request.reasoning_ended = reasoning_ended
        if reasoning_parser_kwargs is not None:
            request.reasoning_parser_kwargs = reasoning_parser_kwargs
        self.input_processor.assign_request_id(request)
        queue = RequestOutputCollector(params.output_kind, request.request_id)
        self.output_processor.add_request(request, text, None, 0, queue)
        return self._replay(request.request_id, queue, self.turn_token_ids(turn), params.max_tokens)

    async def _replay(
        self, request_id: str, queue: RequestOutputCollector, token_ids: list[int], max_tokens: int | None
    ) -> AsyncGenerator[RequestOutput, None]:
        truncated = max_tokens is not None and len(token_ids) > max_tokens
        if truncated:
            assert max_tokens is not None
            token_ids = token_ids[:max_tokens]
        try:
            for i, token_id in enumerate(token_ids):
                finish = None
                if i == len(token_ids) - 1:
                    finish = FinishReason.LENGTH if truncated else FinishReason.STOP
                step = EngineCoreOutput(request_id=request_id, new_token_ids=[token_id], finish_reason=finish)
                self.output_processor.process_outputs([step])
                out = queue.get_nowait()
                if out is not None:
                    assert isinstance(out, RequestOutput)
                    yield out
                    if out.finished:  # also when a stop string ended the turn early
                        return
                await asyncio.sleep(self.token_delay)
        except (asyncio.CancelledError, GeneratorExit):
            self.output_processor.abort_requests([request_id], internal=True)
            raise
        finally:
            queue.close()

    def encode(self, *args: Any, **kwargs: Any) -> Any:
        raise VLLMValidationError("the replay server serves generation (chat and completions) only")

    async def abort(self, request_id: str | Iterable[str]) -> None:
        ids = [request_id] if isinstance(request_id, str) else list(request_id)
        self.output_processor.abort_requests(ids, internal=False)

    async def get_supported_tasks(self) -> tuple[Any, ...]:
        return SUPPORTED_TASKS

    # -- state and housekeeping: a replay is always healthy, never sleeps or pauses --------------------

    @property
    def is_running(self) -> bool:
        return not self._stopped

    @property
    def is_stopped(self) -> bool:
        return self._stopped

    @property
    def errored(self) -> bool:
        return False

    @property
    def dead_error(self) -> BaseException:
        return RuntimeError("the replay engine is not dead")

    def shutdown(self, timeout: float | None = None) -> None:
        self._stopped = True
        self.renderer.shutdown()

    async def check_health(self) -> None:
        return None

    async def is_tracing_enabled(self) -> bool:
        return False

    async def do_log_stats(self) -> None:
        return None

    async def notify_kv_transfer_request_rejected(
        self, request_id: str, kv_transfer_params: Any, **_: Any
    ) -> None:
        return None

    async def start_profile(self, *args: Any, **kwargs: Any) -> None:
        return None

    async def stop_profile(self) -> None:
        return None

    async def reset_mm_cache(self) -> None:
        return None

    async def reset_encoder_cache(self) -> None:
        return None

    async def reset_prefix_cache(
        self, reset_running_requests: bool = False, reset_connector: bool = False
    ) -> bool:
        return True

    async def sleep(self, level: int = 1, mode: Any = "abort") -> None:
        return None

    async def release_kv_cache_memory(self) -> None:
        return None

    async def wake_up(self, tags: list[str] | None = None) -> bool:
        return True

    async def is_sleeping(self) -> bool:
        return False

    async def add_lora(self, lora_request: Any) -> bool:
        raise VLLMValidationError("the replay server has no LoRA adapters")

    async def pause_generation(self, *, mode: Any = "abort", clear_cache: bool = True) -> None:
        return None

    async def resume_generation(self) -> None:
        return None

    async def is_paused(self) -> bool:
        return False
