"""The SGLang replay's stand-in scheduler speaks SGLang's internal IPC, which is positional (msgspec
``array_like`` structs) and unversioned: these tests pin the SGLang release and every struct the stand-in reads or
writes, field by field and in order, so that an SGLang upgrade fails here, loudly, rather than in a garbled
stream. When one fails, read the new scheduler (``managers/scheduler.py``, ``scheduler_components/``,
``schedule_batch.py``) and detokenizer, update ``longcat_plugins/sglang_replay/scheduler.py``, then the pins."""

from __future__ import annotations

import inspect
from importlib.metadata import version

import pytest

from longcat_plugins.sglang_replay import scheduler as replay

pytestmark = pytest.mark.sglang

BATCH_TOKEN_ID_OUTPUT = (
    "rids", "http_worker_ipcs", "finished_reasons", "decoded_texts", "decode_ids", "read_offsets", "output_ids",
    "skip_special_tokens", "spaces_between_special_tokens", "no_stop_trim", "prompt_tokens", "reasoning_tokens",
    "completion_tokens", "cached_tokens", "input_token_logprobs_val", "input_token_logprobs_idx",
    "output_token_logprobs_val", "output_token_logprobs_idx", "input_top_logprobs_val", "input_top_logprobs_idx",
    "output_top_logprobs_val", "output_top_logprobs_idx", "input_token_ids_logprobs_val",
    "input_token_ids_logprobs_idx", "output_token_ids_logprobs_val", "output_token_ids_logprobs_idx",
    "output_token_entropy_val", "output_token_sampling_mask", "output_hidden_states", "routed_experts",
    "indexer_topk", "placeholder_tokens_idx", "placeholder_tokens_val", "retraction_counts", "beam_search_output",
    "weight_versions", "token_steps", "customized_info", "cached_tokens_details", "dp_ranks", "time_stats",
    "image_tokens", "audio_tokens", "video_tokens", "spec_verify_ct", "spec_num_correct_drafts",
    "spec_num_block_accept_tokens", "spec_num_cap_tokens", "spec_correct_drafts_histogram",
    "spec_cap_lens_histogram", "input_top_logprobs_val_flat", "input_top_logprobs_idx_flat",
    "input_top_logprobs_flat_null_prefix",
)  # fmt: skip
TOKENIZED_GENERATE_REQ_INPUT = (
    "rid", "http_worker_ipc", "input_text", "input_ids", "input_embeds", "mm_inputs", "token_type_ids",
    "sampling_params", "return_logprob", "logprob_start_len", "top_logprobs_num", "token_ids_logprob", "stream",
    "return_sampling_mask", "return_flat_raw_top_logprobs", "return_hidden_states", "return_routed_experts",
    "routed_experts_start_len", "return_indexer_topk", "session_id", "session_params", "lora_id",
    "custom_logit_processor", "positional_embed_overrides", "bootstrap_host", "bootstrap_port", "bootstrap_room",
    "bootstrap_pair_key", "decode_tp_size", "routed_dp_rank", "disagg_prefill_dp_rank", "routing_key",
    "require_reasoning", "priority", "extra_key", "no_logs", "return_bytes", "return_entropy",
    "need_wait_for_mm_inputs", "num_items_assigned", "encoder_urls", "multi_item_delimiter_indices",
    "token_indices_to_pool", "time_stats", "cache_salt", "kv_hints", "pp_prefetch_ticketed",
    "sampling_logprobs_mode", "lora_name",
)  # fmt: skip
SAMPLING_PARAMS = (
    "max_new_tokens", "stop", "stop_token_ids", "stop_regex", "temperature", "top_p", "top_k", "min_p",
    "frequency_penalty", "presence_penalty", "repetition_penalty", "min_new_tokens", "n", "beam_width",
    "json_schema", "regex", "ebnf", "structural_tag", "ignore_eos", "skip_special_tokens",
    "spaces_between_special_tokens", "no_stop_trim", "stream_interval", "logit_bias", "sampling_seed",
    "custom_params", "watermark", "stop_strs", "stop_regex_strs", "stop_str_max_len", "stop_regex_max_len",
    "is_normalized", "ebnf_full_assistant",
)  # fmt: skip
ABORT_REQ = ("rid", "http_worker_ipc", "abort_all", "finished_reason", "abort_message", "weight_versions")
FLUSH_CACHE_REQ_OUTPUT = ("rid", "http_worker_ipc", "success", "message")
GET_INTERNAL_STATE_REQ_OUTPUT = ("rid", "http_worker_ipc", "internal_state")


def test_sglang_is_the_pinned_release() -> None:
    import sglang

    assert replay.SGLANG_VERSION == "0.5.23"
    assert version("sglang") == sglang.__version__ == replay.SGLANG_VERSION, (
        "the stand-in scheduler speaks this SGLang release's IPC: re-read SGLang's scheduler before moving the pin"
    )


@pytest.mark.parametrize(
    ("module", "name", "fields"),
    [
        ("sglang.srt.managers.io_struct", "BatchTokenIDOutput", BATCH_TOKEN_ID_OUTPUT),
        ("sglang.srt.managers.io_struct", "TokenizedGenerateReqInput", TOKENIZED_GENERATE_REQ_INPUT),
        ("sglang.srt.managers.io_struct", "AbortReq", ABORT_REQ),
        ("sglang.srt.managers.io_struct", "FlushCacheReqOutput", FLUSH_CACHE_REQ_OUTPUT),
        ("sglang.srt.managers.io_struct", "GetInternalStateReqOutput", GET_INTERNAL_STATE_REQ_OUTPUT),
        ("sglang.srt.sampling.sampling_params", "SamplingParams", SAMPLING_PARAMS),
    ],
)
def test_wire_structs_are_the_pinned_ones(module: str, name: str, fields: tuple[str, ...]) -> None:
    import importlib

    import msgspec

    cls = getattr(importlib.import_module(module), name)
    assert issubclass(cls, msgspec.Struct)
    assert cls.__struct_config__.array_like, f"{name} is no longer positional on the wire"
    assert cls.__struct_fields__ == fields, f"{name} changed on the wire"


def test_the_batch_output_survives_sglangs_codec() -> None:
    """What the stand-in sends decodes, with SGLang's own msgpack codec, into the values it meant."""
    from sglang.srt.managers.io_struct import BatchTokenIDOutput, msgpack_decode, msgpack_encode

    req = replay.RunningRequest(
        rid="r1",
        http_worker_ipc="ipc:///tmp/worker-1",
        prompt_ids=list(range(10, 20)),
        planned=[5, 6, 7],
        stream=True,
        max_new_tokens=8,
        stop_strs=[],
        stop_str_max_len=0,
        ignore_eos=False,
        stop_token_ids=frozenset(),
        skip_special_tokens=True,
        spaces_between_special_tokens=True,
        no_stop_trim=False,
    )
    req.output_ids = [5, 6]
    first = msgpack_decode(msgpack_encode(replay.build_batch_token_id_output([req])))
    req.output_ids.append(7)
    req.finished_reason = {"type": "stop", "matched": 7}
    req.finished_len = 3
    second = msgpack_decode(msgpack_encode(replay.build_batch_token_id_output([req])))
    assert isinstance(first, BatchTokenIDOutput) and isinstance(second, BatchTokenIDOutput)
    assert first.rids == second.rids == ["r1"]
    assert first.http_worker_ipcs == ["ipc:///tmp/worker-1"]
    # the first batch carries the prompt's last tokens for the detokenizer's surrounding text, then only new ids
    offset = replay.INIT_INCREMENTAL_DETOKENIZATION_OFFSET
    assert list(first.decode_ids[0]) == [15, 16, 17, 18, 19, 5, 6] and first.read_offsets == [offset]
    assert list(second.decode_ids[0]) == [7]
    assert list(first.output_ids[0]) == [5, 6] and list(second.output_ids[0]) == [7]
    assert first.finished_reasons == [None] and second.finished_reasons == [{"type": "stop", "matched": 7}]
    assert first.completion_tokens == [2] and second.completion_tokens == [3]
    assert second.prompt_tokens == [10]


def test_constants_are_sglangs() -> None:
    from sglang.srt.constants import HEALTH_CHECK_RID_PREFIX
    from sglang.srt.managers.schedule_batch import INIT_INCREMENTAL_DETOKENIZATION_OFFSET

    assert replay.INIT_INCREMENTAL_DETOKENIZATION_OFFSET == INIT_INCREMENTAL_DETOKENIZATION_OFFSET
    assert replay.HEALTH_CHECK_RID_PREFIX == HEALTH_CHECK_RID_PREFIX


def test_the_scheduler_hook_is_called_as_the_stand_in_expects() -> None:
    """``launch_server`` calls ``run_scheduler_process_func`` with the positional arguments of SGLang's own."""
    from sglang.srt.entrypoints.http_server import launch_server
    from sglang.srt.managers.scheduler import run_scheduler_process

    hook = inspect.signature(launch_server).parameters["run_scheduler_process_func"]
    assert hook.default is run_scheduler_process
    expected = ["server_args", "port_args", "gpu_id", "tp_rank", "pp_rank", "dp_rank", "pipe_writer"]
    assert list(inspect.signature(run_scheduler_process).parameters)[:7] == expected
    assert list(inspect.signature(replay.run_replay_scheduler).parameters)[1:8] == expected
