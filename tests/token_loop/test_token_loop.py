"""vLLM's real token loop with our plugin: the engine core compiles our structural tags, applies them to real sampling
from tiny random models, and starts them where our reasoning parser, in the engine-core process, says reasoning ends.

A model with random weights under a grammar samples the grammar's language, so every call it writes is a draw from
what the grammar allows: a hole in a grammar shows up as a call the tool cannot accept. The properties, checked on
structure, never on text:

* under ``tool_choice`` required or named, strict or not, every call of a finished choice names a declared tool and
  its arguments are one JSON object (no key twice) that validates against the tool's schema (required keys, enum,
  types, ``additionalProperties: false``, ``$ref``);
* a request of a thinking model may reason before the forced call, and the grammar covers that reasoning: the turn
  cannot end inside it (every finished forced answer carries its call);
* streamed, the same request (same seed) serves what it serves whole;
* one batch holds requests with different grammars; ``n=2`` gives two valid choices.
* under ``tool_choice="none"``, with the call tags favoured, no call tag is served and the request succeeds.

The models (``benchmarks/cpu_server.py``: a Qwen3 config with random weights, our tokenizer and template):
``qwen3`` (``qwen3-tools-first``, Hermes JSON, with ``--api-server-count 2``: the plugin in both API-server processes
and the engine core), ``xml`` (``xml-function-thinking``), ``longcat-json`` and ``longcat-kv``
(``longcat-flash-chat`` in its two dialects; the JSON one with n-gram speculative decoding, which feeds the grammar
several tokens per step); and with Qwen's real vocabularies (:data:`VOCABULARY`), where the grammars meet tokens that
cross tag boundaries, whitespace runs, multi-byte pieces and single bytes: ``qwen3-vocab`` (Qwen2/3's), ``xml-vocab``
(Qwen3.5's), ``longcat-kv-vocab`` and ``longcat-json-vocab`` (Qwen2/3's with LongCat's tags as added special tokens;
the JSON one with n-gram speculative decoding).

A scaled run (``scripts/token_loop.sh``) sets ``LONGCAT_TOKEN_LOOP_SEEDS`` (requests per cell, default 6),
``LONGCAT_TOKEN_LOOP_MODELS`` (:data:`SELECTIONS`: ``ci``, the default, every model but the small ``longcat-json``;
``all``; ``small``, the small BPE's; ``vocab``, Qwen's real vocabularies), ``LONGCAT_TOKEN_LOOP_VOCAB_SEEDS`` (requests
per cell of the real-vocabulary models beside the others, default 3),
``LONGCAT_TOKEN_LOOP_SERVER_SEED`` (the servers' ``--seed``, default 0) and ``LONGCAT_TOKEN_LOOP_DIR`` (where the
model directories and the servers' logs, ``NAME.log``, are written and kept; default a temporary directory, removed).
The scaled run of forced calls on the real vocabularies samples the grammars directly, with no model
(``scripts/grammar_walk.sh``, :mod:`tests.token_loop.grammar_walk`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import math
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from benchmarks.cpu_server import Server
from longcat_plugins.replay import steering as vocab_steering
from longcat_plugins.replay.model_dir import build_real_vocab_model_dir, build_runnable_model_dir, real_vocab_tokenizer
from longcat_plugins.templates import template_path

NGRAM = json.dumps({"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 3, "prompt_lookup_min": 1})
PARSERS = ["--enable-auto-tool-choice", "--tool-call-parser", "longcat", "--reasoning-parser", "longcat"]
#: name -> (template, environment, more server flags)
MODELS: dict[str, tuple[str, dict[str, str], list[str]]] = {
    "qwen3": ("qwen3-tools-first", {}, ["--api-server-count", "2"]),
    "xml": ("xml-function-thinking", {}, []),
    # (vLLM refuses logit_bias with speculative decoding; LongCat-Flash-Chat does not reason, nothing needs steering)
    "longcat-json": ("longcat-flash-chat", {"LONGCAT_TOOL_DIALECT": "json"}, ["--speculative-config", NGRAM]),
    "longcat-kv": ("longcat-flash-chat", {"LONGCAT_TOOL_DIALECT": "kv"}, []),
    # Qwen's real vocabularies (VOCABULARY)
    "qwen3-vocab": ("qwen3-tools-first", {}, []),
    "xml-vocab": ("xml-function-thinking", {}, []),
    "longcat-kv-vocab": ("longcat-flash-chat", {"LONGCAT_TOOL_DIALECT": "kv"}, []),
    "longcat-json-vocab": ("longcat-flash-chat", {"LONGCAT_TOOL_DIALECT": "json"}, ["--speculative-config", NGRAM]),
}
#: the models with one of Qwen's real vocabularies (Qwen2/3's 151,643 BPE tokens, Qwen3.5's 248,044) and their
#: added tokens at their real ids (LongCat-Flash: LongCat's tags as added special tokens after Qwen2/3's ranks); the
#: others have a small trained BPE that writes printable ASCII only
VOCABULARY: dict[str, str] = {
    "qwen3-vocab": "qwen3",
    "xml-vocab": "qwen3.5",
    "longcat-kv-vocab": "qwen3",
    "longcat-json-vocab": "qwen3",
}


def _env_int(name: str, default: int, minimum: int) -> int:
    """An integer setting from the environment (unset or empty: ``default``); anything else stops the import."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r}: expected an integer >= {minimum}") from None
    if value < minimum:
        raise ValueError(f"{name}={raw!r}: expected an integer >= {minimum}")
    return value


#: requests per cell, each a different question (6 in CI; a scaled run gives more)
SEEDS = _env_int("LONGCAT_TOKEN_LOOP_SEEDS", 6, 1)
#: the models of each selection (``LONGCAT_TOKEN_LOOP_MODELS``): ``ci`` (the default) is every dialect with each of
#: its real vocabularies and the small models except ``longcat-json`` (LongCat JSON under speculative decoding runs
#: on the real vocabulary only, so that CI starts no more servers than it did before ``longcat-json-vocab``)
SELECTIONS: dict[str, list[str]] = {
    "ci": [n for n in MODELS if n != "longcat-json"],
    "all": list(MODELS),
    "small": [n for n in MODELS if n not in VOCABULARY],
    "vocab": [n for n in MODELS if n in VOCABULARY],
}
_SELECTED = os.environ.get("LONGCAT_TOKEN_LOOP_MODELS", "").strip() or "ci"
if _SELECTED not in SELECTIONS:
    raise ValueError(f"LONGCAT_TOKEN_LOOP_MODELS={_SELECTED!r}: expected one of {', '.join(SELECTIONS)}")
ACTIVE = SELECTIONS[_SELECTED]
#: requests per cell on the real-vocabulary models (``LONGCAT_TOKEN_LOOP_VOCAB_SEEDS``; default: 3 when the small
#: models run too, as in CI, else SEEDS)
VOCAB_SEEDS = _env_int("LONGCAT_TOKEN_LOOP_VOCAB_SEEDS", 3 if _SELECTED in ("ci", "all") else SEEDS, 1)


def seeds(name: str) -> int:
    """Requests per cell for ``name``."""
    return VOCAB_SEEDS if name in VOCABULARY else SEEDS


def active(*names: str) -> list[str]:
    """The models of ``names`` that run (all models when none is named)."""
    return [n for n in ACTIVE if not names or n in names]


#: the servers' ``--seed``: it seeds the draws of every request without a seed of its own, so another value samples
#: other calls (the dummy weights do not depend on it: vLLM's dummy loader seeds them with a constant)
SERVER_SEED = _env_int("LONGCAT_TOKEN_LOOP_SERVER_SEED", 0, 0)
MAX_TOKENS = 400

PERSON = {
    "type": "object",
    "properties": {"name": {"type": "string", "maxLength": 10}, "age": {"type": "integer"}},
    "required": ["name"],
    "additionalProperties": False,
}
WEATHER = {
    "name": "get_weather",
    "description": "Weather for a city",
    "parameters": {
        "type": "object",
        "properties": {
            "city": {"type": "string", "maxLength": 12},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "days": {"type": "integer"},
        },
        "required": ["city", "unit"],
        "additionalProperties": False,
    },
}
BOOK = {
    "name": "book_trip",
    "description": "Book a trip",
    "parameters": {
        "type": "object",
        "properties": {
            "traveller": {"$ref": "#/$defs/Person"},
            "stops": {"type": "array", "items": {"type": "string", "maxLength": 8}, "maxItems": 3},
            "refundable": {"type": "boolean"},
        },
        "required": ["traveller", "refundable"],
        "additionalProperties": False,
        "$defs": {"Person": PERSON},
    },
}
FUNCTIONS = {f["name"]: f for f in (WEATHER, BOOK)}
CITIES = ("Paris", "Oslo", "Lima", "Rome", "Tokyo", "Quito", "Accra", "Hanoi")


def tools(strict: bool) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {**f, "strict": True} if strict else f} for f in FUNCTIONS.values()]


def steered_off(tokenizer: Any) -> list[int]:
    """The tokens a random model of a real vocabulary does not write (:func:`steering`,
    :mod:`longcat_plugins.replay.steering`)."""
    return vocab_steering.steered_off(tokenizer.get_vocab())


# -- the servers ------------------------------------------------------------------------------------------------


class Models:
    """The model directories (each written when first used), and one server at a time (a server takes 30-45 s and
    about 3 GB to start; the tests are ordered by model, so each model's server starts once), always stopped."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.dirs: dict[str, Path] = {}
        self.tokenizers: dict[str, Any] = {}
        self.running: tuple[str, Server] | None = None

    def dir(self, name: str) -> Path:
        if name not in self.dirs:
            template = MODELS[name][0]
            if name in VOCABULARY:
                # (the tokenizer kept: loading a real vocabulary's back takes as long as building it)
                tokenizer = self.tokenizers[name] = real_vocab_tokenizer(template, VOCABULARY[name])
                self.dirs[name] = build_real_vocab_model_dir(self.root / name, template, VOCABULARY[name], tokenizer)
            else:
                corpus = [f"What is the weather in {c}? Book a trip to {c}." for c in CITIES]
                self.dirs[name] = build_runnable_model_dir(self.root / name, corpus, template)
        return self.dirs[name]

    def ready(self, name: str) -> Server:
        if self.running is not None and self.running[0] == name:
            return self.running[1]
        self.stop()
        template, env, flags = MODELS[name]
        args = ["--chat-template", str(template_path(template)), *PARSERS, *flags]
        server = Server(self.dir(name), args, self.root / f"{name}.log", seed=SERVER_SEED, env=env)
        self.running = (name, server)
        server.wait_ready()
        return server

    def tokenizer(self, name: str) -> Any:
        from transformers import AutoTokenizer

        if name not in self.tokenizers:
            self.tokenizers[name] = AutoTokenizer.from_pretrained(self.dir(name))
        return self.tokenizers[name]

    def token_id(self, name: str, token: str) -> int | None:
        tokenizer = self.tokenizer(name)
        token_id = tokenizer.convert_tokens_to_ids(token)
        return token_id if isinstance(token_id, int) and tokenizer.convert_ids_to_tokens(token_id) == token else None

    def steered_off(self, name: str) -> list[int]:
        return steered_off(self.tokenizer(name))

    def byte_tokens(self, name: str, below: int | None = None) -> list[int]:
        """Tokens (of ids below ``below``, default all) that are no whole UTF-8 text, or a control character other
        than a line break or a tab."""
        tokenizer = self.tokenizer(name)
        out = []
        for token_id in range(len(tokenizer) if below is None else below):
            text = tokenizer.decode([token_id])
            if "\ufffd" in text or any(ord(c) < 0x20 and c not in "\n\t" for c in text):
                out.append(token_id)
        return out

    def stop(self) -> None:
        if self.running is not None:
            self.running[1].stop()
            self.running = None


@pytest.fixture(scope="session")
def models() -> Iterator[Models]:
    with contextlib.ExitStack() as stack:
        kept = os.environ.get("LONGCAT_TOKEN_LOOP_DIR", "").strip()
        if kept:
            root = Path(kept)
            root.mkdir(parents=True, exist_ok=True)
        else:
            root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="longcat-token-loop-")))
        started = Models(root)
        try:
            yield started
        finally:
            started.stop()


# -- requests ---------------------------------------------------------------------------------------------------


def body(index: int, tool_choice: Any, strict: bool, **more: Any) -> dict[str, Any]:
    city = CITIES[index % len(CITIES)]
    request = {
        "model": "tiny",
        "messages": [{"role": "user", "content": f"Question {index}: the weather in {city}, or book a trip there?"}],
        "tools": tools(strict),
        "tool_choice": tool_choice,
        "parallel_tool_calls": False,
        "max_tokens": MAX_TOKENS,
        "temperature": 1.0,
    }
    request.update(more)
    return request


async def _post(url: str, request: dict[str, Any]) -> dict[str, Any]:
    import httpx

    async with httpx.AsyncClient(timeout=600) as client:
        response = await client.post(f"{url}/v1/chat/completions", json=request)
        assert response.status_code == 200, response.text[:500]
        return dict(response.json())


def post_all(server: Server, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The requests sent at once (the engine batches them)."""

    async def run() -> list[dict[str, Any]]:
        return list(await asyncio.gather(*(_post(server.url, r) for r in requests)))

    try:
        return asyncio.run(run())
    except AssertionError as e:
        raise AssertionError(f"{e}\nserver log:\n{server.log_tail()}") from None


def folded_stream(lines: Iterable[str]) -> dict[str, Any]:
    """A streamed answer's SSE lines folded into content, reasoning, calls (name and arguments, each joined as text)
    and finish reason."""
    content, reasoning, calls, finish = "", "", {}, None
    for line in lines:
        if not line.startswith("data: ") or line == "data: [DONE]":
            continue
        for choice in json.loads(line[6:]).get("choices") or ():
            delta = choice.get("delta") or {}
            content += delta.get("content") or ""
            reasoning += delta.get("reasoning") or delta.get("reasoning_content") or ""
            for call in delta.get("tool_calls") or ():
                entry = calls.setdefault(call["index"], {"name": "", "arguments": ""})
                function = call.get("function") or {}
                entry["name"] += function.get("name") or ""
                entry["arguments"] += function.get("arguments") or ""
            finish = choice.get("finish_reason") or finish
    return {
        "content": content,
        "reasoning": reasoning,
        "calls": [(c["name"], c["arguments"]) for _, c in sorted(calls.items())],
        "finish": finish,
    }


def stream(server: Server, request: dict[str, Any]) -> dict[str, Any]:
    """A streamed request folded into a message: content, reasoning, calls (arguments parsed), finish reason."""
    import httpx

    with httpx.stream(
        "POST", f"{server.url}/v1/chat/completions", json={**request, "stream": True}, timeout=600
    ) as response:
        assert response.status_code == 200, response.read()[:500]
        folded = folded_stream(response.iter_lines())
    return {**folded, "calls": [(name, json.loads(arguments)) for name, arguments in folded["calls"]]}


def whole(message_choice: dict[str, Any]) -> dict[str, Any]:
    message = message_choice["message"]
    return {
        "content": message.get("content") or "",
        "reasoning": message.get("reasoning") or message.get("reasoning_content") or "",
        "calls": [
            (c["function"]["name"], json.loads(c["function"]["arguments"])) for c in message.get("tool_calls") or ()
        ],
        "finish": message_choice["finish_reason"],
    }


# -- the properties ---------------------------------------------------------------------------------------------


def _no_repeated_key(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError(f"a key given twice: {keys}")
    return dict(pairs)


def _strings(value: Any) -> Iterator[str]:
    """The strings of a JSON value, keys and values."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


@functools.cache
def _validator(name: str) -> Any:
    """The JSON-schema validator of a tool's parameters (its schema checked once)."""
    schema = FUNCTIONS[name]["parameters"]
    validator = jsonschema.validators.validator_for(schema)
    validator.check_schema(schema)
    return validator(schema)


def call_problems(choice: dict[str, Any], named: str | None) -> list[str]:
    """What is wrong with the calls of a finished choice of a forced request."""
    calls = choice["message"].get("tool_calls") or []
    if not calls:
        return [f"no call (finish {choice['finish_reason']}, content {choice['message'].get('content')!r:.200})"]
    problems = []
    if len(calls) > 1:  # every request here says parallel_tool_calls: false
        problems.append(f"{len(calls)} calls where the request asks for one")
    for call in calls:
        name, text = call["function"]["name"], call["function"]["arguments"]
        if name not in FUNCTIONS or (named is not None and name != named):
            problems.append(f"call of {name!r}")
            continue
        try:
            arguments = json.loads(text, object_pairs_hook=_no_repeated_key)
            _validator(name).validate(arguments)
        except (ValueError, jsonschema.ValidationError) as e:
            problems.append(f"{name}({text}): {str(e).splitlines()[0]}")
            continue
        if any("\ufffd" in string for string in _strings(arguments)):
            problems.append(f"{name}({text}): a byte that is no whole UTF-8 text")
    return problems


CHOICES = {"required": "required", "named": {"type": "function", "function": {"name": "book_trip"}}}


def steering(models: Models, name: str, think: bool = True) -> dict[str, Any]:
    """What the random model is steered with:

    reasoning ends at once (a random model would not close it): a bias on the closing think tag(s) (``think``). A
    model served with speculative decoding takes no ``logit_bias`` (vLLM refuses it there) and does not reason; on a
    real vocabulary (``longcat-json-vocab``) it is steered by ``allowed_token_ids`` instead, which vLLM applies under
    speculative decoding: every token but those :func:`steered_off` names (whitespace runs, surrogate leads and
    U+FFFD, below). That is the bias's -100 made
    absolute (the bias lets such a token through where the grammar allows nothing else; no grammar here needs one:
    single spaces and line breaks stay allowed).

    A real vocabulary holds hundreds of whitespace runs (up to dozens of spaces, tabs and line breaks in one token),
    all allowed wherever JSON allows whitespace: a random model then pads the arguments up to ``max_tokens`` (nearly
    every request of the first runs). Its models are biased against runs of two or more (single spaces, tabs and line
    breaks stay as likely as any token, and a run is still written where the grammar allows nothing else).

    XGrammar's own JSON strings (and free text) take the three-byte encoding of a surrogate (ED A0-BF ..), which is no
    UTF-8: the detokenizer serves it as U+FFFD (:func:`call_problems` reports it; the scaled run found one in a
    key/value call's JSON object). The markup dialects' counted strings, which are ours, refuse it
    (``tests/vllm/test_vllm_grammar_round_trip.py::test_a_counted_string_holds_whole_utf8_text``); XGrammar's JSON
    strings do not, and a real model does not write surrogates: the real-vocabulary models are steered off the tokens
    that end in the lead byte ED, their only way to write one (no token of Qwen's holds ED A0-BF). And off the tokens
    that write U+FFFD itself, so that a U+FFFD served is always bytes that are no UTF-8
    (:mod:`longcat_plugins.replay.steering`).

    (A model of the small vocabulary cannot write a byte that is no whole UTF-8 text, see
    :func:`test_the_vocabulary_writes_whole_text`; one of a real vocabulary can, and its calls are checked for it, see
    :func:`test_a_real_vocabulary_writes_any_byte`.)
    (Greedy, a random model under a grammar may repeat whitespace or digits up to ``max_tokens``: it samples.)"""
    off = models.steered_off(name) if name in VOCABULARY else []
    if "--speculative-config" in MODELS[name][2]:
        if not off:
            return {}
        # (vLLM takes allowed_token_ids with speculative decoding: the rejection sampler masks the target's logits)
        banned = set(off)
        return {"allowed_token_ids": [i for i in range(len(models.tokenizer(name))) if i not in banned]}
    bias = {str(i): -100 for i in off}
    if think:
        bias |= {str(i): 100 for t in ("</think>", "</longcat_think>") if (i := models.token_id(name, t)) is not None}
    return {"logit_bias": bias}


@pytest.mark.parametrize("name", [n for n in active() if n not in VOCABULARY])
def test_the_vocabulary_writes_whole_text(models: Models, name: str) -> None:
    """XGrammar's JSON strings let a random model write single bytes that are no UTF-8 and control characters (a real
    model does not), which the detokenizer serves as U+FFFD or raw: a string longer than its ``maxLength`` counted,
    or an object that is no JSON. The small models' vocabularies hold no such token."""
    assert models.byte_tokens(name) == []


@pytest.mark.parametrize("name", [n for n in active() if n in VOCABULARY])
def test_a_real_vocabulary_writes_any_byte(models: Models, name: str) -> None:
    """A real byte-level vocabulary holds every byte as a token (its first 256 ranks): a random model may write a
    byte that is no whole UTF-8 text, or a control character. A real model writes whole text, and the detokenizer
    holds back the bytes of an unfinished character, so a call served with U+FFFD in its arguments is a grammar
    letting a string end inside a character: :func:`call_problems` reports it. (A control character in a string is
    JSON's escape, a value the schema takes.)"""
    assert len(models.byte_tokens(name, below=256)) > 128


@pytest.mark.parametrize("name", [n for n in active() if n in VOCABULARY])
def test_a_real_vocabulary_is_steered_off_u_fffd_itself(models: Models, name: str) -> None:
    """Qwen's vocabularies write U+FFFD itself in a few tokens (``.\ufffd`` is 82266 in Qwen2/3's): whole text,
    which :func:`call_problems` would take for bytes that are no UTF-8. Each is one the model is steered off."""
    tokenizer = models.tokenizer(name)
    literal = vocab_steering.replacement_characters(tokenizer.get_vocab())
    assert literal, "the vocabulary writes U+FFFD in no token"
    if VOCABULARY[name] == "qwen3":
        assert 82266 in literal
    for token_id in literal:
        assert "\ufffd" in tokenizer.decode([token_id])
    served = steering(models, name)
    if "allowed_token_ids" in served:
        assert not set(literal) & set(served["allowed_token_ids"])
    else:
        assert all(served["logit_bias"][str(i)] == -100 for i in literal)


def test_a_call_with_no_whole_text_is_reported() -> None:
    """:func:`call_problems` both ways: a call with whole text in its strings passes, one with U+FFFD (the detokenizer's
    stand-in for bytes that are no UTF-8) is reported, though it is JSON its schema takes."""

    def choice(city: str, ascii: bool = False) -> dict[str, Any]:
        arguments = json.dumps({"city": city, "unit": "celsius"}, ensure_ascii=ascii)
        call = {"function": {"name": "get_weather", "arguments": arguments}}
        return {"message": {"tool_calls": [call]}, "finish_reason": "tool_calls"}

    assert call_problems(choice("Zürich 天气"), None) == []
    for ascii in (False, True):
        (problem,) = call_problems(choice("Z\ufffdrich", ascii), None)
        assert "no whole UTF-8 text" in problem


@pytest.mark.parametrize("name", active())
def test_forced_calls_hold_to_the_schema(models: Models, name: str) -> None:
    """One batch per model: required and named, strict and not, SEEDS questions each, all at once (different
    grammars side by side in the engine's batch)."""
    server = models.ready(name)
    extra = steering(models, name)
    cells = [(choice, strict) for choice in CHOICES for strict in (True, False)]
    per_cell = seeds(name)
    requests = [body(i, CHOICES[choice], strict, **extra) for choice, strict in cells for i in range(per_cell)]
    answers = post_all(server, requests)
    problems, finished = [], {cell: 0 for cell in cells}
    for (cell, request), answer in zip(((c, r) for c in cells for r in range(per_cell)), answers, strict=True):
        choice = answer["choices"][0]
        if choice["finish_reason"] == "length":
            continue
        finished[cell] += 1
        named = "book_trip" if cell[0] == "named" else None
        problems += [f"{name} {cell} question {request}: {p}" for p in call_problems(choice, named)]
    print(f"{name}: finished (not cut by max_tokens), of {per_cell} per cell: {finished}")
    assert not problems, "\n".join(problems)
    # (a random model under a grammar may pad whitespace up to max_tokens: about 1 choice in 5 of longcat-json's
    # named cells is cut so; each cell must still check some calls, and the batch at least half of its requests)
    enough = all(n >= 1 for n in finished.values()) and sum(finished.values()) >= len(requests) // 2
    assert enough, f"too few finished choices: {finished}"


@pytest.mark.parametrize("name", active("qwen3", "longcat-kv", "qwen3-vocab", "xml-vocab", "longcat-kv-vocab"))
def test_two_choices_are_both_valid(models: Models, name: str) -> None:
    server = models.ready(name)
    (answer,) = post_all(server, [body(0, "required", False, n=2, **steering(models, name))])
    assert len(answer["choices"]) == 2
    problems = [p for c in answer["choices"] if c["finish_reason"] != "length" for p in call_problems(c, None)]
    assert not problems, "\n".join(problems)


#: the models whose sampling a request's seed reproduces (with speculative decoding the CPU build's draws differ from
#: run to run, seed or not)
SEEDED = [name for name in active() if "--speculative-config" not in MODELS[name][2]]


@pytest.mark.parametrize("name", SEEDED)
def test_streaming_serves_what_the_whole_answer_serves(models: Models, name: str) -> None:
    """The same request with the same seed, sent one after the other (a per-request seed is safe only then on the
    CPU build), streamed and not."""
    server = models.ready(name)
    for seed in range(2):
        request = body(seed, "required", True, seed=seed, **steering(models, name))
        (answer,) = post_all(server, [request])
        assert stream(server, request) == whole(answer["choices"][0]), f"seed {seed}"


@pytest.mark.parametrize("name", active("qwen3", "qwen3-vocab"))
def test_a_thinking_model_may_reason_before_a_forced_call(models: Models, name: str) -> None:
    """Qwen3 writes ``<think>`` itself (``qwen3-tools-first`` does not pre-fill it): under ``tool_choice="required"``
    the grammar must let it open reasoning at the first token. The bias makes ``<think>`` the model's first choice;
    a grammar applied from the first token would refuse it."""
    server = models.ready(name)
    think = models.token_id(name, "<think>")
    assert think is not None
    extra = {"logit_bias": {str(think): 100}, "max_tokens": 8, "return_token_ids": True}
    for answer in post_all(server, [body(i, "required", True, **extra) for i in range(3)]):
        assert answer["choices"][0]["token_ids"][0] == think, answer["choices"][0]


def check_forced_batch(server: Server, name: str, extra: dict[str, Any], label: str) -> None:
    """One batch of ``name``'s questions under required and named, strict and not, with ``extra``: every finished
    choice carries valid calls (see :func:`call_problems`), and at least half of the batch finishes."""
    requests = [body(i, CHOICES[choice], strict, **extra) for choice in CHOICES for strict in (True, False)
                for i in range(seeds(name))]  # fmt: skip
    answers = post_all(server, requests)
    problems, finished = [], 0
    for request, answer in zip(requests, answers, strict=True):
        choice = answer["choices"][0]
        if choice["finish_reason"] == "length":
            continue
        finished += 1
        named = "book_trip" if isinstance(request["tool_choice"], dict) else None
        problems += [f"{name} {request['tool_choice']}: {p}" for p in call_problems(choice, named)]
    print(f"{name}: {label}, finished (not cut by max_tokens): {finished} of {len(requests)}")
    assert not problems, "\n".join(problems)
    assert finished >= len(requests) // 2, f"too few finished choices: {finished} of {len(requests)}"


THINKING = ["qwen3", "xml", "qwen3-vocab", "xml-vocab"]


@pytest.mark.parametrize("name", active(*THINKING))
def test_a_thinking_model_closes_its_reasoning_then_calls(models: Models, name: str) -> None:
    """Thinking on (``xml-function-thinking`` pre-fills ``<think>``; Qwen3 may open it): the model closes reasoning
    (steered), then writes a call the grammar holds to the schema."""
    server = models.ready(name)
    extra = {**steering(models, name), "chat_template_kwargs": {"enable_thinking": True}}
    answers = post_all(server, [body(i, "required", True, **extra) for i in range(seeds(name))])
    problems = [
        p for a in answers if a["choices"][0]["finish_reason"] != "length" for p in call_problems(a["choices"][0], None)
    ]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", active(*THINKING))
def test_forced_calls_with_thinking_off(models: Models, name: str) -> None:
    """Thinking off (``enable_thinking`` false: the templates pre-fill an empty reasoning block), required and named,
    strict and not: the call comes at once and holds to its schema."""
    server = models.ready(name)
    extra = {**steering(models, name, think=False), "chat_template_kwargs": {"enable_thinking": False}}
    check_forced_batch(server, name, extra, "thinking off")


@pytest.mark.parametrize("name", active(*THINKING))
def test_a_forced_answer_always_carries_its_call(models: Models, name: str) -> None:
    """Thinking on, the end of the turn favoured over closing the reasoning (a bias on ``<|im_end|>`` above the one on
    ``</think>``): under required or a named tool the grammar covers the reasoning, so the model cannot end its turn
    inside it; every finished answer carries a valid call (one cut by ``max_tokens`` reports ``length``).

    The biases grow with the log of the vocabulary's size (a real one's 151k-248k tokens against the small one's
    1,200), so that ``</think>`` comes about as soon among as many other tokens."""
    server = models.ready(name)
    end_of_turn, think_end = models.token_id(name, "<|im_end|>"), models.token_id(name, "</think>")
    assert end_of_turn is not None and think_end is not None
    scale = max(0, round(math.log(len(models.tokenizer(name)) / 1200)))
    bias = {**steering(models, name, think=False)["logit_bias"], str(end_of_turn): 8 + scale, str(think_end): 4 + scale}
    extra = {"logit_bias": bias, "chat_template_kwargs": {"enable_thinking": True}}
    check_forced_batch(server, name, extra, "forced answers")


@pytest.mark.parametrize("name", active("qwen3", "xml", "longcat-kv", "qwen3-vocab"))
def test_under_tool_choice_none_no_call_tag_is_served(models: Models, name: str) -> None:
    """``tool_choice="none"`` with tools, every call tag that is one token of the vocabulary favoured (a bias of 100
    on each, the model's first choice at every step without a grammar), thinking on and off: the grammar keeps the
    tags out, so each request succeeds and no call tag is served, in the content or the reasoning; streamed, the
    same request (same seed) serves the same."""
    from longcat_plugins.core.call_openers import CALL_OPENERS

    server = models.ready(name)
    openers = [i for tag in CALL_OPENERS if (i := models.token_id(name, tag)) is not None]
    assert openers, "no call tag is one token of this vocabulary"
    bias = {**steering(models, name, think=False)["logit_bias"], **{str(i): 100 for i in openers}}
    requests = [
        body(i, "none", False, seed=i, logit_bias=bias, max_tokens=48, chat_template_kwargs={"enable_thinking": on})
        for on in (True, False)
        for i in range(2)
    ]
    for request in requests:  # (one at a time: concurrent requests with seeds can crash the CPU build's engine core)
        (answer,) = post_all(server, [request])
        choice = answer["choices"][0]
        message = choice["message"]
        served = (message.get("reasoning") or "") + (message.get("content") or "")
        assert choice["finish_reason"] in ("stop", "length") and not message.get("tool_calls"), choice
        assert not [tag for tag in CALL_OPENERS if tag in served], served
        assert stream(server, request) == whole(choice)


def test_the_doctor_reports_the_cpu_build() -> None:
    """``longcat-plugins doctor --engine vllm`` in this environment finds vLLM's CPU build and passes."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "VLLM_TARGET_DEVICE": "cpu"}
    done = subprocess.run(
        [sys.executable, "-m", "longcat_plugins.cli", "doctor", "--engine", "vllm"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "doctor: all checks passed" in done.stdout
    version_rows = [line for line in done.stdout.splitlines() if line.startswith("vllm") and " version " in line]
    assert version_rows and "0.32.0" in version_rows[0], version_rows
