"""An executor for vLLM's engine core that runs no model: each request is answered with a recorded assistant output.

``vllm serve MODEL_DIR --distributed-executor-backend tests.rust_frontend.scripted_executor.ScriptedExecutor``
builds it in the engine core process in place of vLLM's executor. The engine core, its scheduler, KV-cache manager
and its ZMQ link to the API server (here vLLM's Rust frontend) are vLLM's own and run unchanged; only the model is
replaced. The recording is ``scripted_outputs.json`` in the model directory::

    [{"when": "<text the rendered prompt contains>", "output": "<what the model generates, without EOS>"}, ...]

A new request takes the first entry whose ``when`` occurs in its prompt (decoded with the model's tokenizer, special
tokens kept). At each engine step, every scheduled request whose prompt has been computed gets the next token of
that output, tokenized with the model's tokenizer, and once the output is used up the end-of-sequence token
(``config.json``'s ``eos_token_id``). The position comes from the scheduler's own count of the request's output
tokens, so requests run concurrently, join and leave between steps, and a preempted request resumes where it was.
Each request's prompt and what the frontend asked of the engine for it (its structured-output constraint,
``max_tokens``...) are appended to ``scripted_requests.jsonl`` in the model directory, for the tests.

The KV cache is described as a one-layer model's (one full-attention layer of ``config.json``'s shape); its blocks
are allocated by the scheduler and never written.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tokenizers import Tokenizer
from vllm.config import VllmConfig
from vllm.logger import init_logger
from vllm.v1.core.sched.output import GrammarOutput, SchedulerOutput
from vllm.v1.executor.uniproc_executor import UniProcExecutor
from vllm.v1.kv_cache_interface import FullAttentionSpec, KVCacheConfig, KVCacheSpec
from vllm.v1.outputs import ModelRunnerOutput
from vllm.v1.worker.worker_base import CompilationTimes

from tests.rust_frontend.rust_support import RECORDING, REQUEST_LOG

#: what a request gets when no recorded entry matches its prompt
UNMATCHED = "[scripted executor: no recorded output matches this prompt]"
#: the memory offered to the KV cache (the blocks are bookkeeping only: nothing is allocated)
KV_CACHE_BYTES = 64 << 20
#: vLLM 0.33's step output takes the position of each request id, 0.34's derives it from ``req_ids``
_INDEXED_OUTPUT = "req_id_to_index" in {f.name for f in dataclasses.fields(ModelRunnerOutput)}

logger = init_logger("vllm.longcat_scripted_executor")


@dataclass(frozen=True, slots=True)
class Entry:
    when: str
    token_ids: tuple[int, ...]


class ScriptedWorker:
    """What ``collective_rpc`` reaches: the methods the engine core calls on a worker, answered without a model."""

    def __init__(self, vllm_config: VllmConfig) -> None:
        self.vllm_config = vllm_config
        model_config = vllm_config.model_config
        model_dir = Path(model_config.model)
        self.tokenizer = Tokenizer.from_file(str(Path(model_config.tokenizer) / "tokenizer.json"))
        recording = json.loads((model_dir / RECORDING).read_text(encoding="utf-8"))
        self.entries = [Entry(e["when"], self._encode(e["output"])) for e in recording]
        self.unmatched = self._encode(UNMATCHED)
        eos = model_config.hf_config.eos_token_id
        self.eos_token_id = int(eos[0] if isinstance(eos, list) else eos)
        self.outputs: dict[str, tuple[int, ...]] = {}  # request id -> its output's token ids
        self.prompt_lengths: dict[str, int] = {}
        self.request_log = model_dir / REQUEST_LOG

    def _encode(self, text: str) -> tuple[int, ...]:
        return tuple(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def _choose(self, prompt: str) -> tuple[int, ...]:
        for entry in self.entries:
            if entry.when in prompt:
                return entry.token_ids
        logger.warning("no recorded output matches the prompt %r", prompt[-200:])
        return self.unmatched

    def _log_request(self, request_id: str, prompt: str, params: Any) -> None:
        """One line of :data:`REQUEST_LOG` for a new request: its prompt and what the frontend asked the engine for."""
        record = {
            "request_id": request_id,
            "prompt": prompt,
            "structured_outputs": None if params.structured_outputs is None else repr(params.structured_outputs),
            "max_tokens": params.max_tokens,
            "skip_special_tokens": params.skip_special_tokens,
        }
        with self.request_log.open("a", encoding="utf-8") as log:
            log.write(json.dumps(record) + "\n")

    # -- set-up: the engine core's questions about the model and its KV cache -----------------------------------

    def get_kv_cache_spec(self) -> dict[str, KVCacheSpec]:
        model_config = self.vllm_config.model_config
        spec = FullAttentionSpec(
            block_size=self.vllm_config.cache_config.block_size,
            num_kv_heads=model_config.get_num_kv_heads(self.vllm_config.parallel_config),
            head_size=model_config.get_head_size(),
            dtype=model_config.dtype,
        )
        return {"model.layers.0.self_attn.attn": spec}

    def get_supported_kv_cache_layouts(self) -> list[str]:
        return ["LBNHC"]

    def set_kv_cache_layout(self, kv_cache_layout: str, cp_kv_cache_interleave_size: int) -> None:
        return None

    def determine_available_memory(self) -> int:
        return KV_CACHE_BYTES

    def initialize_from_config(self, kv_cache_configs: list[KVCacheConfig]) -> None:
        return None

    def compile_or_warm_up_model(self) -> CompilationTimes:
        return CompilationTimes(language_model=0.0, encoder=0.0)

    def get_supported_tasks(self) -> tuple[str, ...]:
        return ("generate",)

    def update_max_model_len(self, max_model_len: int) -> None:
        self.vllm_config.model_config.max_model_len = max_model_len

    def check_health(self) -> None:
        return None

    def shutdown(self) -> None:
        return None

    # -- the steps ----------------------------------------------------------------------------------------------

    def execute_model(self, scheduler_output: SchedulerOutput) -> ModelRunnerOutput:
        for req_id in scheduler_output.finished_req_ids:
            self.outputs.pop(req_id, None)
            self.prompt_lengths.pop(req_id, None)
        # request id -> (tokens computed before this step, output tokens so far)
        progress: dict[str, tuple[int, int]] = {}
        for new in scheduler_output.scheduled_new_reqs:
            prompt_ids = new.prompt_token_ids or []
            prompt = self.tokenizer.decode(prompt_ids, skip_special_tokens=False)
            self._log_request(new.req_id, prompt, new.sampling_params)
            self.outputs[new.req_id] = self._choose(prompt)
            self.prompt_lengths[new.req_id] = len(prompt_ids)
            progress[new.req_id] = (new.num_computed_tokens, 0)
        cached = scheduler_output.scheduled_cached_reqs
        for i, req_id in enumerate(cached.req_ids):
            progress[req_id] = (cached.num_computed_tokens[i], cached.num_output_tokens[i])
        req_ids = list(scheduler_output.num_scheduled_tokens)
        sampled: list[list[int]] = []
        for req_id in req_ids:
            computed, generated = progress[req_id]
            computed += scheduler_output.num_scheduled_tokens[req_id]
            if computed < self.prompt_lengths[req_id] + generated:
                sampled.append([])  # a chunk of the prompt: nothing sampled yet
                continue
            output = self.outputs[req_id]
            sampled.append([output[generated] if generated < len(output) else self.eos_token_id])
        index = {"req_id_to_index": {req_id: i for i, req_id in enumerate(req_ids)}} if _INDEXED_OUTPUT else {}
        return ModelRunnerOutput(req_ids=req_ids, sampled_token_ids=sampled, **index)

    def sample_tokens(self, grammar_output: GrammarOutput | None) -> ModelRunnerOutput:
        raise RuntimeError("execute_model answers every step: sample_tokens is never needed")

    def take_draft_token_ids(self) -> None:
        return None


class ScriptedExecutor(UniProcExecutor):
    """vLLM's single-process executor with :class:`ScriptedWorker` as its worker (no device, no model)."""

    def _init_executor(self) -> None:
        self.driver_worker = ScriptedWorker(self.vllm_config)  # type: ignore[assignment]

    @classmethod
    def supports_async_scheduling(cls) -> bool:
        return False
