"""A scripted vLLM ``EngineClient``: each request is answered with the next recorded model turn.

It does what vLLM's ``AsyncLLM`` does in the API server process, minus the model: the request goes through
vLLM's own ``InputProcessor`` (the engine's normal request validation) and is registered with vLLM's own
``OutputProcessor`` (incremental detokenizer, stop strings, ``skip_special_tokens``, delta or final-only output
kinds, sample logprobs). One stepping task plays the engine core and ``AsyncLLM``'s output handler at once: at
every step it takes the next token of every running request and hands them over together, as one list of
``EngineCoreOutput``s, to ``OutputProcessor.process_outputs``, as a real engine batches its running requests.
Requests join and leave between steps. A turn ends with the end-of-sequence token (``finish_reason`` "stop"), or
after ``max_tokens`` tokens ("length"); a client that goes away aborts its request as with ``AsyncLLM``
(``OutputProcessor.abort_requests``).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncGenerator, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from vllm.config import VllmConfig
from vllm.engine.protocol import EngineClient
from vllm.exceptions import VLLMValidationError
from vllm.logger import init_logger
from vllm.outputs import STREAM_FINISHED, RequestOutput
from vllm.renderers import renderer_from_config
from vllm.renderers.inputs.preprocess import extract_prompt_components
from vllm.sampling_params import SamplingParams
from vllm.v1.engine import EngineCoreOutput, EngineCoreRequest, FinishReason
from vllm.v1.engine.exceptions import EngineDeadError
from vllm.v1.engine.input_processor import InputProcessor
from vllm.v1.engine.output_processor import OutputProcessor, RequestOutputCollector
from vllm.v1.metrics.loggers import StatLoggerManager
from vllm.v1.metrics.stats import IterationStats, PrefillStats, SchedulerStats
from vllm.v1.outputs import LogprobsLists

from .recording import Script, Turn, prompt_mismatch

SUPPORTED_TASKS: tuple[Any, ...] = ("generate",)

logger = init_logger("vllm.longcat_replay.engine")


@dataclass(frozen=True, slots=True)
class LogprobsRequest:
    """What a request asked for: the ``k`` most likely tokens at each position, or these token ids."""

    top: int
    token_ids: tuple[int, ...] | None
    vocab_size: int

    def lists(self, token_id: int) -> LogprobsLists:
        """The logprobs of one replayed position, as a sampler reports them: the sampled token first, then the
        top ``k``. A replay is certain of every token: the sampled token has logprob 0.0 and rank 1 (so it is also
        the first of the top ``k``), every other token has -inf (shown as -9999.0 by the API)."""
        if self.token_ids is not None:
            others = list(self.token_ids)
            values = [0.0 if other == token_id else -math.inf for other in others]
        else:
            others = [(token_id + j) % self.vocab_size for j in range(self.top)]
            values = [0.0 if j == 0 else -math.inf for j in range(self.top)]
        return LogprobsLists(
            logprob_token_ids=np.array([[token_id, *others]], dtype=np.int64),
            logprobs=np.array([[0.0, *values]], dtype=np.float32),
            sampled_token_ranks=np.array([1], dtype=np.int64),
        )


@dataclass(slots=True)
class _Running:
    """A request the stepping task is generating: its token ids and how many were handed out."""

    request_id: str
    token_ids: list[int]
    truncated: bool
    logprobs: LogprobsRequest | None = None
    prompt_len: int = 0
    position: int = 0

    def next_output(self, tokens_per_step: int = 1) -> EngineCoreOutput:
        """The next step's tokens: one, or several as with speculative decoding (their logprobs: the first's)."""
        new = self.token_ids[self.position : self.position + tokens_per_step]
        prefill = None
        if self.position == 0:  # the step that "prefilled" the prompt, for the throughput figures
            prefill = PrefillStats(num_prompt_tokens=self.prompt_len, num_computed_tokens=self.prompt_len)
        self.position += len(new)
        finish = None
        if self.position == len(self.token_ids):
            finish = FinishReason.LENGTH if self.truncated else FinishReason.STOP
        logprobs = None
        if self.logprobs is not None and len(new) == 1:
            logprobs = self.logprobs.lists(new[0])
        return EngineCoreOutput(
            request_id=self.request_id,
            new_token_ids=new,
            new_logprobs=logprobs,
            finish_reason=finish,
            prefill_stats=prefill,
        )

    @property
    def done(self) -> bool:
        return self.position >= len(self.token_ids)


class ReplayEngineClient(EngineClient):
    """Answers chat requests from a :class:`Script`, token by token, with no model and no GPU."""

    def __init__(
        self,
        vllm_config: VllmConfig,
        script: Script,
        *,
        token_delay: float = 0.0,
        log_requests: bool = False,
        log_stats: bool = False,
        tokens_per_step: int = 1,
    ) -> None:
        self.vllm_config = vllm_config
        self.model_config = vllm_config.model_config
        self.renderer = renderer_from_config(vllm_config)
        self.input_processor = InputProcessor(vllm_config, self.renderer)
        self.tokenizer = self.renderer.tokenizer
        interval = getattr(vllm_config.scheduler_config, "stream_interval", 1)
        # (as AsyncLLM's: --stream-interval; vLLM 0.32's output processor takes none)
        steps: dict[str, Any] = {"stream_interval": interval} if interval > 1 else {}
        self.output_processor = OutputProcessor(self.tokenizer, log_stats=log_stats, **steps)
        # as AsyncLLM: the periodic "Avg generation throughput" line and the Prometheus metrics of /metrics
        self.logger_manager: StatLoggerManager | None = None
        if log_stats:
            self.logger_manager = StatLoggerManager(vllm_config=vllm_config, engine_idxs=[0])
            self.logger_manager.log_engine_initialized()
        self.script = script
        self.token_delay = token_delay
        #: tokens each step hands over (more than one: as speculative decoding or MTP accepts several)
        self.tokens_per_step = tokens_per_step
        self.log_requests = log_requests
        self.steps = 0  # engine steps taken (each one token for every running request)
        self._running: dict[str, _Running] = {}
        self._wake: asyncio.Event | None = None
        self._stepper: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._dead: BaseException | None = None
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

    def output_token_ids(self, request: EngineCoreRequest, turn: Turn) -> tuple[list[int], bool]:
        """What the request is answered with: the turn's tokens (:meth:`turn_token_ids`), cut at ``max_tokens``, and
        whether they were cut (``finish_reason`` "length"). A subclass may generate them otherwise."""
        params = request.sampling_params
        assert params is not None
        token_ids = self.turn_token_ids(turn)
        truncated = params.max_tokens is not None and len(token_ids) > params.max_tokens
        return (token_ids[: params.max_tokens] if truncated else token_ids), truncated

    @property
    def num_running(self) -> int:
        """Requests the stepping task is still generating."""
        return len(self._running)

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
        if self._dead is not None:
            raise EngineDeadError() from self._dead
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
        if params.prompt_logprobs is not None:
            raise VLLMValidationError(
                "the replay server has no prompt logprobs (it runs no model over the prompt); sample logprobs "
                "(logprobs, top_logprobs) are answered",
                parameter="prompt_logprobs",
                value=params.prompt_logprobs,
            )
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
        token_ids, truncated = self.output_token_ids(request, turn)
        queue = RequestOutputCollector(params.output_kind, request.request_id)
        self.output_processor.add_request(request, text, None, 0, queue)
        prompt_len = len(request.prompt_token_ids or ())
        self._add(_Running(request.request_id, token_ids, truncated, self._logprobs_request(params), prompt_len))
        if self.log_requests:
            logger.info("Added request %s.", request.request_id)
        return self._outputs(request_id, queue)

    def _logprobs_request(self, params: SamplingParams) -> LogprobsRequest | None:
        top = params.num_logprobs
        if top is None:
            return None
        vocab_size = self.model_config.get_vocab_size()
        if params.logprob_token_ids and params.logprobs is None:
            return LogprobsRequest(0, tuple(params.logprob_token_ids), vocab_size)
        return LogprobsRequest(vocab_size if top == -1 else top, None, vocab_size)

    async def _outputs(self, request_id: str, queue: RequestOutputCollector) -> AsyncGenerator[RequestOutput, None]:
        """What ``AsyncLLM.generate`` does with the request's queue: yield its outputs until the last one."""
        try:
            finished = False
            while not finished:
                out = queue.get_nowait() or await queue.get()
                assert isinstance(out, RequestOutput)
                finished = out.finished
                if out is not STREAM_FINISHED:
                    yield out
        except (asyncio.CancelledError, GeneratorExit):
            # the client went away: the request leaves the output processor and the running batch
            await self.abort(queue.request_id, internal=True)
            if self.log_requests:
                logger.info("Request %s aborted.", request_id)
            raise
        finally:
            queue.close()

    # -- the engine step -----------------------------------------------------------------------------

    def _add(self, run: _Running) -> None:
        if self._stepper is None or self._stepper.done():  # first request, or a new event loop
            self._loop = asyncio.get_running_loop()
            self._wake = asyncio.Event()
            self._stepper = self._loop.create_task(self._step_loop(), name="longcat-replay-engine")
        assert self._wake is not None
        self._running[run.request_id] = run
        self._wake.set()

    async def _step_loop(self) -> None:
        assert self._wake is not None
        try:
            while True:
                if not self._running:
                    self._wake.clear()
                    await self._wake.wait()
                    continue
                self.step()
                await asyncio.sleep(self.token_delay)
        except Exception as e:  # as AsyncLLM's output handler: every waiting request gets the error
            logger.exception("the replay engine's stepping task failed")
            self._dead = e
            self.output_processor.propagate_error(EngineDeadError())

    def step(self) -> None:
        """One engine step: the next token of every running request, processed as one batch."""
        outputs = [run.next_output(self.tokens_per_step) for run in self._running.values()]
        for run in [run for run in self._running.values() if run.done]:
            del self._running[run.request_id]
        self.steps += 1
        stats = IterationStats() if self.logger_manager is not None else None
        processed = self.output_processor.process_outputs(outputs, time.monotonic(), stats)
        for request_id in processed.reqs_to_abort:  # ended early by a stop string
            self._running.pop(request_id, None)
        if self.logger_manager is not None:
            scheduler = SchedulerStats(num_running_reqs=len(self._running), num_waiting_reqs=0)
            self.logger_manager.record(scheduler_stats=scheduler, iteration_stats=stats, engine_idx=0)

    def encode(self, *args: Any, **kwargs: Any) -> Any:
        raise VLLMValidationError("the replay server serves generation (chat and completions) only")

    async def abort(self, request_id: str | Iterable[str], internal: bool = False) -> None:
        ids = [request_id] if isinstance(request_id, str) else list(request_id)
        for aborted in self.output_processor.abort_requests(ids, internal):
            self._running.pop(aborted, None)
        if self.log_requests:
            logger.info("Aborted request(s) %s.", ",".join(ids))

    async def get_supported_tasks(self) -> tuple[Any, ...]:
        return SUPPORTED_TASKS

    # -- state and housekeeping: a replay never sleeps or pauses ---------------------------------------

    @property
    def is_running(self) -> bool:
        return not self._stopped and self._dead is None

    @property
    def is_stopped(self) -> bool:
        return self._stopped

    @property
    def errored(self) -> bool:
        return self._dead is not None

    @property
    def dead_error(self) -> BaseException:
        return EngineDeadError()

    def shutdown(self, timeout: float | None = None) -> None:
        """Stop taking requests and stop stepping; requests still running end as aborted. Callable from any
        thread (vLLM's shutdown handler runs it in an executor)."""
        self._stopped = True
        loop, stepper = self._loop, self._stepper
        if loop is not None and stepper is not None and not loop.is_closed():
            if _running_loop() is loop:
                self._stop_stepping()
            else:
                loop.call_soon_threadsafe(self._stop_stepping)
        self.renderer.shutdown()

    def _stop_stepping(self) -> None:
        if self._stepper is not None:
            self._stepper.cancel()
        self.output_processor.abort_requests(list(self._running), internal=True)
        self._running.clear()

    async def check_health(self) -> None:
        if self._dead is not None:
            raise EngineDeadError() from self._dead

    async def is_tracing_enabled(self) -> bool:
        return False

    async def do_log_stats(self) -> None:
        if self.logger_manager is not None:
            self.logger_manager.log()

    async def notify_kv_transfer_request_rejected(self, request_id: str, kv_transfer_params: Any, **_: Any) -> None:
        return None

    async def start_profile(self, *args: Any, **kwargs: Any) -> None:
        return None

    async def stop_profile(self) -> None:
        return None

    async def reset_mm_cache(self) -> None:
        return None

    async def reset_encoder_cache(self) -> None:
        return None

    async def reset_prefix_cache(self, reset_running_requests: bool = False, reset_connector: bool = False) -> bool:
        return True

    async def sleep(self, level: int = 1, mode: Any = "abort", reset_connector: bool = True) -> None:
        return None

    async def release_kv_cache_memory(self, reset_connector: bool = True) -> None:
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

    # vLLM 0.34's process checkpoints: a replay holds no engine state worth capturing, and never leaves RUNNING

    async def checkpoint_prepare(self, mode: Any = "wait") -> str | None:
        return "the replay engine runs no model: there is nothing to checkpoint"

    async def checkpoint_restore(self) -> None:
        return None

    async def checkpoint_state(self) -> tuple[Any, str | None]:
        from vllm.v1.engine import CheckpointState

        return CheckpointState.RUNNING, None


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
