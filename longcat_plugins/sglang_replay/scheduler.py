"""A stand-in for SGLang's scheduler process that answers from a recording, over SGLang's own IPC.

SGLang's ``launch_server`` starts the scheduler through its ``run_scheduler_process_func`` hook with
``(server_args, port_args, gpu_id, tp_rank, pp_rank, dp_rank, pipe_writer)``. This process does what
``sglang.srt.managers.scheduler.run_scheduler_process`` does at its edges, with no model:

- the ready handshake on ``pipe_writer`` (``get_init_info``);
- the scheduler's ZMQ sockets (``SchedulerIpcChannels.create``): requests from the tokenizer manager,
  ``BatchTokenIDOutput`` to the detokenizer, control answers and refusals to the tokenizer manager;
- one step for all running requests at a time, one token per request per step, streamed as the output streamer
  does (``_GenerationStreamAccumulator.accept``: incremental-detokenization ids and offsets, a streaming request at
  every token unless the text ends in a prefix of a stop string, a non-streaming one every
  ``SGLANG_FORCE_STREAM_INTERVAL`` tokens and at its end);
- the finish checks of ``Req.update_finish_state``, in its order: an abort, a stop string, end of sequence, then
  ``max_new_tokens``.

Each generation request takes the next recorded turn (its tokens, then end of sequence). A turn with an
``expect_prompt`` that differs from the request's prompt is refused the way the scheduler refuses a request
(``AbortReq`` with a 400 finish reason): a plain HTTP 400 for a non-streaming request, an error event in the
stream for a streaming one. SGLang's health-check requests get one end-of-sequence token and no turn.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import time
from array import array
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from longcat_plugins.replay.recording import Script, Turn, prompt_mismatch

logger = logging.getLogger(__name__)

#: The SGLang release whose scheduler this stands in for (its IPC structs are positional and unversioned).
SGLANG_VERSION = "0.5.23"

#: What the handshake announces (the replay has no KV cache; these only bound prompt lengths).
MAX_TOTAL_NUM_TOKENS = 1 << 20
#: Prompt tokens the detokenizer decodes again with the first output tokens (as the scheduler's constant).
INIT_INCREMENTAL_DETOKENIZATION_OFFSET = 5
HEALTH_CHECK_RID_PREFIX = "HEALTH_CHECK"
#: Seconds to wait for a request when none is running.
IDLE_POLL_SECONDS = 0.05


@dataclass(frozen=True)
class ReplayConfig:
    """What the stand-in scheduler needs besides SGLang's arguments (pickled into the scheduler process)."""

    turns: tuple[Turn, ...]
    model_dir: str
    context_len: int
    token_delay: float = 0.0


@dataclass
class RunningRequest:
    """One request being answered: the scheduler's ``Req``, reduced to what the replay streams."""

    rid: str
    http_worker_ipc: str | None
    prompt_ids: list[int]
    planned: list[int]  # the turn's tokens, then end of sequence
    stream: bool
    max_new_tokens: int | None
    stop_strs: list[str]
    stop_str_max_len: int
    ignore_eos: bool
    stop_token_ids: frozenset[int]
    skip_special_tokens: bool
    spaces_between_special_tokens: bool
    no_stop_trim: bool
    output_ids: list[int] = field(default_factory=list)
    finished_reason: dict[str, Any] | None = None
    finished_len: int | None = None
    to_finish: dict[str, Any] | None = None
    send_token_offset: int = 0
    send_decode_id_offset: int = 0
    surr_and_decode_ids: list[int] | None = None
    read_offset: int = 0
    decoded_len: int = 0

    @property
    def output_ids_through_stop(self) -> list[int]:
        return self.output_ids if self.finished_len is None else self.output_ids[: self.finished_len]

    def init_incremental_detokenize(self) -> tuple[list[int], int]:
        """``Req.init_incremental_detokenize``: the ids the detokenizer decodes, and where new text starts."""
        output_ids = self.output_ids_through_stop
        if self.surr_and_decode_ids is None:
            surr_offset = max(len(self.prompt_ids) - INIT_INCREMENTAL_DETOKENIZATION_OFFSET, 0)
            self.read_offset = len(self.prompt_ids) - surr_offset
            self.surr_and_decode_ids = self.prompt_ids[surr_offset:] + list(output_ids)
            self.decoded_len = len(output_ids)
        else:
            self.surr_and_decode_ids.extend(output_ids[self.decoded_len :])
            self.decoded_len = len(output_ids)
        return self.surr_and_decode_ids, self.read_offset


class ReplayScheduler:
    """The scheduler's event loop, answering from a :class:`Script`."""

    def __init__(self, config: ReplayConfig, port_args: Any) -> None:
        import zmq
        from sglang.srt.utils.network import get_zmq_socket
        from transformers import AutoTokenizer

        self.script = Script(list(config.turns))
        self.token_delay = config.token_delay
        self.tokenizer = AutoTokenizer.from_pretrained(config.model_dir)  # the files the detokenizer loads
        self.eos_token_id: int = self.tokenizer.eos_token_id
        self.context_len = config.context_len
        self.context = zmq.Context(2)
        # The sockets of SchedulerIpcChannels.create for rank 0 with the tokenizer initialised.
        self.recv_from_tokenizer = get_zmq_socket(self.context, zmq.PULL, port_args.scheduler_input_ipc_name, False)
        self.send_to_tokenizer = get_zmq_socket(self.context, zmq.PUSH, port_args.tokenizer_ipc_name, False)
        self.send_to_detokenizer = get_zmq_socket(self.context, zmq.PUSH, port_args.detokenizer_ipc_name, False)
        self.running: list[RunningRequest] = []
        self.force_stream_interval = _force_stream_interval()
        self.exit = False

    def init_info(self) -> dict[str, Any]:
        """The ready handshake (``Scheduler.get_init_info``)."""
        return {
            "status": "ready",
            "max_total_num_tokens": MAX_TOTAL_NUM_TOKENS,
            "max_req_input_len": MAX_TOTAL_NUM_TOKENS - 1,
            "startup_time": {},
        }

    # -- the loop -----------------------------------------------------------------------------------

    def run(self) -> None:
        import zmq

        poller = zmq.Poller()
        poller.register(self.recv_from_tokenizer, zmq.POLLIN)
        while not self.exit:
            if not self.running:
                poller.poll(IDLE_POLL_SECONDS * 1000)
            for request in self.receive():
                self.dispatch(request)
            if self.running and not self.exit:
                self.step()
                if self.token_delay:
                    time.sleep(self.token_delay)

    def receive(self) -> list[Any]:
        import zmq
        from sglang.srt.managers.io_struct import sock_recv

        received = []
        while True:
            try:
                received.append(sock_recv(self.recv_from_tokenizer, zmq.NOBLOCK))
            except zmq.ZMQError:
                return received

    def dispatch(self, request: Any) -> None:
        from sglang.srt.managers import io_struct as io

        if isinstance(request, io.TokenizedGenerateReqInput):
            self.add_request(request)
        elif isinstance(request, io.BatchTokenizedGenerateReqInput):
            for item in request.batch:
                self.add_request(item)
        elif isinstance(request, io.AbortReq):
            self.abort(request)
        elif isinstance(request, io.FlushCacheReqInput):
            self.answer(io.FlushCacheReqOutput(success=True), request)
        elif isinstance(request, io.GetInternalStateReq):
            self.answer(io.GetInternalStateReqOutput(internal_state={"replay": True}), request)
        elif isinstance(request, io.FreezeGCReq):
            io.sock_send(self.send_to_detokenizer, request)  # the scheduler forwards it to the detokenizer
        elif isinstance(request, io.ShutdownReq):
            self.exit = True
        else:
            logger.warning("replay scheduler: %s is not answered by a replay", type(request).__name__)

    def answer(self, output: Any, request: Any) -> None:
        """``SenderWrapper.send_output`` to the tokenizer manager (routed back to the request's HTTP worker)."""
        from sglang.srt.managers.io_struct import sock_send

        worker = getattr(request, "http_worker_ipc", None)
        if worker is not None and getattr(output, "http_worker_ipc", None) is None:
            output.http_worker_ipc = worker
        sock_send(self.send_to_tokenizer, output)

    # -- requests -----------------------------------------------------------------------------------

    def prompt_text(self, request: Any) -> str:
        if isinstance(request.input_text, str):
            return request.input_text
        ids = list(request.input_ids or [])
        return str(self.tokenizer.decode(ids, skip_special_tokens=False))

    def add_request(self, request: Any) -> None:
        params = request.sampling_params
        prompt_ids = [int(i) for i in (request.input_ids or [])]
        if request.rid.startswith(HEALTH_CHECK_RID_PREFIX) or params.max_new_tokens == 0:
            planned = [self.eos_token_id]  # no turn: a health check, or a prompt-only (prefix caching) request
        else:
            turn = self.script.current
            number = self.script.position + 1
            text = self.prompt_text(request)
            if request.return_logprob:
                self.refuse(request, "the replay server has no logprobs (a recording holds text only)")
                return
            if (params.n or 1) > 1:
                self.refuse(request, "the replay server answers n=1 only")
                return
            if turn.expect_prompt is not None and text != turn.expect_prompt:
                self.refuse(
                    request,
                    f"replay: the rendered prompt is not the one recorded for turn {number} (recording line "
                    f"{turn.line}): {prompt_mismatch(turn.expect_prompt, text)}",
                )
                return
            self.script.advance()
            planned = self.turn_token_ids(turn)
            logger.info("request %s (HTTP worker %s) gets turn %d", request.rid, request.http_worker_ipc, number)
        max_new_tokens = params.max_new_tokens
        if max_new_tokens is None:
            max_new_tokens = max(self.context_len - len(prompt_ids), 1)
        self.running.append(
            RunningRequest(
                rid=request.rid,
                http_worker_ipc=request.http_worker_ipc,
                prompt_ids=prompt_ids,
                planned=planned,
                stream=bool(request.stream),
                max_new_tokens=max_new_tokens,
                stop_strs=list(params.stop_strs or []),
                stop_str_max_len=int(params.stop_str_max_len or 0),
                ignore_eos=bool(params.ignore_eos),
                stop_token_ids=frozenset(params.stop_token_ids or ()),
                skip_special_tokens=bool(params.skip_special_tokens),
                spaces_between_special_tokens=bool(params.spaces_between_special_tokens),
                no_stop_trim=bool(params.no_stop_trim),
            )
        )

    def refuse(self, request: Any, message: str) -> None:
        """End a request before it runs, as the scheduler rejects one: an ``AbortReq`` with a 400 finish reason."""
        from sglang.srt.managers.io_struct import AbortReq

        reason = {"type": "abort", "status_code": HTTPStatus.BAD_REQUEST, "message": message}
        self.answer(AbortReq(rid=request.rid, finished_reason=reason), request)

    def turn_token_ids(self, turn: Turn) -> list[int]:
        """The turn's output as the model would have generated it: its tokens, then end of sequence."""
        ids = [int(i) for i in self.tokenizer.encode(turn.output, add_special_tokens=False)]
        if not ids or ids[-1] != self.eos_token_id:
            ids.append(self.eos_token_id)
        return ids

    def abort(self, request: Any) -> None:
        """``Scheduler.abort_request`` for running requests: they end at the next step with an abort reason."""
        for req in self.running:
            if req.finished_reason is None and (request.abort_all or req.rid.startswith(request.rid)):
                if request.abort_message:
                    req.to_finish = {
                        "type": "abort",
                        "message": request.abort_message,
                        "status_code": HTTPStatus.SERVICE_UNAVAILABLE,
                        "err_type": None,
                    }
                else:
                    req.to_finish = {"type": "abort", "message": "Aborted", "status_code": None, "err_type": None}

    # -- one step -----------------------------------------------------------------------------------

    def step(self) -> None:
        for req in self.running:
            if req.to_finish is None and req.max_new_tokens != 0:
                position = len(req.output_ids)
                # After the recorded turn (ignore_eos), the model would go on: repeat end of sequence.
                req.output_ids.append(req.planned[position] if position < len(req.planned) else self.eos_token_id)
            self.update_finish_state(req)
        batch = [req for req in self.running if self.should_output(req)]
        if batch:
            self.send_batch(batch)
        self.running = [req for req in self.running if req.finished_reason is None]

    def update_finish_state(self, req: RunningRequest) -> None:
        """``Req.update_finish_state`` for one new token."""
        if req.to_finish is not None:
            req.finished_reason, req.to_finish = req.to_finish, None
            logger.info("request %s aborted after %d token(s)", req.rid, len(req.output_ids))
            return
        if req.max_new_tokens == 0:
            req.finished_reason, req.finished_len = {"type": "length", "length": 0}, 0
            return
        if req.stop_strs:
            tail_len = min(req.stop_str_max_len + 1, len(req.output_ids))
            tail = self.tokenizer.decode(req.output_ids[-tail_len:])
            for stop in req.stop_strs:
                if stop in tail:
                    req.finished_reason = {"type": "stop", "matched": stop}
                    # With one new token a step, the stop string ends in it (Req._locate_str_stop_finished_len).
                    req.finished_len = len(req.output_ids)
                    self.cap_at_max_new_tokens(req)
                    return
        token = req.output_ids[-1]
        if not req.ignore_eos and (token == self.eos_token_id or token in req.stop_token_ids):
            req.finished_reason = {"type": "stop", "matched": token}
            req.finished_len = len(req.output_ids)
            return
        assert req.max_new_tokens is not None
        if len(req.output_ids) >= req.max_new_tokens:
            req.finished_reason = {"type": "length", "length": req.max_new_tokens}
            req.finished_len = req.max_new_tokens

    @staticmethod
    def cap_at_max_new_tokens(req: RunningRequest) -> None:
        assert req.max_new_tokens is not None
        if req.finished_len is not None and req.finished_len > req.max_new_tokens:
            req.finished_reason = {"type": "length", "length": req.max_new_tokens}
            req.finished_len = req.max_new_tokens

    def should_output(self, req: RunningRequest) -> bool:
        """``_GenerationStreamAccumulator.accept``: whether this step sends the request's new tokens."""
        if req.finished_reason is not None:
            return True
        if req.stream:
            return len(req.output_ids) > req.send_token_offset and not self.ends_in_stop_prefix(req)
        return len(req.output_ids) % self.force_stream_interval == 0

    def ends_in_stop_prefix(self, req: RunningRequest) -> bool:
        """``Req.check_match_stop_str_prefix``: hold text back while it may be the start of a stop string."""
        if not req.stop_strs:
            return False
        tail_len = min(req.stop_str_max_len + 1, len(req.output_ids))
        tail = self.tokenizer.decode(req.output_ids[-tail_len:])
        if not tail:
            return False
        for stop in req.stop_strs:
            if not stop:
                continue
            if stop in tail:
                return True
            if any(tail[-i:] == stop[:i] for i in range(1, min(len(tail), len(stop)) + 1)):
                return True
        return False

    def send_batch(self, batch: list[RunningRequest]) -> None:
        from sglang.srt.managers.io_struct import sock_send

        sock_send(self.send_to_detokenizer, build_batch_token_id_output(batch))


def build_batch_token_id_output(batch: list[RunningRequest]) -> Any:
    """The ``BatchTokenIDOutput`` the scheduler's output streamer sends for ``batch`` (no logprobs, no extras)."""
    from sglang.srt.managers.io_struct import BatchTokenIDOutput

    rids: list[str] = []
    ipcs: list[str | None] = []
    reasons: list[dict[str, Any] | None] = []
    decode_ids: list[array[int]] = []
    read_offsets: list[int] = []
    output_ids: list[array[int]] = []
    completion: list[int] = []
    for req in batch:
        through_stop = req.output_ids_through_stop
        rids.append(req.rid)
        ipcs.append(req.http_worker_ipc)
        reasons.append(req.finished_reason)
        output_ids.append(array("q", through_stop[req.send_token_offset :]))
        req.send_token_offset = len(through_stop)
        ids, read_offset = req.init_incremental_detokenize()
        decode_ids.append(array("q", ids[req.send_decode_id_offset :]))
        req.send_decode_id_offset = len(ids)
        read_offsets.append(read_offset)
        completion.append(len(through_stop))
    n = len(batch)
    return BatchTokenIDOutput(
        rids=rids,
        http_worker_ipcs=ipcs,
        finished_reasons=reasons,
        decoded_texts=[""] * n,
        decode_ids=decode_ids,
        read_offsets=read_offsets,
        output_ids=output_ids,
        skip_special_tokens=[r.skip_special_tokens for r in batch],
        spaces_between_special_tokens=[r.spaces_between_special_tokens for r in batch],
        no_stop_trim=[r.no_stop_trim for r in batch],
        prompt_tokens=[len(r.prompt_ids) for r in batch],
        reasoning_tokens=[0] * n,
        completion_tokens=completion,
        cached_tokens=[0] * n,
        input_token_logprobs_val=None,
        input_token_logprobs_idx=None,
        output_token_logprobs_val=None,
        output_token_logprobs_idx=None,
        input_top_logprobs_val=None,
        input_top_logprobs_idx=None,
        output_top_logprobs_val=None,
        output_top_logprobs_idx=None,
        input_token_ids_logprobs_val=None,
        input_token_ids_logprobs_idx=None,
        output_token_ids_logprobs_val=None,
        output_token_ids_logprobs_idx=None,
        output_token_entropy_val=None,
        output_token_sampling_mask=None,
        output_hidden_states=None,
        routed_experts=None,
        indexer_topk=None,
        placeholder_tokens_idx=None,
        placeholder_tokens_val=None,
        retraction_counts=[0] * n,
        cached_tokens_details=[None] * n,
        image_tokens=[0] * n,
        audio_tokens=[0] * n,
        video_tokens=[0] * n,
    )


def _force_stream_interval() -> int:
    from sglang.srt.environ import envs

    return int(envs.SGLANG_FORCE_STREAM_INTERVAL.get())


def run_replay_scheduler(
    config: ReplayConfig,
    server_args: Any,
    port_args: Any,
    gpu_id: int,
    tp_rank: int,
    pp_rank: int,
    dp_rank: int | None,
    pipe_writer: Any,
    *_: Any,
    **__: Any,
) -> None:
    """The ``run_scheduler_process_func`` of the replay (bind ``config`` first, with ``functools.partial``)."""
    logging.basicConfig(level=logging.INFO, format="[%(asctime)s replay scheduler] %(message)s", stream=sys.stderr)
    try:
        scheduler = ReplayScheduler(config, port_args)
        pipe_writer.send(scheduler.init_info())
        scheduler.run()
    except Exception:
        # As run_scheduler_process does: the server goes down with the scheduler instead of hanging.
        logger.exception("the replay scheduler failed")
        os.kill(os.getppid(), signal.SIGQUIT)
