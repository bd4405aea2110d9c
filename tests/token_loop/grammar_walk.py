"""The scaled run of forced calls on Qwen's real vocabularies: every dialect's grammar walked directly, with no model.

What the scaled run is for is finding grammar holes: calls the grammar lets through that the tool cannot accept. A
model with random weights under a grammar is a random walk over the tokens the grammar allows; its forward pass adds
cost (0.6-1.1 s per request on a 2-core machine, about 6.5 hours for 10,000 calls of one dialect), not coverage. So
each request here is served by vLLM's own serving layer and its grammar walked as the engine core would sample it:

* the request goes through vLLM's ``OpenAIServingChat`` (in-process, over ASGI) with our tool and reasoning parsers,
  which adjust it as in ``vllm serve`` (the structural tag of the dialect, the reasoning a forced call may follow);
  vLLM's ``InputProcessor`` validates it;
* its grammar is compiled and gated by vLLM's engine-core ``StructuredOutputManager`` (its XGrammar backend, with the
  real tokenizer; the reasoning parser's end of reasoning as in the engine core), nothing re-implemented;
* each token is drawn at random among the tokens of the grammar's bitmask, weighted by the request's ``logit_bias``
  over a uniform model (the engine runs' steering, sent the same way: whitespace runs, surrogate leads and U+FFFD
  at -100, closing think tags raised), up to ``max_tokens``, ending at the end-of-sequence token when the grammar
  allows it;
* the drawn token ids are served by the replay engine (:mod:`longcat_plugins.replay.engine`: vLLM's
  ``OutputProcessor`` and incremental detokenizer behind ``OpenAIServingChat``), whole and streamed (the same seed
  draws the same tokens), and checked as the engine runs check them (:func:`call_problems`: names, one call, the
  schema, no key twice, no U+FFFD) and streamed against whole.

What only the engine runs (``test_token_loop.py``) cover: the engine core's batching and scheduling, the detokenizer
in the engine-core process, speculative decoding (drafts the grammar validates), the reasoning gate in the engine-core
process fed by a real sampler, and a model's own, non-uniform, distribution over the allowed tokens.

Run: ``bash scripts/grammar_walk.sh [--calls N] [--models NAME,...]`` (``python -m tests.token_loop.grammar_walk``).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from longcat_plugins.replay.engine import ReplayEngineClient
from longcat_plugins.replay.model_dir import build_real_vocab_model_dir, real_vocab_tokenizer
from longcat_plugins.replay.recording import Script, Turn
from tests.token_loop.test_token_loop import (
    CHOICES,
    MAX_TOKENS,
    MODELS,
    VOCABULARY,
    body,
    call_problems,
    folded_stream,
    steered_off,
)

if TYPE_CHECKING:
    from vllm.v1.engine import EngineCoreRequest

#: the dialect of each real-vocabulary model
DIALECT_OF = {
    "qwen3-vocab": "Hermes JSON",
    "xml-vocab": "XML",
    "longcat-kv-vocab": "LongCat key/value",
    "longcat-json-vocab": "LongCat JSON",
}
#: the models whose template reasons: their cells run with thinking on and off
REASONS = ("qwen3-vocab", "xml-vocab")


class WalkEngineClient(ReplayEngineClient):
    """The replay engine answering each request with a random walk over its grammar, as vLLM's engine core builds
    and gates it (``StructuredOutputManager``), instead of a recorded turn."""

    def __init__(self, vllm_config: Any, script: Script, **kwargs: Any) -> None:
        from vllm.v1.structured_output import StructuredOutputManager

        super().__init__(vllm_config, script, **kwargs)
        self.manager = StructuredOutputManager(vllm_config)
        self.vocab_size = self.model_config.get_vocab_size()
        #: the latest walks, by what decides them (seed, prompt, grammar, steering): the streamed twin of a request
        #: is served the same tokens without walking them again
        self._walks: dict[Any, tuple[list[int], bool]] = {}

    def output_token_ids(self, request: EngineCoreRequest, turn: Turn) -> tuple[list[int], bool]:
        from vllm.v1.request import Request

        params = request.sampling_params
        assert params is not None and params.max_tokens is not None
        key = (
            params.seed,
            tuple(request.prompt_token_ids or ()),
            repr(params.structured_outputs),
            repr(sorted((params.logit_bias or {}).items())),
            params.max_tokens,
            request.reasoning_ended,
        )
        if params.seed is not None and key in self._walks:
            return self._walks[key]
        walked = Request.from_engine_core_request(request, block_hasher=None)
        if not walked.use_structured_output:
            raise ValueError("the grammar walk answers requests with a grammar only (a forced tool choice)")
        self.manager.grammar_init(walked)
        structured = walked.structured_output_request
        assert structured is not None
        while not structured.is_grammar_ready:
            time.sleep(0.001)
        if isinstance(structured.grammar, Exception):
            raise structured.grammar
        draw = Draw(self.vocab_size, params.logit_bias or {}, params.allowed_token_ids, params.seed)
        stops = set(params.all_stop_token_ids)
        if self.tokenizer is not None and self.tokenizer.eos_token_id is not None:
            stops.add(self.tokenizer.eos_token_id)
        rid = walked.request_id
        ids: list[int] = []
        while len(ids) < params.max_tokens:
            bitmask = self.manager.grammar_bitmask({rid: walked}, [rid], {})
            assert bitmask is not None
            allowed = np.unpackbits(bitmask[0].view(np.uint8), bitorder="little")[: self.vocab_size].astype(bool)
            token = draw(allowed)
            if not self.manager.accept_tokens(walked, [token]):
                raise AssertionError(f"the grammar refused token {token}, which its bitmask allowed")
            walked.append_output_token_ids(token)
            ids.append(token)
            if token in stops:
                break
        answer = ids, ids[-1] not in stops
        if params.seed is not None:
            self._walks[key] = answer
            while len(self._walks) > 256:
                del self._walks[next(iter(self._walks))]
        return answer


class Draw:
    """A token drawn from a uniform model with ``logit_bias`` added, among the allowed tokens (the bitmask, and
    ``allowed_token_ids`` if given)."""

    def __init__(self, vocab_size: int, bias: dict[int, float], allowed_ids: list[int] | None, seed: int | None):
        self.rng = np.random.default_rng(seed)
        self.ids = np.array(sorted(bias), dtype=np.int64)
        self.weights = np.exp(np.array([bias[i] for i in sorted(bias)], dtype=np.float64))
        self.plain = np.ones(vocab_size, dtype=bool)
        self.plain[self.ids] = False
        if allowed_ids is not None:
            self.plain &= np.isin(np.arange(vocab_size), allowed_ids)
            keep = np.isin(self.ids, allowed_ids)
            self.ids, self.weights = self.ids[keep], self.weights[keep]

    def __call__(self, allowed: np.ndarray) -> int:
        biased = self.weights * allowed[self.ids]
        plain = np.flatnonzero(allowed & self.plain)
        total = len(plain) + float(biased.sum())
        if total <= 0:
            raise AssertionError("the grammar allows no token")
        point = self.rng.random() * total
        if point < len(plain):
            return int(plain[min(int(point), len(plain) - 1)])
        cumulative = np.cumsum(biased)
        index = int(np.searchsorted(cumulative, point - len(plain), side="right"))
        return int(self.ids[min(index, len(self.ids) - 1)])


# -- the cells ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    model: str
    choice: str  # a key of CHOICES
    strict: bool
    thinking: bool | None  # enable_thinking; None: the template's default

    @property
    def label(self) -> str:
        thinking = {None: "", True: " thinking", False: " no-thinking"}[self.thinking]
        return f"{self.model} {self.choice} {'strict' if self.strict else 'not-strict'}{thinking}"


def cells(model: str) -> list[Cell]:
    thinking: tuple[bool | None, ...] = (True, False) if model in REASONS else (None,)
    return [Cell(model, c, s, t) for c in CHOICES for s in (True, False) for t in thinking]


def steering(tokenizer: Any, cell: Cell) -> dict[str, Any]:
    """The engine runs' steering of ``cell`` (see ``test_token_loop.steering``), as ``logit_bias``: whitespace runs,
    surrogate leads and U+FFFD at -100 (``test_token_loop.steered_off``); with thinking on, the end of the turn above
    the closing think tag, both raised by the log of the vocabulary's size
    (``test_a_forced_answer_always_carries_its_call``), so that the walk writes some reasoning and tries to end the
    turn inside it; else the closing think tags at +100 (none with thinking off)."""
    bias = {str(i): -100.0 for i in steered_off(tokenizer)}

    def token_id(token: str) -> int | None:
        found = tokenizer.convert_tokens_to_ids(token)
        return found if isinstance(found, int) and tokenizer.convert_ids_to_tokens(found) == token else None

    if cell.thinking:
        scale = max(0, round(math.log(len(tokenizer) / 1200)))
        end_of_turn, think_end = token_id(tokenizer.eos_token), token_id("</think>")
        assert end_of_turn is not None and think_end is not None
        bias |= {str(end_of_turn): 8.0 + scale, str(think_end): 4.0 + scale}
    elif cell.thinking is None:
        bias |= {str(i): 100.0 for t in ("</think>", "</longcat_think>") if (i := token_id(t)) is not None}
    return bias


def request(cell: Cell, index: int, seed: int, bias: dict[str, float], broken: bool = False) -> dict[str, Any]:
    more: dict[str, Any] = {"seed": seed, "logit_bias": bias, "max_tokens": MAX_TOKENS}
    if cell.thinking is not None:
        more["chat_template_kwargs"] = {"enable_thinking": cell.thinking}
    out = body(index, CHOICES[cell.choice], cell.strict, **more)
    if broken:  # a grammar not told the tools' schemas: any object for arguments
        out["tools"] = [
            {"type": "function", "function": {**t["function"], "parameters": {"type": "object"}}} for t in out["tools"]
        ]
    return out


# -- serving ------------------------------------------------------------------------------------------------------


@dataclass
class Tally:
    calls: int = 0
    finished: int = 0
    invalid: int = 0
    stream_mismatches: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    def row(self, label: str) -> str:
        share = self.finished / self.calls if self.calls else 0.0
        return (
            f"{label:<42} calls {self.calls:>6}  invalid {self.invalid:>4}  stream!=whole {self.stream_mismatches:>3}"
            f"  finished {share:6.1%}  {self.seconds:7.1f} s"
        )


def folded_whole(choice: dict[str, Any]) -> dict[str, Any]:
    message = choice["message"]
    return {
        "content": message.get("content") or "",
        "reasoning": message.get("reasoning") or message.get("reasoning_content") or "",
        "calls": [(c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls") or ()],
        "finish": choice["finish_reason"],
    }


class Walker:
    """One model's serving stack in this process: vLLM's app (``build_app``, ``init_app_state``) over a
    :class:`WalkEngineClient`, asked over ASGI."""

    def __init__(self, model: str, root: Path) -> None:
        from vllm.entrypoints.launchers.api_server.app_state import init_app_state
        from vllm.entrypoints.launchers.app import build_app

        from longcat_plugins.replay.server import build_engine, serve_args

        template, env, _ = MODELS[model]
        os.environ.update(env)
        self.model = model
        self._bias: dict[bool | None, dict[str, float]] = {}
        self.tokenizer = real_vocab_tokenizer(template, VOCABULARY[model])
        model_dir = build_real_vocab_model_dir(root / model, template, VOCABULARY[model], self.tokenizer)
        args = serve_args(model_dir, "127.0.0.1", 0, "tiny", ["--disable-log-stats"], template=template)
        self.engine = build_engine(args, Script([Turn(output="")]), engine_class=WalkEngineClient)
        self.app = build_app(args, ("generate",), self.engine.model_config)
        asyncio.run(init_app_state(self.engine, self.app.state, args, ("generate",)))

    async def _post(self, client: Any, payload: dict[str, Any]) -> Any:
        response = await client.post("/v1/chat/completions", json=payload)
        if response.status_code != 200:
            raise AssertionError(f"HTTP {response.status_code}: {response.text[:500]}")
        return response.json() if not payload.get("stream") else response.text

    def run(self, cell: Cell, calls: int, *, seed0: int = 0, broken: bool = False, stream_every: int = 1,
            batch: int = 8) -> Tally:  # fmt: skip
        """``calls`` forced requests of ``cell``, ``batch`` at a time; every ``stream_every``-th also streamed."""
        import httpx

        if cell.thinking not in self._bias:
            self._bias[cell.thinking] = steering(self.tokenizer, cell)
        bias = self._bias[cell.thinking]
        named = "book_trip" if cell.choice == "named" else None
        tally = Tally()
        start = time.monotonic()

        async def one(client: Any, index: int) -> None:
            payload = request(cell, index, seed0 + index, bias, broken)
            answer = await self._post(client, payload)
            choice = answer["choices"][0]
            tally.calls += 1
            if choice["finish_reason"] != "length":
                tally.finished += 1
                found = call_problems(choice, named)
                if found:
                    tally.invalid += 1
                    tally.problems += [f"{cell.label} question {index}: {p}" for p in found]
            if stream_every and index % stream_every == 0:
                streamed = folded_stream((await self._post(client, {**payload, "stream": True})).splitlines())
                served = folded_whole(choice)
                if streamed != served:
                    tally.stream_mismatches += 1
                    tally.problems.append(f"{cell.label} question {index}: streamed {streamed} != whole {served}")

        async def all_calls() -> None:
            transport = httpx.ASGITransport(app=self.app)
            async with httpx.AsyncClient(transport=transport, base_url="http://walk", timeout=600) as client:
                for first in range(0, calls, batch):
                    await asyncio.gather(*(one(client, i) for i in range(first, min(calls, first + batch))))

        asyncio.run(all_calls())
        tally.seconds = time.monotonic() - start
        return tally

    def close(self) -> None:
        self.engine.shutdown()


def setup() -> None:
    """vLLM's CPU platform and our plugins, as the replay server sets them up."""
    from vllm.plugins import load_general_plugins

    from longcat_plugins.replay.platform import use_cpu_platform

    use_cpu_platform()
    load_general_plugins()


def selected(model_cells: list[Cell], wanted: str) -> list[Cell]:
    """The cells whose label, after the model's name, starts with one of the comma-separated ``wanted`` (all if
    none is given)."""
    starts = tuple(w.strip() for w in wanted.split(",") if w.strip())
    if not starts:
        return model_cells
    return [c for c in model_cells if c.label.removeprefix(f"{c.model} ").startswith(starts)]


def walkers(models: list[str], root: Path) -> Iterator[Walker]:
    for model in models:
        walker = Walker(model, root)
        try:
            yield walker
        finally:
            walker.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="grammar_walk", description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10_000, help="forced calls per dialect (default 10,000)")
    parser.add_argument("--models", default=",".join(DIALECT_OF), help="comma-separated (default: all four)")
    parser.add_argument("--stream-every", type=int, default=1, help="stream every k-th call too (0: none)")
    parser.add_argument("--seed", type=int, default=0, help="the first request seed")
    parser.add_argument("--broken", action="store_true", help="requests whose tools' schemas the grammar is not told")
    parser.add_argument(
        "--cells",
        default="",
        help="comma-separated: only the cells whose label (after the model's name) starts with one of these, e.g."
        " 'named' or 'required strict thinking' (default: every cell; --calls is spread over the cells run)",
    )
    args = parser.parse_args(argv)
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    unknown = [m for m in models if m not in DIALECT_OF]
    if unknown:
        parser.error(f"unknown models {unknown}; known: {', '.join(DIALECT_OF)}")
    for model in models:
        if not selected(cells(model), args.cells):
            labels = ", ".join(c.label.removeprefix(f"{model} ") for c in cells(model))
            parser.error(f"--cells {args.cells!r} selects no cell of {model}; its cells: {labels}")
    setup()
    invalid = 0
    with tempfile.TemporaryDirectory(prefix="longcat-grammar-walk-") as tmp:
        for walker in walkers(models, Path(tmp)):
            model_cells = selected(cells(walker.model), args.cells)
            per_cell = max(1, args.calls // len(model_cells))
            total = Tally()
            print(f"[grammar_walk] {walker.model} ({DIALECT_OF[walker.model]}): {per_cell} calls per cell", flush=True)
            for cell in model_cells:
                tally = walker.run(cell, per_cell, seed0=args.seed, broken=args.broken, stream_every=args.stream_every)
                print(tally.row(cell.label), flush=True)
                for problem in tally.problems[:5]:
                    print(f"    {problem[:600]}", flush=True)
                for key in ("calls", "finished", "invalid", "stream_mismatches", "seconds"):
                    setattr(total, key, getattr(total, key) + getattr(tally, key))
            print(total.row(f"{walker.model} total") + f"  ({total.calls / total.seconds:.1f} calls/s)", flush=True)
            invalid += total.invalid + total.stream_mismatches
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main())
