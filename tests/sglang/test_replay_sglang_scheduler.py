"""The stand-in scheduler's steps, without sockets: real ``TokenizedGenerateReqInput``s with SGLang's normalised
``SamplingParams`` in, the ``BatchTokenIDOutput``s it would send to the detokenizer (and the refusals it would send
to the tokenizer manager) captured. The HTTP tests run the same code behind SGLang's server; these pin the
scheduler's finish rules and batching, token by token."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from longcat_plugins.replay.model_dir import build_model_dir
from longcat_plugins.replay.recording import Script, Turn
from longcat_plugins.sglang_replay import scheduler as replay

pytestmark = pytest.mark.sglang

OUTPUT = 'I\'ll check both cities at once.\n<longcat_tool_call>\n{"name": "get_weather"}\n</longcat_tool_call>'
PROMPT = "[Round 0] USER:Weather? ASSISTANT:"


class CapturingScheduler(replay.ReplayScheduler):
    """The replay scheduler with its three sockets replaced by lists."""

    def __init__(self, turns: list[Turn], tokenizer: Any) -> None:
        self.script = Script(turns)
        self.token_delay = 0.0
        self.tokenizer = tokenizer
        self.eos_token_id = tokenizer.eos_token_id
        self.context_len = 65536
        self.running = []
        self.force_stream_interval = 50
        self.exit = False
        self.sent: list[Any] = []
        self.answers: list[Any] = []

    def send_batch(self, batch: list[replay.RunningRequest]) -> None:
        self.sent.append(replay.build_batch_token_id_output(batch))

    def answer(self, output: Any, request: Any) -> None:
        self.answers.append(output)

    def run_to_end(self, limit: int = 1000) -> None:
        for _ in range(limit):
            if not self.running:
                return
            self.step()
        raise AssertionError("requests still running")


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from transformers import AutoTokenizer

    model_dir = build_model_dir(Path(tmp_path_factory.mktemp("model")), [OUTPUT, PROMPT] * 3)
    return AutoTokenizer.from_pretrained(model_dir)


def request(tokenizer: Any, rid: str, *, stream: bool = False, prompt: str = PROMPT, **sampling: Any) -> Any:
    from sglang.srt.managers.io_struct import TokenizedGenerateReqInput
    from sglang.srt.sampling.sampling_params import SamplingParams

    params = SamplingParams(**sampling)
    params.normalize(tokenizer)
    return TokenizedGenerateReqInput(
        rid=rid,
        input_text=None,
        input_ids=tokenizer.encode(prompt, add_special_tokens=False),
        input_embeds=None,
        mm_inputs=None,
        token_type_ids=None,
        sampling_params=params,
        return_logprob=False,
        logprob_start_len=-1,
        top_logprobs_num=0,
        token_ids_logprob=None,
        stream=stream,
    )


def outputs_of(scheduler: CapturingScheduler, rid: str) -> tuple[list[list[int]], Any]:
    """The new output ids each batch carried for ``rid``, and its finish reason."""
    steps, reason = [], None
    for batch in scheduler.sent:
        for i, r in enumerate(batch.rids):
            if r == rid:
                steps.append(list(batch.output_ids[i]))
                reason = batch.finished_reasons[i]
    return steps, reason


def flat(steps: list[list[int]]) -> list[int]:
    return [token for step in steps for token in step]


def turn_ids(tokenizer: Any) -> list[int]:
    return [*tokenizer.encode(OUTPUT, add_special_tokens=False), tokenizer.eos_token_id]


def test_end_of_sequence_streaming_one_token_a_step(tokenizer: Any) -> None:
    scheduler = CapturingScheduler([Turn(OUTPUT)], tokenizer)
    scheduler.dispatch(request(tokenizer, "a", stream=True, max_new_tokens=None))
    scheduler.run_to_end()
    steps, reason = outputs_of(scheduler, "a")
    assert steps == [[t] for t in turn_ids(tokenizer)]
    assert reason == {"type": "stop", "matched": tokenizer.eos_token_id}


def test_non_streaming_is_sent_once_at_the_end(tokenizer: Any) -> None:
    scheduler = CapturingScheduler([Turn(OUTPUT)], tokenizer)
    scheduler.dispatch(request(tokenizer, "a", max_new_tokens=None))
    scheduler.run_to_end()
    steps, reason = outputs_of(scheduler, "a")
    assert steps == [turn_ids(tokenizer)] and reason["type"] == "stop"


def test_max_new_tokens_is_a_length_finish(tokenizer: Any) -> None:
    scheduler = CapturingScheduler([Turn(OUTPUT)], tokenizer)
    scheduler.dispatch(request(tokenizer, "a", stream=True, max_new_tokens=5))
    scheduler.run_to_end()
    steps, reason = outputs_of(scheduler, "a")
    assert flat(steps) == turn_ids(tokenizer)[:5]
    assert reason == {"type": "length", "length": 5}


def test_stop_string_ends_the_turn_through_it(tokenizer: Any) -> None:
    scheduler = CapturingScheduler([Turn(OUTPUT)], tokenizer)
    scheduler.dispatch(request(tokenizer, "a", stream=True, max_new_tokens=None, stop=["cities"]))
    scheduler.run_to_end()
    steps, reason = outputs_of(scheduler, "a")
    assert reason == {"type": "stop", "matched": "cities"}
    text = tokenizer.decode(flat(steps))
    assert text.endswith("cities") and text.count("cities") == 1  # through the stop string, nothing after


def test_text_that_may_start_a_stop_string_is_held_back(tokenizer: Any) -> None:
    scheduler = CapturingScheduler([Turn(OUTPUT)], tokenizer)
    scheduler.dispatch(request(tokenizer, "a", stream=True, max_new_tokens=None, stop=["both cities at once!"]))
    scheduler.run_to_end()
    steps, reason = outputs_of(scheduler, "a")
    assert flat(steps) == turn_ids(tokenizer) and reason["type"] == "stop"
    # "both cities at once" was held back until "." showed it is not the stop string, then sent in one batch
    held = [step for step in steps if len(step) > 1]
    assert len(held) == 1 and tokenizer.decode(held[0]) == " both cities at once."


def test_requests_share_steps_and_an_abort_ends_one(tokenizer: Any) -> None:
    from sglang.srt.managers.io_struct import AbortReq

    scheduler = CapturingScheduler([Turn(OUTPUT)], tokenizer)
    scheduler.dispatch(request(tokenizer, "a", stream=True, max_new_tokens=None))
    scheduler.dispatch(request(tokenizer, "b", stream=True, max_new_tokens=None))
    for _ in range(3):
        scheduler.step()
    assert [batch.rids for batch in scheduler.sent] == [["a", "b"]] * 3  # one batch a step for all requests
    scheduler.dispatch(AbortReq(rid="a"))
    scheduler.run_to_end()
    a_steps, a_reason = outputs_of(scheduler, "a")
    assert flat(a_steps) == turn_ids(tokenizer)[:3]  # the aborted request got no token after the abort
    assert a_reason["type"] == "abort"
    b_steps, b_reason = outputs_of(scheduler, "b")
    assert flat(b_steps) == turn_ids(tokenizer) and b_reason["type"] == "stop"


def test_a_different_prompt_is_refused_without_taking_the_turn(tokenizer: Any) -> None:
    from sglang.srt.managers.io_struct import AbortReq

    scheduler = CapturingScheduler([Turn(OUTPUT, expect_prompt=PROMPT, line=1), Turn("second")], tokenizer)
    scheduler.dispatch(request(tokenizer, "wrong", prompt="[Round 0] USER:Other ASSISTANT:"))
    assert not scheduler.running and scheduler.script.position == 0
    (refusal,) = scheduler.answers
    assert isinstance(refusal, AbortReq) and refusal.rid == "wrong"
    assert refusal.finished_reason["status_code"] == 400
    assert "not the one recorded for turn 1 (recording line 1)" in refusal.finished_reason["message"]
    scheduler.dispatch(request(tokenizer, "right", max_new_tokens=None))
    assert scheduler.script.position == 1 and [r.rid for r in scheduler.running] == ["right"]


def test_health_checks_and_prompt_only_requests_take_no_turn(tokenizer: Any) -> None:
    scheduler = CapturingScheduler([Turn(OUTPUT), Turn("second")], tokenizer)
    scheduler.dispatch(request(tokenizer, f"{replay.HEALTH_CHECK_RID_PREFIX}_1", max_new_tokens=1))
    scheduler.dispatch(request(tokenizer, "prefix", max_new_tokens=0))
    scheduler.run_to_end()
    assert scheduler.script.position == 0
    assert outputs_of(scheduler, "prefix") == ([[]], {"type": "length", "length": 0})
    health_steps, _ = outputs_of(scheduler, f"{replay.HEALTH_CHECK_RID_PREFIX}_1")
    assert health_steps == [[tokenizer.eos_token_id]]
