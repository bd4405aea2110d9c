"""The replay engine client in-process, through vLLM's own ``InputProcessor`` and ``OutputProcessor``: one engine
step serves every running request at once, requests join and leave between steps, and a client that goes away
leaves no request state behind. The model directory is the Qwen3 one (``qwen3-tools-first``), whose turns end
with ``<|im_end|>``."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from longcat_plugins.replay import Script, Turn

pytestmark = pytest.mark.vllm

TEMPLATE = "qwen3-tools-first"
OUTPUT = (
    "<think>One city.</think>Checking Paris.\n"
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
)


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from vllm.plugins import load_general_plugins

    from longcat_plugins.replay.model_dir import build_model_dir
    from longcat_plugins.replay.server import build_engine, corpus, serve_args, use_cpu_platform

    turns = [Turn(output=OUTPUT)]
    model_dir = build_model_dir(Path(tmp_path_factory.mktemp("replay")) / "model", corpus(turns), TEMPLATE)
    use_cpu_platform()
    load_general_plugins()
    client = build_engine(serve_args(model_dir, "127.0.0.1", 0, "replay", template=TEMPLATE), Script(turns))
    yield client
    client.shutdown()


def prompt(engine: Any) -> dict[str, Any]:
    from vllm.inputs.engine import tokens_input

    text = "<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n"
    return dict(tokens_input(engine.tokenizer.encode(text, add_special_tokens=False), prompt=text))


def params(stream: bool = True, **kwargs: Any) -> Any:
    from vllm.sampling_params import RequestOutputKind, SamplingParams

    kind = RequestOutputKind.DELTA if stream else RequestOutputKind.FINAL_ONLY
    kwargs.setdefault("max_tokens", 1000)
    return SamplingParams(output_kind=kind, skip_special_tokens=False, **kwargs)


async def collect(generator: Any) -> tuple[str, list[int], str | None]:
    text, ids, finish = "", [], None
    async for out in generator:
        text += out.outputs[0].text
        ids += out.outputs[0].token_ids
        finish = out.outputs[0].finish_reason
    return text, ids, finish


def assert_no_request_state(engine: Any) -> None:
    processor = engine.output_processor
    assert processor.request_states == {}
    assert dict(processor.external_req_ids) == {}
    assert processor.parent_requests == {}
    assert engine.num_running == 0


def test_the_qwen3_vocabulary(engine: Any) -> None:
    tokenizer = engine.tokenizer
    assert engine.model_config.hf_config.model_type == "qwen3"
    assert tokenizer.eos_token == "<|im_end|>" and tokenizer.bos_token is None
    ids = engine.turn_token_ids(Turn(output=OUTPUT))
    assert ids[-1] == tokenizer.eos_token_id
    tokens = tokenizer.convert_ids_to_tokens(ids)
    assert {"<think>", "</think>", "<tool_call>", "</tool_call>"} <= set(tokens)
    assert tokenizer.decode(ids, skip_special_tokens=True) == OUTPUT  # the tags are not special tokens


def test_one_step_serves_every_running_request(engine: Any) -> None:
    total = len(engine.turn_token_ids(Turn(output=OUTPUT)))

    async def run() -> list[tuple[str, list[int], str | None]]:
        start = engine.steps
        generators = [engine.generate(prompt(engine), params(), f"batch-{i}") for i in range(4)]
        results = await asyncio.gather(*(collect(g) for g in generators))
        assert engine.steps - start == total, "four requests of N tokens in N steps, not 4N"
        return results

    results = asyncio.run(run())
    assert {text for text, _, _ in results} == {OUTPUT}
    assert all(finish == "stop" and len(ids) == total for _, ids, finish in results)
    assert_no_request_state(engine)


def test_requests_join_and_leave_between_steps(engine: Any) -> None:
    total = len(engine.turn_token_ids(Turn(output=OUTPUT)))

    async def run() -> None:
        start = engine.steps
        first = engine.generate(prompt(engine), params(), "early")
        seen = 0
        async for out in first:  # the second request joins while the first one is running
            seen += len(out.outputs[0].token_ids)
            if seen >= 5:
                break
        joined_at = engine.steps - start
        second = engine.generate(prompt(engine), params(max_tokens=3), "short")
        third = engine.generate(prompt(engine), params(stream=False), "late")
        short, late = await asyncio.gather(collect(second), collect(third))
        assert short[2] == "length" and len(short[1]) == 3
        assert late == (OUTPUT, engine.turn_token_ids(Turn(output=OUTPUT)), "stop")
        assert engine.steps - start == joined_at + total
        await first.aclose()

    asyncio.run(run())
    assert_no_request_state(engine)


def test_a_client_that_goes_away_leaves_nothing_behind(engine: Any) -> None:
    async def run() -> None:
        stays = engine.generate(prompt(engine), params(), "stays")
        leaves = engine.generate(prompt(engine), params(), "leaves")
        got = 0
        async for _ in leaves:
            got += 1
            if got == 3:
                break
        await leaves.aclose()  # what the serving layer's generator does when the HTTP client disconnects
        assert engine.num_running == 1
        assert list(engine.output_processor.external_req_ids) == ["stays"]
        assert (await collect(stays))[0] == OUTPUT

        cancelled = asyncio.ensure_future(collect(engine.generate(prompt(engine), params(), "cancelled")))
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        cancelled.cancel()
        with pytest.raises(asyncio.CancelledError):
            await cancelled

        # a request whose outputs nobody reads still runs to its end and is freed
        engine.generate(prompt(engine), params(), "unread")
        while engine.num_running:
            await asyncio.sleep(0)

    asyncio.run(run())
    assert_no_request_state(engine)


def test_a_stop_string_ends_the_request_in_the_batch(engine: Any) -> None:
    async def run() -> None:
        stopped, whole = await asyncio.gather(
            collect(engine.generate(prompt(engine), params(stop=["Paris"]), "stop-string")),
            collect(engine.generate(prompt(engine), params(), "whole")),
        )
        assert stopped[0].endswith("Checking ") and stopped[2] == "stop"
        assert whole[0] == OUTPUT

    asyncio.run(run())
    assert_no_request_state(engine)
